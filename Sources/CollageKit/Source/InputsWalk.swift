/// A job's INPUTs gone through one after another, as a job of several runs
/// goes through them (`--per-folder`'s folders, a film job's videos): an
/// INPUT that is a folder is walked (`DirectoryWalk`, made when the walk
/// reaches it, so a folder is read only then), one that is not is an item
/// itself; standard input is passed over. The loop the jobs share; what
/// each takes from a folder's walk is its own.
struct InputsWalk {
    /// What an INPUT starts: a walk of it, or the item it is.
    enum Start<Item> {
        case walk(DirectoryWalk)
        case item(Item)
    }

    private var inputs: ArraySlice<Input>
    private var walk: DirectoryWalk?
    /// The INPUT the last item came from.
    private(set) var root = PathName("")
    /// Once set, the walk gives nothing more.
    var stopped = false

    init(_ inputs: [Input]) {
        self.inputs = inputs[...]
    }

    /// The next item: `step` takes it from the walk under way (nil when the
    /// walk has nothing more for it), then `start` makes the next INPUT's.
    mutating func next<Item>(_ step: (inout DirectoryWalk) -> Item?, start: (PathName) -> Start<Item>) -> Item? {
        while !stopped {
            if walk != nil, let item = step(&walk!) { return item }
            walk = nil
            guard let input = inputs.popFirst() else { return nil }
            guard case .path(let path) = input else { continue }
            root = path
            switch start(path) {
            case .walk(let folder): walk = folder
            case .item(let item): return item
            }
        }
        return nil
    }
}
