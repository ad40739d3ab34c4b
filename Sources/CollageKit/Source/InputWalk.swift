import Glibc

/// A file to try, and whether a person named it (on the command line or on
/// standard input: then it is tried whatever its name).
public struct InputFile: Sendable, Equatable {
    public let path: PathName
    public let explicit: Bool
}

/// All INPUTs in order, as one lazy walk: a file is emitted as it is, a
/// directory walked (`DirectoryWalk`), `-` read line by line; a path read
/// from standard input that names a directory is walked too.
public struct InputWalk: PullSource {
    private var inputs: ArraySlice<Input>
    private var directory: DirectoryWalk?
    private var list: PathListReader?
    private let followLinks: Bool
    private let recursive: Bool
    private let nulSeparated: Bool
    private let standardInput: Int32
    private let report: (PipelineEvent) -> Void
    private let shouldStop: () -> Bool

    /// Once `shouldStop` holds the walk ends, even while it waits for
    /// standard input.
    public init(inputs: [Input], followLinks: Bool, nulSeparated: Bool, recursive: Bool = true,
                standardInput: Int32 = 0, shouldStop: @escaping () -> Bool = { false },
                report: @escaping (PipelineEvent) -> Void) {
        self.inputs = inputs[...]
        self.followLinks = followLinks
        self.recursive = recursive
        self.nulSeparated = nulSeparated
        self.standardInput = standardInput
        self.shouldStop = shouldStop
        self.report = report
    }

    public mutating func next() -> InputFile? {
        while true {
            if shouldStop() { return nil }
            if directory != nil {
                if let path = directory!.next() { return InputFile(path: path, explicit: false) }
                directory = nil
            }
            if list != nil {
                if let path = list!.next() {
                    if let file = named(path) { return file }
                    continue
                }
                list = nil
            }
            guard let input = inputs.popFirst() else { return nil }
            switch input {
            case .standardInput:
                list = PathListReader(descriptor: standardInput, nulSeparated: nulSeparated,
                                      shouldStop: shouldStop, report: report)
            case .path(let path):
                if let file = named(path) { return file }
            }
        }
    }

    /// A path a person named: a directory starts a walk, anything else is tried.
    private mutating func named(_ path: PathName) -> InputFile? {
        if path.isDirectory {
            directory = DirectoryWalk(root: path, followLinks: followLinks, recursive: recursive, report: report)
            return nil
        }
        return InputFile(path: path, explicit: true)
    }
}
