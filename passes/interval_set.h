/*===- interval_set.h - byte ranges of many roots, found by overlap ------===*
 *
 * A set of byte ranges, each of a root (an opaque pointer: the value the
 * bytes belong to) and tagged with an owner. It finds a range overlapping
 * a query in O(log n) expected and removes every range of an owner in
 * O(k log n), so a sweep that removes what it finds stays linear however
 * many ranges are in the set at once (check_races.c). A treap keyed by
 * (root, start), each node holding the largest end below it.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_PASSES_INTERVAL_SET_H
#define THUNKY_PASSES_INTERVAL_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ThunkyIntervalSet {
  struct ThunkyIntervalNode *nodes; /* every range ever added; removed ones unlinked */
  size_t count, capacity;
  int32_t top;     /* the treap's root node, -1 when empty */
  uint64_t seed;   /* of the priorities (interval_set.c) */
  uint64_t visits; /* nodes a find looked at, over the set's life */
} ThunkyIntervalSet;

/* Adds bytes [start, end) of `root`, owned by `owner`, linked to the owner's
 * previous range `previous` (-1: its first). Returns the range's handle,
 * or -1 when out of memory (or past 2^31 - 1 ranges). */
int64_t thunkyIntervalAdd(ThunkyIntervalSet *set, const void *root, int64_t start, int64_t end,
                          uint32_t owner, int64_t previous);

/* A range of the set overlapping bytes [start, end) of `root`, as its
 * handle, or -1 when none does; *owner is its owner. */
int64_t thunkyIntervalFind(ThunkyIntervalSet *set, const void *root, int64_t start, int64_t end,
                           uint32_t *owner);

/* Removes the range `last` and those linked before it (one owner's list). */
void thunkyIntervalRemoveList(ThunkyIntervalSet *set, int64_t last);

/* Frees the set's memory; it is empty and usable again. */
void thunkyIntervalSetClear(ThunkyIntervalSet *set);

#endif /* THUNKY_PASSES_INTERVAL_SET_H */
