/// The shape of a job, beside its configuration: one run over the inputs,
/// one per folder, and whether it watches for changes. These are what the
/// command line's `--per-folder`, `--watch` and `--interval` say; a
/// `CollageConfiguration` holds everything else.
///
/// ```swift
/// // One collage of each album below ~/Photos, redone when an album changes.
/// var configuration = CollageConfiguration(inputs: [.path(PathName("/home/me/Photos"))])
/// configuration.output = PathName("/srv/albums/{path}.jpg")
/// let options = CollageJobOptions(perFolder: true, watchInterval: .seconds(30))
/// ```
public struct CollageJobOptions: Sendable, Equatable {
    /// One collage (or set of sheets) per folder below each input folder,
    /// as `--per-folder`. The configuration's `output` must hold `{dir}` or
    /// `{path}`, which name each folder's output.
    public var perFolder: Bool

    /// Watch the inputs, as `--watch --interval`: after the first pass, one
    /// every `watchInterval` that redoes only the collages whose inputs
    /// changed. A watch ends only when it is cancelled. `nil`: one pass.
    /// Between 0.1 seconds and a day.
    public var watchInterval: Duration?

    /// A job of the given shape; the default is one pass over the inputs.
    public init(perFolder: Bool = false, watchInterval: Duration? = nil) {
        self.perFolder = perFolder
        self.watchInterval = watchInterval
    }

    /// The job of the command line without `--per-folder` or `--watch`: one
    /// run over the inputs (one collage, its sheets, or one per group of
    /// `groupBy`).
    public static let once = CollageJobOptions()

    /// The interval in seconds, as `Jobs.make` takes it.
    var watchSeconds: Double? {
        watchInterval.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
    }

    /// Why these options cannot run with `configuration` (the command line's
    /// usage errors for the same combination), or nil.
    func problem(with configuration: CollageConfiguration) -> String? {
        let readsStandardInput = configuration.inputs.contains(.standardInput)
        if configuration.diff != nil && (perFolder || watchInterval != nil) {
            return "a comparison (diff) cannot be run per folder or watched"
        }
        if perFolder {
            guard FolderOutputs.hasPlaceholder(configuration.output) else {
                return "a job per folder needs {dir} or {path} in its output, such as 'albums/{path}.jpg'"
            }
            guard !readsStandardInput else {
                return "a job per folder takes folders, not standard input"
            }
        }
        if let seconds = watchSeconds {
            guard !readsStandardInput else { return "a watch rescans files and folders, not standard input" }
            guard !configuration.dryRun else { return "a watch cannot be a dry run" }
            guard seconds >= 0.1 && seconds <= 86_400 else {
                return "the watch interval must be 0.1 to 86400 seconds, not \(seconds)"
            }
        }
        return nil
    }
}
