import Foundation
import Glibc
import Synchronization
import XCTest

// Inputs and disks the exit-status tests (and others) need: a JPEG slow to
// decode, and a small disk to fill.

extension ExitStatusTests {
    /// 3000x2000 of noise at high quality: slow to decode on purpose.
    static func bigNoisyJPEG() throws -> [UInt8] {
        if let cached = Self.bigJPEG.withLock({ $0 }) { return cached }
        let bytes = try noisyJPEG(width: 3000, height: 2000)
        Self.bigJPEG.withLock { $0 = bytes }
        return bytes
    }

    /// `width` x `height` of noise at high quality (vips gaussnoise, Q=95).
    static func noisyJPEG(width: Int, height: Int) throws -> [UInt8] {
        let scratch = "/tmp/collage-cli-noise-\(getpid())-\(width)x\(height)"
        mkdir(scratch, 0o755)
        defer { _ = try? runProcess([b("rm"), b("-rf"), b(scratch)]) }
        let made = try runProcess([b("vips"), b("gaussnoise"), b(scratch + "/noise.v"), b(String(width)), b(String(height)),
                                   b("--sigma"), b("80"), b("--mean"), b("128")])
        guard made.status == 0 else { throw SpawnError.system("vips gaussnoise: \(made.stderrText)", 0) }
        let saved = try runProcess([b("vips"), b("copy"), b(scratch + "/noise.v"), b(scratch + "/noise.jpg[Q=95]")])
        guard saved.status == 0 else { throw SpawnError.system("vips copy: \(saved.stderrText)", 0) }
        return Array(try Data(contentsOf: URL(fileURLWithPath: scratch + "/noise.jpg")))
    }

    private static let bigJPEG = Mutex<[UInt8]?>(nil)
}

extension CLITestCase {
    /// Mounts a 300 KiB tmpfs at `relative` (root only; skips otherwise),
    /// unmounted when the test ends.
    func mountSmallDisk(_ relative: String) throws -> String {
        guard geteuid() == 0 else { throw XCTSkip("needs root: mounts a small tmpfs to make the disk full") }
        makeFolder(relative)
        let target = path(relative)
        let mounted = try runProcess([b("mount"), b("-t"), b("tmpfs"), b("-o"), b("size=300k,mode=0755"),
                                      b("tmpfs"), b(target)])
        guard mounted.status == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(mounted.stderrText)") }
        addTeardownBlock { _ = try? runProcess([b("umount"), b(target)]) }
        return target
    }

    /// Writes to `file` until the file system says it is full.
    func fillDisk(_ file: String) {
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x5a, count: 4096)
        var full = false
        for size in [4096, 512, 1] {
            while true {
                let count = chunk.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress!, size) }
                if count <= 0 { full = errno == ENOSPC; break }
            }
        }
        XCTAssertTrue(full, "the disk is full")
    }
}
