// A raw deflate stream inflated into a buffer of its exact size, under
// zlib's rules (see CPNG.h, cpng_inflate): table-driven, a 64-bit bit
// buffer, matches copied eight or sixteen bytes at a time.
//
// What zlib refuses, this refuses: a block type of 3; a stored block whose
// length and its complement disagree; more than 286 length or 30 distance
// codes; a code-length code over-subscribed or incomplete; a code-length
// repeat with nothing before it or past the lengths' end; no end-of-block
// code; a literal/length or distance code over-subscribed, or incomplete
// other than a single code of one bit; a code that is not in its table
// (the fixed code's 286, 287 and distances 30, 31 among them); a distance
// back past the start; output past the buffer's end; a stream that ends
// short, or has bytes after its last block, or fills less than the buffer.
#include "CPNG.h"

#include <emmintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

// A table entry, 32 bits: the bits of the code at this level (0-15), the
// extra bits that follow it (0-13), its kind, and its value (a literal's
// byte, a length's or distance's base, a subtable's offset).
enum { LITERAL = 0, LENGTH = 1, END = 2, SUBTABLE = 3, INVALID = 4 };
#define ENTRY(bits, extra, kind, value) ((uint32_t)(bits) | (uint32_t)(extra) << 4 | (uint32_t)(kind) << 8 \
                                         | (uint32_t)(value) << 16)
#define E_BITS(e) ((e) & 15)
#define E_EXTRA(e) (((e) >> 4) & 15)
#define E_KIND(e) (((e) >> 8) & 7)
#define E_VALUE(e) ((e) >> 16)

// Root tables of 2^10 and 2^8 entries; a code longer than its root is
// found in a subtable of 2^(15 - root) entries under its first root bits.
#define LITLEN_ROOT 10
#define DISTANCE_ROOT 8
#define MAX_BITS 15
#define LITLEN_SIZE ((1 << LITLEN_ROOT) + 288 * (1 << (MAX_BITS - LITLEN_ROOT)))
#define DISTANCE_SIZE ((1 << DISTANCE_ROOT) + 30 * (1 << (MAX_BITS - DISTANCE_ROOT)))

static const uint16_t length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                         31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t distance_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                           193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                           6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

enum { CODES, LENGTHS, DISTANCES };

// What symbol `symbol` of a table of `type` decodes to, its code `bits` long.
static uint32_t leaf(int type, unsigned symbol, unsigned bits) {
    if (type == CODES) return ENTRY(bits, 0, LITERAL, symbol);
    if (type == DISTANCES)
        return symbol < 30 ? ENTRY(bits, distance_extra[symbol], LENGTH, distance_base[symbol]) : ENTRY(bits, 0, INVALID, 0);
    if (symbol < 256) return ENTRY(bits, 0, LITERAL, symbol);
    if (symbol == 256) return ENTRY(bits, 0, END, 0);
    if (symbol < 286) return ENTRY(bits, length_extra[symbol - 257], LENGTH, length_base[symbol - 257]);
    return ENTRY(bits, 0, INVALID, 0);
}

static unsigned reversed(unsigned code, unsigned bits) {
    unsigned result = 0;
    for (unsigned i = 0; i < bits; i++) result = result << 1 | ((code >> i) & 1);
    return result;
}

// The decoding table of the canonical code of `lengths` (count of them),
// under zlib's rules: 0, or -1 for a set zlib refuses. An empty set (no
// codes) and a single one-bit code are tables whose other entries are
// INVALID, as zlib's are.
static int build(int type, const uint8_t *lengths, unsigned count, uint32_t *table, unsigned root) {
    unsigned per_length[MAX_BITS + 1] = {0}, longest = 0;
    for (unsigned s = 0; s < count; s++) per_length[lengths[s]]++;
    for (unsigned l = MAX_BITS; l >= 1; l--)
        if (per_length[l]) { longest = l; break; }
    for (unsigned i = 0; i < (1u << root); i++) table[i] = ENTRY(root, 0, INVALID, 0);
    if (longest == 0) return type == CODES ? -1 : 0;  // zlib's empty code-length code leads to an error later
    int left = 1;
    for (unsigned l = 1; l <= MAX_BITS; l++) {
        left = (left << 1) - (int)per_length[l];
        if (left < 0) return -1;  // over-subscribed
    }
    if (left > 0 && (type == CODES || longest != 1)) return -1;  // incomplete
    // Symbols in canonical order: by length, then by value.
    unsigned offsets[MAX_BITS + 2] = {0};
    for (unsigned l = 1; l <= MAX_BITS; l++) offsets[l + 1] = offsets[l] + per_length[l];
    uint16_t sorted[288];
    for (unsigned s = 0; s < count; s++)
        if (lengths[s]) sorted[offsets[lengths[s]]++] = (uint16_t)s;
    unsigned sub_bits = MAX_BITS - root, next_sub = 1u << root, code = 0, n = 0;
    for (unsigned l = 1; l <= MAX_BITS; l++) {
        for (unsigned k = 0; k < per_length[l]; k++, n++, code++) {
            unsigned symbol = sorted[n], index = reversed(code, l);
            if (l <= root) {
                uint32_t entry = leaf(type, symbol, l);
                for (unsigned i = index; i < (1u << root); i += 1u << l) table[i] = entry;
                continue;
            }
            unsigned prefix = index & ((1u << root) - 1);
            if (E_KIND(table[prefix]) != SUBTABLE) {
                table[prefix] = ENTRY(root, sub_bits, SUBTABLE, next_sub);
                for (unsigned i = 0; i < (1u << sub_bits); i++) table[next_sub + i] = ENTRY(sub_bits, 0, INVALID, 0);
                next_sub += 1u << sub_bits;
            }
            uint32_t *sub = table + E_VALUE(table[prefix]);
            uint32_t entry = leaf(type, symbol, l - root);
            for (unsigned i = index >> root; i < (1u << sub_bits); i += 1u << (l - root)) sub[i] = entry;
        }
        code <<= 1;
    }
    return 0;
}

// The bit reader: `buffer` holds the stream's next `bits` bits (and above
// them, zeros or the bits that follow); `in` is the next byte not in it.
// Past the end it reads zeros, counted, so that a stream that ends short
// is found at the end by its position.
typedef struct {
    const uint8_t *in, *end;
    uint64_t buffer;
    unsigned bits;
    size_t past;  // bytes of zeros read past the end
} Bits;

static inline void refill(Bits *b) {
    if (LIKELY(b->end - b->in >= 8)) {
        uint64_t word;
        memcpy(&word, b->in, 8);
        b->buffer |= word << b->bits;
        unsigned whole = (63 - b->bits) >> 3;
        b->in += whole, b->bits += whole << 3;
        return;
    }
    while (b->bits < 56) {
        if (b->in < b->end) b->buffer |= (uint64_t)*b->in++ << b->bits;
        else b->past++;
        b->bits += 8;
    }
}

static inline uint64_t take(Bits *b, unsigned count) {
    uint64_t value = b->buffer & ((1ull << count) - 1);
    b->buffer >>= count, b->bits -= count;
    return value;
}

// Bits read so far, past the end included.
static inline size_t position(const Bits *b, const uint8_t *start) {
    return ((size_t)(b->in - start) + b->past) * 8 - b->bits;
}

// The entry of the next code, its bits taken.
static inline uint32_t decode(Bits *b, const uint32_t *table, unsigned root) {
    uint32_t entry = table[b->buffer & ((1u << root) - 1)];
    if (UNLIKELY(E_KIND(entry) == SUBTABLE)) {
        b->buffer >>= root, b->bits -= root;
        entry = table[E_VALUE(entry) + (b->buffer & ((1u << E_EXTRA(entry)) - 1))];
    }
    b->buffer >>= E_BITS(entry), b->bits -= E_BITS(entry);
    return entry;
}

// `length` bytes from `distance` back, at `out`; `room` bytes may be
// written from `out` on (at least length).
static inline void copy_match(uint8_t *out, size_t distance, size_t length, size_t room) {
    const uint8_t *from = out - distance;
    uint8_t *stop = out + length;
    if (LIKELY(room >= length + 16)) {
        if (distance >= 16) {
            do {
                _mm_storeu_si128((__m128i *)out, _mm_loadu_si128((const __m128i *)from));
                out += 16, from += 16;
            } while (out < stop);
            return;
        }
        if (distance == 1) {
            __m128i same = _mm_set1_epi8((char)from[0]);
            do {
                _mm_storeu_si128((__m128i *)out, same);
                out += 16;
            } while (out < stop);
            return;
        }
        // A period of `distance` bytes, sixteen of them written at a time
        // at steps of a whole number of periods.
        uint8_t pattern[16];
        for (unsigned i = 0; i < 16; i++) pattern[i] = from[i % distance];
        __m128i repeated = _mm_loadu_si128((const __m128i *)pattern);
        size_t step = 16 - 16 % distance;
        do {
            _mm_storeu_si128((__m128i *)out, repeated);
            out += step;
        } while (out < stop);
        return;
    }
    while (out < stop) *out++ = *from++;
}

// A dynamic block's tables: on the heap, not the caller's stack.
typedef struct Tables {
    uint32_t litlen[LITLEN_SIZE], distances[DISTANCE_SIZE];
} Tables;

static int inflate_into(const uint8_t *stream, size_t count, uint8_t *output, size_t size, Tables *tables);

// The fixed code's tables, made once.
static uint32_t fixed_litlen[LITLEN_SIZE], fixed_distance[DISTANCE_SIZE];
static pthread_once_t fixed_once = PTHREAD_ONCE_INIT;

static void make_fixed(void) {
    uint8_t lengths[320];
    memset(lengths, 8, 144), memset(lengths + 144, 9, 112), memset(lengths + 256, 7, 24), memset(lengths + 280, 8, 8);
    memset(lengths + 288, 5, 32);
    build(LENGTHS, lengths, 288, fixed_litlen, LITLEN_ROOT);
    build(DISTANCES, lengths + 288, 32, fixed_distance, DISTANCE_ROOT);
}


int cpng_inflate(const unsigned char *stream, size_t count, unsigned char *output, size_t size) {
    Tables *tables = malloc(sizeof *tables);
    if (!tables) return -2;
    int result = inflate_into(stream, count, output, size, tables);
    free(tables);
    return result;
}
static int inflate_into(const uint8_t *stream, size_t count, uint8_t *output, size_t size, Tables *tables) {
    uint32_t *litlen = tables->litlen, *distances = tables->distances;
    Bits b = {stream, stream + count, 0, 0, 0};
    uint8_t *out = output, *end = output + size;
    int last = 0;
    while (!last) {
        refill(&b);
        if (position(&b, stream) > count * 8) return -1;  // ran past the end
        last = (int)take(&b, 1);
        unsigned type = (unsigned)take(&b, 2);
        const uint32_t *lit, *dist;
        if (type == 0) {  // stored: from the next byte boundary, LEN, NLEN, the bytes
            take(&b, b.bits & 7);
            refill(&b);
            unsigned length = (unsigned)take(&b, 16), complement = (unsigned)take(&b, 16);
            if (length != (~complement & 0xffff)) return -1;
            if ((size_t)(end - out) < length) return -1;
            // The bytes still in the bit buffer first (whole bytes now), then the stream's.
            while (length > 0 && b.bits >= 8) *out++ = (uint8_t)take(&b, 8), length--;
            if (length > 0) {
                b.buffer = 0, b.bits = 0;  // b.bits was under 8: it was 0
                if (b.past || (size_t)(b.end - b.in) < length) return -1;
                memcpy(out, b.in, length);
                out += length, b.in += length;
            }
            continue;
        }
        if (type == 1) {
            pthread_once(&fixed_once, make_fixed);
            lit = fixed_litlen, dist = fixed_distance;
        } else if (type == 2) {
            unsigned nlen = (unsigned)take(&b, 5) + 257, ndist = (unsigned)take(&b, 5) + 1, ncode = (unsigned)take(&b, 4) + 4;
            if (nlen > 286 || ndist > 30) return -1;
            static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
            uint8_t code_lengths[19] = {0}, lengths[286 + 30];
            for (unsigned i = 0; i < ncode; i++) {
                if (i % 16 == 0) refill(&b);
                code_lengths[order[i]] = (uint8_t)take(&b, 3);
            }
            uint32_t codes[1 << 7];
            if (build(CODES, code_lengths, 19, codes, 7) != 0) return -1;
            unsigned have = 0, total = nlen + ndist;
            while (have < total) {
                refill(&b);
                uint32_t entry = decode(&b, codes, 7);
                unsigned symbol = E_VALUE(entry), repeat, value = 0;
                if (symbol < 16) {
                    lengths[have++] = (uint8_t)symbol;
                    continue;
                }
                if (symbol == 16) {
                    if (have == 0) return -1;
                    value = lengths[have - 1], repeat = 3 + (unsigned)take(&b, 2);
                } else if (symbol == 17) {
                    repeat = 3 + (unsigned)take(&b, 3);
                } else {
                    repeat = 11 + (unsigned)take(&b, 7);
                }
                if (have + repeat > total) return -1;
                memset(lengths + have, (int)value, repeat);
                have += repeat;
            }
            if (position(&b, stream) > count * 8) return -1;
            if (lengths[256] == 0) return -1;
            if (build(LENGTHS, lengths, nlen, litlen, LITLEN_ROOT) != 0) return -1;
            if (build(DISTANCES, lengths + nlen, ndist, distances, DISTANCE_ROOT) != 0) return -1;
            lit = litlen, dist = distances;
        } else {
            return -1;
        }
        for (;;) {
            refill(&b);
            uint32_t entry = decode(&b, lit, LITLEN_ROOT);
            unsigned kind = E_KIND(entry);
            if (LIKELY(kind == LITERAL)) {
                if (UNLIKELY(out == end)) return -1;
                *out++ = (uint8_t)E_VALUE(entry);
                continue;
            }
            if (UNLIKELY(kind != LENGTH)) {
                if (kind == END) break;
                return -1;
            }
            size_t length = E_VALUE(entry) + (size_t)take(&b, E_EXTRA(entry));
            entry = decode(&b, dist, DISTANCE_ROOT);
            if (UNLIKELY(E_KIND(entry) != LENGTH)) return -1;
            size_t distance = E_VALUE(entry) + (size_t)take(&b, E_EXTRA(entry));
            if (UNLIKELY(distance > (size_t)(out - output) || length > (size_t)(end - out))) return -1;
            copy_match(out, distance, length, (size_t)(end - out));
            out += length;
        }
    }
    size_t used = (position(&b, stream) + 7) / 8;
    return used == count && out == end ? 0 : -1;
}
