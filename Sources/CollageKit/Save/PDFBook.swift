import Glibc
import Print
import Locking
import Vips

/// `-o NAME.pdf`: one PDF holding every sheet of a run, a page each, in
/// order. It is written to a temporary file beside NAME.pdf from the first
/// page on, each page written out as it is added (the document holds one
/// page at a time), and put in place by `commit` at the end of a run that
/// went well, atomically like every output; `discard` removes it instead,
/// leaving the previous NAME.pdf as it was.
final class PDFBook: Sendable {
    let path: PathName
    private let writer: AtomicWriter

    /// The PDF being made. Not Sendable (its document is not): it lives in
    /// the book's `Mutex`, and the document is drawn on, finished and let
    /// go there; only its file, pages and images (Sendable) come out.
    private struct Open {
        let file: TemporaryFile
        let document: PDFDocument
        var pages = 0
        var images: [PathName] = []
    }
    private let state = Locked<Open?>(nil)

    init(path: PathName, writer: AtomicWriter) {
        self.path = path
        self.writer = writer
    }

    /// Adds `page` (whose tiles are `images`) as the next page; its number.
    /// A failure leaves no file behind (and the previous NAME.pdf as it was).
    func add(_ page: PrintedPage, images: [PathName]) throws(OutputError) -> Int {
        try writer.writing(path) { () throws(OutputError) -> Int in
            try state.withLock { (open: inout Open?) throws(OutputError) -> Int in
                if open == nil {
                    let file = try writer.createTemporary(for: path)
                    do throws(PDFError) {
                        open = Open(file: file, document: try PDFDocument(descriptor: file.descriptor))
                    } catch {
                        throw writer.discard(file, failure(error))
                    }
                }
                do throws(PDFError) {
                    try Self.draw(page, on: open!.document)
                } catch {
                    let file = open!.file
                    open = nil
                    throw writer.discard(file, failure(error))
                }
                open!.pages += 1
                open!.images += images
                return open!.pages
            }
        }
    }

    /// Completes the PDF and puts it in place: the pages it holds and their
    /// images, or nil when no page was added (nothing is written).
    func commit() throws(OutputError) -> (pages: Int, images: [PathName])? {
        // Finished and let go under the lock, before its file is closed.
        let finished = state.withLock { open -> (file: TemporaryFile, pages: Int, images: [PathName],
                                                 failure: PDFError?)? in
            guard let taken = open.take() else { return nil }
            do throws(PDFError) {
                try taken.document.finish()
            } catch {
                return (taken.file, taken.pages, taken.images, error)
            }
            return (taken.file, taken.pages, taken.images, nil)
        }
        guard let finished else { return nil }
        if let error = finished.failure { throw writer.discard(finished.file, failure(error)) }
        try writer.commit(finished.file)
        return (finished.pages, finished.images)
    }

    /// Removes the PDF being made, if any; the previous NAME.pdf stays as it was.
    func discard() {
        // The document let go under the lock, before its file is closed:
        // cairo finishes an unfinished document as it frees it.
        guard let file = state.withLock({ open in open.take()?.file }) else { return }
        writer.discard(file)
    }

    private func failure(_ error: PDFError) -> OutputError {
        let message = error.writeErrno.map { "cannot write the PDF: " + systemError($0) } ?? "cannot make the PDF: \(error)"
        return OutputError(code: .ioError, path: path, message: message)
    }

    /// The page at its size in points: the background, each tile's JPEG in
    /// its rectangle, each caption and title as text.
    private static func draw(_ page: PrintedPage, on document: PDFDocument) throws(PDFError) {
        // The canvas's whole pixels over the page's exact size: a hair apart on each axis.
        let (scaleX, scaleY) = (page.width / Double(page.canvas.width), page.height / Double(page.canvas.height))
        func points(_ rect: TileRect) -> PageRect {
            PageRect(x: Double(rect.x) * scaleX, y: Double(rect.y) * scaleY,
                     width: Double(rect.width) * scaleX, height: Double(rect.height) * scaleY)
        }
        try document.beginPage(width: page.width, height: page.height)
        let whole = TileRect(x: 0, y: 0, width: page.canvas.width, height: page.canvas.height)
        try document.fill(points(whole), red: page.background.red, green: page.background.green, blue: page.background.blue)
        for picture in page.pictures {
            var failed: PDFError?
            picture.jpeg.withUnsafeBytes { bytes in
                do throws(PDFError) {
                    try document.drawJPEG(bytes, pixelWidth: picture.rect.width, pixelHeight: picture.rect.height,
                                          in: points(picture.rect))
                } catch {
                    failed = error
                }
            }
            if let failed { throw failed }
        }
        for text in page.texts {
            // As on a raster sheet: a little room at both ends of the band.
            let inset = max(2, text.size / 4)
            let band = TileRect(x: text.rect.x + inset, y: text.rect.y, width: max(1, text.rect.width - 2 * inset),
                                height: text.rect.height)
            try document.drawText(text.text, font: page.font, size: Double(text.size) * scaleY, in: points(band),
                                  red: page.ink.red, green: page.ink.green, blue: page.ink.blue)
        }
        try document.endPage()
    }
}
