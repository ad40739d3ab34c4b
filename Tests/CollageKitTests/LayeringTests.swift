import Foundation
import XCTest

/// The house's rules, read from the sources: each folder of CollageKit only
/// names types declared in the folders before it (the flow reads one way),
/// the command line is a client of CollageKit's public API alone, and no
/// Swift file, source or test, grows past 250 lines.
final class LayeringTests: XCTestCase {
    /// From the bottom: the vocabulary, the generic operators, the stages in
    /// the order images flow, the events, what a configuration asks and
    /// resolves to, the runs, and on top the entry points for Swift concurrency.
    static let layers = ["POSIX", "Model", "Operators", "Source", "Select", "Pick", "Decode", "Layout", "Compose", "Save",
                         "Events", "Configuration", "Run", "API"]
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private func swiftFiles(in folder: URL) -> [URL] {
        let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        return (walk?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
    }

    private func text(_ file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

    func testEveryFolderNamesOnlyWhatComesBeforeIt() throws {
        let kit = root.appendingPathComponent("Sources/CollageKit")
        // (The DocC catalog is documentation, not a layer.)
        let folders = try FileManager.default.contentsOfDirectory(atPath: kit.path)
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".docc") }
        XCTAssertEqual(Set(folders), Set(Self.layers), "a new folder takes its place in `layers`")
        let declaration = try NSRegularExpression(
            pattern: #"^(?:public |final |indirect )*(?:struct|enum|class|protocol|actor|typealias) ([A-Z]\w*)"#,
            options: .anchorsMatchLines)
        var home: [String: Int] = [:]
        for (layer, folder) in Self.layers.enumerated() {
            for file in swiftFiles(in: kit.appendingPathComponent(folder)) {
                let source = text(file)
                for match in declaration.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                    if let range = Range(match.range(at: 1), in: source) { home[String(source[range])] = layer }
                }
            }
        }
        XCTAssertGreaterThan(home.count, 50, "the declarations were found")
        for (layer, folder) in Self.layers.enumerated() {
            for file in swiftFiles(in: kit.appendingPathComponent(folder)) {
                let code = text(file).split(separator: "\n").map { line in
                    line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
                }.joined(separator: "\n")
                let words = Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
                for word in words {
                    guard let later = home[word], later > layer else { continue }
                    XCTFail("\(folder)/\(file.lastPathComponent) names \(word), declared in \(Self.layers[later])/")
                }
            }
        }
    }

    /// Of this package's modules, the command line imports CollageKit and
    /// its own presentation, CollageTerminal, alone (not Vips, FileFacts,
    /// Media, Locking, nor a C target).
    func testTheCommandLineIsAClientOfThePublicAPI() throws {
        let files = swiftFiles(in: root.appendingPathComponent("Sources/collage"))
        XCTAssertFalse(files.isEmpty)
        let modules = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
        let inner = Set(modules).subtracting(["collage", "CollageKit", "CollageTerminal"])
        XCTAssertTrue(inner.isSuperset(of: ["Vips", "CVips", "FileFacts", "Media"]), "the package's modules were found")
        for file in files {
            let imports = text(file).split(separator: "\n").filter { $0.contains("import ") && !$0.hasPrefix("//") }
            for line in imports {
                XCTAssertFalse(line.contains("@testable"), "\(file.lastPathComponent): \(line)")
                let module = line.split(separator: " ").last.map(String.init) ?? ""
                XCTAssertFalse(inner.contains(module), "\(file.lastPathComponent): \(line)")
            }
        }
    }

    /// `Vips` holds the owners of libvips' objects: every file in it calls
    /// libvips, its shim or the HEVC decoder libvips' HEIF loader uses
    /// (CHEVC, whose tiles it assembles), but for the few that belong to such an owner's
    /// types (PixelBuffer, whose storage libvips may have allocated, and the
    /// text renderer's output and font table). What needs no libvips lives
    /// elsewhere: a file's kind, format and header in FileFacts, the
    /// process's pages in ProcessPages.
    func testVipsHoldsOnlyTheLibvipsOwners() {
        let owners: Set = ["PixelBuffer+PlayMark.swift", "PixelBuffer+Text.swift", "RenderedText.swift", "FontPackages.swift"]
        let files = swiftFiles(in: root.appendingPathComponent("Sources/Vips"))
        XCTAssertGreaterThan(files.count, 10, "the target's files were found")
        for file in files where !owners.contains(file.lastPathComponent) {
            let code = text(file)
            XCTAssertTrue(code.contains("CVips") || code.contains("vips_") || code.contains("import CHEVC"),
                          "Sources/Vips/\(file.lastPathComponent) does not touch libvips: it belongs in another target")
        }
    }

    func testNoSwiftFileIsOver250Lines() {
        for folder in ["Sources", "Tests"] {
            for file in swiftFiles(in: root.appendingPathComponent(folder)) {
                let lines = text(file).split(separator: "\n", omittingEmptySubsequences: false).count - 1
                XCTAssertLessThanOrEqual(lines, 250, file.path)
            }
        }
    }
}
