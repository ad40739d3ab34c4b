import Foundation
import Glibc
import Vips
import CollageTestSupport
import XCTest

/// fuzzing: a few hundred files mutated from the sample photos and
/// from small PNG, GIF, TIFF and WebP images made here (their bytes, and
/// their structure: `StructureMutation`), with a fixed seed
/// (SplitMix64, not the system's random numbers: the same files on every
/// machine). They go through the binary in a few --json --sheets batches.
/// For each batch: no crash (the exit status is 0, 65 or 66, never a
/// signal), no hang (the runner's timeout), every path accounted for by
/// exactly one of a `written` event's images, a `rejected` event or a
/// `failed` event, and the child's peak memory bounded.
///
/// COLLAGE_FUZZ_COUNT overrides the number of files (default 1000, about 6 s here),
/// COLLAGE_FUZZ_SEED the seed, COLLAGE_FUZZ_MEMORY_MB the memory bound. A batch that fails is copied to
/// /tmp/collage-fuzz-SEED-BATCH for a closer look.
final class FuzzTests: CLITestCase {
    private static let defaultCount = 1000
    private static let defaultSeed: UInt64 = 0xC011_A6E5
    private static let batches = 4
    private static let memoryLimitMB = 200.0

    private struct Seed {
        let name: String
        let suffix: String
        let bytes: [UInt8]
        var isJPEG: Bool { bytes.starts(with: [0xFF, 0xD8]) }
        var isPNG: Bool { bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) }
    }

    private func seeds() throws -> [Seed] {
        var seeds: [Seed] = []
        let names = try FileManager.default.contentsOfDirectory(atPath: Package.samples).filter { $0.hasSuffix(".jpg") }.sorted()
        for name in names {
            seeds.append(Seed(name: String(name.dropLast(4)), suffix: ".jpg", bytes: contents(b(Package.samples + "/" + name))!))
        }
        // A small PNG with structure (a gradient and a few bands of noise), and its GIF, TIFF and WebP kin.
        let noise = Fixture.noise(width: 96, height: 64, seed: 99)
        let small = PixelBuffer(width: 96, height: 64) { x, y in
            y % 16 < 4 ? noise.pixel(x: x, y: y) : RGB(red: UInt8(x * 2), green: UInt8(y * 3), blue: UInt8((x + y) % 256))
        }
        seeds.append(Seed(name: "small", suffix: ".png", bytes: try Encoder.encode(small, suffix: ".png").bytes))
        seeds.append(Seed(name: "small-interlaced", suffix: ".png",
                          bytes: try Encoder.encode(small, suffix: ".png[interlace]").bytes))
        seeds.append(Seed(name: "small", suffix: ".tif", bytes: try Encoder.encode(small, suffix: ".tif").bytes))
        seeds.append(Seed(name: "small", suffix: ".webp", bytes: try Encoder.encode(small, suffix: ".webp").bytes))
        seeds.append(Seed(name: "frames", suffix: ".gif",
                          bytes: Fixture.animatedGIF(width: 40, height: 30, frames: Array(palette.prefix(3)))))
        return seeds
    }

    /// An element chosen by our own generator (not the standard library's
    /// algorithm, which may change between Swift versions).
    private func pick<T>(_ items: [T], _ random: inout SplitMix64) -> T? {
        items.isEmpty ? nil : items[random.below(items.count)]
    }

    /// One mutated file: 1 to 3 mutations of the seed, and a name saying which.
    private func mutate(_ seed: Seed, _ random: inout SplitMix64) -> (bytes: [UInt8], label: String) {
        var bytes = seed.bytes
        var labels: [String] = []
        let interesting: [UInt8] = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]
        for _ in 0..<random.within(1...3) where bytes.count > 2 {
            switch random.below(10) {
            case 0:  // bit flips anywhere
                for _ in 0..<random.within(1...8) { bytes[random.below(bytes.count)] ^= UInt8(1 << random.below(8)) }
                labels.append("flip")
            case 1:  // bit flips in the headers
                let end = min(bytes.count, 1024)
                for _ in 0..<random.within(1...4) { bytes[random.below(end)] ^= UInt8(1 << random.below(8)) }
                labels.append("headflip")
            case 2:  // truncated at a random point
                bytes = Array(bytes.prefix(random.below(bytes.count)))
                labels.append("cut")
            case 3:  // a byte range duplicated
                let start = random.below(bytes.count)
                let length = random.within(1...max(1, min(4096, bytes.count - start)))
                bytes.insert(contentsOf: bytes[start..<min(bytes.count, start + length)], at: start)
                labels.append("dup")
            case 4:  // a byte range removed
                let start = random.below(bytes.count)
                let length = random.within(1...max(1, min(4096, bytes.count - start)))
                bytes.removeSubrange(start..<min(bytes.count, start + length))
                labels.append("del")
            case 5:  // a header field overwritten with an extreme value
                if seed.isJPEG, let segment = pick(Fixture.jpegSegments(bytes), &random) {
                    let offset = segment.offset + random.within(2...11)
                    if offset < bytes.count { bytes[offset] = interesting[random.below(interesting.count)] }
                    labels.append("seg\(String(segment.marker, radix: 16))")
                } else if seed.isPNG, let chunk = pick(Fixture.pngChunks(bytes), &random) {
                    let offset = chunk.offset + random.below(16)
                    if offset < bytes.count { bytes[offset] = interesting[random.below(interesting.count)] }
                    if random.below(2) == 0 { Fixture.fixCRC(&bytes, chunkAt: chunk.offset) }
                    labels.append("chunk\(chunk.type)")
                } else {
                    let offset = random.below(min(bytes.count, 64))
                    bytes[offset] = interesting[random.below(interesting.count)]
                    labels.append("field")
                }
            case 6:  // the size in the header made huge or zero
                if seed.isJPEG, let sof = Fixture.sofOffset(bytes), sof + 9 <= bytes.count {
                    let sizes = [0, 1, 16383, 32768, 65535, random.within(1...65535)]
                    let width = sizes[random.below(sizes.count)], height = sizes[random.below(sizes.count)]
                    bytes = Fixture.jpeg(bytes, claiming: width, height)
                    labels.append("sof\(width)x\(height)")
                } else if seed.isPNG, bytes.count > 33 {
                    let sizes: [UInt32] = [0, 1, 16383, 65535, 0x7FFF_FFFF, 0xFFFF_FFFF]
                    let width = sizes[random.below(sizes.count)], height = sizes[random.below(sizes.count)]
                    bytes.replaceSubrange(16..<20, with: Fixture.be32(width))
                    bytes.replaceSubrange(20..<24, with: Fixture.be32(height))
                    if random.below(4) != 0 { Fixture.fixCRC(&bytes, chunkAt: 8) }
                    labels.append("ihdr\(width)x\(height)")
                } else {
                    let offset = random.below(min(bytes.count - 1, 16))
                    bytes[offset] = 0xFF
                    bytes[offset + 1] = 0xFF
                    labels.append("size")
                }
            case 8, 9:  // a length, count, size or offset a decoder would trust
                labels.append(StructureMutation.apply(&bytes, &random))
            default:  // a whole segment or chunk removed or duplicated
                let parts: [(offset: Int, size: Int)] =
                    seed.isJPEG ? Fixture.jpegSegments(bytes).map { ($0.offset, $0.length + 2) }
                    : seed.isPNG ? Fixture.pngChunks(bytes).map { ($0.offset, $0.length + 12) } : []
                guard let part = pick(parts, &random), part.offset + part.size <= bytes.count else {
                    bytes.removeLast(min(bytes.count - 1, random.within(1...64)))
                    labels.append("tail")
                    continue
                }
                if random.below(2) == 0 {
                    bytes.removeSubrange(part.offset..<(part.offset + part.size))
                    labels.append("droppart")
                } else {
                    bytes.insert(contentsOf: bytes[part.offset..<(part.offset + part.size)], at: part.offset)
                    labels.append("duppart")
                }
            }
        }
        return (bytes, labels.joined(separator: "+"))
    }

    func testMutatedImagesNeverCrashHangOrGoUnaccounted() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["COLLAGE_FUZZ_COUNT"].flatMap { Int($0) } ?? Self.defaultCount
        let seedValue = environment["COLLAGE_FUZZ_SEED"].flatMap { UInt64($0) } ?? Self.defaultSeed
        let memoryLimit = environment["COLLAGE_FUZZ_MEMORY_MB"].flatMap { Double($0) } ?? Self.memoryLimitMB
        var random = SplitMix64(seed: seedValue)
        let sources = try seeds()
        makeFolder("fuzz")
        makeFolder("out")
        var names: [String] = []
        for index in 0..<count {
            let source = sources[index % sources.count]
            let (bytes, label) = mutate(source, &random)
            let name = String(format: "fuzz/%04d-", index) + source.name + "-" + label + source.suffix
            write(bytes, to: name)
            names.append(name)
        }

        let batchSize = (count + Self.batches - 1) / Self.batches
        var totals = (used: 0, rejected: 0, failed: 0, sheets: 0)
        var reasons: [String: Int] = [:]
        var peak = 0.0
        let started = monotonicNow()
        for (batch, start) in stride(from: 0, to: names.count, by: batchSize).enumerated() {
            let paths = Array(names[start..<min(names.count, start + batchSize)])
            settle()
            let run = try measuredCollage(["--json", "--sheets", "--max", "12", "--allow-portrait", "--size", "600x400"]
                                          + paths + ["-o", "out/batch\(batch)-{n}.jpg"], timeout: 90)
            let result = run.result
            peak = max(peak, run.maxRSSMegabytes)
            var problems: [String] = []
            if result.timedOut { problems.append("hung (killed after 90 s)") }
            if let signal = result.signal, !result.timedOut { problems.append("crashed with signal \(signal)") }
            if let status = result.status, ![0, 65, 66].contains(status) { problems.append("exit status \(status)") }
            if run.maxRSSMegabytes >= memoryLimit { problems.append("peak memory \(Int(run.maxRSSMegabytes)) MB") }

            let all = jsonEvents(result)
            var verdict: [String: [String]] = [:]
            for event in events(all, "written") {
                for image in event["images"] as? [String] ?? [] { verdict[image, default: []].append("written") }
            }
            for event in all where ["rejected", "failed"].contains(field(event, "event") ?? "") {
                guard let path = field(event, "path") else { continue }
                verdict[path, default: []].append(field(event, "event")!)
                if field(event, "event") == "failed", let error = field(event, "error") {
                    reasons[String(error.prefix(60)), default: 0] += 1
                    if (error.contains(" png") && error.contains("VipsJpeg")) || (error.contains(" jpeg") && error.contains("vipspng")) {
                        problems.append("\(path): another image's reason: \(error)")
                    }
                } else if let reason = field(event, "reason") {
                    reasons["rejected: " + reason, default: 0] += 1
                }
            }
            for path in paths where verdict[path]?.count != 1 {
                problems.append("\(path): \(verdict[path] ?? ["not accounted for"])")
            }
            for path in verdict.keys where !paths.contains(path) { problems.append("unknown path in the events: \(path)") }
            if !result.timedOut && result.signal == nil {
                XCTAssertEqual(all.last?["event"] as? String, "summary", "batch \(batch): the summary is last")
                XCTAssertEqual(all.last?["status"] as? Int, result.status.map(Int.init), "batch \(batch)")
            }
            for event in events(all, "written") {
                guard let output = field(event, "output") else { continue }
                if let sheet = decoded(output) { XCTAssertEqual([sheet.width, sheet.height], [600, 400], output) }
            }
            let summary = all.last ?? [:]
            totals.used += summary["used"] as? Int ?? 0
            totals.rejected += summary["rejected"] as? Int ?? 0
            totals.failed += summary["failed"] as? Int ?? 0
            totals.sheets += summary["written"] as? Int ?? 0
            print("fuzz batch \(batch): \(paths.count) files, exit \(result.status.map(String.init) ?? "-"), "
                  + "\(String(format1: result.elapsed)) s, peak \(Int(run.maxRSSMegabytes)) MB")
            if !problems.isEmpty {
                let keep = "/tmp/collage-fuzz-\(seedValue)-\(batch)"
                _ = try? runProcess([b("rm"), b("-rf"), b(keep)])
                mkdir(keep, 0o755)
                for path in paths { _ = try? runProcess([b("cp"), b(self.path(path)), b(keep + "/")]) }
                XCTFail("fuzz batch \(batch) (seed \(seedValue)), files kept in \(keep):\n  "
                        + problems.prefix(20).joined(separator: "\n  ") + "\n\(result.summary.prefix(4000))")
            }
        }
        let elapsed = monotonicNow() - started
        print("fuzz: \(count) files (seed \(seedValue)) in \(String(format1: elapsed)) s: \(totals.used) used on "
              + "\(totals.sheets) sheets, \(totals.rejected) rejected, \(totals.failed) failed; peak \(Int(peak)) MB")
        for (reason, number) in reasons.sorted(by: { $0.value > $1.value }).prefix(12) { print("  \(number)× \(reason)") }
        XCTAssertEqual(totals.used + totals.rejected + totals.failed, count, "every file has exactly one fate")
    }
}
