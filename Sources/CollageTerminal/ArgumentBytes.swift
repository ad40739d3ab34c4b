import CollageKit
import Glibc

/// A command line as the bytes it was given. A parser of arguments sees
/// Strings, in which bytes that are not UTF-8 became U+FFFD; a front end
/// matches every value that names a file or a pattern (INPUT, `--output`,
/// `--exclude`, …) back to the argument it came from, here, so that such
/// names still work.
///
///     var bytes = ArgumentBytes.process
///     let input = bytes.input(parsedInput)        // the INPUT's own bytes
///     let output = bytes.output(parsedOutput)     // the last -o's bytes
///
/// INPUTs that differ only in bytes that are not UTF-8 read the same, so
/// each INPUT takes the next argument that reads as it (in order, never an
/// output's value), and the output takes the value of the last `-o` or
/// `--output` that reads as it.
public struct ArgumentBytes: Sendable {
    /// The arguments after the program's name, as given.
    public let arguments: [[UInt8]]
    /// The arguments holding an output value, never an INPUT's.
    private let outputs: [(index: Int, bytes: [UInt8])]
    private let outputIndices: Set<Int>
    /// Arguments already matched to an INPUT.
    private var taken = Set<Int>()

    /// The command line of `arguments` (the program's name left out).
    public init(arguments: [[UInt8]]) {
        self.arguments = arguments
        outputs = Self.occurrences(of: ["-o", "--output"], in: arguments)
        outputIndices = Set(outputs.map(\.index))
    }

    /// This process's command line, read from `argv`.
    public static var process: ArgumentBytes {
        ArgumentBytes(arguments: (1..<Int(CommandLine.argc)).compactMap { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return nil }
            return Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer))).map { UInt8(bitPattern: $0) }
        })
    }

    /// The bytes of the next INPUT, `argument` as the parser read it.
    public mutating func input(_ argument: String) -> PathName {
        let utf8 = Array(argument.utf8)
        if arguments.contains(utf8) { return PathName(bytes: utf8) }
        for (index, candidate) in arguments.enumerated() where !taken.contains(index) && !outputIndices.contains(index) {
            if String(decoding: candidate, as: UTF8.self) == argument {
                taken.insert(index)
                return PathName(bytes: candidate)
            }
        }
        return PathName(bytes: utf8)
    }

    /// The bytes of the output path (the last `-o`/`--output` given wins).
    public func output(_ argument: String) -> PathName {
        let utf8 = Array(argument.utf8)
        if outputs.contains(where: { $0.bytes == utf8 }) { return PathName(bytes: utf8) }
        if let match = outputs.last(where: { String(decoding: $0.bytes, as: UTF8.self) == argument }) {
            return PathName(bytes: match.bytes)
        }
        return PathName(bytes: utf8)
    }

    /// The bytes of the values the parser read for the option called
    /// `names` (`["--exclude"]`), in order; a value not found keeps its
    /// UTF-8 bytes.
    public func values(of names: [String], parsed: [String]) -> [PathName] {
        let raw = Self.occurrences(of: names, in: arguments).map(\.bytes)
        return parsed.enumerated().map { position, text in
            if position < raw.count, String(decoding: raw[position], as: UTF8.self) == text {
                return PathName(bytes: raw[position])
            }
            return PathName(bytes: Array(text.utf8))
        }
    }

    /// The bytes of the one value the parser read for the option called `name`.
    public func value(of name: String, parsed: String) -> PathName {
        values(of: [name], parsed: [parsed])[0]
    }

    /// The values given to the option called `names` (`-o VALUE`,
    /// `--output VALUE`, `--output=VALUE`), in order, before any `--`, each
    /// with the index of the argument holding it.
    private static func occurrences(of names: [String], in arguments: [[UInt8]]) -> [(index: Int, bytes: [UInt8])] {
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
}
