import FileFacts
import Vips

/// The structure checks (`Sources/FileFacts/Structure`), one target a format,
/// and the sniffing that picks the check (with the RAW one behind it).
/// Invariants: a check returns or throws `VipsError` of `.load` or
/// `.tooLarge` (corrupt or too large), the same way twice; a check that
/// says "fine" says so of the format it was given, with a buffer within
/// the limit and a size within --max-pixels; a tighter --max-pixels can
/// only turn "fine" into `.tooLarge`, never into another answer.
enum StructureTargets {
    static let formats = ["png", "jpeg", "tiff", "gif", "webp", "heif", "jxl"]
    static let all = formats.map(target) + [sniff]

    /// The pixel limit of the tight run: a 1 MP image passes.
    static let tightPixels = 1 << 20

    enum Outcome: Equatable {
        case fine(StructureCheck.Summary)
        case failed(VipsError.Code, String)

        init(_ check: () throws -> StructureCheck.Summary) {
            do {
                self = .fine(try check())
            } catch let error as VipsError {
                self = .failed(error.code, error.message)
            } catch {
                self = .failed(.startup, "not a VipsError: \(error)")
            }
        }

        var code: VipsError.Code? { if case .failed(let code, _) = self { code } else { nil } }
    }

    static func target(_ format: String) -> FuzzTarget {
        FuzzTarget(format, maxLength: 16384, mallocLimitMB: 32) { bytes in
            ScratchFile.first.holding(bytes) { descriptor in
                let loose = Outcome { try StructureCheck.check(descriptor: descriptor, format: format) }
                let tight = Outcome { try StructureCheck.check(descriptor: descriptor, format: format, maxPixels: tightPixels) }
                return first(
                    answers(loose, format, maxPixels: .max),
                    answers(tight, format, maxPixels: tightPixels),
                    loose == Outcome { try StructureCheck.check(descriptor: descriptor, format: format) } ? nil
                        : "two checks of the same bytes disagree: \(loose)",
                    tight.code == .tooLarge || tight == loose ? nil
                        : "--max-pixels \(tightPixels) changed \(loose) into \(tight), not into too large",
                    format == "jpeg" ? window(bytes, loose) : nil)
            }
        }
    }

    /// What every answer of a check must be.
    static func answers(_ outcome: Outcome, _ format: String?, maxPixels: Int) -> String? {
        switch outcome {
        case .failed(let code, let message):
            return code == .load || code == .tooLarge ? nil : "failed with \(code): \(message)"
        case .fine(let summary):
            let (pixels, overflow) = summary.width.multipliedReportingOverflow(by: summary.height)
            return first(
                summary.format == format ? nil : "checked as \(format ?? "nil") but says \(summary.format ?? "nil")",
                (0...StructureCheck.bufferLimit).contains(summary.bufferBytes) ? nil
                    : "fine with a buffer of \(summary.bufferBytes) bytes, over the limit",
                summary.decodeBytes >= 0 && summary.width >= 0 && summary.height >= 0 ? nil : "negative sizes: \(summary)",
                !overflow && pixels <= maxPixels ? nil : "fine at \(summary.width)x\(summary.height), over \(maxPixels) pixels")
        }
    }

    /// A JPEG inside another file (a RAW's preview): the same bytes at an
    /// offset, between others, are checked as the bytes alone are.
    static func window(_ bytes: [UInt8], _ alone: Outcome) -> String? {
        let before = [UInt8](repeating: 0xFF, count: 1 + bytes.count % 61), after: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0]
        return ScratchFile.second.holding(before + bytes + after) { descriptor in
            let inside = Outcome { try StructureCheck.checkJPEG(descriptor: descriptor, offset: before.count, length: bytes.count) }
            return inside == alone ? nil : "the JPEG at offset \(before.count) checks \(inside), alone \(alone)"
        }
    }

    /// What the first bytes say: the check it picks answers for that format.
    static let sniff = FuzzTarget("sniff", maxLength: 16384, mallocLimitMB: 32) { bytes in
        ScratchFile.first.holding(bytes) { descriptor in
            let content: ContentKind
            do {
                content = try StructureCheck.content(descriptor: descriptor)
            } catch {
                return "sniffing threw \(error)"
            }
            let format: String? = switch content {
            case .image(let name): name
            case .raw: "raw"
            case .video: "video"
            case .unknown: nil
            }
            let sniffed = Outcome { try StructureCheck.check(descriptor: descriptor) }
            let named = Outcome { try StructureCheck.check(descriptor: descriptor, format: format) }
            return first(answers(sniffed, format, maxPixels: .max),
                         sniffed == named ? nil : "sniffed \(format ?? "nil") checks \(sniffed), named \(named)")
        }
    }
}
