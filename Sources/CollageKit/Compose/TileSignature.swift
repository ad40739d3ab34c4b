import Vips

/// What `--flag` needs to know of a decoded tile, taken in one pass over
/// its pixels on the worker thread that decoded it (so flagging adds no
/// pass of its own to the pipeline): whether it is one flat colour, and a
/// 64-bit difference hash (dHash) of its look.
public struct TileSignature: Sendable, Equatable {
    /// Every band's standard deviation is below 2 (on 0-255).
    public let blank: Bool
    /// dHash: the tile's grey levels averaged over 9x8 boxes; bit `8r + c`
    /// is set when box (c, r) is brighter than box (c + 1, r). nil for a
    /// tile too small to have 9x8 boxes.
    public let hash: UInt64?

    public init(blank: Bool, hash: UInt64?) {
        self.blank = blank
        self.hash = hash
    }

    /// The largest standard deviation that still counts as flat.
    static let flatDeviation = 2.0

    public init(_ pixels: PixelBuffer) {
        let width = pixels.width, height = pixels.height, bands = pixels.bands
        // Box of each column and row, looked up instead of divided per pixel.
        let columnBox = (0..<width).map { $0 * 9 / width }
        var boxes = [UInt64](repeating: 0, count: 72)
        var sums = [UInt64](repeating: 0, count: bands)
        var squares = [UInt64](repeating: 0, count: bands)
        pixels.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var rowBoxes = [UInt64](repeating: 0, count: 9)
            var rowSums = [UInt64](repeating: 0, count: bands)
            var rowSquares = [UInt64](repeating: 0, count: bands)
            for y in 0..<height {
                for index in 0..<9 { rowBoxes[index] = 0 }
                for band in 0..<bands { rowSums[band] = 0; rowSquares[band] = 0 }
                var offset = y * width * bands
                for x in 0..<width {
                    var grey: UInt64 = 0
                    for band in 0..<bands {
                        let value = UInt64(bytes[offset + band])
                        rowSums[band] &+= value
                        rowSquares[band] &+= value &* value
                        grey &+= value
                    }
                    rowBoxes[columnBox[x]] &+= grey
                    offset += bands
                }
                let row = y * 8 / height
                for column in 0..<9 {
                    boxes[row * 9 + column] &+= rowBoxes[column]
                }
                for band in 0..<bands { sums[band] &+= rowSums[band]; squares[band] &+= rowSquares[band] }
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
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }
}
