import CPNG
import XCTest

/// CPNG's inflate (the pages' PNG data) against zlib's on streams written
/// here bit by bit: what zlib accepts it accepts with the same bytes, and
/// each thing zlib refuses it refuses, the ones libdeflate lets through
/// (more than 286 length codes, a code-length repeat past the end) among
/// them.
final class InflateTests: XCTestCase {
    /// Bits as deflate packs them: values from their lowest bit, Huffman
    /// codes from their highest.
    private struct Bits {
        var bytes: [UInt8] = []
        private var used = 8

        mutating func put(_ value: Int, _ count: Int) {
            for i in 0..<count {
                if used == 8 { bytes.append(0); used = 0 }
                if (value >> i) & 1 == 1 { bytes[bytes.count - 1] |= 1 << used }
                used += 1
            }
        }

        mutating func code(_ code: Int, _ length: Int) {
            for i in (0..<length).reversed() { put((code >> i) & 1, 1) }
        }
    }

    /// zlib's answer and ours for `stream` made into `size` bytes: equal
    /// (the bytes too, when accepted), and that answer.
    private func inflated(_ stream: [UInt8], _ size: Int, _ name: String,
                          file: StaticString = #filePath, line: UInt = #line) -> [UInt8]? {
        var zlib = [UInt8](repeating: 1, count: size), ours = [UInt8](repeating: 2, count: size), made = 0
        let expected = cpng_inflate_zlib(stream, stream.count, &zlib, size, &made)
        let got = cpng_inflate(stream, stream.count, &ours, size)
        XCTAssertEqual(got, expected, "\(name): zlib's answer", file: file, line: line)
        if expected == 0 { XCTAssertEqual(ours, zlib, name, file: file, line: line) }
        return got == 0 ? ours : nil
    }

    /// A fixed-code block: literals and (length, distance) matches, then the end.
    private func fixed(_ symbols: [(Int, Int?)], final: Bool = true) -> Bits {
        var bits = Bits()
        bits.put(final ? 1 : 0, 1)
        bits.put(1, 2)
        for (symbol, distance) in symbols + [(256, nil)] {
            switch symbol {
            case 0..<144: bits.code(0x30 + symbol, 8)
            case 144..<256: bits.code(0x190 + symbol - 144, 9)
            case 256..<280: bits.code(symbol - 256, 7)
            default: bits.code(0xC0 + symbol - 280, 8)
            }
            if let distance { bits.code(distance, 5) }  // symbols of no extra bits only
        }
        return bits
    }

    func testFixedCodesMatchesAndTheirLimits() {
        // "ab", then a match of 10 (symbol 264) two back (distance code 1), of 3 (257) four back (code 3).
        let stream = fixed([(97, nil), (98, nil), (264, 1), (257, 3)]).bytes
        XCTAssertEqual(inflated(stream, 15, "matches").map { String(decoding: $0, as: UTF8.self) }, "abababababababa")
        XCTAssertNil(inflated(stream, 14, "one byte short of room"))
        XCTAssertNil(inflated(stream, 16, "one byte left unfilled"))
        XCTAssertNil(inflated(stream + [0], 15, "a byte after the last block"))
        XCTAssertNil(inflated(Array(stream.dropLast()), 15, "cut short"))
        XCTAssertNil(inflated(fixed([(97, nil), (286, 0)]).bytes, 4, "the fixed code's length symbol 286"))
        XCTAssertNil(inflated(fixed([(97, nil), (287, 0)]).bytes, 4, "symbol 287"))
        XCTAssertNil(inflated(fixed([(97, nil), (257, 30)]).bytes, 4, "the fixed code's distance 30"))
        XCTAssertNil(inflated(fixed([(97, nil), (257, 1)]).bytes, 4, "a distance back past the start"))
        var reserved = Bits()
        reserved.put(1, 1)
        reserved.put(3, 2)
        XCTAssertNil(inflated(reserved.bytes + [0, 0], 0, "block type 3"))
    }

    func testStoredBlocksAfterOthers() {
        var bits = fixed([(120, nil)], final: false)
        bits.put(1, 1)
        bits.put(0, 2)
        var stream = bits.bytes
        stream += [3, 0, 0xFC, 0xFF] + Array("yes".utf8)
        XCTAssertEqual(inflated(stream, 4, "stored"), Array("xyes".utf8))
        stream[stream.count - 5] = 0xFE
        XCTAssertNil(inflated(stream, 4, "a length whose complement disagrees"))
    }

    /// A dynamic block: `lengths` (the literal/length codes' then the
    /// distances', `lengthCount` of the first, `sent` in place of the
    /// list when given: symbols of the code-length code and their extra
    /// bits), then `data` (codes and bits, as `(value, count, isCode)`).
    private func dynamic(_ lengths: [Int], lengthCount: Int, distanceCount: Int? = nil, sent: [(Int, Int, Int)]? = nil,
                         data: [(Int, Int, Bool)]) -> [UInt8] {
        var bits = Bits()
        bits.put(1, 1)
        bits.put(2, 2)
        bits.put(lengthCount - 257, 5)
        bits.put((distanceCount ?? lengths.count - lengthCount) - 1, 5)
        bits.put(19 - 4, 4)
        // The code-length code: symbols 0-12 of 4 bits (codes 0-12), 13-18 of 5 (codes 26-31).
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        for symbol in order { bits.put(symbol < 13 ? 4 : 5, 3) }
        let write = { (bits: inout Bits, symbol: Int) in
            if symbol < 13 { bits.code(symbol, 4) } else { bits.code(26 + symbol - 13, 5) }
        }
        for (symbol, extra, extraBits) in sent ?? lengths.map({ ($0, 0, 0) }) {
            write(&bits, symbol)
            bits.put(extra, extraBits)
        }
        for (value, count, isCode) in data {
            if isCode { bits.code(value, count) } else { bits.put(value, count) }
        }
        return bits.bytes
    }

    /// 'a' of one bit, the end and a match of 3 of two; a distance of 1, its code one bit (incomplete, as zlib allows).
    private func lengths(end: Int = 2, distance: Int = 1) -> [Int] {
        var lengths = [Int](repeating: 0, count: 258)
        lengths[97] = 1
        lengths[256] = end
        lengths[257] = 2
        return lengths + [distance]
    }

    /// 'a', a match of 3 one back, the end: "aaaa".
    private let aaaa: [(Int, Int, Bool)] = [(0, 1, true), (3, 2, true), (0, 1, true), (2, 2, true)]

    func testDynamicCodesAsZlibTakesThem() {
        XCTAssertEqual(inflated(dynamic(lengths(), lengthCount: 258, data: aaaa), 4, "dynamic"), Array("aaaa".utf8))
        let noDistances = dynamic(lengths(distance: 0), lengthCount: 258, data: [(0, 1, true), (2, 2, true)])
        XCTAssertEqual(inflated(noDistances, 1, "no distance codes, none used"), Array("a".utf8))
        let used = dynamic(lengths(distance: 0), lengthCount: 258, data: aaaa)
        XCTAssertNil(inflated(used, 4, "no distance codes, one used"))
        // The distance's one-bit code's other half is no code.
        XCTAssertNil(inflated(dynamic(lengths(), lengthCount: 258, data: [(0, 1, true), (3, 2, true), (1, 1, true)]), 4,
                              "the missing half of a one-bit code"))
        // Repeats: 97 zeros (18 and 86), the 1, 158 zeros (18 and 127, 18 and 9), the two 2s, the distance's 1.
        let repeats = [(18, 86, 7), (1, 0, 0), (18, 127, 7), (18, 9, 7), (2, 0, 0), (2, 0, 0), (1, 0, 0)]
        XCTAssertEqual(inflated(dynamic([], lengthCount: 258, distanceCount: 1, sent: repeats, data: aaaa), 4, "repeats"),
                       Array("aaaa".utf8))
    }

    func testDynamicHeadersZlibRefuses() {
        var tooMany = lengths()
        tooMany.insert(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                       at: 258)
        XCTAssertNil(inflated(dynamic(tooMany, lengthCount: 287, data: aaaa), 4, "287 length codes"))
        XCTAssertNil(inflated(dynamic(lengths() + Array(repeating: 0, count: 30), lengthCount: 258, data: aaaa), 4,
                              "31 distance codes"))
        let past = [(18, 86, 7), (1, 0, 0), (18, 127, 7), (18, 9, 7), (2, 0, 0), (2, 0, 0), (17, 0, 3)]
        XCTAssertNil(inflated(dynamic([], lengthCount: 258, distanceCount: 1, sent: past, data: aaaa), 4,
                              "a repeat past the lengths' end"))
        let first = [(16, 0, 2)] + Array(repeating: (0, 0, 0), count: 255) + [(2, 0, 0), (2, 0, 0), (1, 0, 0)]
        XCTAssertNil(inflated(dynamic([], lengthCount: 258, distanceCount: 1, sent: first, data: aaaa), 4,
                              "a repeat with nothing before it"))
        XCTAssertNil(inflated(dynamic(lengths(end: 0), lengthCount: 258, data: aaaa), 4, "no end-of-block code"))
        var over = lengths()
        over[98] = 1
        XCTAssertNil(inflated(dynamic(over, lengthCount: 258, data: aaaa), 4, "an over-subscribed code"))
        var incomplete = lengths()
        incomplete[257] = 3
        XCTAssertNil(inflated(dynamic(incomplete, lengthCount: 258, data: aaaa), 4, "an incomplete code"))
    }

    func testAnIncompleteCodeLengthCodeIsRefused() {
        var bits = Bits()
        bits.put(1, 1)
        bits.put(2, 2)
        bits.put(1, 5)
        bits.put(0, 5)
        bits.put(0, 4)
        for length in [0, 0, 0, 1] { bits.put(length, 3) }  // symbol 0 alone, of one bit
        XCTAssertNil(inflated(bits.bytes + [0, 0, 0, 0], 1, "an incomplete code-length code"))
    }
}
