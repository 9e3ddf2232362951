/*===- access.c - byte-range accesses of thunky ops ---------------------===*/
#include "thunky-c/Access.h"

#include "thunky-c/Dialect.h"
#include "thunky-c/Ops.h"

#include "mlir-c/BuiltinAttributes.h"

#include <stdlib.h>
#include <string.h>

ThunkyByteRange thunkyResolveBytes(MlirValue v) {
  ThunkyByteRange b = {v, 0, thunkyValueGetBufferSize(v)};
  while (!mlirValueIsABlockArgument(b.root)) {
    MlirOperation def = mlirOpResultGetOwner(b.root);
    if (thunkyOpGetKind(def) != THUNKY_OP_SLICE_BUFFER)
      break;
    b.offset += mlirIntegerAttrGetValueInt(
        mlirOperationGetAttributeByName(def, mlirStringRefCreateFromCString("offset")));
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
  if (out->count == out->capacity) {
    size_t capacity = out->capacity ? 2 * out->capacity : 16;
    ThunkyOpAccess *grown = realloc(out->items, capacity * sizeof *grown);
    if (!grown) {
      out->outOfMemory = true;
      return;
    }
    out->items = grown, out->capacity = capacity;
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

bool thunkyIsFunction(MlirOperation op) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  return name.length == 9 && memcmp(name.data, "func.func", 9) == 0;
}

MlirAttribute thunkyArgumentAttribute(MlirValue v, const char *name) {
  if (!mlirValueIsABlockArgument(v))
    return mlirAttributeGetNull();
  MlirOperation func = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
  MlirAttribute argAttrs =
      mlirOperationGetAttributeByName(func, mlirStringRefCreateFromCString("arg_attrs"));
  if (mlirAttributeIsNull(argAttrs) || !mlirAttributeIsAArray(argAttrs) ||
      mlirBlockArgumentGetArgNumber(v) >= mlirArrayAttrGetNumElements(argAttrs))
    return mlirAttributeGetNull();
  return mlirDictionaryAttrGetElementByName(
      mlirArrayAttrGetElement(argAttrs, mlirBlockArgumentGetArgNumber(v)),
      mlirStringRefCreateFromCString(name));
}

static bool startsWith(MlirStringRef s, const char *prefix) {
  size_t n = strlen(prefix);
  return s.length >= n && memcmp(s.data, prefix, n) == 0;
}

ThunkyRole thunkyArgumentRole(MlirValue v) {
  MlirAttribute role = thunkyArgumentAttribute(v, "thunky.role");
  if (mlirAttributeIsNull(role) || !mlirAttributeIsAString(role))
    return THUNKY_ROLE_NONE;
  MlirStringRef r = mlirStringAttrGetValue(role);
  if (r.length >= 7 && memcmp(r.data + r.length - 7, "scratch", 7) == 0)
    return startsWith(r, "thread-local ") ? THUNKY_ROLE_THREAD_LOCAL_SCRATCH : THUNKY_ROLE_SCRATCH;
  if (startsWith(r, "output "))
    return THUNKY_ROLE_OUTPUT;
  if (!startsWith(r, "parameter "))
    return THUNKY_ROLE_OTHER;
  /* "parameter N, output {i}": the output follows the number. */
  for (size_t i = 10; i + 9 <= r.length; ++i)
    if (memcmp(r.data + i, ", output ", 9) == 0)
      return THUNKY_ROLE_PARAMETER_OUTPUT;
  return THUNKY_ROLE_PARAMETER;
}

bool thunkyIsScratchArgument(MlirValue v) {
  ThunkyRole role = thunkyArgumentRole(v);
  return role == THUNKY_ROLE_SCRATCH || role == THUNKY_ROLE_THREAD_LOCAL_SCRATCH;
}

MlirStringRef thunkyKernelName(MlirOperation op) {
  MlirAttribute name =
      mlirOperationGetAttributeByName(op, mlirStringRefCreateFromCString("kernel_name"));
  if (mlirAttributeIsNull(name) || !mlirAttributeIsAString(name))
    return mlirStringRefCreate("", 0);
  MlirStringRef s = mlirStringAttrGetValue(name);
  return s.length == 5 && memcmp(s.data, "thunk", 5) == 0 ? mlirStringRefCreate("", 0) : s;
}
