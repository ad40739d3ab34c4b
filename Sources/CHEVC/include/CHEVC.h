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

#endif
