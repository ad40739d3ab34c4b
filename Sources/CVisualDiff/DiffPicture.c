#include "CVisualDiff.h"
#include "DiffViews.h"
#include "RowDeflate.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* The full-size difference picture (--diff-images, --html) written as a PNG
 * of at most 132 colours, a row at a time, in one sweep over the current
 * picture's rows: the same pixels libvips' pipeline of Difference.marked
 * makes at scale 1 (its luma in double, stored as float, faded in float and
 * cut to 8 bits), at a byte a pixel instead of three, deflated as the rows
 * come (RowDeflate.c), and without a pipeline of whole-picture operations.
 * The colours:
 *   0-64     the faded grey g = 191 + i;
 *   65-129   a moved band's tint of g: (0.8 g, 0.88 g, g), each cut to 8 bits;
 *   130      yellow (a differing pixel explained); 131 red (a changed one). */

enum { GREYS = 65, TINTS = GREYS, YELLOW = GREYS + TINTS, RED = YELLOW + 1, COLOURS = RED + 1 };
static const double luma[3] = {0.29889531, 0.58662247, 0.11448223};

/* Each band's share of the luma, a product per value: the same doubles as
 * pixel[0] * luma[0] + pixel[1] * luma[1] + pixel[2] * luma[2], summed in
 * the same order. */
typedef struct {
    double share[3][256];
    unsigned char grey[256];  /* faded(v, v, v): most of a page's pixels are greys */
} Lumas;

static inline int faded_sum(const Lumas *lumas, const unsigned char *pixel) {
    float y = (float) (lumas->share[0][pixel[0]] + lumas->share[1][pixel[1]] + lumas->share[2][pixel[2]]);
    int g = (int) (0.25f * y + 191.25f);
    return g < 191 ? 191 : g > 255 ? 255 : g;
}

static void lumas_of(Lumas *lumas) {
    for (int band = 0; band < 3; band++)
        for (int value = 0; value < 256; value++) lumas->share[band][value] = value * luma[band];
    for (int value = 0; value < 256; value++) {
        unsigned char pixel[3] = {value, value, value};
        lumas->grey[value] = (unsigned char) faded_sum(lumas, pixel);
    }
}

static inline int faded(const Lumas *lumas, const unsigned char *pixel) {
    if (pixel[0] == pixel[1] && pixel[1] == pixel[2]) return lumas->grey[pixel[0]];
    return faded_sum(lumas, pixel);
}

/* The first x in [x, end) whose mark is not 0 (end when none): eight marks
 * at a time, since a page's mask is mostly 0. */
static inline int next_mark(const unsigned char *marks, int x, int end) {
    for (; x + 8 <= end; x += 8) {
        uint64_t eight;
        memcpy(&eight, marks + x, 8);
        if (eight) break;
    }
    while (x < end && !marks[x]) x++;
    return x;
}

typedef struct {
    int fd;
    int error;  /* errno of the write that failed */
    RowDeflate zip;
} PNGWriter;

static void put32(unsigned char *at, unsigned long value) {
    at[0] = value >> 24, at[1] = value >> 16, at[2] = value >> 8, at[3] = value;
}

static int write_all(PNGWriter *png, const unsigned char *bytes, size_t count) {
    while (count > 0 && !png->error) {
        ssize_t written = write(png->fd, bytes, count);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) png->error = written < 0 ? errno : ENOSPC;
        else bytes += written, count -= (size_t) written;
    }
    return png->error;
}

static int chunk(PNGWriter *png, const char *type, const unsigned char *data, size_t length) {
    unsigned char head[8], tail[4];
    put32(head, length);
    memcpy(head + 4, type, 4);
    unsigned long crc = crc32(crc32(0, (const Bytef *) type, 4), data, (uInt) length);
    put32(tail, crc);
    return write_all(png, head, 8) || write_all(png, data, length) || write_all(png, tail, 4);
}

/* The image data as RowDeflate makes it, an IDAT chunk at a time. */
static int idat(void *context, const unsigned char *bytes, size_t count) {
    return chunk(context, "IDAT", bytes, count);
}

static void palette_of(unsigned char *palette) {
    for (int i = 0; i < GREYS; i++) {
        int g = 191 + i;
        unsigned char *grey = palette + 3 * i, *tint = palette + 3 * (TINTS + i);
        grey[0] = grey[1] = grey[2] = (unsigned char) g;
        tint[0] = (unsigned char) (int) (0.8f * g), tint[1] = (unsigned char) (int) (0.88f * g), tint[2] = (unsigned char) g;
    }
    memcpy(palette + 3 * YELLOW, (const unsigned char[]) {255, 255, 0}, 3);
    memcpy(palette + 3 * RED, (const unsigned char[]) {255, 0, 0}, 3);
}

/* What the marked picture is made of: the current picture's rows (NULL:
 * all red), the compared area, the mask and its box, the moved rows. */
typedef struct {
    const unsigned char *rows, *mask, *moved;
    int width, height, current_width, current_height, box_x, box_y, box_width, box_height;
    DiffPaging paging;
    Lumas lumas;
} Marked;

static int marked_open(Marked *m, VipsImage *current, int width, int height, VipsImage *mask_image, int box_x,
                       int box_y, const unsigned char *moved) {
    *m = (Marked) {.width = width, .height = height, .moved = moved, .box_x = box_x, .box_y = box_y,
                   .paging = {.every = 8 << 20}};
    lumas_of(&m->lumas);
    int mapped = 0;
    if (mask_image) {
        m->mask = vdiff_rows_of(mask_image, &mapped);
        if (!m->mask || mapped || mask_image->Bands != 1 || mask_image->BandFmt != VIPS_FORMAT_UCHAR) {
            vips_error("collage", "the difference's mask is not a picture of 8-bit values in memory");
            return -1;
        }
        m->box_width = mask_image->Xsize, m->box_height = mask_image->Ysize;
        if (box_x < 0 || box_y < 0 || box_x + m->box_width > width || box_y + m->box_height > height) {
            vips_error("collage", "the difference's mask lies outside its picture");
            return -1;
        }
    }
    if (current) {
        m->rows = vdiff_rows_of(current, &mapped);
        if (!m->rows || current->Bands != 3 || current->BandFmt != VIPS_FORMAT_UCHAR) {
            vips_error("collage", "the difference picture's page has no rows of 8-bit RGB");
            return -1;
        }
        if (mapped) diff_paging_add(&m->paging, m->rows, (size_t) current->Xsize * current->Ysize * 3);
        m->current_width = current->Xsize, m->current_height = current->Ysize;
    }
    return 0;
}

/* The palette's indices of row y (0 <= y < height), `width` of them. */
static void marked_row(Marked *m, int y, unsigned char *index) {
    int width = m->width;
    if (!m->rows) {  /* an added or removed picture: all changed */
        memset(index, RED, (size_t) width);
        return;
    }
    int shade = m->moved && m->moved[y] ? TINTS : 0, inside = y < m->current_height ? m->current_width : 0;
    const unsigned char *pixel = m->rows + (size_t) y * m->current_width * 3;
    /* A page is runs of one colour: a row of one colour is one index (a
     * row is its first pixel repeated when it equals itself moved by one
     * pixel), and in other rows a pixel like the one before takes its index. */
    int shown = inside < width ? inside : width;
    if (shown > 1 && memcmp(pixel, pixel + 3, (size_t) (shown - 1) * 3) == 0) {
        memset(index, shade + faded(&m->lumas, pixel) - 191, (size_t) shown);
        shown = 0;
    }
    uint32_t before = 0xFFFFFFFFu;
    unsigned char same = 0;
    for (int x = 0; x < shown; x++, pixel += 3) {
        uint32_t colour = (uint32_t) pixel[0] | (uint32_t) pixel[1] << 8 | (uint32_t) pixel[2] << 16;
        if (colour != before) before = colour, same = (unsigned char) (shade + faded(&m->lumas, pixel) - 191);
        index[x] = same;
    }
    if (inside < width) memset(index + inside, shade + GREYS - 1, (size_t) (width - inside));  /* white */
    if (y < m->current_height) diff_paging_touch(&m->paging, (size_t) m->current_width * 3);
    if (m->mask && y >= m->box_y && y < m->box_y + m->box_height) {
        const unsigned char *marks = m->mask + (size_t) (y - m->box_y) * m->box_width;
        for (int x = next_mark(marks, 0, m->box_width); x < m->box_width; x = next_mark(marks, x + 1, m->box_width))
            index[m->box_x + x] = marks[x] > 191 ? RED : YELLOW;
    }
}

static int header(PNGWriter *png, int width, int height) {
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char ihdr[13] = {0};
    put32(ihdr, (unsigned long) width), put32(ihdr + 4, (unsigned long) height);
    ihdr[8] = 8, ihdr[9] = 3;  /* 8 bits, a palette */
    unsigned char palette[COLOURS * 3];
    palette_of(palette);
    return write_all(png, signature, 8) || chunk(png, "IHDR", ihdr, 13) || chunk(png, "PLTE", palette, sizeof palette);
}

int vdiff_png_write(VipsImage *current, int width, int height, VipsImage *mask_image, int box_x, int box_y,
                         const unsigned char *moved, int fd) {
    Marked marked;
    if (marked_open(&marked, current, width, height, mask_image, box_x, box_y, moved)) return -1;
    PNGWriter *png = g_try_malloc(sizeof(PNGWriter));
    unsigned char *row = g_try_malloc((size_t) width + 1);
    if (!png || !row || row_deflate_open(&png->zip, width + 1, idat, png) != 0) {
        g_free(png), g_free(row);
        diff_paging_release(&marked.paging);
        vips_error("collage", "out of memory");
        return -1;
    }
    png->fd = fd, png->error = 0;
    int failed = header(png, width, height);
    row[0] = 0;  /* no filter */
    for (int y = 0; y < height && !failed; y++) {
        marked_row(&marked, y, row + 1);
        row_deflate_row(&png->zip, row);
        failed = png->error;
    }
    if (!failed) failed = row_deflate_finish(&png->zip);
    else row_deflate_close(&png->zip);
    if (!failed) failed = chunk(png, "IEND", NULL, 0);
    diff_paging_release(&marked.paging);
    int error = png->error;
    g_free(png), g_free(row);
    return error;
}

/* Boxes of whole pixels: box[i] is the one of `boxes` that pixel i of
 * `length` falls in, each pixel in exactly one. */
static int *boxes_of(int length, int boxes) {
    int *box = g_try_malloc((size_t) length * sizeof(int));
    if (!box) return NULL;
    for (int b = 0; b < boxes; b++) {
        int from = (int) ((long long) b * length / boxes), to = (int) ((long long) (b + 1) * length / boxes);
        for (int i = from; i < to; i++) box[i] = b;
    }
    return box;
}

static VipsImage *owned(unsigned char *data, int width, int height, int bands) {
    return data ? vdiff_image_new_owning(data, width, height, bands) : NULL;
}

/* Rows shrunk as they come: a region w x h to out_w x out_h (at most its
 * size) by averaging boxes of whole pixels, each pixel in exactly one box,
 * holding one row of sums, never the region. Each row is added into its
 * columns' sums (one sweep the compiler makes vector code of); a line of
 * boxes is summed across only once its last row is in. */
typedef struct {
    int w, h, out_w, out_h, bands;
    int *column, *line, *edges;  /* edges[b]: box b's first column; edges[out_w] = w */
    unsigned int *sums;          /* w x bands: each column's sum over the rows of the line being summed */
    unsigned char *pixels;
    int from;  /* the first row of the box being summed */
} Shrinker;

static void shrinker_free(Shrinker *s) {
    g_free(s->column), g_free(s->line), g_free(s->edges), g_free(s->sums), g_free(s->pixels);
    s->column = s->line = s->edges = NULL, s->sums = NULL, s->pixels = NULL;
}

static int shrinker_open(Shrinker *s, int w, int h, int out_w, int out_h, int bands) {
    *s = (Shrinker) {.w = w, .h = h, .out_w = out_w, .out_h = out_h, .bands = bands};
    if (w < 1 || h < 1 || out_w < 1 || out_h < 1 || out_w > w || out_h > h || bands < 1 || bands > 4) {
        vips_error("collage", "cannot shrink a picture of %dx%d to %dx%d", w, h, out_w, out_h);
        return -1;
    }
    s->column = boxes_of(w, out_w), s->line = boxes_of(h, out_h);
    s->edges = g_try_malloc((size_t) (out_w + 1) * sizeof(int));
    s->sums = g_try_malloc0((size_t) w * bands * sizeof(unsigned int));
    s->pixels = g_try_malloc((size_t) out_w * out_h * bands);
    if (!s->column || !s->line || !s->edges || !s->sums || !s->pixels) {
        shrinker_free(s);
        vips_error("collage", "out of memory");
        return -1;
    }
    for (int b = 0; b <= out_w; b++) s->edges[b] = (int) ((long long) b * w / out_w);
    return 0;
}

/* n / d rounded down, from its product with 1 / d (a multiply, where a
 * division costs tens of cycles), put right when the product's rounding
 * made it one off. */
static inline unsigned int rounded_quotient(unsigned int n, unsigned int d, double inverse) {
    unsigned int q = (unsigned int) ((double) n * inverse);
    if ((unsigned long long) q * d > n) q--;
    else if ((unsigned long long) (q + 1) * d <= n) q++;
    return q;
}

/* Row r of the region (r = 0, 1, ... in order), w pixels of `bands` bytes. */
static void shrinker_row(Shrinker *s, int r, const unsigned char *row) {
    int bands = s->bands;
    size_t length = (size_t) s->w * bands;
    if (s->out_w == s->w && s->out_h == s->h) {  /* 1:1 */
        memcpy(s->pixels + (size_t) r * length, row, length);
        return;
    }
    unsigned int *restrict sums = s->sums;
    const unsigned char *restrict bytes = row;
    for (size_t i = 0; i < length; i++) sums[i] += bytes[i];
    if (r + 1 < s->h && s->line[r + 1] == s->line[r]) return;
    unsigned char *to = s->pixels + (size_t) s->line[r] * s->out_w * bands;
    unsigned int rows = (unsigned int) (r + 1 - s->from), count = 0;
    double inverse = 0;
    int shift = -1;  /* count is 1 << shift (a shrink by a little: boxes of 1 or 2), else -1 */
    for (int b = 0; b < s->out_w; b++) {
        int left = s->edges[b], right = s->edges[b + 1];
        if ((unsigned int) (right - left) * rows != count) {  /* boxes are of one or two widths */
            count = (unsigned int) (right - left) * rows;
            inverse = 1.0 / count;
            shift = (count & (count - 1)) == 0 ? __builtin_ctz(count) : -1;
        }
        unsigned int totals[4] = {0, 0, 0, 0};
        if (bands == 3) {
            for (int x = left; x < right; x++) {
                const unsigned int *sum = sums + (size_t) x * 3;
                totals[0] += sum[0], totals[1] += sum[1], totals[2] += sum[2];
            }
        } else {
            for (int x = left; x < right; x++)
                for (int band = 0; band < bands; band++) totals[band] += sums[(size_t) x * bands + band];
        }
        if (shift >= 0) {
            for (int band = 0; band < bands; band++)
                to[bands * b + band] = (unsigned char) ((totals[band] + count / 2) >> shift);
        } else {
            for (int band = 0; band < bands; band++)
                to[bands * b + band] = (unsigned char) rounded_quotient(totals[band] + count / 2, count, inverse);
        }
    }
    memset(sums, 0, length * sizeof(unsigned int));
    s->from = r + 1;
}

static int shrinker_close(Shrinker *s, VipsImage **out) {
    unsigned char *pixels = s->pixels;
    s->pixels = NULL;
    shrinker_free(s);
    *out = vdiff_image_new_owning(pixels, s->out_w, s->out_h, s->bands);
    return *out ? 0 : -1;
}

/* The difference picture's page small (the cell's panel beside a region):
 * the current picture over the width x height area (white beyond it)
 * averaged over boxes of whole pixels into out_width x out_height, each
 * pixel of the area in exactly one box; and where the mask's pixels are,
 * over 191 (`changed`) and over 0 (`explained`), 255 in the box that holds
 * them, so that a marked pixel stays marked however far it is shrunk. One
 * sweep over the rows, instead of libvips shrinking the page and two masks
 * the size of the page: the rows through `Marked`, averaged by a
 * `Shrinker`, the marks placed in its boxes. */
int vdiff_small_page(VipsImage *current, int width, int height, VipsImage *mask_image, int mask_x, int mask_y,
                          int out_width, int out_height, VipsImage **page, VipsImage **changed, VipsImage **explained) {
    *page = *changed = *explained = NULL;
    Marked marked;
    Shrinker shrinker;
    if (!current) {
        vips_error("collage", "a small page needs its page");
        return -1;
    }
    if (marked_open(&marked, current, width, height, mask_image, mask_x, mask_y, NULL) ||
        shrinker_open(&shrinker, width, height, out_width, out_height, 3)) return -1;
    size_t boxes = (size_t) out_width * out_height;
    unsigned char *row = g_try_malloc((size_t) width * 3);
    unsigned char *red = marked.mask ? g_try_malloc0(boxes) : NULL, *yellow = marked.mask ? g_try_malloc0(boxes) : NULL;
    if (!row || (marked.mask && (!red || !yellow))) {
        g_free(row), g_free(red), g_free(yellow), shrinker_free(&shrinker);
        vips_error("collage", "out of memory");
        return -1;
    }
    int inside = marked.current_width < width ? marked.current_width : width;
    for (int y = 0; y < height; y++) {
        int from = 0;
        if (y < marked.current_height) {
            memcpy(row, marked.rows + (size_t) y * marked.current_width * 3, (size_t) inside * 3);
            diff_paging_touch(&marked.paging, (size_t) marked.current_width * 3);
            from = inside;
        }
        memset(row + (size_t) from * 3, 255, (size_t) (width - from) * 3);  /* white beyond the current picture */
        shrinker_row(&shrinker, y, row);
    }
    diff_paging_release(&marked.paging);
    g_free(row);
    for (int y = 0; y < marked.box_height; y++) {
        const unsigned char *marks = marked.mask + (size_t) y * marked.box_width;
        size_t at = (size_t) shrinker.line[mask_y + y] * out_width;
        for (int x = next_mark(marks, 0, marked.box_width); x < marked.box_width;
             x = next_mark(marks, x + 1, marked.box_width)) {
            yellow[at + shrinker.column[mask_x + x]] = 255;
            if (marks[x] > 191) red[at + shrinker.column[mask_x + x]] = 255;
        }
    }
    if (shrinker_close(&shrinker, page)) {
        g_free(red), g_free(yellow);
        return -1;
    }
    *changed = owned(red, out_width, out_height, 1);
    *explained = owned(yellow, out_width, out_height, 1);
    if (marked.mask && (!*changed || !*explained)) {
        g_object_unref(*page);
        if (*changed) g_object_unref(*changed);
        if (*explained) g_object_unref(*explained);
        *page = *changed = *explained = NULL;
        return -1;
    }
    return 0;
}

int vdiff_region_shrunk(VipsImage *picture, int x, int y, int w, int h, int out_w, int out_h, VipsImage **out) {
    *out = NULL;
    int mapped = 0, bands = picture->Bands, width = picture->Xsize, height = picture->Ysize;
    const unsigned char *rows = vdiff_rows_of(picture, &mapped);
    if (!rows || picture->BandFmt != VIPS_FORMAT_UCHAR) {
        vips_error("collage", "the picture has no rows of 8-bit values");
        return -1;
    }
    Shrinker shrinker;
    if (shrinker_open(&shrinker, w, h, out_w, out_h, bands)) return -1;
    unsigned char *row = g_try_malloc((size_t) w * bands);
    if (!row) {
        shrinker_free(&shrinker);
        vips_error("collage", "out of memory");
        return -1;
    }
    DiffPaging paging = {.every = 8 << 20};
    if (mapped) diff_paging_add(&paging, rows, (size_t) width * height * bands);
    int left = x < 0 ? 0 : x, right = x + w > width ? width : x + w;
    for (int r = 0; r < h; r++) {
        int source = y + r;
        memset(row, 255, (size_t) w * bands);  /* white outside the picture */
        if (source >= 0 && source < height && left < right) {
            memcpy(row + (size_t) (left - x) * bands, rows + ((size_t) source * width + left) * bands,
                   (size_t) (right - left) * bands);
            diff_paging_touch(&paging, (size_t) width * bands);
        }
        shrinker_row(&shrinker, r, row);
    }
    diff_paging_release(&paging);
    g_free(row);
    return shrinker_close(&shrinker, out);
}

int vdiff_marked_shrunk(VipsImage *current, int width, int height, VipsImage *mask, int box_x, int box_y,
                             const unsigned char *moved, int x, int y, int w, int h, int out_w, int out_h,
                             VipsImage **out) {
    *out = NULL;
    Marked marked;
    Shrinker shrinker;
    if (marked_open(&marked, current, width, height, mask, box_x, box_y, moved)) return -1;
    if (shrinker_open(&shrinker, w, h, out_w, out_h, 3)) return -1;
    unsigned char palette[COLOURS * 3];
    palette_of(palette);
    unsigned char *index = g_try_malloc((size_t) width), *row = g_try_malloc((size_t) w * 3);
    if (!index || !row) {
        g_free(index), g_free(row), shrinker_free(&shrinker);
        vips_error("collage", "out of memory");
        return -1;
    }
    int left = x < 0 ? 0 : x, right = x + w > width ? width : x + w;
    for (int r = 0; r < h; r++) {
        int source = y + r;
        memset(row, 255, (size_t) w * 3);  /* white outside the compared area */
        if (source >= 0 && source < height && left < right) {
            marked_row(&marked, source, index);
            unsigned char *to = row + (size_t) (left - x) * 3;
            for (int column = left; column < right; column++, to += 3) memcpy(to, palette + 3 * index[column], 3);
        }
        shrinker_row(&shrinker, r, row);
    }
    diff_paging_release(&marked.paging);
    g_free(index), g_free(row);
    return shrinker_close(&shrinker, out);
}
