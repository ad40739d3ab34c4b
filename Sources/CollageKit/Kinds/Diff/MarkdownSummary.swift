/// `--diff --markdown PATH`: the run's summary in GitHub-flavoured
/// Markdown, for a pull-request comment or `$GITHUB_STEP_SUMMARY`: a
/// heading saying how many pairs fail, the count of each status, then a
/// table row per pair that is not `unchanged` in the sheets' order (every
/// pair of a group listed, with its group's number), and one per pair that
/// could not be read. Files are linked relative to PATH's folder
/// (`PageLinks`), so the summary and the pictures can move together. When
/// something differs it ends with the command that approves: the review
/// page's decisions (`--approve-from`) when there is a page, else
/// `--approve` (every pair that fails).
enum MarkdownSummary {
    static func text(_ pairs: [ComparedPair], unreadable: [JUnitReport.Unreadable], page: PathName,
                     run: DiffReviewPage.Run = DiffReviewPage.Run(baseline: "base", inputs: ["shots"]),
                     review: PathName? = nil) -> [UInt8] {
        let links = PageLinks(page: page)
        var counts = PairCounts()
        for pair in pairs { counts.count(pair.status, fails: pair.fails) }
        let total = pairs.count + unreadable.count
        var lines = ["## Visual diff: " + (counts.failing == 0 && unreadable.isEmpty
            ? "nothing fails (\(total) screenshot(s) compared)"
            : "\(counts.failing) of \(total) screenshot(s) differ" + (unreadable.isEmpty ? "" : ", \(unreadable.count) unreadable")),
                     ""]
        lines.append(PairStatus.allCases.filter { counts[$0] > 0 }.map { status in
            counts[status] > 0 && pairs.contains { $0.status == status && $0.fails } ? "**\(counts[status]) \(status.rawValue)**"
                : "\(counts[status]) \(status.rawValue)"
        }.joined(separator: " · "))
        let shown = pairs.filter { $0.status != .unchanged }.sorted(by: ComparedPair.moreChanged)
        if !shown.isEmpty || !unreadable.isEmpty {
            lines += ["", "| | screenshot | status | pixels | moved | group | files |", "| --- | --- | --- | ---: | --- | ---: | --- |"]
        }
        for pair in shown {
            var files: [String] = []
            if pair.status != .added { files.append("[baseline](\(links.href(pair.baseline)))") }
            if pair.status != .removed { files.append("[current](\(links.href(pair.path)))") }
            if let picture = pair.differencePicture { files.append("[difference](\(links.href(picture)))") }
            let pixels = pair.status == .added || pair.status == .removed ? ""
                : "\(pair.pixels) (\(DiffText.percent(pair.percent)))"
            let moved = pair.shifts.isEmpty ? (pair.size.map { "size " + $0 } ?? "")
                : DiffText.shifts(pair.shifts) + (pair.size.map { "; size " + $0 } ?? "")
            lines.append("| \(pair.fails ? "❌" : "⚠️") | \(escape(pair.relative.description)) | \(pair.status.rawValue) | "
                         + "\(pixels) | \(escape(moved)) | \(pair.group.map(String.init) ?? "") | "
                         + files.joined(separator: " · ") + " |")
        }
        for item in unreadable {
            lines.append("| ❌ | \(escape(item.relative.description)) | unreadable | | \(escape(item.message)) | | |")
        }
        if !shown.isEmpty {
            if let review {
                lines += ["", "To approve the changes that are right, tick them on the review page "
                          + "([\(escape(String(decoding: review.lastComponent, as: UTF8.self)))](\(links.href(review)))), save its "
                          + "`decisions.json` where BASELINE and INPUT are, and run:", "", "```sh", run.command, "```"]
            } else {
                let command = (["collage", "--diff", run.baseline] + run.inputs + ["--approve"]).map(shellWord)
                lines += ["", "To make every failing screenshot the baseline, run:", "", "```sh",
                          command.joined(separator: " "), "```"]
            }
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Text that stays text in a table cell: Markdown's punctuation and
    /// HTML's brackets escaped, control characters as spaces.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 { out += " "; continue }
            if "\\`*_[]<>|#!~".unicodeScalars.contains(scalar) { out += "\\" }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
