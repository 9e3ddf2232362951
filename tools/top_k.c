/*===- top_k.c - the first k of many, in order ------------------------===*
 *
 * The front k elements are kept as a heap whose root is the last of them
 * in order; each later element that comes before the root replaces it.
 * Then the k are sorted.
 *
 *===--------------------------------------------------------------------===*/
#include "top_k.h"

#include <stdlib.h>
#include <string.h>

#define AT(i) (base + (i) * size)

static void swap(unsigned char *a, unsigned char *b, size_t size) {
  unsigned char t[64];
  memcpy(t, a, size), memcpy(a, b, size), memcpy(b, t, size);
}

/* Restores the heap of k below `i`: a parent comes after its children. */
static void siftDown(unsigned char *base, size_t size, size_t k, size_t i,
                     int (*compare)(const void *, const void *)) {
  for (;;) {
    size_t last = i, l = 2 * i + 1, r = l + 1;
    if (l < k && compare(AT(l), AT(last)) > 0)
      last = l;
    if (r < k && compare(AT(r), AT(last)) > 0)
      last = r;
    if (last == i)
      return;
    swap(AT(i), AT(last), size);
    i = last;
  }
}

size_t thunkyTopK(void *items, size_t n, size_t size, size_t k,
                  int (*compare)(const void *, const void *)) {
  unsigned char *base = items;
  if (k > n)
    k = n;
  if (!k || size > 64)
    return 0;
  for (size_t i = k / 2; i-- > 0;)
    siftDown(base, size, k, i, compare);
  for (size_t i = k; i < n; i++)
    if (compare(AT(i), AT(0)) < 0) {
      swap(AT(i), AT(0), size);
      siftDown(base, size, k, 0, compare);
    }
  qsort(base, k, size, compare);
  return k;
}
