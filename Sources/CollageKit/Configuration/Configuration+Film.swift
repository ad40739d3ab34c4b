import Glibc

extension Configuration {
    /// The most frames one film's sheet may have.
    public static let maxFilmFrames = 1000

    /// `--frames N` and `--scenes`: N in range, the output named per
    /// video, and none of the options that cut a run otherwise.
    func validateFilm() throws(ConfigurationError) {
        guard let frames else {
            if scenes { throw ConfigurationError("--scenes chooses the frames of --frames N; add --frames") }
            return
        }
        guard (1...Self.maxFilmFrames).contains(frames) else {
            throw ConfigurationError("--frames must be 1 to \(Self.maxFilmFrames), not \(frames)")
        }
        let conflicts: [(Bool, String)] = [
            (diff != nil, "--diff"), (perFolder, "--per-folder"), (groupBy != nil, "--group-by"), (sheets, "--sheets"),
            (watch, "--watch"), (plan != nil, "--plan"), (fromPlan != nil, "--from-plan"), (dryRun, "--dry-run"),
            (inputs.contains(.standardInput), "- (standard input)"),
        ]
        if let conflict = conflicts.first(where: \.0) {
            throw ConfigurationError("--frames makes a sheet of each video: it cannot be used with \(conflict.1)")
        }
        if !FilmOutputs.hasPlaceholder(outputPath), !Self.oneFile(inputs) {
            throw ConfigurationError("--frames writes a sheet per video: name each with {stem} or {n} in --output, "
                                     + "such as -o 'sheets/{stem}.jpg'")
        }
    }

    /// One INPUT that is not a folder: its sheet may take `-o` as it is.
    private static func oneFile(_ inputs: [Input]) -> Bool {
        guard inputs.count == 1, case .path(let path) = inputs[0] else { return false }
        var info = stat()
        guard path.withCString({ $0.map { stat($0, &info) } ?? -1 }) == 0 else { return true }  // missing: said later
        return (info.st_mode & S_IFMT) != S_IFDIR
    }
}
