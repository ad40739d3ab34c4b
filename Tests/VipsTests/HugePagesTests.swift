import XCTest
@testable import ProcessPages

/// When the executable restarts itself with glibc asked for transparent
/// huge pages, and with what `GLIBC_TUNABLES`.
final class HugePagesTests: XCTestCase {
    private let madvise = "always [madvise] never\n"

    func testAddsTheTunableWhereTheKernelGivesHugePagesOnRequest() {
        XCTAssertEqual(ProcessPages.hugePageTunables(current: nil, transparentHugePages: madvise), "glibc.malloc.hugetlb=1")
        XCTAssertEqual(ProcessPages.hugePageTunables(current: "", transparentHugePages: madvise), "glibc.malloc.hugetlb=1")
    }

    func testKeepsTheUsersOtherTunables() {
        XCTAssertEqual(ProcessPages.hugePageTunables(current: "glibc.malloc.arena_max=4:glibc.malloc.tcache_count=0",
                                             transparentHugePages: madvise),
                       "glibc.malloc.arena_max=4:glibc.malloc.tcache_count=0:glibc.malloc.hugetlb=1")
    }

    func testLeavesAChoiceAlreadyMadeAlone() {
        // The restarted process sees its own setting: no second restart.
        XCTAssertNil(ProcessPages.hugePageTunables(current: "glibc.malloc.hugetlb=1", transparentHugePages: madvise))
        // The user's opt-out.
        XCTAssertNil(ProcessPages.hugePageTunables(current: "glibc.malloc.arena_max=4:glibc.malloc.hugetlb=0",
                                           transparentHugePages: madvise))
    }

    func testNoRestartWhenHugePagesAreNeverGivenOrAlwaysGiven() {
        XCTAssertNil(ProcessPages.hugePageTunables(current: nil, transparentHugePages: "always madvise [never]\n"))
        XCTAssertNil(ProcessPages.hugePageTunables(current: nil, transparentHugePages: "[always] madvise never\n"))
        XCTAssertNil(ProcessPages.hugePageTunables(current: nil, transparentHugePages: ""))
    }
}
