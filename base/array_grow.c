/*===- array_grow.c - room for one more element ---------------------------===*
 *
 * The planner, the schedule and the sliced unpack build arrays of a
 * program's size: a 100k-thunk plan is tens of MB. Where page faults are
 * dear (a virtual machine's are several microseconds each), faulting that
 * in 4 KB pages and copying it at each doubling cost a fifth of planning.
 * So a large array grows eightfold (capacity never touched costs nothing)
 * into fresh memory asked to sit on 2 MB pages before the copy touches it.
 *
 *===--------------------------------------------------------------------===*/
#define _DEFAULT_SOURCE /* madvise */
#include "thunky-c/base/Arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { LARGE = 1u << 20, HUGE_PAGE = 2u << 20 };

/* Only a hint: where huge pages are off, or not Linux, nothing changes. */
static void adviseHuge(void *p, size_t bytes) {
#if defined(MADV_HUGEPAGE)
  uintptr_t begin = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
  uintptr_t end = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
  if (end > begin)
    madvise((void *)begin, end - begin, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

bool thunkyArrayGrow(void **items, size_t *capacity, size_t count, size_t size) {
  if (count < *capacity)
    return true;
  /* Room for `count` may take more than one step when an array grows by
   * many elements at once (a chunk's records). */
  size_t grown = *capacity ? *capacity : 16;
  while (grown <= count) {
    size_t factor = grown * size < LARGE ? 2 : 8;
    if (!size || grown > SIZE_MAX / factor / size)
      return false;
    grown *= factor;
  }
  if (!size || grown > SIZE_MAX / size)
    return false;
  void *fresh;
  if (grown * size < LARGE) {
    if (!(fresh = realloc(*items, grown * size)))
      return false;
  } else {
    if (!(fresh = malloc(grown * size)))
      return false;
    adviseHuge(fresh, grown * size);
    if (*capacity)
      memcpy(fresh, *items, *capacity * size);
    free(*items);
  }
  *items = fresh, *capacity = grown;
  return true;
}
