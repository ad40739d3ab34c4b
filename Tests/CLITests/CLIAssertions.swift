import Foundation
import XCTest

/// What every CLI test checks of a finished run: the contract's failure
/// and success shapes, bytes, and the `--json` lines.
extension CLITestCase {
    // MARK: - Assertions on a run

    /// The contract for every non-zero exit: exactly this status, nothing on
    /// standard output, one line on standard error. Returns that line.
    @discardableResult
    func assertFailure(_ result: ProcessResult, status: Int32, mentions: [String] = [],
                       file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertFalse(result.timedOut, "timed out\n\(result.summary)", file: file, line: line)
        XCTAssertEqual(result.status, status, "exit status\n\(result.summary)", file: file, line: line)
        XCTAssertEqual(result.stdout, [], "standard output must be empty\n\(result.summary)", file: file, line: line)
        XCTAssertEqual(result.stderrLines.count, 1, "exactly one line on standard error\n\(result.summary)",
                       file: file, line: line)
        XCTAssertEqual(result.stderr.last, UInt8(ascii: "\n"), "the line ends with a newline", file: file, line: line)
        let message = result.stderrLines.first ?? ""
        XCTAssertGreaterThan(message.count, 10, "a clear message, not '\(message)'", file: file, line: line)
        for word in mentions {
            XCTAssertTrue(message.contains(word), "'\(message)' should mention '\(word)'", file: file, line: line)
        }
        return message
    }

    /// Success: status 0, standard output exactly `stdout`, standard error empty.
    func assertSuccess(_ result: ProcessResult, stdout: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(result.timedOut, "timed out\n\(result.summary)", file: file, line: line)
        XCTAssertEqual(result.status, 0, "exit status\n\(result.summary)", file: file, line: line)
        XCTAssertEqual(result.stdout, stdout,
                       "standard output: expected \(String(decoding: stdout, as: UTF8.self))\n\(result.summary)",
                       file: file, line: line)
        XCTAssertEqual(result.stderr, [], "standard error must be empty\n\(result.summary)", file: file, line: line)
    }

    func assertSuccess(_ result: ProcessResult, stdout: String, file: StaticString = #filePath, line: UInt = #line) {
        assertSuccess(result, stdout: b(stdout), file: file, line: line)
    }

    /// Byte-for-byte equality, reported briefly (sizes and the first difference).
    func assertSameBytes(_ actual: [UInt8]?, _ expected: [UInt8], _ message: String,
                         file: StaticString = #filePath, line: UInt = #line) {
        guard let actual else {
            XCTFail("\(message): the file is gone", file: file, line: line)
            return
        }
        guard actual != expected else { return }
        let first = Array(zip(actual, expected)).firstIndex { $0 != $1 } ?? min(actual.count, expected.count)
        XCTFail("\(message): \(actual.count) bytes instead of \(expected.count), first difference at \(first)",
                file: file, line: line)
    }

    // MARK: - JSON

    /// Every line of standard output as a JSON object; a line that is not
    /// one fails the test.
    func jsonEvents(_ result: ProcessResult, file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
        var events: [[String: Any]] = []
        XCTAssertTrue(result.stdout.isEmpty || result.stdout.last == UInt8(ascii: "\n"),
                      "NDJSON: the last line ends with a newline", file: file, line: line)
        for text in result.stdout.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
            let parsed = try? JSONSerialization.jsonObject(with: Data(text), options: [])
            guard let object = parsed as? [String: Any], object["event"] is String else {
                XCTFail("not a JSON event object: \(String(decoding: text, as: UTF8.self))", file: file, line: line)
                continue
            }
            events.append(object)
        }
        return events
    }

    func events(_ all: [[String: Any]], _ name: String) -> [[String: Any]] {
        all.filter { $0["event"] as? String == name }
    }

    /// The exact bytes of a path field: from `key_base64` when present, else the text.
    func pathBytes(_ event: [String: Any], _ key: String) -> [UInt8]? {
        if let encoded = event[key + "_base64"] as? String {
            return Data(base64Encoded: encoded).map { Array($0) }
        }
        return (event[key] as? String).map { Array($0.utf8) }
    }

    /// The exact bytes of each entry of a path list field (`images`).
    func pathListBytes(_ event: [String: Any], _ key: String) -> [[UInt8]]? {
        if let encoded = event[key + "_base64"] as? [String] {
            let decoded = encoded.compactMap { Data(base64Encoded: $0).map { Array($0) } }
            return decoded.count == encoded.count ? decoded : nil
        }
        return (event[key] as? [String]).map { $0.map { Array($0.utf8) } }
    }
}
