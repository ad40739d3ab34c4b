#ifndef DIFF_VIEWS_H
#define DIFF_VIEWS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Two pictures seen row by row through an alignment: row k of a view is
 * rows[k] of its picture, read from column x - dx[k] (clamped to the
 * picture). Unaligned, row k is the picture's row k and dx is 0: the view
 * is the picture itself. */
typedef struct {
    const unsigned char **rows;
    const int *dx;          /* NULL: 0 everywhere */
    int width, height;      /* the view's: the columns and rows compared */
    int source_width;       /* the picture's width, for clamping */
} DiffView;

static inline const unsigned char *diff_pixel(const DiffView *view, int k, int x) {
    int column = view->dx ? x - view->dx[k] : x;
    column = column < 0 ? 0 : column >= view->source_width ? view->source_width - 1 : column;
    return view->rows[k] + (size_t) column * 3;
}

/* The first x in [x, end) at which row k of the two views holds pixels of
 * other bytes (end when none): eight pixels at a time where both rows are
 * read unclamped, then one. Most pixels of a differing row are the same,
 * and a pixel of the same bytes is DIFF_SAME without being judged. */
static inline int diff_next_differing(const DiffView *a, const DiffView *b, int k, int x, int end) {
    int da = a->dx ? a->dx[k] : 0, db = b->dx ? b->dx[k] : 0;
    int low = da > db ? da : db;
    int high = a->source_width + da < b->source_width + db ? a->source_width + da : b->source_width + db;
    if (high > end) high = end;
    while (x < end) {
        if (x >= low && x + 8 <= high) {
            const unsigned char *p = a->rows[k] + (size_t) (x - da) * 3, *q = b->rows[k] + (size_t) (x - db) * 3;
            if (memcmp(p, q, 24) == 0) {
                x += 8;
                continue;
            }
        }
        const unsigned char *p = diff_pixel(a, k, x), *q = diff_pixel(b, k, x);
        if (p[0] != q[0] || p[1] != q[1] || p[2] != q[2]) return x;
        x++;
    }
    return end;
}

/* The pictures' rows that are a mapping of a file (a picture kept on
 * disc, DiscRows.c): every sweep over rows says how many bytes of rows it
 * reached (diff_paging_touch), and every `every` bytes the mappings' pages
 * are given back (madvise MADV_DONTNEED; the kernel reads them again from
 * the page cache if a later step needs them), so what is resident of them
 * stays about `every` bytes, whatever order the rows are read in. No
 * mapping (count 0): nothing to do. */
typedef struct DiffPagingState {
    const unsigned char *start[2];
    size_t length[2];
    int count;
    size_t touched, every;
} DiffPaging;

void diff_paging_add(DiffPaging *paging, const unsigned char *rows, size_t length);
void diff_paging_release(DiffPaging *paging);

static inline void diff_paging_touch(DiffPaging *paging, size_t bytes) {
    if (!paging || paging->count == 0) return;
    paging->touched += bytes;
    if (paging->touched >= paging->every) diff_paging_release(paging);
}

/* How one aligned pixel is judged. */
enum { DIFF_SAME = 0, DIFF_COUNTED = 1, DIFF_ANTI_ALIASED = 2, DIFF_NEAR = 3 };

typedef struct {
    double max_delta;     /* 35215 * threshold^2 */
    int count_aa;         /* --count-aa: every differing pixel counts */
    int near_rule;        /* 1: a differing pixel that matches a neighbour in the other view is noise */
} DiffRule;

/* pixelmatch's judgement of pixel (x, k), plus the neighbour rule when
 * asked: DIFF_SAME, DIFF_COUNTED, DIFF_ANTI_ALIASED or DIFF_NEAR. */
int diff_judge(const DiffView *a, const DiffView *b, int k, int x, const DiffRule *rule);

#endif
