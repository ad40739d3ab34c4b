import ToneMap
import XCTest

/// The tone mapper on constructed pixels: PQ's reference white and HLG's
/// 75% come out near sRGB's white, black stays black, a ramp stays a ramp,
/// BT.2020's primaries land inside sRGB with their hue, and the layouts
/// (interleaved, planar) agree.
final class ToneMapTests: XCTestCase {
    private let pq = ToneMap.Source(transfer: 16, primaries: 9)
    private let hlg = ToneMap.Source(transfer: 18, primaries: 9)

    /// PQ's code value for `nits`, as a `bits`-bit sample.
    private func pqCode(_ nits: Double, bits: Int = 10) -> UInt16 {
        // Inverse of the EOTF, by bisection on ToneMap.linearise (monotonic).
        var low = 0.0, high = 1.0
        for _ in 0..<60 {
            let mid = (low + high) / 2
            if ToneMap.linearise(mid, transfer: 16) < nits { low = mid } else { high = mid }
        }
        return UInt16((low * Double((1 << bits) - 1)).rounded())
    }

    /// Grey pixels of the given samples, mapped: one output pixel each.
    private func map(_ samples: [UInt16], bits: Int = 10, source: ToneMap.Source) throws -> [[UInt8]] {
        let interleaved = samples.flatMap { [$0, $0, $0] }
        let out = try XCTUnwrap(interleaved.withUnsafeBufferPointer {
            ToneMap.sRGB8([$0], layout: .interleaved(channels: 3), width: samples.count, height: 1,
                          rowStride: samples.count * 3, bits: bits, source: source)
        })
        return stride(from: 0, to: out.count, by: 3).map { Array(out[$0..<$0 + 3]) }
    }

    func testPQReferenceWhiteComesOutNearWhiteAndNeutral() throws {
        let pixel = try map([pqCode(203)], source: pq)[0]
        XCTAssertEqual(pixel[0], pixel[1])
        XCTAssertEqual(pixel[1], pixel[2])
        XCTAssertGreaterThan(pixel[0], 215, "203 cd/m² is SDR's white")
        XCTAssertLessThan(pixel[0], 250, "the knee leaves room for highlights above it")
    }

    func testHLGSeventyFivePercentComesOutNearDiffuseWhite() throws {
        let pixel = try map([UInt16((0.75 * 1023).rounded())], source: hlg)[0]
        XCTAssertEqual(pixel[0], pixel[2])
        XCTAssertGreaterThan(pixel[0], 215)
        XCTAssertLessThan(pixel[0], 250)
    }

    func testBlackStaysBlackAndThePeakIsWhite() throws {
        XCTAssertEqual(try map([0], source: pq)[0], [0, 0, 0])
        XCTAssertEqual(try map([0], source: hlg)[0], [0, 0, 0])
        XCTAssertEqual(try map([1023], source: hlg)[0], [255, 255, 255])
        XCTAssertEqual(try map([pqCode(1000)], source: pq)[0], [255, 255, 255], "the source's peak is white")
    }

    func testARampStaysARamp() throws {
        for source in [pq, hlg] {
            let out = try map((0...1023).map { UInt16($0) }, source: source).map { Int($0[0]) }
            for i in 1..<out.count { XCTAssertGreaterThanOrEqual(out[i], out[i - 1], "at \(i), \(source)") }
            XCTAssertGreaterThan(out[300], 0, "shadows are not crushed")
        }
    }

    /// A brighter mastering display leaves more room: the same 600 cd/m²
    /// pixel is darker when the grade went up to 4000 than up to 1000.
    func testTheMasteringPeakIsHonoured() throws {
        let bright = ToneMap.Source(transfer: 16, primaries: 9, masteringPeak: 4000)
        let grade1000 = try map([pqCode(600)], source: pq)[0][0], grade4000 = try map([pqCode(600)], source: bright)[0][0]
        XCTAssertLessThan(grade4000, grade1000)
        XCTAssertEqual(ToneMap.Source(transfer: 16, primaries: 9, masteringPeak: 4000, maxContentLight: 1500).peak, 1500)
        XCTAssertEqual(hlg.peak, 1000)
    }

    /// BT.2020's pure red is outside sRGB: it comes out red, its
    /// luminance kept, with no channel hard-clipped at 0 by itself.
    func testBT2020RedIsMappedIntoSRGBWithItsHue() {
        let red = ToneMap.mapLinear((100, 0, 0), source: pq)
        XCTAssertGreaterThan(red.0, red.1)
        XCTAssertGreaterThan(red.0, red.2)
        for c in [red.0, red.1, red.2] { XCTAssertTrue((0...1).contains(c)) }
        let luminance = 0.2126 * red.0 + 0.7152 * red.1 + 0.0722 * red.2
        XCTAssertEqual(luminance, 0.2627 * 100 / 203, accuracy: 0.01, "BT.2020 red's luminance, below the knee")
        let green = ToneMap.mapLinear((0, 50, 0), source: pq)
        XCTAssertGreaterThan(green.1, green.0)
        // Both of sRGB's other channels go negative; desaturated towards its
        // luminance, the most negative reaches 0 and the other stays above.
        XCTAssertEqual(green.0, 0, accuracy: 1e-9)
        XCTAssertGreaterThan(green.2, 0.01, "not clipped channel by channel")
        XCTAssertEqual(0.2126 * green.0 + 0.7152 * green.1 + 0.0722 * green.2, 0.6780 * 50 / 203, accuracy: 0.01)
    }

    func testPlanarAndInterleavedAgreeAndSDRPassesThrough() throws {
        let r: [UInt16] = [10, 500, 1000, 70], g: [UInt16] = [900, 20, 400, 70], b: [UInt16] = [300, 300, 5, 1023]
        let interleaved = (0..<4).flatMap { [r[$0], g[$0], b[$0]] }
        let a = interleaved.withUnsafeBufferPointer {
            ToneMap.sRGB8([$0], layout: .interleaved(channels: 3), width: 2, height: 2, rowStride: 6, bits: 10, source: pq)
        }
        let p = r.withUnsafeBufferPointer { rp in
            g.withUnsafeBufferPointer { gp in
                b.withUnsafeBufferPointer { bp in
                    ToneMap.sRGB8([rp, gp, bp], layout: .planar, width: 2, height: 2, rowStride: 2, bits: 10, source: pq)
                }
            }
        }
        XCTAssertNotNil(a)
        XCTAssertEqual(a, p)
        let sdr = ToneMap.Source(transfer: 1, primaries: 1)
        XCTAssertFalse(sdr.needsMapping)
        XCTAssertEqual(try map([0, 64, 255], bits: 8, source: sdr).map { $0[0] }, [0, 64, 255])
        XCTAssertNil([UInt16](repeating: 0, count: 5).withUnsafeBufferPointer {
            ToneMap.sRGB8([$0], layout: .interleaved(channels: 3), width: 2, height: 1, rowStride: 6, bits: 10, source: pq)
        }, "a buffer too short for its shape")
    }
}
