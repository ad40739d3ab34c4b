#include "DiffViews.h"
#include <string.h>

/* pixelmatch's test of one pixel, on opaque RGB, as its published method
 * does it (mapbox/pixelmatch up to 7.1, the YIQ distance): the same
 * operations in the same order in double, so that its counts are ours.
 *
 * - The colour distance: the YIQ difference weighted 0.5053 Y² + 0.299 I²
 *   + 0.1957 Q² (Kotsarenko and Ramos), above 35215 × threshold².
 * - Anti-aliasing (after Vysniauskas' "Anti-aliased Pixel and Intensity
 *   Slope Detector"): a pixel with at most two neighbours of its
 *   brightness, some darker and some brighter, whose darkest or brightest
 *   neighbour (the FIRST found, columns outer and rows inner, as pixelmatch
 *   scans) has more than two neighbours of its own colour in both
 *   pictures. At an edge the neighbours outside are not read, and the edge
 *   counts as one neighbour of the same brightness.
 *
 * On top, the neighbour rule for noise: a differing pixel that matches,
 * within the threshold, the other picture at most one pixel away (at a
 * pixel, or between a pixel and its neighbour: sub-pixel positions), and
 * whose counterpart in the other picture matches this one so, is explained by sub-pixel positioning; so is one whose
 * 5x5 neighbourhood holds an edge in both pictures with the same mean
 * colour within the threshold (a thin stroke moved by a fraction of a
 * pixel moves its ink between pixels, but keeps it). */

static inline int same(const unsigned char *p, const unsigned char *q) {
    return p[0] == q[0] && p[1] == q[1] && p[2] == q[2];
}

static inline double colour_delta(const unsigned char *p, const unsigned char *q) {
    double dr = (double) p[0] - q[0], dg = (double) p[1] - q[1], db = (double) p[2] - q[2];
    double y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
    double i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189;
    double q2 = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
    return 0.5053 * y * y + 0.299 * i * i + 0.1957 * q2 * q2;
}

static inline double brightness_delta(const unsigned char *p, const unsigned char *q) {
    double dr = (double) p[0] - q[0], dg = (double) p[1] - q[1], db = (double) p[2] - q[2];
    return dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
}

/* A pixel's 3x3 neighbourhood, clipped to the view: columns x0-x2, rows
 * y0-y2. Away from the edges, where no read is clamped (the common case),
 * its three rows are at hand from column x1 - 1 (`rows`); else each pixel
 * is read through diff_pixel. */
typedef struct {
    int x0, x1, x2, y0, y1, y2;
    const unsigned char *rows[3];  /* rows[0] NULL: read through diff_pixel */
} Around;

static inline void around(const DiffView *view, int x1, int y1, Around *n) {
    *n = (Around) {x1 > 0 ? x1 - 1 : 0, x1, x1 < view->width - 1 ? x1 + 1 : view->width - 1,
                   y1 > 0 ? y1 - 1 : 0, y1, y1 < view->height - 1 ? y1 + 1 : view->height - 1, {NULL, NULL, NULL}};
    if (n->x0 != x1 - 1 || n->x2 != x1 + 1 || n->y0 != y1 - 1 || n->y2 != y1 + 1) return;
    const unsigned char *rows[3];
    for (int i = 0; i < 3; i++) {
        int column = x1 - 1 - (view->dx ? view->dx[y1 - 1 + i] : 0);
        if (column < 0 || column + 2 >= view->source_width) return;
        rows[i] = view->rows[y1 - 1 + i] + (size_t) column * 3;
    }
    memcpy(n->rows, rows, sizeof rows);
}

/* Inlined where `fast` is a constant: each loop below is made twice, once
 * reading the rows at hand (fast, n->rows set), once through diff_pixel. */
#define INLINE static inline __attribute__((always_inline))

INLINE const unsigned char *around_pixel(const DiffView *view, const Around *n, int x, int y, int fast) {
    return fast ? n->rows[y - n->y1 + 1] + 3 * (x - n->x1 + 1) : diff_pixel(view, y, x);
}

/* At an edge the neighbours outside count as one of the same brightness. */
static inline int edge_zeroes(const Around *n) {
    return n->x1 == n->x0 || n->x1 == n->x2 || n->y1 == n->y0 || n->y1 == n->y2 ? 1 : 0;
}

INLINE int siblings(const DiffView *view, const Around *n, int fast) {
    const unsigned char *centre = around_pixel(view, n, n->x1, n->y1, fast);
    int zeroes = edge_zeroes(n);
    for (int x = n->x0; x <= n->x2; x++) {
        for (int y = n->y0; y <= n->y2; y++) {
            if (x == n->x1 && y == n->y1) continue;
            zeroes += same(centre, around_pixel(view, n, x, y, fast));
            if (zeroes > 2) return 1;
        }
    }
    return 0;
}

static int many_siblings(const DiffView *view, int x1, int y1) {
    Around n;
    around(view, x1, y1, &n);
    return n.rows[0] ? siblings(view, &n, 1) : siblings(view, &n, 0);
}

/* The darkest and brightest neighbours (the first found, columns outer):
 * 0 when more than two neighbours are of the centre's brightness. */
INLINE int extremes(const DiffView *view, const Around *n, int fast, int *min_x, int *min_y, int *max_x, int *max_y) {
    const unsigned char *centre = around_pixel(view, n, n->x1, n->y1, fast);
    int zeroes = edge_zeroes(n);
    double min = 0, max = 0;
    for (int x = n->x0; x <= n->x2; x++) {
        for (int y = n->y0; y <= n->y2; y++) {
            if (x == n->x1 && y == n->y1) continue;
            double delta = brightness_delta(centre, around_pixel(view, n, x, y, fast));
            if (delta == 0) {
                if (++zeroes > 2) return 0;
            } else if (delta < min) {
                min = delta, *min_x = x, *min_y = y;
            } else if (delta > max) {
                max = delta, *max_x = x, *max_y = y;
            }
        }
    }
    return min != 0 && max != 0;
}

static int anti_aliased(const DiffView *view, const DiffView *a, const DiffView *b, int x1, int y1) {
    Around n;
    around(view, x1, y1, &n);
    int min_x = 0, min_y = 0, max_x = 0, max_y = 0;
    if (!(n.rows[0] ? extremes(view, &n, 1, &min_x, &min_y, &max_x, &max_y)
                    : extremes(view, &n, 0, &min_x, &min_y, &max_x, &max_y))) return 0;
    return (many_siblings(a, min_x, min_y) && many_siblings(b, min_x, min_y)) ||
           (many_siblings(a, max_x, max_y) && many_siblings(b, max_x, max_y));
}

/* The weighted YIQ of a pixel: distances between these are pixelmatch's. */
static inline void weighted_yiq(const unsigned char *p, double out[3]) {
    double r = p[0], g = p[1], b = p[2];
    out[0] = 0.71084456 * (r * 0.29889531 + g * 0.58662247 + b * 0.11448223);   /* sqrt(0.5053) */
    out[1] = 0.54680892 * (r * 0.59597799 - g * 0.27417610 - b * 0.32180189);   /* sqrt(0.299) */
    out[2] = 0.44237992 * (r * 0.21147017 - g * 0.52261711 + b * 0.31114694);   /* sqrt(0.1957) */
}

/* How far `p` is from the nearest colour at a point at most one pixel away
 * from (x, k) in `view`: on the way from that pixel to one of its eight
 * neighbours (a picture moved by a fraction of a pixel holds, at each
 * pixel, a mix of a pixel and its neighbour). Stops at `enough`. */
static double near_distance(const DiffView *view, int k, int x, const unsigned char *p, double enough) {
    double target[3], centre[3];
    weighted_yiq(p, target);
    weighted_yiq(diff_pixel(view, k, x), centre);
    double v[3] = {target[0] - centre[0], target[1] - centre[1], target[2] - centre[2]};
    double nearest = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    for (int y = k - 1; y <= k + 1; y++) {
        if (y < 0 || y >= view->height) continue;
        for (int column = x - 1; column <= x + 1; column++) {
            if (column < 0 || column >= view->width || (y == k && column == x)) continue;
            double other[3];
            weighted_yiq(diff_pixel(view, y, column), other);
            double u[3] = {other[0] - centre[0], other[1] - centre[1], other[2] - centre[2]};
            double uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2], uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
            double t = uu > 0 ? uv / uu : 0;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            double d0 = v[0] - t * u[0], d1 = v[1] - t * u[1], d2 = v[2] - t * u[2];
            double distance = d0 * d0 + d1 * d1 + d2 * d2;
            if (distance < nearest) nearest = distance;
            if (nearest <= enough) return nearest;
        }
    }
    return nearest;
}

/* The mean colour of the 5x5 window around (x, k) (the pixels inside the
 * view), and whether it holds an edge: brightnesses further apart than the
 * threshold allows. */
static int window(const DiffView *view, int k, int x, double max_delta, double mean[3]) {
    double sum[3] = {0, 0, 0}, darkest = 1e9, brightest = -1e9;
    int count = 0;
    for (int y = k - 2; y <= k + 2; y++) {
        if (y < 0 || y >= view->height) continue;
        for (int column = x - 2; column <= x + 2; column++) {
            if (column < 0 || column >= view->width) continue;
            const unsigned char *p = diff_pixel(view, y, column);
            double luma = p[0] * 0.29889531 + p[1] * 0.58662247 + p[2] * 0.11448223;
            if (luma < darkest) darkest = luma;
            if (luma > brightest) brightest = luma;
            sum[0] += p[0], sum[1] += p[1], sum[2] += p[2];
            count++;
        }
    }
    for (int c = 0; c < 3; c++) mean[c] = sum[c] / count;
    return 0.5053 * (brightest - darkest) * (brightest - darkest) > max_delta;
}

/* A sub-pixel move keeps the ink where it was: both 5x5 windows hold an
 * edge and their mean colours match within the threshold. */
static int same_ink(const DiffView *a, const DiffView *b, int k, int x, double max_delta) {
    double mean_a[3], mean_b[3];
    if (!window(a, k, x, max_delta, mean_a) || !window(b, k, x, max_delta, mean_b)) return 0;
    double dr = mean_a[0] - mean_b[0], dg = mean_a[1] - mean_b[1], db = mean_a[2] - mean_b[2];
    double y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
    double i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189;
    double q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
    return 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q <= max_delta;
}

int diff_judge(const DiffView *a, const DiffView *b, int k, int x, const DiffRule *rule) {
    const unsigned char *p = diff_pixel(a, k, x), *q = diff_pixel(b, k, x);
    if (same(p, q) || !(colour_delta(p, q) > rule->max_delta)) return DIFF_SAME;
    if (rule->count_aa) return DIFF_COUNTED;
    if (anti_aliased(a, a, b, x, k) || anti_aliased(b, a, b, x, k)) return DIFF_ANTI_ALIASED;
    if (rule->near_rule) {
        /* Both ways: a stroke that appeared or went is far from anything
         * the other picture holds at its place. */
        if (near_distance(b, k, x, p, rule->max_delta) <= rule->max_delta &&
            near_distance(a, k, x, q, rule->max_delta) <= rule->max_delta) return DIFF_NEAR;
        if (same_ink(a, b, k, x, rule->max_delta)) return DIFF_NEAR;
    }
    return DIFF_COUNTED;
}
