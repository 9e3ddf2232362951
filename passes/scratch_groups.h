/*===- scratch_groups.h - a scratch buffer's slices, grouped ------------===*
 *
 * XLA carves its scratch (the one big temp allocation) into slices. Slices
 * that overlap hold the same bytes, so they live and move together: a
 * group. pack-scratch gives groups whose lifetimes are disjoint the same
 * bytes, and memory-report counts a group's bytes only while it is live;
 * both find groups and lifetimes here, so they agree on what is live.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_PASSES_SCRATCH_GROUPS_H
#define THUNKY_PASSES_SCRATCH_GROUPS_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ThunkyScratchGroup {
  int64_t start, end;  /* bytes [start, end) of the scratch buffer */
  int64_t first, last; /* lifetime, in the caller's steps; first > last: unused */
  int64_t newStart;    /* where pack-scratch moves it */
} ThunkyScratchGroup;

typedef struct ThunkyScratchGroups {
  ThunkyScratchGroup *items; /* sorted by start, disjoint */
  size_t count, capacity;
} ThunkyScratchGroups;

/* The groups of the slices of `buffer`, each unused so far, in `out`, and
 * *grouped true; *grouped false when `buffer` is used otherwise (whole, or
 * through slices of slices). Empty slices hold no bytes and make no group.
 * False only when out of memory. */
bool thunkyGroupSlices(MlirValue buffer, ThunkyScratchGroups *out, bool *grouped);

/* Sorts groups by start again, after a caller sorted them otherwise: the
 * lookups below need that order. */
void thunkyScratchGroupsSortByStart(ThunkyScratchGroups *groups);

/* The first group ending after `offset`. */
size_t thunkyFirstGroupAfter(const ThunkyScratchGroups *groups, int64_t offset);

/* Widens the lifetime of every group that bytes [from, to) reach to cover
 * steps [first, last]; a read of a group nothing touched yet reaches back
 * to step 0. Give a step's writes before its reads, so that what a kernel
 * writes (and may read in place) counts as written there. */
void thunkyScratchGroupsTouch(ThunkyScratchGroups *groups, int64_t from, int64_t to,
                              int64_t first, int64_t last, bool write);

void thunkyScratchGroupsClear(ThunkyScratchGroups *groups);

#endif /* THUNKY_PASSES_SCRATCH_GROUPS_H */
