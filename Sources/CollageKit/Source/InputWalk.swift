import Glibc

/// A file to try, and whether a person named it (on the command line or on
/// standard input: then it is tried whatever its name).
struct InputFile: Sendable, Equatable {
    let path: PathName
    let explicit: Bool
    /// A still's RAW photo or Live Photo movie of the same shot, not emitted
    /// on their own (see `ShotPairs`): reported `paired`, or shown instead
    /// of the still when it cannot be read.
    var partners: [PathName] = []
    /// Its size and modification time as the walk's own `stat` found them
    /// (links followed), so that `--skip-unchanged` records and checks
    /// them without a second `stat`; nil for a file a person named, which
    /// the walk does not stat.
    var stamp: FileStamp? = nil
    /// Its XMP sidecars that its folder's listing holds (of
    /// `PathName.xmpSidecars`), so that the probe tries no name that is not
    /// there; nil for a file a person named: the probe looks for them.
    var sidecars: [PathName]? = nil

    /// The same file to try: the stamp is what the walk saw of it, not
    /// what it is.
    static func == (a: InputFile, b: InputFile) -> Bool {
        a.path == b.path && a.explicit == b.explicit && a.partners == b.partners
    }

    /// Its stamp: the walk's, or (a file a person named) taken now.
    var currentStamp: FileStamp? { stamp ?? FileStamp.of(path) }
}

/// All INPUTs in order, as one lazy walk: a file is emitted as it is, a
/// directory walked (`DirectoryWalk`), `-` read line by line; a path read
/// from standard input that names a directory is walked too. Files named one
/// after another in one folder are paired as a folder's names are
/// (`ConsecutiveShots`); what `rules` passes over is reported, not emitted.
struct InputWalk: PullSource {
    private var inputs: ArraySlice<Input>
    private var directory: DirectoryWalk?
    private var list: PathListReader?
    private var shots: ConsecutiveShots
    private let followLinks: Bool
    private let recursive: Bool
    private let nulSeparated: Bool
    private let rules: ScanRules
    private let standardInput: Int32
    private let report: (PipelineEvent) -> Void
    private let shouldStop: () -> Bool
    /// Hears of each folder as it is read (see `DirectoryWalk`).
    private let listed: (PathName) -> Void
    /// A folder INPUT's listing, already read (`--per-folder`).
    private let listing: DirectoryListing?

    /// Once `shouldStop` holds the walk ends, even while it waits for
    /// standard input. A folder INPUT whose `listing` is given is walked
    /// from it, not read again.
    init(inputs: [Input], followLinks: Bool, nulSeparated: Bool, recursive: Bool = true,
         rules: ScanRules = ScanRules(), standardInput: Int32 = 0, shouldStop: @escaping () -> Bool = { false },
         listing: DirectoryListing? = nil, listed: @escaping (PathName) -> Void = { _ in },
         report: @escaping (PipelineEvent) -> Void) {
        self.listed = listed
        self.listing = listing
        self.inputs = inputs[...]
        self.followLinks = followLinks
        self.recursive = recursive
        self.nulSeparated = nulSeparated
        self.rules = rules
        self.shots = ConsecutiveShots(rules: rules)
        self.standardInput = standardInput
        self.shouldStop = shouldStop
        self.report = report
    }

    mutating func next() -> InputFile? {
        while true {
            if let file = shots.pop() { return file }
            if shouldStop() { return nil }
            if directory != nil {
                if let file = directory!.nextFile() { return file }
                directory = nil
            }
            if list != nil {
                if let path = list!.next() {
                    named(path, onStandardInput: true)
                } else {
                    list = nil
                    shots.flush()
                }
                continue
            }
            guard let input = inputs.popFirst() else {
                shots.flush()
                return shots.pop()
            }
            switch input {
            case .standardInput:
                shots.flush()
                list = PathListReader(descriptor: standardInput, nulSeparated: nulSeparated,
                                      shouldStop: shouldStop, report: report)
            case .path(let path):
                named(path, onStandardInput: false)
            }
        }
    }

    /// A path a person named: a directory starts a walk (after the files
    /// held before it), anything else is tried unless `rules` passes it over.
    private mutating func named(_ path: PathName, onStandardInput: Bool) {
        if path.isDirectory {
            shots.flush()
            directory = DirectoryWalk(root: path, followLinks: followLinks, recursive: recursive, rules: rules,
                                      listing: listing, listed: listed, report: report)
            return
        }
        switch rules.named(path.lastComponent, onStandardInput: onStandardInput) {
        case .passOver(let kind): report(.passedOver(path: path, kind: kind))
        case .consider, .ignore: shots.add(InputFile(path: path, explicit: true))
        }
    }
}
