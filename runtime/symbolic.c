/*===- symbolic.c - running a plan on terms instead of bytes -------------===*
 *
 * The fingerprint's model without its bytes (docs/checking.md). A
 * fingerprint run fills what a thunk writes from a hash of what it reads;
 * here the written bytes are a term named by that same hash, and contents
 * are lists of pieces of terms (symbolic_memory.h), so a run costs what its
 * thunks and pieces cost, whatever the size of its allocations.
 *
 * Ranks run in lockstep, one command at a time on every rank: a collective
 * then has every member's contents at hand. Control flow stays the same on
 * every rank, since a branch or loop whose predicate is not one known
 * value on every rank is taken as a function (below) rather than run.
 *
 * A loop or conditional taken as a function. The bytes it may write are
 * cut into atoms; each atom is given a formal term, named by the rank, the
 * atom's contents before and its place among atoms of equal contents. The
 * body (or each branch) runs once on the formals, and the contents it
 * leaves, keyed by name, make a digest of it as a function of its state;
 * each atom then holds a term of that digest and its name. Two loops with
 * one digest compute the same function on the same state, so their atoms
 * agree wherever their names do; a name is only where the atom stands, so
 * a rewrite that moves buffers (pack-scratch) gives the same digest.
 *
 *===--------------------------------------------------------------------===*/
#include "async_schedule.h"
#include "host_collectives.h"
#include "replica_groups.h"
#include "run_stop.h"
#include "symbolic_memory.h"
#include "thunky-c/Arena.h"
#include "thunky-c/Executable.h"
#include "thunky-c/HashMap.h"
#include "thunky-c/Runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tags that keep terms of different origins apart. */
enum {
  TAG_THUNK = 1, TAG_PARAMETER, TAG_CONSTANT, TAG_FILL4, TAG_REDUCE, TAG_FORMAL, TAG_LOOP,
  TAG_CONDITIONAL, TAG_RESULT, TAG_WRITES, TAG_UNDEFINED, TAG_EXCHANGE,
};

/* A loop with a known trip count runs its body this many times before the
 * rest is taken as a function (unless it reaches a fixed point first), and
 * loops inside loops so long as the runs they multiply stay within the
 * budget: a body runs at most UNROLL_BUDGET times however deep the loops
 * nest, so the cost stays linear in the thunks. */
enum { UNROLLED = 256, UNROLL_BUDGET = 4096 };

typedef struct Atom {
  uint32_t allocation;
  uint64_t start, size;
  uint32_t order; /* the first write, in program order, that covers it */
} Atom;

typedef struct Atoms {
  Atom *items;
  uint32_t count;
} Atoms;

typedef struct State {
  const ThunkyPlan *plan;
  ThunkyRunConfig config;
  uint32_t ranks, partitions;
  SymMemory *memory;
  ThunkyAsyncSchedule async;
  ThunkyRunStop stop;
  ThunkyHashMap atomsIndex; /* command -> atoms[]: each its own allocation, since a
                               nested loop's are made while an outer one's are in use */
  Atoms **atoms;
  uint32_t numAtoms;
  uint32_t *members;
  uint8_t *seen;
  uint32_t *outputOf; /* per allocation, its first output (thunkyOutputsOfAllocations) */
  SymPieces *results; /* a collective's, per rank and buffer */
  size_t numResults;
  SymPieces scratch;
  uint64_t runs; /* how many times the enclosing loops run what is running now */
  ThunkyExchanges *exchanges; /* per rank: what its exchanges sent (thunky-c/Check.h) */
  uint64_t exchangeRuns;      /* runs of exchanges, every rank's */
  uint32_t asFunction;        /* loops and conditionals taken as functions around here */
  ThunkyError *error;
} State;

static uint32_t mapOf(const State *s, uint32_t rank, uint32_t allocation) {
  return rank * s->plan->numAllocations + allocation;
}

static SymHash digest(State *s, uint32_t rank, ThunkyPlanSlice slice) {
  return symDigest(s->memory, mapOf(s, rank, slice.allocation), slice.offset, slice.size);
}

static bool outOfMemory(State *s) { return thunkyErrorf(s->error, "symbolic: out of memory"); }

static bool fail(State *s, const ThunkyCommand *c, const char *format, ...) {
  char name[200], message[512];
  thunkyPlanThunkName(s->plan, c->thunk, name, sizeof name);
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  return thunkyErrorf(s->error, "symbolic: %s: %s", name, message);
}

static bool writeOne(State *s, uint32_t rank, ThunkyPlanSlice slice, uint32_t term,
                     uint64_t offset) {
  if (term == UINT32_MAX)
    return outOfMemory(s);
  SymPiece p = {term, offset, slice.size};
  return !slice.size ||
         symWrite(s->memory, mapOf(s, rank, slice.allocation), slice.offset, &p, 1) ||
         outOfMemory(s);
}

static uint32_t unknown(State *s, SymHash h, uint32_t thunk, uint32_t parameter) {
  return symTerm(s->memory, (SymTerm){h, SYM_UNKNOWN, 0, NULL, 0, thunk, parameter, false, false});
}

/* The word `value` repeated; a fill of one byte when its bytes agree. */
static uint32_t fill4(State *s, uint32_t value) {
  if (value == (value & 0xff) * 0x01010101u)
    return symFill(s->memory, (uint8_t)value);
  SymHash h = symHashStart(TAG_FILL4);
  symHashAdd(&h, value);
  return symTerm(s->memory,
                 (SymTerm){h, SYM_FILL4, value, NULL, 0, UINT32_MAX, UINT32_MAX, false, false});
}

/*--- the first state --------------------------------------------------------*/

static uint32_t constantTerm(State *s, ThunkyBytes bytes) {
  bool same = true;
  for (size_t i = 1; i < bytes.size && same; i++)
    same = bytes.data[i] == bytes.data[0];
  if (same)
    return symFill(s->memory, bytes.data[0]);
  SymHash h = symHashStart(TAG_CONSTANT);
  symHashAdd(&h, thunkyFingerprintHash(1, bytes.data, bytes.size));
  symHashAdd(&h, thunkyFingerprintHash(2, bytes.data, bytes.size));
  symHashAdd(&h, bytes.size);
  return symTerm(s->memory,
                 (SymTerm){h, SYM_BYTES, 0, bytes.data, bytes.size, UINT32_MAX, UINT32_MAX, false, false});
}

/* What the allocator left in allocation `a` of rank `rank`: unknown bytes.
 * An output's are a term of its number, the same in any program with that
 * output, so two programs that leave the same bytes of it unwritten agree;
 * scratch's are one unknown byte repeated, the same wherever the scratch
 * lies, as a rewrite may move it. */
static uint32_t undefinedTerm(State *s, uint32_t a, uint32_t rank) {
  uint32_t output = s->outputOf[a];
  SymHash h = symHashStart(TAG_UNDEFINED);
  symHashAdd(&h, rank);
  symHashAdd(&h, output);
  SymTerm t = {h, output == UINT32_MAX ? SYM_ANY1 : SYM_UNKNOWN, 0, NULL, 0, UINT32_MAX,
               UINT32_MAX, false, true};
  return symTerm(s->memory, t);
}

/* As a GPU starts: outputs and scratch undefined (the scratch byte when
 * one is given), the constants' bytes, and every parameter a leaf term of
 * its number and rank: each rank has its own inputs. */
static bool initialize(State *s) {
  const ThunkyPlan *p = s->plan;
  for (uint32_t r = 0; r < s->ranks; r++) {
    for (uint32_t a = 0; a < p->numAllocations; a++) {
      const ThunkyPlanAllocation *al = &p->allocations[a];
      ThunkyPlanSlice whole = {a, 0, al->size};
      bool scratch = al->parameter < 0 && !al->isConstant && !al->isOutput;
      uint32_t term = scratch && s->config.scratchByte ? symFill(s->memory, s->config.scratchByte)
                      : scratch || (al->isOutput && al->parameter < 0) ? undefinedTerm(s, a, r)
                                                                       : symFill(s->memory, 0);
      if (!writeOne(s, r, whole, term, 0))
        return false;
      uint64_t known = al->constant.size < al->size ? al->constant.size : al->size;
      ThunkyPlanSlice head = {a, 0, known};
      if (known && !writeOne(s, r, head, constantTerm(s, al->constant), 0))
        return false;
    }
    for (uint32_t i = 0; i < p->numParameters; i++) {
      SymHash h = symHashStart(TAG_PARAMETER);
      symHashAdd(&h, i);
      symHashAdd(&h, r);
      symHashAdd(&h, p->parameters[i].slice.size);
      if (!writeOne(s, r, p->parameters[i].slice, unknown(s, h, UINT32_MAX, i), 0))
        return false;
    }
  }
  return true;
}

/*--- thunks -----------------------------------------------------------------*/

/* A thunk the host cannot run: each buffer it writes becomes the term of
 * its key, the contents it reads (by the fingerprint's rule) and the
 * output's place among its writes. `inPlace`: what it writes held bytes it
 * may leave alone (a dynamic copy writes a window of its destination), so
 * those feed the term too. */
static bool runFunction(State *s, const ThunkyCommand *c, bool inPlace) {
  const ThunkyPlan *p = s->plan;
  const ThunkyPlanThunk *t = &p->thunks[c->thunk];
  const ThunkyPlanAccess *accesses = t->accesses.count ? &p->accesses[t->accesses.first] : NULL;
  for (uint32_t r = 0; r < s->ranks; r++) {
    SymHash h = symHashStart(TAG_THUNK);
    symHashAdd(&h, t->key);
    for (uint32_t i = 0; i < t->accesses.count; i++)
      if (thunkyFingerprintReads(p, c->thunk, i) ||
          (inPlace && (accesses[i].access & THUNKY_ACCESS_WRITE)))
        symHashAddHash(&h, digest(s, r, accesses[i].slice));
    uint64_t position = 0;
    for (uint32_t i = 0; i < t->accesses.count; i++) {
      if (!(accesses[i].access & THUNKY_ACCESS_WRITE))
        continue;
      SymHash out = h;
      symHashAdd(&out, ++position);
      symHashAdd(&out, accesses[i].slice.size);
      if (!writeOne(s, r, accesses[i].slice, unknown(s, out, c->thunk, UINT32_MAX), 0))
        return false;
    }
  }
  return true;
}

/* A thunk that moves bytes between ranks or to and from the host, as an
 * exchange (thunky-c/Check.h): what it reads goes into the rank's sent
 * digest, and what it writes is a term of its key, the rank and which run
 * of its key this is. That run is not known inside a loop or conditional
 * taken as a function. */
static bool runExchange(State *s, const ThunkyCommand *c) {
  const ThunkyPlan *p = s->plan;
  const ThunkyPlanThunk *t = &p->thunks[c->thunk];
  if (s->asFunction) {
    char name[200];
    thunkyPlanThunkName(p, c->thunk, name, sizeof name);
    return thunkyErrorf(s->error,
                        "cannot prove: %s, a %s, which moves bytes between ranks or to the host, runs in a loop "
                        "or conditional that decides on symbols, so which of its runs happen "
                        "is not known", name, t->kind);
  }
  const ThunkyPlanAccess *accesses = t->accesses.count ? &p->accesses[t->accesses.first] : NULL;
  for (uint32_t r = 0; r < s->ranks; r++) {
    SymHash h = symHashStart(TAG_THUNK);
    symHashAdd(&h, t->key);
    for (uint32_t i = 0; i < t->accesses.count; i++)
      if (thunkyFingerprintReads(p, c->thunk, i))
        symHashAddHash(&h, digest(s, r, accesses[i].slice));
    uint64_t run;
    if (!thunkyExchangeRun(&s->exchanges[r], t->key, h.lo ^ (h.hi * 0x9e3779b97f4a7c15u), &run))
      return outOfMemory(s);
    uint64_t position = 0;
    for (uint32_t i = 0; i < t->accesses.count; i++) {
      if (!(accesses[i].access & THUNKY_ACCESS_WRITE))
        continue;
      SymHash out = symHashStart(TAG_EXCHANGE);
      symHashAdd(&out, t->key);
      symHashAdd(&out, run);
      symHashAdd(&out, r);
      symHashAdd(&out, ++position);
      symHashAdd(&out, accesses[i].slice.size);
      if (!writeOne(s, r, accesses[i].slice, unknown(s, out, c->thunk, UINT32_MAX), 0))
        return false;
    }
  }
  s->exchangeRuns++;
  return true;
}

static bool copyPieces(State *s, uint32_t rank, ThunkyPlanSlice src, uint64_t at, uint64_t size,
                       SymPieces *out) {
  return symRead(s->memory, mapOf(s, rank, src.allocation), src.offset + at, size, out) ||
         outOfMemory(s);
}

static bool writePieces(State *s, uint32_t rank, ThunkyPlanSlice dst, const SymPieces *pieces) {
  return !dst.size ||
         symWrite(s->memory, mapOf(s, rank, dst.allocation), dst.offset, pieces->items,
                  pieces->count) ||
         outOfMemory(s);
}

static bool runCopy(State *s, const ThunkyCommand *c) {
  for (uint32_t r = 0; r < s->ranks; r++) {
    s->scratch.count = 0;
    if (!copyPieces(s, r, c->copy.src, 0, c->copy.dst.size, &s->scratch) ||
        !writePieces(s, r, c->copy.dst, &s->scratch))
      return false;
  }
  return true;
}

/*--- collectives ------------------------------------------------------------*/

/* Bytes [at, at + size) of what the members' sources reduce to: a term of
 * their contents in group order. One member, or members that agree under
 * min or max, reduce to their own contents, as the host's bytes do. */
static bool reduced(State *s, const ThunkyCommand *c, const ThunkyCollective *col,
                    const ThunkyCollectiveBuffer *b, uint32_t size, uint64_t at,
                    uint64_t bytes, SymPieces *out) {
  SymHash h = symHashStart(TAG_REDUCE), first = digest(s, s->members[0], b->src);
  bool agree = true;
  symHashAdd(&h, col->reduction);
  symHashAdd(&h, (uint64_t)(uint32_t)b->elementType);
  for (uint32_t m = 0; m < size; m++) {
    SymHash d = digest(s, s->members[m], b->src);
    agree &= d.lo == first.lo && d.hi == first.hi;
    symHashAddHash(&h, d);
  }
  if (size == 1 || (agree && (col->reduction == THUNKY_REDUCE_MIN ||
                              col->reduction == THUNKY_REDUCE_MAX)))
    return copyPieces(s, s->members[0], b->src, at, bytes, out);
  uint32_t term = unknown(s, h, c->thunk, UINT32_MAX);
  return (term != UINT32_MAX && symPiecesAdd(out, (SymPiece){term, at, bytes})) ||
         outOfMemory(s);
}

/* What buffer i of `col` leaves in rank `rank`'s destination, as
 * host_collectives.c computes it, into `out`. */
static bool collectiveBuffer(State *s, const ThunkyCommand *c, const ThunkyCollective *col,
                             uint32_t i, uint32_t size, uint32_t position, uint32_t source,
                             SymPieces *out) {
  const ThunkyCollectiveBuffer *buffers = &s->plan->collectiveBuffers[col->buffers.first];
  const ThunkyCollectiveBuffer *b = &buffers[i];
  uint64_t src = b->src.size, dst = b->dst.size;
  switch ((ThunkyCollectiveKind)col->kind) {
  case THUNKY_COLLECTIVE_ALL_REDUCE:
    return reduced(s, c, col, b, size, 0, src, out);
  case THUNKY_COLLECTIVE_REDUCE_SCATTER:
    return reduced(s, c, col, b, size, position * dst, dst, out);
  case THUNKY_COLLECTIVE_ALL_GATHER:
    for (uint32_t m = 0; m < size; m++)
      if (!copyPieces(s, s->members[m], b->src, 0, src, out))
        return false;
    return true;
  case THUNKY_COLLECTIVE_ALL_TO_ALL:
    if (col->splitDimension) {
      uint64_t chunk = src / size;
      for (uint32_t m = 0; m < size; m++)
        if (!copyPieces(s, s->members[m], b->src, position * chunk, chunk, out))
          return false;
      return true;
    }
    return copyPieces(s, s->members[i], buffers[position].src, 0, dst, out);
  case THUNKY_COLLECTIVE_PERMUTE:
    if (source == THUNKY_NO_RANK) {
      uint32_t zeros = symFill(s->memory, 0);
      return (zeros != UINT32_MAX && symPiecesAdd(out, (SymPiece){zeros, 0, dst})) ||
             outOfMemory(s);
    }
    return copyPieces(s, source, b->src, 0, dst, out);
  case THUNKY_COLLECTIVE_BROADCAST:
    return copyPieces(s, s->members[col->root], b->src, 0, dst, out);
  }
  return fail(s, c, "unknown collective kind %u", col->kind);
}

/* Every rank's results first, then every rank's writes: a destination may
 * be a source, of this rank or another. */
static bool runCollective(State *s, const ThunkyCommand *c) {
  const ThunkyCollective *col = &s->plan->collectives[c->collective.collective];
  uint32_t n = col->buffers.count;
  size_t need = (size_t)s->ranks * n;
  if (need > s->numResults) {
    SymPieces *grown = realloc(s->results, need * sizeof *grown);
    if (!grown)
      return outOfMemory(s);
    memset(grown + s->numResults, 0, (need - s->numResults) * sizeof *grown);
    s->results = grown, s->numResults = need;
  }
  ThunkyError why = {{0}};
  for (uint32_t r = 0; r < s->ranks; r++) {
    uint32_t size = 1, position = 0, source = THUNKY_NO_RANK;
    bool ok = col->kind == THUNKY_COLLECTIVE_PERMUTE
                  ? thunkyPermuteSource(s->plan, col, s->ranks, s->partitions, r, &source, &why)
                  : thunkyReplicaGroup(s->plan, col, s->ranks, s->partitions, r, s->members,
                                       s->seen, &size, &position, &why);
    if (!ok || !thunkyCollectiveCheck(s->plan, col, size, &why))
      return fail(s, c, "rank %u: %s", r, why.message);
    for (uint32_t i = 0; i < n; i++) {
      s->results[r * n + i].count = 0;
      if (!collectiveBuffer(s, c, col, i, size, position, source, &s->results[r * n + i]))
        return false;
    }
  }
  /* Indexed, not offset: a plan without collective buffers has a NULL array. */
  for (uint32_t r = 0; r < s->ranks; r++)
    for (uint32_t i = 0; i < n; i++)
      if (!writePieces(s, r, s->plan->collectiveBuffers[col->buffers.first + i].dst,
                       &s->results[r * n + i]))
        return false;
  return true;
}

/*--- loops and conditionals taken as functions ------------------------------*/

typedef struct Write {
  uint32_t allocation;
  uint64_t start, end;
  uint32_t order;
} Write;

typedef struct Writes {
  Write *items;
  size_t count, capacity;
} Writes;

/* Every slice a thunk of list `list` (and of the lists inside it) writes. */
static bool collectWrites(const ThunkyPlan *p, uint32_t list, Writes *out) {
  ThunkyRange range = p->lists[list];
  for (uint32_t k = 0; k < range.count; k++) {
    const ThunkyCommand *c = &p->commands[range.first + k];
    const ThunkyPlanThunk *t = &p->thunks[c->thunk];
    for (uint32_t i = 0; i < t->accesses.count; i++) {
      const ThunkyPlanAccess *a = &p->accesses[t->accesses.first + i];
      if (!(a->access & THUNKY_ACCESS_WRITE) || !a->slice.size)
        continue;
      if (!thunkyArrayGrow((void **)&out->items, &out->capacity, out->count, sizeof *out->items))
        return false;
      out->items[out->count] = (Write){a->slice.allocation, a->slice.offset,
                                       a->slice.offset + a->slice.size, (uint32_t)out->count};
      out->count++;
    }
    bool ok = true;
    switch ((ThunkyCommandKind)c->kind) {
    case THUNKY_CMD_WHILE:
      ok = collectWrites(p, c->loop.condition, out) && collectWrites(p, c->loop.body, out);
      break;
    case THUNKY_CMD_CONDITIONAL:
      for (uint32_t b = 0; ok && b < c->conditional.branches.count; b++)
        ok = collectWrites(p, (uint32_t)p->ids[c->conditional.branches.first + b], out);
      break;
    case THUNKY_CMD_ASYNC_START:
      ok = collectWrites(p, c->asyncStart.list, out);
      break;
    case THUNKY_CMD_COLLECTIVE_GROUP:
      ok = collectWrites(p, c->group.list, out);
      break;
    default:
      break;
    }
    if (!ok)
      return false;
  }
  return true;
}

static int byStart(const void *x, const void *y) {
  const Write *a = x, *b = y;
  if (a->allocation != b->allocation)
    return a->allocation < b->allocation ? -1 : 1;
  return a->start < b->start ? -1 : a->start > b->start;
}

static int byValue(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return a < b ? -1 : a > b;
}

/* A min-heap of the writes covering the point a sweep is at, by order. */
static void heapPush(Write *heap, size_t *n, Write w) {
  size_t i = (*n)++;
  for (; i && heap[(i - 1) / 2].order > w.order; i = (i - 1) / 2)
    heap[i] = heap[(i - 1) / 2];
  heap[i] = w;
}

static void heapPop(Write *heap, size_t *n) {
  Write w = heap[--*n];
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= *n)
      break;
    if (child + 1 < *n && heap[child + 1].order < heap[child].order)
      child++;
    if (heap[child].order >= w.order)
      break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = w;
}

/* The writes cut at each other's ends into atoms, each with the order of
 * the first write over it: a sweep, O(n log n) for n writes however they
 * overlap. */
static bool makeAtoms(Writes *w, Atoms *out) {
  if (w->count) /* a loop that writes nothing has no array to sort */
    qsort(w->items, w->count, sizeof *w->items, byStart);
  Write *heap = malloc((w->count + 1) * sizeof *heap);
  uint64_t *points = malloc((2 * w->count + 1) * sizeof *points);
  out->items = malloc((2 * w->count + 1) * sizeof *out->items);
  bool ok = heap && points && out->items;
  out->count = 0;
  for (size_t i = 0; ok && i < w->count;) {
    size_t j = i, n = 0, h = 0;
    for (; j < w->count && w->items[j].allocation == w->items[i].allocation; j++)
      points[n++] = w->items[j].start, points[n++] = w->items[j].end;
    qsort(points, n, sizeof *points, byValue);
    for (size_t k = 0, next = i; k + 1 < n; k++) {
      if (points[k] == points[k + 1])
        continue;
      while (next < j && w->items[next].start <= points[k])
        heapPush(heap, &h, w->items[next++]);
      while (h && heap[0].end <= points[k])
        heapPop(heap, &h);
      if (h)
        out->items[out->count++] =
            (Atom){w->items[i].allocation, points[k], points[k + 1] - points[k], heap[0].order};
    }
    i = j;
  }
  free(heap), free(points);
  return ok;
}

/* The atoms of loop or conditional `c`, computed once. */
static const Atoms *atomsOf(State *s, const ThunkyCommand *c) {
  uint32_t index = (uint32_t)(c - s->plan->commands), found;
  if (thunkyHashMapGet(&s->atomsIndex, index, &found))
    return s->atoms[found];
  Writes w = {0};
  bool ok = true;
  if (c->kind == THUNKY_CMD_WHILE) {
    ok = collectWrites(s->plan, c->loop.condition, &w) && collectWrites(s->plan, c->loop.body, &w);
  } else {
    for (uint32_t b = 0; ok && b < c->conditional.branches.count; b++)
      ok = collectWrites(s->plan, (uint32_t)s->plan->ids[c->conditional.branches.first + b], &w);
  }
  Atoms *atoms = calloc(1, sizeof *atoms);
  Atoms **grown = ok && atoms ? realloc(s->atoms, (s->numAtoms + 1) * sizeof *grown) : NULL;
  if (grown)
    s->atoms = grown;
  ok = grown && makeAtoms(&w, atoms) && thunkyHashMapPut(&s->atomsIndex, index, s->numAtoms);
  free(w.items);
  if (!ok) {
    if (atoms)
      free(atoms->items);
    free(atoms);
    return NULL;
  }
  s->atoms[s->numAtoms++] = atoms;
  return atoms;
}

static ThunkyPlanSlice atomSlice(const Atom *a) {
  return (ThunkyPlanSlice){a->allocation, a->start, a->size};
}

static SymHash atomDigest(State *s, uint32_t rank, const Atom *a) {
  return digest(s, rank, atomSlice(a));
}

/* What every atom of every rank (k = rank * count + atom) held, to put
 * back between runs of a loop's body or a conditional's branches. */
typedef struct Saved {
  SymPieces pieces;
  size_t *start; /* atom k's pieces are pieces[start[k], start[k + 1]) */
} Saved;

static bool saveAtoms(State *s, const Atoms *atoms, Saved *saved) {
  size_t n = (size_t)s->ranks * atoms->count;
  *saved = (Saved){{0}, malloc((n + 1) * sizeof *saved->start)};
  if (!saved->start)
    return outOfMemory(s);
  for (size_t k = 0; k < n; k++) {
    saved->start[k] = saved->pieces.count;
    if (!copyPieces(s, (uint32_t)(k / atoms->count), atomSlice(&atoms->items[k % atoms->count]),
                    0, atoms->items[k % atoms->count].size, &saved->pieces))
      return false;
  }
  saved->start[n] = saved->pieces.count;
  return true;
}

static bool restoreAtom(State *s, const Atoms *atoms, const Saved *saved, size_t k) {
  const Atom *a = &atoms->items[k % atoms->count];
  return symWrite(s->memory, mapOf(s, (uint32_t)(k / atoms->count), a->allocation), a->start,
                  saved->pieces.items + saved->start[k], saved->start[k + 1] - saved->start[k]) ||
         outOfMemory(s);
}

static void savedFree(Saved *saved) {
  symPiecesFree(&saved->pieces);
  free(saved->start);
}

typedef struct Named {
  SymHash key;
  uint32_t order, atom;
} Named;

static int byKey(const void *x, const void *y) {
  const Named *a = x, *b = y;
  if (a->key.hi != b->key.hi)
    return a->key.hi < b->key.hi ? -1 : 1;
  if (a->key.lo != b->key.lo)
    return a->key.lo < b->key.lo ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

/* What a loop or conditional taken as a function works with: each atom of
 * each rank (index rank * count + atom) has a name and a formal term. */
typedef struct Formals {
  const Atoms *atoms;
  SymHash *names;
  uint32_t *terms;
  Named *work;
} Formals;

static void formalsFree(Formals *f) {
  free(f->names), free(f->terms), free(f->work);
}

/* Puts every formal in place, none of them read yet. */
static bool writeFormals(State *s, const Formals *f) {
  const Atoms *atoms = f->atoms;
  for (uint32_t r = 0; r < s->ranks; r++)
    for (uint32_t i = 0; i < atoms->count; i++) {
      const Atom *a = &atoms->items[i];
      uint32_t term = f->terms[(size_t)r * atoms->count + i];
      symTermGet(s->memory, term)->read = false;
      if (!writeOne(s, r, atomSlice(a), term, 0))
        return false;
    }
  return true;
}

/* Where an atom stands, as no correct rewrite changes it: in a parameter
 * or an output, its number and offset; scratch has none (0), since a
 * rewrite may move it anywhere. */
static uint64_t place(const State *s, const Atom *a, uint64_t *offset) {
  const ThunkyPlan *p = s->plan;
  const ThunkyPlanAllocation *al = &p->allocations[a->allocation];
  *offset = a->start;
  if (al->parameter >= 0)
    return (UINT64_C(1) << 32) | (uint64_t)al->parameter;
  for (uint32_t i = 0; al->isOutput && i < p->numOutputs; i++)
    if (p->outputs[i].slice.allocation == a->allocation)
      return (UINT64_C(2) << 32) | i;
  return 0;
}

/* Names each atom of each rank by its contents and where it stands: in a
 * parameter or output, by their number and offset; in scratch, by its place
 * among scratch atoms of the same contents (by the first write over it).
 * Makes its formal and puts it in place. */
static bool formalize(State *s, const ThunkyCommand *c, const Atoms *atoms, Formals *f) {
  size_t n = (size_t)s->ranks * atoms->count;
  *f = (Formals){atoms, malloc((n + 1) * sizeof *f->names), malloc((n + 1) * sizeof *f->terms),
                 malloc((atoms->count + 1) * sizeof *f->work)};
  if (!f->names || !f->terms || !f->work)
    return outOfMemory(s);
  Named *work = f->work;
  for (uint32_t r = 0; r < s->ranks; r++) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < atoms->count; i++) {
      uint64_t offset, where = place(s, &atoms->items[i], &offset);
      SymHash key = atomDigest(s, r, &atoms->items[i]);
      if (!where) { /* scratch: numbered below */
        work[n++] = (Named){key, atoms->items[i].order, i};
        continue;
      }
      SymHash h = symHashStart(TAG_FORMAL);
      symHashAdd(&h, r);
      symHashAddHash(&h, key);
      symHashAdd(&h, where);
      symHashAdd(&h, offset);
      size_t k = (size_t)r * atoms->count + i;
      f->names[k] = h;
      if ((f->terms[k] = unknown(s, h, c->thunk, UINT32_MAX)) == UINT32_MAX)
        return outOfMemory(s);
    }
    qsort(work, n, sizeof *work, byKey);
    for (uint32_t i = 0, same = 0; i < n; i++) {
      same = i && work[i].key.lo == work[i - 1].key.lo && work[i].key.hi == work[i - 1].key.hi
                 ? same + 1
                 : 0;
      SymHash h = symHashStart(TAG_FORMAL);
      symHashAdd(&h, r);
      symHashAddHash(&h, work[i].key);
      symHashAdd(&h, same);
      size_t k = (size_t)r * atoms->count + work[i].atom;
      f->names[k] = h;
      if ((f->terms[k] = unknown(s, h, c->thunk, UINT32_MAX)) == UINT32_MAX)
        return outOfMemory(s);
    }
  }
  return writeFormals(s, f);
}

/* The loop's state function: what every carried atom (one whose formal the
 * run read) holds now, keyed by name, into `function`; carried[k] says
 * which. An atom written before it is read (a temporary, an output
 * overwritten each time) is left out, so that one a rewrite removes (a copy
 * elided) does not change the function. */
static void absorbCarried(State *s, const Formals *f, bool *carried, const bool *invariant,
                          SymHash *function) {
  const Atoms *atoms = f->atoms;
  for (uint32_t r = 0; r < s->ranks; r++) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < atoms->count; i++) {
      size_t k = (size_t)r * atoms->count + i;
      if ((carried[k] = !invariant[k] && symTermGet(s->memory, f->terms[k])->read))
        f->work[n++] = (Named){f->names[k], 0, i};
    }
    qsort(f->work, n, sizeof *f->work, byKey);
    symHashAdd(function, r);
    for (uint32_t i = 0; i < n; i++) {
      symHashAddHash(function, f->work[i].key);
      symHashAddHash(function, atomDigest(s, r, &atoms->items[f->work[i].atom]));
    }
  }
}

static bool runList(State *s, uint32_t list);

/* Loop `c` from here as a function: `count` more runs of its body when
 * known, else (count < 0) as long as the predicate, which the condition
 * list has just written, says so. A carried atom ends as a term of the
 * state function and its name; any other as a term of the function, its
 * name and what the last run left in it, as a function of the state. */
static bool loopAsFunction(State *s, const ThunkyCommand *c, int64_t count) {
  const Atoms *atoms = atomsOf(s, c);
  if (!atoms)
    return outOfMemory(s);
  SymHash function = symHashStart(TAG_LOOP);
  symHashAdd(&function, (uint64_t)count);
  for (uint32_t r = 0; count < 0 && r < s->ranks; r++)
    symHashAddHash(&function, digest(s, r, c->loop.predicate));
  size_t n = (size_t)s->ranks * atoms->count;
  Formals f = {0};
  bool *carried = calloc(n + 1, sizeof *carried), *invariant = calloc(n + 1, sizeof *invariant);
  Saved before = {0};
  bool ok = ((carried && invariant) || outOfMemory(s)) && saveAtoms(s, atoms, &before) &&
            formalize(s, c, atoms, &f);
  /* An atom the run leaves holding its own formal (untouched, or copied
   * onto itself) is invariant: the run is done again with it holding what
   * it holds, so that a rewrite that drops such a copy keeps the function. */
  s->asFunction++;
  for (int pass = 0; ok && pass < 2; pass++) {
    ok = runList(s, c->loop.body) && (count >= 0 || runList(s, c->loop.condition));
    bool more = false;
    for (size_t k = 0; ok && pass == 0 && k < n; k++) {
      SymPieces now = {0};
      const Atom *a = &atoms->items[k % atoms->count];
      ok = copyPieces(s, (uint32_t)(k / atoms->count), atomSlice(a), 0, a->size, &now);
      invariant[k] = ok && now.count == 1 && now.items[0].term == f.terms[k] &&
                     now.items[0].offset == 0;
      more |= invariant[k];
      symPiecesFree(&now);
    }
    if (!ok || !more)
      break;
    for (size_t k = 0; ok && k < n; k++) {
      ok = invariant[k] ? restoreAtom(s, atoms, &before, k)
                        : writeOne(s, (uint32_t)(k / atoms->count),
                                   atomSlice(&atoms->items[k % atoms->count]), f.terms[k], 0);
      symTermGet(s->memory, f.terms[k])->read = false;
    }
  }
  s->asFunction--;
  if (ok) {
    absorbCarried(s, &f, carried, invariant, &function);
    for (uint32_t r = 0; count < 0 && r < s->ranks; r++)
      symHashAddHash(&function, digest(s, r, c->loop.predicate));
  }
  for (size_t k = 0; ok && k < n; k++) {
    if (invariant[k])
      continue; /* it holds what it held */
    const Atom *a = &atoms->items[k % atoms->count];
    SymHash h = function;
    symHashAdd(&h, TAG_RESULT);
    symHashAddHash(&h, f.names[k]);
    if (!carried[k])
      symHashAddHash(&h, atomDigest(s, (uint32_t)(k / atoms->count), a));
    ok = writeOne(s, (uint32_t)(k / atoms->count),
                  atomSlice(a),
                  unknown(s, h, c->thunk, UINT32_MAX), 0);
  }
  formalsFree(&f);
  savedFree(&before);
  free(carried), free(invariant);
  return ok;
}

/* Conditional `c` as a function. It runs once, so each branch runs from
 * the state itself (restored between branches), not from formals: a branch
 * that only rewrites what is there (a self-copy a pass removes) changes
 * nothing. An atom every branch leaves the same keeps what they left; any
 * other ends as a term of every rank's index and what each branch left. */
static bool conditionalAsFunction(State *s, const ThunkyCommand *c) {
  const Atoms *atoms = atomsOf(s, c);
  if (!atoms)
    return outOfMemory(s);
  SymHash index = symHashStart(TAG_CONDITIONAL);
  for (uint32_t r = 0; r < s->ranks; r++)
    symHashAddHash(&index, digest(s, r, c->conditional.index));
  size_t n = (size_t)s->ranks * atoms->count;
  SymHash *results = malloc((n + 1) * sizeof *results), *first = malloc((n + 1) * sizeof *first);
  bool *same = malloc((n + 1) * sizeof *same);
  Saved before = {0};
  bool ok = ((results && first && same) || outOfMemory(s)) && saveAtoms(s, atoms, &before);
  for (uint32_t b = 0; ok && b < c->conditional.branches.count; b++) {
    for (size_t k = 0; ok && b && k < n; k++)
      ok = restoreAtom(s, atoms, &before, k);
    s->asFunction++;
    ok = ok && runList(s, (uint32_t)s->plan->ids[c->conditional.branches.first + b]);
    s->asFunction--;
    for (size_t k = 0; ok && k < n; k++) {
      SymHash d = atomDigest(s, (uint32_t)(k / atoms->count), &atoms->items[k % atoms->count]);
      if (!b)
        results[k] = index, first[k] = d, same[k] = true;
      same[k] &= d.lo == first[k].lo && d.hi == first[k].hi;
      symHashAddHash(&results[k], d);
    }
  }
  for (size_t k = 0; ok && k < n; k++)
    ok = same[k] || writeOne(s, (uint32_t)(k / atoms->count),
                             atomSlice(&atoms->items[k % atoms->count]),
                             unknown(s, results[k], c->thunk, UINT32_MAX), 0);
  savedFree(&before);
  free(results), free(first), free(same);
  return ok;
}

/*--- control flow -----------------------------------------------------------*/

/* The branch every rank takes, when each knows its index and all agree;
 * UINT32_MAX otherwise. */
static uint32_t knownBranch(State *s, const ThunkyCommand *c) {
  uint32_t chosen = UINT32_MAX;
  ThunkyPlanSlice index = c->conditional.index;
  for (uint32_t r = 0; r < s->ranks; r++) {
    uint8_t bytes[4] = {0};
    if (!symConcrete(s->memory, mapOf(s, r, index.allocation), index.offset,
                     index.size == 1 ? 1 : 4, bytes))
      return UINT32_MAX;
    uint32_t branch = thunkyPlanBranch(c, bytes);
    if (r && branch != chosen)
      return UINT32_MAX;
    chosen = branch;
  }
  return chosen;
}

static bool runConditional(State *s, const ThunkyCommand *c) {
  uint32_t branch = knownBranch(s, c);
  if (branch == UINT32_MAX)
    return conditionalAsFunction(s, c);
  return runList(s, (uint32_t)s->plan->ids[c->conditional.branches.first + branch]);
}

/* 1 when every rank's predicate is a known true, 0 a known false, -1 when
 * one is not known or they disagree. */
static int knownPredicate(State *s, const ThunkyCommand *c) {
  int value = -1;
  for (uint32_t r = 0; r < s->ranks; r++) {
    uint8_t byte;
    ThunkyPlanSlice p = c->loop.predicate;
    if (!symConcrete(s->memory, mapOf(s, r, p.allocation), p.offset, 1, &byte))
      return -1;
    if (r && (byte != 0) != value)
      return -1;
    value = byte != 0;
  }
  return value;
}

/* The state of a loop's atoms on every rank: the same before and after a
 * run of its body means every later run changes nothing. */
static SymHash loopState(State *s, const Atoms *atoms) {
  SymHash h = symHashStart(TAG_LOOP);
  for (uint32_t r = 0; r < s->ranks; r++)
    for (uint32_t i = 0; i < atoms->count; i++)
      symHashAddHash(&h, atomDigest(s, r, &atoms->items[i]));
  return h;
}

/* As XLA's WhileThunk: a known trip count runs the body that many times
 * and never the condition; otherwise the condition, then the body while the
 * predicate holds. */
static bool runWhile(State *s, const ThunkyCommand *c) {
  int64_t trips = c->loop.tripCount;
  uint64_t limit = s->config.maxIterations;
  ThunkyError why;
  if (trips >= 0) {
    if (!thunkyPlanLoopMayRun(c, 0, limit, &why))
      return fail(s, c, "%s", why.message);
    const Atoms *atoms = atomsOf(s, c);
    if (!atoms)
      return outOfMemory(s);
    int64_t unrolled = trips < UNROLLED ? trips : UNROLLED;
    if (trips > 1 && s->runs * (uint64_t)unrolled > UNROLL_BUDGET)
      unrolled = 0;
    uint64_t outer = s->runs;
    s->runs *= unrolled > 1 ? (uint64_t)unrolled : 1;
    bool ok = true, fixed = false;
    int64_t i = 0;
    for (; ok && !fixed && i < unrolled; i++) {
      SymHash before = loopState(s, atoms);
      uint64_t exchanged = s->exchangeRuns;
      ok = runList(s, c->loop.body);
      SymHash after = loopState(s, atoms);
      /* A body that exchanged sends again in each later run. */
      fixed = before.lo == after.lo && before.hi == after.hi && exchanged == s->exchangeRuns;
    }
    s->runs = outer;
    return ok && (fixed || i == trips || loopAsFunction(s, c, trips - i));
  }
  for (uint64_t i = 0;; i++) {
    if (!runList(s, c->loop.condition))
      return false;
    int known = knownPredicate(s, c);
    if (known < 0)
      return loopAsFunction(s, c, -1);
    if (!known)
      return true;
    if (!thunkyPlanLoopMayRun(c, i, limit, &why))
      return fail(s, c, "%s", why.message);
    if (!runList(s, c->loop.body))
      return false;
  }
}

static bool runRegion(void *s, const ThunkyCommand *start) {
  return runList(s, start->asyncStart.list);
}

static bool runCommand(State *s, const ThunkyCommand *c) {
  switch ((ThunkyCommandKind)c->kind) {
  case THUNKY_CMD_MEMZERO:
    for (uint32_t r = 0; r < s->ranks; r++)
      if (!writeOne(s, r, c->memzero.dst, symFill(s->memory, 0), 0))
        return false;
    return true;
  case THUNKY_CMD_MEMSET32:
    for (uint32_t r = 0; r < s->ranks; r++)
      if (!writeOne(s, r, c->memset32.dst, fill4(s, c->memset32.value), 0))
        return false;
    return true;
  case THUNKY_CMD_COPY: {
    /* Loops run here as functions of what they read, without iterations:
     * a copy that follows one is a function of what it reads, and of the
     * destination bytes outside the window it writes. */
    ThunkyCommand fixed = *c;
    if (c->copy.dependsOnLoop ||
        !thunkyPlanCopySlices(s->plan, c, 0, &fixed.copy.src, &fixed.copy.dst))
      return runFunction(s, c, true);
    return runCopy(s, &fixed);
  }
  case THUNKY_CMD_OPAQUE:
    if (s->plan->thunks[c->thunk].exchange)
      return runExchange(s, c);
    return runFunction(s, c, false);
  case THUNKY_CMD_KERNEL:
  case THUNKY_CMD_CUSTOM_CALL:
  case THUNKY_CMD_GEMM:
    return runFunction(s, c, false);
  case THUNKY_CMD_CONDITIONAL:
    return runConditional(s, c);
  case THUNKY_CMD_WHILE:
    return runWhile(s, c);
  case THUNKY_CMD_ASYNC_START:
  case THUNKY_CMD_ASYNC_DONE: {
    const char *why = NULL;
    bool ok = c->kind == THUNKY_CMD_ASYNC_START
                  ? thunkyAsyncStart(&s->async, s->plan, c, runRegion, s, &why)
                  : thunkyAsyncDone(&s->async, s->plan, c, runRegion, s, &why);
    return ok || (why && fail(s, c, "%s", why));
  }
  case THUNKY_CMD_COLLECTIVE:
    return runCollective(s, c);
  case THUNKY_CMD_COLLECTIVE_GROUP:
    return runList(s, c->group.list);
  case THUNKY_CMD_REPLICA_ID:
  case THUNKY_CMD_PARTITION_ID:
    for (uint32_t r = 0; r < s->ranks; r++) {
      uint32_t id = c->kind == THUNKY_CMD_REPLICA_ID ? r / s->partitions : r % s->partitions;
      if (!writeOne(s, r, c->id.dst, fill4(s, id), 0))
        return false;
    }
    return true;
  case THUNKY_CMD_COUNT:
    break;
  }
  return fail(s, c, "unknown command kind %u", c->kind);
}

/* A write trace's checksum of what thunk `thunk` wrote on `rank`: the
 * digests of its written slices. */
static bool writesChecksum(State *s, uint32_t rank, uint32_t thunk, uint64_t *checksum) {
  const ThunkyPlanThunk *t = &s->plan->thunks[thunk];
  SymHash h = symHashStart(TAG_WRITES);
  bool writes = t->exchange; /* as thunkyChecksumWrites */
  if (t->exchange)
    symHashAdd(&h, t->key);
  for (uint32_t i = 0; i < t->accesses.count; i++) {
    const ThunkyPlanAccess *a = &s->plan->accesses[t->accesses.first + i];
    if ((a->access & THUNKY_ACCESS_WRITE) || t->exchange) {
      symHashAddHash(&h, digest(s, rank, a->slice));
      writes = true;
    }
  }
  *checksum = h.lo;
  return writes;
}

static bool runList(State *s, uint32_t list) {
  ThunkyRange range = s->plan->lists[list];
  ThunkyWriteTrace *trace = s->config.writeTrace;
  for (uint32_t i = 0; i < range.count; i++) {
    const ThunkyCommand *c = &s->plan->commands[range.first + i];
    const char *why = thunkyRunStopped(&s->stop);
    if (why)
      return fail(s, c, "%s", why);
    if (!thunkyAsyncBefore(&s->async, s->plan, c, runRegion, s) || !runCommand(s, c))
      return false;
    uint64_t checksum;
    for (uint32_t r = 0; trace && r < s->ranks; r++)
      if (writesChecksum(s, r, c->thunk, &checksum))
        thunkyWriteTraceAdd(trace, r, (ThunkyWriteEvent){c->thunk, checksum});
  }
  return true;
}

/*--- the backend ------------------------------------------------------------*/

static void destroy(void *opaque) {
  State *s = opaque;
  if (!s)
    return;
  symMemoryDestroy(s->memory);
  thunkyAsyncScheduleFree(&s->async);
  free(s->members), free(s->seen), free(s->outputOf);
  for (uint32_t r = 0; s->exchanges && r < s->ranks; r++)
    thunkyExchangesFree(&s->exchanges[r]);
  free(s->exchanges);
  for (uint32_t i = 0; i < s->numAtoms; i++)
    free(s->atoms[i]->items), free(s->atoms[i]);
  free(s->atoms);
  thunkyHashMapDestroy(&s->atomsIndex);
  for (size_t i = 0; i < s->numResults; i++)
    symPiecesFree(&s->results[i]);
  free(s->results);
  symPiecesFree(&s->scratch);
  free(s);
}

static bool create(const ThunkyPlan *plan, const ThunkyRunConfig *config, void **out,
                   ThunkyError *error) {
  ThunkyRunConfig normalized = *config;
  if (!thunkyRunConfigNormalize(&normalized, error))
    return thunkyErrorContext(error, "symbolic");
  uint32_t ranks = normalized.ranks, partitions = normalized.partitions;
  if ((uint64_t)ranks * plan->numAllocations >= UINT32_MAX)
    return thunkyErrorf(error, "symbolic: %u ranks of %u allocations are too many maps", ranks,
                        plan->numAllocations);
  State *s = calloc(1, sizeof *s);
  bool ok = s != NULL;
  if (ok) {
    *s = (State){.plan = plan, .config = normalized, .ranks = ranks, .partitions = partitions,
                 .error = error};
    s->memory = symMemoryCreate(ranks * plan->numAllocations);
    bool async = thunkyAsyncScheduleInit(&s->async, plan->numAsyncSlots, config);
    s->members = calloc(ranks + 1, sizeof *s->members);
    s->seen = calloc(ranks + 1, sizeof *s->seen);
    s->outputOf = thunkyOutputsOfAllocations(plan);
    s->exchanges = calloc(ranks, sizeof *s->exchanges);
    ok = s->memory && async && s->members && s->seen && s->outputOf && s->exchanges;
  }
  if (!ok) {
    destroy(s);
    return thunkyErrorf(error, "symbolic: out of memory");
  }
  if (!initialize(s)) {
    destroy(s);
    return false;
  }
  *out = s;
  return true;
}

/* Every parameter is a symbol: the bytes given are not looked at. */
static bool write(void *state, uint32_t rank, ThunkyPlanSlice slice, const void *data,
                  ThunkyError *error) {
  (void)state, (void)rank, (void)slice, (void)data, (void)error;
  return true;
}

static bool read(void *state, uint32_t rank, ThunkyPlanSlice slice, void *out,
                 ThunkyError *error) {
  (void)state, (void)rank, (void)slice, (void)out;
  return thunkyErrorf(error, "symbolic: a symbolic run holds no bytes; compare it (--compare, "
                             "--check-async) or print its contents (--print)");
}

static bool run(void *opaque, ThunkyError *error) {
  State *s = opaque;
  s->error = error;
  s->runs = 1;
  s->stop = thunkyRunStopStart(&s->config);
  bool ok = runList(s, 0);
  if (!thunkyAsyncScheduleFinish(&s->async) && ok)
    return thunkyErrorf(error, "symbolic: an async region was started and never done");
  return ok;
}

static bool contents(void *opaque, uint32_t rank, ThunkyPlanSlice slice, ThunkyPiece **pieces,
                     size_t *count, ThunkyError *error) {
  State *s = opaque;
  s->scratch.count = 0;
  *pieces = NULL, *count = 0;
  if (!symRead(s->memory, mapOf(s, rank, slice.allocation), slice.offset, slice.size,
               &s->scratch) ||
      !(*pieces = malloc((s->scratch.count + 1) * sizeof **pieces)))
    return thunkyErrorf(error, "symbolic: out of memory");
  for (size_t i = 0; i < s->scratch.count; i++) {
    SymPiece p = s->scratch.items[i];
    const SymTerm *t = symTermGet(s->memory, p.term);
    ThunkyPiece *out = &(*pieces)[i];
    *out = (ThunkyPiece){{t->hash.lo, t->hash.hi}, p.offset, p.size, t->thunk, t->parameter,
                         {0}, 0, NULL, 0, false};
    if (t->kind == SYM_FILL1 || t->kind == SYM_FILL4) {
      uint32_t word = t->kind == SYM_FILL1 ? t->value * 0x01010101u : t->value;
      memcpy(out->fill, &word, 4);
      out->period = t->kind == SYM_FILL1 ? 1 : 4;
    } else if (t->kind == SYM_BYTES) {
      out->bytes = t->bytes, out->bytesSize = t->size;
    }
    out->undefined = t->undefined;
  }
  *count = s->scratch.count;
  return true;
}

bool thunkyPieceByte(const ThunkyPiece *p, uint64_t at, uint8_t *byte) {
  if (p->period)
    *byte = p->fill[at % p->period];
  else if (p->bytes)
    *byte = at < p->bytesSize ? p->bytes[at] : 0;
  return p->period || p->bytes;
}

static bool sent(void *opaque, uint32_t rank, uint64_t *digest) {
  State *s = opaque;
  *digest = s->exchanges[rank].sent;
  return true;
}

const ThunkyBackendOps thunkySymbolicBackend = {"symbolic", create,  write,    read,
                                                run,        destroy, contents, sent};
