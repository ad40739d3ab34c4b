import ArgumentParser
import CollageKit
import Glibc
import Synchronization

/// Camera rolls: `--video`, `--raw`, `--exclude`, `--exclude-from`. What
/// they mean lives in CollageKit (`ScanRules`, `ExcludePattern`); this reads
/// the options, with the patterns' bytes taken from the raw arguments (a
/// pattern may hold bytes that are not UTF-8) and the pattern files read
/// once, here, so that a file that cannot be read is a usage error before
/// any image is.
struct CameraRollArguments: ParsableArguments {
    @Flag(help: ArgumentHelp("Consider videos too (mp4 mov m4v 3gp mkv webm avi mts m2ts), each shown by a poster "
                             + "frame; a Live Photo's movie beside its still is shown by the still."))
    var video = false

    @Option(name: .customLong("raw"),
            help: ArgumentHelp("RAW photos (cr2 cr3 nef arw dng orf rw2 raf ...): preview (the largest embedded "
                               + "preview that fills the tile, else the raw data), full (always the raw data) or "
                               + "skip (leave them out) (default: preview). A RAW beside a JPEG or HEIC of the same "
                               + "name is shown by it.",
                               valueName: "preview|full|skip"),
            completion: .list(RawMode.allCases.map(\.rawValue)))
    var rawOption: String?
    var raw: String { rawOption ?? RawMode.preview.rawValue }

    @Option(name: .customLong("exclude"),
            help: ArgumentHelp("Skip what matches below an INPUT folder: * within a name, ** across folders, "
                               + "matched on the path below the INPUT (a matching folder is not entered); "
                               + "a trailing / matches folders only. Repeatable.",
                               discussion: "Example: collage --exclude '**/Screenshots/' --exclude '*/tmp-*.jpg' ~/Photos",
                               valueName: "GLOB"))
    var excludes: [String] = []

    @Option(help: ArgumentHelp("Read --exclude patterns from FILE, one a line (# starts a comment, blank lines "
                               + "are ignored).", valueName: "FILE"),
            completion: .file())
    var excludeFrom: [String] = []

    func validate() throws { _ = try rules() }

    func apply(to configuration: inout CollageConfiguration) throws {
        configuration.scan = try rules()
    }

    /// The rules these options give; a bad value is a usage error's line.
    func rules() throws -> ScanRules {
        var rules = ScanRules()
        rules.video = video
        guard let mode = RawMode(rawValue: raw) else {
            throw ValidationError("--raw takes preview, full or skip; not '\(raw)'")
        }
        rules.raw = mode
        for pattern in CommandLineBytes.values(of: ["--exclude"], parsed: excludes) {
            do { rules.exclusions.append(try ExcludePattern(pattern)) } catch {
                throw ValidationError("--exclude '\(String(decoding: pattern, as: UTF8.self))': \(error)")
            }
        }
        for file in CommandLineBytes.values(of: ["--exclude-from"], parsed: excludeFrom) {
            rules.exclusions += try Self.patterns(inFile: file)
        }
        return rules
    }

    /// Each pattern file is read once (validation and the run ask twice).
    private static let read = Mutex<[[UInt8]: [ExcludePattern]]>([:])

    private static func patterns(inFile file: [UInt8]) throws -> [ExcludePattern] {
        if let known = read.withLock({ $0[file] }) { return known }
        let name = String(decoding: file, as: UTF8.self)
        let bytes: [UInt8]
        switch FileContents.read(PathName(bytes: file), limit: 16 << 20) {
        case .success(let contents): bytes = contents
        case .failure(let failure): throw ValidationError("--exclude-from: cannot read '\(name)': \(failure)")
        }
        do {
            let patterns = try ScanRules.patterns(fromFile: bytes)
            read.withLock { $0[file] = patterns }
            return patterns
        } catch {
            throw ValidationError("--exclude-from '\(name)' \(error)")
        }
    }
}
