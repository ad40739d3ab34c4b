import FileFacts
import Glibc
import Logging
import Media
import Locking

/// `--frames N`: each video INPUT, and each video found in an INPUT folder
/// (depth first, in byte order), is one run of its own (`FilmSheets`),
/// written to `FilmOutputs.output`. Its facts (the sheet's header) are
/// read as its pass starts; a file that is no video is `failed` and the
/// job goes on. With `--shard`, the videos are shared by their paths.
final class FilmPasses: PassSource {
    private let configuration: CollageConfiguration
    private let logger: Logger
    private struct Walk {
        var inputs: InputsWalk
        var number = 0
        /// The video whose sheet each output is, so that two never share one.
        var outputs: [PathName: PathName] = [:]
    }
    private let walk: Locked<Walk>

    init(_ configuration: CollageConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        walk = Locked(Walk(inputs: InputsWalk(configuration.inputs)))
    }

    func stop() { walk.withLock { $0.inputs.stopped = true } }

    func next(report: @escaping @Sendable (PipelineEvent) -> Void) -> (pass: Pass?, othersSkipped: Int) {
        var others = 0
        while let (video, number) = nextVideo(report: report) {
            let output = FilmOutputs.output(template: configuration.output, video: video, number: number,
                                            sheets: configuration.film?.every != nil)
            if let other = walk.withLock({ $0.outputs[output] }) {
                let hint = FilmOutputs.clashHint(template: configuration.output, video: video, other: other,
                                                 sheets: configuration.film?.every != nil)
                report(.failed(path: video, error: "its sheet '\(output)' would replace the one of '\(other)'; \(hint)"))
                continue
            }
            walk.withLock { $0.outputs[output] = video }
            if let shard = configuration.shard, !shard.owns(folder: video.bytes) {
                others += 1
                continue
            }
            switch Self.header(video) {
            case .found(let header):
                let pass = configuration.filmPass(video, output: output, header: header)
                let run = CollageRun(configuration: pass, source: FilmSheets(configuration: pass, video: video, header: header),
                                     logger: logger)
                return (Pass(job: run, folder: video), others)
            case .failed(let message):
                report(.failed(path: video, error: message))
            }
        }
        return (nil, others)
    }

    /// A film's header, or why it has none.
    enum Found { case found(FilmHeader), failed(String) }

    /// The film's facts and its file's size, or why it has none.
    static func header(_ video: PathName) -> Found {
        let descriptor = video.withCString { $0.map { open($0, O_RDONLY | O_CLOEXEC) } ?? -1 }
        guard descriptor >= 0 else { return .failed(systemError(errno)) }
        let file = OpenFile(descriptor: descriptor)
        let bytes = Int(file.status().st_size)
        do {
            return .found(FilmHeader(facts: try MediaFile.film(descriptor: file.descriptor), path: video, bytes: bytes))
        } catch {
            return .failed("\(error)")
        }
    }

    /// The next video and its number among them (1-based).
    private func nextVideo(report: @escaping @Sendable (PipelineEvent) -> Void) -> (PathName, Int)? {
        walk.withLock { walk in
            let video = walk.inputs.next({ files in
                while let path = files.next() { if Self.isVideo(path) { return path } }
                return nil
            }) { [configuration] path -> InputsWalk.Start<PathName> in
                var info = stat()
                if path.withCString({ $0.map { stat($0, &info) } ?? -1 }) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                    return .walk(DirectoryWalk(root: path, followLinks: configuration.followLinks, rules: configuration.scan,
                                               report: report))
                }
                return .item(path)  // named: a video or a clear line
            }
            guard let video else { return nil }
            walk.number += 1
            return (video, walk.number)
        }
    }

    private static func isVideo(_ path: PathName) -> Bool {
        let ext = Captions.split(path.lastComponent).ext.lowercased()
        return FileKind.of(extension: ext) == .video
    }
}
