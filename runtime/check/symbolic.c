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
 * value on every rank is taken as a function (symbolic_functions.c)
 * rather than run.
 *
 *===--------------------------------------------------------------------===*/
#include "async_schedule.h"
#include "host_collectives.h"
#include "replica_groups.h"
#include "run_stop.h"
#include "symbolic_memory.h"
#include "symbolic_state.h"
#include "thunky-c/base/Arena.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/base/HashMap.h"
#include "thunky-c/runtime/Runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t symMapOf(const State *s, uint32_t rank, uint32_t allocation) {
  return rank * s->plan->numAllocations + allocation;
}

ThunkyPlanSlice symReal(const State *s, ThunkyPlanSlice slice) {
  uint32_t allocations = s->plan->numAllocations;
  if (slice.allocation < allocations)
    return slice;
  ThunkyPlanSlice window = s->windows[slice.allocation - allocations];
  return (ThunkyPlanSlice){window.allocation, window.offset + slice.offset, slice.size};
}

SymHash symSliceDigest(State *s, uint32_t rank, ThunkyPlanSlice slice) {
  slice = symReal(s, slice);
  return symDigest(s->memory, symMapOf(s, rank, slice.allocation), slice.offset, slice.size);
}

bool symOutOfMemory(State *s) { return thunkyErrorf(s->error, "symbolic: out of memory"); }

static bool fail(State *s, const ThunkyCommand *c, const char *format, ...) {
  char name[200], message[512];
  thunkyPlanThunkName(s->plan, c->thunk, name, sizeof name);
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof message, format, args);
  va_end(args);
  return thunkyErrorf(s->error, "symbolic: %s: %s", name, message);
}

bool symWriteOne(State *s, uint32_t rank, ThunkyPlanSlice slice, uint32_t term, uint64_t offset) {
  if (term == UINT32_MAX)
    return symOutOfMemory(s);
  SymPiece p = {term, offset, slice.size};
  slice = symReal(s, slice);
  return !slice.size ||
         symWrite(s->memory, symMapOf(s, rank, slice.allocation), slice.offset, &p, 1) ||
         symOutOfMemory(s);
}

uint32_t symUnknown(State *s, SymHash h, uint32_t thunk, uint32_t parameter) {
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
      if (!symWriteOne(s, r, whole, term, 0))
        return false;
      uint64_t known = al->constant.size < al->size ? al->constant.size : al->size;
      ThunkyPlanSlice head = {a, 0, known};
      if (known && !symWriteOne(s, r, head, constantTerm(s, al->constant), 0))
        return false;
    }
    for (uint32_t i = 0; i < p->numParameters; i++) {
      SymHash h = symHashStart(TAG_PARAMETER);
      symHashAdd(&h, i);
      symHashAdd(&h, r);
      symHashAdd(&h, p->parameters[i].slice.size);
      if (!symWriteOne(s, r, p->parameters[i].slice, symUnknown(s, h, UINT32_MAX, i), 0))
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
        symHashAddHash(&h, symSliceDigest(s, r, accesses[i].slice));
    uint64_t position = 0;
    for (uint32_t i = 0; i < t->accesses.count; i++) {
      if (!(accesses[i].access & THUNKY_ACCESS_WRITE))
        continue;
      SymHash out = h;
      symHashAdd(&out, ++position);
      symHashAdd(&out, accesses[i].slice.size);
      if (!symWriteOne(s, r, accesses[i].slice, symUnknown(s, out, c->thunk, UINT32_MAX), 0))
        return false;
    }
  }
  return true;
}

/* A thunk that moves bytes between ranks or to and from the host, as an
 * exchange (thunky-c/runtime/Check.h): what it reads goes into the rank's sent
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
        symHashAddHash(&h, symSliceDigest(s, r, accesses[i].slice));
    uint64_t run;
    if (!thunkyExchangeRun(&s->exchanges[r], t->key, h.lo ^ (h.hi * 0x9e3779b97f4a7c15u), &run))
      return symOutOfMemory(s);
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
      if (!symWriteOne(s, r, accesses[i].slice, symUnknown(s, out, c->thunk, UINT32_MAX), 0))
        return false;
    }
  }
  s->exchangeRuns++;
  return true;
}

bool symCopyPieces(State *s, uint32_t rank, ThunkyPlanSlice src, uint64_t at, uint64_t size,
                   SymPieces *out) {
  src = symReal(s, src);
  return symRead(s->memory, symMapOf(s, rank, src.allocation), src.offset + at, size, out) ||
         symOutOfMemory(s);
}

static bool writePieces(State *s, uint32_t rank, ThunkyPlanSlice dst, const SymPieces *pieces) {
  dst = symReal(s, dst);
  return !dst.size ||
         symWrite(s->memory, symMapOf(s, rank, dst.allocation), dst.offset, pieces->items,
                  pieces->count) ||
         symOutOfMemory(s);
}

static bool runCopy(State *s, const ThunkyCommand *c) {
  for (uint32_t r = 0; r < s->ranks; r++) {
    s->scratch.count = 0;
    if (!symCopyPieces(s, r, c->copy.src, 0, c->copy.dst.size, &s->scratch) ||
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
  SymHash h = symHashStart(TAG_REDUCE), first = symSliceDigest(s, s->members[0], b->src);
  bool agree = true;
  symHashAdd(&h, col->reduction);
  symHashAdd(&h, (uint64_t)(uint32_t)b->elementType);
  for (uint32_t m = 0; m < size; m++) {
    SymHash d = symSliceDigest(s, s->members[m], b->src);
    agree &= d.lo == first.lo && d.hi == first.hi;
    symHashAddHash(&h, d);
  }
  if (size == 1 || (agree && (col->reduction == THUNKY_REDUCE_MIN ||
                              col->reduction == THUNKY_REDUCE_MAX)))
    return symCopyPieces(s, s->members[0], b->src, at, bytes, out);
  uint32_t term = symUnknown(s, h, c->thunk, UINT32_MAX);
  return (term != UINT32_MAX && symPiecesAdd(out, (SymPiece){term, at, bytes})) ||
         symOutOfMemory(s);
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
      if (!symCopyPieces(s, s->members[m], b->src, 0, src, out))
        return false;
    return true;
  case THUNKY_COLLECTIVE_ALL_TO_ALL:
    if (col->splitDimension) {
      uint64_t chunk = src / size;
      for (uint32_t m = 0; m < size; m++)
        if (!symCopyPieces(s, s->members[m], b->src, position * chunk, chunk, out))
          return false;
      return true;
    }
    return symCopyPieces(s, s->members[i], buffers[position].src, 0, dst, out);
  case THUNKY_COLLECTIVE_PERMUTE:
    if (source == THUNKY_NO_RANK) {
      uint32_t zeros = symFill(s->memory, 0);
      return (zeros != UINT32_MAX && symPiecesAdd(out, (SymPiece){zeros, 0, dst})) ||
             symOutOfMemory(s);
    }
    return symCopyPieces(s, source, b->src, 0, dst, out);
  case THUNKY_COLLECTIVE_BROADCAST:
    return symCopyPieces(s, s->members[col->root], b->src, 0, dst, out);
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
      return symOutOfMemory(s);
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

/*--- control flow -----------------------------------------------------------*/

/* The branch every rank takes, when each knows its index and all agree;
 * UINT32_MAX otherwise. */
static uint32_t knownBranch(State *s, const ThunkyCommand *c) {
  uint32_t chosen = UINT32_MAX;
  ThunkyPlanSlice index = symReal(s, c->conditional.index);
  for (uint32_t r = 0; r < s->ranks; r++) {
    uint8_t bytes[4] = {0};
    if (!symConcrete(s->memory, symMapOf(s, r, index.allocation), index.offset,
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
    return symConditionalAsFunction(s, c);
  return symRunList(s, (uint32_t)s->plan->ids[c->conditional.branches.first + branch]);
}

/* 1 when every rank's predicate is a known true, 0 a known false, -1 when
 * one is not known or they disagree. */
static int knownPredicate(State *s, const ThunkyCommand *c) {
  int value = -1;
  for (uint32_t r = 0; r < s->ranks; r++) {
    uint8_t byte;
    ThunkyPlanSlice p = symReal(s, c->loop.predicate);
    if (!symConcrete(s->memory, symMapOf(s, r, p.allocation), p.offset, 1, &byte))
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
      symHashAddHash(&h, symAtomDigest(s, r, &atoms->items[i]));
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
    const Atoms *atoms = symAtomsOf(s, c);
    if (!atoms)
      return symOutOfMemory(s);
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
      ok = symRunList(s, c->loop.body);
      SymHash after = loopState(s, atoms);
      /* A body that exchanged sends again in each later run. */
      fixed = before.lo == after.lo && before.hi == after.hi && exchanged == s->exchangeRuns;
    }
    s->runs = outer;
    return ok && (fixed || i == trips || symLoopAsFunction(s, c, trips - i));
  }
  for (uint64_t i = 0;; i++) {
    if (!symRunList(s, c->loop.condition))
      return false;
    int known = knownPredicate(s, c);
    if (known < 0)
      return symLoopAsFunction(s, c, -1);
    if (!known)
      return true;
    if (!thunkyPlanLoopMayRun(c, i, limit, &why))
      return fail(s, c, "%s", why.message);
    if (!symRunList(s, c->loop.body))
      return false;
  }
}

static bool runRegion(void *s, const ThunkyCommand *start) {
  return symRunList(s, start->asyncStart.list);
}

typedef struct StartRead {
  State *state;
  uint32_t rank;
} StartRead;

/* A window start's integer, where the rank knows it. */
static bool readStart(void *context, ThunkyPlanSlice scalar, uint64_t *bits) {
  StartRead *r = context;
  State *s = r->state;
  *bits = 0;
  scalar = symReal(s, scalar);
  return symConcrete(s->memory, symMapOf(s, r->rank, scalar.allocation), scalar.offset, scalar.size,
                     (uint8_t *)bits); /* little-endian, as the device */
}

/* A dynamic-slice fusion runs its thunks over its windows where every rank
 * places them alike. One whose windows a loop moves (loops run here
 * without iterations), or whose offsets the ranks do not know or do not
 * agree on, runs, like a dynamic copy, as a function of its buffers. */
static bool runFusion(State *s, const ThunkyCommand *c) {
  if (c->fusion.dependsOnLoop)
    return runFunction(s, c, true);
  for (uint32_t w = c->fusion.windows.first; w < c->fusion.windows.first + c->fusion.windows.count;
       w++) {
    ThunkyPlanSlice first = {0}, at;
    for (uint32_t r = 0; r < s->ranks; r++) {
      StartRead read = {s, r};
      if (!thunkyPlanWindowSlice(s->plan, w, NULL, readStart, &read, &at) ||
          (r && (at.allocation != first.allocation || at.offset != first.offset)))
        return runFunction(s, c, true);
      first = r ? first : at;
    }
    s->windows[w] = symReal(s, first);
  }
  return symRunList(s, c->fusion.list);
}

static bool runCommand(State *s, const ThunkyCommand *c) {
  switch ((ThunkyCommandKind)c->kind) {
  case THUNKY_CMD_MEMZERO:
    for (uint32_t r = 0; r < s->ranks; r++)
      if (!symWriteOne(s, r, c->memzero.dst, symFill(s->memory, 0), 0))
        return false;
    return true;
  case THUNKY_CMD_MEMSET32:
    for (uint32_t r = 0; r < s->ranks; r++)
      if (!symWriteOne(s, r, c->memset32.dst, fill4(s, c->memset32.value), 0))
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
    return symRunList(s, c->group.list);
  case THUNKY_CMD_DYNAMIC_SLICE_FUSION:
    return runFusion(s, c);
  case THUNKY_CMD_REPLICA_ID:
  case THUNKY_CMD_PARTITION_ID:
    for (uint32_t r = 0; r < s->ranks; r++) {
      uint32_t id = c->kind == THUNKY_CMD_REPLICA_ID ? r / s->partitions : r % s->partitions;
      if (!symWriteOne(s, r, c->id.dst, fill4(s, id), 0))
        return false;
    }
    return true;
  case THUNKY_CMD_COUNT:
    break;
  }
  return fail(s, c, "unknown command kind %u", c->kind);
}

/* A write log's checksum of what thunk `thunk` wrote on `rank`: the
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
      symHashAddHash(&h, symSliceDigest(s, rank, a->slice));
      writes = true;
    }
  }
  *checksum = h.lo;
  return writes;
}

bool symRunList(State *s, uint32_t list) {
  ThunkyRange range = s->plan->lists[list];
  ThunkyWriteLog *trace = s->config.writeLog;
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
        thunkyWriteLogAdd(trace, r, (ThunkyWriteEvent){c->thunk, checksum});
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
  free(s->exchanges), free(s->windows);
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
    s->windows = calloc(plan->numWindows + 1, sizeof *s->windows);
    ok = s->memory && async && s->members && s->seen && s->outputOf && s->exchanges && s->windows;
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
  bool ok = symRunList(s, 0);
  if (!thunkyAsyncScheduleFinish(&s->async) && ok)
    return thunkyErrorf(error, "symbolic: an async region was started and never done");
  return ok;
}

static bool contents(void *opaque, uint32_t rank, ThunkyPlanSlice slice, ThunkyPiece **pieces,
                     size_t *count, ThunkyError *error) {
  State *s = opaque;
  s->scratch.count = 0;
  *pieces = NULL, *count = 0;
  slice = symReal(s, slice);
  if (!symRead(s->memory, symMapOf(s, rank, slice.allocation), slice.offset, slice.size,
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
