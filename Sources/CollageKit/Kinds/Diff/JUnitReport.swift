/// `--diff --junit PATH`: the pairs as a JUnit XML report, as CI systems
/// read it: one test case per pair (named by its path below the roots), a
/// failure for each whose status `--fail-on` lists, with the numbers in its
/// message (and, with `--diff-images`, `[[ATTACHMENT|PATH]]` naming its
/// difference picture in its `system-out`, which GitLab shows), an error
/// for each that could not be read; each test case's `time` is the seconds
/// its pair took to read and compare.
enum JUnitReport {
    struct Unreadable: Sendable {
        let relative: PathName
        let message: String
    }

    static func xml(_ pairs: [ComparedPair], unreadable: [Unreadable], baseline: PathName) -> [UInt8] {
        let failures = pairs.filter(\.fails).count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let counts = "tests=\"\(pairs.count + unreadable.count)\" failures=\"\(failures)\" errors=\"\(unreadable.count)\""
        xml += "<testsuites name=\"collage --diff\" \(counts)>\n"
        xml += "  <testsuite name=\"\(escape("diff against " + baseline.description))\" \(counts) skipped=\"0\">\n"
        var cases: [(PathName, String)] = pairs.map { pair in
            let time = String((pair.seconds * 1000).rounded() / 1000)
            let open = "    <testcase classname=\"collage.diff\" name=\"\(escape(pair.relative.description))\" time=\"\(time)\""
            guard pair.fails else { return (pair.relative, open + "/>\n") }
            let message = DiffText.describe(pair)
            let attachment = pair.differencePicture.map {
                "      <system-out>[[ATTACHMENT|\(escape($0.description))]]</system-out>\n"
            } ?? ""
            return (pair.relative, open + ">\n      <failure type=\"\(pair.status.rawValue)\" message=\"\(escape(message))\"/>\n"
                    + attachment + "    </testcase>\n")
        }
        cases += unreadable.map { item in
            (item.relative, "    <testcase classname=\"collage.diff\" name=\"\(escape(item.relative.description))\">\n"
                + "      <error type=\"unreadable\" message=\"\(escape(item.message))\"/>\n    </testcase>\n")
        }
        for (_, text) in cases.sorted(by: { PairOrder.precedes($0.0.bytes, $1.0.bytes) }) { xml += text }
        xml += "  </testsuite>\n</testsuites>\n"
        return Array(xml.utf8)
    }

    /// Text safe in an attribute: markup escaped as the page escapes it,
    /// and the control characters (which XML 1.0 mostly forbids) as spaces.
    static func escape(_ text: String) -> String {
        HTMLIndex.escape(String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.value < 0x20 || (0xFFFE...0xFFFF).contains($0.value) ? " " : $0
        })))
    }
}
