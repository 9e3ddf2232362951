/*===- top_k.c - the first k of many, in order ------------------------===*
 *
 * The kept elements are a heap whose root is the last of them in order;
 * an element offered that comes before the root replaces it.
 *
 *===--------------------------------------------------------------------===*/
#include "top_k.h"

#include <stdlib.h>
#include <string.h>

#define AT(i) (top->items + (i) * top->size)

static void swap(ThunkyTopK *top, size_t a, size_t b) {
  unsigned char t[64];
  memcpy(t, AT(a), top->size), memcpy(AT(a), AT(b), top->size), memcpy(AT(b), t, top->size);
}

static void siftUp(ThunkyTopK *top, size_t i) {
  while (i && top->compare(AT(i), AT((i - 1) / 2)) > 0) {
    swap(top, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}

static void siftDown(ThunkyTopK *top, size_t i) {
  for (;;) {
    size_t last = i, l = 2 * i + 1, r = l + 1;
    if (l < top->count && top->compare(AT(l), AT(last)) > 0)
      last = l;
    if (r < top->count && top->compare(AT(r), AT(last)) > 0)
      last = r;
    if (last == i)
      return;
    swap(top, i, last);
    i = last;
  }
}

bool topKCreate(ThunkyTopK *top, size_t k, size_t size,
                int (*compare)(const void *, const void *)) {
  *top = (ThunkyTopK){.size = size, .k = k, .compare = compare};
  return size <= 64 && (top->items = malloc(k * size + 1)) != NULL;
}

void topKOffer(ThunkyTopK *top, const void *item) {
  if (top->count < top->k) {
    memcpy(AT(top->count), item, top->size);
    siftUp(top, top->count++);
  } else if (top->k && top->compare(item, AT(0)) < 0) {
    memcpy(AT(0), item, top->size);
    siftDown(top, 0);
  }
}

size_t topKFinish(ThunkyTopK *top) {
  qsort(top->items, top->count, top->size, top->compare);
  return top->count;
}

void topKDestroy(ThunkyTopK *top) {
  free(top->items);
  *top = (ThunkyTopK){0};
}
