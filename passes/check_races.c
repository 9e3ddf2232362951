/*===- check_races.c - async regions against what runs beside them ------===*
 *
 * An async region may run at any time between its async_start and its
 * async_done, on another stream. So it must not touch bytes that an op
 * between the two writes, nor write bytes that such an op reads; an op
 * there that is itself an async region (a start, or the done of one that
 * began earlier and is still in flight) counts with everything its region
 * does. On the byte-range accesses of access.h; a region whose done is not
 * in its block is in flight to the end of the block.
 *
 * The pass changes nothing. Each finding is an error at the async_start
 * naming the other op as the runtime names its thunk (thunk_info.h), its
 * op and location; the work is bounded (max-pairs), and a
 * module past the bound is an error, never a silent pass.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/Access.h"
#include "thunk_info.h"

#include "thunky-c/Diagnostics.h"
#include "thunky-c/Dialect.h"
#include "thunky-c/Ops.h"
#include "thunky-c/PassKit.h"
#include "thunky-c/Passes.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  int64_t budget; /* access pairs left to compare */
  bool failed;
  ThunkyThunkNumbers numbers; /* for naming the ops races are with */
} Check;

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

/* The async_done of `start` in the same block, or a null op. */
static MlirOperation doneOf(MlirOperation start) {
  MlirBlock block = mlirOperationGetBlock(start);
  MlirValue token = mlirOperationGetResult(start, 0);
  for (MlirOpOperand use = mlirValueGetFirstUse(token); !mlirOpOperandIsNull(use);
       use = mlirOpOperandGetNextUse(use)) {
    MlirOperation user = mlirOpOperandGetOwner(use);
    if (thunkyOpGetKind(user) == THUNKY_OP_ASYNC_DONE &&
        mlirBlockEqual(mlirOperationGetBlock(user), block))
      return user;
  }
  return (MlirOperation){NULL};
}

/* Whether `op` is the done of a region that started before `start` in the
 * block: that pair was checked from the earlier start. */
static bool doneOfEarlier(MlirOperation op, MlirOperation start) {
  if (thunkyOpGetKind(op) != THUNKY_OP_ASYNC_DONE)
    return false;
  MlirValue token = mlirOperationGetOperand(op, 0);
  if (!mlirValueIsAOpResult(token))
    return false;
  MlirOperation other = mlirOpResultGetOwner(token);
  if (!mlirBlockEqual(mlirOperationGetBlock(other), mlirOperationGetBlock(start)))
    return false;
  return mlirOperationIsBeforeInBlock(other, start);
}

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

/* The first conflicting pair of `region` (the start's accesses) and `op`'s. */
static void checkOp(Check *c, MlirOperation start, const ThunkyOpAccesses *region,
                    MlirOperation op) {
  ThunkyOpAccesses theirs = {0};
  thunkyCollectAccesses(op, &theirs);
  if (theirs.outOfMemory) {
    thunkyEmitOpError(op, "thunky-check-races: out of memory");
    c->failed = true;
  }
  c->budget -= (int64_t)(region->count * theirs.count);
  for (size_t i = 0; c->budget >= 0 && !theirs.outOfMemory && i < region->count; i++)
    for (size_t j = 0; j < theirs.count; j++) {
      ThunkyOpAccess a = region->items[i], b = theirs.items[j];
      if ((a.write || b.write) && thunkyBytesOverlap(a.bytes, b.bytes)) {
        report(c, start, op, a, b);
        i = region->count;
        break;
      }
    }
  thunkyAccessesClear(&theirs);
}

/* The execution stream an async_start runs its region on. */
static bool sameStream(MlirOperation a, MlirOperation b) {
  MlirStringRef names[2] = {mlirStringRefCreateFromCString("stream_id"),
                            mlirStringRefCreateFromCString("is_communication")};
  for (int i = 0; i < 2; i++) {
    MlirAttribute x = mlirOperationGetAttributeByName(a, names[i]);
    MlirAttribute y = mlirOperationGetAttributeByName(b, names[i]);
    if (mlirAttributeIsNull(x) != mlirAttributeIsNull(y) ||
        (!mlirAttributeIsNull(x) && !mlirAttributeEqual(x, y)))
      return false;
  }
  return true;
}

/* XLA's runtime rule for collectives in flight together (openxla/xla#40520):
 * each runs on an async stream of its own, or they may deadlock. A
 * collective issued beside a region that holds one breaks it; a second
 * such region on the same stream waits for the first, overlapping nothing. */
static void checkCollectives(Check *c, MlirOperation start, MlirOperation op) {
  char where[512], thunk[160];
  ThunkyOpKind kind = thunkyOpGetKind(op);
  bool beside = kind != THUNKY_OP_ASYNC_START && kind != THUNKY_OP_ASYNC_DONE &&
                thunkyOpHoldsCollective(op, true);
  bool sharing = kind == THUNKY_OP_ASYNC_START && sameStream(start, op) &&
                 thunkyOpHoldsCollective(op, false);
  if (!beside && !sharing)
    return;
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

static void checkStart(Check *c, MlirOperation start) {
  ThunkyOpAccesses region = {0};
  thunkyCollectAccesses(start, &region);
  if (region.outOfMemory) {
    thunkyEmitOpError(start, "thunky-check-races: out of memory");
    c->failed = true;
  }
  bool collective = thunkyOpHoldsCollective(start, false);
  /* XLA orders thunks at run time only through buffers and resources
   * (openxla/xla#40667); a collective's are its communicator's. */
  if (!region.count && !collective)
    thunkyEmitOpWarning(start, "the region touches no bytes and holds no collective: nothing "
                               "orders it against the ops beside it (XLA orders thunks only "
                               "through buffers and resources: openxla/xla#40667)");
  MlirOperation done = doneOf(start);
  for (MlirOperation op = mlirOperationGetNextInBlock(start);
       !region.outOfMemory && c->budget >= 0 && !mlirOperationIsNull(op) &&
       !(!mlirOperationIsNull(done) && mlirOperationEqual(op, done));
       op = mlirOperationGetNextInBlock(op)) {
    if (doneOfEarlier(op, start))
      continue;
    if (collective)
      checkCollectives(c, start, op);
    if (region.count)
      checkOp(c, start, &region, op);
  }
  thunkyAccessesClear(&region);
}

static void run(MlirOperation root, ThunkyPassState *state) {
  thunkyPassMarkUnchanged(state);
  Check c = {.budget = thunkyPassGetOption(state, 0)};
  ThunkyOpList starts = {0};
  if (!thunkyCollectOps(root, THUNKY_OP_ASYNC_START, MlirWalkPreOrder, &starts)) {
    thunkyEmitOpError(root, "thunky-check-races: out of memory");
    c.failed = true;
  }
  for (size_t i = 0; i < starts.count && c.budget >= 0; i++)
    checkStart(&c, starts.ops[i]);
  if (c.budget < 0) {
    thunkyEmitOpError(root, "thunky-check-races: more than max-pairs=%" PRId64
                      " access pairs to compare; raise it to check this module",
                      thunkyPassGetOption(state, 0));
    c.failed = true;
  }
  thunkyOpListClear(&starts);
  thunkyThunkNumbersClear(&c.numbers);
  if (c.failed)
    thunkyPassSignalFailure(state);
}

MlirPass thunkyCreateCheckRacesPass(void) {
  static const ThunkyPassOption options[] = {
      {"max-pairs", "most pairs of accesses to compare before giving up with an error",
       THUNKY_OPTION_INT, INT64_C(1) << 30},
  };
  static const ThunkyPassInfo info = {
      "ThunkyCheckRaces", "thunky-check-races",
      "Report async regions that touch bytes the ops beside them write, or write bytes they "
      "read (changes nothing)",
      run, options, 1};
  return thunkyPassCreate(&info);
}
