// HEVC pictures for libvips' HEIF loader, decoded on several threads.
//
// libheif hands each HEVC-coded HEIF image to a decoder plugin; the one it
// ships starts libde265 with a single worker thread, so a 12 MP photo from a
// phone decodes on one core while the whole picture is held in memory.
// chevc_register adds a plugin of higher priority that starts libde265 with
// `threads` worker threads: libde265 then decodes a picture's rows (wavefront
// parallel processing) or tiles at once where the stream allows it. The
// pictures, and what libheif does with them, are the same; except for
// chevc_decode_shrunk's own decodes, whose picture it hands libheif shrunk.
#ifndef CHEVC_H
#define CHEVC_H

#include <stddef.h>

/// Registers the plugin with libheif, for every HEIF context made after it
/// (libvips' among them). Returns 0, or -1 when libheif refuses it. Call it
/// once, before the first HEIF file is read.
int chevc_register(int threads);

/// How many HEVC pictures the plugin has decoded in this process.
unsigned long chevc_pictures_decoded(void);

/// A HEIF photo's primary image, small: 8-bit RGB, rows packed, each pixel
/// the mean of a factor x factor box of the whole image's (the centred
/// region of whole boxes: fewer than `factor` pixels a side dropped), and the
/// ICC profile libvips' loader would attach (NULL when none). Both are
/// malloc'ed: chevc_shrunk_free.
typedef struct {
    unsigned char *pixels;
    int width, height;
    /// The box factor, and the size libheif shows the whole image at.
    int factor, shown_width, shown_height;
    unsigned char *icc;
    size_t icc_size;
} chevc_shrunk;

/// Decodes the primary image of the HEIF file open on `descriptor` (read
/// with pread; its offset is left alone) through libheif, this plugin
/// box-shrinking each plane of the HEVC picture by chevc_shrink_factor
/// before libheif converts it to RGB and applies its rotation and mirroring:
/// the whole picture is never made RGB. The result, floor(w / factor) x
/// floor(h / factor) of the image as libheif shows it (w x h), scaled by
/// factor x the whole image's cover scale still covers `cover_width` x
/// `cover_height`. Returns 0, or -1 for anything this path
/// leaves to libvips' loader: a factor below 2, alpha, samples deeper than
/// 8 bits, monochrome, AV1, a grid of tiles, a cropped image (clap), or any
/// error of libheif's (which libvips then reports its own way).
int chevc_decode_shrunk(int descriptor, int cover_width, int cover_height, chevc_shrunk *out);

/// The box factor for an image shown `width` x `height` scaled to cover
/// `cover_width` x `cover_height`: half the scale-down, rounded down to an
/// even number (4:2:0 chroma then shrinks by a whole half of it), so that
/// at least a 2x reduction is left to libvips' resize (its Lanczos filter,
/// as for any other picture), and the shrunk image still covers.
/// 1 when that is below 2: nothing to gain.
int chevc_shrink_factor(int width, int height, int cover_width, int cover_height);

void chevc_shrunk_free(chevc_shrunk *picture);

/// How many HEIF images chevc_decode_shrunk has decoded in this process.
unsigned long chevc_shrunk_decoded(void);

/// One tile's coded data: `length` bytes at `offset` of the file.
typedef struct {
    long long offset, length;
} chevc_extent;

/// A HEIF picture of `columns` x `rows` HEVC (or AV1: `codec`) tiles of `tile_width` x
/// `tile_height` (row by row in `tiles`), cropped to `width` x `height`
/// (a grid's output size; a single picture is a grid of one), with the
/// tiles' shared parameter sets (each NAL unit after a 4-byte big-endian
/// length), shrunk by `factor` (1 to 128), of `bits` bits a sample (the
/// configuration's). `threads`: libde265's worker
/// threads for a tile of more than a megapixel (a single picture).
/// `alpha_tiles`, when not NULL: an alpha plane's HEVC tiles of the same
/// grid (one for each of `tiles`, the same size), with their own parameter
/// sets and depth; each is decoded after its colour tile and its luma
/// shrunk beside the colour's.
typedef struct {
    int width, height;
    int columns, rows, tile_width, tile_height;
    const chevc_extent *tiles;
    const unsigned char *configuration;
    size_t configuration_size;
    int factor;
    int bits;
    int threads;
    const chevc_extent *alpha_tiles;
    const unsigned char *alpha_configuration;
    size_t alpha_configuration_size;
    int alpha_bits;
    /// 0: HEVC tiles (libde265; parameter sets each after a 4-byte length);
    /// 1: AV1 tiles (dav1d; `configuration` the av1C box's OBUs, put before
    /// each tile's own, as libheif does). The alpha plane's tiles alike.
    int codec;
} chevc_tiling;

/// Small rows of a picture shrunk as its tiles come: Y, Cb and Cr at full
/// resolution each (4:4:4, the chroma of a subsampled stream averaged over
/// the same boxes as the luma), `bits` bits a sample in 16-bit words,
/// `rows` rows of `width` from `first_row` of the small picture, each
/// plane's rows `stride` samples apart; `monochrome`: Y alone (the others zero). The colour description
/// of the first tile's stream (H.273 code points, as libde265 reads them).
/// With an alpha plane, its samples (`alpha_bits` bits) in planes[3]; else NULL.
typedef struct {
    const unsigned short *planes[4];
    int width, first_row, rows, stride;
    int bits;
    int alpha_bits;
    int monochrome;
    int primaries, transfer, matrix, full_range;
} chevc_band;

/// Takes each band of finished small rows, in order; 0 to go on.
typedef int (*chevc_rows_sink)(void *context, const chevc_band *band);

/// Decodes the picture of `tiling` from the file open on `descriptor`
/// (read with pread) one tile at a time, each through a libde265 decoder of
/// its own (dav1d's for AV1 tiles), and box-shrinks each as it comes: the small picture is floor
/// (width / factor) x floor(height / factor) (its size in `out_width`,
/// `out_height` before the first band), each sample the mean of a factor x
/// factor box (the centred region of whole boxes, as chevc_decode_shrunk
/// keeps it). A box that straddles two rows of tiles is finished with the
/// next row; the rows each row of tiles finishes go to `sink` at once.
/// What is held here is one tile's picture and the sums of the small rows
/// one row of tiles reaches: the caller keeps what it makes of the bands.
/// Returns 0, or -1 with a line in `error`.
int chevc_decode_tiles(int descriptor, const chevc_tiling *tiling, chevc_rows_sink sink, void *context,
                       int *out_width, int *out_height, char *error, size_t error_size);

/// How many pictures chevc_decode_tiles has decoded in this process.
unsigned long chevc_tiled_decoded(void);

/// A band's rows as interleaved R'G'B' of the same depth (3 samples a
/// pixel, rows packed, width x rows x 3 at `rgb`), converted as libheif
/// converts a picture: the matrix's Kr and Kb (H.273 `matrix`; BT.601's
/// for code points it has none for), limited range expanded unless
/// `full_range`. 0, or -1 for a band it does not take.
int chevc_ycbcr_to_rgb16(const chevc_band *in, int matrix, int full_range, unsigned short *rgb);

#endif
