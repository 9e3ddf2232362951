/*===- interval_set.c - byte ranges of many roots, found by overlap ------===*/
#include "interval_set.h"

#include "thunky-c/base/Arena.h"

#include <stdlib.h>
#include <time.h>

/* 48 bytes, so that a million ranges stay dense in cache; a node's
 * priority is a hash of its handle, not stored. */
typedef struct ThunkyIntervalNode {
  const void *root;
  int64_t start, end, maxEnd; /* maxEnd: the largest end in its subtree */
  int32_t left, right, previous;
  uint32_t owner;
} Node;

/* A node's priority: its handle mixed with the set's seed (splitmix64's
 * finalizer). The seed is drawn at the set's first range from where its
 * memory lies and the clock, so that no input can be crafted to line keys
 * up with priorities; the set's answers do not depend on it. */
static uint64_t priority(const ThunkyIntervalSet *s, int64_t n) {
  uint64_t h = s->seed + (uint64_t)n * 0x9e3779b97f4a7c15u;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
  return h ^ (h >> 31);
}

/* Keys are (root, start, handle): unique, so a node is found again by its own. */
typedef struct Key {
  uintptr_t root;
  int64_t start, handle;
} Key;

static Key keyOf(const ThunkyIntervalSet *s, int64_t n) {
  return (Key){(uintptr_t)s->nodes[n].root, s->nodes[n].start, n};
}

static bool before(Key a, Key b) {
  if (a.root != b.root)
    return a.root < b.root;
  if (a.start != b.start)
    return a.start < b.start;
  return a.handle < b.handle;
}

static void update(ThunkyIntervalSet *s, int64_t n) {
  Node *x = &s->nodes[n];
  x->maxEnd = x->end;
  if (x->left >= 0 && s->nodes[x->left].maxEnd > x->maxEnd)
    x->maxEnd = s->nodes[x->left].maxEnd;
  if (x->right >= 0 && s->nodes[x->right].maxEnd > x->maxEnd)
    x->maxEnd = s->nodes[x->right].maxEnd;
}

/* Splits treap t into keys before `key` (*low) and the rest (*high). */
static void split(ThunkyIntervalSet *s, int32_t t, Key key, int32_t *low, int32_t *high) {
  if (t < 0) {
    *low = *high = -1;
    return;
  }
  if (before(keyOf(s, t), key)) {
    split(s, s->nodes[t].right, key, &s->nodes[t].right, high);
    *low = t;
  } else {
    split(s, s->nodes[t].left, key, low, &s->nodes[t].left);
    *high = t;
  }
  update(s, t);
}

/* Every key of a before every key of b. */
static int32_t merge(ThunkyIntervalSet *s, int32_t a, int32_t b) {
  if (a < 0 || b < 0)
    return a < 0 ? b : a;
  if (priority(s, a) > priority(s, b)) {
    s->nodes[a].right = merge(s, s->nodes[a].right, b);
    update(s, a);
    return a;
  }
  s->nodes[b].left = merge(s, a, s->nodes[b].left);
  update(s, b);
  return b;
}

int64_t thunkyIntervalAdd(ThunkyIntervalSet *s, const void *root, int64_t start, int64_t end,
                          uint32_t owner, int64_t previous) {
  if (s->count >= INT32_MAX ||
      !thunkyArrayGrow((void **)&s->nodes, &s->capacity, s->count, sizeof *s->nodes))
    return -1;
  if (!s->count) {
    s->top = -1;
    s->seed = (uint64_t)(uintptr_t)s->nodes ^ (uint64_t)clock() * 0x9e3779b97f4a7c15u;
  }
  int64_t n = (int64_t)s->count++;
  s->nodes[n] = (Node){root, start, end, end, -1, -1, (int32_t)previous, owner};
  int32_t low, high;
  split(s, s->top, keyOf(s, n), &low, &high);
  s->top = merge(s, merge(s, low, (int32_t)n), high);
  return n;
}

/* A node of subtree t overlapping [start, end) of root, or -1. A subtree
 * whose largest end is at or before start holds none. */
static int32_t find(ThunkyIntervalSet *s, int32_t t, uintptr_t root, int64_t start, int64_t end) {
  while (t >= 0) {
    const Node *x = &s->nodes[t];
    s->visits++;
    if (x->maxEnd <= start)
      return -1;
    uintptr_t r = (uintptr_t)x->root;
    if (r < root) {
      t = x->right;
      continue;
    }
    if (r > root || x->start >= end) {
      t = x->left;
      continue;
    }
    if (x->end > start)
      return t;
    int32_t hit = find(s, x->left, root, start, end);
    if (hit >= 0)
      return hit;
    t = x->right;
  }
  return -1;
}

int64_t thunkyIntervalFind(ThunkyIntervalSet *s, const void *root, int64_t start, int64_t end,
                           uint32_t *owner) {
  if (!s->count || start >= end)
    return -1;
  int32_t hit = find(s, s->top, (uintptr_t)root, start, end);
  if (hit >= 0)
    *owner = s->nodes[hit].owner;
  return hit;
}

void thunkyIntervalRemoveList(ThunkyIntervalSet *s, int64_t last) {
  for (int64_t n = last; n >= 0; n = s->nodes[n].previous) {
    Key key = keyOf(s, n), next = key;
    next.handle++;
    int32_t low, middle, high;
    split(s, s->top, key, &low, &middle);
    split(s, middle, next, &middle, &high);
    s->top = merge(s, low, high);
  }
}

void thunkyIntervalSetClear(ThunkyIntervalSet *s) {
  free(s->nodes);
  *s = (ThunkyIntervalSet){0};
}
