import Foundation
import FuzzTargets
import XCTest

/// Every input fuzzing made a parser crash on or break an invariant with
/// (`Tests/Fuzz/crashers/TARGET/`, minimised by scripts/fuzz), and every
/// seed of the corpus (`Tests/Fuzz/corpus/TARGET/`), through its target
/// again: each must now hold. A crash of the parser crashes this test.
final class FuzzRegressionTests: XCTestCase {
    private let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    private func inputs(_ folder: String, _ target: FuzzTarget) -> [URL] {
        let directory = fuzz.appendingPathComponent(folder).appendingPathComponent(target.name)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    private func replay(_ folder: String) throws -> Int {
        var count = 0
        for target in FuzzTargets.all {
            for file in inputs(folder, target) {
                let bytes = [UInt8](try Data(contentsOf: file))
                XCTAssertNil(target.run(bytes), "\(folder)/\(target.name)/\(file.lastPathComponent)")
                count += 1
            }
        }
        return count
    }

    func testEveryCrasherNowHolds() throws {
        _ = try replay("crashers")
    }

    func testEverySeedHolds() throws {
        XCTAssertGreaterThanOrEqual(try replay("corpus"), FuzzTargets.all.count, "a seed or more for each target")
    }

    /// Each target has its seeds, and each folder names a target.
    func testTheCorpusFoldersAreTheTargets() throws {
        let names = Set(FuzzTargets.all.map(\.name))
        XCTAssertEqual(names.count, FuzzTargets.all.count, "target names are unique")
        let folders = try FileManager.default.contentsOfDirectory(atPath: fuzz.appendingPathComponent("corpus").path)
        XCTAssertEqual(Set(folders.filter { !$0.hasPrefix(".") }), names)
        let crashers = (try? FileManager.default.contentsOfDirectory(atPath: fuzz.appendingPathComponent("crashers").path)) ?? []
        XCTAssertTrue(Set(crashers.filter { !$0.hasPrefix(".") }).isSubset(of: names), "\(crashers)")
    }
}
