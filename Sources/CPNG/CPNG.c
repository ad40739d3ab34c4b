// Plain PNGs inflated under zlib's rules (Inflate.c; libdeflate checks the
// chunks' CRCs and the stream's Adler-32), and their rows unfiltered in
// place: see CPNG.h.
#include "CPNG.h"

#include <emmintrin.h>
#include <libdeflate.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static uint32_t big_endian(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int read_at(int descriptor, void *into, size_t count, off_t offset) {
    unsigned char *at = into;
    while (count > 0) {
        ssize_t got = pread(descriptor, at, count, offset);
        if (got <= 0) return -1;
        at += got, count -= (size_t)got, offset += got;
    }
    return 0;
}

// Inlined where `bpp` is a constant (3 or 4), so that its copies are moves.
#define INLINE static inline __attribute__((always_inline))

// A pixel of 3 or 4 bytes in the low lanes of a vector, and back.
INLINE __m128i load_pixel(const unsigned char *p, int bpp) {
    uint32_t value = 0;
    memcpy(&value, p, (size_t)bpp);
    return _mm_cvtsi32_si128((int)value);
}

INLINE void store_pixel(unsigned char *p, __m128i pixel, int bpp) {
    uint32_t value = (uint32_t)_mm_cvtsi128_si32(pixel);
    memcpy(p, &value, (size_t)bpp);
}

// The bytes of a pixel (3 or 4, in the low bytes of `colour`) over and
// over: 15 or 16 bytes, whole pixels; kept for the colour last asked for.
typedef struct {
    int made;
    uint32_t colour;
    __m128i bytes;
} Run;

INLINE void run_of(Run *run, uint32_t colour, int bpp) {
    if (run->made && run->colour == colour) return;
    unsigned char bytes[16];
    for (int k = 0; k < 16; k++) bytes[k] = (unsigned char)(colour >> (8 * (k % bpp)));
    run->made = 1, run->colour = colour, run->bytes = _mm_loadu_si128((const __m128i *)bytes);
}

// Whether the 16 bytes at `p` are all zero.
INLINE int zeros(const unsigned char *p) {
    return _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), _mm_setzero_si128())) == 0xffff;
}

// Whether the whole pixels among the 16 bytes at `p` are all `colour`.
INLINE int same_run(Run *run, const unsigned char *p, uint32_t colour, int bpp) {
    run_of(run, colour, bpp);
    int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), run->bytes));
    return (mask | (bpp == 3 ? 0x8000 : 0)) == 0xffff;
}

// The whole pixels of 16 bytes at `p` made `colour` (the 16th byte, after
// 5 RGB pixels, is left as it was).
INLINE void store_run(Run *run, unsigned char *p, uint32_t colour, int bpp) {
    run_of(run, colour, bpp);
    unsigned char bytes[16];
    _mm_storeu_si128((__m128i *)bytes, run->bytes);
    memcpy(p, bytes, (size_t)(16 - 16 % bpp));
}

// One row, `source` filtered, into `row` (which may start before `source`,
// never after: the in-place layout), `above` the row above, unfiltered, or
// NULL for the first. Each pixel is read before its own bytes are written,
// and only bytes already read are written over.
INLINE void unfilter_row(int filter, const unsigned char *source, unsigned char *row, const unsigned char *above,
                         size_t length, int bpp) {
    const __m128i zero = _mm_setzero_si128();
    if (!above && (filter == 2 || filter == 4)) filter = filter == 2 ? 0 : 1;  // Paeth over zeros is Sub
    switch (filter) {
    case 0:
        memmove(row, source, length);
        return;
    case 2: {  // Up: sixteen bytes at a time, each block read before it is written
        size_t i = 0;
        for (; i + 16 <= length; i += 16) {
            __m128i sum = _mm_add_epi8(_mm_loadu_si128((const __m128i *)(source + i)),
                                       _mm_loadu_si128((const __m128i *)(above + i)));
            _mm_storeu_si128((__m128i *)(row + i), sum);
        }
        for (; i < length; i++) row[i] = (unsigned char)(source[i] + above[i]);
        return;
    }
    case 1: {  // Sub
        __m128i left = zero;
        Run run = {0, 0, zero};
        for (size_t i = 0; i < length;) {
            size_t whole = (size_t)(16 - 16 % bpp);
            if (i + 16 <= length && zeros(source + i)) {  // the left pixel again: a block of them
                store_run(&run, row + i, (uint32_t)_mm_cvtsi128_si32(left), bpp);
                i += whole;
                continue;
            }
            left = _mm_add_epi8(load_pixel(source + i, bpp), left);
            store_pixel(row + i, left, bpp);
            i += (size_t)bpp;
        }
        return;
    }
    case 3: {  // Average: the floor of (left + above) / 2
        __m128i left = zero;
        for (size_t i = 0; i < length; i += (size_t)bpp) {
            __m128i up = above ? load_pixel(above + i, bpp) : zero;
            __m128i mean = _mm_avg_epu8(left, up);
            mean = _mm_sub_epi8(mean, _mm_and_si128(_mm_xor_si128(left, up), _mm_set1_epi8(1)));
            left = _mm_add_epi8(load_pixel(source + i, bpp), mean);
            store_pixel(row + i, left, bpp);
        }
        return;
    }
    default: {  // Paeth, in 16-bit lanes; ties go to left, then above, then above-left
        __m128i left = zero, corner = zero;
        Run run = {0, 0, zero};
        for (size_t i = 0; i < length; i += (size_t)bpp) {
            // Where left, above and above-left are one colour and nothing is added, Paeth gives that colour:
            // a block of it, while the row above is that colour too.
            if (i + 16 <= length && zeros(source + i)) {
                uint32_t colour = (uint32_t)_mm_cvtsi128_si32(left);
                if (colour == (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(corner, zero))
                    && same_run(&run, above + i, colour, bpp)) {
                    store_run(&run, row + i, colour, bpp);
                    i += (size_t)(16 - 16 % bpp) - (size_t)bpp;
                    continue;
                }
            }
            __m128i up = _mm_unpacklo_epi8(load_pixel(above + i, bpp), zero);
            __m128i a = _mm_unpacklo_epi8(left, zero);
            __m128i pa = _mm_sub_epi16(up, corner), pb = _mm_sub_epi16(a, corner);
            __m128i pc = _mm_add_epi16(pa, pb);
            pa = _mm_max_epi16(pa, _mm_sub_epi16(zero, pa));
            pb = _mm_max_epi16(pb, _mm_sub_epi16(zero, pb));
            pc = _mm_max_epi16(pc, _mm_sub_epi16(zero, pc));
            __m128i smallest = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
            __m128i take_a = _mm_cmpeq_epi16(smallest, pa), take_b = _mm_cmpeq_epi16(smallest, pb);
            __m128i nearest = _mm_or_si128(_mm_and_si128(take_b, up), _mm_andnot_si128(take_b, corner));
            nearest = _mm_or_si128(_mm_and_si128(take_a, a), _mm_andnot_si128(take_a, nearest));
            left = _mm_add_epi8(load_pixel(source + i, bpp), _mm_packus_epi16(nearest, zero));
            store_pixel(row + i, left, bpp);
            corner = up;
        }
        return;
    }
    }
}

int cpng_unfilter(unsigned char *data, int width, int height, int bpp) {
    size_t length = (size_t)width * (size_t)bpp;
    const unsigned char *above = NULL;
    for (size_t y = 0; y < (size_t)height; y++) {
        const unsigned char *stored = data + y * (length + 1);
        int filter = stored[0];
        if (filter > 4) return -1;
        unsigned char *row = data + y * length;
        if (bpp == 3) unfilter_row(filter, stored + 1, row, above, length, 3);
        else unfilter_row(filter, stored + 1, row, above, length, 4);
        above = row;
    }
    return 0;
}

// The one chunk a plain PNG may have besides IHDR, IDAT and IEND: pHYs, of
// its fixed size, once, before the data, as libpng takes it without a
// warning; libvips reads it as metadata, changing no pixel. (Text and time
// chunks are left to libpng, which has warnings for bad ones.)
static int harmless(const unsigned char *type, uint32_t length, int *seen) {
    if (memcmp(type, "pHYs", 4) != 0 || length != 9 || *seen) return 0;
    return *seen = 1;
}

// A chunk's type and data, read at `offset` (its length field), checked
// against its CRC. 0, or -1 when it cannot be read or is wrong.
static int checked(int descriptor, off_t offset, uint32_t length, unsigned char *into) {
    if (read_at(descriptor, into, (size_t)length + 8, offset + 4) != 0) return -1;
    uint32_t crc = (uint32_t)libdeflate_crc32(0, into, (size_t)length + 4);
    return crc == big_endian(into + length + 4) ? 0 : -1;
}

// The IDAT chunks' data, one after another; NULL with *failed 0 when the
// file is not this decoder's, with *failed -1 when out of memory.
static unsigned char *image_data(int descriptor, off_t size, size_t limit, size_t *count, int *failed) {
    unsigned char *data = NULL, *chunk = NULL;
    size_t held = 0, capacity = 0;
    int in_data = 0, physical = 0;
    *failed = 0;
    for (off_t offset = 33; offset + 12 <= size;) {
        unsigned char header[8];
        if (read_at(descriptor, header, 8, offset) != 0) break;
        uint32_t length = big_endian(header);
        if (length > 0x7fffffffu || offset + 12 + (off_t)length > size) break;
        int is_data = memcmp(header + 4, "IDAT", 4) == 0;
        if (memcmp(header + 4, "IEND", 4) == 0) {
            if (length != 0 || !in_data) break;
            unsigned char end[8];
            if (checked(descriptor, offset, 0, end) != 0) break;
            free(chunk);
            *count = held;
            return data;
        }
        if (!is_data && (in_data || !harmless(header + 4, length, &physical))) break;  // the IDATs are one run
        in_data |= is_data;
        if (is_data && (held + length > limit)) break;
        unsigned char *grown = realloc(chunk, (size_t)length + 8);
        if (!grown) { *failed = -1; break; }
        chunk = grown;
        if (checked(descriptor, offset, length, chunk) != 0) break;
        if (is_data) {
            if (held + length > capacity) {
                size_t wanted = capacity ? capacity * 2 : 1u << 20;
                while (wanted < held + length) wanted *= 2;
                if (wanted > limit) wanted = limit;
                unsigned char *larger = realloc(data, wanted);
                if (!larger) { *failed = -1; break; }
                data = larger, capacity = wanted;
            }
            memcpy(data + held, chunk + 4, length);
            held += length;
        }
        offset += 12 + (off_t)length;
    }
    free(chunk);
    free(data);
    return NULL;
}

// RGBA rows, packed, to RGB in place, if every pixel is opaque: 1, else 0.
static int opaque_to_rgb(unsigned char *data, size_t pixels) {
    unsigned char all = 0xff;
    for (size_t i = 0; i < pixels; i++) all &= data[i * 4 + 3];
    if (all != 0xff) return 0;
    for (size_t i = 0; i < pixels; i++) {
        data[i * 3] = data[i * 4], data[i * 3 + 1] = data[i * 4 + 1], data[i * 3 + 2] = data[i * 4 + 2];
    }
    return 1;
}

int cpng_decode_plain(int descriptor, size_t max_bytes, unsigned char **pixels, int *width, int *height) {
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char head[33];
    struct stat facts;
    if (fstat(descriptor, &facts) != 0 || facts.st_size < 45 || read_at(descriptor, head, 33, 0) != 0) return 0;
    if (memcmp(head, signature, 8) != 0 || big_endian(head + 8) != 13 || memcmp(head + 12, "IHDR", 4) != 0) return 0;
    if ((uint32_t)libdeflate_crc32(0, head + 12, 17) != big_endian(head + 29)) return 0;
    uint32_t w = big_endian(head + 16), h = big_endian(head + 20);
    int depth = head[24], colour = head[25], bpp = colour == 2 ? 3 : 4;
    // libvips sets libpng's limits to its own largest coordinate.
    if (w == 0 || h == 0 || w > 10000000u || h > 10000000u || depth != 8 || (colour != 2 && colour != 6)
        || head[26] != 0 || head[27] != 0 || head[28] != 0) return 0;
    // The filtered rows, unfiltered where they are: their size is the most held at once.
    unsigned long long stored = (unsigned long long)h * ((unsigned long long)w * (unsigned)bpp + 1);
    if (stored > max_bytes || stored > SIZE_MAX / 2) return 0;
    size_t limit = (size_t)stored + (size_t)stored / 64 + 4096;  // deflate's stored blocks at worst, and more
    size_t count = 0;
    int failed = 0;
    unsigned char *compressed = image_data(descriptor, facts.st_size, limit, &count, &failed);
    if (!compressed) return failed;
    if (count > UINT_MAX || stored > UINT_MAX) {
        free(compressed);
        return 0;
    }
    unsigned char *rows = malloc((size_t)stored);
    if (!rows) {
        free(compressed);
        return -1;
    }
    // Inflated under zlib's rules (cpng_inflate), as libpng's zlib would: a
    // stream libpng refuses is refused here too and left to libvips, which
    // says why. The zlib header and Adler-32 are checked here as zlib checks
    // them, the sum by libdeflate's vectorised one.
    unsigned cmf = count >= 6 ? compressed[0] : 0, flg = count >= 6 ? compressed[1] : 0;
    if (count < 6 || (cmf & 15) != 8 || (cmf >> 4) > 7 || ((cmf << 8) | flg) % 31 != 0 || (flg & 32)) {
        free(rows), free(compressed);
        return 0;
    }
    int result = cpng_inflate(compressed + 2, count - 6, rows, (size_t)stored);
    if (result == -2) {
        free(rows), free(compressed);
        return -1;
    }
    uint32_t sum = big_endian(compressed + count - 4);
    free(compressed);
    if (result != 0 || (uint32_t)libdeflate_adler32(1, rows, (size_t)stored) != sum
        || cpng_unfilter(rows, (int)w, (int)h, bpp) != 0
        || (bpp == 4 && !opaque_to_rgb(rows, (size_t)w * h))) {
        free(rows);
        return 0;
    }
    *pixels = rows, *width = (int)w, *height = (int)h;
    return 1;
}

int cpng_inflate_zlib(const unsigned char *stream, size_t count, unsigned char *output, size_t size, size_t *made) {
    *made = 0;
    if (count > UINT_MAX || size > UINT_MAX) return -1;
    z_stream inflating;
    memset(&inflating, 0, sizeof inflating);
    if (inflateInit2(&inflating, -15) != Z_OK) return -2;
    inflating.next_in = (unsigned char *)stream, inflating.avail_in = (uInt)count;
    inflating.next_out = output, inflating.avail_out = (uInt)size;
    int result = inflate(&inflating, Z_FINISH);
    int whole = result == Z_STREAM_END && inflating.avail_in == 0 && inflating.avail_out == 0;
    *made = size - inflating.avail_out;
    inflateEnd(&inflating);
    return whole ? 0 : -1;
}
