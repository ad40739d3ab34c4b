/* A PNG's image data deflated as its rows come (RowDeflate.c), for the
 * difference pictures: the zlib stream handed to `sink` a chunk at a time. */
#ifndef ROW_DEFLATE_H
#define ROW_DEFLATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

enum { ROW_DEFLATE_CHUNK = 1 << 16, ROW_DEFLATE_SYMBOLS = 1 << 15 };

typedef struct {
    int length;  /* of a row, its filter byte included */
    int rows;    /* given so far */
    /* Given the stream's bytes as they are made; not 0 (an errno) stops it. */
    int (*sink)(void *context, const unsigned char *bytes, size_t count);
    void *context;
    int failed;
    unsigned char *previous;  /* the row above */
    uint32_t adler;
    uint64_t bits;
    int count;  /* bits held in `bits` */
    int row_symbol;  /* the distance code of a row back; -1 when a row is longer than deflate's window */
    int gathered;
    size_t held;  /* bytes in `out` */
    /* The block being gathered: literals (0-255) and matches (1 << 31, the length << 1, 1 for a row back). */
    uint32_t symbols[ROW_DEFLATE_SYMBOLS];
    unsigned char out[ROW_DEFLATE_CHUNK + 16];
} RowDeflate;

/* Starts a stream of rows of `length` bytes: 0, or -1 out of memory. */
int row_deflate_open(RowDeflate *z, int length, int (*sink)(void *, const unsigned char *, size_t), void *context);
/* Adds a row of `length` bytes. */
void row_deflate_row(RowDeflate *z, const unsigned char *row);
/* Ends the stream (its Adler-32 last) and hands the rest to the sink: 0, or the sink's error. Frees what open took. */
int row_deflate_finish(RowDeflate *z);
/* Frees what open took, the stream left unfinished. */
void row_deflate_close(RowDeflate *z);

#endif
