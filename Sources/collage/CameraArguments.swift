import ArgumentParser
import CollageKit

/// `--raw` and `--video`, as the decoders need them. (Minimal: the walk's
/// half of camera rolls brings the same two options with the folder walk's
/// part of them; at the merge, one definition stays.)
struct CameraArguments: ParsableArguments {
    @Option(help: ArgumentHelp("RAW photos: from their embedded previews where large enough (preview), always from "
                               + "their raw data (full), or left out (skip).", valueName: "preview|full|skip"))
    var raw: String = "preview"

    @Flag(help: "Show videos too, each by a poster frame with a play mark (needs FFmpeg's libraries).")
    var video = false

    func validate() throws {
        guard RawMode(rawValue: raw) != nil else { throw ValidationError("--raw must be preview, full or skip") }
    }

    func apply(to configuration: inout CollageConfiguration) {
        configuration.raw = RawMode(rawValue: raw) ?? .preview
        configuration.video = video
    }
}
