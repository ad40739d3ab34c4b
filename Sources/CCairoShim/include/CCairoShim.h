// A small C face of cairo's PDF surface and pango-cairo for the Swift
// `Print` target. Every symbol is prefixed `ccairo_`; no cairo, pango or
// glib type crosses this header. Ownership, errors and policy are in Swift.
//
// A document writes to a file descriptor through cairo's stream callback:
// each page is written out when it is finished (`ccairo_page_end`), so a
// document of many pages holds one page at a time. A write that fails
// keeps its errno (`ccairo_document_errno`) and puts the document in error.
#ifndef CCAIRO_SHIM_H
#define CCAIRO_SHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccairo_document ccairo_document;

/// A PDF document written to `fd` (not closed by the document); NULL when cairo cannot make one.
ccairo_document *ccairo_document_open(int fd);
/// Frees the document; a document not finished is left as cairo wrote it so far.
void ccairo_document_free(ccairo_document *document);

/// 0 while the document is sound; else a nonzero status (see `ccairo_document_message`).
int ccairo_document_status(ccairo_document *document);
/// The errno of the write that failed, or 0 when no write failed.
int ccairo_document_errno(ccairo_document *document);
/// cairo's words for its status (static storage).
const char *ccairo_document_message(ccairo_document *document);

/// The next page, `width` x `height` points.
int ccairo_page_begin(ccairo_document *document, double width, double height);
/// A rectangle of one colour (0-1 each), in points.
int ccairo_fill(ccairo_document *document, double x, double y, double width, double height,
                double red, double green, double blue);
/// A JPEG `pixel_width` x `pixel_height` drawn into the rectangle (points):
/// the bytes are embedded as they are (copied; the caller keeps its own).
int ccairo_jpeg(ccairo_document *document, const void *bytes, size_t length, int pixel_width, int pixel_height,
                double x, double y, double width, double height);
/// One line of text (UTF-8) as real text in `font` (a Pango font
/// description; its size replaced by `size` points), centred in the
/// rectangle, cut with an ellipsis to its width, never drawn outside it.
int ccairo_text(ccairo_document *document, const char *text, const char *font, double size,
                double x, double y, double width, double height, double red, double green, double blue);
/// Finishes the page: it is written out now.
int ccairo_page_end(ccairo_document *document);
/// Writes what remains (fonts, the cross-reference table). The status.
int ccairo_document_finish(ccairo_document *document);

#ifdef __cplusplus
}
#endif

#endif
