#ifndef ROW_ALIGNMENT_H
#define ROW_ALIGNMENT_H

#include <stdint.h>

/* What a row of the aligned pair is. */
enum { DIFF_MATCHED = 0, DIFF_PAIRED = 1, DIFF_INSERTED = 2, DIFF_DELETED = 3, DIFF_FILLER = 4, DIFF_CUT = 5 };

/* One row of the aligned pair: the baseline's row `a` beside the current's
 * row `b`, whose pixel x is the baseline's x - dx (moved dx to the right). MATCHED rows are
 * equal bytes; PAIRED rows were left between matches; INSERTED is a
 * current row with no baseline row (beside the nearer-alike baseline row
 * at the gap), DELETED the reverse. FILLER is an inserted or deleted row
 * of one flat colour: room made or taken by a move, not content. CUT is a
 * row left over after the last match, whose place after aligning is past
 * the other picture's end: cut off by the frame (a band moved past the
 * bottom, or a taller picture's rest), outside the common part, not
 * compared. FILLER and CUT rows are never counted. */
typedef struct { int a, b, dx, kind; } DiffEntry;

struct DiffPagingState;

/* Aligns the rows of two 3-band pictures over their first `width` pixels
 * (`threshold`, --threshold, says which rows are alike but for noise):
 * the entries in order, malloc'ed (free them); 0, or -1 out of memory.
 * The rows it reads are told to `paging` (DiffViews.h). */
int diff_align(const unsigned char *a, int a_width, int a_height, const unsigned char *b, int b_width, int b_height,
               int width, double threshold, struct DiffPagingState *paging, DiffEntry **entries, int *count);

#endif
