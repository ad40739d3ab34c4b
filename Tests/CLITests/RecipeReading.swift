import Foundation
import Glibc
import XCTest

/// Reading the recipes out of the Markdown, and the inputs each names.
extension RecipeTests {
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
    /// project's scripts, one on PATH, or a shell assignment of a command's
    /// output. Not `import`: the first word of the Swift the docs show, and
    /// ImageMagick's screen grabber where ImageMagick is installed (as
    /// scripts/bench installs it), which no recipe runs.
    static func isCommand(_ line: String) -> Bool {
        guard let word = line.split(separator: " ").first.map(String.init), word != "import" else { return false }
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
            shot() { [ -f "$CACHE/shot-$1.png" ] || { mkdir -p "$CACHE"; vips thumbnail "$SAMPLES/$1.jpg" "$CACHE/shot-$1.png" 160; }
              mkdir -p "$(dirname "$2")"; cp "$CACHE/shot-$1.png" "$2"; }
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
}
