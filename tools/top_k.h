/*===- top_k.h - the first k of many, in order ------------------------===*
 *
 * Reports print the few costliest of a program's thousands of thunks;
 * sorting them all would cost n log n where n log k does.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TOOLS_TOP_K_H
#define THUNKY_TOOLS_TOP_K_H

#include <stddef.h>

/* Moves the first min(k, n) of items[0, n) in `compare`'s order (qsort's
 * convention) to the front, in that order; the rest are left in no order.
 * Returns min(k, n). Elements are at most 64 bytes. */
size_t thunkyTopK(void *items, size_t n, size_t size, size_t k,
                  int (*compare)(const void *, const void *));

#endif /* THUNKY_TOOLS_TOP_K_H */
