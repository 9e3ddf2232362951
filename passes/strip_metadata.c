/*===- strip_metadata.c - drop what import kept for export --------------===*
 *
 * Import keeps every XLA field the dialect does not model as "thunky.*"
 * attributes (docs/formats.md). This pass removes them all, leaving the
 * program itself: useful to read it, to diff two programs, and to check that
 * a module survives export and import. A stripped module exports as a fresh
 * executable (one entry parameter per argument), not as the original.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/Dialect.h"
#include "thunky-c/PassKit.h"
#include "thunky-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdlib.h>
#include <string.h>

static bool is(MlirStringRef name, const char *literal) {
  return name.length == strlen(literal) && memcmp(name.data, literal, name.length) == 0;
}

/* A kernel's code (thunky.kernel_binary on a call_thunk_proto, the module's
 * thunky.kernel_binaries) is the program, not metadata: without it the
 * module would export kernels that cannot load. */
static bool isMetadata(MlirStringRef name) {
  if (is(name, "thunky.kernel_binary") || is(name, THUNKY_KERNEL_BINARIES))
    return false;
  return name.length > 7 && memcmp(name.data, "thunky.", 7) == 0;
}

static void stripDiscardable(MlirOperation op) {
  for (intptr_t i = mlirOperationGetNumDiscardableAttributes(op) - 1; i >= 0; --i) {
    MlirNamedAttribute a = mlirOperationGetDiscardableAttribute(op, i);
    if (isMetadata(mlirIdentifierStr(a.name)))
      mlirOperationRemoveDiscardableAttributeByName(op, mlirIdentifierStr(a.name));
  }
}

/* A copy of `dict` without thunky.* entries. */
static MlirAttribute withoutMetadata(MlirContext ctx, MlirAttribute dict) {
  intptr_t n = mlirDictionaryAttrGetNumElements(dict), kept = 0;
  MlirNamedAttribute *entries = malloc((size_t)(n + 1) * sizeof *entries);
  if (!entries)
    return dict;
  for (intptr_t i = 0; i < n; ++i) {
    MlirNamedAttribute a = mlirDictionaryAttrGetElement(dict, i);
    if (!isMetadata(mlirIdentifierStr(a.name)))
      entries[kept++] = a;
  }
  MlirAttribute result = mlirDictionaryAttrGet(ctx, kept, entries);
  free(entries);
  return result;
}

/* Function argument attributes live in the inherent "arg_attrs" array. */
static void stripArgAttrs(MlirOperation op) {
  MlirStringRef name = mlirStringRefCreateFromCString("arg_attrs");
  MlirAttribute argAttrs = mlirOperationGetAttributeByName(op, name);
  if (mlirAttributeIsNull(argAttrs) || !mlirAttributeIsAArray(argAttrs))
    return;
  MlirContext ctx = mlirOperationGetContext(op);
  intptr_t n = mlirArrayAttrGetNumElements(argAttrs);
  MlirAttribute *dicts = malloc((size_t)(n + 1) * sizeof *dicts);
  if (!dicts)
    return;
  bool anyLeft = false;
  for (intptr_t i = 0; i < n; ++i) {
    dicts[i] = withoutMetadata(ctx, mlirArrayAttrGetElement(argAttrs, i));
    anyLeft |= mlirDictionaryAttrGetNumElements(dicts[i]) != 0;
  }
  if (anyLeft)
    mlirOperationSetAttributeByName(op, name, mlirArrayAttrGet(ctx, n, dicts));
  else
    mlirOperationRemoveAttributeByName(op, name);
  free(dicts);
}

static MlirWalkResult strip(MlirOperation op, void *userData) {
  stripDiscardable(op);
  stripArgAttrs(op);
  return MlirWalkResultAdvance;
}

static void run(MlirOperation root, ThunkyPassState *state) {
  mlirOperationWalk(root, strip, NULL, MlirWalkPreOrder);
}

MlirPass thunkyCreateStripMetadataPass(void) {
  static const ThunkyPassInfo info = {
      "ThunkyStripMetadata", "thunky-strip-metadata",
      "Remove the XLA metadata (thunky.* attributes) that import keeps for export", run, NULL, 0};
  return thunkyPassCreate(&info);
}
