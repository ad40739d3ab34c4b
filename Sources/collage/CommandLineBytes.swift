import CollageKit
import Glibc

/// The command line as bytes, read once. ArgumentParser sees Strings, in
/// which bytes that are not UTF-8 became U+FFFD; every value that names a
/// file or a pattern (INPUT, --output, --exclude, --exclude-from) is matched
/// back to the argument it came from, here, so that such names still work.
enum CommandLineBytes {
    /// The arguments after the program's name, as given.
    static let arguments: [[UInt8]] = (1..<Int(CommandLine.argc)).compactMap { index in
        guard let pointer = CommandLine.unsafeArgv[index] else { return nil }
        return Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
    }

    /// The values given to the option called `names` (`-o VALUE`,
    /// `--output VALUE`, `--output=VALUE`), in order, before any `--`, each
    /// with the index of the argument holding it.
    static func occurrences(of names: [String]) -> [(index: Int, bytes: [UInt8])] {
        let flags = names.map { Array($0.utf8) }
        let equalsForms = names.filter { $0.hasPrefix("--") }.map { Array(($0 + "=").utf8) }
        var found: [(index: Int, bytes: [UInt8])] = []
        var index = 0
        while index < arguments.count, arguments[index] != Array("--".utf8) {
            let argument = arguments[index]
            if flags.contains(argument), index + 1 < arguments.count {
                found.append((index + 1, arguments[index + 1]))
                index += 1
            } else if let form = equalsForms.first(where: { argument.starts(with: $0) }) {
                found.append((index, Array(argument.dropFirst(form.count))))
            }
            index += 1
        }
        return found
    }

    /// The bytes of the values ArgumentParser parsed for the option called
    /// `names`, in order; a value not found keeps its UTF-8 bytes.
    static func values(of names: [String], parsed: [String]) -> [[UInt8]] {
        let raw = occurrences(of: names).map(\.bytes)
        return parsed.enumerated().map { position, text in
            if position < raw.count, String(decoding: raw[position], as: UTF8.self) == text { return raw[position] }
            return Array(text.utf8)
        }
    }
}

/// INPUTs and the output as bytes. Names that differ only in bytes that are
/// not UTF-8 read the same, so each INPUT takes the next argument that reads
/// as it (in order, never the --output value), and the output takes the
/// value of the last -o/--output that reads as it.
struct RawArguments {
    private let outputs = CommandLineBytes.occurrences(of: ["-o", "--output"])
    /// The arguments holding an output value, never an INPUT's.
    private let outputIndices: Set<Int>
    /// Arguments already matched to an INPUT.
    private var taken = Set<Int>()

    init() {
        outputIndices = Set(outputs.map(\.index))
    }

    /// The bytes of the next INPUT, `argument` as ArgumentParser parsed it.
    mutating func input(_ argument: String) -> PathName {
        let utf8 = Array(argument.utf8)
        if CommandLineBytes.arguments.contains(utf8) { return PathName(bytes: utf8) }
        for (index, candidate) in CommandLineBytes.arguments.enumerated()
        where !taken.contains(index) && !outputIndices.contains(index) {
            if String(decoding: candidate, as: UTF8.self) == argument {
                taken.insert(index)
                return PathName(bytes: candidate)
            }
        }
        return PathName(bytes: utf8)
    }

    /// The bytes of the output path (the last -o/--output given wins).
    func output(_ argument: String) -> PathName {
        let utf8 = Array(argument.utf8)
        if outputs.contains(where: { $0.bytes == utf8 }) { return PathName(bytes: utf8) }
        if let match = outputs.last(where: { String(decoding: $0.bytes, as: UTF8.self) == argument }) {
            return PathName(bytes: match.bytes)
        }
        return PathName(bytes: utf8)
    }
}
