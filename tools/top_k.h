/*===- top_k.h - the first k of many, in order ------------------------===*
 *
 * Reports print the few costliest of a program's thousands of thunks:
 * offered one at a time, only k are kept, so a report costs n log k and
 * no copy of all n.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TOOLS_TOP_K_H
#define THUNKY_TOOLS_TOP_K_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ThunkyTopK {
  unsigned char *items; /* k elements of `size` bytes; a heap until finished */
  size_t size, k, count;
  int (*compare)(const void *, const void *); /* qsort's convention: first first */
} ThunkyTopK;

/* Room for the first k of elements of `size` bytes (at most 64); false
 * when out of memory. */
bool topKCreate(ThunkyTopK *top, size_t k, size_t size, int (*compare)(const void *, const void *));
/* Keeps a copy of *item if it is among the first k offered so far. */
void topKOffer(ThunkyTopK *top, const void *item);
/* Sorts what was kept, in order, and returns how many (at most k). */
size_t topKFinish(ThunkyTopK *top);
void topKDestroy(ThunkyTopK *top);

#endif /* THUNKY_TOOLS_TOP_K_H */
