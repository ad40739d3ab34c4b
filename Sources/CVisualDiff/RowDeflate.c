#include "RowDeflate.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

/* A zlib stream made of rows as they come: each run of bytes is a copy of
 * the row above (a distance of one row) or of the byte before (a distance
 * of one) where either is 3 bytes or longer, the longer of the two; any
 * other byte is a literal; each block of up to 32768 of these gets its own
 * Huffman codes. A difference picture is rows of one colour, rows like the
 * one above, and runs: this finds what zlib's fastest level finds there,
 * at the speed of a comparison, with no hash table, for a few percent more
 * bytes (the repeats within a row it does not look for). */

static uint32_t reversed(uint32_t code, int bits) {
    uint32_t result = 0;
    for (int i = 0; i < bits; i++) result = result << 1 | ((code >> i) & 1);
    return result;
}

static const int length_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const int length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const int distance_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                      193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const int distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/* The length code of each match length, 3-258. */
static unsigned char length_code[259];

static void length_codes(void) {
    for (int n = 3, s = 0; n <= 258; n++) {
        while (s < 28 && n >= length_base[s + 1]) s++;
        length_code[n] = (unsigned char) s;
    }
}

/* Huffman code lengths of at most `limit` bits for `count` symbols of
 * `frequency` (at least two of them not 0), the most frequent the
 * shortest: a tree made by merging the two lightest, then lengths over the
 * limit folded back in as miniz does (a deepest code moved up, a shallower
 * one split), keeping the code complete. */
static void code_lengths(const uint32_t *frequency, int count, int limit, unsigned char *lengths) {
    int symbol[288], used = 0;
    for (int s = 0; s < count; s++) {
        lengths[s] = 0;
        if (frequency[s]) symbol[used++] = s;
    }
    for (int i = 1; i < used; i++) {  /* by frequency, rising (stable) */
        int s = symbol[i], j = i;
        for (; j > 0 && frequency[symbol[j - 1]] > frequency[s]; j--) symbol[j] = symbol[j - 1];
        symbol[j] = s;
    }
    uint64_t weight[2 * 288];
    int parent[2 * 288], depth[2 * 288];
    if (used < 2) {  /* not asked for; a code of one bit */
        if (used) lengths[symbol[0]] = 1;
        return;
    }
    for (int i = 0; i < used; i++) weight[i] = frequency[symbol[i]];
    int leaf = 0, inner = used, next = used;
    for (int k = 0; k < used - 1; k++) {
        int pick[2];
        for (int t = 0; t < 2; t++) {
            if (leaf < used && (inner >= next || weight[leaf] <= weight[inner])) pick[t] = leaf++;
            else pick[t] = inner++;
        }
        weight[next] = weight[pick[0]] + weight[pick[1]];
        parent[pick[0]] = parent[pick[1]] = next++;
    }
    int per_length[33] = {0};
    depth[next - 1] = 0;
    for (int node = next - 2; node >= 0; node--) depth[node] = depth[parent[node]] + 1;
    for (int i = 0; i < used; i++) per_length[depth[i] < 32 ? depth[i] : 32]++;
    for (int l = limit + 1; l <= 32; l++) per_length[limit] += per_length[l], per_length[l] = 0;
    uint32_t total = 0;
    for (int l = limit; l > 0; l--) total += (uint32_t) per_length[l] << (limit - l);
    while (total != 1u << limit) {
        per_length[limit]--;
        for (int l = limit - 1; l > 0; l--) {
            if (per_length[l]) {
                per_length[l]--, per_length[l + 1] += 2;
                break;
            }
        }
        total--;
    }
    for (int l = 1, i = used - 1; l <= limit; l++)  /* the most frequent first, the shortest lengths */
        for (int k = 0; k < per_length[l]; k++) lengths[symbol[i--]] = (unsigned char) l;
}

/* The canonical codes of `lengths`, bits in the order they are written. */
static void canonical(const unsigned char *lengths, int count, uint32_t *codes) {
    int per_length[16] = {0};
    uint32_t next[16];
    for (int s = 0; s < count; s++) per_length[lengths[s]]++;
    per_length[0] = 0;
    uint32_t code = 0;
    for (int l = 1; l < 16; l++) code = (code + (uint32_t) per_length[l - 1]) << 1, next[l] = code;
    for (int s = 0; s < count; s++)
        if (lengths[s]) codes[s] = reversed(next[lengths[s]]++, lengths[s]);
}

static int flush(RowDeflate *z) {
    if (!z->failed && z->held) z->failed = z->sink(z->context, z->out, z->held);
    z->held = 0;
    return z->failed;
}

/* `count` bits (at most 32) of `value`, lowest first. */
static inline void put(RowDeflate *z, uint64_t value, int count) {
    z->bits |= value << z->count;
    z->count += count;
    if (z->count >= 32) {
        uint32_t low = (uint32_t) z->bits;
        memcpy(z->out + z->held, &low, 4);
        z->held += 4, z->bits >>= 32, z->count -= 32;
        if (z->held >= ROW_DEFLATE_CHUNK) flush(z);
    }
}

/* How many of the first `limit` bytes of `a` equal those of `b`, eight at a time. */
static inline int common(const unsigned char *a, const unsigned char *b, int limit) {
    int n = 0;
    for (; n + 8 <= limit; n += 8) {
        uint64_t x, y;
        memcpy(&x, a + n, 8), memcpy(&y, b + n, 8);
        if (x != y) return n + (__builtin_ctzll(x ^ y) >> 3);
    }
    while (n < limit && a[n] == b[n]) n++;
    return n;
}

/* How many of the first `limit` bytes of `a` equal a[-1], eight at a time. */
static inline int run_of(const unsigned char *a, int limit) {
    uint64_t y = 0x0101010101010101ull * a[-1];
    int n = 0;
    for (; n + 8 <= limit; n += 8) {
        uint64_t x;
        memcpy(&x, a + n, 8);
        if (x != y) return n + (__builtin_ctzll(x ^ y) >> 3);
    }
    while (n < limit && a[n] == a[-1]) n++;
    return n;
}

int row_deflate_open(RowDeflate *z, int length, int (*sink)(void *, const unsigned char *, size_t), void *context) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, length_codes);
    memset(z, 0, offsetof(RowDeflate, symbols));
    z->length = length, z->sink = sink, z->context = context, z->adler = 1;
    z->previous = malloc((size_t) length);
    if (!z->previous) return -1;
    int d = 29;  /* a row's distance code, when it fits deflate's window */
    while (d > 0 && distance_base[d] > length) d--;
    z->row_symbol = length <= 32768 ? d : -1;
    z->out[0] = 0x78, z->out[1] = 0x01, z->held = 2;  /* deflate, a 32 KiB window; no dictionary */
    return 0;
}

/* The block gathered, with its own codes; the last with `last`. */
static void block(RowDeflate *z, int last) {
    uint32_t frequency[286 + 30] = {0}, *distances = frequency + 286;
    for (int i = 0; i < z->gathered; i++) {
        uint32_t s = z->symbols[i];
        if (s >> 31) {
            frequency[257 + length_code[(s >> 1) & 511]]++;
            distances[s & 1 ? z->row_symbol : 0]++;
        } else {
            frequency[s]++;
        }
    }
    frequency[256] = 1;
    /* Two codes at least in each (a one-code set is not complete). */
    if (!frequency[0]) frequency[0] = 1;
    if (!distances[0]) distances[0] = 1;
    if (!distances[1]) distances[1] = 1;
    unsigned char lengths[286 + 30];
    uint32_t codes[286 + 30];
    int literals = 286, dists = 30;
    code_lengths(frequency, 286, 15, lengths);
    while (literals > 257 && !lengths[literals - 1]) literals--;
    code_lengths(distances, 30, 15, lengths + literals);
    while (dists > 1 && !lengths[literals + dists - 1]) dists--;
    canonical(lengths, literals, codes);
    canonical(lengths + literals, dists, codes + 286);
    /* The lengths, run-length coded: (symbol, extra value, extra bits). */
    int runs[286 + 30][3], count = 0, total = literals + dists;
    uint32_t code_frequency[19] = {0};
    for (int i = 0; i < total;) {
        int value = lengths[i], n = 1;
        while (i + n < total && lengths[i + n] == value) n++;
        i += n;
        while (n > 0) {
            int *r = runs[count++];
            if (value == 0 && n >= 11) r[0] = 18, r[2] = 7, r[1] = (n > 138 ? 138 : n) - 11, n -= r[1] + 11;
            else if (value == 0 && n >= 3) r[0] = 17, r[2] = 3, r[1] = n - 3, n = 0;
            else if (value != 0 && n >= 4 && count > 1 && runs[count - 2][0] == value && runs[count - 2][2] == 0) {
                int k = n > 6 ? 6 : n;
                r[0] = 16, r[2] = 2, r[1] = k - 3, n -= k;
            } else r[0] = value, r[2] = 0, r[1] = 0, n--;
            code_frequency[r[0]]++;
        }
    }
    if (!code_frequency[0]) code_frequency[0] = 1;
    if (!code_frequency[18]) code_frequency[18] = 1;
    unsigned char code_bits[19];
    uint32_t code_codes[19];
    code_lengths(code_frequency, 19, 7, code_bits);
    canonical(code_bits, 19, code_codes);
    static const unsigned char order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    int sent = 19;
    while (sent > 4 && !code_bits[order[sent - 1]]) sent--;
    put(z, (uint32_t) last | 2u << 1, 3);
    put(z, (uint32_t) (literals - 257) | (uint32_t) (dists - 1) << 5 | (uint32_t) (sent - 4) << 10, 14);
    for (int i = 0; i < sent; i++) put(z, code_bits[order[i]], 3);
    for (int i = 0; i < count; i++) {
        put(z, code_codes[runs[i][0]], code_bits[runs[i][0]]);
        if (runs[i][2]) put(z, (uint32_t) runs[i][1], runs[i][2]);
    }
    uint32_t *distance_codes = codes + 286;
    const unsigned char *distance_bits = lengths + literals;
    for (int i = 0; i < z->gathered; i++) {
        uint32_t s = z->symbols[i];
        if (!(s >> 31)) {
            put(z, codes[s], lengths[s]);
            continue;
        }
        int n = (int) ((s >> 1) & 511), l = length_code[n];
        put(z, codes[257 + l] | (uint32_t) (n - length_base[l]) << lengths[257 + l], lengths[257 + l] + length_extra[l]);
        int d = s & 1 ? z->row_symbol : 0;
        put(z, distance_codes[d] | (uint32_t) (z->length - distance_base[d]) * (s & 1) << distance_bits[d],
            distance_bits[d] + (s & 1 ? distance_extra[d] : 0));
    }
    put(z, codes[256], lengths[256]);
    z->gathered = 0;
}

static inline void gather(RowDeflate *z, uint32_t symbol) {
    z->symbols[z->gathered++] = symbol;
    if (z->gathered == ROW_DEFLATE_SYMBOLS) block(z, 0);
}

void row_deflate_row(RowDeflate *z, const unsigned char *row) {
    int length = z->length;
    const unsigned char *above = z->rows && z->row_symbol >= 0 ? z->previous : NULL;
    for (int i = 0; i < length;) {
        int limit = length - i < 258 ? length - i : 258;
        int up = above ? common(row + i, above + i, limit) : 0;
        int run = i > 0 ? run_of(row + i, limit) : 0;
        if (up >= 3 && up >= run) {
            gather(z, 1u << 31 | (uint32_t) up << 1 | 1);
            i += up;
        } else if (run >= 3) {
            gather(z, 1u << 31 | (uint32_t) run << 1);
            i += run;
        } else {
            gather(z, row[i]);
            i++;
        }
    }
    z->adler = (uint32_t) libdeflate_adler32(z->adler, row, (size_t) length);
    memcpy(z->previous, row, (size_t) length);
    z->rows++;
}

int row_deflate_finish(RowDeflate *z) {
    block(z, 1);
    put(z, 0, (8 - z->count % 8) % 8);  /* to a whole byte */
    while (z->count > 0) {
        z->out[z->held++] = (unsigned char) z->bits;
        z->bits >>= 8, z->count -= 8;
    }
    for (int shift = 24; shift >= 0; shift -= 8) z->out[z->held++] = (unsigned char) (z->adler >> shift);
    int failed = flush(z);
    free(z->previous);
    z->previous = NULL;
    return failed;
}

void row_deflate_close(RowDeflate *z) {
    free(z->previous);
    z->previous = NULL;
}
