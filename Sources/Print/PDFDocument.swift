internal import CCairoShim

/// A failure of the PDF document: cairo's words, and the errno of the write
/// that failed when it was a write (a full disk is ENOSPC).
public struct PDFError: Error, Sendable, CustomStringConvertible {
    public let message: String
    /// The errno of the failed write, or nil when cairo itself failed.
    public let writeErrno: Int32?

    public var description: String { message }
}

/// A rectangle on a page, in points from its top left corner.
public struct PageRect: Sendable, Equatable {
    public var x, y, width, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
}

/// One PDF, written page by page to a file descriptor with cairo's PDF
/// surface: the one owner of the cairo objects. Each page is written out
/// when it ends, so the document holds one page at a time; images are
/// embedded as the JPEG bytes they are given, text is real text (pango).
///
/// Not Sendable: one owner at a time, which may hand it to another thread
/// (the run's `PDFBook` keeps it in a `Mutex`).
public final class PDFDocument {
    private let document: OpaquePointer
    private var finished = false

    /// A document written to `descriptor`, which the caller owns and closes.
    public init(descriptor: Int32) throws(PDFError) {
        guard let document = ccairo_document_open(descriptor) else {
            throw PDFError(message: "cairo cannot make a PDF document", writeErrno: nil)
        }
        self.document = document
    }

    deinit { ccairo_document_free(document) }

    /// Starts the next page, `width` x `height` points.
    public func beginPage(width: Double, height: Double) throws(PDFError) {
        try check(ccairo_page_begin(document, width, height))
    }

    /// A rectangle of one colour (each channel 0-255).
    public func fill(_ rect: PageRect, red: UInt8, green: UInt8, blue: UInt8) throws(PDFError) {
        try check(ccairo_fill(document, rect.x, rect.y, rect.width, rect.height,
                              Double(red) / 255, Double(green) / 255, Double(blue) / 255))
    }

    /// A JPEG of `pixelWidth` x `pixelHeight` stretched over `rect`: its
    /// bytes are embedded as they are, never decoded or encoded again.
    public func drawJPEG(_ bytes: UnsafeRawBufferPointer, pixelWidth: Int, pixelHeight: Int,
                         in rect: PageRect) throws(PDFError) {
        guard let base = bytes.baseAddress else { throw PDFError(message: "an empty JPEG", writeErrno: nil) }
        try check(ccairo_jpeg(document, base, bytes.count, Int32(pixelWidth), Int32(pixelHeight),
                              rect.x, rect.y, rect.width, rect.height))
    }

    /// One line of real text in `font` (a Pango font description, its size
    /// replaced by `size` points), centred in `rect`, cut with "…" to its
    /// width and never drawn outside it.
    public func drawText(_ text: String, font: String, size: Double, in rect: PageRect,
                         red: UInt8, green: UInt8, blue: UInt8) throws(PDFError) {
        try check(ccairo_text(document, text, font, size, rect.x, rect.y, rect.width, rect.height,
                              Double(red) / 255, Double(green) / 255, Double(blue) / 255))
    }

    /// Ends the page: it is written out now.
    public func endPage() throws(PDFError) {
        try check(ccairo_page_end(document))
    }

    /// Writes the rest (fonts, cross-references): the document is complete.
    public func finish() throws(PDFError) {
        guard !finished else { return }
        finished = true
        try check(ccairo_document_finish(document))
    }

    private func check(_ status: Int32) throws(PDFError) {
        guard status != 0 else { return }
        let number = ccairo_document_errno(document)
        throw PDFError(message: String(cString: ccairo_document_message(document)),
                       writeErrno: number == 0 ? nil : number)
    }
}
