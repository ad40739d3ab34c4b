import FoundationEssentials

/// `--diff --html PATH`: the review page of a diff run. A heading saying how
/// many screenshots differ, the count of each status, then a row per pair
/// that is not `unchanged`, in the sheets' order (every pair of a group
/// listed, with its group's number and size): its path, status, pixels
/// (and pixelmatch's `raw`), the bands that moved or the sizes, its group,
/// a before/after picture that switches between the baseline and the
/// current image when clicked, and its difference picture; then a row per
/// pair that could not be read, and the unchanged pairs, folded.
///
/// One HTML file with its CSS and a few lines of script inline: it works
/// offline, from a file, with nothing fetched but the pictures, which are
/// linked relative to the page's folder (`PageLinks`: percent-encoded) so
/// the page and the pictures can move together. Every name shown is
/// HTML-escaped. Without its script the page still shows every baseline
/// and links every file; the script adds the switch (a button, a click on
/// the picture, or `b` for every row at once).
///
/// Deciding on the page: each row has an "approve" box (and "as an
/// alternative" where the pair has both sides), and the page shows the
/// decisions as the JSON `--approve-from` reads (`ApprovalDecisions`),
/// kept up to date as boxes are ticked, and offers it as a `data:` link
/// saved as `decisions.json`. Each row carries the SHA-256 of its current
/// file, read when the page is written: the file the reviewer sees.
enum DiffReviewPage {
    /// What the decisions name besides the pairs: the run's BASELINE and
    /// INPUT as given.
    struct Run {
        let baseline: String
        let inputs: [String]

        /// The command that applies the decisions, for a shell.
        var command: String {
            (["collage", "--diff", baseline] + inputs + ["--approve-from", "decisions.json"]).map(shellWord)
                .joined(separator: " ")
        }
    }

    static func page(_ pairs: [ComparedPair], unreadable: [JUnitReport.Unreadable], page: PathName, run: Run,
                     threads: Int = 1) -> [UInt8] {
        let known = digests(pairs, threads: threads)
        return Self.page(pairs, unreadable: unreadable, link: PageLinks(page: page).href, run: run,
                         digest: { known[$0] ?? SHA256.hex(ofFile: $0) })
    }

    static func page(_ pairs: [ComparedPair], unreadable: [JUnitReport.Unreadable],
                     link: (PathName) -> String, run: Run = Run(baseline: "base", inputs: ["shots"]),
                     digest: (PathName) -> String? = { _ in nil }) -> [UInt8] {
        var counts = PairCounts()
        for pair in pairs { counts.count(pair.status, fails: pair.fails) }
        let total = pairs.count + unreadable.count
        let heading = counts.failing == 0 && unreadable.isEmpty
            ? "Visual diff: nothing fails (\(total) screenshot(s) compared)"
            : "Visual diff: \(counts.failing) of \(total) screenshot(s) differ"
                + (unreadable.isEmpty ? "" : ", \(unreadable.count) unreadable")
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width\">\n"
        html += "<title>\(escape(heading))</title>\n<style>\n\(style)\n</style>\n</head>\n<body>\n"
        html += "<h1>\(escape(heading))</h1>\n<p class=\"counts\">"
        html += PairStatus.allCases.filter { counts[$0] > 0 }.map { status in
            let fails = pairs.contains { $0.status == status && $0.fails }
            return "<span class=\"count \(status.rawValue)\(fails ? " fails" : "")\" data-status=\"\(status.rawValue)\">"
                + "\(counts[status]) \(status.rawValue)</span>"
        }.joined(separator: " · ")
        if !unreadable.isEmpty {
            html += (counts.total > 0 ? " · " : "") + "<span class=\"count unreadable fails\" data-status=\"unreadable\">"
                + "\(unreadable.count) unreadable</span>"
        }
        html += "</p>\n"
        let shown = pairs.filter { $0.status != .unchanged }.sorted(by: ComparedPair.moreChanged)
        var sizes: [Int: Int] = [:]
        for pair in pairs { if let group = pair.group { sizes[group, default: 0] += 1 } }
        if !shown.isEmpty || !unreadable.isEmpty {
            html += "<p class=\"help\">Click a picture, or its button, to switch between the baseline and the "
                + "current image; <button type=\"button\" id=\"flip-all\">switch all</button> (or press <kbd>b</kbd>).</p>\n"
            html += "<table class=\"pairs\">\n<thead><tr><th>screenshot</th><th>status</th><th>pixels</th><th>moved</th>"
                + "<th>group</th><th>baseline / current</th><th>difference</th><th>decision</th></tr></thead>\n<tbody>\n"
            for (index, pair) in shown.enumerated() {
                html += row(pair, id: index + 1, groupSize: pair.group.flatMap { sizes[$0] } ?? 1, link: link,
                            digest: pair.status == .removed ? nil : digest(pair.path))
            }
            for item in unreadable {
                html += "<tr class=\"pair unreadable fails\" data-status=\"unreadable\"><td class=\"path\">"
                    + "\(escape(item.relative.description))</td><td class=\"status\">unreadable</td><td></td>"
                    + "<td class=\"message\" colspan=\"4\">\(escape(item.message))</td></tr>\n"
            }
            html += "</tbody>\n</table>\n"
        }
        if !shown.isEmpty { html += decisions(run) }
        let unchanged = pairs.filter { $0.status == .unchanged }.sorted(by: ComparedPair.moreChanged)
        if !unchanged.isEmpty {
            html += "<details class=\"unchanged\"><summary>\(unchanged.count) unchanged</summary>\n<table>\n<tbody>\n"
            for pair in unchanged {
                html += "<tr class=\"pair unchanged\" data-status=\"unchanged\"><td class=\"path\">"
                    + "\(escape(pair.relative.description))</td><td class=\"status\">unchanged</td><td class=\"files\">"
                    + "<a href=\"\(escape(link(pair.baseline)))\">baseline</a> · "
                    + "<a href=\"\(escape(link(pair.path)))\">current</a></td></tr>\n"
            }
            html += "</tbody>\n</table>\n</details>\n"
        }
        html += "<script>\n\(script)\n</script>\n</body>\n</html>\n"
        return Array(html.utf8)
    }

    /// One pair's row: its numbers, the before/after picture, the difference.
    static func row(_ pair: ComparedPair, id: Int, groupSize: Int, link: (PathName) -> String,
                    digest: String? = nil) -> String {
        let name = escape(pair.relative.description)
        let status = pair.status.rawValue
        var html = "<tr id=\"pair-\(id)\" class=\"pair \(status)\(pair.fails ? " fails" : "")\" data-status=\"\(status)\">\n"
        var files: [String] = []
        if pair.status != .added { files.append("<a class=\"baseline\" href=\"\(escape(link(pair.baseline)))\">baseline</a>") }
        if pair.status != .removed { files.append("<a class=\"current\" href=\"\(escape(link(pair.path)))\">current</a>") }
        if let picture = pair.differencePicture {
            files.append("<a class=\"difference\" href=\"\(escape(link(picture)))\">difference</a>")
        }
        html += "<td class=\"path\"><span class=\"name\">\(name)</span><br><span class=\"files\">"
            + files.joined(separator: " · ") + "</span></td>\n"
        html += "<td class=\"status\"><span class=\"badge\">\(status)</span></td>\n"
        let whole = pair.status == .added || pair.status == .removed
        html += "<td class=\"pixels\">" + (whole ? "" : "\(pair.pixels) (\(DiffText.percent(pair.percent)))"
            + (pair.raw > 0 ? "<br><span class=\"raw\" title=\"what pixelmatch counts\">raw \(pair.raw)</span>" : ""))
            + "</td>\n"
        var moved: [String] = []
        if !pair.shifts.isEmpty { moved.append(DiffText.shifts(pair.shifts)) }
        if let size = pair.size { moved.append("size " + size) }
        html += "<td class=\"moved\">\(escape(moved.joined(separator: "; ")))</td>\n"
        html += "<td class=\"group\">" + (pair.group.map { group in
            "\(group)" + (groupSize > 1 ? "<br><span class=\"members\">same change in \(groupSize) screenshots</span>" : "")
        } ?? "") + "</td>\n"
        html += "<td class=\"flip\">" + flip(pair, name: name, link: link) + "</td>\n"
        html += "<td class=\"difference\">" + (pair.differencePicture.map { picture in
            "<a href=\"\(escape(link(picture)))\"><img class=\"difference\" src=\"\(escape(link(picture)))\" "
                + "alt=\"difference of \(name)\" loading=\"lazy\"></a>"
        } ?? "<span class=\"none\">no picture</span>") + "</td>\n"
        html += "<td class=\"decide\">" + decide(pair, name: name, digest: digest) + "</td>\n"
        return html + "</tr>\n"
    }

    /// The before/after picture: both images, the current one hidden until
    /// switched to; an added or removed pair shows the side it has.
    static func flip(_ pair: ComparedPair, name: String, link: (PathName) -> String) -> String {
        let hasBaseline = pair.status != .added, hasCurrent = pair.status != .removed
        let shows = hasBaseline ? "baseline" : "current"
        var html = "<figure class=\"flip\" data-show=\"\(shows)\"\(hasBaseline && hasCurrent ? "" : " data-one=\"\"")>"
        if hasBaseline {
            html += "<img class=\"baseline\" src=\"\(escape(link(pair.baseline)))\" alt=\"baseline of \(name)\" loading=\"lazy\">"
        }
        if hasCurrent {
            html += "<img class=\"current\" src=\"\(escape(link(pair.path)))\" alt=\"current \(name)\" loading=\"lazy\""
                + (hasBaseline ? " hidden" : "") + ">"
        }
        let label = hasBaseline && hasCurrent ? "baseline" : hasBaseline ? "baseline (removed)" : "current (added)"
        html += "<figcaption><button type=\"button\" class=\"toggle\"\(hasBaseline && hasCurrent ? "" : " disabled")>"
            + "\(label)</button></figcaption></figure>"
        return html
    }

    /// Text made safe inside an element or a quoted attribute.
    static func escape(_ text: String) -> String { HTMLIndex.escape(text) }

    static let style = """
        body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; background: #f6f6f6; }
        h1 { font-size: 1.3em; margin: 0 0 .5em; }
        .count { padding: .1em .5em; border-radius: 1em; background: #e4e4e4; }
        .count.fails { background: #c62828; color: #fff; font-weight: 600; }
        .help { color: #555; }
        table.pairs { border-collapse: collapse; width: 100%; background: #fff; }
        th, td { border-bottom: 1px solid #ddd; padding: .5em; text-align: left; vertical-align: top; }
        th { background: #eee; position: sticky; top: 0; z-index: 1; }
        td.pixels { text-align: right; white-space: nowrap; }
        td.path .name { font-weight: 600; word-break: break-all; }
        .raw, .members, .files, .none { color: #666; font-size: .9em; }
        .badge { padding: .1em .5em; border-radius: .3em; background: #ddd; }
        tr.fails .badge { background: #c62828; color: #fff; }
        tr.noise .badge { background: #f0d060; }
        tr.shifted .badge { background: #1e63b5; color: #fff; }
        td.flip, td.difference { width: 30%; }
        [hidden] { display: none !important; }
        figure.flip { margin: 0; cursor: pointer; }
        figure.flip[data-one] { cursor: default; }
        td img { display: block; max-width: 100%; max-height: 80vh; min-height: 2em; border: 1px solid #bbb;
                 background: #fff; }
        figure.flip[data-show="current"] img { outline: 3px solid #1e63b5; outline-offset: -3px; }
        figcaption { margin-top: .3em; }
        td.decide { white-space: nowrap; }
        td.decide label.alternative { color: #555; font-size: .9em; }
        tr.approved td { background: #eef7ee; }
        #decisions { margin-top: 1.5em; padding: .5em 1em; background: #fff; border: 1px solid #ddd; }
        #decisions h2 { font-size: 1.1em; }
        #decisions pre { background: #f0f0f0; padding: .5em; overflow-x: auto; user-select: all; }
        details.unchanged { margin-top: 1.5em; }
        """

    /// The switch: a row's button or picture flips it; "switch all" or `b`
    /// flips every row to the same side.
    static let script = """
        function show(f, side) {
          if (f.hasAttribute('data-one')) return;
          f.dataset.show = side;
          for (const img of f.querySelectorAll('img')) img.hidden = !img.classList.contains(side);
          f.querySelector('button').textContent = side;
        }
        function flip(f) { show(f, f.dataset.show === 'baseline' ? 'current' : 'baseline'); }
        function flipAll() {
          const all = [...document.querySelectorAll('figure.flip:not([data-one])')];
          const side = all.length && all[0].dataset.show === 'baseline' ? 'current' : 'baseline';
          for (const f of all) show(f, side);
        }
        document.addEventListener('click', e => {
          if (e.target.id === 'flip-all') { flipAll(); return; }
          const f = e.target.closest('figure.flip');
          if (f) { e.preventDefault(); flip(f); }
        });
        document.addEventListener('keydown', e => {
          if (e.key === 'b' && !e.ctrlKey && !e.metaKey && !e.altKey && !e.target.closest('input')) flipAll();
        });
        function decide() {
          const section = document.getElementById('decisions');
          if (!section) return;
          const approve = [];
          for (const row of document.querySelectorAll('tr.pair')) {
            const box = row.querySelector('input.approve'), alt = row.querySelector('input.alternative');
            if (!box) continue;
            row.classList.toggle('approved', box.checked);
            if (!box.checked) continue;
            const pair = box.dataset.pathBase64 !== undefined ? {path_base64: box.dataset.pathBase64} : {path: box.dataset.path};
            pair.sha256 = box.dataset.sha256 || null;
            pair.alternative = !!(alt && alt.checked);
            approve.push(pair);
          }
          const json = JSON.stringify({decisions: 'collage --diff', version: 1, baseline: section.dataset.baseline,
                                       input: JSON.parse(section.dataset.input), approve: approve}, null, 2) + '\\n';
          document.getElementById('decisions-json').textContent = json;
          document.getElementById('decisions-count').textContent = approve.length + ' approved';
          document.getElementById('decisions-download').href = 'data:application/json;charset=utf-8,' + encodeURIComponent(json);
        }
        document.addEventListener('change', e => {
          const row = e.target.closest('tr.pair');
          if (row && e.target.classList.contains('alternative') && e.target.checked) row.querySelector('input.approve').checked = true;
          if (row && e.target.classList.contains('approve') && !e.target.checked) {
            const alt = row.querySelector('input.alternative');
            if (alt) alt.checked = false;
          }
          decide();
        });
        decide();
        """
}
