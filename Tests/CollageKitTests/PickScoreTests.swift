import Glibc
import XCTest
@testable import CollageKit
@testable import Vips
import CollageTestSupport

/// Scenes painted here: rectangles of random greys and colours on a
/// textured ground, seeded, so each seed is one scene and any shift,
/// exposure or blur of it is known exactly.
enum PaintedScene {
    /// Scene `seed` at `width` x `height`, moved `shift` of its width to the
    /// left, its levels times `gain` (clipped).
    static func paint(_ seed: UInt64, width: Int = 256, height: Int = 192, shift: Double = 0,
                      gain: Double = 1) -> PixelBuffer {
        var random = SplitMix64(seed: seed)
        let boxes = (0..<14).map { _ in
            (x: random.unit() * 1.1 - 0.1, y: random.unit() - 0.1, w: 0.1 + random.unit() * 0.4,
             h: 0.1 + random.unit() * 0.4, r: random.unit() * 220, g: random.unit() * 220, b: random.unit() * 220)
        }
        let texture = 3 + Double(seed % 5)
        return PixelBuffer(width: width, height: height) { x, y in
            let u = Double(x) / Double(width) + shift, v = Double(y) / Double(height)
            var colour = (r: 90.0, g: 100.0, b: 110.0)
            for box in boxes where u >= box.x && u < box.x + box.w && v >= box.y && v < box.y + box.h {
                colour = (box.r, box.g, box.b)
            }
            // Fine detail, as a sharp photo has: stripes a few pixels wide, and grain of the scene's own.
            let stripes = 14 * sin(u * Double(width) / texture * 2.1) * cos(v * Double(height) / texture * 1.7)
            var grain = SplitMix64(seed: seed &+ UInt64(Int(u * Double(width)) & 0xFFFF) << 16 &+ UInt64(y))
            let detail = stripes + 24 * (grain.unit() - 0.5)
            func level(_ value: Double) -> UInt8 { UInt8(max(0, min(255, (value + detail) * gain))) }
            return RGB(red: level(colour.r), green: level(colour.g), blue: level(colour.b))
        }
    }

    /// `pixels` blurred by a horizontal box of `length` pixels (motion) or,
    /// with `both`, a square one (focus).
    static func blurred(_ pixels: PixelBuffer, length: Int, both: Bool = false) -> PixelBuffer {
        PixelBuffer(width: pixels.width, height: pixels.height) { x, y in
            var sums = (0, 0, 0), count = 0
            for dy in (both ? -length / 2...length / 2 : 0...0) {
                for dx in -length / 2...length / 2 {
                    let p = pixels.pixel(x: min(max(x + dx, 0), pixels.width - 1), y: min(max(y + dy, 0), pixels.height - 1))
                    sums.0 += Int(p.red); sums.1 += Int(p.green); sums.2 += Int(p.blue); count += 1
                }
            }
            return RGB(red: UInt8(sums.0 / count), green: UInt8(sums.1 / count), blue: UInt8(sums.2 / count))
        }
    }
}

final class PickScoreTests: XCTestCase {
    private func print(_ look: PixelBuffer) -> UInt64 { Fingerprint.of(GreyLook(look)) }

    func testTheFingerprintHoldsThroughShiftsExposureAndResizingButNotAnotherScene() {
        let scene = print(PaintedScene.paint(1))
        XCTAssertEqual(Fingerprint.distance(scene, print(PaintedScene.paint(1))), 0, "the same pixels, the same bits")
        XCTAssertLessThanOrEqual(Fingerprint.distance(scene, print(PaintedScene.paint(1, shift: 0.03))), 12)
        XCTAssertLessThanOrEqual(Fingerprint.distance(scene, print(PaintedScene.paint(1, gain: 0.7))), 8)
        XCTAssertLessThanOrEqual(Fingerprint.distance(scene, print(PaintedScene.paint(1, width: 128, height: 96))), 6)
        XCTAssertLessThanOrEqual(Fingerprint.distance(scene, print(PaintedScene.blurred(PaintedScene.paint(1), length: 9))), 8)
        for other in 2...6 as ClosedRange<UInt64> {
            XCTAssertGreaterThan(Fingerprint.distance(scene, print(PaintedScene.paint(other))), Moments.burstDistance,
                                 "scene \(other) is another scene")
        }
    }

    func testABlurredFrameScoresClearlyBelowItsSharpOnesWhateverItsContrast() {
        for seed in 1...4 as ClosedRange<UInt64> {
            let sharp = PickScore(GreyLook(PaintedScene.paint(seed)))
            let darker = PickScore(GreyLook(PaintedScene.paint(seed, gain: 0.6)))
            let motion = PickScore(GreyLook(PaintedScene.blurred(PaintedScene.paint(seed), length: 9)))
            let focus = PickScore(GreyLook(PaintedScene.blurred(PaintedScene.paint(seed), length: 7, both: true)))
            XCTAssertFalse(sharp.clearlyBlurred, "scene \(seed): \(sharp.sharpness)")
            XCTAssertFalse(darker.clearlyBlurred, "scene \(seed) darker: \(darker.sharpness)")
            XCTAssertEqual(sharp.sharpness, darker.sharpness, accuracy: 0.08, "contrast does not make it sharper")
            // A 9-pixel motion of a painted scene can score as a sharp real photo of a shallow depth of
            // field does (0.59-0.71 keeping 0.80-0.85; the meadow of samples/ 0.51 keeping 0.74): it
            // ranks below its sharp frame, but it is not left out for it.
            XCTAssertLessThan(motion.sharpness, sharp.sharpness - 0.1, "scene \(seed) moved")
            XCTAssertTrue(focus.clearlyBlurred, "scene \(seed) defocused: \(focus.told)")
            XCTAssertTrue(sharp.ranks(before: motion))
            XCTAssertTrue(sharp.ranks(before: focus))
        }
    }

    /// The photos of samples/ (1024 pixels across) as the pick looks at
    /// them: sharp, and a soft portrait's way (the frame blurred but its
    /// middle), never clearly blurred; blurred over the whole frame by a
    /// Gaussian of sigma 3 (under a pixel of the look) or defocused by one
    /// of sigma 14, always.
    func testRealPhotosSharpSoftAroundASharpSubjectAndDefocused() throws {
        let folder = try TemporaryDirectory()
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("samples").path
        func score(_ path: String) throws -> PickScore {
            let file = try OpenFile.open(PathName(path)).get()
            return try withExtendedLifetime(file) {
                let header = try ImageFile.header(descriptor: file.descriptor)
                return try PickLook.look(descriptor: file.descriptor, header: header, maxBuffer: 1 << 30).score
            }
        }
        // A lens's defocus: a disc of radius 6 px (a Gaussian of sigma 3's spread), each
        // weight the share of its pixel inside the disc.
        var lensMissed: [String] = []
        let disc = folder("disc.mat")
        try writeFile(Array(Self.discMask(radius: 6).utf8), to: disc)
        for name in ["aqua", "dune", "greenmeadow", "raindrops", "twowings", "storm-rotated", "blinds-portrait",
                     "wood-sideways"] {
            let sharp = samples + "/\(name).jpg", defocused = folder("\(name)-14.jpg").description
            let blurred = folder("\(name)-3.jpg").description
            try TestMedia.run("vips", ["gaussblur", sharp, blurred + "[Q=90]", "3", "--min-ampl", "0.005"])
            let soft = folder("\(name)-soft.jpg").description, middle = folder("\(name)-middle.v").description
            try TestMedia.run("vips", ["gaussblur", sharp, defocused, "14"])
            try TestMedia.run("vips", ["gaussblur", sharp, folder("\(name)-8.v").description, "8"])
            let file = try OpenFile.open(PathName(sharp)).get()
            let (width, height) = try withExtendedLifetime(file) {
                let header = try ImageFile.header(descriptor: file.descriptor)
                return (header.width, header.height)
            }
            try TestMedia.run("vips", ["crop", sharp, middle, "\(width / 3)", "\(height / 3)", "\(width / 3)", "\(height / 3)"])
            try TestMedia.run("vips", ["insert", folder("\(name)-8.v").description, middle, soft,
                                       "\(width / 3)", "\(height / 3)"])
            let lens = folder("\(name)-disc.jpg").description
            try TestMedia.run("vips", ["conv", sharp, lens + "[Q=90]", disc.description, "--precision", "float"])
            let (a, b, c, d) = (try score(sharp), try score(soft), try score(defocused), try score(blurred))
            XCTAssertFalse(a.clearlyBlurred, "\(name): \(a.told)")
            XCTAssertFalse(b.clearlyBlurred, "\(name) soft around: \(b.told)")
            XCTAssertTrue(c.clearlyBlurred, "\(name) defocused: \(c.told)")
            XCTAssertTrue(d.clearlyBlurred, "\(name) blurred by sigma 3: \(d.told)")
            let e = try score(lens)
            if !e.clearlyBlurred { lensMissed.append("\(name): \(e.told)") }
        }
        // 60 of 63 photos by the calibration (docs/order-and-groups.md); here
        // wood-sideways keeps 0.770 of its half's steepness, at the line (0.76).
        XCTAssertLessThanOrEqual(lensMissed.count, 1, "defocused by a disc of radius 6, not caught: \(lensMissed)")
    }

    /// libvips' text matrix of a disc of `radius` pixels, each weight the
    /// share of its pixel inside (8x8 points a pixel), summing to 1.
    static func discMask(radius: Double) -> String {
        let reach = Int(radius.rounded(.up)), side = 2 * reach + 1
        var weights = [Double](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                for sy in 0..<8 {
                    for sx in 0..<8 {
                        let dx = Double(x - reach) + (Double(sx) + 0.5) / 8 - 0.5
                        let dy = Double(y - reach) + (Double(sy) + 0.5) / 8 - 0.5
                        if dx * dx + dy * dy <= radius * radius { weights[y * side + x] += 1 }
                    }
                }
            }
        }
        let total = weights.reduce(0, +)
        let rows = (0..<side).map { y in (0..<side).map { x in "\(weights[y * side + x] / total)" }.joined(separator: " ") }
        return "\(side) \(side) 1 0\n" + rows.joined(separator: "\n") + "\n"
    }

    func testClippingBlankFacesAndRatings() {
        let halfWhite = PixelBuffer(width: 64, height: 64) { x, _ in x < 32 ? RGB(red: 255, green: 255, blue: 255)
                                                                             : RGB(red: 120, green: 90, blue: 60) }
        XCTAssertEqual(PickScore(GreyLook(halfWhite)).clipped, 0.5, accuracy: 0.001)
        let black = PickScore(GreyLook(PixelBuffer(width: 64, height: 48, fill: RGB(red: 0, green: 0, blue: 0))))
        XCTAssertTrue(black.blank)
        XCTAssertTrue(black.excluded)
        let noisy = PixelBuffer(width: 64, height: 48) { x, y in RGB(red: UInt8((x * 7 + y * 3) % 4), green: 1, blue: 1) }
        XCTAssertTrue(PickScore(GreyLook(noisy)).blank, "the --flag blank rule: deviation under 2 is flat")
        let look = GreyLook(PaintedScene.paint(3))
        let framed = PickScore(look, faces: [(0.2, 0.2, 0.4, 0.5)])
        let cut = PickScore(look, faces: [(0.9, 0.2, 1.1, 0.5)])
        XCTAssertEqual([framed.faces, framed.facesCut, cut.faces, cut.facesCut], [1, 0, 0, 1])
        XCTAssertTrue(framed.ranks(before: cut), "a face inside the frame beats one the frame cuts")
        let blurredFive = PickScore(GreyLook(PaintedScene.blurred(PaintedScene.paint(3), length: 9)), rating: 5)
        XCTAssertTrue(blurredFive.ranks(before: PickScore(look)), "the rating ranks first")
        XCTAssertTrue(PickScore(look, rating: -1).excluded)
        XCTAssertEqual(PickScore(look, rating: 9).rating, 5, "out of range is clamped")
    }
}

private extension PickScore {
    /// What the blur is judged by, for a failure's message.
    var told: String {
        "sharpness \(sharpness), steepness \(edgeSteepness.map { "\($0)" } ?? "none"), kept \(edgeKept.map { "\($0)" } ?? "none")"
    }
}

private extension SplitMix64 {
    /// Uniform in 0..<1.
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
