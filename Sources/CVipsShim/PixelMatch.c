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
 * within the threshold, a pixel at most one away in the other picture (and
 * the other picture's pixel, one in this one) is explained by sub-pixel
 * positioning. */

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

static int many_siblings(const DiffView *view, int x1, int y1) {
    int x0 = x1 > 0 ? x1 - 1 : 0, y0 = y1 > 0 ? y1 - 1 : 0;
    int x2 = x1 < view->width - 1 ? x1 + 1 : view->width - 1, y2 = y1 < view->height - 1 ? y1 + 1 : view->height - 1;
    const unsigned char *centre = diff_pixel(view, y1, x1);
    int zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 ? 1 : 0;
    for (int x = x0; x <= x2; x++) {
        for (int y = y0; y <= y2; y++) {
            if (x == x1 && y == y1) continue;
            zeroes += same(centre, diff_pixel(view, y, x));
            if (zeroes > 2) return 1;
        }
    }
    return 0;
}

static int anti_aliased(const DiffView *view, const DiffView *a, const DiffView *b, int x1, int y1) {
    int x0 = x1 > 0 ? x1 - 1 : 0, y0 = y1 > 0 ? y1 - 1 : 0;
    int x2 = x1 < view->width - 1 ? x1 + 1 : view->width - 1, y2 = y1 < view->height - 1 ? y1 + 1 : view->height - 1;
    const unsigned char *centre = diff_pixel(view, y1, x1);
    int zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 ? 1 : 0;
    double min = 0, max = 0;
    int min_x = 0, min_y = 0, max_x = 0, max_y = 0;
    for (int x = x0; x <= x2; x++) {
        for (int y = y0; y <= y2; y++) {
            if (x == x1 && y == y1) continue;
            double delta = brightness_delta(centre, diff_pixel(view, y, x));
            if (delta == 0) {
                if (++zeroes > 2) return 0;
            } else if (delta < min) {
                min = delta, min_x = x, min_y = y;
            } else if (delta > max) {
                max = delta, max_x = x, max_y = y;
            }
        }
    }
    if (min == 0 || max == 0) return 0;
    return (many_siblings(a, min_x, min_y) && many_siblings(b, min_x, min_y)) ||
           (many_siblings(a, max_x, max_y) && many_siblings(b, max_x, max_y));
}

/* Whether `p` matches, within the threshold, a pixel of `view` at most one
 * away from (x, k). */
static int near_match(const DiffView *view, int k, int x, const unsigned char *p, double max_delta) {
    for (int y = k - 1; y <= k + 1; y++) {
        if (y < 0 || y >= view->height) continue;
        for (int column = x - 1; column <= x + 1; column++) {
            if (column < 0 || column >= view->width) continue;
            const unsigned char *q = diff_pixel(view, y, column);
            if (same(p, q) || !(colour_delta(p, q) > max_delta)) return 1;
        }
    }
    return 0;
}

int diff_judge(const DiffView *a, const DiffView *b, int k, int x, const DiffRule *rule) {
    const unsigned char *p = diff_pixel(a, k, x), *q = diff_pixel(b, k, x);
    if (same(p, q) || !(colour_delta(p, q) > rule->max_delta)) return DIFF_SAME;
    if (rule->count_aa) return DIFF_COUNTED;
    if (anti_aliased(a, a, b, x, k) || anti_aliased(b, a, b, x, k)) return DIFF_ANTI_ALIASED;
    if (rule->near_rule && near_match(b, k, x, p, rule->max_delta) && near_match(a, k, x, q, rule->max_delta))
        return DIFF_NEAR;
    return DIFF_COUNTED;
}
