#include "CVisualDiff.h"
#include "DiffViews.h"
#include "RowAlignment.h"
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A pair of pictures analysed (see CVisualDiff.h): rows aligned, each row
 * that is not a match judged pixel by pixel (PixelMatch.c), the counted and
 * explained pixels kept as a mask over their bounding box in the current
 * picture, the moved bands listed, and pixelmatch's own count taken on the
 * pictures as they are. */

static int ignored(const int *ignore, int count, int x, int y) {
    for (int i = 0; i < count; i++) {
        const int *r = ignore + 4 * i;
        if (x >= r[0] && y >= r[1] && x < r[0] + r[2] && y < r[1] + r[3]) return 1;
    }
    return 0;
}

/* A picture's rows (3-band uchar), in memory or on disc (its mapping then
 * added to `paging`); NULL when it has none. */
static const unsigned char *rows_of(VipsImage *image, DiffPaging *paging) {
    int mapped = 0;
    const unsigned char *rows = vdiff_rows_of(image, &mapped);
    if (!rows || image->Bands != 3 || image->BandFmt != VIPS_FORMAT_UCHAR) return NULL;
    if (mapped) diff_paging_add(paging, rows, (size_t) image->Xsize * image->Ysize * 3);
    return rows;
}

/* How many bytes of rows a sweep reads before the mappings' pages are
 * given back. */
enum { PAGING_EVERY = 8 << 20 };

int vdiff_same_pixels(VipsImage *left, VipsImage *right) {
    DiffPaging paging = {.every = PAGING_EVERY};
    const unsigned char *a = rows_of(left, &paging), *b = rows_of(right, &paging);
    if (!a || !b) return -1;
    if (left->Xsize != right->Xsize || left->Ysize != right->Ysize) return 0;
    size_t length = (size_t) left->Xsize * left->Ysize * 3, chunk = 1 << 20;
    for (size_t at = 0; at < length; at += chunk) {
        size_t count = length - at < chunk ? length - at : chunk;
        diff_paging_touch(&paging, 2 * count);
        if (memcmp(a + at, b + at, count) != 0) return 0;
    }
    return 1;
}

/* What pass 1 found at each pixel of the spans it kept, two bits a pixel
 * (0 the same, 1 counted, 2 explained, 3 faint: other bytes, but under the
 * threshold), one span after another. */
enum { FAINT = 3 };
typedef struct {
    unsigned char *bits;
    size_t used, capacity;  /* in pixels */
} Judgements;

static int judgements_keep(Judgements *kept, const unsigned char *found, int span) {
    if (kept->used + (size_t) span > kept->capacity) {
        size_t capacity = kept->capacity ? kept->capacity : 1 << 16;
        while (kept->used + (size_t) span > capacity) capacity *= 2;
        unsigned char *bits = realloc(kept->bits, (capacity + 3) / 4);
        if (!bits) return 0;
        memset(bits + (kept->capacity + 3) / 4, 0, (capacity + 3) / 4 - (kept->capacity + 3) / 4);
        kept->bits = bits, kept->capacity = capacity;
    }
    for (int i = 0; i < span; i++) {
        size_t at = kept->used + (size_t) i;
        kept->bits[at / 4] |= (unsigned char) (found[i] << (at % 4 * 2));
    }
    kept->used += (size_t) span;
    return 1;
}

static inline int judgement(const Judgements *kept, size_t at) {
    return kept->bits[at / 4] >> (at % 4 * 2) & 3;
}

/* Rows are shared out between two threads (`shared`) in runs of this many,
 * alternately, so that each gets its share of the rows that differ. */
enum { RUN = 32 };

static inline int mine(int k, int part, int parts) { return parts == 1 || (k / RUN) % parts == part; }

/* Runs body(0) on a second thread and body(1) on this one when `parts` is
 * 2 (and a thread can be had), else body(0) alone with parts 1; returns
 * how many parts ran. */
typedef struct { void (*body)(void *, int, int); void *context; } Shared;

static void *shared_second(void *argument) {
    Shared *shared = argument;
    shared->body(shared->context, 0, 2);
    return NULL;
}

static int shared(void (*body)(void *, int, int), void *context, int parts) {
    pthread_t second;
    Shared work = {body, context};
    if (parts == 2 && pthread_create(&second, NULL, shared_second, &work) == 0) {
        body(context, 1, 2);
        pthread_join(second, NULL);
        return 2;
    }
    body(context, 0, 1);
    return 1;
}

typedef struct {
    DiffView va, vb;
    const unsigned char **rows;
    int width, height;
    DiffRule rule;
    const int *ignore;
    int ignore_count;
    DiffPaging *paging;
    size_t pair_row;
    long long count[2];
} PlainCount;

static void plain_count_part(void *context, int part, int parts) {
    PlainCount *c = context;
    long long count = 0;
    for (int y = 0; y < c->height; y++) {
        if (!mine(y, part, parts)) continue;
        diff_paging_touch(c->paging, c->pair_row);
        if (memcmp(c->rows[y], c->rows[c->height + y], (size_t) c->width * 3) == 0) continue;
        for (int x = diff_next_differing(&c->va, &c->vb, y, 0, c->width); x < c->width;
             x = diff_next_differing(&c->va, &c->vb, y, x + 1, c->width)) {
            if (ignored(c->ignore, c->ignore_count, x, y)) continue;
            count += diff_judge(&c->va, &c->vb, y, x, &c->rule) == DIFF_COUNTED;
        }
    }
    c->count[part] = count;
}

/* pixelmatch's count over the top-left width x height of both, as they
 * are; on two threads with `parts` 2 (pictures in memory only). */
static long long plain_count(const unsigned char *a, int a_width, const unsigned char *b, int b_width, int width,
                             int height, const DiffRule *rule, const int *ignore, int ignore_count, DiffPaging *paging,
                             int parts) {
    const unsigned char **rows = malloc(sizeof(*rows) * 2 * (size_t) height);
    if (!rows) return -1;
    for (int y = 0; y < height; y++) {
        rows[y] = a + (size_t) y * a_width * 3;
        rows[height + y] = b + (size_t) y * b_width * 3;
    }
    PlainCount c = {{rows, NULL, width, height, width}, {rows + height, NULL, width, height, width}, rows, width,
                    height, *rule, ignore, ignore_count, paging, (size_t) (a_width + b_width) * 3, {0, 0}};
    c.rule.near_rule = 0;
    shared(plain_count_part, &c, paging->count ? 1 : parts);
    free(rows);
    return c.count[0] + c.count[1];
}

static uint64_t mix(uint64_t hash, uint64_t value) {
    hash = (hash ^ value) * 0xFF51AFD7ED558CCDull;
    return hash ^ (hash >> 29);
}

/* The real change's fingerprint: the bounding box of the mask's 255s (in
 * the current picture), which of its pixels changed, and both pictures'
 * pixels in that box (the baseline's clamped to its size). */
static uint64_t change_hash(const unsigned char *mask, int mw, int mh, int mx, int my, VipsImage *baseline,
                            VipsImage *current, const unsigned char *data[2], DiffPaging *paging,
                            vdiff_result *result) {
    int x0 = mw, x1 = -1, y0 = mh, y1 = -1;
    for (int y = 0; y < mh; y++) {
        for (int x = 0; x < mw; x++) {
            if (mask[(size_t) y * mw + x] != 255) continue;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            y1 = y;
        }
    }
    if (x1 >= 0) {
        result->change_x = mx + x0, result->change_y = my + y0;
        result->change_width = x1 - x0 + 1, result->change_height = y1 - y0 + 1;
    }
    uint64_t hash = 0x84222325CBF29CE4ull;
    hash = mix(mix(mix(mix(hash, (uint64_t) (mx + x0)), (uint64_t) (my + y0)), (uint64_t) (x1 - x0)), (uint64_t) (y1 - y0));
    VipsImage *sides[2] = {baseline, current};
    for (int y = y0; y <= y1; y++) {
        diff_paging_touch(paging, (size_t) (baseline->Xsize + current->Xsize) * 3);
        for (int x = x0; x <= x1; x++) hash = mix(hash, mask[(size_t) y * mw + x] == 255);
        for (int side = 0; side < 2; side++) {
            VipsImage *picture = sides[side];
            int row = my + y < picture->Ysize ? my + y : picture->Ysize - 1;
            for (int x = x0; x <= x1; x++) {
                int column = mx + x < picture->Xsize ? mx + x : picture->Xsize - 1;
                const unsigned char *p = data[side] + ((size_t) row * picture->Xsize + column) * 3;
                hash = mix(hash, (uint64_t) p[0] << 16 | (uint64_t) p[1] << 8 | p[2]);
            }
        }
    }
    return hash ? hash : 1;
}

/* Pass 1's work, shared: what it reads, and what each part found. */
typedef struct {
    const DiffEntry *entries;
    int count, width;
    DiffView va, vb;
    DiffRule rule;
    const int *ignore;
    int ignore_count;
    DiffPaging *paging;
    size_t pair_row;
    int *low, *high;
    size_t *kept_at;
    Judgements kept[2];
    long long counted[2], near[2], aa[2];
    int box[2][4];  /* x0, x1, y0, y1; x1 -1: none */
    int failed[2];
} PassOne;

static void pass_one(void *context, int part, int parts) {
    PassOne *one = context;
    int width = one->width, x0 = width, x1 = -1, y0 = INT_MAX, y1 = -1;
    long long counted = 0, near = 0, aa = 0;
    Judgements *kept = &one->kept[part];
    unsigned char *found = malloc((size_t) (width > 0 ? width : 1));
    if (!found) {
        one->failed[part] = 1;
        return;
    }
    for (int k = 0, last = -2; k < one->count; k++) {
        if (!mine(k, part, parts)) continue;
        const DiffEntry *entry = one->entries + k;
        one->low[k] = width, one->high[k] = -1;
        if (entry->kind == DIFF_MATCHED || entry->kind >= DIFF_FILLER) continue;
        diff_paging_touch(one->paging, one->pair_row * (last == k - 1 ? 1 : 5));
        last = k;
        memset(found, 0, (size_t) width);
        int low = width, high = -1;
        for (int x = diff_next_differing(&one->va, &one->vb, k, 0, width); x < width;
             x = diff_next_differing(&one->va, &one->vb, k, x + 1, width)) {
            if (ignored(one->ignore, one->ignore_count, x, entry->b)) continue;
            int judged = diff_judge(&one->va, &one->vb, k, x, &one->rule);
            /* Other bytes under the threshold: faint, judged with its region. */
            counted += judged == DIFF_COUNTED, near += judged == DIFF_NEAR, aa += judged == DIFF_ANTI_ALIASED;
            found[x] = judged == DIFF_SAME ? FAINT : judged == DIFF_COUNTED ? 1 : 2;
            if (x < low) low = x;
            high = x;
        }
        one->low[k] = low, one->high[k] = high;
        if (high < 0) continue;
        one->kept_at[k] = kept->used;
        if (!judgements_keep(kept, found + low, high - low + 1)) {
            one->failed[part] = 1;
            break;
        }
        if (low < x0) x0 = low;
        if (high > x1) x1 = high;
        if (entry->b < y0) y0 = entry->b;
        if (entry->b > y1) y1 = entry->b;
    }
    free(found);
    one->counted[part] = counted, one->near[part] = near, one->aa[part] = aa;
    one->box[part][0] = x0, one->box[part][1] = x1, one->box[part][2] = y0, one->box[part][3] = y1;
}

/* Regions: the differing pixels of the aligned rows (counted, explained or
 * faint), joined where they touch (any of eight neighbours), each judged
 * as a whole as well as pixel by pixel. A region whose colour moved
 * consistently (most of its pixels moved the same way: a fill, a border
 * or a text colour changed, often by less than the threshold at every
 * pixel) is a change, every pixel of it counted; text rasterised a
 * fraction of a pixel aside, re-hinted or anti-aliased otherwise keeps
 * its ink, lighter here and darker there, and stays what its pixels are.
 * Labelled row by row (runs of differing pixels, a union-find over the
 * runs that start a region); the mask pass labels the same runs again in
 * the same order, so no label is kept a pixel. */
typedef struct {
    int parent, interior, changed;
    long long pixels, counted, explained;
    long long base[3], diff[3], spread;  /* sums: the baseline's colour, current - baseline, |current - baseline| */
} Region;

/* Past this many regions (a picture of countless specks) no region is
 * judged as a whole: its pixels stay what they are one by one. A region
 * costs 80 bytes: at most 0.625 bytes a pixel, within what the pair's
 * comparison is counted for (a page of text rendered a fraction of a
 * pixel aside starts about one region in 280 pixels). */
static int most_regions(long long pixels) {
    long long most = pixels / 128;
    return most < 4096 ? 4096 : most > INT_MAX / 2 ? INT_MAX / 2 : (int) most;
}

typedef struct {
    int count, width;
    const int *low, *high;
    const size_t *kept_at;
    const Judgements *kept;
    int parts;
    DiffView va, vb;
    DiffPaging *paging;
    size_t pair_row;
    Region *regions;
    int used, capacity, most;
    int *runs;  /* this row's and the previous row's runs: x0, x1, label, for each, 3 * (width + 1) a row */
    int at[2];  /* how many runs each holds */
} Regions;

static inline int found_at(const Regions *r, int k, int x) {
    if (k < 0 || k >= r->count || r->high[k] < 0 || x < r->low[k] || x > r->high[k]) return 0;
    return judgement(&r->kept[r->parts == 2 && mine(k, 1, 2)], r->kept_at[k] + (size_t) (x - r->low[k]));
}

/* Pixel x of a row whose judgements start at bit pair `start` + x. */
static inline int found_in(const unsigned char *bits, size_t start, int x) {
    size_t at = start + (size_t) x;
    return bits[at / 4] >> (at % 4 * 2) & 3;
}

static int region_root(Region *regions, int i) {
    while (regions[i].parent != i) {
        regions[i].parent = regions[regions[i].parent].parent;
        i = regions[i].parent;
    }
    return i;
}

static int region_join(Region *regions, int a, int b) {
    a = region_root(regions, a), b = region_root(regions, b);
    if (a == b) return a;
    if (b < a) { int t = a; a = b; b = t; }
    Region *into = regions + a, *from = regions + b;
    from->parent = a;
    into->interior += from->interior;
    into->pixels += from->pixels, into->counted += from->counted, into->explained += from->explained;
    for (int c = 0; c < 3; c++) into->base[c] += from->base[c], into->diff[c] += from->diff[c];
    into->spread += from->spread;
    return a;
}

/* Row k's runs (into slot `side` of r->runs), each labelled: the label of
 * a run of the previous row it touches (joining them when `joining`),
 * else a new one (*next, counted up). -1 when a new region cannot be had. */
static int region_runs(Regions *r, int k, int side, int joining, int *next) {
    int *runs = r->runs + (size_t) side * 3 * (r->width + 1), *above = r->runs + (size_t) (1 - side) * 3 * (r->width + 1);
    int n = 0, above_count = r->at[1 - side], j = 0;
    if (r->high[k] >= 0) {
        /* Row k's judgements, read in place: pixel x at bit pair `start` + x;
         * a byte of four that are all 0 is passed at once. */
        const unsigned char *bits = r->kept[r->parts == 2 && mine(k, 1, 2)].bits;
        size_t start = r->kept_at[k] - (size_t) r->low[k];
        for (int x = r->low[k], high = r->high[k]; x <= high; x++) {
            if ((start + (size_t) x) % 4 == 0) {
                while (x + 3 <= high && bits[(start + (size_t) x) / 4] == 0) x += 4;
                if (x > high) break;
            }
            if (!found_in(bits, start, x)) continue;
            int x0 = x;
            while (x + 1 <= high && found_in(bits, start, x + 1)) x++;
            int label = -1;
            while (j < above_count && above[3 * j + 1] < x0 - 1) j++;
            for (int t = j; t < above_count && above[3 * t] <= x + 1; t++) {
                if (label < 0) label = joining ? region_root(r->regions, above[3 * t + 2]) : above[3 * t + 2];
                else if (joining) label = region_join(r->regions, label, above[3 * t + 2]);
            }
            if (label < 0) {
                label = (*next)++;
                if (joining) {
                    if (label >= r->most) return -1;
                    if (label >= r->capacity) {
                        int capacity = r->capacity ? 2 * r->capacity : 1024;
                        Region *grown = realloc(r->regions, sizeof(Region) * (size_t) capacity);
                        if (!grown) return -1;
                        r->regions = grown, r->capacity = capacity;
                    }
                    r->regions[label] = (Region) {.parent = label};
                    r->used = label + 1;
                }
            }
            runs[3 * n] = x0, runs[3 * n + 1] = x, runs[3 * n + 2] = label;
            n++;
        }
    }
    r->at[side] = n;
    return 0;
}

/* The region's sums for row k's runs (slot `side`). */
static void region_sums(Regions *r, int k, int side) {
    const int *runs = r->runs + (size_t) side * 3 * (r->width + 1);
    if (r->at[side] == 0) return;
    diff_paging_touch(r->paging, r->pair_row);
    const unsigned char *bits = r->kept[r->parts == 2 && mine(k, 1, 2)].bits;
    size_t start = r->kept_at[k] - (size_t) r->low[k];
    /* The rows above and below, for the interior test: a pixel inside a
     * run whose three neighbours above and below are all found (the
     * columns x - 1 to x + 1 within their spans). */
    const unsigned char *near_bits[2] = {NULL, NULL};
    size_t near_start[2] = {0, 0};
    int near_low[2] = {0, 0}, near_high[2] = {-1, -1};
    for (int i = 0; i < 2; i++) {
        int row = k - 1 + 2 * i;
        if (row < 0 || row >= r->count || r->high[row] < 0) continue;
        near_bits[i] = r->kept[r->parts == 2 && mine(row, 1, 2)].bits;
        near_start[i] = r->kept_at[row] - (size_t) r->low[row], near_low[i] = r->low[row], near_high[i] = r->high[row];
    }
    for (int t = 0; t < r->at[side]; t++) {
        Region *region = r->regions + region_root(r->regions, runs[3 * t + 2]);
        for (int x = runs[3 * t]; x <= runs[3 * t + 1]; x++) {
            const unsigned char *p = diff_pixel(&r->va, k, x), *q = diff_pixel(&r->vb, k, x);
            int found = found_in(bits, start, x);
            region->pixels++, region->counted += found == 1, region->explained += found == 2;
            for (int c = 0; c < 3; c++) {
                int d = (int) q[c] - p[c];
                region->base[c] += p[c], region->diff[c] += d, region->spread += d < 0 ? -d : d;
            }
            if (region->interior || x <= runs[3 * t] || x >= runs[3 * t + 1]) continue;
            int inside = 1;
            for (int i = 0; i < 2 && inside; i++) {
                inside = near_bits[i] && x - 1 >= near_low[i] && x + 1 <= near_high[i] &&
                         found_in(near_bits[i], near_start[i], x - 1) && found_in(near_bits[i], near_start[i], x) &&
                         found_in(near_bits[i], near_start[i], x + 1);
            }
            region->interior = inside;
        }
    }
}

static double srgb_linear(double c) {
    c /= 255;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* An sRGB colour (0-255, fractions allowed) in OKLab. */
static void oklab(const double rgb[3], double out[3]) {
    double r = srgb_linear(rgb[0]), g = srgb_linear(rgb[1]), b = srgb_linear(rgb[2]);
    double l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b);
    double m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b);
    double s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b);
    out[0] = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s;
    out[1] = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s;
    out[2] = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s;
}

/* Whether a region's colour moved as a whole: an area (24 pixels or more,
 * one of them with all its eight neighbours in it: not a one-pixel line,
 * which a sub-pixel move of a straight edge makes), whose pixels moved
 * the same way (the sum of the moves at least 0.8 of the sum of their
 * sizes, channel by channel), by a visible step: its mean colours before
 * and after at least `step` apart in OKLab. */
static int region_changed(const Region *region, double step) {
    if (region->pixels < 24 || region->interior == 0 || region->spread == 0) return 0;
    long long moved = 0;
    for (int c = 0; c < 3; c++) moved += region->diff[c] < 0 ? -region->diff[c] : region->diff[c];
    if ((double) moved < 0.8 * (double) region->spread) return 0;
    double before[3], after[3], lab_before[3], lab_after[3];
    for (int c = 0; c < 3; c++) {
        before[c] = (double) region->base[c] / (double) region->pixels;
        after[c] = (double) (region->base[c] + region->diff[c]) / (double) region->pixels;
    }
    oklab(before, lab_before), oklab(after, lab_after);
    double d0 = lab_after[0] - lab_before[0], d1 = lab_after[1] - lab_before[1], d2 = lab_after[2] - lab_before[2];
    return d0 * d0 + d1 * d1 + d2 * d2 >= step * step;
}

/* Labels the regions and judges each (r->regions then holds them, or
 * NULL when none is judged). The pixels and explained pixels the changed
 * regions add and take away. 0, or -1 out of memory. */
static int regions_judge(Regions *r, double step, long long *added, long long *unexplained) {
    *added = 0, *unexplained = 0;
    r->runs = malloc(sizeof(int) * 6 * ((size_t) r->width + 1));
    if (!r->runs) return -1;
    r->at[0] = r->at[1] = 0;
    int next = 0, side = 0;
    for (int k = 0; k < r->count; k++, side = 1 - side) {
        if (region_runs(r, k, side, 1, &next) != 0) {  /* too many, or no memory: none judged */
            free(r->regions), r->regions = NULL, r->used = 0;
            return 0;
        }
        region_sums(r, k, side);
    }
    for (int i = 0; i < r->used; i++) {
        Region *region = r->regions + i;
        if (region->parent != i || !region_changed(region, step)) continue;
        region->changed = 1;
        *added += region->pixels - region->counted, *unexplained += region->explained;
    }
    r->at[0] = r->at[1] = 0;
    return 0;
}

/* The mask's bytes for row k (`row`, from column box_x0): 255 counted or
 * in a changed region, 128 explained, 0 else; its runs labelled again as
 * regions_judge labelled them (`next`, `side`). */
static void regions_mask_row(Regions *r, int k, int side, int *next, unsigned char *row, int box_x0) {
    if (!r->regions) {
        for (int x = r->low[k]; x <= r->high[k]; x++) {
            int judged = found_at(r, k, x);
            unsigned char value = judged == 1 ? 255 : judged == 2 ? 128 : 0;
            if (value > row[x - box_x0]) row[x - box_x0] = value;
        }
        return;
    }
    region_runs(r, k, side, 0, next);
    const int *runs = r->runs + (size_t) side * 3 * (r->width + 1);
    const unsigned char *bits = r->kept[r->parts == 2 && mine(k, 1, 2)].bits;
    size_t start = r->kept_at[k] - (size_t) r->low[k];
    for (int t = 0; t < r->at[side]; t++) {
        int changed = r->regions[region_root(r->regions, runs[3 * t + 2])].changed;
        for (int x = runs[3 * t]; x <= runs[3 * t + 1]; x++) {
            int judged = found_in(bits, start, x);
            unsigned char value = judged == 1 || changed ? 255 : judged == 2 ? 128 : 0;
            if (value > row[x - box_x0]) row[x - box_x0] = value;
        }
    }
}

int vdiff_analyse(VipsImage *baseline, VipsImage *current, double threshold, int count_aa,
                       const int *ignore, int ignore_count, vdiff_shift *shifts, int max_shifts, int threads,
                       vdiff_result *result) {
    memset(result, 0, sizeof(*result));
    DiffPaging paging = {.every = PAGING_EVERY};
    const unsigned char *a = rows_of(baseline, &paging), *b = rows_of(current, &paging);
    if (!a || !b) return -1;
    int aw = baseline->Xsize, ah = baseline->Ysize, bw = current->Xsize, bh = current->Ysize;
    int width = aw < bw ? aw : bw;
    /* A step of a pass reads rows k - 2 to k + 2 of both: the two new
     * ones when it follows the step before, all ten after a jump. */
    size_t pair_row = (size_t) (aw + bw) * 3;
    DiffEntry *entries = NULL;
    int count = 0;
    if (diff_align(a, aw, ah, b, bw, bh, width, threshold, &paging, &entries, &count) != 0) return -1;
    const unsigned char **rows = malloc(sizeof(*rows) * 2 * (size_t) count);
    int *dx = malloc(sizeof(int) * (size_t) count), *low = malloc(sizeof(int) * 2 * (size_t) count);
    if (!rows || !dx || !low) {
        free(entries), free(rows), free(dx), free(low);
        return -1;
    }
    int identity = aw == bw && ah == bh;
    for (int k = 0; k < count; k++) {
        rows[k] = a + (size_t) entries[k].a * aw * 3;
        rows[count + k] = b + (size_t) entries[k].b * bw * 3;
        dx[k] = entries[k].dx;  /* the baseline is read where the current's pixel came from */
        identity = identity && entries[k].a == entries[k].b && entries[k].dx == 0 && entries[k].kind <= DIFF_PAIRED;
    }
    DiffView va = {rows, dx, width, count, width}, vb = {rows + count, NULL, width, count, width};
    DiffRule rule = {35215.0 * threshold * threshold, count_aa, 1};
    /* Pass 1: the counts, the columns each row's findings span, and what
     * was found there, kept (two bits a pixel) so that the mask is not
     * judged again; on two threads when asked (and the pictures are in
     * memory), each with its own rows and its own judgements. */
    int *high = low + count;
    size_t *kept_at = malloc(sizeof(size_t) * (size_t) (count > 0 ? count : 1));
    if (!kept_at) {
        free(entries), free(rows), free(dx), free(low);
        if (paging.count) diff_paging_release(&paging);
        return -1;
    }
    PassOne one = {.entries = entries, .count = count, .width = width, .va = va, .vb = vb, .rule = rule,
                   .ignore = ignore, .ignore_count = ignore_count, .paging = &paging, .pair_row = pair_row,
                   .low = low, .high = high, .kept_at = kept_at};
    int parts = shared(pass_one, &one, paging.count ? 1 : threads);
    long long counted = one.counted[0] + one.counted[1], near = one.near[0] + one.near[1];
    long long aa = one.aa[0] + one.aa[1];
    int box_x0 = bw, box_x1 = -1, box_y0 = bh, box_y1 = -1;
    for (int part = 0; part < parts; part++) {
        if (one.box[part][1] < 0) continue;
        if (one.box[part][0] < box_x0) box_x0 = one.box[part][0];
        if (one.box[part][1] > box_x1) box_x1 = one.box[part][1];
        if (one.box[part][2] < box_y0) box_y0 = one.box[part][2];
        if (one.box[part][3] > box_y1) box_y1 = one.box[part][3];
    }
    if (one.failed[0] || one.failed[1]) {
        free(entries), free(rows), free(dx), free(low), free(kept_at), free(one.kept[0].bits), free(one.kept[1].bits);
        if (paging.count) diff_paging_release(&paging);
        return -1;
    }
    /* The regions, judged as a whole: a changed one adds its pixels that
     * were not counted, and those it held explained are no longer noise. */
    Regions regions = {.count = count, .width = width, .low = low, .high = high, .kept_at = kept_at,
                       .kept = one.kept, .parts = parts, .va = va, .vb = vb, .paging = &paging,
                       .pair_row = pair_row, .most = most_regions((long long) count * width)};
    long long added = 0, unexplained = 0;
    int status = box_x1 >= 0 ? regions_judge(&regions, 0.1 * threshold, &added, &unexplained) : 0;
    result->pixels = counted + added;
    result->noise = near + aa - unexplained;
    /* Pass 2: the mask over the box, 255 counted, 128 explained, then cut
     * to the box of what it marks (faint pixels of regions that did not
     * change are not marked). */
    if (box_x1 >= 0 && status == 0) {
        int mw = box_x1 - box_x0 + 1, mh = box_y1 - box_y0 + 1;
        unsigned char *mask = calloc((size_t) mw * mh, 1);
        if (!mask) status = -1;
        int next = 0, side = 0, x0 = mw, x1 = -1, y0 = mh, y1 = -1;
        for (int k = 0; mask && k < count; k++, side = 1 - side) {
            /* Rows without a difference may lie outside the box: skipped
               before any pointer into the mask is formed. */
            if (high[k] < 0) {
                if (regions.regions) regions.at[side] = 0;
                continue;
            }
            int y = entries[k].b - box_y0;
            unsigned char *row = mask + (size_t) y * mw;
            regions_mask_row(&regions, k, side, &next, row, box_x0);
            for (int x = low[k] - box_x0; x <= high[k] - box_x0; x++) {
                if (!row[x]) continue;
                if (x < x0) x0 = x;
                if (x > x1) x1 = x;
                if (y < y0) y0 = y;
                if (y > y1) y1 = y;
            }
        }
        if (mask && x1 < 0) {
            free(mask);
        } else if (mask) {
            int width_cut = x1 - x0 + 1, height_cut = y1 - y0 + 1;
            if (width_cut != mw || height_cut != mh) {  /* moved up in place: each row to an earlier place */
                for (int y = 0; y < height_cut; y++)
                    memmove(mask + (size_t) y * width_cut, mask + (size_t) (y0 + y) * mw + x0, (size_t) width_cut);
                box_x0 += x0, box_y0 += y0, mw = width_cut, mh = height_cut;
            }
            result->mask = mask;
            const unsigned char *data[2] = {a, b};
            if (result->pixels > 0)
                result->change_hash = change_hash(mask, mw, mh, box_x0, box_y0, baseline, current, data, &paging, result);
            result->box_x = box_x0, result->box_y = box_y0, result->box_width = mw, result->box_height = mh;
        }
    }
    free(regions.regions), free(regions.runs);
    /* The bands that moved: runs of rows of one offset that is not 0. */
    for (int k = 0; k < count;) {
        int end = k + 1, kind = entries[k].kind;
        int dy = entries[k].b - entries[k].a, sideways = entries[k].dx;
        if (kind <= DIFF_PAIRED) {
            while (end < count && entries[end].kind <= DIFF_PAIRED && entries[end].b - entries[end].a == dy &&
                   entries[end].dx == sideways && entries[end].a == entries[end - 1].a + 1) end++;
            if (dy != 0 || sideways != 0) {
                if (result->shift_count < max_shifts)
                    shifts[result->shift_count] = (vdiff_shift) {entries[k].a, end - k, dy, sideways};
                result->shift_count++;
            }
        }
        k = end;
    }
    /* pixelmatch's count: the same pass when nothing was aligned, else its own. */
    int height = ah < bh ? ah : bh;
    long long rest = (long long) (aw > bw ? aw : bw) * (ah > bh ? ah : bh) - (long long) width * height;
    long long raw = identity ? counted + near
                             : plain_count(a, aw, b, bw, width, height, &rule, ignore, ignore_count, &paging, threads);
    if (raw < 0) status = -1;
    result->raw = raw + rest;
    if (paging.count) diff_paging_release(&paging);
    free(entries), free(rows), free(dx), free(low), free(kept_at), free(one.kept[0].bits), free(one.kept[1].bits);
    if (status != 0) {
        free(result->mask);
        result->mask = NULL;
    }
    return status;
}
