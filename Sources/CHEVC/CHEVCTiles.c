// A HEIF picture decoded tile by tile and shrunk as it comes (see
// chevc_decode_tiles in CHEVC.h).
#include "CHEVC.h"

#include <dav1d/dav1d.h>
#include <errno.h>
#include <libde265/de265.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_ulong tiled_decoded;

unsigned long chevc_tiled_decoded(void) { return atomic_load(&tiled_decoded); }

static int fail(char *error, size_t size, const char *message) {
    if (error && size) snprintf(error, size, "%s", message);
    return -1;
}

// NAL units each after a 4-byte big-endian length, pushed to the decoder.
static bool push_units(de265_decoder_context *context, const uint8_t *bytes, size_t size) {
    size_t at = 0;
    while (at < size) {
        if (size - at < 4) return false;
        uint32_t length = (uint32_t)bytes[at] << 24 | (uint32_t)bytes[at + 1] << 16 | (uint32_t)bytes[at + 2] << 8 | bytes[at + 3];
        at += 4;
        if (length > size - at || de265_push_NAL(context, bytes + at, length, 0, NULL) != DE265_OK) return false;
        at += length;
    }
    return true;
}

// One tile's picture: its parameter sets and coded data through a decoder
// of its own (a tile is a picture of its own, as libheif decodes it).
static uint8_t *read_extent(int descriptor, chevc_extent extent, char *error, size_t error_size);

static de265_decoder_context *decode_tile(int descriptor, chevc_extent extent, const unsigned char *configuration,
                                          size_t configuration_size, int threads, const struct de265_image **picture,
                                          char *error, size_t error_size) {
    uint8_t *data = read_extent(descriptor, extent, error, error_size);
    if (!data) return NULL;
    const size_t done = (size_t)extent.length;
    de265_decoder_context *context = de265_new_decoder();
    if (!context) {
        free(data);
        fail(error, error_size, "libde265 could not start a decoder");
        return NULL;
    }
    if (threads > 0) de265_start_worker_threads(context, threads);
    bool pushed = done == (size_t)extent.length && push_units(context, configuration, configuration_size)
                  && push_units(context, data, done);
    free(data);
    if (!pushed) {
        de265_free_decoder(context);
        fail(error, error_size, done == (size_t)extent.length ? "a tile's NAL units are cut short" : "a tile's data cannot be read");
        return NULL;
    }
    de265_flush_data(context);
    int more;
    *picture = NULL;
    do {
        more = 0;
        de265_error status = de265_decode(context, &more);
        if (status != DE265_OK && status != DE265_ERROR_WAITING_FOR_INPUT_DATA) break;
        *picture = de265_get_next_picture(context);
    } while (!*picture && more);
    if (!*picture) {
        de265_free_decoder(context);
        fail(error, error_size, "libde265 decoded no picture from a tile");
        return NULL;
    }
    return context;
}

// One tile's coded data read from the file (malloc'ed), or NULL with a line in `error`.
static uint8_t *read_extent(int descriptor, chevc_extent extent, char *error, size_t error_size) {
    if (extent.offset < 0 || extent.length <= 0 || extent.length > (1LL << 30)) {
        fail(error, error_size, "a tile's data out of range");
        return NULL;
    }
    uint8_t *data = malloc((size_t)extent.length);
    if (!data) {
        fail(error, error_size, "out of memory");
        return NULL;
    }
    size_t done = 0;
    while (done < (size_t)extent.length) {
        ssize_t got = pread(descriptor, data + done, (size_t)extent.length - done, (off_t)(extent.offset + (long long)done));
        if (got <= 0) break;
        done += (size_t)got;
    }
    if (done != (size_t)extent.length) {
        free(data);
        fail(error, error_size, "a tile's data cannot be read");
        return NULL;
    }
    return data;
}

// One tile's picture, whichever decoder made it: its planes (16-bit words
// above 8 bits), its chroma subsampling and colour description, and what
// holds it until tile_release.
typedef struct {
    const uint8_t *planes[3];
    int strides[3];
    int width, height, bits, mono, shift_x, shift_y;
    int primaries, transfer, matrix, full_range;
    de265_decoder_context *hevc;
    Dav1dContext *av1;
    Dav1dPicture av1_picture;
} tile_picture;

static void tile_release(tile_picture *tile) {
    if (tile->hevc) {
        de265_release_next_picture(tile->hevc);
        de265_free_decoder(tile->hevc);
    }
    if (tile->av1) {
        dav1d_picture_unref(&tile->av1_picture);
        dav1d_close(&tile->av1);
    }
    memset(tile, 0, sizeof *tile);
}

// An AV1 tile: its configuration's OBUs (the sequence header) and its own
// through a dav1d decoder of its own, one thread, as libheif's dav1d plugin
// decodes an AVIF item.
static bool decode_av1_tile(int descriptor, chevc_extent extent, const unsigned char *configuration,
                            size_t configuration_size, tile_picture *tile, char *error, size_t error_size) {
    uint8_t *data = read_extent(descriptor, extent, error, error_size);
    if (!data) return false;
    Dav1dSettings settings;
    dav1d_default_settings(&settings);
    settings.n_threads = 1;
    settings.max_frame_delay = 1;
    settings.all_layers = 0;
    if (dav1d_open(&tile->av1, &settings) < 0) {
        free(data);
        tile->av1 = NULL;
        return fail(error, error_size, "dav1d could not start a decoder") == 0;
    }
    Dav1dData coded = {0};
    uint8_t *bytes = dav1d_data_create(&coded, configuration_size + (size_t)extent.length);
    if (!bytes) {
        free(data);
        tile_release(tile);
        return fail(error, error_size, "out of memory") == 0;
    }
    if (configuration_size) memcpy(bytes, configuration, configuration_size);
    memcpy(bytes + configuration_size, data, (size_t)extent.length);
    free(data);
    int got = DAV1D_ERR(EAGAIN);
    while (coded.sz > 0) {
        int sent = dav1d_send_data(tile->av1, &coded);
        if (sent < 0 && sent != DAV1D_ERR(EAGAIN)) break;
        got = dav1d_get_picture(tile->av1, &tile->av1_picture);
        if (got != DAV1D_ERR(EAGAIN)) break;
    }
    for (int i = 0; i < 4 && got == DAV1D_ERR(EAGAIN); i++) got = dav1d_get_picture(tile->av1, &tile->av1_picture);
    dav1d_data_unref(&coded);
    const Dav1dPicture *p = &tile->av1_picture;
    if (got != 0 || !p->data[0] || !p->seq_hdr || p->p.bpc < 8 || p->p.bpc > 12) {
        if (got != 0) memset(&tile->av1_picture, 0, sizeof tile->av1_picture);
        tile_release(tile);
        return fail(error, error_size, "dav1d decoded no picture from a tile") == 0;
    }
    tile->width = p->p.w;
    tile->height = p->p.h;
    tile->bits = p->p.bpc;
    tile->mono = p->p.layout == DAV1D_PIXEL_LAYOUT_I400;
    tile->shift_x = p->p.layout == DAV1D_PIXEL_LAYOUT_I420 || p->p.layout == DAV1D_PIXEL_LAYOUT_I422;
    tile->shift_y = p->p.layout == DAV1D_PIXEL_LAYOUT_I420;
    for (int plane = 0; plane < (tile->mono ? 1 : 3); plane++) {
        tile->planes[plane] = p->data[plane];
        tile->strides[plane] = (int)p->stride[plane ? 1 : 0];
    }
    tile->primaries = p->seq_hdr->pri;
    tile->transfer = p->seq_hdr->trc;
    tile->matrix = p->seq_hdr->mtrx;
    tile->full_range = p->seq_hdr->color_range;
    return true;
}

// One tile's picture through the decoder of `codec` (0 HEVC, 1 AV1).
static bool tile_decode(int descriptor, int codec, chevc_extent extent, const unsigned char *configuration,
                        size_t configuration_size, int threads, tile_picture *tile, char *error, size_t error_size) {
    memset(tile, 0, sizeof *tile);
    if (codec == 1) return decode_av1_tile(descriptor, extent, configuration, configuration_size, tile, error, error_size);
    const struct de265_image *picture;
    tile->hevc = decode_tile(descriptor, extent, configuration, configuration_size, threads, &picture, error, error_size);
    if (!tile->hevc) return false;
    const enum de265_chroma format = de265_get_chroma_format(picture);
    tile->width = de265_get_image_width(picture, 0);
    tile->height = de265_get_image_height(picture, 0);
    tile->bits = de265_get_bits_per_pixel(picture, 0);
    tile->mono = format == de265_chroma_mono;
    tile->shift_x = format == de265_chroma_420 || format == de265_chroma_422;
    tile->shift_y = format == de265_chroma_420;
    for (int plane = 0; plane < (tile->mono ? 1 : 3); plane++) {
        tile->planes[plane] = de265_get_image_plane(picture, plane, &tile->strides[plane]);
        if (de265_get_bits_per_pixel(picture, plane) != tile->bits) {
            tile_release(tile);
            return fail(error, error_size, "a tile with planes of different depths") == 0;
        }
    }
    tile->primaries = de265_get_image_colour_primaries(picture);
    tile->transfer = de265_get_image_transfer_characteristics(picture);
    tile->matrix = de265_get_image_matrix_coefficients(picture);
    tile->full_range = de265_get_image_full_range_flag(picture);
    return true;
}

// The deepest samples a tiling's pictures may have: 8 bits or 16.
static int out_bits_max(const chevc_tiling *tiling) { return tiling->bits > 8 ? tiling->bits : 8; }

// One source row's samples of a tile added to the sums of the small
// row's boxes (`columns`: each sample's box, -1 outside the boxes; `shift`:
// the plane's horizontal subsampling).
static void add_row(uint16_t *narrow, uint32_t *wide_sums, const uint8_t *from, bool wide, const int *columns,
                    int count, int shift) {
    for (int i = 0; i < count; i++) {
        int column = columns[i];
        if (column < 0) continue;
        int tx = i >> shift;
        uint32_t value = wide ? ((const uint16_t *)from)[tx] : from[tx];
        if (narrow) narrow[column] = (uint16_t)(narrow[column] + value);
        else wide_sums[column] += value;
    }
}

// The deepest samples of its alpha plane's pictures.
static int alpha_bits_max(const chevc_tiling *tiling) { return tiling->alpha_bits > 8 ? tiling->alpha_bits : 8; }

// One tile's luma (or plane p of a colour tile) added to the sums of the
// small rows it reaches: `plane` of the `planes` each small row holds.
static void add_plane(const tile_picture *picture, int p, int plane, int planes, bool narrow, void *sums,
                      int small_width, int base, const int *columns, int x0, int x1, int y0, int y1, int top,
                      int small_height, int f, int shift_x, int shift_y) {
    const int stride = picture->strides[p];
    const uint8_t *bytes = picture->planes[p];
    const bool wide = picture->bits > 8;
    for (int y = y0; y < y1; y++) {
        if (y < top || y >= top + small_height * f) continue;
        const int row = (y - top) / f - base;
        const int ty = y - y0;
        size_t at = ((size_t)row * (size_t)planes + (size_t)plane) * (size_t)small_width;
        const uint8_t *from = bytes + (size_t)(p ? ty >> shift_y : ty) * (size_t)stride;
        const int sx = p ? shift_x : 0;
        if (narrow) add_row((uint16_t *)sums + at, NULL, from, wide, columns, x1 - x0, sx);
        else add_row(NULL, (uint32_t *)sums + at, from, wide, columns, x1 - x0, sx);
    }
}

int chevc_decode_tiles(int descriptor, const chevc_tiling *tiling, chevc_rows_sink sink, void *context,
                       int *out_width, int *out_height, char *error, size_t error_size) {
    chevc_band band_storage, *out = &band_storage;
    memset(out, 0, sizeof *out);
    const int f = tiling->factor, width = tiling->width, height = tiling->height;
    if (f < 1 || f > 128 || width <= 0 || height <= 0 || tiling->columns <= 0 || tiling->rows <= 0
        || tiling->tile_width <= 0 || tiling->tile_height <= 0 || !tiling->tiles
        || (long long)tiling->columns * tiling->tile_width < width || (long long)tiling->rows * tiling->tile_height < height)
        return fail(error, error_size, "a tiling that does not cover its picture");
    const int small_width = width / f, small_height = height / f;
    if (small_width < 1 || small_height < 1) return fail(error, error_size, "a picture too small to shrink");
    const int left = (width - small_width * f) / 2 & ~1, top = (height - small_height * f) / 2 & ~1;
    // The sums of the small rows a row of tiles reaches (those it ends,
    // and the one it leaves part done for the next row), row by row, each
    // row its three planes' in turn. 16-bit where a box's sum fits (an
    // 8-bit picture shrunk up to 16 times, 10-bit 8 times, any picture
    // not shrunk), the rows then finished in place; else 32-bit, and the
    // finished rows apart.
    const int window = tiling->tile_height / f + 2;
    const bool alpha = tiling->alpha_tiles != NULL;
    const int planes = alpha ? 4 : 3;
    if (alpha && (tiling->alpha_bits < 8 || tiling->alpha_bits > 16 || !tiling->alpha_configuration))
        return fail(error, error_size, "an alpha plane of an unknown depth");
    const int deepest = alpha && alpha_bits_max(tiling) > out_bits_max(tiling) ? alpha_bits_max(tiling) : out_bits_max(tiling);
    const int narrow = ((long long)f * f << deepest) <= 65536;
    const size_t row_samples = (size_t)small_width * (size_t)planes;
    void *sums = calloc((size_t)window * row_samples, narrow ? sizeof(uint16_t) : sizeof(uint32_t));
    int *columns = malloc((size_t)tiling->tile_width * sizeof *columns);
    uint16_t *rows_out = narrow ? sums : malloc((size_t)window * row_samples * sizeof *rows_out);
    if (!sums || !columns || !rows_out) {
        free(sums);
        free(columns);
        if (!narrow) free(rows_out);
        return fail(error, error_size, "out of memory");
    }
    for (int p = 0; p < planes; p++) out->planes[p] = rows_out + (size_t)p * (size_t)small_width;
    out->stride = (int)row_samples;
    out->width = small_width;
    *out_width = small_width;
    *out_height = small_height;
    const int threads = (long long)tiling->tile_width * tiling->tile_height > (1 << 20) ? tiling->threads : 0;
    int base = 0;  // the small row sums[0] holds
    const uint32_t count = (uint32_t)(f * f);
    int result = 0;
    for (int r = 0; r < tiling->rows && result == 0; r++) {
        const int y0 = r * tiling->tile_height, y1 = y0 + tiling->tile_height < height ? y0 + tiling->tile_height : height;
        if (y0 >= height) break;
        for (int c = 0; c < tiling->columns && result == 0; c++) {
            const int x0 = c * tiling->tile_width;
            if (x0 >= width) break;
            const int x1 = x0 + tiling->tile_width < width ? x0 + tiling->tile_width : width;
            const int index = r * tiling->columns + c;
            tile_picture picture;
            if (!tile_decode(descriptor, tiling->codec, tiling->tiles[index], tiling->configuration,
                             tiling->configuration_size, threads, &picture, error, error_size)) {
                result = -1;
                break;
            }
            if (r == 0 && c == 0) {
                out->bits = picture.bits;
                out->monochrome = picture.mono;
                out->primaries = picture.primaries;
                out->transfer = picture.transfer;
                out->matrix = picture.matrix;
                out->full_range = picture.full_range;
            }
            if (picture.bits != out->bits || picture.mono != out->monochrome || picture.bits < 8
                || picture.bits > out_bits_max(tiling) || picture.width < x1 - x0 || picture.height < y1 - y0) {
                tile_release(&picture);
                result = fail(error, error_size, "a tile unlike the others, or smaller than its place");
                break;
            }
            for (int x = x0; x < x1; x++) columns[x - x0] = x < left || x >= left + small_width * f ? -1 : (x - left) / f;
            for (int p = 0; p < (picture.mono ? 1 : 3); p++)
                add_plane(&picture, p, p, planes, narrow, sums, small_width, base, columns, x0, x1, y0, y1, top,
                          small_height, f, picture.shift_x, picture.shift_y);
            tile_release(&picture);
            if (!alpha) continue;
            // The alpha plane's tile: its luma, beside the colour's.
            if (!tile_decode(descriptor, tiling->codec, tiling->alpha_tiles[index], tiling->alpha_configuration,
                             tiling->alpha_configuration_size, threads, &picture, error, error_size)) {
                result = -1;
                break;
            }
            if (r == 0 && c == 0) out->alpha_bits = picture.bits;
            if (picture.bits != out->alpha_bits || picture.bits < 8 || picture.bits > alpha_bits_max(tiling)
                || picture.width < x1 - x0 || picture.height < y1 - y0) {
                tile_release(&picture);
                result = fail(error, error_size, "an alpha tile unlike the others, or smaller than its place");
                break;
            }
            add_plane(&picture, 0, 3, planes, narrow, sums, small_width, base, columns, x0, x1, y0, y1, top, small_height,
                      f, 0, 0);
            tile_release(&picture);
        }
        if (result) break;
        // The small rows this row of tiles finished: out, and the sums moved up.
        int done = y1 >= height ? small_height : (y1 - top) / f;
        if (done > small_height) done = small_height;
        const size_t finished = done > base ? (size_t)(done - base) * row_samples : 0;
        for (size_t i = 0; i < finished; i++) {
            uint32_t sum = narrow ? ((uint16_t *)sums)[i] : ((uint32_t *)sums)[i];
            rows_out[i] = (uint16_t)((sum + count / 2) / count);
        }
        if (done > base) {
            out->first_row = base;
            out->rows = done - base;
            if (sink(context, out) != 0) {
                result = fail(error, error_size, "the picture's colour cannot be converted");
                break;
            }
        }
        if (done > base) {
            const size_t size = narrow ? sizeof(uint16_t) : sizeof(uint32_t);
            const size_t kept = (size_t)(window - (done - base)) * row_samples;
            uint8_t *bytes = sums;
            memmove(bytes, bytes + finished * size, kept * size);
            memset(bytes + kept * size, 0, finished * size);
            base = done;
        }
    }
    free(sums);
    free(columns);
    if (!narrow) free(rows_out);
    if (result == 0 && base < small_height) result = fail(error, error_size, "the tiles do not cover the picture");
    if (result == 0) atomic_fetch_add(&tiled_decoded, 1);
    return result;
}

// libheif's YCbCr to R'G'B' (its colour conversion of 1.15): Kr and Kb by
// the matrix's code point (BT.601's when it names none of these), limited
// range expanded, rounded and clipped to the samples' range.
int chevc_ycbcr_to_rgb16(const chevc_band *in, int matrix, int full_range, unsigned short *rgb) {
    if (!in->planes[0] || in->bits < 8 || in->bits > 16 || in->rows < 0) return -1;
    double kr = 0.299, kb = 0.114;
    switch (matrix) {
    case 1: kr = 0.2126; kb = 0.0722; break;
    case 4: kr = 0.30; kb = 0.11; break;
    case 7: kr = 0.212; kb = 0.087; break;
    case 9: case 10: kr = 0.2627; kb = 0.0593; break;
    default: break;
    }
    const double r_cr = 2 * (1 - kr), b_cb = 2 * (1 - kb);
    const double g_cb = 2 * kb * (1 - kb) / (kb + kr - 1), g_cr = 2 * kr * (1 - kr) / (kb + kr - 1);
    const double top = (double)((1 << in->bits) - 1), half = (double)(1 << (in->bits - 1));
    const double offset = (double)(16 << (in->bits - 8));
    for (size_t o = 0; o < (size_t)in->rows * (size_t)in->width; o++) {
        const size_t i = o / (size_t)in->width * (size_t)in->stride + o % (size_t)in->width;
        double y = in->planes[0][i], cb = in->monochrome ? 0 : in->planes[1][i] - half,
               cr = in->monochrome ? 0 : in->planes[2][i] - half;
        double out[3];
        if (matrix == 0 && !in->monochrome) {
            out[0] = in->planes[2][i];
            out[1] = y;
            out[2] = in->planes[1][i];
        } else {
            if (!full_range) {
                y = (y - offset) * 1.1689;
                cb *= 1.1429;
                cr *= 1.1429;
            }
            out[0] = y + r_cr * cr;
            out[1] = y + g_cb * cb + g_cr * cr;
            out[2] = y + b_cb * cb;
        }
        for (int c = 0; c < 3; c++) {
            double v = out[c] + 0.5;
            rgb[o * 3 + c] = (uint16_t)(v < 0 ? 0 : v > top ? top : v);
        }
    }
    return 0;
}
