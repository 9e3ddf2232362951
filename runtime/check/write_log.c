/*===- write_log.c - what each thunk wrote, and where two runs part ----===*/
#include "thunky-c/runtime/Check.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/base/HashMap.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  ThunkyWriteEvent *events;
  size_t count, capacity;
  bool truncated;
} RankTrace;

struct ThunkyWriteLog {
  RankTrace *ranks;
  uint32_t numRanks;
  size_t maxEvents;
};

ThunkyWriteLog *thunkyWriteLogCreate(uint32_t ranks, size_t maxEvents) {
  ThunkyWriteLog *t = calloc(1, sizeof *t);
  if (!t || !(t->ranks = calloc(ranks ? ranks : 1, sizeof *t->ranks))) {
    free(t);
    return NULL;
  }
  /* Events are indexed by uint32_t when two traces are matched. */
  t->numRanks = ranks, t->maxEvents = maxEvents < UINT32_MAX - 2 ? maxEvents : UINT32_MAX - 2;
  return t;
}

void thunkyWriteLogDestroy(ThunkyWriteLog *trace) {
  if (!trace)
    return;
  for (uint32_t r = 0; r < trace->numRanks; r++)
    free(trace->ranks[r].events);
  free(trace->ranks);
  free(trace);
}

void thunkyWriteLogAdd(ThunkyWriteLog *trace, uint32_t rank, ThunkyWriteEvent event) {
  RankTrace *r = &trace->ranks[rank];
  /* Past maxEvents, or out of memory: the log stays a hint, marked cut. */
  if (r->count >= trace->maxEvents ||
      !thunkyArrayGrow((void **)&r->events, &r->capacity, r->count, sizeof *r->events)) {
    r->truncated = true;
    return;
  }
  r->events[r->count++] = event;
}

const ThunkyWriteEvent *thunkyWriteLogGet(const ThunkyWriteLog *trace, uint32_t rank,
                                            size_t *count, bool *truncated) {
  if (rank >= trace->numRanks) {
    *count = 0, *truncated = false;
    return NULL;
  }
  *count = trace->ranks[rank].count, *truncated = trace->ranks[rank].truncated;
  return trace->ranks[rank].events;
}

/*--- matching the thunks of two runs ------------------------------------------*/

/* Which thunk an event is, across two executables: its kind and
 * annotation; its key when it has no annotation. */
static uint64_t identity(const ThunkyPlan *plan, uint32_t thunk) {
  const ThunkyPlanThunk *t = &plan->thunks[thunk];
  uint64_t h = thunkyFingerprintHash(0, t->kind, strlen(t->kind));
  return t->annotation.size ? thunkyFingerprintHash(h, t->annotation.data, t->annotation.size)
                            : h ^ t->key;
}

static bool sameThunk(const ThunkyPlan *a, uint32_t x, const ThunkyPlan *b, uint32_t y) {
  const ThunkyPlanThunk *s = &a->thunks[x], *t = &b->thunks[y];
  if (strcmp(s->kind, t->kind) || s->annotation.size != t->annotation.size)
    return false;
  return s->annotation.size ? !memcmp(s->annotation.data, t->annotation.data, s->annotation.size)
                            : s->key == t->key;
}

/* Each event's key in a map: its identity and which run of that thunk it
 * is (the n-th time a loop body ran it). */
typedef struct {
  ThunkyHashMap seen;  /* identity -> runs so far */
  ThunkyHashMap index; /* identity and run -> event */
} Numbering;

static bool number(Numbering *n, uint64_t id, uint64_t *key) {
  uint32_t runs = 0;
  thunkyHashMapGet(&n->seen, id, &runs);
  if (runs == UINT32_MAX - 1 || !thunkyHashMapPut(&n->seen, id, runs + 1))
    return false;
  *key = thunkyFingerprintHash(id, &runs, sizeof runs);
  return true;
}

static void numberingDestroy(Numbering *n) {
  thunkyHashMapDestroy(&n->seen);
  thunkyHashMapDestroy(&n->index);
}

/* A divergence found so far: when it happened and what it is. */
typedef struct {
  size_t time;
  ThunkyDivergence kind;
  uint32_t thunkA, thunkB;
} Candidate;

/* Keeps the earlier of two divergences. An event's time is its position in
 * its run; a pair's is the later of its two positions. Whatever a divergence
 * caused ran after it in both runs, so it comes later on this clock, and a
 * cause is never named after its effects. At one time, one run only (A's
 * first) comes before a pair: a thunk one run lacks explains more than
 * bytes that differ. */
static void keepEarlier(Candidate *best, Candidate c) {
  if (c.time < best->time || (c.time == best->time && best->kind == THUNKY_DIVERGENCE_WRITES &&
                              c.kind != THUNKY_DIVERGENCE_WRITES))
    *best = c;
}

ThunkyDivergence thunkyWriteLogDivergence(const ThunkyPlan *planA,
                                            const ThunkyWriteLog *traceA,
                                            const ThunkyPlan *planB,
                                            const ThunkyWriteLog *traceB, uint32_t rank,
                                            uint32_t *thunkA, uint32_t *thunkB) {
  size_t na, nb;
  bool ta, tb;
  const ThunkyWriteEvent *a = thunkyWriteLogGet(traceA, rank, &na, &ta);
  const ThunkyWriteEvent *b = thunkyWriteLogGet(traceB, rank, &nb, &tb);
  Numbering A = {0}, B = {0};
  uint32_t *partner = malloc((na + 1) * sizeof *partner); /* A's event -> B's, or none */
  bool *matched = calloc(nb + 1, sizeof *matched);
  bool ok = partner && matched;
  uint64_t key;
  for (size_t i = 0; ok && i < nb; i++)
    ok = number(&B, identity(planB, b[i].thunk), &key) &&
         thunkyHashMapPut(&B.index, key, (uint32_t)i);
  for (size_t i = 0; ok && i < na; i++) {
    uint32_t j;
    partner[i] = UINT32_MAX;
    if (!(ok = number(&A, identity(planA, a[i].thunk), &key)))
      break;
    if (thunkyHashMapGet(&B.index, key, &j) && sameThunk(planA, a[i].thunk, planB, b[j].thunk))
      partner[i] = j, matched[j] = true;
  }
  /* Past a truncated trace, whether an event has a partner is unknown: one
   * run only counts when the other run's trace is whole. */
  Candidate best = {SIZE_MAX, THUNKY_DIVERGENCE_NONE, UINT32_MAX, UINT32_MAX};
  for (size_t i = 0; ok && i < na; i++) {
    size_t j = partner[i];
    if (j == UINT32_MAX && !tb)
      keepEarlier(&best, (Candidate){i, THUNKY_DIVERGENCE_ONLY_A, a[i].thunk, UINT32_MAX});
    else if (j != UINT32_MAX && a[i].checksum != b[j].checksum)
      keepEarlier(&best, (Candidate){i > j ? i : j, THUNKY_DIVERGENCE_WRITES, a[i].thunk,
                                     b[j].thunk});
  }
  for (size_t j = 0; ok && !ta && j < nb; j++)
    if (!matched[j])
      keepEarlier(&best, (Candidate){j, THUNKY_DIVERGENCE_ONLY_B, UINT32_MAX, b[j].thunk});
  /* Every thunk ran in both and wrote the same bytes, yet the outputs
   * differ: two writes to the same bytes ran in another order. The first
   * event of A that B ran before an earlier one of A's is one of them;
   * independent thunks reordered look the same, so this is a guess. */
  size_t latest = 0; /* A's event whose partner is latest in B so far */
  for (size_t i = 0; ok && best.kind == THUNKY_DIVERGENCE_NONE && i < na; i++) {
    if (partner[i] == UINT32_MAX)
      continue;
    if (partner[latest] != UINT32_MAX && partner[i] < partner[latest])
      best = (Candidate){0, THUNKY_DIVERGENCE_ORDER, a[latest].thunk, b[partner[i]].thunk};
    else
      latest = i;
  }
  free(partner), free(matched);
  numberingDestroy(&A), numberingDestroy(&B);
  *thunkA = best.thunkA, *thunkB = best.thunkB;
  return ok ? best.kind : THUNKY_DIVERGENCE_FAILED;
}
