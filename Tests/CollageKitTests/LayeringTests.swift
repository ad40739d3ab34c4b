import Foundation
import XCTest

/// The house's rules, read from the sources: each folder of CollageKit only
/// names types declared in the folders before it (the flow reads one way),
/// every kind of run keeps to its own room, no folder holds more than 20
/// Swift files directly, the command line is a client of CollageKit's public
/// API alone, and no Swift file, source or test, grows past 250 lines.
final class LayeringTests: XCTestCase {
    /// CollageKit's plan, from the bottom. The vocabulary: POSIX (paths,
    /// files, hashes), Model (geometry, inputs, compared pairs), what a user
    /// asks (Configuration: every configuration type), what a run tells
    /// (Events). The generic operators; the stages in the order images flow
    /// (Source to Save); what a configuration resolves to (Resolve). The run
    /// core: Run (one run, a `SheetSource`'s sheets driven to disk) and Job
    /// (a job's passes of runs and what finishes them). Then Kinds: each kind
    /// of run in a folder of its own (`kinds`), one rank above the core. On
    /// top the door: the public entry points, and `Jobs`, which wires each
    /// kind in.
    static let layers = ["POSIX", "Model", "Configuration", "Events", "Operators", "Source", "Select", "Pick", "Decode",
                         "Layout", "Compose", "Save", "Resolve", "Run", "Job", "Kinds", "API"]
    /// The folders of `Kinds/`, peers: a kind names the core and every layer
    /// below it, never another kind, and nothing below names a kind. A kind
    /// extends only its own types (another's only privately), so the core
    /// cannot call into a kind through a member the type names do not show.
    /// (`--pick` is a stage of the core's header pass, in Pick/, not a kind.)
    static let kinds = ["Diff", "Film", "Groups", "Plan"]
    static let mostFilesInAFolder = 20
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// A folder of CollageKit and its rank in `layers`: a kind's folder
    /// ranks with the other kinds.
    struct Room: Equatable {
        let path: String
        let rank: Int
        var kind: String? = nil
    }

    private func swiftFiles(in folder: URL) -> [URL] {
        let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        return (walk?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" }
    }

    private func text(_ file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

    /// What breaks the plan in `files` (each a room, a file's name and its
    /// text): a type named from a room below its own or from another kind,
    /// and a kind's open extension of a type that is not its own.
    static func breaches(_ files: [(room: Room, name: String, text: String)]) -> (found: Int, breaches: [String]) {
        let declaration = try! NSRegularExpression(
            pattern: #"^(?:public |final |indirect )*(?:struct|enum|class|protocol|actor|typealias) ([A-Z]\w*)"#,
            options: .anchorsMatchLines)
        let extensionOf = try! NSRegularExpression(pattern: #"^(?:public |internal )?extension ([A-Z]\w*)"#,
                                                   options: .anchorsMatchLines)
        func names(_ pattern: NSRegularExpression, in source: String) -> [String] {
            pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)).compactMap {
                Range($0.range(at: 1), in: source).map { String(source[$0]) }
            }
        }
        var home: [String: Room] = [:]
        for file in files { for name in names(declaration, in: file.text) { home[name] = file.room } }
        var breaches: [String] = []
        for (room, name, source) in files {
            let code = source.split(separator: "\n").map { line in
                line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
            }.joined(separator: "\n")
            let words = Set(code.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            for word in words.sorted() {
                guard let other = home[word], other.rank > room.rank || (other.rank == room.rank && other.kind != room.kind)
                else { continue }
                breaches.append("\(room.path)/\(name) names \(word), declared in \(other.path)/")
            }
            guard room.kind != nil else { continue }
            for extended in names(extensionOf, in: source) where home[extended] != room {
                breaches.append("\(room.path)/\(name) extends \(extended), not its own: privately, or in its home")
            }
        }
        return (home.count, breaches)
    }

    func testEveryFolderNamesOnlyWhatComesBeforeIt() throws {
        let kit = root.appendingPathComponent("Sources/CollageKit")
        // (The DocC catalog is documentation, not a layer.)
        let folders = try FileManager.default.contentsOfDirectory(atPath: kit.path)
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".docc") }
        XCTAssertEqual(Set(folders), Set(Self.layers), "a new folder takes its place in `layers`")
        let kinds = try FileManager.default.contentsOfDirectory(atPath: kit.appendingPathComponent("Kinds").path)
            .filter { !$0.hasPrefix(".") }
        XCTAssertEqual(Set(kinds), Set(Self.kinds), "a new kind of run is a folder of Kinds/, named in `kinds`")
        var rooms: [Room] = []
        for (rank, layer) in Self.layers.enumerated() {
            if layer == "Kinds" {
                rooms += Self.kinds.map { Room(path: "Kinds/" + $0, rank: rank, kind: $0) }
            } else {
                rooms.append(Room(path: layer, rank: rank))
            }
        }
        let files: [(room: Room, name: String, text: String)] = rooms.flatMap { room in
            swiftFiles(in: kit.appendingPathComponent(room.path)).map {
                (room: room, name: $0.lastPathComponent, text: text($0))
            }
        }
        let (found, breaches) = Self.breaches(files)
        XCTAssertGreaterThan(found, 50, "the declarations were found")
        for breach in breaches { XCTFail(breach) }
    }

    /// The check itself fails where it should: the core naming a kind, a
    /// kind naming another, a stage naming what comes after it, a kind
    /// extending the core's type.
    func testTheLayeringCheckFindsBreaches() {
        let (stage, core) = (Room(path: "Decode", rank: 1), Room(path: "Run", rank: 2))
        let (diff, film) = (Room(path: "Kinds/Diff", rank: 3, kind: "Diff"), Room(path: "Kinds/Film", rank: 3, kind: "Film"))
        let files: [(room: Room, name: String, text: String)] = [
            (stage, "Decode.swift", "struct Decode { let run: CollageRun }"),
            (core, "CollageRun.swift", "final class CollageRun { let sheets: DiffSheets? // FilmSheets\n let decode: Decode }"),
            (diff, "DiffSheets.swift", "final class DiffSheets { let film: FilmSheets }\nextension CollageRun {}"),
            (diff, "DiffSheets+Mine.swift", "extension DiffSheets {}\nprivate extension CollageRun {}"),
            (film, "FilmSheets.swift", "final class FilmSheets { let run: CollageRun }"),
        ]
        XCTAssertEqual(Self.breaches(files).breaches, [
            "Decode/Decode.swift names CollageRun, declared in Run/",
            "Run/CollageRun.swift names DiffSheets, declared in Kinds/Diff/",
            "Kinds/Diff/DiffSheets.swift names FilmSheets, declared in Kinds/Film/",
            "Kinds/Diff/DiffSheets.swift extends CollageRun, not its own: privately, or in its home",
        ])
    }

    func testNoFolderHoldsMoreThan20SwiftFilesDirectly() {
        let kit = root.appendingPathComponent("Sources/CollageKit")
        let folders = Dictionary(grouping: swiftFiles(in: kit)) { $0.deletingLastPathComponent().path }
        XCTAssertGreaterThan(folders.count, 10, "the folders were found")
        for (folder, files) in folders {
            XCTAssertLessThanOrEqual(files.count, Self.mostFilesInAFolder, folder)
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
