#include "RowAlignment.h"
#include "DiffViews.h"
#include <stdlib.h>
#include <string.h>

/* The rows of two pictures aligned as a text diff aligns lines: each row
 * is a fingerprint (a hash of its bytes over the common width); rows equal
 * at the start and at the end are matched first, then, between them, the
 * rows that occur once on each side are anchors, and the longest run of
 * anchors in the same order on both sides (patience diff) splits the rest
 * into smaller ranges, aligned the same way (a range with no such row
 * takes the rows equal at the offset where most are). A band that moved as a whole
 * is a run of matched rows whose offset is not 0. The rows left between
 * matches are paired in order; those left over on one side (inserted or
 * deleted) are paired with the nearer-alike row beside the gap. A paired
 * row that equals its partner moved sideways by up to 8 pixels is a
 * sideways move; a flat row inserted or deleted is room a move made; a
 * row left over after the last match is past the other picture's end (a
 * band moved out of the frame, or a taller picture's rest) and is not
 * compared. Costs: a hash a row, and a few passes over the rows. */

typedef struct {
    const unsigned char *a, *b;
    size_t a_stride, b_stride, bytes;
    const uint64_t *ha, *hb;
    int *match;
    DiffPaging *paging;  /* told of every row read */
} Aligner;

/* Rows read, told to the paging: `a` rows of the baseline, `b` of the current. */
static void reading(const Aligner *s, int a, int b) {
    diff_paging_touch(s->paging, (size_t) a * s->a_stride + (size_t) b * s->b_stride);
}

static inline uint64_t hash_step(uint64_t hash, const unsigned char *at) {
    uint64_t word;
    memcpy(&word, at, 8);
    hash = (hash ^ word) * 0xFF51AFD7ED558CCDull;
    return hash ^ (hash >> 29);
}

/* A row's fingerprint: four words at a time into four hashes (each step
 * waits on its multiply, so four chains keep the core busy), then folded
 * into one. Only equal rows must have equal fingerprints (rows of equal
 * fingerprints are compared), so any good mix does. */
static uint64_t row_hash(const unsigned char *row, size_t bytes) {
    uint64_t h[4] = {0x9E3779B97F4A7C15ull ^ bytes, 0xC2B2AE3D27D4EB4Full, 0x165667B19E3779F9ull, 0x27D4EB2F165667C5ull};
    size_t i = 0;
    for (; i + 32 <= bytes; i += 32) {
        h[0] = hash_step(h[0], row + i), h[1] = hash_step(h[1], row + i + 8);
        h[2] = hash_step(h[2], row + i + 16), h[3] = hash_step(h[3], row + i + 24);
    }
    for (; i + 8 <= bytes; i += 8) h[0] = hash_step(h[0], row + i);
    uint64_t hash = h[0];
    for (int lane = 1; lane < 4; lane++) hash = (hash ^ h[lane]) * 0xFF51AFD7ED558CCDull, hash ^= hash >> 29;
    for (; i < bytes; i++) hash = (hash ^ row[i]) * 0x100000001B3ull;
    return hash ^ (hash >> 31);
}

static int equal_rows(const Aligner *s, int i, int j) {
    if (s->ha[i] != s->hb[j]) return 0;
    reading(s, 1, 1);
    return memcmp(s->a + (size_t) i * s->a_stride, s->b + (size_t) j * s->b_stride, s->bytes) == 0;
}

typedef struct { uint64_t hash; int count_a, count_b, at_a, at_b; } Slot;

static Slot *slot_for(Slot *table, size_t mask, uint64_t hash) {
    size_t index = (size_t) hash & mask;
    while (table[index].count_a + table[index].count_b > 0 && table[index].hash != hash) index = (index + 1) & mask;
    table[index].hash = hash;
    return &table[index];
}

/* No row occurs once on each side (a page of repeated rows): the offset
 * within 32 rows of the range's own at which most rows are equal gives
 * the anchors, when at least two are. Their count, written to anchor_a,
 * anchor_b and chain as the run of anchors. */
static int voted(const Aligner *s, int a0, int a1, int b0, int b1, int *anchor_a, int *anchor_b, int *chain) {
    int best = 0, best_offset = 0;
    for (int step = 0; step <= 64; step++) {  /* 0, 1, -1, 2, -2...: a tie keeps the smaller move */
        int offset = step % 2 ? (step + 1) / 2 : -step / 2, equal = 0;
        for (int i = a0; i < a1; i++) {
            int j = i - a0 + b0 + offset;
            if (j >= b0 && j < b1 && s->ha[i] == s->hb[j]) equal++;
        }
        if (equal > best) best = equal, best_offset = offset;
    }
    if (best < 2) return 0;
    int count = 0;
    for (int i = a0; i < a1; i++) {
        int j = i - a0 + b0 + best_offset;
        if (j >= b0 && j < b1 && equal_rows(s, i, j)) {
            anchor_a[count] = i, anchor_b[count] = j, chain[count] = count;
            count++;
        }
    }
    return count;
}

static void align(Aligner *s, int a0, int a1, int b0, int b1, int depth) {
    while (a0 < a1 && b0 < b1 && equal_rows(s, a0, b0)) s->match[a0++] = b0++;
    while (a0 < a1 && b0 < b1 && equal_rows(s, a1 - 1, b1 - 1)) s->match[--a1] = --b1;
    if (a0 >= a1 || b0 >= b1 || depth > 48) return;
    size_t size = 16;
    while (size < 2 * (size_t) (a1 - a0 + b1 - b0)) size <<= 1;
    Slot *table = calloc(size, sizeof(Slot));
    int *anchor_a = malloc(sizeof(int) * (size_t) (a1 - a0)), *anchor_b = malloc(sizeof(int) * (size_t) (a1 - a0));
    int *tails = malloc(sizeof(int) * (size_t) (a1 - a0)), *previous = malloc(sizeof(int) * (size_t) (a1 - a0));
    if (!table || !anchor_a || !anchor_b || !tails || !previous) goto done;
    for (int i = a0; i < a1; i++) { Slot *slot = slot_for(table, size - 1, s->ha[i]); slot->count_a++; slot->at_a = i; }
    for (int j = b0; j < b1; j++) { Slot *slot = slot_for(table, size - 1, s->hb[j]); slot->count_b++; slot->at_b = j; }
    int anchors = 0;
    for (int i = a0; i < a1; i++) {
        Slot *slot = slot_for(table, size - 1, s->ha[i]);
        if (slot->count_a == 1 && slot->count_b == 1 && equal_rows(s, i, slot->at_b)) {
            anchor_a[anchors] = i;
            anchor_b[anchors++] = slot->at_b;
        }
    }
    /* The longest increasing run of anchor_b (patience sorting). */
    int length = 0;
    for (int k = 0; k < anchors; k++) {
        int low = 0, high = length;
        while (low < high) {
            int middle = (low + high) / 2;
            if (anchor_b[tails[middle]] < anchor_b[k]) low = middle + 1; else high = middle;
        }
        previous[k] = low > 0 ? tails[low - 1] : -1;
        tails[low] = k;
        if (low == length) length++;
    }
    int *chain = tails;  /* reused: the run, first to last */
    for (int k = length > 0 ? tails[length - 1] : -1, at = length - 1; k >= 0; k = previous[k]) chain[at--] = k;
    if (length == 0) length = voted(s, a0, a1, b0, b1, anchor_a, anchor_b, chain);
    int from_a = a0, from_b = b0;
    for (int t = 0; t < length; t++) {
        int i = anchor_a[chain[t]], j = anchor_b[chain[t]];
        align(s, from_a, i, from_b, j, depth + 1);
        s->match[i] = j;
        from_a = i + 1, from_b = j + 1;
    }
    if (length > 0) align(s, from_a, a1, from_b, b1, depth + 1);
done:
    free(table), free(anchor_a), free(anchor_b), free(tails), free(previous);
}

static size_t differing_pixels(const unsigned char *p, const unsigned char *q, int width) {
    size_t count = 0;
    for (int x = 0; x < width; x++, p += 3, q += 3) count += p[0] != q[0] || p[1] != q[1] || p[2] != q[2];
    return count;
}

static int flat(const unsigned char *row, int width) {
    for (int x = 1; x < width; x++) {
        if (memcmp(row, row + (size_t) x * 3, 3) != 0) return 0;
    }
    return 1;
}

/* The sideways move (1 to 8 pixels either way) that makes row q (current)
 * equal row p (baseline) where they overlap; 0 when none does. */
static int sideways(const unsigned char *p, const unsigned char *q, int width) {
    for (int step = 1; step <= 8 && step < width / 2; step++) {
        for (int sign = 1; sign >= -1; sign -= 2) {
            int dx = step * sign, from = dx > 0 ? dx : 0, to = dx > 0 ? width : width + dx;
            if (memcmp(q + (size_t) from * 3, p + (size_t) (from - dx) * 3, (size_t) (to - from) * 3) == 0) return dx;
        }
    }
    return 0;
}

/* Whether baseline row i and current row j differ only by noise (no pixel
 * of row j counted by diff_judge, their neighbour rows around them). */
static int alike(const Aligner *s, int a_height, int b_height, int i, int j, int width, const DiffRule *rule) {
    if (equal_rows(s, i, j)) return 1;
    reading(s, 3, 3);
    const unsigned char *rows[6];
    for (int t = -1; t <= 1; t++) {
        int r = i + t < 0 ? 0 : i + t >= a_height ? a_height - 1 : i + t;
        int q = j + t < 0 ? 0 : j + t >= b_height ? b_height - 1 : j + t;
        rows[1 + t] = s->a + (size_t) r * s->a_stride, rows[4 + t] = s->b + (size_t) q * s->b_stride;
    }
    DiffView va = {rows, NULL, width, 3, width}, vb = {rows + 3, NULL, width, 3, width};
    for (int x = diff_next_differing(&va, &vb, 1, 0, width); x < width; x = diff_next_differing(&va, &vb, 1, x + 1, width)) {
        if (diff_judge(&va, &vb, 1, x, rule) == DIFF_COUNTED) return 0;
    }
    return 1;
}

/* A run of matched rows at another offset than the one before it (the
 * last run that is not all flat rows: flat rows match anywhere), whose
 * rows that are not flat are each alike but for noise at that earlier
 * offset, did not move: the move explains it no better than staying put.
 * Its rows happen to equal rows elsewhere: on a page rendered a fraction
 * of a pixel aside no row is equal at its place, and a line can equal a
 * look-alike line (a table of contents, the rows of a table) two lines
 * away, or the descender of the same word in the next heading. Such runs
 * are unmatched, so that their rows are paired at the offset around them,
 * however long they are (a real move fails at its first row of content).
 * A move of one pixel is taken when more than three rows of content moved
 * (the noise rule reaches one pixel, so such rows are alike at both
 * offsets: a band of them is the page moved a whole pixel), not when one
 * to three rows equal rows one away by chance (a re-hinted line). */
static void drop_chance_runs(Aligner *s, int a_height, int b_height, int width, double threshold) {
    DiffRule rule = {35215.0 * threshold * threshold, 0, 1};
    /* Each run: its first row, its end, its offset, and whether it holds a
     * row that is not flat (-1: dropped). */
    int *runs = malloc(sizeof(int) * 4 * (size_t) (a_height > 0 ? a_height : 1)), count = 0, around = 0;
    if (!runs) return;  /* kept as matched: a shift too many at worst */
    for (int i = 0; i < a_height;) {
        if (s->match[i] < 0) { i++; continue; }
        int end = i + 1, offset = s->match[i] - i, informative = 0, content = 0;
        while (end < a_height && s->match[end] == s->match[end - 1] + 1) end++;
        int step = abs(offset - around), chance = step >= 1;
        for (int r = i; r < end && (chance || !content); r++) {
            reading(s, 1, 0);
            if (flat(s->a + (size_t) r * s->a_stride, width)) continue;
            content = 1;
            if (!chance) break;
            informative++;
            if ((step == 1 && informative > 3) || r + around < 0 ||
                r + around >= b_height || !alike(s, a_height, b_height, r, r + around, width, &rule)) chance = 0;
        }
        if (chance && content) {
            for (int r = i; r < end; r++) s->match[r] = -1;
            content = -1;
        } else if (content) {
            around = offset;
        }
        runs[4 * count] = i, runs[4 * count + 1] = end, runs[4 * count + 2] = offset, runs[4 * count + 3] = content;
        count++;
        i = end;
    }
    /* A run of flat rows only matches anywhere: at another offset than
     * the run of content before it (0 at the top), it is unmatched when
     * its rows are equal at that offset too, where staying put explains
     * them as well (the white rows between the lines of a repetitive
     * page, equal far away, would carry the rows between them along). */
    int before = 0;
    for (int t = 0; t < count; t++) {
        if (runs[4 * t + 3] == 1) before = runs[4 * t + 2];
        if (runs[4 * t + 3] != 0 || runs[4 * t + 2] == before) continue;
        int put = 1;
        for (int r = runs[4 * t]; put && r < runs[4 * t + 1]; r++)
            put = r + before >= 0 && r + before < b_height && equal_rows(s, r, r + before);
        if (put) {
            for (int r = runs[4 * t]; r < runs[4 * t + 1]; r++) s->match[r] = -1;
        }
    }
    free(runs);
}

int diff_align(const unsigned char *a, int a_width, int a_height, const unsigned char *b, int b_width, int b_height,
               int width, double threshold, DiffPaging *paging, DiffEntry **entries_out, int *count_out) {
    Aligner s = {a, b, (size_t) a_width * 3, (size_t) b_width * 3, (size_t) width * 3, NULL, NULL, NULL, paging};
    uint64_t *ha = malloc(sizeof(uint64_t) * (size_t) a_height), *hb = malloc(sizeof(uint64_t) * (size_t) b_height);
    int *match = malloc(sizeof(int) * (size_t) a_height);
    DiffEntry *entries = malloc(sizeof(DiffEntry) * ((size_t) a_height + b_height));
    if (!ha || !hb || !match || !entries) {
        free(ha), free(hb), free(match), free(entries);
        return -1;
    }
    for (int i = 0; i < a_height; i++) {
        reading(&s, 1, 0);
        ha[i] = row_hash(a + (size_t) i * s.a_stride, s.bytes), match[i] = -1;
    }
    for (int j = 0; j < b_height; j++) reading(&s, 0, 1), hb[j] = row_hash(b + (size_t) j * s.b_stride, s.bytes);
    s.ha = ha, s.hb = hb, s.match = match;
    align(&s, 0, a_height, 0, b_height, 0);
    drop_chance_runs(&s, a_height, b_height, width, threshold);
    int count = 0, i = 0, j = 0;
#define A_ROW(r) (a + (size_t) (r) * s.a_stride)
#define B_ROW(r) (b + (size_t) (r) * s.b_stride)
    while (i < a_height || j < b_height) {
        int next_i = i;
        while (next_i < a_height && match[next_i] < 0) next_i++;
        int next_j = next_i < a_height ? match[next_i] : b_height;
        int n = next_i - i, m = next_j - j, paired = n < m ? n : m;
        /* After the last match the rows left over on the longer side lie,
         * aligned, past the other picture's end: cut by its frame. */
        int left_over = next_i >= a_height ? DIFF_CUT : 0;
        for (int t = 0; t < paired; t++) {
            entries[count++] = (DiffEntry) {i + t, j + t, 0, DIFF_PAIRED};
        }
        for (int t = paired; t < n; t++) {  /* deleted: beside the rows above or below in the current */
            int above = j + m - 1, below = next_j < b_height ? next_j : -1, row = above >= 0 ? above : below;
            reading(&s, 1, 2);
            if (above >= 0 && below >= 0 &&
                differing_pixels(A_ROW(i + t), B_ROW(below), width) < differing_pixels(A_ROW(i + t), B_ROW(above), width))
                row = below;
            entries[count++] = (DiffEntry) {i + t, row, 0, left_over ? left_over : DIFF_DELETED};
        }
        for (int t = paired; t < m; t++) {  /* inserted: beside the rows above or below in the baseline */
            int above = i + n - 1, below = next_i < a_height ? next_i : -1, row = above >= 0 ? above : below;
            reading(&s, 2, 1);
            if (above >= 0 && below >= 0 &&
                differing_pixels(A_ROW(below), B_ROW(j + t), width) < differing_pixels(A_ROW(above), B_ROW(j + t), width))
                row = below;
            entries[count++] = (DiffEntry) {row, j + t, 0, left_over ? left_over : DIFF_INSERTED};
        }
        if (next_i >= a_height) break;
        entries[count++] = (DiffEntry) {next_i, next_j, 0, DIFF_MATCHED};
        i = next_i + 1, j = next_j + 1;
    }
    /* Paired rows equal as they are are matches; flat rows inserted or
     * deleted are filler; sideways moves are runs of at least two paired
     * rows equal at the same dx. */
    for (int k = 0; k < count; k++) {
        DiffEntry *e = &entries[k];
        reading(&s, 1, 1);
        if (e->kind == DIFF_PAIRED && memcmp(A_ROW(e->a), B_ROW(e->b), s.bytes) == 0) e->kind = DIFF_MATCHED;
        if (e->kind == DIFF_INSERTED && flat(B_ROW(e->b), width)) e->kind = DIFF_FILLER;
        if (e->kind == DIFF_DELETED && flat(A_ROW(e->a), width)) e->kind = DIFF_FILLER;
        if (e->kind == DIFF_PAIRED) e->dx = sideways(A_ROW(e->a), B_ROW(e->b), width);
    }
    for (int k = 0; k < count;) {
        int end = k + 1;
        while (end < count && entries[end].kind == DIFF_PAIRED && entries[k].kind == DIFF_PAIRED &&
               entries[end].dx == entries[k].dx) end++;
        if (end - k < 2) entries[k].dx = 0;
        k = end;
    }
#undef A_ROW
#undef B_ROW
    free(ha), free(hb), free(match);
    *entries_out = entries;
    *count_out = count;
    return 0;
}
