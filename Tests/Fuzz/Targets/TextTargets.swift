import CollageKit
import Vips

/// What the command line parses from text: label and title templates,
/// option values (sizes, tiles, colours, crops, shard specs, the batch
/// system's variables for `--shard auto`), exclude patterns. The first
/// byte of an input picks the parser; the rest is its text.
enum TextTargets {
    static let all = [template, options, exclude]

    /// A template that parses round-trips: written back (text with its
    /// braces doubled, fields as `{name}`), it parses to the same parts.
    static let template = FuzzTarget("template") { bytes in
        guard let selector = bytes.first else { return nil }
        let fields = selector % 2 == 0 ? Template.labelFields : Template.titleFields
        let source = String(decoding: bytes.dropFirst(), as: UTF8.self)
        let marker: Unicode.Scalar = "\u{E000}"  // a field's value, told apart from text
        guard !source.unicodeScalars.contains(marker), let parsed = try? Template(source, fields: fields) else { return nil }
        func parts(_ template: Template) -> [String] {
            template.render { "\(marker)\($0)\(marker)" }.unicodeScalars
                .split(separator: marker, omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        }
        let pieces = parts(parsed)
        let written = pieces.enumerated().map { index, piece in
            index % 2 == 1 ? "{\(piece)}" : piece.replacingOccurrences("{", "{{").replacingOccurrences("}", "}}")
        }.joined()
        guard let again = try? Template(written, fields: fields) else { return "'\(source)' written back as '\(written)' does not parse" }
        return first(
            pieces.count % 2 == 1 ? nil : "'\(source)' renders an unclosed field",
            pieces.enumerated().allSatisfy { $0.offset % 2 == 0 || fields.contains($0.element) } ? nil
                : "'\(source)' renders a field that is not one",
            parts(again) == pieces ? nil : "'\(source)' written back as '\(written)' parses to other parts",
            source.contains("{") || source.contains("}") || parsed.render { _ in "" } == source ? nil
                : "'\(source)' has no brace but renders otherwise")
    }

    static let options = FuzzTarget("options") { bytes in
        guard let selector = bytes.first else { return nil }
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        switch selector % 6 {
        case 0:
            guard let size = CanvasSize(text) else { return nil }
            // WIDTHx (no height): as tall as the content.
            let written = "\(size.width)x\(size.height.map(String.init) ?? "")"
            return first((1...65_500).contains(size.width) && (size.height.map { (1...65_500).contains($0) } ?? true)
                         ? nil : "--size \(text)",
                         CanvasSize(written) == size ? nil : "--size \(text) does not round-trip as \(written)")
        case 1:
            guard let shape = GridShape(text) else { return nil }
            let sides = [shape.columns, shape.rows].compactMap { $0 }
            let written = "\(shape.columns.map(String.init) ?? "")x\(shape.rows.map(String.init) ?? "")"
            return first(!sides.isEmpty && sides.allSatisfy { (1...10_000).contains($0) } ? nil : "--tile \(text)",
                         GridShape(written) == shape ? nil : "--tile \(text) does not round-trip as \(written)")
        case 2:
            guard let rgb = OptionValues.colour(text) else { return nil }
            let hex = "#" + [rgb.red, rgb.green, rgb.blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            return first(OptionValues.colour(hex) == rgb ? nil : "--background \(text) is not \(hex)",
                         OptionValues.colour("\(rgb.red),\(rgb.green),\(rgb.blue)") == rgb ? nil : "--background \(text)",
                         Colour(text) == Colour(hex) ? nil : "Colour(\(text)) is not Colour(\(hex))")
        case 3:
            return shard(Shard.parse(text, environment: [:]), text)
        case 4:
            // `--shard auto`: the environment, one NAME=VALUE a line.
            var environment: [String: String] = [:]
            for line in text.split(separator: "\n") {
                let pair = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                environment[String(pair[0])] = pair.count > 1 ? String(pair[1]) : ""
            }
            return shard(Shard.parse("auto", environment: environment), text)
        default:
            guard let crop = CropChoice(text) else { return nil }
            // Exactly the contract's spellings parse: every case's own name, and `center`.
            let spellings = Set(CropChoice.allCases.map(\.rawValue)).union(["center"])
            return spellings.contains(text) ? nil : "--crop \(text) is \(crop)"
        }
    }

    /// A shard that parses lies in its array and round-trips as I/N.
    static func shard(_ result: Result<Shard, ShardError>, _ text: String) -> String? {
        guard case .success(let shard) = result else { return nil }
        guard case .success(let again) = Shard.parse(shard.description, environment: [:]) else {
            return "--shard \(text) gives \(shard), which does not parse"
        }
        return first(0 <= shard.index && shard.index < shard.count && shard.count <= Shard.maxCount ? nil : "--shard \(text)",
                     again == shard ? nil : "--shard \(text) gives \(shard), read back as \(again)")
    }

    /// An input is a pattern, a NUL, and a path below an INPUT folder.
    /// Invariants: matching answers the same twice; `**` matches every
    /// path; a path whose every byte is escaped is a pattern that matches
    /// that path and not the path one byte shorter or longer.
    static let exclude = FuzzTarget("exclude") { bytes in
        let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let source = Array(bytes[..<split]), path = Array(bytes[split...].dropFirst())
        let folder = path.count % 2 == 0
        var problems: [String?] = []
        if let pattern = try? ExcludePattern(source) {
            let match = pattern.matches(path[...], folder: folder)
            problems.append(pattern.matches(path[...], folder: folder) == match ? nil : "\(pattern) answers twice otherwise")
        }
        problems.append((try? ExcludePattern(Array("**".utf8)))?.matches(path[...], folder: folder) == true ? nil
                        : "** does not match \(path)")
        if !path.isEmpty && path.last != UInt8(ascii: "/") {
            let escaped = path.flatMap { [UInt8(ascii: "\\"), $0] }
            if let exact = try? ExcludePattern(escaped) {
                problems.append(exact.matches(path[...], folder: folder) ? nil : "\(exact) does not match its own path")
                problems.append(!exact.matches(path.dropLast(), folder: folder) && !exact.matches(path[...] + [0x61], folder: folder)
                                ? nil : "\(exact) matches another path")
            } else {
                problems.append("the escaped path \(path) is not a pattern")
            }
        }
        return problems.compactMap { $0 }.first
    }
}

private extension String {
    func replacingOccurrences(_ target: Unicode.Scalar, _ replacement: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if scalar == target { out.append(contentsOf: replacement.unicodeScalars) } else { out.append(scalar) }
        }
        return String(out)
    }
}
