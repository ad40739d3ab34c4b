import CollageKit
import Logging

/// The human side of the event stream: what went wrong or needs a person's
/// attention goes to the logger (standard error); the paths written go to
/// standard output unless `--json` owns it.
public struct TextReporter {
    /// Where the lines for people go, each at its level (`-q`: errors only; `-v`: every image's fate).
    public let logger: Logger
    /// Whether the outputs' paths (and `--dry-run`'s `OUTPUT<TAB>IMAGE` lines)
    /// are printed; false under `--json` and `--plan`.
    public let printPaths: Bool
    /// Where the paths are printed (standard output unless told otherwise).
    public let output: StandardStream
    /// Whether someone may be watching standard error as the run goes.
    public let interactive: Bool

    /// `interactive` defaults to whether standard error is a terminal.
    public init(logger: Logger, printPaths: Bool, output: StandardStream = .output,
                interactive: Bool = StandardStream.error.isTerminal) {
        self.logger = logger
        self.printPaths = printPaths
        self.output = output
        self.interactive = interactive
    }

    /// Tells `event`: a log line at its level, a path printed, or nothing.
    public func handle(_ event: PipelineEvent) {
        switch event {
        case .accepted(let path, let header):
            logger.debug("accepted \(path) (\(header.format), \(header.displayedWidth)x\(header.displayedHeight))")
        case .rejected(let path, .portrait, let detail):
            logger.info("skipped \(path): portrait (\(detail)); --allow-portrait keeps it")
        case .rejected(let path, .rating, let detail):
            logger.info("skipped \(path): \(detail)")
        case .rejected(let path, let reason, let detail):
            // Passed over, nothing failed: told where someone watches (a
            // terminal, -v); cron hears nothing of a run that ends well.
            told("skipped \(path): \(reason == .tooLarge ? "too large: " : "")\(detail)", level: .warning)
        case .paired(let path, let still):
            logger.debug("paired \(path): shown by \(still)")
        case .passedOver(let path, let kind):
            logger.debug("passed over \(path): \(Self.reason(kind))")
        case .failed(let path, let error):
            logger.warning("\(path): \(error)")
        case .placed:
            break
        case .picked(let picked):
            logger.debug("picked \(picked.path): the best of \(picked.members) (moment \(picked.moment))")
        case .stacked(let path, let into):
            logger.debug("stacked \(path) into \(into)")
        case .pickTold(let line):
            logger.info("\(line)")
        case .looked:
            break
        case .frame(let frame):
            if !frame.passedOver.isEmpty {
                logger.debug("\(frame.path) at \(frame.clock): passed over \(frame.passedOver.joined(separator: ", "))")
            }
        case .flagged(let flag):
            switch flag.reason {
            case .blank: logger.warning("\(flag.path): flagged blank: one flat colour")
            case .duplicate: logger.warning("\(flag.path): flagged duplicate: looks the same as \(flag.of.map(String.init(describing:)) ?? "an earlier image")")
            }
        case .written(let sheet):
            logger.info("wrote \(sheet.output): \(sheet.images.count) images, \(sheet.bytes) bytes, \(sheet.milliseconds) ms")
            // A PDF's path is printed once, when it is in place (`document`).
            if printPaths, sheet.page == nil {
                ProgressLine.shared.around { output.write(bytes: sheet.output.bytes + [UInt8(ascii: "\n")]) }
            }
        case .document(let path, let pages):
            logger.info("wrote \(path): \(pages) page(s)")
            if printPaths { ProgressLine.shared.around { output.write(bytes: path.bytes + [UInt8(ascii: "\n")]) } }
        case .planned(let sheet):
            // Dry run: one line per image, OUTPUT<TAB>IMAGE, for scripts.
            if printPaths {
                ProgressLine.shared.around {
                    for image in sheet.images {
                        output.write(bytes: sheet.output.bytes + [9] + image.bytes + [UInt8(ascii: "\n")])
                    }
                }
            }
        case .group(let name, let images):
            logger.info("group \(name): \(images) image(s)")
        case .unchanged(let path, _):
            logger.info("\(path) is up to date")
            if printPaths { ProgressLine.shared.around { output.write(bytes: path.bytes + [UInt8(ascii: "\n")]) } }
        case .compared(let pair):
            if pair.status == .unchanged {
                logger.debug("unchanged \(pair.relative)")
            } else {
                told("\(pair.status.rawValue) \(pair.relative): \(pair.pixels) pixels (\(pair.percentText))"
                     + (pair.size.map { ", size \($0)" } ?? ""), level: .notice)
            }
        case .approved(let approved):
            told("approved \(approved.path) (\(approved.status.rawValue)) as \(approved.baseline)"
                 + (approved.alternative.map { ", the old one kept as \($0)" } ?? ""), level: .notice)
        case .notice(let message):
            // The cap's notice, files passed over, a wait for the lock: off a
            // terminal nobody sees them as they happen, and cron would mail
            // them though the run ends well (what goes wrong has its own
            // line): only --verbose tells them there.
            told(message, level: .notice)
        case .finished(let outcome):
            let s = outcome.summary
            let passed = s.passedOver.total > 0 ? ", passed over \(s.passedOver.text)" : ""
            logger.info("\(s.written) collage(s) written, \(s.used) images used, \(s.rejected) rejected, \(s.failed) failed\(passed)")
            if let message = outcome.message { logger.error("\(message)") }
        }
    }
}

extension TextReporter {
    /// A line for whoever watches: at `level` on a terminal, else only with -v.
    private func told(_ message: String, level: Logger.Level) {
        logger.log(level: interactive ? level : .info, "\(message)")
    }

    static func reason(_ kind: PassedOverKind) -> String {
        switch kind {
        case .video: return "a video (--video considers videos)"
        case .raw: return "a RAW photo (--raw skip)"
        case .sidecar: return "a sidecar, not a photo"
        case .empty: return "an empty file"
        case .notImage: return "not an image"
        case .beingWritten: return "still being written"
        }
    }
}
