/*===- elide_copies.c - copies that do not need to happen ---------------===*
 *
 * Three rewrites, on the byte-range accesses of access.h:
 *  - a copy whose source and destination are the same bytes goes (anywhere);
 *  - a copy into scratch whose bytes nothing reads before they are wholly
 *    overwritten or the program ends goes;
 *  - a copy into scratch whose bytes are afterwards only read, while the
 *    source is not written, is forwarded: the readers read the source, and
 *    the copy goes.
 * Scratch is what import marked so (thunky.role); any other argument may be
 * an output, read after the program ends. The last two rewrites look at
 * copies in a function's entry block and treat each later op, with all its
 * regions, as one step: a read or write anywhere inside a cond, while, async
 * region (until its async_done), host computation or transfer (until its
 * done thunk) or collective group counts at that op, which
 * keeps them correct across control flow, loops and streams. A copy is
 * looked at over at most `window` ops after it (kept if undecided), which
 * keeps the pass linear in the size of the function.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/passes/Access.h"
#include "op_map.h"
#include "stages.h"
#include "thunk_info.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdlib.h>


static bool sameBytes(ThunkyByteRange a, ThunkyByteRange b) {
  return mlirValueEqual(a.root, b.root) && a.offset == b.offset && a.size == b.size;
}

typedef struct Step {
  bool readsDst, writesDst, coversDst, writesSrc, readsSrc;
  bool readsAround; /* reads dst's bytes through a buffer larger than dst */
} Step;

/* The ops of the entry block being rewritten, in order, each with its
 * accesses: a copy looks at up to `window` ops after it, and collecting an
 * op's accesses at every look cost the window times the copies. They are
 * collected at the first look, again after a rewrite changed the op, and
 * freed once the copies are past them. */
typedef struct Entry {
  MlirOperation op; /* null: a copy that went */
  ThunkyOpAccesses accesses;
  bool collected;
  bool branches; /* it is, or holds, a cond or while: its writes may not happen */
  size_t start;  /* a host pair's done: its start's entry + 1, whose accesses it ends */
} Entry;

typedef struct Ops {
  MlirBlock block;
  Entry *entries;
  size_t count, done; /* entries before `done` are freed */
  ThunkyOpMap index;  /* op -> its Entry */
} Ops;

static void clearOps(Ops *o) {
  for (size_t i = o->done; i < o->count; ++i)
    thunkyAccessesClear(&o->entries[i].accesses);
  free(o->entries);
  thunkyOpMapClear(&o->index);
  *o = (Ops){0};
}

static bool listOps(Ops *o, MlirBlock block) {
  clearOps(o);
  o->block = block;
  size_t capacity = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!thunkyArrayGrow((void **)&o->entries, &capacity, o->count, sizeof *o->entries))
      return false;
    o->entries[o->count++] = (Entry){.op = op};
  }
  ThunkyOpMap starts = {0}; /* a host pair's key -> its last start's entry + 1 */
  bool ok = true;
  for (size_t i = 0; i < o->count && ok; ++i) {
    ThunkyOpMapKey key;
    ThunkyHostPairing paired = thunkyHostPairing(o->entries[i].op, &key);
    if (paired == THUNKY_PAIR_START && key.b >= 0)
      ok = thunkyOpMapPut(&starts, key, (void *)(uintptr_t)(i + 1));
    else if (paired == THUNKY_PAIR_DONE && key.b >= 0)
      o->entries[i].start = (uintptr_t)thunkyOpMapGet(&starts, key);
    ok = ok && thunkyOpMapPut(&o->index, (ThunkyOpMapKey){o->entries[i].op.ptr, 0, 0},
                              &o->entries[i]);
  }
  thunkyOpMapClear(&starts);
  return ok;
}

static MlirWalkResult findBranches(MlirOperation op, void *userData) {
  ThunkyOpKind kind = thunkyOpGetKind(op);
  if (kind != THUNKY_OP_COND && kind != THUNKY_OP_WHILE)
    return MlirWalkResultAdvance;
  *(bool *)userData = true;
  return MlirWalkResultInterrupt;
}

static bool step(Ops *o, Entry *e, ThunkyByteRange dst, ThunkyByteRange src, Step *s) {
  /* A done takes its start's accesses as they are now: a forward may have
   * pointed the start at other bytes since. */
  if (!e->collected || e->start) {
    thunkyAccessesClear(&e->accesses);
    thunkyCollectAccesses(e->op, &e->accesses);
    if (e->start && !mlirOperationIsNull(o->entries[e->start - 1].op))
      thunkyCollectAccesses(o->entries[e->start - 1].op, &e->accesses);
    e->branches = false;
    if (mlirOperationGetNumRegions(e->op))
      mlirOperationWalk(e->op, findBranches, &e->branches, MlirWalkPreOrder);
    e->collected = true;
  }
  const ThunkyOpAccesses *a = &e->accesses;
  *s = (Step){0};
  for (size_t i = 0; i < a->count; ++i) {
    ThunkyOpAccess x = a->items[i];
    if (thunkyBytesOverlap(x.bytes, dst)) {
      s->readsDst |= !x.write;
      s->readsAround |= !x.write && !thunkyBytesContain(dst, x.bytes);
      s->writesDst |= x.write;
      /* A write in a branch not taken, or a loop body run no time, leaves
       * the copy's bytes in place. */
      s->coversDst |= x.write && !e->branches && thunkyBytesContain(x.bytes, dst);
    }
    if (thunkyBytesOverlap(x.bytes, src)) {
      s->writesSrc |= x.write;
      s->readsSrc |= !x.write;
    }
  }
  return !a->outOfMemory;
}

typedef enum Fate { KEEP, DEAD, FORWARD } Fate;

/* What becomes of a copy into scratch, from the ops after it in its block. */
static Fate decide(Ops *o, Entry *copy, ThunkyByteRange dst, ThunkyByteRange src, int64_t window,
                   bool *ok) {
  bool srcWritten = false, read = false;
  int64_t seen = 0;
  for (Entry *e = copy + 1; e < o->entries + o->count; ++e) {
    if (mlirOperationIsNull(e->op))
      continue;
    if (++seen > window)
      return KEEP;
    Step s;
    if (!(*ok = step(o, e, dst, src, &s)))
      return KEEP;
    if (s.readsDst) {
      /* A reader that also writes dst or src, or reads after src changed,
       * would see something else if it read src instead; one that reads dst
       * through a larger buffer cannot be pointed at src at all. */
      if (srcWritten || s.writesSrc || s.writesDst || s.readsAround)
        return KEEP;
      read = true;
    }
    if (s.writesDst) {
      if (!s.coversDst)
        return KEEP;
      break; /* the copy's bytes are gone from here on */
    }
    srcWritten |= s.writesSrc;
  }
  return read ? FORWARD : DEAD;
}

typedef struct Forward {
  ThunkyByteRange dst, src;
  MlirValue srcValue;
} Forward;

static MlirValue bytesOf(MlirOperation before, MlirValue root, int64_t rootSize,
                         int64_t offset, int64_t size) {
  if (offset == 0 && size == rootSize)
    return root;
  MlirOperation slice =
      thunkySliceBufferCreate(mlirOperationGetLocation(before), root, offset, size);
  mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before), before, slice);
  return mlirOperationGetResult(slice, 0);
}

static MlirWalkResult forwardOperands(MlirOperation op, void *userData) {
  Forward *f = userData;
  if (thunkyOpGetKind(op) == THUNKY_OP_SLICE_BUFFER)
    return MlirWalkResultAdvance;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (thunkyValueGetBufferSize(v) < 0)
      continue;
    ThunkyByteRange b = thunkyResolveBytes(v);
    if (!thunkyBytesContain(f->dst, b))
      continue;
    MlirValue srcRoot = f->src.root;
    mlirOperationSetOperand(
        op, i,
        bytesOf(op, srcRoot, thunkyValueGetBufferSize(srcRoot),
                f->src.offset + (b.offset - f->dst.offset), b.size));
  }
  return MlirWalkResultAdvance;
}

/* Points every read of dst's bytes after `copy` (up to the op that
 * overwrites them) at the same bytes of src. False when out of memory; the
 * readers already pointed at src still read the right bytes, since src is
 * not written before them, so the copy must only stay. */
static bool forward(Ops *o, Entry *copy, ThunkyByteRange dst, ThunkyByteRange src) {
  Forward f = {dst, src, mlirOperationGetOperand(copy->op, 0)};
  for (Entry *e = copy + 1; e < o->entries + o->count; ++e) {
    if (mlirOperationIsNull(e->op))
      continue;
    Step s;
    if (!step(o, e, dst, src, &s))
      return false;
    if (s.writesDst)
      break;
    if (s.readsDst) {
      mlirOperationWalk(e->op, forwardOperands, &f, MlirWalkPreOrder);
      e->collected = false; /* it reads other bytes now */
    }
  }
  return true;
}

/* Whether `op` sits directly in the entry block of a function. */
static bool inEntryBlock(MlirOperation op) {
  MlirBlock block = mlirOperationGetBlock(op);
  MlirOperation parent = mlirBlockGetParentOperation(block);
  return thunkyIsFunction(parent) &&
         mlirBlockEqual(block, mlirRegionGetFirstBlock(mlirOperationGetRegion(parent, 0)));
}

enum { OPTION_WINDOW };

/* The entry in `o` of `copy`, a copy in a function's entry block, listing
 * that block's ops first when `o` holds another's; NULL when out of memory. */
static Entry *entryOf(Ops *o, MlirOperation copy) {
  MlirBlock block = mlirOperationGetBlock(copy);
  if (!mlirBlockEqual(block, o->block) && !listOps(o, block))
    return NULL;
  Entry *e = thunkyOpMapGet(&o->index, (ThunkyOpMapKey){copy.ptr, 0, 0});
  /* Copies come in block order: no later one looks back past this one. */
  for (; e && o->done < (size_t)(e - o->entries); ++o->done) {
    thunkyAccessesClear(&o->entries[o->done].accesses);
    o->entries[o->done].collected = false;
  }
  return e;
}

static void run(MlirOperation root, ThunkyPassState *state) {
  ThunkyOpList copies = {0};
  Ops ops = {0};
  size_t elided = 0;
  bool ok = thunkyCollectOps(root, THUNKY_OP_COPY, MlirWalkPreOrder, &copies);
  for (size_t i = 0; i < copies.count && ok; ++i) {
    MlirOperation copy = copies.ops[i];
    ThunkyByteRange src = thunkyResolveBytes(mlirOperationGetOperand(copy, 0));
    ThunkyByteRange dst = thunkyResolveBytes(mlirOperationGetOperand(copy, 1));
    Fate fate = KEEP;
    Entry *entry = NULL;
    if (sameBytes(src, dst)) {
      fate = DEAD;
    } else if (thunkyIsScratchArgument(dst.root) && inEntryBlock(copy) &&
               !thunkyBytesOverlap(src, dst)) {
      entry = entryOf(&ops, copy);
      ok = entry != NULL;
      if (ok)
        fate = decide(&ops, entry, dst, src, thunkyPassGetOption(state, OPTION_WINDOW), &ok);
    }
    if (fate == FORWARD && !(ok = forward(&ops, entry, dst, src)))
      fate = KEEP;
    if (fate == KEEP)
      continue;
    /* A copy that went from the block being listed goes from its list. */
    Entry *listed = thunkyOpMapGet(&ops.index, (ThunkyOpMapKey){copy.ptr, 0, 0});
    if (listed)
      listed->op = (MlirOperation){NULL};
    mlirOperationDestroy(copy);
    elided++;
  }
  if (!ok) {
    thunkyEmitOpError(root, "thunky-elide-copies: out of memory");
    thunkyPassSignalFailure(state);
  } else if (elided == 0) {
    thunkyPassMarkUnchanged(state);
  }
  clearOps(&ops);
  thunkyOpListClear(&copies);
}

static const ThunkyPassOption options[] = {
    [OPTION_WINDOW] = {"window", "Ops after a copy to look at before keeping it",
                       THUNKY_OPTION_INT, 4096},
};
const ThunkyPassInfo thunkyElideCopiesInfo = {
    "ThunkyElideCopies", "thunky-elide-copies",
    "Drop copies onto the same bytes, dead copies into scratch, and forward "
    "copies into scratch that is only read",
    run, options, 1};

MlirPass thunkyCreateElideCopiesPass(void) { return thunkyPassCreate(&thunkyElideCopiesInfo); }
