import FoundationEssentials
import Glibc

/// What a run was made from, kept beside its output as `.NAME.collage-state`
/// (JSON) for `--skip-unchanged` and `--watch`: the options that shape the
/// output, every input the run considered (path, size, modification time)
/// in scan order up to where it stopped, and the outputs it wrote (with
/// their stamps, so a deleted or edited output is redone). Paths are kept
/// as base64 of their bytes, exact whatever they hold.
public struct RunState: Equatable, Sendable, Codable {
    /// An output the run wrote, with its stamp and images.
    public typealias Output = OutputRecord
    /// An input the run considered, with its stamp.
    public typealias Considered = InputRecord

    /// A state of another version is not read: the run is redone.
    static let currentVersion = 2

    var version = RunState.currentVersion
    /// The options that shape the output, as one line (`options(of:)`).
    public var options: String
    /// The run read its whole input; otherwise it stopped at the cap, and
    /// what comes after the last input listed cannot change the output.
    public var complete: Bool
    /// The outputs the run wrote, in order.
    public var outputs: [Output]
    /// The inputs the run considered, in scan order, up to where it stopped.
    public var inputs: [Considered]
    /// Kept by a shard after each sheet (see `OutputSession.keepProgress`):
    /// the run had not ended, so only its sheets, one by one, may be kept.
    public var partial: Bool?

    /// Where the state of `output` is kept: `.NAME.collage-state` in its folder.
    public static func path(for output: PathName) -> PathName {
        Sidecar.state(for: output)
    }

    /// The options that decide what the output looks like, as one line.
    public static func options(of configuration: CollageConfiguration) -> String {
        var parts = [
            "size=\(configuration.canvasWidth)x" + (configuration.naturalHeight ? "" : "\(configuration.canvasHeight)"),
            "background=\(configuration.background)", "max=\(configuration.maxImages)",
            "sheets=\(configuration.sheets)", "portrait=\(configuration.allowPortrait)",
            "max-pixels=\(configuration.maxPixels)", "quality=\(configuration.quality.map(String.init) ?? "default")",
            "even=\(configuration.requireEven)", "links=\(configuration.followLinks)",
            "recursive=\(configuration.recursive)", "output=" + Data(configuration.output.bytes).base64EncodedString(),
            "layout=\(configuration.layoutName)", "gap=\(configuration.layoutOptions.gap)",
            "fit=\(configuration.layoutOptions.fit.rawValue)", "crop=\(configuration.layoutOptions.crop.rawValue)",
            "tile=\(configuration.layoutOptions.columns.map(String.init) ?? "")x\(configuration.layoutOptions.rows.map(String.init) ?? "")",
        ]
        // Only when sharded, so that the states of earlier runs still match.
        if let shard = configuration.shard { parts.append("shard=\(shard)") }
        if configuration.sort != .name { parts.append("sort=\(configuration.sort.rawValue)") }
        if configuration.reverse { parts.append("reverse") }
        if let groupBy = configuration.groupBy { parts.append("group-by=\(groupBy)") }
        if let minRating = configuration.minRating { parts.append("min-rating=\(minRating)") }
        if configuration.pick { parts.append("pick") }
        if !configuration.scan.signature.isEmpty { parts.append(configuration.scan.signature) }
        if let diff = configuration.diff { parts.append(diff.signature) }
        // Only when given, so that the states of earlier runs still match.
        let print = configuration.print
        if print != PrintSettings() {
            parts.append("page=\(print.page?.description ?? "") dpi=\(print.resolution) margin=\(print.marginPixels)")
        }
        let captions = configuration.captions
        for (name, value) in [("label", captions.label?.source), ("title", captions.title?.source), ("font", captions.font)] {
            if let value { parts.append(name + "=" + Data(value.utf8).base64EncodedString()) }
        }
        for input in configuration.inputs {
            switch input {
            case .standardInput: parts.append("input=-")
            case .path(let path): parts.append("input=" + Data(path.bytes).base64EncodedString())
            }
        }
        return parts.joined(separator: " ")
    }

    var serialised: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try! encoder.encode(self)) + [UInt8(ascii: "\n")]  // plain values: cannot fail
    }

    init(options: String, complete: Bool, outputs: [Output], inputs: [Considered]) {
        self.options = options
        self.complete = complete
        self.outputs = outputs
        self.inputs = inputs
    }

    init?(parsing bytes: [UInt8]) {
        guard let state = try? JSONDecoder().decode(RunState.self, from: Data(bytes)),
              state.version == Self.currentVersion else { return nil }
        self = state
    }

    /// The state kept beside `output`, if there is a readable one.
    public static func load(for output: PathName) -> RunState? {
        let path = Self.path(for: output)  // `output`: the run's `sidecarOutput`
        guard case .success(let bytes) = FileContents.read(path, limit: 64 << 20, followLinks: false) else { return nil }
        return RunState(parsing: bytes)
    }

    /// Deletes the state kept beside `output`, if any.
    public static func remove(for output: PathName) {
        _ = path(for: output).withCString { $0.map { unlink($0) } }
    }

    /// Whether a run with `configuration` would make the same output: same
    /// options, outputs untouched, and a fresh walk of the inputs (stat
    /// only, no image is opened) meets the same files with the same stamps.
    public func matches(_ configuration: CollageConfiguration) -> Bool {
        var walk = InputWalk(inputs: configuration.inputs, followLinks: configuration.followLinks,
                             nulSeparated: configuration.nulSeparated, recursive: configuration.recursive,
                             rules: configuration.scan, listing: configuration.listing, report: { _ in })
        return matches(configuration, walking: &walk)
    }

    /// `matches` over `walk`, whose files carry the stamps its `stat` took:
    /// each file is compared by those, not stat'ed again.
    func matches<Walk: PullSource>(_ configuration: CollageConfiguration, walking walk: inout Walk) -> Bool
        where Walk.Element == InputFile {
        guard options == Self.options(of: configuration), partial != true, !outputs.isEmpty,
              outputs.allSatisfy({ FileStamp.of($0.path) == $0.stamp }) else { return false }
        if let images = configuration.group?.images {
            // A group's images, in their order, as its header pass found
            // them (all of them, or the first ones the cap took).
            guard complete ? inputs.count == images.count : inputs.count <= images.count else { return false }
            return zip(inputs, images).allSatisfy {
                $0.path == $1.path && $0.stamp == $1.stamp && $0.sidecars == InputRecord.sidecarStamps(of: $1.path, listed: $1.sidecars)
            }
        }
        for recorded in inputs {
            guard let file = walk.next(), file.path == recorded.path, file.currentStamp == recorded.stamp,
                  InputRecord.sidecarStamps(of: file.path, listed: file.sidecars) == recorded.sidecars else { return false }
        }
        return !complete || walk.next() == nil
    }
}
