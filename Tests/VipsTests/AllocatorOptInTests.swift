import Glibc
import XCTest
@testable import Vips

/// glibc's allocator is tuned only in a process that asked for it
/// (`Vips.tuneAllocatorForBatch`, which the command line calls first thing):
/// in one that did not, as a program embedding CollageKit, a giant decode's
/// `memoryPressure(tight: true)` leaves the mmap threshold where it was.
/// This test process never asks.
final class AllocatorOptInTests: XCTestCase {
    /// glibc's `malloc_usable_size` (its header is not in Swift's Glibc).
    private typealias UsableSize = @convention(c) (UnsafeMutableRawPointer?) -> Int

    func testMemoryPressureLeavesAnAllocatorThatDidNotAsk() throws {
        try XCTSkipIf(getenv("MALLOC_MMAP_THRESHOLD_") != nil, "the environment sets the threshold: never tuned")
        let symbol = try XCTUnwrap(dlsym(nil, "malloc_usable_size"))
        let usableSize = unsafeBitCast(symbol, to: UsableSize.self)
        // Tightened, the threshold would be 48 KiB (and the heap's top
        // trimmed), so that 100 KiB blocks the heap cannot give at once
        // would each be mapped on its own: a mapped block is a whole number
        // of pages less its header (106480 usable bytes), one from the heap
        // 102408. glibc's own threshold starts at 128 KiB and only rises.
        Vips.memoryPressure(tight: true)
        defer { Vips.memoryPressure(tight: false) }
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<10 { blocks.append(malloc(100 * 1024)!) }
        let mapped = blocks.filter { usableSize($0) >= 103 * 1024 }.count
        for block in blocks { free(block) }
        XCTAssertEqual(mapped, 0, "blocks were mapped: the threshold was lowered without being asked for")
    }
}
