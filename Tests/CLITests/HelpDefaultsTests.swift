import Foundation
import XCTest

/// Each option says its default once: in `--help`, in the manual page
/// (docs/collage.1, made by scripts/manual from the same text) and in the
/// completion scripts, which carry the help text too.
final class HelpDefaultsTests: CLITestCase {
    /// The options that have a default, each to be said exactly once.
    private let withDefaults = ["--output", "--max", "--size", "--background", "--layout", "--gap", "--fit", "--crop",
                                "--jobs", "--decode-memory", "--max-pixels", "--quality", "--raw", "--interval"]

    private func defaults(in text: String) -> Int {
        text.lowercased().components(separatedBy: "default").count - 1
    }

    /// `--help`'s entries: an entry starts at a line that names an option
    /// and runs to the next one (or a blank line); keyed by its long name.
    private func helpEntries() throws -> [String: String] {
        let result = try collage(["--help"])
        XCTAssertEqual(result.status, 0, result.summary)
        var entries: [String: String] = [:]
        var current: String?
        for line in result.stdoutText.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("  -"), let long = trimmed.split(separator: " ").first(where: { $0.hasPrefix("--") }) {
                current = String(long.trimmingCharacters(in: CharacterSet(charactersIn: ",")))
                entries[current!] = line
            } else if trimmed.isEmpty || !line.hasPrefix(" ") {
                current = nil
            } else if let current {
                entries[current, default: ""] += "\n" + line
            }
        }
        return entries
    }

    func testHelpSaysEachDefaultOnce() throws {
        let entries = try helpEntries()
        XCTAssertGreaterThan(entries.count, 30, "the entries were read: \(entries.keys.sorted())")
        for (option, entry) in entries {
            XCTAssertLessThanOrEqual(defaults(in: entry), 1, "\(option) says its default more than once:\n\(entry)")
        }
        for option in withDefaults {
            let entry = try XCTUnwrap(entries[option], "--help has \(option)")
            XCTAssertEqual(defaults(in: entry), 1, "\(option) says its default once:\n\(entry)")
        }
        XCTAssertTrue(entries["--gap"]?.contains("(default: 0)") == true, entries["--gap"] ?? "")
        XCTAssertTrue(entries["--size"]?.contains("1200x800") == true, entries["--size"] ?? "")
    }

    /// The manual page's items (`.It Fl ...` to the next `.It`), as scripts/manual wrote them.
    func testManualPageSaysEachDefaultOnce() throws {
        let page = String(decoding: try XCTUnwrap(contents(Package.root + "/docs/collage.1")), as: UTF8.self)
        let items = page.components(separatedBy: "\n.It ").dropFirst()
        XCTAssertGreaterThan(items.count, 30)
        for item in items {
            XCTAssertLessThanOrEqual(defaults(in: item), 1, "docs/collage.1 (run scripts/manual):\n.It \(item)")
        }
        for option in withDefaults {
            let name = String(option.dropFirst())  // mdoc writes --gap as "Fl -gap"
            let item = items.first { $0.prefix { $0 != "\n" }.split(separator: " ").contains(Substring(name)) }
            XCTAssertEqual(item.map(defaults(in:)), 1, "docs/collage.1 says \(option)'s default once (run scripts/manual)")
        }
    }

    /// zsh and fish show the help text beside each option: one line each.
    func testCompletionsSayEachDefaultOnce() throws {
        for shell in ["zsh", "fish"] {
            let script = try collage(["--generate-completion-script", shell]).stdoutText
            let lines = script.components(separatedBy: "\n").filter { $0.contains("--gap") || $0.contains("'gap'") }
            XCTAssertFalse(lines.isEmpty, "\(shell) completes --gap")
            for line in script.components(separatedBy: "\n") {
                XCTAssertLessThanOrEqual(defaults(in: line), 1, "\(shell): \(line)")
            }
        }
    }
}
