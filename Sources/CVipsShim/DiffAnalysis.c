#include "CVipsShim.h"
#include "DiffViews.h"
#include "RowAlignment.h"
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A pair of pictures analysed (see CVipsShim.h): rows aligned, each row
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
    const unsigned char *rows = cvips_rows_of(image, &mapped);
    if (!rows || image->Bands != 3 || image->BandFmt != VIPS_FORMAT_UCHAR) return NULL;
    if (mapped) diff_paging_add(paging, rows, (size_t) image->Xsize * image->Ysize * 3);
    return rows;
}

/* How many bytes of rows a sweep reads before the mappings' pages are
 * given back. */
enum { PAGING_EVERY = 8 << 20 };

int cvips_diff_same_pixels(VipsImage *left, VipsImage *right) {
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
 * (0 the same, 1 counted, 2 explained), one span after another. */
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
                            cvips_diff_result *result) {
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
            if (judged == DIFF_SAME) continue;
            counted += judged == DIFF_COUNTED, near += judged == DIFF_NEAR, aa += judged == DIFF_ANTI_ALIASED;
            found[x] = judged == DIFF_COUNTED ? 1 : 2;
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

int cvips_diff_analyse(VipsImage *baseline, VipsImage *current, double threshold, int count_aa,
                       const int *ignore, int ignore_count, cvips_shift *shifts, int max_shifts, int threads,
                       cvips_diff_result *result) {
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
    result->pixels = counted;
    result->noise = near + aa;
    /* Pass 2: the mask over the box, 255 counted, 128 explained. */
    int status = 0;
    if (box_x1 >= 0) {
        int mw = box_x1 - box_x0 + 1, mh = box_y1 - box_y0 + 1;
        unsigned char *mask = calloc((size_t) mw * mh, 1);
        if (!mask) status = -1;
        for (int k = 0; mask && k < count; k++) {
            /* Rows without a difference may lie outside the box: skipped
               before any pointer into the mask is formed. */
            if (high[k] < 0) continue;
            unsigned char *row = mask + (size_t) (entries[k].b - box_y0) * mw;
            for (int x = low[k]; x <= high[k]; x++) {
                int judged = judgement(&one.kept[parts == 2 && mine(k, 1, 2)], kept_at[k] + (size_t) (x - low[k]));
                unsigned char value = judged == 1 ? 255 : judged == 2 ? 128 : 0;
                if (value > row[x - box_x0]) row[x - box_x0] = value;
            }
        }
        result->mask = mask;
        const unsigned char *data[2] = {a, b};
        if (mask && counted > 0)
            result->change_hash = change_hash(mask, mw, mh, box_x0, box_y0, baseline, current, data, &paging, result);
        result->box_x = box_x0, result->box_y = box_y0, result->box_width = mw, result->box_height = mh;
    }
    /* The bands that moved: runs of rows of one offset that is not 0. */
    for (int k = 0; k < count;) {
        int end = k + 1, kind = entries[k].kind;
        int dy = entries[k].b - entries[k].a, sideways = entries[k].dx;
        if (kind <= DIFF_PAIRED) {
            while (end < count && entries[end].kind <= DIFF_PAIRED && entries[end].b - entries[end].a == dy &&
                   entries[end].dx == sideways && entries[end].a == entries[end - 1].a + 1) end++;
            if (dy != 0 || sideways != 0) {
                if (result->shift_count < max_shifts)
                    shifts[result->shift_count] = (cvips_shift) {entries[k].a, end - k, dy, sideways};
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
