import Foundation
import Glibc
import Vips
import XCTest

/// help and completions: `--help` names every option of the options
/// table (docs/options.md) and shows examples; completion scripts for
/// bash, zsh and fish, which complete paths where the command takes paths;
/// the manual page names every option.
final class HelpTests: CLITestCase {
    /// The options named in the first column of the options table of
    /// docs/options.md ("-o", "--output", …), in order.
    private func tableOptions(file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let page = String(decoding: try XCTUnwrap(contents(Package.root + "/docs/options.md"), "docs/options.md",
                                                  file: file, line: line),
                          as: UTF8.self)
        let lines = page.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("| option |") }, "docs/options.md's options table",
                                  file: file, line: line)
        // (Swift's Regex has no lookbehind: NSRegularExpression.)
        let option = try NSRegularExpression(pattern: "(?<![A-Za-z0-9-])--?[A-Za-z0-9][A-Za-z0-9-]*")
        var options: [String] = []
        for row in lines[(start + 2)...] {
            guard row.hasPrefix("|") else { break }
            let cell = row.split(separator: "|", omittingEmptySubsequences: true).first.map(String.init) ?? ""
            let whole = NSRange(cell.startIndex..., in: cell)
            for match in option.matches(in: cell, range: whole) {
                guard let range = Range(match.range, in: cell) else { continue }
                if !options.contains(String(cell[range])) { options.append(String(cell[range])) }
            }
        }
        XCTAssertGreaterThanOrEqual(options.count, 20, "the table was read: \(options)", file: file, line: line)
        return options
    }

    /// Whether `text` names `option` as a word ("-o" in "-o, --output", not in "--output").
    private func mentions(_ text: String, _ option: String) -> Bool {
        let escaped = NSRegularExpression.escapedPattern(for: option)
        guard let pattern = try? NSRegularExpression(pattern: "(?<![A-Za-z0-9-])" + escaped + "(?![A-Za-z0-9-])") else {
            return false
        }
        return pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    func testHelpNamesEveryOptionOfTheOptionsTable() throws {
        let options = try tableOptions()
        for flag in ["--help", "-h"] {
            let result = try collage([flag])
            XCTAssertEqual(result.status, 0, result.summary)
            XCTAssertEqual(result.stderr, [], result.summary)
            let help = result.stdoutText
            for option in options {
                XCTAssertTrue(mentions(help, option), "\(flag) does not mention \(option)")
            }
            XCTAssertTrue(help.contains("Example"), "\(flag) shows examples")
            let examples = help.components(separatedBy: "\n").filter {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("collage ") && !$0.contains("[OPTIONS]")
            }
            XCTAssertGreaterThanOrEqual(examples.count, 1, "at least one example command line in \(flag)")
        }
    }

    func testVersion() throws {
        let result = try collage(["--version"])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertTrue(result.stdoutText.range(of: "^[0-9]+\\.[0-9]+", options: .regularExpression) != nil, result.summary)
    }

    func testCompletionScripts() throws {
        for shell in ["bash", "zsh", "fish"] {
            let result = try collage(["--generate-completion-script", shell])
            XCTAssertEqual(result.status, 0, "\(shell)\n\(result.summary)")
            XCTAssertEqual(result.stderr, [], result.summary)
            XCTAssertGreaterThan(result.stdout.count, 200, "\(shell): a script")
            XCTAssertTrue(result.stdoutText.contains("--sheets") || result.stdoutText.contains("'sheets'"),
                          "\(shell) completes --sheets")
            XCTAssertTrue(result.stdoutText.contains("collage"), shell)
        }
        assertFailure(try collage(["--generate-completion-script", "tcsh"]), status: 64)
    }

    /// INPUT and --output are paths: each shell's script completes file
    /// names there. Bash is run for real; zsh and fish are read.
    func testCompletionsOfferPaths() throws {
        let zsh = try collage(["--generate-completion-script", "zsh"]).stdoutText
        let input = zsh.components(separatedBy: "\n").first { $0.contains(":INPUT:") } ?? ""
        XCTAssertTrue(input.contains("_files"), "zsh completes INPUT with _files: \(input)")
        let output = zsh.components(separatedBy: "\n").first { $0.contains("{-o,--output}") } ?? ""
        XCTAssertTrue(output.contains("_files"), "zsh completes --output with _files: \(output)")

        let fish = try collage(["--generate-completion-script", "fish"]).stdoutText
        let fishOutput = fish.components(separatedBy: "\n").first { $0.contains("-l 'output'") } ?? ""
        XCTAssertTrue(fishOutput.contains("F"), "fish completes --output with files (-F): \(fishOutput)")
        let fishInput = fish.components(separatedBy: "\n").filter {
            $0.contains("should_offer_completions_for_positional") && $0.contains("F")
        }
        XCTAssertFalse(fishInput.isEmpty, "fish completes INPUT with files (-F)")

        guard haveProgram("bash") else { throw XCTSkip("bash is not installed") }
        write(try collage(["--generate-completion-script", "bash"]).stdout, to: "collage.bash")
        makeFolder("photos-2024")
        writeImage(palette[0], to: "picture.png")
        write(b("""
        source ./collage.bash
        complete_line() {
            COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$1"
            [[ "$1" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMPREPLY=()
            _collage collage "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            echo "$1 => ${COMPREPLY[*]}"
        }
        complete_line "collage pho"
        complete_line "collage photos-2024 pic"
        complete_line "collage photos-2024 -o pho"
        complete_line "collage --she"

        """), to: "complete.sh")
        let result = try runProcess([b("bash"), b("-O"), b("extglob"), b("complete.sh")], directory: dir)
        XCTAssertEqual(result.status, 0, result.summary)
        let lines = result.stdoutLines
        XCTAssertEqual(lines.count, 4, result.summary)
        XCTAssertEqual(lines.first, "collage pho => photos-2024", "a folder as INPUT\n\(result.summary)")
        XCTAssertEqual(lines.dropFirst().first, "collage photos-2024 pic => picture.png", "a file as INPUT")
        XCTAssertEqual(lines.dropFirst(2).first, "collage photos-2024 -o pho => photos-2024", "a path for -o")
        XCTAssertEqual(lines.last, "collage --she => --sheets")
    }

    /// docs/collage.1 exists and names every option of docs/options.md's
    /// table (in mdoc, `--output` is written `Fl -output` and `-o` is `Fl o`).
    func testManualPageNamesEveryOption() throws {
        let page = String(decoding: try XCTUnwrap(contents(Package.root + "/docs/collage.1"), "docs/collage.1"),
                          as: UTF8.self)
        XCTAssertTrue(page.contains(".Sh NAME") || page.contains(".SH NAME"), "a manual page")
        for option in try tableOptions() {
            let name = String(option.drop { $0 == "-" })
            let named = mentions(page, option)
                || (option.hasPrefix("--") ? mentions(page, "-" + name) : page.contains("Fl \(name) ")
                    || page.contains("Fl \(name)\n"))
            XCTAssertTrue(named, "docs/collage.1 does not mention \(option)")
        }
    }

    /// The manual's synopsis is the contract's, `collage [OPTIONS] INPUT...
    /// [-o OUTPUT]`, and nothing in it speaks of a subcommand (collage has
    /// none; scripts/manual rewrites what the generator assumes).
    func testManualSynopsisIsTheContracts() throws {
        let page = String(decoding: try XCTUnwrap(contents(Package.root + "/docs/collage.1"), "docs/collage.1"),
                          as: UTF8.self)
        let lines = page.split(separator: "\n").map(String.init)
        let start = try XCTUnwrap(lines.firstIndex(of: ".Sh SYNOPSIS"), "a SYNOPSIS section")
        let synopsis = lines[(start + 1)...].prefix { !$0.hasPrefix(".Sh ") }
        XCTAssertEqual(Array(synopsis), [".Nm", ".Op Ar OPTIONS", ".Ar INPUT...", ".Op Fl o Ar OUTPUT"])
        XCTAssertFalse(page.contains("subcommand"), "no subcommand anywhere in docs/collage.1")
    }
}
