/*===- export_opaque.c - thunky.call_thunk_proto back to its thunk ----===*/
#include "export.h"

#include "proto_attr.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/format/Wire.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*--- call_thunk_proto ----------------------------------------------------*/

typedef struct Rebase {
  Exporter *ex;
  MlirOperation op;
  Place *operands;
  size_t count;
  bool failed;
} Rebase;

static bool rebaseSlice(ThunkySlice *s, ThunkyAccess access, void *userData) {
  Rebase *r = userData;
  int64_t local = s->buffer_allocation_index;
  if (local < 0 || (uint64_t)local >= r->count) {
    r->failed = true;
    thunkyEmitOpError(r->op,
                      "thunk_proto refers to buffer %" PRId64 " but the op has %zu",
                      local, r->count);
    return false;
  }
  Place p = r->operands[local];
  s->buffer_allocation_index = p.allocation;
  s->has_buffer_allocation_index = p.allocation != 0;
  s->offset += p.offset;
  s->has_offset = s->offset != 0;
  return true;
}

/* Puts back the cubin or PTX import took out (THUNKY_ATTR_KERNEL_BINARY). */
static bool restoreKernelBinary(Exporter *ex, MlirOperation op, Thunk *t) {
  MlirAttribute code = discardable(op, THUNKY_ATTR_KERNEL_BINARY);
  if (mlirAttributeIsNull(code))
    return true;
  MlirStringRef bytes;
  if (!thunkyAttributeGetBytes(code, &bytes))
    return opError(op, THUNKY_ATTR_KERNEL_BINARY
                   " must be a string or a byte resource with its data");
  const Xla__Gpu__CustomKernelProto *k =
      t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK
          ? t->custom_kernel_thunk->custom_kernel
          : NULL;
  StreamExecutor__KernelLoaderSpecProto *spec = k ? k->kernel_spec : NULL;
  if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN &&
      spec->cubin) {
    spec->cubin->has_data = 1;
    spec->cubin->data = (ProtobufCBinaryData){bytes.length, (uint8_t *)(uintptr_t)bytes.data};
    return true;
  }
  if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX &&
      spec->ptx) {
    spec->ptx->has_data = 1;
    spec->ptx->data = (ProtobufCBinaryData){bytes.length, (uint8_t *)(uintptr_t)bytes.data};
    return true;
  }
  return opError(op, THUNKY_ATTR_KERNEL_BINARY " on a thunk that is not a custom kernel with a "
                     "cubin or PTX");
}

/* The op's thunk: thunk_proto as a dictionary (import's form), or as the
 * serialized bytes upstream writes. NULL once reported. */
static Thunk *thunkOf(Exporter *ex, MlirOperation op) {
  MlirAttribute proto = inherent(op, "thunk_proto");
  if (mlirAttributeIsADictionary(proto))
    return (Thunk *)thunkyAttrToProto(proto, &xla__gpu__thunk_proto__descriptor, ex->arena,
                                      mlirOperationGetLocation(op), "thunk_proto");
  MlirStringRef bytes = mlirStringAttrGetValue(proto);
  ThunkyError why;
  if (!thunkyValidateWire(&xla__gpu__thunk_proto__descriptor, (const unsigned char *)bytes.data,
                       bytes.length, &why)) {
    thunkyEmitOpError(op, "thunk_proto is not a ThunkProto: %s", why.message);
    return NULL;
  }
  Thunk *t = xla__gpu__thunk_proto__unpack(thunkyArenaAllocator(ex->arena),
                                           bytes.length, (const uint8_t *)bytes.data);
  if (!t)
    opError(op, "thunk_proto could not be unpacked");
  return t;
}

Thunk *thunkyExportCallThunkProto(Exporter *ex, MlirOperation op) {
  Thunk *t = thunkOf(ex, op);
  if (!t)
    return NULL;
  size_t n = (size_t)mlirOperationGetNumOperands(op);
  Place *operands = malloc((n + 1) * sizeof *operands);
  if (!operands) {
    opError(op, "out of memory");
    return NULL;
  }
  bool ok = true;
  for (size_t i = 0; i < n && ok; ++i)
    ok = thunkyExportPlaceOf(ex, op, mlirOperationGetOperand(op, (intptr_t)i), &operands[i]);
  Rebase r = {ex, op, operands, n, false};
  if (ok)
    thunkyForEachSlice(&t->base, true, rebaseSlice, &r);
  free(operands);
  return ok && !r.failed && restoreKernelBinary(ex, op, t) ? t : NULL;
}
