import Foundation
import Glibc
import XCTest

/// Every recipe of README.md and docs/ runs as written: the commands are
/// read from the Markdown files when the test runs (an edited recipe is
/// tested as edited), and each is run exactly as printed, by bash, in a
/// fresh folder holding the inputs it names (photo folders, screenshots
/// and a baseline, videos made with ffmpeg, a plan, the shards' logs),
/// with `collage` on PATH the binary under test: only the program's path
/// is substituted. Absolute paths of the recipes (`/srv/www/albums`, a
/// cluster's `/shared`, `/data`, `/mnt/efs`) are folders of the test's
/// own, seen at those paths in a root of its own (a mount namespace and
/// chroot: the machine's folders are not touched); the test runs as root.
///
/// A recipe is a block of commands: an indented block whose first command
/// is a program (`collage`, or one on PATH), a CI job's steps (GitHub
/// Actions' `run:`, GitLab's `script:` items: each run in turn, as the
/// runner does), a cron line (run as the command it holds), a batch
/// script (```sh: run with the variables Slurm sets), a Kubernetes Job's
/// command (```yaml: with `JOB_COMPLETION_INDEX`) or an AWS Batch job's
/// (```json: with AWS Batch's variables). A recipe ends 0, or 1 when it
/// runs `collage --diff` over trees that differ (as the test makes them).
final class RecipeTests: CLITestCase {
    struct Recipe: CustomStringConvertible {
        let file: String
        let line: Int
        enum Kind { case shell, slurm, kubernetes, awsBatch }
        let kind: Kind
        /// The steps, each a shell script run in turn in the same folder.
        var steps: [String]
        var description: String { "\(file):\(line)" }
    }

    /// What is not run, and why: commands that cannot run in a test, each
    /// named by how its line starts. Everything else in the files is run.
    static let excluded: [(prefix: String, why: String)] = [
        ("collage [OPTIONS] INPUT...", "the synopsis of options.md, not a command"),
        ("scripts/demo", "with scripts/test and scripts/test --full (one block): build the project and run its tests, "
            + "this one among them"),
        ("scripts/fuzz", "a build of its own and minutes of fuzzing; scripts/test --full runs it"),
        ("scripts/sanitize", "builds of its own under the sanitizers; scripts/test --full runs it"),
        ("scripts/package", "with the `sudo apt-get install` of what it makes (one block): Tests/package/test-package.sh "
            + "builds, installs and removes the package"),
        ("plan=$(sbatch", "submits to a Slurm cluster; the scripts it submits are run here (ClusterTests submits them to one)"),
        ("aws batch submit-job", "submits to AWS Batch; the command each job holds (its JSON's) is run here"),
        ("plan=$(aws batch", "submits to AWS Batch; the command each job holds (its JSON's) is run here"),
        ("kubectl ", "applies to a Kubernetes cluster; the command each Job's container holds is run here"),
        ("parallel --will-cite --sshlogin", "sends the shards over ssh to other machines (node1, node2); "
            + "the same command on this machine is the recipe above it"),
    ]

    /// The files the recipes are in.
    static func files() -> [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Package.root + "/docs")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// The recipes of one Markdown file, in order.
    static func recipes(in file: String, text: String) -> [Recipe] {
        let lines = text.components(separatedBy: "\n")
        var recipes: [Recipe] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("```") {
                let language = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
                var end = index + 1
                while end < lines.count, !lines[end].hasPrefix("```") { end += 1 }
                let body = Array(lines[(index + 1)..<min(end, lines.count)])
                switch language {
                case "sh": recipes.append(Recipe(file: file, line: index + 2, kind: .slurm, steps: [body.joined(separator: "\n")]))
                case "yaml": recipes += kubernetes(body, file: file, line: index + 2)
                case "json": recipes += awsBatch(body, file: file, line: index + 2)
                default: break
                }
                index = end + 1
                continue
            }
            // An indented block: after a blank line, each line four spaces in (or blank).
            if line.hasPrefix("    "), index == 0 || lines[index - 1].trimmingCharacters(in: .whitespaces).isEmpty {
                var end = index
                while end < lines.count, lines[end].hasPrefix("    ") || (lines[end].isEmpty && end + 1 < lines.count
                                                                              && lines[end + 1].hasPrefix("    ")) {
                    end += 1
                }
                let block = lines[index..<end].map { $0.isEmpty ? "" : String($0.dropFirst(4)) }
                if let recipe = indented(block, file: file, line: index + 1) { recipes.append(recipe) }
                index = end
                continue
            }
            index += 1
        }
        return recipes
    }

    /// An indented block as a recipe: CI steps, a cron line, or commands.
    static func indented(_ block: [String], file: String, line: Int) -> Recipe? {
        let commands = block.filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") && !$0.isEmpty }
        guard let first = commands.first else { return nil }
        // GitHub Actions: each step's `run:`.
        if commands.contains(where: { $0.hasPrefix("- run: ") || $0.hasPrefix("  run: ") }) {
            let steps = commands.compactMap { line -> String? in
                let trimmed = line.drop { $0 == " " || $0 == "-" }
                return trimmed.hasPrefix("run: ") ? String(trimmed.dropFirst(5)) : nil
            }
            return Recipe(file: file, line: line, kind: .shell, steps: steps)
        }
        // GitLab CI: the `script:` items.
        if let script = commands.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "script:" }) {
            let indent = commands[script].prefix { $0 == " " }.count
            var steps: [String] = []
            for item in commands[(script + 1)...] {
                let trimmed = item.trimmingCharacters(in: .whitespaces)
                guard item.prefix(while: { $0 == " " }).count > indent, trimmed.hasPrefix("- ") else { break }
                steps.append(String(trimmed.dropFirst(2)))
            }
            return Recipe(file: file, line: line, kind: .shell, steps: steps)
        }
        // cron: the schedule's five fields, then the command the line holds.
        let fields = first.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        if fields.count == 6, fields.prefix(5).allSatisfy({ $0.allSatisfy { "0123456789*/,-".contains($0) } }) {
            return Recipe(file: file, line: line, kind: .shell,
                          steps: [String(fields[5]).trimmingCharacters(in: .whitespaces)])
        }
        guard isCommand(first) else { return nil }
        return Recipe(file: file, line: line, kind: .shell, steps: [block.joined(separator: "\n")])
    }

    /// Whether a line starts with a program: `collage`, one of the
    /// project's scripts, one on PATH, or a shell assignment of a command's output.
    static func isCommand(_ line: String) -> Bool {
        guard let word = line.split(separator: " ").first.map(String.init) else { return false }
        if word == "collage" || word.hasPrefix("scripts/") || word.contains("=$(") { return true }
        return word.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) } && haveProgram(word)
    }

    /// A Kubernetes Job's container command: `command: [...]` as argv, or
    /// `/bin/sh -c` with its `args: - >-` folded into one line.
    static func kubernetes(_ body: [String], file: String, line: Int) -> [Recipe] {
        var recipes: [Recipe] = []
        for (index, text) in body.enumerated() {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("command: [\"collage\"") {
                var array = String(trimmed.dropFirst("command: ".count))
                var next = index + 1
                while !array.hasSuffix("]"), next < body.count {
                    array += " " + body[next].trimmingCharacters(in: .whitespaces)
                    next += 1
                }
                let argv = (try? JSONSerialization.jsonObject(with: Data(array.utf8)) as? [String]) ?? []
                let folder = body.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("workingDir: ") }
                    .map { String($0.trimmingCharacters(in: .whitespaces).dropFirst("workingDir: ".count)) }
                let command = argv.map(shellQuoted).joined(separator: " ")
                recipes.append(Recipe(file: file, line: line + index, kind: .kubernetes,
                                      steps: [(folder.map { "cd \($0) && " } ?? "") + command]))
            }
            if trimmed == "- >-", index > 0, body[index - 1].trimmingCharacters(in: .whitespaces) == "args:" {
                let indent = text.prefix { $0 == " " }.count
                var folded: [String] = []
                for more in body[(index + 1)...] {
                    guard more.prefix(while: { $0 == " " }).count > indent else { break }
                    folded.append(more.trimmingCharacters(in: .whitespaces))
                }
                let folder = body.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("workingDir: ") }
                    .map { String($0.trimmingCharacters(in: .whitespaces).dropFirst("workingDir: ".count)) }
                recipes.append(Recipe(file: file, line: line + index, kind: .kubernetes,
                                      steps: [(folder.map { "cd \($0) && " } ?? "") + folded.joined(separator: " ")]))
            }
        }
        return recipes
    }

    /// An AWS Batch job's `command` (argv).
    static func awsBatch(_ body: [String], file: String, line: Int) -> [Recipe] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.joined(separator: "\n").utf8)) as? [String: Any],
              let overrides = object["containerOverrides"] as? [String: Any],
              let argv = overrides["command"] as? [String] else { return [] }
        return [Recipe(file: file, line: line, kind: .awsBatch, steps: [argv.map(shellQuoted).joined(separator: " ")])]
    }

    static func shellQuoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Whether a recipe is excluded, and why.
    static func exclusion(_ recipe: Recipe) -> String? {
        for step in recipe.steps {
            let trimmed = step.trimmingCharacters(in: .whitespacesAndNewlines)
            if let rule = excluded.first(where: { trimmed.hasPrefix($0.prefix) }) { return rule.why }
        }
        return nil
    }

    // MARK: - The inputs a recipe names

    /// A recipe that runs from a plan without making it: the step the
    /// job runs first, which makes the plan where its tasks run.
    static func planStep(for text: String) -> String? {
        guard text.contains("--from-plan job.plan"), !text.contains("--plan job.plan") else { return nil }
        if text.contains("/shared/jobs/sheets") {
            return "cd /shared/jobs/sheets && collage --plan job.plan --sheets /shared/photos -o '/shared/sheets/sheet-{n}.jpg'"
        }
        if text.contains("/mnt/efs/jobs/sheets") {
            return "cd /mnt/efs/jobs/sheets && collage --plan job.plan --sheets /mnt/efs/photos -o '/mnt/efs/sheets/sheet-{n}.jpg'"
        }
        if text.contains("/data/jobs/sheets") {
            return "cd /data/jobs/sheets && collage --plan job.plan --sheets /data/photos -o '/data/sheets/sheet-{n}.jpg'"
        }
        return "mkdir -p sheets && collage --plan job.plan --sheets photos/ -o 'sheets/sheet-{n}.jpg'"
    }

    /// A bash script that makes, in the recipe's folder, what its text
    /// names: `$W` the folder, `$W/home` its HOME, `$W/.abs/NAME` what the
    /// recipe sees at `/NAME`.
    static func inputs(for text: String) -> String {
        var script = """
            set -eu
            # Made once for all the recipes ($CACHE), copied into each fresh folder.
            photos() {
              if [ ! -d "$CACHE/photos" ]; then
                mkdir -p "$CACHE/photos.new"
                for f in aqua dune greenmeadow raindrops storm-rotated; do vips thumbnail "$SAMPLES/$f.jpg" "$CACHE/photos.new/$f.jpg[Q=85]" 320; done
                mv "$CACHE/photos.new" "$CACHE/photos"
              fi
              mkdir -p "$1"; cp "$CACHE/photos/"* "$1/"
            }
            video() {
              if [ ! -f "$CACHE/video-$2.mp4" ]; then
                ffmpeg -v error -nostdin -f lavfi -i "testsrc2=size=160x90:rate=25:duration=$2" -f lavfi -i "sine=duration=$2" -t "$2" -pix_fmt yuv420p -c:v libx264 -c:a aac "$CACHE/video-$2.tmp.mp4"
                mv "$CACHE/video-$2.tmp.mp4" "$CACHE/video-$2.mp4"
              fi
              mkdir -p "$(dirname "$1")"; cp "$CACHE/video-$2.mp4" "$1"
            }
            shot() { mkdir -p "$(dirname "$2")"; vips thumbnail "$SAMPLES/$1.jpg" "$2" 160; }
            mkdir -p "$W/home" "$W/.abs/srv" "$W/.abs/shared" "$W/.abs/data" "$W/.abs/mnt"

            """
        func names(_ word: String) -> Bool { text.contains(word) }
        if names("~/Photos/2026-08-14") { script += "photos \"$W/home/Photos/2026-08-14\"\n" }
        if names("~/Photos/2026-08 ") || names("~/Photos/2026-08\n") { script += "photos \"$W/home/Photos/2026-08\"\n" }
        if names("~/Photos ") || names("~/Photos\n") {
            script += "photos \"$W/home/Photos/2026-07\"; photos \"$W/home/Photos/2026-08\"\n"
        }
        if names("-newer stamp") { script += "touch -d '2001-01-01' \"$W/stamp\"\n" }
        if names("~/Recordings") { script += "video \"$W/home/Recordings/trip.mp4\" 4\n" }
        if names("film.mp4") { script += "video \"$W/film.mp4\" 21\n" }
        if names("collage samples") { script += "cp -r \"$SAMPLES\" \"$W/samples\"\n" }
        if names("DCIM/") { script += "photos \"$W/DCIM/100APPLE\"; video \"$W/DCIM/100APPLE/clip.mp4\" 3\n" }
        if names("IMG_0042.jpg") { script += "cp \"$SAMPLES/dune.jpg\" \"$W/IMG_0042.jpg\"\n" }
        if names("shoot/") { script += "photos \"$W/shoot\"; exiftool -q -overwrite_original -XMP:Rating=4 \"$W/shoot\"\n" }
        if names(" day -o") { script += "photos \"$W/day\"\n" }
        if names("scans/") { script += "photos \"$W/scans\"\n" }
        if names(" photos/") || names(" photos ") { script += "photos \"$W/photos\"\n" }
        for root in ["shared", "data", "mnt/efs"] where names("/\(root)/photos") {
            script += "photos \"$W/.abs/\(root)/photos\"\n"
            // The shared volume's folders, as a cluster's admin makes them ("/data/logs must exist on the volume").
            script += "mkdir -p \"$W/.abs/\(root)/sheets\" \"$W/.abs/\(root)/logs\" \"$W/.abs/\(root)/jobs/sheets\"\n"
        }
        if names("/srv/www/albums") { script += "mkdir -p \"$W/.abs/srv/www/albums\"\n" }
        if names("screenshots/") {
            // Two releases' screenshots: each differs (changed), one new, one gone.
            script += """
                for n in login settings/dark a b; do shot dune "$W/baseline/$n.png"; done
                shot aqua "$W/screenshots/login.png"; shot greenmeadow "$W/screenshots/settings/dark.png"
                shot raindrops "$W/screenshots/a.png"; shot twowings "$W/screenshots/b.png"; shot storm-rotated "$W/screenshots/new.png"

                """
            if !names("baseline/") { script += "rm -rf \"$W/baseline\"\n" }
        }
        if names("decisions.json") {
            // The review page's decisions: login.png approved, as the reviewer saw it.
            script += """
                sum=$(sha256sum "$W/screenshots/login.png" | cut -c1-64)
                printf '{"decisions": "collage --diff", "version": 1, "baseline": "baseline/", "input": ["screenshots/"], "approve": [{"path": "login.png", "sha256": "%s", "alternative": false}]}\\n' "$sum" > "$W/decisions.json"

                """
        }
        if names("git add") { script += "git -C \"$W\" init -q\n" }
        if let plan = planStep(for: text) {
            // The plan's photos, where the job's first step plans them.
            script += plan.contains("/shared/") ? "photos \"$W/.abs/shared/photos\"; mkdir -p \"$W/.abs/shared/jobs/sheets\" \"$W/.abs/shared/sheets\" \"$W/.abs/shared/logs\"\n"
                : plan.contains("/mnt/efs/") ? "photos \"$W/.abs/mnt/efs/photos\"; mkdir -p \"$W/.abs/mnt/efs/jobs/sheets\" \"$W/.abs/mnt/efs/sheets\" \"$W/.abs/mnt/efs/logs\"\n"
                : plan.contains("/data/") ? "photos \"$W/.abs/data/photos\"; mkdir -p \"$W/.abs/data/jobs/sheets\" \"$W/.abs/data/sheets\" \"$W/.abs/data/logs\"\n"
                : "photos \"$W/photos\"\n"
        }
        if names("logs/collage-*.ndjson") || names("logs/*.ndjson") {
            script += "photos \"$W/photos\"; mkdir -p \"$W/logs\" \"$W/sheets\"\n"
            script += "for i in 0 1 2 3; do (cd \"$W\" && collage --sheets --max 2 --json --shard $i/4 photos "
                + "-o 'sheets/sheet-{n}.jpg' > \"logs/collage-$i.ndjson\"); done\n"
        }
        return script
    }

    // MARK: - Running

    /// Runs bash `script` in the recipe's root: `$W` seen where it is,
    /// and `/srv`, `/shared`, `/data`, `/mnt` the recipe's own folders.
    func runInRoot(_ script: String, folder: String, environment: [String: String]) throws -> ProcessResult {
        let root = folder + "/.root"
        let setUp = """
            set -eu
            R=\(RecipeTests.shellQuoted(root))
            mkdir -p "$R"; mount -t tmpfs recipe-root "$R"
            for e in /*; do
              n=${e#/}
              case $n in
                srv|shared|data|mnt) ;;
                *) if [ -L "$e" ]; then cp -P "$e" "$R/$n"; elif [ -d "$e" ]; then mkdir "$R/$n"; mount --rbind "$e" "$R/$n"; fi ;;
              esac
            done
            for n in srv shared data mnt; do mkdir "$R/$n"; mount --bind "$W/.abs/$n" "$R/$n"; done
            exec chroot "$R" /bin/bash -c 'cd "$W" && exec /bin/bash -e -c "$STEP"'
            """
        var env = environment
        env["STEP"] = script
        return try runProcess([b("unshare"), b("--mount"), b("--propagation"), b("private"), b("/bin/bash"), b("-c"), b(setUp)],
                              directory: folder, environment: env, timeout: 300)
    }

    /// Every recipe of the files, read as the runs below read them.
    func allRecipes() throws -> [Recipe] {
        var all: [Recipe] = []
        for file in Self.files() {
            let text = String(decoding: try XCTUnwrap(contents(Package.root + "/" + file), file), as: UTF8.self)
            all += Self.recipes(in: file, text: text)
        }
        return all
    }

    /// The recipes are found as a reader sees them (CI steps one by one,
    /// cron's command, a batch system's), and each exclusion is used: the
    /// list of what is not run stays as short as it can be.
    func testTheRecipesAreReadAsWritten() throws {
        let all = try allRecipes()
        let readme = all.filter { $0.file == "README.md" }
        XCTAssertTrue(readme.contains { $0.steps.count == 2 && $0.steps[0] == "mkdir -p diff"
                          && $0.steps[1].hasPrefix("collage --diff baseline/ screenshots/ --sheets -o 'diff/diff-{n}.png'") },
                      "the GitHub Actions steps, each a step: \(readme.map(\.steps))")
        XCTAssertTrue(readme.contains { $0.steps == ["collage --per-folder --pick --skip-unchanged ~/Photos -o '/srv/www/albums/{path}.jpg'"] },
                      "cron's line, as the command it holds")
        let gitlab = try XCTUnwrap(all.first { $0.file == "docs/visual-diff.md" && $0.steps.first == "mkdir -p diff"
                                       && $0.steps.count == 2 && !$0.steps[1].contains("--markdown") })
        XCTAssertTrue(gitlab.steps[1].hasPrefix("collage --diff baseline/ screenshots/"), "GitLab's script: \(gitlab.steps)")
        XCTAssertTrue(all.contains { $0.kind == .slurm }, "the Slurm scripts")
        XCTAssertTrue(all.contains { $0.kind == .kubernetes && $0.steps[0].contains("JOB_COMPLETION_INDEX") })
        XCTAssertTrue(all.contains { $0.kind == .awsBatch })
        XCTAssertFalse(all.contains { $0.steps.contains { $0.contains("WEBVTT") || $0.contains("<h2>") } },
                       "what a command prints is not a command")
        for rule in Self.excluded {
            XCTAssertTrue(all.contains { recipe in recipe.steps.contains { $0.hasPrefix(rule.prefix) } },
                          "'\(rule.prefix)' is excluded but no recipe starts so: take it off the list")
        }
    }

    func testEveryRecipeRunsAsWritten() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root: each recipe runs in a root of its own (unshare, chroot)") }
        for program in ["unshare", "chroot", "ffmpeg", "vips", "exiftool", "jq", "parallel", "git", "sha256sum"] {
            guard haveProgram(program) else { throw XCTSkip("\(program) is not installed (scripts/test installs it)") }
        }
        makeFolder("bin")
        XCTAssertEqual(symlink(Package.binary, path("bin/collage")), 0)
        let all = try allRecipes()
        let run = all.filter { Self.exclusion($0) == nil }
        XCTAssertGreaterThanOrEqual(run.count, 25, "the recipes were found: \(all)")
        XCTAssertTrue(run.contains { $0.file == "README.md" && $0.steps.contains { $0.contains("--diff baseline/") } },
                      "README's visual diff step is one")
        for (number, recipe) in run.enumerated() {
            let folder = path("r\(number)")
            makeFolder("r\(number)")
            let text = recipe.steps.joined(separator: "\n")
            var environment = ["W": folder, "HOME": folder + "/home", "SAMPLES": Package.samples, "CACHE": path(".cache"),
                               "PATH": path("bin") + ":/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C.UTF-8",
                               "GITHUB_STEP_SUMMARY": folder + "/.step-summary.md",
                               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"]
            let made = try runProcess([b("/bin/bash"), b("-c"), b(Self.inputs(for: text))], directory: folder,
                                      environment: environment, timeout: 300)
            XCTAssertEqual(made.status, 0, "\(recipe): its inputs\n\(made.summary)")
            if let plan = Self.planStep(for: text) {
                let planned = try runInRoot(plan, folder: folder, environment: environment)
                XCTAssertEqual(planned.status, 0, "\(recipe): its plan\n\(planned.summary)")
            }
            switch recipe.kind {
            case .shell: break
            case .slurm:
                environment.merge(["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "8",
                                   "SLURM_ARRAY_JOB_ID": "1", "SLURM_JOB_ID": "2", "SLURM_CPUS_PER_TASK": "2"]) { $1 }
                // Slurm opens the script's --output file before it starts.
                makeFolder("r\(number)/logs")
            case .kubernetes: environment["JOB_COMPLETION_INDEX"] = "0"
            case .awsBatch: environment.merge(["AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "8"]) { $1 }
            }
            for step in recipe.steps {
                let result = try runInRoot(step, folder: folder, environment: environment)
                let differs = step.contains("collage --diff") && !step.contains("--approve")
                XCTAssertEqual(result.status, differs ? 1 : 0, "\(recipe) as written:\n\(step)\n\(result.summary)")
            }
        }
    }

}
