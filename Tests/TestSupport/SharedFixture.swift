import Foundation
import Glibc

/// Inputs that cost seconds to make (a 48 MP grid of x265 tiles, a 4K
/// HEVC) made once a run and copied to each test that asks for the same
/// one. They are kept in the run's folder, COLLAGE_TEST_FIXTURES (which
/// scripts/test empties for each run and its shards share), else in one
/// of this process's own, removed when it exits; each is named by every
/// word that makes it, so a test is only ever given the bytes it would
/// have made itself. Two shards making the same one at once each write a
/// temporary file of their own and rename it into place: a file of the
/// folder is whole or absent.
public enum SharedFixture {
    /// Makes `path` a copy of the fixture `key` names, made by `make` (which
    /// writes the file at the path it is given) when this run has none yet.
    /// `key`: everything the bytes depend on (the tool's arguments, the
    /// source's path), in words.
    public static func copy(_ key: String, to path: String, make: (String) throws -> Void) throws {
        let kept = folder + "/" + name(key)
        if access(kept, F_OK) != 0 {
            let temporary = kept + ".\(getpid()).\(UInt64.random(in: 0...UInt64.max)).tmp"
            defer { unlink(temporary) }
            try make(temporary)
            guard rename(temporary, kept) == 0 else {
                throw TestFailure("cannot keep the fixture \(kept): \(String(cString: strerror(errno)))")
            }
        }
        unlink(path)
        try FileManager.default.copyItem(atPath: kept, toPath: path)
    }

    /// The run's folder of fixtures, made when first needed.
    static let folder: String = {
        if let given = ProcessInfo.processInfo.environment["COLLAGE_TEST_FIXTURES"], !given.isEmpty {
            try? FileManager.default.createDirectory(atPath: given, withIntermediateDirectories: true)
            return given
        }
        let own = NSTemporaryDirectory() + "/collage-fixtures-\(getpid())"
        try? FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: SharedFixture.folder) }
        return own
    }()

    /// A file name for `key`: its 64-bit FNV-1a hash and length (keys are
    /// too long and too free in their characters to be names themselves).
    static func name(_ key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(format: "%016llx-%d", hash, key.utf8.count)
    }
}
