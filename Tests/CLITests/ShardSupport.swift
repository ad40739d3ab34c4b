import Foundation
import Glibc
import XCTest

/// What the shard tests share: a tree of small flat-colour photos, runs
/// with an environment, and the outputs of a folder as names and bytes.
extension CLITestCase {
    /// `count` photos (64x48, each its own colour) spread over `folders`
    /// folders below `root` (and a few in `root` itself), in names whose
    /// byte order is the scan order.
    func makeShardPhotos(_ root: String, count: Int, folders: Int) {
        makeFolder(root)
        for folder in 0..<folders { makeFolder("\(root)/f\(folder)") }
        for index in 0..<count {
            let folder = index % (folders + 1) == folders ? root : "\(root)/f\(index % (folders + 1))"
            let name = String(format: "%@/p%03d.png", folder, index)
            writeImage(palette[index % palette.count], to: name)
        }
    }

    /// A run of the binary with `environment` added to this process's.
    func collage(_ arguments: [String], environment: [String: String], timeout: Double = 120) throws -> ProcessResult {
        try RunningProcess(arguments: command(arguments.map(b)), directory: dir, environment: environment)
            .wait(timeout: timeout)
    }

    /// The visible files of a folder (outputs; the hidden lock and state
    /// files are left out), by name.
    func outputs(_ folder: String) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in listingText(folder) where !name.hasPrefix(".") {
            files[name] = contents(folder + "/" + name) ?? []
        }
        return files
    }

    /// The outputs a --json run reported written, as file names.
    func writtenNames(_ result: ProcessResult, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        events(jsonEvents(result, file: file, line: line), "written").compactMap { field($0, "output") }
            .map { String($0.split(separator: "/").last ?? "") }
    }

    /// The union of `shards` runs into `folder` equals `reference`, byte for
    /// byte, and no output was written by two of them.
    func assertShardsMake(_ reference: [String: [UInt8]], folder: String, shards: Int, arguments: [String],
                          file: StaticString = #filePath, line: UInt = #line) throws {
        makeFolder(folder)
        var writers: [String: Int] = [:]
        for index in 0..<shards {
            let result = try collage(arguments.map { $0.replacingOccurrences(of: "OUT", with: folder) }
                                     + ["--json", "--shard", "\(index)/\(shards)"])
            XCTAssertEqual(result.status, 0, result.summary, file: file, line: line)
            let summary = events(jsonEvents(result, file: file, line: line), "summary").last
            XCTAssertEqual(summary.flatMap { field($0, "shard") }, "\(index)/\(shards)", file: file, line: line)
            for name in writtenNames(result, file: file, line: line) {
                if let other = writers[name] {
                    XCTFail("\(name) written by shards \(other) and \(index) of \(shards)", file: file, line: line)
                }
                writers[name] = index
            }
        }
        let made = outputs(folder)
        XCTAssertEqual(made.keys.sorted(), reference.keys.sorted(), "\(shards) shards: the same files",
                       file: file, line: line)
        XCTAssertEqual(Set(writers.keys), Set(reference.keys), "\(shards) shards: each file reported by its writer",
                       file: file, line: line)
        for (name, bytes) in reference where made[name] != bytes {
            XCTFail("\(shards) shards: \(name) differs from the unsharded run's", file: file, line: line)
        }
        let hidden = listingText(folder).filter { $0.hasPrefix(".") }
        XCTAssertEqual(hidden, [], "\(shards) shards: no lock, state or temporary file left", file: file, line: line)
    }
}
