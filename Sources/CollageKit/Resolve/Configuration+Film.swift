import Glibc

extension Configuration {
    /// The most frames one film's sheet may have.
    public static let maxFilmFrames = 1000

    /// `--size`, or its default: the seed's 1200x800, and for a film's
    /// sheets 1200 wide and as tall as its rows (cells of the film's shape
    /// leave no band of background inside them on a canvas of fixed height).
    var canvasSize: CanvasSize {
        size ?? (frames != nil || every != nil ? CanvasSize(width: CanvasSize.default.width, height: nil) : .default)
    }

    /// `--frames N`, `--every SECONDS`: sheets of each video, a grid of its
    /// frames, timed, under its header (with the canvas, `canvasSize`, and
    /// the frames shown whole unless `--fit cover`, the film's defaults).
    func resolveFilm(_ configuration: inout CollageConfiguration) {
        guard frames != nil || every != nil else { return }
        configuration.film = FilmSettings(count: frames ?? max ?? tile?.cells ?? FilmSettings.everyTiles, scenes: scenes,
                                          every: every, vtt: vtt)
        configuration.maxImages = configuration.film!.count
        configuration.sheets = every != nil
        if layoutName == "auto" { configuration.layoutName = "grid" }
        if label == nil { configuration.captions.label = FilmSettings.defaultLabel }
        if title == nil { configuration.captions.title = FilmSettings.defaultTitle }
    }

    /// `--frames N` and `--scenes`: N in range, the output named per
    /// video, and none of the options that cut a run otherwise.
    func validateFilm() throws(ConfigurationError) {
        guard frames != nil || every != nil else {
            if scenes { throw ConfigurationError("--scenes chooses the frames of --frames N; add --frames") }
            if vtt != nil { throw ConfigurationError("--vtt points at the tiles of --frames N or --every SECONDS; add one") }
            return
        }
        if let frames, !(1...Self.maxFilmFrames).contains(frames) {
            throw ConfigurationError("--frames must be 1 to \(Self.maxFilmFrames), not \(frames)")
        }
        if let every {
            if frames != nil { throw ConfigurationError("--every takes a frame every SECONDS instead of N: give --frames or --every") }
            if scenes { throw ConfigurationError("--scenes chooses N shots; --every takes a frame every SECONDS: give one") }
            guard every >= 0.1 && every <= 86_400 else {
                throw ConfigurationError("--every must be 0.1 to 86400 seconds, not \(every)")
            }
        }
        if let vtt {
            if vtt.bytes.isEmpty { throw ConfigurationError("--vtt needs a path") }
            if !Self.namesEachVideo(vtt), !Self.oneFile(inputs) {
                throw ConfigurationError("--vtt writes cues per video: name each with {stem} or {name} in its PATH")
            }
        }
        let option = frames != nil ? "--frames" : "--every"
        let conflicts: [(Bool, String)] = [
            (diff != nil, "--diff"), (perFolder, "--per-folder"), (groupBy != nil, "--group-by"), (sheets, "--sheets"),
            (watch, "--watch"), (plan != nil, "--plan"), (fromPlan != nil, "--from-plan"), (dryRun, "--dry-run"),
            (inputs.contains(.standardInput), "- (standard input)"), (minRating != nil, "--min-rating"),
        ]
        if let conflict = conflicts.first(where: \.0) {
            throw ConfigurationError("\(option) makes sheets of each video: it cannot be used with \(conflict.1)")
        }
        let named = every != nil ? Self.namesEachVideo(outputPath) : FilmOutputs.hasPlaceholder(outputPath)
        if !named, !Self.oneFile(inputs) {
            throw ConfigurationError("\(option) writes sheets per video: name them with {stem}, {name}"
                                     + "\(every != nil ? "" : " or {n}") in --output, such as -o 'sheets/{stem}.jpg'")
        }
    }

    /// Whether PATH holds a field of the video's own name (`{stem}`, `{name}`).
    private static func namesEachVideo(_ path: PathName) -> Bool {
        FolderOutputs.contains(path.bytes, Array("{stem}".utf8)) || FolderOutputs.contains(path.bytes, Array("{name}".utf8))
    }

    /// One INPUT that is not a folder: its sheet may take `-o` as it is.
    private static func oneFile(_ inputs: [Input]) -> Bool {
        guard inputs.count == 1, case .path(let path) = inputs[0] else { return false }
        var info = stat()
        guard path.withCString({ $0.map { stat($0, &info) } ?? -1 }) == 0 else { return true }  // missing: said later
        return (info.st_mode & S_IFMT) != S_IFDIR
    }
}
