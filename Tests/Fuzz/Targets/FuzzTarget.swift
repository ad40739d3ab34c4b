import Glibc
import Synchronization

/// One parser under coverage-guided fuzzing: a name (its corpus folder,
/// `Tests/Fuzz/corpus/NAME`), what libFuzzer may ask of it, and a body
/// that feeds it one input and checks the parser's own invariants. The
/// body returns what broke (nil when all held); a crash of the parser is
/// libFuzzer's to catch. `scripts/fuzz` runs each under libFuzzer;
/// `FuzzRegressionTests` replays the crashers found (`Tests/Fuzz/crashers/NAME`).
public struct FuzzTarget: Sendable {
    public let name: String
    /// The longest input worth trying (libFuzzer's -max_len).
    public let maxLength: Int
    /// The most one input may allocate at once (libFuzzer's -malloc_limit_mb):
    /// the parser's memory budget, checked on every allocation.
    public let mallocLimitMB: Int
    public let run: @Sendable ([UInt8]) -> String?

    init(_ name: String, maxLength: Int = 4096, mallocLimitMB: Int = 64, run: @escaping @Sendable ([UInt8]) -> String?) {
        self.name = name
        self.maxLength = maxLength
        self.mallocLimitMB = mallocLimitMB
        self.run = run
    }
}

public enum FuzzTargets {
    /// Every target, in the order `scripts/fuzz` runs them.
    public static let all: [FuzzTarget] = StructureTargets.all + [RawTarget.inspect, RawLayoutTarget.walk] + TextTargets.all + TimeTargets.all
        + [PrintTarget.print] + StreamTargets.all + [XMPTarget.faces, XMPTarget.packet, CameraTarget.exif]
        + [PlainPNGTarget.decode, InflateTarget.inflate, DecisionsTarget.parse, SmallJPEGTarget.decode]

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// The first problem of a list of checks, as one line.
func first(_ problems: String?...) -> String? { problems.lazy.compactMap { $0 }.first }

/// A file the targets that read a descriptor share, rewritten for each
/// input: unlinked at once, so nothing is left behind. Its descriptor is
/// behind a `Mutex`: a target holds the file for as long as it reads it.
final class ScratchFile: Sendable {
    private let descriptor: Mutex<Int32>

    static let first = ScratchFile()
    static let second = ScratchFile()

    private init() {
        let folder = ProcessInfoLite.temporaryFolder
        var template = Array((folder + "/collage-fuzz-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        precondition(descriptor >= 0, "cannot make a scratch file in \(folder)")
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.descriptor = Mutex(descriptor)
    }

    /// `body` given the file's descriptor, the file holding `bytes` exactly
    /// and its offset at the start; no other caller has the file meanwhile.
    func holding<R: Sendable>(_ bytes: [UInt8], _ body: (Int32) -> R) -> R {
        descriptor.withLock { descriptor in
            precondition(ftruncate(descriptor, 0) == 0)
            var done = 0
            while done < bytes.count {
                let wrote = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(done)) }
                precondition(wrote > 0, "cannot write the scratch file")
                done += wrote
            }
            lseek(descriptor, 0, SEEK_SET)
            return body(descriptor)
        }
    }
}

/// The temporary folder, as the environment says (TMPDIR) or /tmp.
enum ProcessInfoLite {
    static var temporaryFolder: String {
        guard let value = getenv("TMPDIR"), value.pointee != 0 else { return "/tmp" }
        return String(cString: value)
    }
}
