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
