import Vips

/// What `--flag` needs to know of a decoded tile, taken in one pass over
/// its pixels on the worker thread that decoded it (so flagging adds no
/// pass of its own to the pipeline): whether it is one flat colour, and a
/// 64-bit difference hash (dHash) of its look.
struct TileSignature: Sendable, Equatable {
    /// Every band's standard deviation is below 2 (on 0-255).
    let blank: Bool
    /// dHash: the tile's grey levels averaged over 9x8 boxes; bit `8r + c`
    /// is set when box (c, r) is brighter than box (c + 1, r). nil for a
    /// tile too small to have 9x8 boxes.
    let hash: UInt64?

    init(blank: Bool, hash: UInt64?) {
        self.blank = blank
        self.hash = hash
    }

    /// The largest standard deviation that still counts as flat.
    static let flatDeviation = FlagKind.flatDeviation

    init(_ pixels: PixelBuffer) {
        let width = pixels.width, height = pixels.height, bands = pixels.bands
        // Box of each column and row, looked up instead of divided per pixel.
        let columnBox = (0..<width).map { $0 * 9 / width }
        var boxes = [UInt64](repeating: 0, count: 72)
        var sums = [UInt64](repeating: 0, count: bands)
        var squares = [UInt64](repeating: 0, count: bands)
        pixels.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            columnBox.withUnsafeBufferPointer { columnBox in
                for y in 0..<height {
                    var rowBoxes = [UInt64](repeating: 0, count: 9)
                    var offset = y * width * bands
                    if bands == 3 {
                        // The tiles' case in scalars: one pass, no array in the loop.
                        var s0: UInt64 = 0, s1: UInt64 = 0, s2: UInt64 = 0, q0: UInt64 = 0, q1: UInt64 = 0, q2: UInt64 = 0
                        var current = 0, grey: UInt64 = 0
                        for x in 0..<width {
                            let r = UInt64(bytes[offset]), g = UInt64(bytes[offset + 1]), b = UInt64(bytes[offset + 2])
                            s0 &+= r; s1 &+= g; s2 &+= b
                            q0 &+= r &* r; q1 &+= g &* g; q2 &+= b &* b
                            if columnBox[x] != current { rowBoxes[current] = grey; grey = 0; current = columnBox[x] }
                            grey &+= r &+ g &+ b
                            offset += 3
                        }
                        rowBoxes[current] = grey
                        sums[0] &+= s0; sums[1] &+= s1; sums[2] &+= s2
                        squares[0] &+= q0; squares[1] &+= q1; squares[2] &+= q2
                    } else {
                        for x in 0..<width {
                            for band in 0..<bands {
                                let value = UInt64(bytes[offset + band])
                                sums[band] &+= value
                                squares[band] &+= value &* value
                                rowBoxes[columnBox[x]] &+= value
                            }
                            offset += bands
                        }
                    }
                    let row = y * 8 / height
                    for column in 0..<9 { boxes[row * 9 + column] &+= rowBoxes[column] }
                }
            }
        }
        let total = Double(width * height)
        blank = (0..<bands).allSatisfy { band in
            let mean = Double(sums[band]) / total
            let variance = max(0, Double(squares[band]) / total - mean * mean)
            return variance < Self.flatDeviation * Self.flatDeviation
        }
        guard width >= 9, height >= 8 else { hash = nil; return }
        // How many pixels each box holds, to compare averages, not sums.
        var columnWidths = [Double](repeating: 0, count: 9), rowHeights = [Double](repeating: 0, count: 8)
        for x in 0..<width { columnWidths[columnBox[x]] += 1 }
        for y in 0..<height { rowHeights[y * 8 / height] += 1 }
        func average(_ row: Int, _ column: Int) -> Double {
            Double(boxes[row * 9 + column]) / (columnWidths[column] * rowHeights[row])
        }
        var bits: UInt64 = 0
        for row in 0..<8 {
            for column in 0..<8 {
                if average(row, column) > average(row, column + 1) { bits |= 1 << UInt64(row * 8 + column) }
            }
        }
        hash = bits
    }

    /// How many bits two hashes differ in.
    static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }
}
