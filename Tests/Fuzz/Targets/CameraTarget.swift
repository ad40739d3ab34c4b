import FileFacts

/// The camera fields' readers of libvips' EXIF strings, and what a caption
/// says of them: two strings (split at the first NUL) read as a text and as
/// a number each; a number is finite; a text read is a prefix of what was
/// given; whatever the values, every field's text is a line (no control
/// character), bounded, and empty exactly where the value is not known.
enum CameraTarget {
    static let exif = FuzzTarget("camera-exif", maxLength: 1024) { bytes in
        let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let (first, second) = (parts[0], parts.count > 1 ? parts[1] : "")
        let numbers = [first, second].map(CameraFacts.number(exif:))
        if let bad = numbers.compactMap({ $0 }).first(where: { !$0.isFinite }) { return "a number \(bad)" }
        let texts = [first, second].map(CameraFacts.string(exif:))
        guard texts[0].unicodeScalars.elementsEqual(first.unicodeScalars.prefix(texts[0].unicodeScalars.count)) else {
            return "'\(texts[0])' is not the start of '\(first)'"
        }
        let facts = CameraFacts(make: texts[1], model: texts[0], lens: first, focalLength: numbers[0],
                                aperture: numbers[1], exposure: numbers[0].map { 1 / $0 },
                                iso: numbers[1].flatMap { $0 >= 1 && $0 < 1e7 ? Int($0) : nil })
        let said = [facts.cameraText, facts.lensText, facts.focalText, facts.apertureText, facts.shutterText, facts.isoText]
        if let bad = said.first(where: { $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } }) {
            return "'\(bad)' holds a control character"
        }
        if let long = said.first(where: { $0.count > 300 }) { return "'\(long.prefix(40))…' is too long" }
        let known: [Bool] = [facts.focalLength != nil, facts.aperture != nil, facts.exposure != nil, facts.iso != nil]
        guard zip(known, said[2...]).allSatisfy({ $0 == !$1.isEmpty }) else { return "a field's text and its value disagree: \(said)" }
        return nil
    }
}
