import Dispatch
import Locking
@preconcurrency import OpenCombine

/// A sheet on disk: what `written` and `placed` report.
struct SavedSheet: Sendable {
    let record: WrittenSheet
    let composed: ComposedSheet
}

/// What saving one sheet came to: the sheet written, or nothing to write
/// because every image of it failed to decode again (each to report).
enum SaveOutcome: Sendable {
    case saved(SavedSheet)
    case nothing(failures: [DecodeFailure])
}

/// Compose and atomic write as one `Future`, whose value is the sheet written (or, when every image of the sheet
/// failed to decode again, their failures: there was nothing to write).
struct SheetSaver: Sendable {
    let composer: SheetComposer
    let writer: AtomicWriter
    /// `-o NAME.pdf`: the PDF each sheet is added to as a page.
    let book: PDFBook?
    /// Where composing and writing run, off the pipeline's queue.
    let queue: DispatchQueue
    let instrumentation: any StageInstrumentation

    /// `firstIndex`: the run's count of images used before this sheet, plus one.
    func save(_ tiles: [DecodedTile], sheet number: Int, firstIndex: Int,
              to path: PathName) -> Future<SaveOutcome, OutputError> {
        let composer = composer, writer = writer, book = book, instrumentation = instrumentation
        // The block below lives until it returns, after it has reported the
        // sheet; the tiles it was handed must not: the run asks for the next
        // sheet as soon as this one is reported, and the decoded pixels would
        // then be held beside the next sheet's. So they are handed over in a
        // box the block empties, and the composed sheet keeps no pixels.
        let handed = Locked(tiles)
        return Future { promise in
            // OpenCombine's promise predates Sendable; it is called once, on `queue`.
            nonisolated(unsafe) let promise = promise
            queue.async {
                let started = DispatchTime.now()
                instrumentation.beforeSave(number)
                let result: Result<SaveOutcome, OutputError>
                let composition = composer.compose(handed.withLock { tiles in
                    defer { tiles = [] }
                    return tiles
                }, sheet: number, firstIndex: firstIndex)
                switch composition {
                case .failure(let error):
                    result = .failure(OutputError(code: .ioError, path: path, message: error.message))
                case .success(.nothing(let failures)):
                    result = .success(.nothing(failures: failures))
                case .success(.sheet(let composed)):
                    do throws(OutputError) {
                        let images = composed.tiles.map(\.path)
                        var page: Int?
                        switch composed.picture {
                        case .image(let encoded): _ = try writer.write(encoded, to: path)
                        case .page(let printed):
                            guard let book else { preconditionFailure("a page composed for a run that writes no PDF") }
                            page = try book.add(printed, images: images)
                        }
                        let elapsed = DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds
                        var record = WrittenSheet(output: path, sheet: number, images: images,
                                                  width: composed.canvas.width, height: composed.canvas.height,
                                                  bytes: composed.picture.byteCount,
                                                  milliseconds: Int(elapsed / 1_000_000))
                        record.page = page
                        result = .success(.saved(SavedSheet(record: record, composed: composed)))
                    } catch {
                        result = .failure(error)
                    }
                }
                instrumentation.afterSave()  // before the run can ask for more
                promise(result)
                instrumentation.reported(number)
            }
        }
    }
}
