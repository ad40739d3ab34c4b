/// Pixels whose difference anti-aliasing explains, found as pixelmatch
/// finds them (after Vysniauskas' "Anti-aliased pixel and intensity slope
/// detector"), but for every pixel at once with libvips operations instead
/// of a loop: a pixel is anti-aliased in a picture when at most two of its
/// eight neighbours have its brightness, some are darker and some brighter,
/// and its darkest or its brightest neighbour has more than two neighbours
/// of exactly its own colour in both pictures (it sits in a flat area: the
/// pixel is on the slope between two flat areas). At the picture's edge the
/// edge is repeated, which makes an edge pixel never anti-aliased.
enum AntiAliasing {
    static let offsets = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)]

    /// 255 where the pixel is anti-aliased in `a` or in `b` (same sizes).
    static func mask(_ a: Image, _ b: Image) throws -> Image {
        let flat = try manySiblings(a).and(manySiblings(b)).inMemory()
        let luma = Array(Difference.yiq.prefix(3))
        let edgeA = try slope(a.recombined(luma, rows: 1).inMemory(), flat: flat)
        let edgeB = try slope(b.recombined(luma, rows: 1).inMemory(), flat: flat)
        return try edgeA.or(edgeB).inMemory()
    }

    /// 255 where more than two of the eight neighbours have exactly the pixel's colour.
    static func manySiblings(_ image: Image) throws -> Image {
        var count: Image?
        for (dx, dy) in offsets {
            let same = try image.neighbour(dx: dx, dy: dy).equal(image).allBands().linear(1.0 / 255, 0, uchar: true)
            count = try count.map { try $0.plus(same) } ?? same
        }
        return try count!.more(2)
    }

    /// 255 where the pixel of `luma` (brightness) is on a slope between
    /// flat areas (`flat`: `manySiblings` in both pictures).
    static func slope(_ luma: Image, flat: Image) throws -> Image {
        let deltas = try offsets.map { try luma.neighbour(dx: $0.0, dy: $0.1).minus(luma) }
        var zeroes: Image?
        for delta in deltas {
            let zero = try delta.equal(0).linear(1.0 / 255, 0, uchar: true)
            zeroes = try zeroes.map { try $0.plus(zero) } ?? zero
        }
        let darkest = try Image.ranked(deltas, index: 0), brightest = try Image.ranked(deltas, index: deltas.count - 1)
        let candidate = try zeroes!.lessOrEqual(2).and(darkest.less(0)).and(brightest.more(0))
        var anchored: Image?
        for (delta, (dx, dy)) in zip(deltas, offsets) {
            let extreme = try delta.equal(darkest).or(delta.equal(brightest))
            let here = try extreme.and(flat.neighbour(dx: dx, dy: dy))
            anchored = try anchored.map { try $0.or(here) } ?? here
        }
        return try candidate.and(anchored!)
    }
}
