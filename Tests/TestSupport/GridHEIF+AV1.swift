import Foundation

extension GridHEIF {
    /// The tiles of `photo` coded by libaom as AV1 key frames, one a tile
    /// (8-bit 4:2:0): the sequence header's OBU (the `av1C` box's
    /// configuration) and each tile's OBUs, its temporal delimiter left out.
    func encodeAV1(_ photo: String, filters: [String], format: String,
                   scratch stream: String) throws -> (parameterSets: [[UInt8]], frames: [[UInt8]]) {
        try ffmpeg(photo, ["-vf", chain(filters: filters, format: format), "-c:v", "libaom-av1", "-cpu-used", "8",
                           "-usage", "realtime", "-g", "1", "-f", "obu"], stream: stream)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: stream)))
        var frames: [[UInt8]] = [], sequenceHeader: [UInt8] = [], at = 0
        while at < bytes.count {
            let header = bytes[at], type = (header >> 3) & 15, extended = (header >> 2) & 1
            guard header & 2 != 0 else { throw TestFailure("an OBU without its size") }
            var size = 0, shift = 0, cursor = at + 1 + Int(extended)
            while true {
                let byte = bytes[cursor]
                size |= Int(byte & 0x7F) << shift
                shift += 7
                cursor += 1
                if byte & 0x80 == 0 { break }
            }
            let unit = Array(bytes[at..<cursor + size])
            if type == 2 {
                frames.append([])  // a temporal delimiter: the next tile
            } else {
                if type == 1, sequenceHeader.isEmpty { sequenceHeader = unit }
                frames[frames.count - 1] += unit
            }
            at = cursor + size
        }
        guard frames.count == columns * rows, !sequenceHeader.isEmpty else {
            throw TestFailure("libaom gave \(frames.count) frames for \(columns * rows) tiles")
        }
        return ([sequenceHeader], frames)
    }

    /// An `av1C` box for 8-bit 4:2:0 (or `monochrome`) Main profile tiles: `configuration` its OBUs.
    static func av1C(_ configuration: [UInt8], monochrome: Bool = false) -> [UInt8] {
        box("av1C", [0x81, 0x08, monochrome ? 0x1C : 0x0C, 0x00] + configuration)
    }
}
