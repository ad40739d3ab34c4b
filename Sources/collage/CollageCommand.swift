import ArgumentParser
import CollageKit
import CollageTerminal
import Dispatch
import Glibc
import Logging

/// The command is its options (`CollageOptions`) with no group around
/// them: ArgumentParser's debug build checks a type's arguments each time
/// it gathers them, and gathers a group's again for each check of the
/// type holding it, so a level of groups less made each start of the
/// debug binary (which the tests run thousands of times) several times
/// cheaper; the help, the errors and the parse are the same.
extension CollageOptions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collage",
        abstract: "Make collages and contact sheets from folders of photos, with libvips.",
        usage: "collage [OPTIONS] INPUT... [-o OUTPUT]",
        discussion: """
        INPUT is a file, a folder (scanned recursively, names in byte order) or - to read \
        paths from standard input. Portrait photos are left out unless --allow-portrait. \
        RAW photos are read with LibRaw (from their embedded previews where large enough), \
        videos with FFmpeg under --video (a poster frame with a play mark).

        Examples:
          collage ~/Photos/2026-08 -o august.jpg
          collage --sheets --max 12 --size 2400x1600 --label '{name}' renders/ -o 'sheets/sheet-{n}.png'
          collage --layout justified --gap 8 --title '{count} photos' trip/ -o trip.jpg
          find ~/Photos -newer stamp -print0 | collage -0 - -o today.jpg
          collage --diff baseline/ screenshots/ --sheets -o 'diff-{n}.png' --junit junit.xml

        Shell completions: collage --generate-completion-script bash|zsh|fish

        Exit status: 0 done; 1 --diff only: something differs; 64 usage error; 65 written, but some inputs failed; \
        66 no input or nothing eligible; 73 output cannot be created; 74 write error; \
        130/143 interrupted.
        """,
        version: CollageOptions.version)

    /// The configuration resolved (a plan read, `--exclude-from` files,
    /// `--shard auto`'s environment), then the job run.
    func run() throws {
        let resolved: Configuration.Resolved
        do throws(ConfigurationError) {
            resolved = try request.resolve(environment: CollageProcess.environment)
        } catch {
            let help = error.status == .usage ? " (see 'collage --help')" : ""
            StandardStream.error.write(line: "collage: \(error.message)\(help)")
            throw ExitCode(error.status.rawValue)
        }
        // Runs of many images: starting again costs 30 ms, which one
        // collage of six would feel and a batch would not.
        if resolved.request.makesManyCollages { CollageProcess.restartWithHugePagesIfUseful() }
        throw ExitCode(CollageCLI.run(self, resolved).rawValue)
    }
}

@main
enum CollageCommand {
    /// Parse errors become one line on standard error and exit 64; help and
    /// version print as usual.
    static func main() {
        CollageProcess.prepareForBatch()
        do {
            var command = try CollageOptions.parseAsRoot(DiffArguments.prepared(Array(CommandLine.arguments.dropFirst())))
            try command.run()
        } catch let status as ExitCode {
            // How every run ends: nothing to print, as ArgumentParser would
            // print nothing, without building its usage text to find that out.
            Glibc.exit(status.rawValue)
        } catch {
            let code = CollageOptions.exitCode(for: error)
            if code == .success { CollageOptions.exit(withError: error) }
            let message = CollageOptions.message(for: error).split(separator: "\n").first.map(String.init) ?? "usage error"
            StandardStream.error.write(line: "collage: \(message) (see 'collage --help')")
            Glibc.exit(code.rawValue == 0 ? 64 : code.rawValue)
        }
    }
}
