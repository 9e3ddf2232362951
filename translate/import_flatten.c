/*===- import_flatten.c - sequentials an async token must leave ---------===*
 *
 * An async_done_thunk may come after the sequential_thunk that holds its
 * async_start_thunk (XLA's SequentialThunk only groups; the start's work
 * keeps running after the group ends). In MLIR the start's token would then
 * be used outside the region that defines it. Import therefore flattens
 * such a sequential, and only such a one: when a done's token is not
 * visible, every thunky.sequential between the start and the done is
 * inlined into its parent block, outermost first, and each op that was in
 * it records the group in THUNKY_ATTR_IN_SEQUENTIAL (executable_attrs.h),
 * so that export rebuilds the same sequential_thunk.
 *
 *===--------------------------------------------------------------------===*/
#include "import.h"

#include "thunky-c/dialect/Ops.h"

#include <inttypes.h>
#include <stdlib.h>

/* Whether `outer` is `inner` or a block `inner` is nested in. */
static bool encloses(MlirBlock outer, MlirBlock inner) {
  for (MlirBlock b = inner; !mlirBlockIsNull(b);) {
    if (mlirBlockEqual(b, outer))
      return true;
    MlirOperation parent = mlirBlockGetParentOperation(b);
    if (mlirOperationIsNull(parent))
      return false;
    b = mlirOperationGetBlock(parent);
  }
  return false;
}

/* `path` (an array attribute, or null for none) with `extra` appended. */
static MlirAttribute appendToPath(Importer *im, MlirAttribute path, intptr_t n,
                                  const MlirAttribute *extra) {
  intptr_t old = mlirAttributeIsNull(path) ? 0 : mlirArrayAttrGetNumElements(path);
  MlirAttribute *all = malloc((size_t)(old + n + 1) * sizeof *all);
  if (!all)
    return mlirAttributeGetNull();
  for (intptr_t i = 0; i < old; ++i)
    all[i] = mlirArrayAttrGetElement(path, i);
  for (intptr_t i = 0; i < n; ++i)
    all[old + i] = extra[i];
  MlirAttribute a = mlirArrayAttrGet(im->ctx, old + n, all);
  free(all);
  return a;
}

static MlirAttribute pathOf(MlirOperation op) {
  MlirAttribute a =
      mlirOperationGetDiscardableAttributeByName(op, str(THUNKY_ATTR_IN_SEQUENTIAL));
  return !mlirAttributeIsNull(a) && mlirAttributeIsAArray(a) ? a : mlirAttributeGetNull();
}

/* Inlines `seq` into its block: each op of its body goes in front of it,
 * its path now `seq`'s own path, then `seq`'s group, then the path it had
 * (from a sequential inside `seq` flattened before). */
static bool flatten(Importer *im, MlirOperation seq) {
  MlirAttribute residual =
      mlirOperationGetDiscardableAttributeByName(seq, str(THUNKY_ATTR_THUNK));
  MlirAttribute info = mlirOperationGetDiscardableAttributeByName(seq, str(THUNKY_ATTR_INFO));
  MlirNamedAttribute fields[3] = {named(im, "group", i64Attr(im, im->nextGroup++))};
  intptr_t nFields = 1;
  if (!mlirAttributeIsNull(info))
    fields[nFields++] = named(im, "info", info);
  if (!mlirAttributeIsNull(residual))
    fields[nFields++] = named(im, "thunk", residual);
  MlirAttribute group = mlirDictionaryAttrGet(im->ctx, nFields, fields);
  MlirAttribute outer = appendToPath(im, pathOf(seq), 1, &group);
  if (mlirAttributeIsNull(outer))
    return thunkyImportError(im, "%s", "out of memory");
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(seq, 0));
  MlirOperation terminator = mlirBlockGetTerminator(body);
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op) && !mlirOperationEqual(op, terminator);) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    /* Slices make no thunk: they need no group. */
    if (thunkyOpGetKind(op) != THUNKY_OP_SLICE_BUFFER) {
      MlirAttribute inner = pathOf(op);
      intptr_t n = mlirAttributeIsNull(inner) ? 0 : mlirArrayAttrGetNumElements(inner);
      MlirAttribute *innerGroups = malloc((size_t)(n + 1) * sizeof *innerGroups);
      if (!innerGroups)
        return thunkyImportError(im, "%s", "out of memory");
      for (intptr_t i = 0; i < n; ++i)
        innerGroups[i] = mlirArrayAttrGetElement(inner, i);
      MlirAttribute path = appendToPath(im, outer, n, innerGroups);
      free(innerGroups);
      if (mlirAttributeIsNull(path))
        return thunkyImportError(im, "%s", "out of memory");
      mlirOperationSetDiscardableAttributeByName(op, str(THUNKY_ATTR_IN_SEQUENTIAL), path);
    }
    mlirOperationMoveBefore(op, seq);
    op = next;
  }
  mlirOperationDestroy(seq);
  return true;
}

bool thunkyImportReachToken(Importer *im, MlirValue token, uint64_t id) {
  MlirOperation start = mlirOpResultGetOwner(token);
  for (;;) {
    /* The outermost op around `start` that is not around the done. */
    MlirOperation op = start, holder = {NULL};
    while (!encloses(mlirOperationGetBlock(op), im->block)) {
      holder = mlirBlockGetParentOperation(mlirOperationGetBlock(op));
      if (mlirOperationIsNull(holder))
        return thunkyImportError(im, "async done for execution id %" PRIu64
                                     " is not inside the function of its start", id);
      op = holder;
    }
    if (mlirOperationIsNull(holder))
      return true;
    if (thunkyOpGetKind(holder) != THUNKY_OP_SEQUENTIAL)
      return thunkyImportError(
          im,
          "async done for execution id %" PRIu64 " comes after the '%.*s' that holds its "
          "start; only a sequential_thunk can be flattened to let it wait there",
          id, (int)mlirIdentifierStr(mlirOperationGetName(holder)).length,
          mlirIdentifierStr(mlirOperationGetName(holder)).data);
    if (!flatten(im, holder))
      return false;
  }
}
