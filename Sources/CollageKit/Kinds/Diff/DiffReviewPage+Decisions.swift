import Dispatch
import FoundationEssentials
import Locking

/// The review page's decisions: a row's boxes, the JSON kept up to date
/// below the rows, its download and the command that applies it
/// (`--approve-from`).
extension DiffReviewPage {
    /// The digests of the current files of the pairs shown with a box
    /// (not unchanged, not removed; nil for one that cannot be read), on
    /// `threads` threads (the run's jobs; at most 2): the page is written
    /// at the end of the run, and each file is read whole.
    static func digests(_ pairs: [ComparedPair], threads: Int) -> [PathName: String?] {
        let hashed = pairs.filter { $0.status != .unchanged && $0.status != .removed }.map(\.path)
        let digests = Locked([PathName: String?]())
        let lanes = max(1, min(threads, 2, hashed.count))
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for index in stride(from: lane, to: hashed.count, by: lanes) {
                let digest = SHA256.hex(ofFile: hashed[index])
                digests.withLock { $0[hashed[index]] = digest }
            }
        }
        return digests.withLock { $0 }
    }

    /// A row's boxes: "approve", and "as an alternative" when the pair has
    /// a baseline to keep and a current image to take its place. A pair
    /// whose current file could not be read for its digest cannot be
    /// approved from the page.
    static func decide(_ pair: ComparedPair, name: String, digest: String?) -> String {
        guard pair.status == .removed || digest != nil else {
            return "<span class=\"none\">cannot be read now</span>"
        }
        let path = pair.relative.isValidUTF8 ? "data-path=\"\(escape(pair.relative.description))\""
            : "data-path-base64=\"\(Data(pair.relative.bytes).base64EncodedString())\""
        var html = "<label><input type=\"checkbox\" class=\"approve\" \(path) data-sha256=\"\(digest ?? "")\" "
            + "aria-label=\"approve \(name)\"> approve</label>"
        if pair.status != .added && pair.status != .removed {
            html += "<br><label class=\"alternative\"><input type=\"checkbox\" class=\"alternative\" "
                + "aria-label=\"approve \(name) as an alternative\"> as an alternative</label>"
        }
        return html
    }

    /// The decisions, below the rows: the JSON as it stands (none ticked
    /// yet, before the script runs), its download, and the command.
    static func decisions(_ run: Run) -> String {
        let empty = ApprovalDecisions(baseline: run.baseline, inputs: run.inputs, decisions: [])
        let inputs = "[" + run.inputs.map(ApprovalDecisions.jsonString).joined(separator: ",") + "]"
        var html = "<section id=\"decisions\" data-baseline=\"\(escape(run.baseline))\" data-input=\"\(escape(inputs))\">\n"
        html += "<h2>Decisions</h2>\n<p>Tick <b>approve</b> on each row whose change is right (and <b>as an "
            + "alternative</b> to keep the old baseline as an accepted state too). Then save "
            + "<a id=\"decisions-download\" download=\"decisions.json\" href=\"data:application/json;charset=utf-8,"
            + escape(percentEncoded(String(decoding: empty.json(), as: UTF8.self))) + "\">decisions.json</a> "
            + "(or copy the text below into it) and run, where BASELINE and INPUT are:</p>\n"
        html += "<pre id=\"decisions-command\"><code>\(escape(run.command))</code></pre>\n"
        html += "<p id=\"decisions-count\">0 approved</p>\n"
        html += "<pre id=\"decisions-json\">" + escape(String(decoding: empty.json(), as: UTF8.self)) + "</pre>\n"
        return html + "</section>\n"
    }

    /// As `encodeURIComponent` writes it.
    static func percentEncoded(_ text: String) -> String {
        let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()".utf8)
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            if kept.contains(byte) { out.append(byte) } else {
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A word as a POSIX shell reads it back: as it is when it holds nothing
/// the shell treats specially, else in single quotes.
func shellWord(_ word: String) -> String {
    let plain = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./:=@%+,".utf8)
    if !word.isEmpty, word.utf8.allSatisfy(plain.contains) { return word }
    return "'" + word.replacing("'", with: "'\\''") + "'"
}
