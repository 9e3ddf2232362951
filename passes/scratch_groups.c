/*===- scratch_groups.c - overlapping slices as groups ------------------===*/
#include "scratch_groups.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdlib.h>

static bool addRange(ThunkyScratchGroups *g, int64_t start, int64_t end) {
  if (start >= end)
    return true; /* an empty slice holds no bytes */
  if (!thunkyArrayGrow((void **)&g->items, &g->capacity, g->count, sizeof *g->items))
    return false;
  g->items[g->count++] = (ThunkyScratchGroup){start, end, INT64_MAX, -1, 0};
  return true;
}

static int byStart(const void *x, const void *y) {
  const ThunkyScratchGroup *a = x, *b = y;
  return (a->start > b->start) - (a->start < b->start);
}

void thunkyScratchGroupsSortByStart(ThunkyScratchGroups *groups) {
  if (groups->count)
    qsort(groups->items, groups->count, sizeof *groups->items, byStart);
}

/* Merges overlapping ranges into groups, sorted by start. */
static void mergeRanges(ThunkyScratchGroups *g) {
  thunkyScratchGroupsSortByStart(g);
  size_t n = 0;
  for (size_t i = 0; i < g->count; ++i) {
    if (n && g->items[i].start < g->items[n - 1].end) {
      if (g->items[i].end > g->items[n - 1].end)
        g->items[n - 1].end = g->items[i].end;
    } else {
      g->items[n++] = g->items[i];
    }
  }
  g->count = n;
}

bool thunkyGroupSlices(MlirValue buffer, ThunkyScratchGroups *out, bool *grouped) {
  *grouped = false;
  for (MlirOpOperand use = mlirValueGetFirstUse(buffer); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (thunkyOpGetKind(user) != THUNKY_OP_SLICE_BUFFER)
      return true;
    MlirValue result = mlirOperationGetResult(user, 0);
    for (MlirOpOperand inner = mlirValueGetFirstUse(result); !mlirOpOperandIsNull(inner);
         inner = mlirOpOperandGetNextUse(inner))
      if (thunkyOpGetKind(mlirOpOperandGetOwner(inner)) == THUNKY_OP_SLICE_BUFFER)
        return true;
    int64_t offset = thunkySliceBufferGetOffset(user);
    if (!addRange(out, offset, offset + thunkyValueGetBufferSize(result)))
      return false;
  }
  mergeRanges(out);
  *grouped = true;
  return true;
}

size_t thunkyFirstGroupAfter(const ThunkyScratchGroups *groups, int64_t offset) {
  size_t lo = 0, hi = groups->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (groups->items[mid].end <= offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void thunkyScratchGroupsTouch(ThunkyScratchGroups *groups, int64_t from, int64_t to,
                              int64_t first, int64_t last, bool write) {
  for (size_t g = thunkyFirstGroupAfter(groups, from);
       g < groups->count && groups->items[g].start < to; ++g) {
    ThunkyScratchGroup *grp = &groups->items[g];
    /* Read before anything wrote it: the program sees the bytes scratch
     * starts with, so they must be kept from the start. */
    if (!write && grp->first > grp->last)
      first = 0;
    grp->first = first < grp->first ? first : grp->first;
    grp->last = last > grp->last ? last : grp->last;
  }
}

void thunkyScratchGroupsClear(ThunkyScratchGroups *groups) {
  free(groups->items);
  *groups = (ThunkyScratchGroups){0};
}
