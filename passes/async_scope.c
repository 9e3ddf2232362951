/*===- async_scope.c - XLA's two async thunk passes, on the module -------===*
 *
 * XLA runs two passes over the thunk sequence after buffer assignment
 * (xla/backends/gpu/runtime/async_thunk_passes.h, openxla/xla#39435):
 *
 * - remove-redundant-async: an async start directly followed by its done
 *   runs nothing beside it, so its region is inlined where the pair was;
 *   but not a region holding a collective while another region of
 *   collectives is in flight there: inlined, its collective would run
 *   beside that region's (openxla/xla#40520).
 * - expand-async-scope: each async start moves up, and then each done
 *   down, past every neighbour it does not conflict with, so that the
 *   region overlaps as much as the buffers allow. A done counts with the
 *   bytes its region touches (access.h says so of every async_done).
 *
 * Both work block by block, in the blocks of while loops, conditionals and
 * sequential blocks as XLA's do, and not inside async regions. The
 * conflicts are the byte-range analysis's (access.h): two ops conflict when
 * one writes a byte the other touches. Beyond XLA's buffers, an op also
 * conflicts with one whose result it uses, two ops that both hold
 * collectives keep their order (the ranks' collectives must pair up in one
 * order, XLA's resource uses), and two async ops on one execution stream
 * keep theirs (XLA's runtime refuses regions overlapping on one stream,
 * openxla/xla#40432 and #40520). Moves are adjacent swaps; the access pairs
 * compared are bounded (max-pairs), and past the bound the pass stops
 * moving and says so in a warning: what it moved is still correct.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/passes/Access.h"
#include "op_map.h"
#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"

#include "mlir-c/BuiltinAttributes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* thunky-remove-redundant-async */

static MlirOperation nextOp(MlirOperation op) { return mlirOperationGetNextInBlock(op); }

/* Whether `done` waits for `start`'s token. */
static bool waitsFor(MlirOperation done, MlirOperation start) {
  if (thunkyOpGetKind(done) != THUNKY_OP_ASYNC_DONE)
    return false;
  MlirValue token = mlirOperationGetOperand(done, 0);
  return mlirValueIsAOpResult(token) && mlirOperationEqual(mlirOpResultGetOwner(token), start);
}

/* Marks in `beside` each async start of `block` that another region of
 * collectives is in flight at: one started before it in the block and not
 * yet done. False when out of memory. */
static bool markBeside(MlirBlock block, ThunkyOpMap *beside) {
  ThunkyOpMap open = {0}; /* a collective region's start, in flight */
  size_t inFlight = 0;
  bool ok = true;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); ok && !mlirOperationIsNull(op);
       op = nextOp(op)) {
    ThunkyOpKind kind = thunkyOpGetKind(op);
    if (kind == THUNKY_OP_ASYNC_DONE) {
      MlirValue token = mlirOperationGetOperand(op, 0);
      ThunkyOpMapKey key = {mlirValueIsAOpResult(token) ? mlirOpResultGetOwner(token).ptr : NULL,
                            0, 0};
      if (key.object && thunkyOpMapGet(&open, key)) {
        ok = thunkyOpMapPut(&open, key, NULL);
        inFlight--;
      }
      continue;
    }
    if (kind != THUNKY_OP_ASYNC_START)
      continue;
    ThunkyOpMapKey key = {op.ptr, 0, 0};
    ok = !inFlight || thunkyOpMapPut(beside, key, (void *)1);
    MlirOperation next = nextOp(op);
    if (ok && (mlirOperationIsNull(next) || !waitsFor(next, op)) &&
        thunkyOpHoldsCollective(op, false)) {
      ok = thunkyOpMapPut(&open, key, (void *)1);
      inFlight++;
    }
  }
  thunkyOpMapClear(&open);
  return ok;
}

static void removeRedundant(MlirOperation root, ThunkyPassState *state) {
  ThunkyOpList starts = {0};
  ThunkyOpMap beside = {0}, marked = {0};
  bool ok = thunkyCollectOps(root, THUNKY_OP_ASYNC_START, MlirWalkPostOrder, &starts);
  for (size_t i = 0; ok && i < starts.count; i++) {
    ThunkyOpMapKey block = {mlirOperationGetBlock(starts.ops[i]).ptr, 0, 0};
    if (thunkyOpMapGet(&marked, block))
      continue;
    ok = thunkyOpMapPut(&marked, block, (void *)1) &&
         markBeside(mlirOperationGetBlock(starts.ops[i]), &beside);
  }
  thunkyOpMapClear(&marked);
  if (!ok) {
    thunkyOpListClear(&starts), thunkyOpMapClear(&beside);
    thunkyEmitOpError(root, "thunky-remove-redundant-async: out of memory");
    thunkyPassSignalFailure(state);
    return;
  }
  bool changed = false;
  for (size_t i = 0; i < starts.count; i++) {
    MlirOperation start = starts.ops[i], done = nextOp(start);
    if (mlirOperationIsNull(done) || !waitsFor(done, start))
      continue;
    if (thunkyOpMapGet(&beside, (ThunkyOpMapKey){start.ptr, 0, 0}) &&
        thunkyOpHoldsCollective(start, false))
      continue;
    /* The region's ops, but its terminator, take the pair's place. */
    MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(start, 0));
    MlirOperation terminator = mlirBlockGetTerminator(body);
    for (MlirOperation op = mlirBlockGetFirstOperation(body);
         !mlirOperationIsNull(op) && !mlirOperationEqual(op, terminator);) {
      MlirOperation next = nextOp(op);
      mlirOperationMoveBefore(op, start);
      op = next;
    }
    mlirOperationDestroy(done);
    mlirOperationDestroy(start);
    changed = true;
  }
  thunkyOpListClear(&starts), thunkyOpMapClear(&beside);
  if (!changed)
    thunkyPassMarkUnchanged(state);
}

MlirPass thunkyCreateRemoveRedundantAsyncPass(void) {
  static const ThunkyPassInfo info = {
      "ThunkyRemoveRedundantAsync", "thunky-remove-redundant-async",
      "Inline each async region whose async_done directly follows its async_start (XLA's "
      "RemoveRedundantAsyncThunkPass)",
      removeRedundant, NULL, 0};
  return thunkyPassCreate(&info);
}

/* ---------------------------------------------------------------------- */
/* thunky-expand-async-scope */

typedef struct {
  MlirOperation op;
  ThunkyOpAccesses accesses;
  bool collective;       /* holds a collective */
  bool async;            /* an async_start or async_done */
  int64_t stream;        /* its execution stream (async ops) */
  bool communication;
} Item;

typedef struct {
  int64_t budget; /* access pairs left to compare */
  bool outOfMemory, changed;
} Expand;

static MlirOperation startOf(MlirOperation op) {
  if (thunkyOpGetKind(op) == THUNKY_OP_ASYNC_START)
    return op;
  MlirValue token = mlirOperationGetOperand(op, 0);
  return mlirValueIsAOpResult(token) ? mlirOpResultGetOwner(token) : (MlirOperation){NULL};
}

static void describe(Item *item) {
  ThunkyOpKind kind = thunkyOpGetKind(item->op);
  thunkyCollectAccesses(item->op, &item->accesses);
  item->collective = thunkyOpHoldsCollective(
      kind == THUNKY_OP_ASYNC_DONE ? startOf(item->op) : item->op, false);
  item->async = kind == THUNKY_OP_ASYNC_START || kind == THUNKY_OP_ASYNC_DONE;
  MlirOperation start = item->async ? startOf(item->op) : (MlirOperation){NULL};
  if (!mlirOperationIsNull(start)) {
    item->stream = thunkyAsyncStartGetStream(start, &item->communication);
  }
}

/* Whether `inner` is `outer` or nested in it. */
static bool within(MlirOperation inner, MlirOperation outer) {
  for (MlirOperation o = inner; !mlirOperationIsNull(o); o = mlirOperationGetParentOperation(o))
    if (mlirOperationEqual(o, outer))
      return true;
  return false;
}

/* Whether `user`, or an op nested in it, uses a result of `def`. */
static bool usesResultOf(MlirOperation user, MlirOperation def) {
  for (intptr_t r = 0; r < mlirOperationGetNumResults(def); r++)
    for (MlirOpOperand use = mlirValueGetFirstUse(mlirOperationGetResult(def, r));
         !mlirOpOperandIsNull(use); use = mlirOpOperandGetNextUse(use))
      if (within(mlirOpOperandGetOwner(use), user))
        return true;
  return false;
}

/* Whether `a`, just before `b`, must stay there. */
static bool conflict(Expand *e, const Item *a, const Item *b) {
  if (usesResultOf(b->op, a->op) || usesResultOf(a->op, b->op))
    return true;
  if (a->collective && b->collective)
    return true;
  if (a->async && b->async && a->stream == b->stream && a->communication == b->communication)
    return true;
  e->budget -= (int64_t)(a->accesses.count * b->accesses.count);
  if (e->budget < 0)
    return true;
  for (size_t i = 0; i < a->accesses.count; i++)
    for (size_t j = 0; j < b->accesses.count; j++) {
      ThunkyOpAccess x = a->accesses.items[i], y = b->accesses.items[j];
      if ((x.write || y.write) && thunkyBytesOverlap(x.bytes, y.bytes))
        return true;
    }
  return false;
}

static void swap(Item *items, size_t i) {
  Item t = items[i];
  items[i] = items[i + 1], items[i + 1] = t;
}

/* XLA's order: every start up, first to last, then every done down, last
 * to first; then the block's ops are put in the items' order. */
static void expandBlock(Expand *e, MlirBlock block) {
  size_t n = 0, capacity = 0;
  Item *items = NULL;
  MlirOperation terminator = mlirBlockGetTerminator(block);
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = nextOp(op)) {
    if (!mlirOperationIsNull(terminator) && mlirOperationEqual(op, terminator))
      break;
    if (!thunkyArrayGrow((void **)&items, &capacity, n, sizeof *items)) {
      e->outOfMemory = true;
      break;
    }
    items[n] = (Item){.op = op};
    describe(&items[n]);
    e->outOfMemory |= items[n++].accesses.outOfMemory;
  }
  bool moved = false;
  for (size_t i = 1; !e->outOfMemory && i < n; i++) {
    if (thunkyOpGetKind(items[i].op) != THUNKY_OP_ASYNC_START)
      continue;
    for (size_t j = i; j > 0 && !conflict(e, &items[j - 1], &items[j]); j--)
      swap(items, j - 1), moved = true;
  }
  for (size_t i = n - 1; !e->outOfMemory && n > 1 && i-- > 0;) {
    if (thunkyOpGetKind(items[i].op) != THUNKY_OP_ASYNC_DONE)
      continue;
    for (size_t j = i; j + 1 < n && !conflict(e, &items[j], &items[j + 1]); j++)
      swap(items, j), moved = true;
  }
  if (moved && !e->outOfMemory) {
    for (size_t i = n; i-- > 1;)
      mlirOperationMoveBefore(items[i - 1].op, items[i].op);
    e->changed = true;
  }
  for (size_t i = 0; i < n; i++)
    thunkyAccessesClear(&items[i].accesses);
  free(items);
}

/* Blocks holding async ops, where XLA's pass reaches: not inside regions. */
static void expandIn(Expand *e, MlirOperation op) {
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b)) {
      bool any = false;
      for (MlirOperation o = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(o);
           o = nextOp(o)) {
        ThunkyOpKind kind = thunkyOpGetKind(o);
        any |= kind == THUNKY_OP_ASYNC_START || kind == THUNKY_OP_ASYNC_DONE;
        if (kind != THUNKY_OP_ASYNC_START)
          expandIn(e, o);
      }
      if (any)
        expandBlock(e, b);
    }
}

static void expand(MlirOperation root, ThunkyPassState *state) {
  Expand e = {.budget = thunkyPassGetOption(state, 0)};
  expandIn(&e, root);
  if (e.outOfMemory) {
    thunkyEmitOpError(root, "thunky-expand-async-scope: out of memory");
    thunkyPassSignalFailure(state);
    return;
  }
  if (e.budget < 0)
    thunkyEmitOpWarning(root, "thunky-expand-async-scope: stopped after max-pairs=%" PRId64
                              " access pairs; some async scopes may be wider with a larger one",
                        thunkyPassGetOption(state, 0));
  if (!e.changed)
    thunkyPassMarkUnchanged(state);
}

MlirPass thunkyCreateExpandAsyncScopePass(void) {
  static const ThunkyPassOption options[] = {
      {"max-pairs", "most pairs of accesses to compare; past it, no further moves",
       THUNKY_OPTION_INT, INT64_C(1) << 30},
  };
  static const ThunkyPassInfo info = {
      "ThunkyExpandAsyncScope", "thunky-expand-async-scope",
      "Move each async_start up and each async_done down past every op they do not conflict "
      "with, widening the overlap (XLA's ExpandAsyncScopeThunkPass)",
      expand, options, 1};
  return thunkyPassCreate(&info);
}
