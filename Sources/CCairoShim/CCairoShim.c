#include "CCairoShim.h"

#include <cairo.h>
#include <cairo-pdf.h>
#include <pango/pangocairo.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ccairo_document {
    int fd;
    int write_errno;
    cairo_surface_t *surface;
    cairo_t *cr;
};

static cairo_status_t ccairo_write(void *closure, const unsigned char *data, unsigned int length) {
    ccairo_document *document = closure;
    while (length > 0) {
        ssize_t written = write(document->fd, data, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            document->write_errno = errno;
            return CAIRO_STATUS_WRITE_ERROR;
        }
        if (written == 0) {
            document->write_errno = EIO;
            return CAIRO_STATUS_WRITE_ERROR;
        }
        data += written;
        length -= (unsigned int) written;
    }
    return CAIRO_STATUS_SUCCESS;
}

ccairo_document *ccairo_document_open(int fd) {
    ccairo_document *document = calloc(1, sizeof *document);
    if (!document) return NULL;
    document->fd = fd;
    // The size is set by each page.
    document->surface = cairo_pdf_surface_create_for_stream(ccairo_write, document, 595.28, 841.89);
    if (cairo_surface_status(document->surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(document->surface);
        free(document);
        return NULL;
    }
    cairo_pdf_surface_set_metadata(document->surface, CAIRO_PDF_METADATA_CREATOR, "collage");
    document->cr = cairo_create(document->surface);
    return document;
}

void ccairo_document_free(ccairo_document *document) {
    if (!document) return;
    cairo_destroy(document->cr);
    cairo_surface_destroy(document->surface);
    free(document);
}

int ccairo_document_status(ccairo_document *document) {
    cairo_status_t status = cairo_status(document->cr);
    if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(document->surface);
    return (int) status;
}

int ccairo_document_errno(ccairo_document *document) { return document->write_errno; }

const char *ccairo_document_message(ccairo_document *document) {
    return cairo_status_to_string((cairo_status_t) ccairo_document_status(document));
}

int ccairo_page_begin(ccairo_document *document, double width, double height) {
    cairo_pdf_surface_set_size(document->surface, width, height);
    return ccairo_document_status(document);
}

int ccairo_fill(ccairo_document *document, double x, double y, double width, double height,
                double red, double green, double blue) {
    cairo_t *cr = document->cr;
    cairo_save(cr);
    cairo_set_source_rgb(cr, red, green, blue);
    cairo_rectangle(cr, x, y, width, height);
    cairo_fill(cr);
    cairo_restore(cr);
    return ccairo_document_status(document);
}

int ccairo_jpeg(ccairo_document *document, const void *bytes, size_t length, int pixel_width, int pixel_height,
                double x, double y, double width, double height) {
    if (pixel_width <= 0 || pixel_height <= 0 || length == 0) return (int) CAIRO_STATUS_INVALID_SIZE;
    unsigned char *copy = malloc(length);
    if (!copy) return (int) CAIRO_STATUS_NO_MEMORY;
    memcpy(copy, bytes, length);
    // The surface's own pixels are never read (the JPEG is embedded as it
    // is): left as allocated, zero pages that are never touched.
    cairo_surface_t *image = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pixel_width, pixel_height);
    cairo_status_t status = cairo_surface_set_mime_data(image, CAIRO_MIME_TYPE_JPEG, copy, length, free, copy);
    if (status != CAIRO_STATUS_SUCCESS) {
        free(copy);
        cairo_surface_destroy(image);
        return (int) status;
    }
    cairo_t *cr = document->cr;
    cairo_save(cr);
    cairo_rectangle(cr, x, y, width, height);
    cairo_clip(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, width / pixel_width, height / pixel_height);
    cairo_set_source_surface(cr, image, 0, 0);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(image);
    return ccairo_document_status(document);
}

int ccairo_text(ccairo_document *document, const char *text, const char *font, double size,
                double x, double y, double width, double height, double red, double green, double blue) {
    cairo_t *cr = document->cr;
    PangoLayout *layout = pango_cairo_create_layout(cr);
    PangoFontDescription *description = pango_font_description_from_string(font);
    pango_font_description_set_absolute_size(description, size * PANGO_SCALE);
    pango_layout_set_font_description(layout, description);
    pango_font_description_free(description);
    pango_layout_set_single_paragraph_mode(layout, TRUE);
    pango_layout_set_width(layout, (int) (width * PANGO_SCALE));
    pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
    pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER);
    pango_layout_set_text(layout, text, -1);
    PangoRectangle logical;
    pango_layout_get_extents(layout, NULL, &logical);
    double line = (double) logical.height / PANGO_SCALE;
    cairo_save(cr);
    cairo_rectangle(cr, x, y, width, height);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, red, green, blue);
    cairo_move_to(cr, x, y + (height - line) / 2);
    pango_cairo_show_layout(cr, layout);
    cairo_restore(cr);
    g_object_unref(layout);
    return ccairo_document_status(document);
}

int ccairo_page_end(ccairo_document *document) {
    cairo_show_page(document->cr);
    return ccairo_document_status(document);
}

int ccairo_document_finish(ccairo_document *document) {
    cairo_surface_finish(document->surface);
    return ccairo_document_status(document);
}
