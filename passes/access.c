/*===- access.c - byte-range accesses of thunky ops ---------------------===*/
#include "thunky-c/passes/Access.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdlib.h>

ThunkyByteRange thunkyResolveBytes(MlirValue v) {
  ThunkyByteRange b = {v, 0, thunkyValueGetBufferSize(v)};
  while (!mlirValueIsABlockArgument(b.root)) {
    MlirOperation def = mlirOpResultGetOwner(b.root);
    if (thunkyOpGetKind(def) != THUNKY_OP_SLICE_BUFFER)
      break;
    b.offset += thunkySliceBufferGetOffset(def);
    b.root = mlirOperationGetOperand(def, 0);
  }
  return b;
}

bool thunkyBytesOverlap(ThunkyByteRange a, ThunkyByteRange b) {
  return mlirValueEqual(a.root, b.root) && a.offset < b.offset + b.size &&
         b.offset < a.offset + a.size;
}

bool thunkyBytesContain(ThunkyByteRange outer, ThunkyByteRange inner) {
  return mlirValueEqual(outer.root, inner.root) && outer.offset <= inner.offset &&
         inner.offset + inner.size <= outer.offset + outer.size;
}

static void add(ThunkyOpAccesses *out, MlirValue v, bool write) {
  if (thunkyValueGetBufferSize(v) < 0)
    return;
  if (!thunkyArrayGrow((void **)&out->items, &out->capacity, out->count, sizeof *out->items)) {
    out->outOfMemory = true;
    return;
  }
  out->items[out->count++] = (ThunkyOpAccess){thunkyResolveBytes(v), write};
}

/* Everything nested in `op`'s regions, which run as part of it. */
static void collectRegions(MlirOperation op, ThunkyOpAccesses *out) {
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); ++r)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r));
         !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      for (MlirOperation inner = mlirBlockGetFirstOperation(b);
           !mlirOperationIsNull(inner); inner = mlirOperationGetNextInBlock(inner))
        thunkyCollectAccesses(inner, out);
}

void thunkyCollectAccesses(MlirOperation op, ThunkyOpAccesses *out) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
    bool reads, writes;
    thunkyOpGetOperandEffects(op, i, &reads, &writes);
    if (reads)
      add(out, mlirOperationGetOperand(op, i), false);
    if (writes)
      add(out, mlirOperationGetOperand(op, i), true);
  }
  if (thunkyOpGetKind(op) == THUNKY_OP_ASYNC_DONE) {
    MlirValue token = mlirOperationGetOperand(op, 0);
    if (mlirValueIsAOpResult(token))
      collectRegions(mlirOpResultGetOwner(token), out);
  }
  collectRegions(op, out);
}

void thunkyAccessesClear(ThunkyOpAccesses *accesses) {
  free(accesses->items);
  *accesses = (ThunkyOpAccesses){0};
}

bool thunkyVisitAccesses(MlirOperation op, ThunkyAccessVisitor visit, void *userData) {
  ThunkyOpAccesses a = {0};
  thunkyCollectAccesses(op, &a);
  bool ok = !a.outOfMemory;
  for (int writes = 1; ok && writes >= 0; --writes)
    for (size_t k = 0; k < a.count; ++k)
      if (a.items[k].write == writes)
        visit(a.items[k].bytes, writes, userData);
  thunkyAccessesClear(&a);
  return ok;
}
