// Screenshots decoded fast: the plain PNGs a browser writes (8-bit RGB or
// RGBA, not interlaced, no colour chunk), which are what `--diff` compares.
//
// libvips reads PNG through libpng, whose zlib inflates a page of 1280x2000
// in most of the time its decode takes: zlib copies a match a byte at a
// time, and a page is mostly long matches (rows of white). Here the stream,
// held whole, is inflated in one call by our own inflate (Inflate.c), which
// refuses exactly what zlib refuses and copies matches sixteen bytes at a
// time: five to six times zlib's speed on pages. (libdeflate's inflate is
// as fast but lets through streams libpng refuses: a code-length repeat
// past the lengths' end, which the fuzz target png-plain found, more than
// 286 length codes.) The zlib header and Adler-32 are checked as zlib
// checks them, the sum by libdeflate's vectorised one, and the rows are
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

/// The raw deflate stream `stream` (`count` bytes) inflated into `output`,
/// which it must fill exactly, under zlib's rules: 0 exactly when zlib's
/// raw inflate of the same bytes in one call (`Z_FINISH`, a window of 32
/// KiB) ends the stream with `size` bytes made and every byte read, with
/// the same bytes; -1 for any stream zlib refuses, or that is short, long,
/// or makes more or less than `size`; -2 when memory could not be had.
int cpng_inflate(const unsigned char *stream, size_t count, unsigned char *output, size_t size);

/// zlib's own raw inflate under the same rules, which cpng_inflate is
/// checked against (the fuzz target `inflate`, the tests): 0, -1 or -2 as
/// cpng_inflate answers, and `*made` the bytes zlib wrote before it ended
/// or stopped.
int cpng_inflate_zlib(const unsigned char *stream, size_t count, unsigned char *output, size_t size, size_t *made);

/// Rows of `width` pixels of `bpp` (3 or 4) bytes, each row stored as its
/// PNG filter byte and then its filtered bytes, from `data` on, unfiltered
/// in place: row y ends up at data + y x width x bpp. Returns 0, or -1 at
/// a filter byte over 4 (the rows before it are unfiltered, the rest left
/// as they were). Public for the tests.
int cpng_unfilter(unsigned char *data, int width, int height, int bpp);

#endif
