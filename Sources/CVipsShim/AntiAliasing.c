#include "CVipsShim.h"
#include <math.h>

/* Pixels whose difference anti-aliasing explains, found as pixelmatch
 * finds them (after Vysniauskas' "Anti-aliased pixel and intensity slope
 * detector"): a pixel is anti-aliased in a picture when at most two of its
 * eight neighbours have its brightness, some are darker and some brighter,
 * and its darkest or its brightest neighbour has more than two neighbours
 * of exactly its own colour in both pictures (it sits in a flat area: the
 * pixel is on the slope between two flat areas). At the edge of the area
 * compared the edge is repeated, so an edge pixel is never anti-aliased.
 *
 * Only the pixels already counted as differing are looked at: a handful
 * of reads each, where the same test as whole-picture libvips operations
 * cost a graph of some 400 operations however small the change. */

typedef struct {
    const unsigned char *data;
    size_t stride;
} Picture;

static const int DX[8] = {-1, 0, 1, -1, 1, -1, 0, 1};
static const int DY[8] = {-1, -1, -1, 0, 0, 1, 1, 1};

static inline int clamp(int value, int high) { return value < 0 ? 0 : value > high ? high : value; }

static inline const unsigned char *at(const Picture *picture, int x, int y) {
    return picture->data + (size_t) y * picture->stride + (size_t) x * 3;
}

/* YIQ's luma, as a libvips float image holds it. */
static inline float brightness(const unsigned char *p) {
    return (float) (0.29889531 * p[0] + 0.58662247 * p[1] + 0.11448223 * p[2]);
}

static int many_siblings(const Picture *picture, int x, int y, int width, int height) {
    const unsigned char *centre = at(picture, x, y);
    int same = 0;
    for (int i = 0; i < 8; i++) {
        const unsigned char *n = at(picture, clamp(x + DX[i], width - 1), clamp(y + DY[i], height - 1));
        same += n[0] == centre[0] && n[1] == centre[1] && n[2] == centre[2];
    }
    return same > 2;
}

static int on_slope(const Picture *picture, const Picture *a, const Picture *b, int x, int y, int width, int height) {
    float centre = brightness(at(picture, x, y)), delta[8], darkest = INFINITY, brightest = -INFINITY;
    int nx[8], ny[8], zeroes = 0;
    for (int i = 0; i < 8; i++) {
        nx[i] = clamp(x + DX[i], width - 1);
        ny[i] = clamp(y + DY[i], height - 1);
        delta[i] = brightness(at(picture, nx[i], ny[i])) - centre;
        zeroes += delta[i] == 0;
        if (delta[i] < darkest) darkest = delta[i];
        if (delta[i] > brightest) brightest = delta[i];
    }
    if (zeroes > 2 || !(darkest < 0) || !(brightest > 0)) return 0;
    for (int i = 0; i < 8; i++) {
        if ((delta[i] == darkest || delta[i] == brightest) && many_siblings(a, nx[i], ny[i], width, height) &&
            many_siblings(b, nx[i], ny[i], width, height)) return 1;
    }
    return 0;
}

int cvips_clear_anti_aliased(VipsImage *left, VipsImage *right, int width, int height, VipsImage *counted,
                             int left_x, int top_y) {
    VipsImage *pictures[2] = {left, right};
    for (int i = 0; i < 2; i++) {
        VipsImage *p = pictures[i];
        if (!p->data || p->Bands != 3 || p->BandFmt != VIPS_FORMAT_UCHAR || width > p->Xsize || height > p->Ysize)
            return -1;
    }
    if (!counted->data || counted->Bands != 1 || counted->BandFmt != VIPS_FORMAT_UCHAR || left_x < 0 || top_y < 0 ||
        left_x + counted->Xsize > width || top_y + counted->Ysize > height) return -1;
    Picture a = {(const unsigned char *) left->data, (size_t) left->Xsize * 3};
    Picture b = {(const unsigned char *) right->data, (size_t) right->Xsize * 3};
    for (int y = 0; y < counted->Ysize; y++) {
        unsigned char *row = (unsigned char *) counted->data + (size_t) y * counted->Xsize;
        for (int x = 0; x < counted->Xsize; x++) {
            if (!row[x]) continue;
            int px = left_x + x, py = top_y + y;
            if (on_slope(&a, &a, &b, px, py, width, height) || on_slope(&b, &a, &b, px, py, width, height)) row[x] = 0;
        }
    }
    return 0;
}
