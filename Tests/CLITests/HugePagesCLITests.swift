import Foundation
import Glibc
import XCTest

/// A run of many collages restarts itself, once and in the same process,
/// with glibc asked for transparent huge pages
/// (`ProcessPages.restartWithHugePagesIfUseful`), keeping the user's other tunables;
/// an explicit choice is left alone, and one collage does not restart. Seen with
/// strace: the second execve and its environment, and glibc then reading
/// the kernel's huge page size, which it does only when asked to use them.
/// The same runs, and only they, take the pages of the libraries' loading
/// out of the resident set (`ProcessPages.releaseReadOnlyFilePages`), which reads
/// /proc/self/smaps.
final class HugePagesCLITests: CLITestCase {
    func testTheRunRestartsItselfWithHugePagesKeepingOtherTunables() throws {
        let trace = try tracedRun(tunables: "glibc.malloc.arena_max=3")
        let restarts = trace.filter { $0.contains("execve(\"/proc/self/exe\"") }
        XCTAssertEqual(restarts.count, 1, "one restart:\n" + trace.joined(separator: "\n"))
        XCTAssertTrue(restarts.first?.contains("\"GLIBC_TUNABLES=glibc.malloc.arena_max=3:glibc.malloc.hugetlb=1\"")
                      ?? false, String(restarts.first ?? ""))
        XCTAssertTrue(trace.contains { $0.contains("transparent_hugepage/hpage_pmd_size") },
                      "glibc, restarted, reads the huge page size")
        XCTAssertEqual(trace.filter { $0.contains("\"/proc/self/smaps\"") }.count, 1,
                       "the restarted run releases the libraries' pages, once")
    }

    func testAnOptOutIsLeftAlone() throws {
        let trace = try tracedRun(tunables: "glibc.malloc.hugetlb=0")
        XCTAssertFalse(trace.contains { $0.contains("execve(\"/proc/self/exe\"") }, trace.joined(separator: "\n"))
        XCTAssertFalse(trace.contains { $0.contains("hpage_pmd_size") })
    }

    func testOneCollageDoesNotRestart() throws {
        let trace = try tracedRun(tunables: "glibc.malloc.arena_max=3", sheets: false)
        XCTAssertFalse(trace.contains { $0.contains("execve(\"/proc/self/exe\"") }, trace.joined(separator: "\n"))
        XCTAssertFalse(trace.contains { $0.contains("\"/proc/self/smaps\"") }, "one collage keeps its pages")
    }

    /// A whole run (sheets of two images, or one collage of them) under
    /// strace; its log's lines.
    private func tracedRun(tunables: String, sheets: Bool = true) throws -> [Substring] {
        guard haveProgram("strace") else { throw XCTSkip("strace is not installed") }
        let mode = (try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8)) ?? ""
        try XCTSkipUnless(mode.contains("[madvise]"), "this kernel's transparent huge pages are not 'madvise': no restart")
        makeFolder("in")
        writeImage(palette[0], to: "in/a.png")
        writeImage(palette[1], to: "in/b.png")
        let log = path("strace.log")
        let output = sheets ? "out-{n}.png" : "out.png"
        let written = sheets ? "out-0001.png" : "out.png"
        let result = try runProcess([b("strace"), b("-f"), b("-v"), b("-s"), b("4096"), b("-e"), b("trace=execve,openat"),
                                     b("-o"), b(log)] + command((sheets ? [b("--sheets")] : []) + [b("in"), b("-o"), b(output)]),
                                    directory: dir, environment: ["GLIBC_TUNABLES": tunables])
        XCTAssertEqual(result.status, 0, result.summary)
        XCTAssertEqual(result.stdoutText, written + "\n")
        XCTAssertNotNil(decoded(b(written)))
        let lines = String(decoding: contents(b(log)) ?? [], as: UTF8.self).split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 10, "strace wrote its log")
        return lines
    }
}
