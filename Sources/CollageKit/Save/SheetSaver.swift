import Dispatch
@preconcurrency import OpenCombine

/// A sheet on disk: what `written` and `placed` report.
struct SavedSheet: Sendable {
    let record: WrittenSheet
    let composed: ComposedSheet
}

/// Compose and atomic write as one `Future`, whose value is the sheet written (nil when every image of the sheet
/// failed to decode again, so there was nothing to write).
struct SheetSaver: Sendable {
    let composer: SheetComposer
    let writer: AtomicWriter
    /// Where composing and writing run, off the pipeline's queue.
    let queue: DispatchQueue
    let instrumentation: any StageInstrumentation

    /// `firstIndex`: the run's count of images used before this sheet, plus one.
    func save(_ tiles: [DecodedTile], sheet number: Int, firstIndex: Int,
              to path: PathName) -> Future<SavedSheet?, OutputError> {
        let composer = composer, writer = writer, instrumentation = instrumentation
        return Future { promise in
            // OpenCombine's promise predates Sendable; it is called once, on `queue`.
            nonisolated(unsafe) let promise = promise
            queue.async {
                let started = DispatchTime.now()
                instrumentation.beforeSave(number)
                let result: Result<SavedSheet?, OutputError>
                switch composer.compose(tiles, sheet: number, firstIndex: firstIndex) {
                case .failure(let error):
                    result = .failure(OutputError(code: .ioError, path: path, message: error.message))
                case .success(nil):
                    result = .success(nil)
                case .success(let composed?):
                    do throws(OutputError) {
                        let written = try writer.write(composed.encoded, to: path)
                        let elapsed = DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds
                        let record = WrittenSheet(output: written, sheet: number, images: composed.tiles.map(\.path),
                                                  width: composed.canvas.width, height: composed.canvas.height,
                                                  bytes: composed.encoded.count,
                                                  milliseconds: Int(elapsed / 1_000_000))
                        result = .success(SavedSheet(record: record, composed: composed))
                    } catch {
                        result = .failure(error)
                    }
                }
                instrumentation.afterSave()  // before the run can ask for more
                promise(result)
            }
        }
    }
}
