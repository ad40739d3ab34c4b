// Screenshots decoded fast: the plain PNGs a browser writes (8-bit RGB or
// RGBA, not interlaced, no colour chunk), which are what `--diff` compares.
//
// libvips reads PNG through libpng, whose zlib inflates a page of 1280x2000
// in about 20 ms of the 27 its decode takes. Here zlib inflates the same
// stream, held whole, in one call, raw: its header and Adler-32 are checked
// as zlib checks them, the sum by libdeflate's vectorised one (libdeflate's
// inflate, about three times as fast as zlib's,
// lets through streams libpng refuses: a code-length repeat past the
// lengths' end, which the fuzz target png-plain found), and the rows are
// unfiltered in place with SSE2, so the picture needs no more memory than
// its own pixels and a byte a row. Anything else (another depth or colour
// type, interlacing, a palette, a profile, gamma, EXIF, transparency, a
// chunk this decoder does not know, a checksum that is wrong, data short or
// long) is not this decoder's: it says so, and the caller decodes through
// libvips, whose answer (pixels or error) is then the file's.
#ifndef CPNG_H
#define CPNG_H

#include <stddef.h>

/// The picture of the PNG file open on `descriptor` (read with pread from
/// its start; its offset is left alone) as packed 8-bit RGB rows, when it
/// is such a plain PNG and its decode needs at most `max_bytes` at once:
/// returns 1 and sets `*pixels` (malloc'ed, at least width x height x 3
/// bytes; the caller frees it), `*width` and `*height`. Returns 0 when the
/// file is not this decoder's (nothing is set or left allocated): an RGBA
/// picture with any pixel not opaque included. Returns -1 when memory could
/// not be had.
int cpng_decode_plain(int descriptor, size_t max_bytes, unsigned char **pixels, int *width, int *height);

/// Rows of `width` pixels of `bpp` (3 or 4) bytes, each row stored as its
/// PNG filter byte and then its filtered bytes, from `data` on, unfiltered
/// in place: row y ends up at data + y x width x bpp. Returns 0, or -1 at
/// a filter byte over 4 (the rows before it are unfiltered, the rest left
/// as they were). Public for the tests.
int cpng_unfilter(unsigned char *data, int width, int height, int bpp);

#endif
