// Small JPEG looks decoded fast: the colour or grey JPEGs photos are, read
// by libjpeg straight from their file, shrunk as they are decoded.
//
// libvips reads a JPEG through libjpeg as well, shrinking it on load the same
// way; but around each decode it builds a source, sniffs every loader, reads
// the header twice and runs its pipeline, which for a 1024 px photo decoded
// at a half costs more than the decode: about 7 ms of CPU here against
// libjpeg's 3.7. `--pick` looks at every photo once, small, and this is
// most of its cost on a phone's folder.
//
// Only what this decoder is sure of is its: 8-bit baseline or progressive
// JPEGs whose colour libjpeg turns into RGB itself (YCbCr, RGB) or grey, no
// warning from libjpeg (corrupt data, a file cut short), within the caller's
// memory. Anything else (CMYK or YCCK, 12-bit, any warning, any error) is
// not this decoder's: it says so, and the caller decodes through libvips,
// whose answer (pixels or error) is then the file's.
#ifndef CJPEG_H
#define CJPEG_H

#include <stddef.h>

/// The picture of the JPEG file open on `descriptor` (read with pread from
/// its start; its offset is left alone), decoded at 1/`shrink` (1, 2, 4 or
/// 8: libjpeg's scaled IDCT, as libvips' shrink-on-load), as packed 8-bit
/// rows of `*bands` samples (3, RGB, or 1, grey), when it is such a JPEG
/// and its decode needs at most `max_bytes` (the rows, and a progressive
/// JPEG's coefficients): returns 1 and sets `*pixels` (malloc'ed; the caller
/// frees it), `*width`, `*height` and `*bands`. Returns 0 when the file is
/// not this decoder's (nothing is set or left allocated).
int cjpeg_decode_small(int descriptor, int shrink, size_t max_bytes, unsigned char **pixels, int *width,
                       int *height, int *bands);

#endif
