/*===- strip_metadata.c - drop what import kept for export --------------===*
 *
 * Import keeps every XLA field the dialect does not model as "thunky.*"
 * attributes (docs/formats.md). This pass removes them, leaving the program
 * itself: useful to read it, to diff two programs, and to check that a
 * module survives export and import. It keeps what running and reading
 * need, so a stripped module still runs and compares (docs/passes.md):
 * each argument's role and shape (a #thunky.allocation without its index
 * and recorded fields, or the older thunky.role and thunky.shape), and the
 * code kernels load (kernel binaries, and of thunky.executable only the
 * module's PTX, cubin and cuDNN graphs). A stripped module exports as a fresh executable whose
 * allocations, outputs and program shape come from those roles.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdlib.h>
#include <string.h>

static bool is(MlirStringRef name, const char *literal) {
  return name.length == strlen(literal) && memcmp(name.data, literal, name.length) == 0;
}

/* A kernel's code (thunky.kernel_binary on a call_thunk_proto) is the
 * program, not metadata: without it the module would export kernels that
 * cannot load. An argument's role and shape say what the executable takes
 * and gives. */
/* #thunky.info stays: it holds the names every report gives a thunk
 * (thunkyThunkName), and export writes it back as the thunk's thunk_info. */
static bool isMetadata(MlirStringRef name) {
  if (is(name, "thunky.kernel_binary") || is(name, THUNKY_ATTR_INFO) ||
      is(name, "thunky.role") || is(name, "thunky.shape") || is(name, "thunky.arg_shapes"))
    return false;
  return name.length > 7 && memcmp(name.data, "thunky.", 7) == 0;
}

static MlirStringRef executableName(void) {
  return mlirStringRefCreateFromCString("thunky.executable");
}

/* The fields of the kept GpuExecutableProto that hold code: kernel_thunks
 * load from the module's PTX (asm_text) or cubin (binary), cuDNN thunks
 * from their compiled graphs. */
static bool isCode(MlirStringRef field) {
  return is(field, "asm_text") || is(field, "binary") || is(field, "dnn_compiled_graphs");
}

/* thunky.executable (on the module) less everything but its code; null
 * when there is none. */
static MlirAttribute codeOf(MlirOperation op) {
  MlirAttribute kept = mlirOperationGetDiscardableAttributeByName(op, executableName());
  if (mlirAttributeIsNull(kept) || !mlirAttributeIsADictionary(kept))
    return mlirAttributeGetNull();
  intptr_t n = mlirDictionaryAttrGetNumElements(kept), count = 0;
  MlirNamedAttribute *code = malloc((size_t)(n + 1) * sizeof *code);
  if (!code)
    return mlirAttributeGetNull();
  for (intptr_t i = 0; i < n; ++i) {
    MlirNamedAttribute a = mlirDictionaryAttrGetElement(kept, i);
    if (isCode(mlirIdentifierStr(a.name)))
      code[count++] = a;
  }
  MlirAttribute result = count ? mlirDictionaryAttrGet(mlirOperationGetContext(op), count, code)
                               : mlirAttributeGetNull();
  free(code);
  return result;
}

/* Whether the rest of the op's thunk (thunky.thunk) is what its device
 * code needs to run, and what its fingerprint hashes: a kernel's argument
 * packing, zeroed outputs and TMA descriptors, the shapes a custom call or
 * a matmul is given, a loop's trip count (the runtime then never runs its
 * condition, as XLA). Other ops' rest is names, ids and shapes of copies and
 * collectives, which run from the op alone. */
static bool needsThunk(MlirOperation op) {
  switch (thunkyOpGetKind(op)) {
  case THUNKY_OP_LAUNCH:
  case THUNKY_OP_CUSTOM_CALL:
  case THUNKY_OP_GEMM:
  case THUNKY_OP_CUBLASLT_MATMUL:
  case THUNKY_OP_WHILE:
    return true;
  default:
    return false;
  }
}

/* An argument's #thunky.allocation less what only export reads: its role
 * and shape, or null when it has neither. */
static MlirAttribute roleAndShape(MlirContext ctx, MlirAttribute allocation) {
  ThunkyAllocation full, kept = thunkyAllocationEmpty();
  thunkyAllocationAttrGetValue(allocation, &full);
  kept.parameter = full.parameter, kept.shape = full.shape;
  kept.flags = full.flags & (THUNKY_ALLOCATION_OUTPUT | THUNKY_ALLOCATION_SCRATCH |
                             THUNKY_ALLOCATION_THREAD_LOCAL);
  kept.outputDepth = full.outputDepth;
  memcpy(kept.outputIndex, full.outputIndex, sizeof kept.outputIndex);
  if (kept.parameter < 0 && !kept.flags && mlirTypeIsNull(kept.shape))
    return mlirAttributeGetNull();
  return thunkyAllocationAttrGet(ctx, mlirLocationUnknownGet(ctx), &kept);
}

/* A copy of `dict` without its entry `name`, or, when name is null, without
 * its thunky.* entries but an allocation's role and shape. */
static MlirAttribute without(MlirContext ctx, MlirAttribute dict, const char *name) {
  intptr_t n = mlirDictionaryAttrGetNumElements(dict), kept = 0;
  MlirNamedAttribute *entries = malloc((size_t)(n + 1) * sizeof *entries);
  if (!entries)
    return dict;
  for (intptr_t i = 0; i < n; ++i) {
    MlirNamedAttribute a = mlirDictionaryAttrGetElement(dict, i);
    MlirStringRef key = mlirIdentifierStr(a.name);
    bool keep = name ? !is(key, name) : !isMetadata(key);
    if (!name && is(key, "thunky.allocation") && thunkyAttributeIsAAllocation(a.attribute)) {
      a.attribute = roleAndShape(ctx, a.attribute);
      keep = !mlirAttributeIsNull(a.attribute);
    }
    if (keep)
      entries[kept++] = a;
  }
  MlirAttribute result = mlirDictionaryAttrGet(ctx, kept, entries);
  free(entries);
  return result;
}

static void stripDiscardable(MlirOperation op) {
  MlirStringRef thunkName = mlirStringRefCreateFromCString("thunky.thunk");
  MlirAttribute thunk = mlirOperationGetDiscardableAttributeByName(op, thunkName);
  /* A launch's rest as older imports wrote it is serialized
   * (docs/formats.md): kept whole, its thunk_info too, since a pass reads
   * no wire format. */
  if (!needsThunk(op)) {
    thunk = mlirAttributeGetNull();
  } else if (!mlirAttributeIsNull(thunk) && mlirAttributeIsADictionary(thunk)) {
    thunk = without(mlirOperationGetContext(op), thunk, "thunk_info");
    if (mlirDictionaryAttrGetNumElements(thunk) == 0)
      thunk = mlirAttributeGetNull();
  }
  for (intptr_t i = mlirOperationGetNumDiscardableAttributes(op) - 1; i >= 0; --i) {
    MlirNamedAttribute a = mlirOperationGetDiscardableAttribute(op, i);
    if (isMetadata(mlirIdentifierStr(a.name)))
      mlirOperationRemoveDiscardableAttributeByName(op, mlirIdentifierStr(a.name));
  }
  if (!mlirAttributeIsNull(thunk))
    mlirOperationSetDiscardableAttributeByName(op, thunkName, thunk);
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
    dicts[i] = without(ctx, mlirArrayAttrGetElement(argAttrs, i), NULL);
    anyLeft |= mlirDictionaryAttrGetNumElements(dicts[i]) != 0;
  }
  if (anyLeft)
    mlirOperationSetAttributeByName(op, name, mlirArrayAttrGet(ctx, n, dicts));
  else
    mlirOperationRemoveAttributeByName(op, name);
  free(dicts);
}

static MlirWalkResult strip(MlirOperation op, void *userData) {
  MlirAttribute code = codeOf(op);
  stripDiscardable(op);
  if (!mlirAttributeIsNull(code))
    mlirOperationSetDiscardableAttributeByName(op, executableName(), code);
  stripArgAttrs(op);
  /* A constant's symbol only names its entry in XLA's constant table. */
  if (thunkyOpGetKind(op) == THUNKY_OP_CONSTANT)
    mlirOperationRemoveAttributeByName(op, mlirStringRefCreateFromCString("name"));
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
