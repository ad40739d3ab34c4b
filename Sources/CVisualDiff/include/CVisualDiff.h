// The visual diff's pixel work (`collage --diff`), in C for its speed: two
// pictures' rows aligned as a text diff aligns lines (RowAlignment.c), what
// remains judged as pixelmatch judges it (PixelMatch.c), the analysis that
// puts both together (DiffAnalysis.c), the difference pictures written and
// shrunk in one pass over their rows (DiffPicture.c), and pictures too large
// to hold kept on disc (DiscRows.c). Its pictures are libvips images; every
// symbol is prefixed `vdiff_`. It is called from the Swift target Vips alone:
// `Difference` (its panels and drawings) and `FullPicture`.
#ifndef CVISUAL_DIFF_H
#define CVISUAL_DIFF_H

#include <vips/vips.h>

/// A band of the baseline that moved: rows y to y + height - 1, found
/// dy rows lower and dx pixels further right in the current picture.
typedef struct { int y, height, dy, dx; } vdiff_shift;

/// What analysing a pair found (vdiff_analyse).
typedef struct {
    /// pixelmatch's count on the pictures as they are (common top-left
    /// area; the rest of the larger one counted whole).
    long long raw;
    /// The pixels that changed, after aligning moved bands, not explained
    /// by anti-aliasing or by a matching pixel one away in the other, and
    /// every pixel of a region whose colour moved as a whole.
    long long pixels;
    /// The differing pixels that anti-aliasing or a neighbour explains
    /// (outside such regions).
    long long noise;
    /// Where `pixels` and `noise` are in the current picture; 0 wide: none.
    int box_x, box_y, box_width, box_height;
    /// The moved bands found (the first max_shifts written).
    int shift_count;
    /// A fingerprint of the real change: where its pixels are, and the
    /// pixels of both pictures in their bounding box (0 when none).
    unsigned long long change_hash;
    /// The bounding box of the changed pixels alone (`pixels`), in the
    /// current picture; 0 wide when none.
    int change_x, change_y, change_width, change_height;
    /// box_width x box_height bytes, 255 changed, 128 explained, 0 else;
    /// malloc'ed, the caller frees it.
    unsigned char *mask;
} vdiff_result;

/// Pictures kept on disc (DiscRows.c), for a pair too large to hold: a
/// temporary file in libvips' folder (TMPDIR, else /tmp), never linked or
/// unlinked at once (-1 and errno when none can be made); the folder;
/// an image's pixels written to it strip by strip (0, errno of a write
/// that failed, or -1 with libvips' error); a picture of its rows, which
/// owns the file from then on (NULL on error); and the rows of a picture,
/// in memory or on disc (mapped set to 1), NULL when it has none.
int vdiff_rows_temp_file(void);
const char *vdiff_rows_temp_folder(void);
int vdiff_rows_write(VipsImage *image, int fd);
VipsImage *vdiff_image_new_from_rows_file(int fd, int width, int height, int bands);
const unsigned char *vdiff_rows_of(VipsImage *image, int *mapped);
/// A memory picture of malloc'ed `data`, freed with it (on error, at
/// once): pages of it never written are never resident (a sparse mask).
VipsImage *vdiff_image_new_owning(unsigned char *data, int width, int height, int bands);
/// Whether two pictures (in memory or on disc) have the same size and
/// pixels: 1, 0, or -1 when either has no rows.
int vdiff_same_pixels(VipsImage *left, VipsImage *right);

/// Analyses baseline against current (3-band 8-bit pictures, in memory or
/// on disc: a picture on disc is read through a mapping whose pages are
/// given back as the sweeps pass, so that what is resident stays small): rows
/// aligned as a text diff aligns lines (RowAlignment.c), what remains
/// judged as pixelmatch judges it with the neighbour rule for noise
/// (PixelMatch.c), over the common width. `ignore` holds ignore_count
/// rectangles x, y, w, h in the current picture. With `threads` 2 and
/// both pictures in memory, the judging passes share the rows between
/// this thread and one more; the result is the same. 0, or -1.
int vdiff_analyse(VipsImage *baseline, VipsImage *current, double threshold, int count_aa,
                       const int *ignore, int ignore_count, vdiff_shift *shifts, int max_shifts, int threads,
                       vdiff_result *result);
/// The full-size difference picture of `current` (3-band 8-bit, in memory
/// or on disc; NULL: all marked red, an added or removed picture) over a
/// width x height area, written to `fd` as a PNG of a palette
/// (DiffPicture.c): the faded grey page, tinted where `moved[y]` is not 0
/// (NULL: nowhere), and the 1-band `mask` placed at mask_x, mask_y (NULL:
/// none) red over 191, yellow over 0. 0, the errno of a write that failed,
/// or -1 with libvips' error.
int vdiff_png_write(VipsImage *current, int width, int height, VipsImage *mask, int mask_x, int mask_y,
                         const unsigned char *moved, int fd);
/// The part x, y, w x h of an 8-bit picture (in memory or on disc; white
/// outside it), shrunk to out_w x out_h (at most w x h; the same size: a
/// copy) by averaging boxes of whole pixels, each pixel in one box, in one
/// pass over its rows, holding a row of sums: a picture in memory. 0, or -1
/// with libvips' error.
int vdiff_region_shrunk(VipsImage *picture, int x, int y, int w, int h, int out_w, int out_h, VipsImage **out);
/// The same of the picture vdiff_png_write writes (white outside the
/// width x height area).
int vdiff_marked_shrunk(VipsImage *current, int width, int height, VipsImage *mask, int box_x, int box_y,
                             const unsigned char *moved, int x, int y, int w, int h, int out_w, int out_h,
                             VipsImage **out);
/// The difference picture's page small: `current` over the width x height
/// area (white beyond it) averaged over boxes of whole pixels into
/// out_width x out_height (at most the area), and, with a `mask` placed at
/// mask_x, mask_y, 255 in `changed` where it is over 191 and in
/// `explained` where it is over 0 (NULL for both without a mask). 0, or -1
/// with libvips' error.
int vdiff_small_page(VipsImage *current, int width, int height, VipsImage *mask, int mask_x, int mask_y,
                          int out_width, int out_height, VipsImage **page, VipsImage **changed, VipsImage **explained);

#endif
