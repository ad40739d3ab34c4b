import Glibc
import Locking

/// `--diff-images DIR`: each pair that is not `unchanged` gets its
/// full-size difference picture at its path below DIR (as a PNG: ".png"
/// is added to a path that does not end so), the folders below DIR made
/// as needed. Each is written atomically, as libvips streams it, so a tall
/// page is never held whole; the first failure is kept for the run's end
/// (the other pictures are still written).
final class DiffPictures: Sendable {
    let folder: PathName
    private let writer = AtomicWriter()
    private let failure = Locked<OutputError?>(nil)

    init(folder: PathName) {
        self.folder = folder
    }

    /// Where the picture of the pair named `relative` goes.
    func path(for relative: PathName) -> PathName {
        var name = folder.appending(relative.bytes)
        let last = relative.lastComponent.map { (65...90).contains($0) ? $0 + 32 : $0 }
        if Array(last.suffix(4)) != Array(".png".utf8) {
            name = PathName(bytes: name.bytes + Array(".png".utf8))
        }
        return name
    }

    /// Writes the picture of the pair named `relative` with `body` (given
    /// the open temporary file); its path, or nil when it failed.
    func write(_ relative: PathName, _ body: (Int32) throws -> Void) -> PathName? {
        let path = path(for: relative)
        do {
            try Self.makeFolders(below: folder, to: path.directory)
            return try writer.writing(path) { () throws(OutputError) -> PathName in
                let file = try writer.createTemporary(for: path)
                do { try body(file.descriptor) } catch {
                    throw writer.discard(file, OutputError(code: .ioError, path: path,
                                                           message: "cannot write the difference picture: \(error)"))
                }
                try writer.commit(file)
                return path
            }
        } catch {
            failure.withLock { $0 = $0 ?? error }
            return nil
        }
    }

    /// The first picture that could not be written, as the run's failure.
    var firstFailure: RunFailure? {
        failure.withLock { $0 }.map { $0.runFailure(prefix: "--diff-images: ") }
    }

    /// Makes `folder` and each folder from it down to `target`.
    static func makeFolders(below folder: PathName, to target: PathName) throws(OutputError) {
        let inside = target.bytes.starts(with: folder.bytes) ? Array(target.bytes.dropFirst(folder.bytes.count)) : []
        var steps = [folder]
        for component in inside.split(separator: UInt8(ascii: "/")) {
            steps.append(steps[steps.count - 1].appending(Array(component)))
        }
        for step in steps {
            let result = step.withCString { $0.map { mkdir($0, 0o777) } ?? -1 }
            if result != 0 && errno != EEXIST {
                throw OutputError(code: .cannotCreate, path: step, message: "cannot make the folder: " + systemError(errno))
            }
        }
    }
}
