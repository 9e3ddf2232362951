/*===- check_races.c - async regions against what runs beside them ------===*
 *
 * An async region may run at any time between its async_start and its
 * async_done, on another stream. So it must not touch bytes that an op
 * between the two writes, nor write bytes that such an op reads; an op
 * there that is itself an async region (a start, or the done of one that
 * began earlier and is still in flight) counts with everything its region
 * does. On the byte-range accesses of access.h; a region whose done is not
 * in its block is in flight to the end of the block. XLA's host
 * computations and host transfers are such pairs too, kept as
 * call_thunk_proto: a host_execute_start, host_send or host_recv works on
 * its buffers until the done thunk of its async_events_unique_id.
 *
 * One sweep over each block that holds a start: the accesses of the
 * regions in flight sit in two interval sets (every access, and the
 * writes), each op's accesses are looked up there, and a region leaves
 * them at its done or at its first race. So the check is linear in the
 * ops and their accesses however many regions are in flight at once,
 * and reports each region's first race, in block order.
 *
 * The pass changes nothing. Each finding is an error at the async_start
 * naming the other op as the runtime names its thunk (thunk_info.h), its
 * op and location; the work is bounded (max-pairs: nodes the lookups visit),
 * and a module past the bound is an error, never a silent pass.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/passes/Access.h"
#include "thunky-c/base/Arena.h"
#include "interval_set.h"
#include "op_map.h"
#include "thunk_info.h"

#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"

#include "mlir-c/BuiltinAttributes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *at;
  size_t left;
} Text;

static void appendText(MlirStringRef s, void *userData) {
  Text *t = userData;
  size_t n = s.length < t->left ? s.length : t->left;
  memcpy(t->at, s.data, n);
  t->at += n, t->left -= n;
  *t->at = 0;
}

static void locationText(MlirOperation op, char *out, size_t size) {
  Text t = {out, size - 1};
  *out = 0;
  thunkyPrintOpSource(op, appendText, &t);
}

static void rootText(MlirValue root, char *out, size_t size) {
  if (mlirValueIsABlockArgument(root)) {
    snprintf(out, size, "argument %" PRIdPTR, mlirBlockArgumentGetArgNumber(root));
    return;
  }
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(mlirOpResultGetOwner(root)));
  snprintf(out, size, "the result of %.*s", (int)name.length, name.data);
}

/* A region in flight: its start and the last of its ranges in each set
 * (linked back through the rest); a collective region sits in the lists of
 * those that have not yet been warned about a collective beside them or
 * another region on their stream. */
typedef struct {
  MlirOperation start;
  int64_t lastAny, lastWrite; /* -1: none, or already removed */
  int32_t besidePrev, besideNext, streamPrev, streamNext; /* -1: none */
  bool inBeside, inStream;
  ThunkyOpMapKey stream;
} Region;

typedef struct {
  int64_t budget; /* max-pairs: nodes the lookups may still visit */
  bool failed, outOfMemory;
  ThunkyThunkNumbers numbers; /* for naming the ops races are with */
  ThunkyIntervalSet any, writes;
  ThunkyOpAccess *anyAccess, *writeAccess; /* per range handle of each set */
  size_t anyCapacity, writeCapacity;
  Region *regions;
  size_t numRegions, regionCapacity;
  ThunkyOpMap regionOf; /* start op -> region index + 1 */
  ThunkyOpMap pairOf;   /* a host pair's kind and id -> region index + 1, or ENDED */
  ThunkyOpMap streamHead; /* stream -> first region index + 1 of its list */
  int32_t besideHead;
  size_t inFlight; /* regions of this sweep started and not done */
} Check;

static void report(Check *c, MlirOperation start, MlirOperation other, ThunkyOpAccess mine,
                   ThunkyOpAccess theirs) {
  char where[512], root[128], thunk[160];
  locationText(other, where, sizeof where);
  thunkyOpThunkName(other, thunkyThunkNumberOf(&c->numbers, other), thunk, sizeof thunk);
  rootText(mine.bytes.root, root, sizeof root);
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(other));
  int64_t lo = mine.bytes.offset > theirs.bytes.offset ? mine.bytes.offset : theirs.bytes.offset;
  int64_t mineEnd = mine.bytes.offset + mine.bytes.size;
  int64_t theirEnd = theirs.bytes.offset + theirs.bytes.size;
  thunkyEmitOpError(start,
                    "races with %s, '%.*s' at %s: the region %s bytes [%" PRId64
                    ", %" PRId64 ") of %s, which that op %s while the region is in flight",
                    thunk, (int)name.length, name.data, where, mine.write ? "writes" : "reads", lo,
                    mineEnd < theirEnd ? mineEnd : theirEnd, root,
                    theirs.write ? "writes" : "reads");
  c->failed = true;
}

static void warnAt(Check *c, MlirOperation start, MlirOperation op, bool beside) {
  char where[512], thunk[160];
  locationText(op, where, sizeof where);
  thunkyOpThunkName(op, thunkyThunkNumberOf(&c->numbers, op), thunk, sizeof thunk);
  if (beside)
    thunkyEmitOpWarning(start, "collectives in flight together: %s at %s runs a collective "
                               "beside this region's, not on an async stream of its own "
                               "(XLA's runtime runs each on its own: openxla/xla#40520)",
                        thunk, where);
  else
    thunkyEmitOpWarning(start, "collectives in flight together on one stream: %s at %s "
                               "starts another region of collectives on this region's "
                               "stream, where it waits for this one (openxla/xla#40520)",
                        thunk, where);
}

/*--- the lists of collective regions still to warn --------------------------*/

static void leaveBeside(Check *c, int32_t r) {
  Region *x = &c->regions[r];
  if (!x->inBeside)
    return;
  if (x->besidePrev >= 0)
    c->regions[x->besidePrev].besideNext = x->besideNext;
  else
    c->besideHead = x->besideNext;
  if (x->besideNext >= 0)
    c->regions[x->besideNext].besidePrev = x->besidePrev;
  x->inBeside = false;
}

static void leaveStream(Check *c, int32_t r) {
  Region *x = &c->regions[r];
  if (!x->inStream)
    return;
  if (x->streamPrev >= 0) {
    c->regions[x->streamPrev].streamNext = x->streamNext;
  } else {
    /* The map keeps index + 1; an empty list stores a value that is no region. */
    uintptr_t head = x->streamNext >= 0 ? (uintptr_t)x->streamNext + 1 : UINTPTR_MAX;
    if (!thunkyOpMapPut(&c->streamHead, x->stream, (void *)head))
      c->outOfMemory = true;
  }
  if (x->streamNext >= 0)
    c->regions[x->streamNext].streamPrev = x->streamPrev;
  x->inStream = false;
}

static int32_t streamFirst(Check *c, ThunkyOpMapKey stream) {
  uintptr_t head = (uintptr_t)thunkyOpMapGet(&c->streamHead, stream);
  return head && head != UINTPTR_MAX ? (int32_t)(head - 1) : -1;
}

/* The execution stream an async_start runs its region on, as a map key. */
static ThunkyOpMapKey streamOf(MlirOperation start) {
  bool communication;
  int64_t stream = thunkyAsyncStartGetStream(start, &communication);
  return (ThunkyOpMapKey){(const void *)1, stream, communication};
}

/*--- the sweep --------------------------------------------------------------*/

static bool keepAccess(ThunkyOpAccess **items, size_t *capacity, int64_t handle,
                       ThunkyOpAccess access) {
  if (!thunkyArrayGrow((void **)items, capacity, (size_t)handle, sizeof **items))
    return false;
  (*items)[handle] = access;
  return true;
}

/* A region leaves the sets at its done or its first race. */
static void retire(Check *c, int32_t r) {
  Region *x = &c->regions[r];
  thunkyIntervalRemoveList(&c->any, x->lastAny);
  thunkyIntervalRemoveList(&c->writes, x->lastWrite);
  x->lastAny = x->lastWrite = -1;
}

/* Each region in flight whose accesses conflict with `access` of `op`:
 * reported at its start, then retired. */
static void conflicts(Check *c, MlirOperation op, ThunkyOpAccess access) {
  ThunkyIntervalSet *set = access.write ? &c->any : &c->writes;
  ThunkyOpAccess *kept = access.write ? c->anyAccess : c->writeAccess;
  const void *root = access.bytes.root.ptr;
  int64_t start = access.bytes.offset, end = access.bytes.offset + access.bytes.size;
  uint32_t owner;
  int64_t hit;
  while (c->budget >= 0 && (hit = thunkyIntervalFind(set, root, start, end, &owner)) >= 0) {
    report(c, c->regions[owner].start, op, kept[hit], access);
    retire(c, (int32_t)owner);
  }
}

static bool addRegion(Check *c, MlirOperation start, const ThunkyOpAccesses *accesses,
                      bool collective) {
  if (c->numRegions >= INT32_MAX ||
      !thunkyArrayGrow((void **)&c->regions, &c->regionCapacity, c->numRegions,
                       sizeof *c->regions))
    return false;
  int32_t r = (int32_t)c->numRegions++;
  c->inFlight++;
  Region *x = &c->regions[r];
  *x = (Region){start, -1, -1, -1, -1, -1, -1, false, false, streamOf(start)};
  if (!thunkyOpMapPut(&c->regionOf, (ThunkyOpMapKey){start.ptr, 0, 0}, (void *)(uintptr_t)(r + 1)))
    return false;
  for (size_t i = 0; i < accesses->count; i++) {
    ThunkyOpAccess a = accesses->items[i];
    const void *root = a.bytes.root.ptr;
    int64_t end = a.bytes.offset + a.bytes.size;
    int64_t h = thunkyIntervalAdd(&c->any, root, a.bytes.offset, end, (uint32_t)r, x->lastAny);
    if (h < 0 || !keepAccess(&c->anyAccess, &c->anyCapacity, h, a))
      return false;
    x->lastAny = h;
    if (!a.write)
      continue;
    h = thunkyIntervalAdd(&c->writes, root, a.bytes.offset, end, (uint32_t)r, x->lastWrite);
    if (h < 0 || !keepAccess(&c->writeAccess, &c->writeCapacity, h, a))
      return false;
    x->lastWrite = h;
  }
  if (!collective)
    return true;
  x->inBeside = true, x->besideNext = c->besideHead;
  if (c->besideHead >= 0)
    c->regions[c->besideHead].besidePrev = r;
  c->besideHead = r;
  int32_t first = streamFirst(c, x->stream);
  x->inStream = true, x->streamNext = first;
  if (first >= 0)
    c->regions[first].streamPrev = r;
  return thunkyOpMapPut(&c->streamHead, x->stream, (void *)(uintptr_t)(r + 1));
}

/* The region of `done`'s token when it started earlier in this sweep, else -1. */
static int32_t regionOfDone(Check *c, MlirOperation done) {
  MlirValue token = mlirOperationGetOperand(done, 0);
  if (!mlirValueIsAOpResult(token))
    return -1;
  MlirOperation start = mlirOpResultGetOwner(token);
  uintptr_t r = (uintptr_t)thunkyOpMapGet(&c->regionOf, (ThunkyOpMapKey){start.ptr, 0, 0});
  return r ? (int32_t)(r - 1) : -1;
}

/* XLA's runtime rule for collectives in flight together (openxla/xla#40520):
 * each runs on an async stream of its own, or they may deadlock. A
 * collective issued beside a region that holds one breaks it; a second
 * such region on the same stream waits for the first, overlapping nothing.
 * Each region is warned once of each. */
static void checkCollectives(Check *c, MlirOperation op, ThunkyOpKind kind) {
  if (kind == THUNKY_OP_ASYNC_START) {
    if (!thunkyOpHoldsCollective(op, false))
      return;
    for (int32_t r = streamFirst(c, streamOf(op)); r >= 0; r = streamFirst(c, streamOf(op))) {
      warnAt(c, c->regions[r].start, op, false);
      leaveStream(c, r);
    }
    return;
  }
  if (c->besideHead < 0 || kind == THUNKY_OP_ASYNC_DONE || !thunkyOpHoldsCollective(op, true))
    return;
  while (c->besideHead >= 0) {
    int32_t r = c->besideHead;
    warnAt(c, c->regions[r].start, op, true);
    leaveBeside(c, r);
  }
}

/* pairOf's value for a pair whose done came. */
#define ENDED UINTPTR_MAX

static void sweepOp(Check *c, MlirOperation op) {
  ThunkyOpKind kind = thunkyOpGetKind(op);
  ThunkyOpMapKey pair;
  ThunkyHostPairing paired = thunkyHostPairing(op, &pair);
  if (kind == THUNKY_OP_ASYNC_DONE || paired == THUNKY_PAIR_DONE) {
    uintptr_t found = paired == THUNKY_PAIR_DONE && pair.b >= 0
                          ? (uintptr_t)thunkyOpMapGet(&c->pairOf, pair)
                          : 0;
    int32_t r = paired != THUNKY_PAIR_DONE ? regionOfDone(c, op)
                : found && found != ENDED ? (int32_t)(found - 1)
                                          : -1;
    if (r >= 0) {
      retire(c, r);
      leaveBeside(c, r), leaveStream(c, r);
      c->inFlight--;
      /* Ended, not forgotten (a map keeps its keys); a later start may
       * reuse the id. */
      if (paired == THUNKY_PAIR_DONE && !thunkyOpMapPut(&c->pairOf, pair, (void *)ENDED))
        c->outOfMemory = true;
      return;
    }
  }
  bool starts = kind == THUNKY_OP_ASYNC_START || paired == THUNKY_PAIR_START;
  /* Nothing in flight: only a start has anything to do. */
  if (!c->inFlight && !starts)
    return;
  ThunkyOpAccesses accesses = {0};
  thunkyCollectAccesses(op, &accesses);
  if (accesses.outOfMemory) {
    thunkyEmitOpError(op, "thunky-check-races: out of memory");
    c->failed = true;
  }
  for (size_t i = 0; !accesses.outOfMemory && i < accesses.count; i++)
    conflicts(c, op, accesses.items[i]);
  checkCollectives(c, op, kind);
  if (paired == THUNKY_PAIR_START && !accesses.outOfMemory &&
      (!addRegion(c, op, &accesses, false) ||
       (pair.b >= 0 &&
        !thunkyOpMapPut(&c->pairOf, pair, (void *)(uintptr_t)c->numRegions))))
    c->outOfMemory = true;
  if (kind == THUNKY_OP_ASYNC_START && !accesses.outOfMemory) {
    bool collective = thunkyOpHoldsCollective(op, false);
    /* XLA orders thunks at run time only through buffers and resources
     * (openxla/xla#40667); a collective's are its communicator's. */
    if (!accesses.count && !collective)
      thunkyEmitOpWarning(op, "the region touches no bytes and holds no collective: nothing "
                              "orders it against the ops beside it (XLA orders thunks only "
                              "through buffers and resources: openxla/xla#40667)");
    if (!addRegion(c, op, &accesses, collective))
      c->outOfMemory = true;
  }
  thunkyAccessesClear(&accesses);
  c->budget -= (int64_t)(c->any.visits + c->writes.visits);
  c->any.visits = c->writes.visits = 0;
}

/* One block, from its first op to its end: a region whose done is not in
 * it is in flight to the end. */
static void sweep(Check *c, MlirBlock block) {
  c->numRegions = c->inFlight = 0, c->besideHead = -1;
  thunkyIntervalSetClear(&c->any), thunkyIntervalSetClear(&c->writes);
  thunkyOpMapClear(&c->regionOf), thunkyOpMapClear(&c->streamHead);
  thunkyOpMapClear(&c->pairOf);
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op) && c->budget >= 0 && !c->outOfMemory;
       op = mlirOperationGetNextInBlock(op))
    sweepOp(c, op);
}

static void run(MlirOperation root, ThunkyPassState *state) {
  thunkyPassMarkUnchanged(state);
  Check c = {.budget = thunkyPassGetOption(state, 0), .besideHead = -1};
  ThunkyOpList starts = {0};
  ThunkyOpMap swept = {0};
  ThunkyOpList calls = {0};
  if (!thunkyCollectOps(root, THUNKY_OP_ASYNC_START, MlirWalkPreOrder, &starts) ||
      !thunkyCollectOps(root, THUNKY_OP_CALL_THUNK_PROTO, MlirWalkPreOrder, &calls))
    c.outOfMemory = true;
  for (size_t i = 0; i < starts.count + calls.count && c.budget >= 0 && !c.outOfMemory; i++) {
    MlirOperation start = i < starts.count ? starts.ops[i] : calls.ops[i - starts.count];
    ThunkyOpMapKey pair;
    if (i >= starts.count && thunkyHostPairing(start, &pair) != THUNKY_PAIR_START)
      continue;
    MlirBlock block = mlirOperationGetBlock(start);
    ThunkyOpMapKey key = {block.ptr, 0, 0};
    if (thunkyOpMapGet(&swept, key))
      continue;
    if (!thunkyOpMapPut(&swept, key, (void *)1))
      c.outOfMemory = true;
    else
      sweep(&c, block);
  }
  if (c.outOfMemory) {
    thunkyEmitOpError(root, "thunky-check-races: out of memory");
    c.failed = true;
  }
  if (c.budget < 0) {
    thunkyEmitOpError(root, "thunky-check-races: more than max-pairs=%" PRId64
                      " lookups to make; raise it to check this module",
                      thunkyPassGetOption(state, 0));
    c.failed = true;
  }
  thunkyOpListClear(&starts), thunkyOpListClear(&calls);
  thunkyOpMapClear(&swept), thunkyOpMapClear(&c.regionOf), thunkyOpMapClear(&c.streamHead);
  thunkyOpMapClear(&c.pairOf);
  thunkyIntervalSetClear(&c.any), thunkyIntervalSetClear(&c.writes);
  free(c.anyAccess), free(c.writeAccess), free(c.regions);
  thunkyThunkNumbersClear(&c.numbers);
  if (c.failed)
    thunkyPassSignalFailure(state);
}

MlirPass thunkyCreateCheckRacesPass(void) {
  static const ThunkyPassOption options[] = {
      {"max-pairs", "most interval-set nodes the lookups may visit before giving up with an error",
       THUNKY_OPTION_INT, INT64_C(1) << 30},
  };
  static const ThunkyPassInfo info = {
      "ThunkyCheckRaces", "thunky-check-races",
      "Report async regions that touch bytes the ops beside them write, or write bytes they "
      "read (changes nothing)",
      run, options, 1};
  return thunkyPassCreate(&info);
}
