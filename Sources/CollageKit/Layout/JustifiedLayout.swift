import Vips

/// Rows of whole images, each at its own displayed aspect ratio (nothing
/// cropped, nothing stretched), in input order, every row spanning the
/// canvas width between the margins, the rows together at most the canvas
/// height with what is left split above and below.
///
/// Row breaks by linear partition (dynamic programming): for each number of
/// rows r, the partition of the images into r consecutive rows whose
/// heights are closest (least squares) to the height they would all have
/// if each held a r-th of the aspect ratios; then, of the partitions that
/// fit, the r that fills the canvas best with rows of similar height,
/// preferring partitions where no row is more than twice as tall as another. When even one row of everything is taller than the
/// canvas (a few portraits on a wide canvas), the best partition is scaled
/// down to fit and centred: rows then no longer span the width.
struct JustifiedLayout: SheetLayout {
    var options = LayoutOptions()

    var placesByCount: Bool { false }

    func frames(for shapes: [ImageShape], on canvas: Canvas) -> [Frame] {
        guard !shapes.isEmpty else { return [] }
        let area = options.area(canvas)
        let gap = options.gap
        let aspects = shapes.map { Double(max(1, $0.width)) / Double(max(1, $0.height)) }
        let rowWidth = Double(max(1, area.width - 2 * gap))
        let room = Double(area.height - gap)  // above the first row and below each: one gap each
        let band: Int, plan: Partition
        if options.nominalHeight != nil {
            (band, plan) = natural(aspects, width: canvas.width)
        } else {
            band = options.captionBand(max(1, area.height / max(1, Int(Double(shapes.count).squareRoot().rounded()))))
            plan = Partition.best(aspects: aspects, rowWidth: rowWidth, gap: Double(gap), band: Double(band), room: room)
        }
        // Scaled down (and centred) only when nothing fits at full width.
        let total = plan.height(band: Double(band), gap: Double(gap))
        let scale = total > room ? max(0.01, (room - Double(plan.rows.count) * Double(band + gap))
                                       / plan.rows.reduce(0) { $0 + $1.height }) : 1
        let used = plan.rows.reduce(0.0) { $0 + $1.height * scale } + Double(plan.rows.count) * Double(band + gap)
        var y = Double(area.y + gap) + max(0, (room - used) / 2).rounded(.down)
        var frames: [Frame] = []
        for row in plan.rows {
            let height = row.height * scale
            let width = row.aspect * height
            let span = width + Double((row.images.count - 1) * gap)
            let left = Double(area.x + gap) + (rowWidth - span) / 2
            var covered = 0.0
            var tallest = 0
            var rowFrames: [Frame] = []
            for (position, index) in row.images.enumerated() {
                let x0 = (left + covered).rounded() + Double(position * gap)
                covered += aspects[index] * height
                let x1 = (left + covered).rounded() + Double(position * gap)
                let w = max(1, Int(x1 - x0))
                // The height follows the rounded width: the image's own shape to a pixel.
                let h = max(1, Int((Double(w) / aspects[index]).rounded()))
                tallest = max(tallest, h)
                rowFrames.append(Frame(image: TileRect(x: Int(x0), y: Int(y.rounded()), width: w, height: h)))
            }
            let top = Int(y.rounded())
            for frame in rowFrames {
                var caption = band > 0 ? TileRect(x: frame.image.x, y: top + tallest, width: frame.image.width,
                                                  height: band) : nil
                var cell = TileRect(x: frame.image.x, y: top, width: frame.image.width, height: tallest + band)
                var image = frame.image
                // On a page, a rounding pixel past the area would fall in the margin: kept out of it.
                if options.pageMargin != nil {
                    (image, cell) = (image.clamped(to: area), cell.clamped(to: area))
                    caption = caption?.clamped(to: area)
                }
                frames.append(Frame(image: image, cell: cell, crop: .centre, caption: caption))
            }
            y += height + Double(band + gap)
        }
        return frames
    }
}

extension JustifiedLayout {
    /// `--size WIDTHx`: rows about a quarter of the width high (each row's
    /// caption band sized for that), as many as the images' aspect ratios
    /// need for it, the split whose rows are closest to that height; the
    /// canvas is as tall as they are, with the title, bands and gaps.
    func naturalHeight(for shapes: [ImageShape], width: Int) -> Int {
        let aspects = shapes.map { Double(max(1, $0.width)) / Double(max(1, $0.height)) }
        let (band, plan) = natural(aspects, width: max(1, width - 2 * options.margin))
        return 2 * options.margin + options.titleBand + options.gap + Int(plan.height(band: Double(band), gap: Double(options.gap)).rounded(.up))
    }

    func natural(_ aspects: [Double], width: Int) -> (band: Int, plan: Partition) {
        let target = Double(max(1, width / 4))
        let rowWidth = Double(max(1, width - 2 * options.gap))
        // About this many rows of that height hold the images; of one fewer to one more, the closest.
        let guess = Int((aspects.reduce(0, +) * target / rowWidth).rounded())
        let plans = (max(1, guess - 1)...min(aspects.count, max(1, guess + 1))).map {
            Partition.split(aspects, into: $0, target: target, rowWidth: rowWidth, gap: Double(options.gap))
        }
        func cost(_ plan: Partition) -> Double {
            plan.rows.reduce(0) { $0 + ($1.height - target) * ($1.height - target) } / Double(plan.rows.count)
        }
        return (options.captionBand(Int(target)), plans.min { cost($0) < cost($1) }!)
    }
}

/// Consecutive rows of images, and how to choose them.
struct Partition {
    struct Row {
        var images: Range<Int>
        /// The sum of the row's aspect ratios.
        var aspect: Double
        /// The row's height at full width.
        var height: Double
    }

    var rows: [Row]

    func height(band: Double, gap: Double) -> Double {
        rows.reduce(0) { $0 + $1.height } + Double(rows.count) * (band + gap)
    }

    static func best(aspects: [Double], rowWidth: Double, gap: Double, band: Double, room: Double) -> Partition {
        let n = aspects.count
        // With r rows each about r times as tall as one row of everything,
        // about sqrt(room / that height) rows fill the canvas: look around it.
        let single = max(1e-9, (rowWidth - Double(n - 1) * gap) / aspects.reduce(0, +))
        let guess = Int((room / single).squareRoot().rounded())
        var best: (score: Double, partition: Partition)?
        for count in max(1, guess / 2 - 1)...min(n, 2 * guess + 2) {
            // Rows of equal height: each would hold a count-th of the aspect ratios.
            let target = single * Double(count)
            let partition = split(aspects, into: count, target: target, rowWidth: rowWidth, gap: gap)
            let total = partition.height(band: band, gap: gap)
            let heights = partition.rows.map(\.height)
            let mean = heights.reduce(0, +) / Double(heights.count)
            let spread = heights.reduce(0) { $0 + (($1 - mean) / mean) * (($1 - mean) / mean) } / Double(heights.count)
            let fits = total <= room + 0.5
            let balanced = heights.max()! <= 2 * heights.min()!
            // Fitting first, then balance, then how full the canvas is.
            var score = (1 - min(total, room) / room) * (1 - min(total, room) / room) + spread
            if !balanced { score += 10 }
            if !fits { score += 100 + total / room }
            if best == nil || score < best!.score { best = (score, partition) }
        }
        return best?.partition ?? split(aspects, into: 1, target: single, rowWidth: rowWidth, gap: gap)
    }

    /// The split of `aspects` into `count` consecutive rows of `rowWidth`
    /// whose heights are closest to `target` (least squares).
    static func split(_ aspects: [Double], into count: Int, target: Double, rowWidth: Double, gap: Double) -> Partition {
        var prefix = [0.0]
        for aspect in aspects { prefix.append(prefix.last! + aspect) }
        return split(aspects.count, into: count, target: target) { start, end in
            let aspect = prefix[end] - prefix[start]
            return Row(images: start..<end, aspect: aspect, height: (rowWidth - Double(end - start - 1) * gap) / aspect)
        }
    }

    /// The split of `n` images into `count` consecutive rows whose heights
    /// are closest to `target` (least squares).
    private static func split(_ n: Int, into count: Int, target: Double, row: (Int, Int) -> Row) -> Partition {
        // cost[k][i]: the best cost of the first i images in k rows.
        var cost = [[Double]](repeating: [Double](repeating: .infinity, count: n + 1), count: count + 1)
        var from = [[Int]](repeating: [Int](repeating: 0, count: n + 1), count: count + 1)
        cost[0][0] = 0
        for k in 1...count {
            for i in k...(n - (count - k)) {
                for j in (k - 1)..<i where cost[k - 1][j] < .infinity {
                    let deviation = row(j, i).height - target
                    let total = cost[k - 1][j] + deviation * deviation
                    if total < cost[k][i] { cost[k][i] = total; from[k][i] = j }
                }
            }
        }
        var rows: [Row] = []
        var end = n
        for k in stride(from: count, to: 0, by: -1) {
            let start = from[k][end]
            rows.insert(row(start, end), at: 0)
            end = start
        }
        return Partition(rows: rows)
    }
}
