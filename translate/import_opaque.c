/*===- import_opaque.c - every other thunk: thunky.call_thunk_proto ----===*/
#include "import.h"

#include "proto_attr.h"
#include "thunky-c/HashMap.h"
#include <stdlib.h>
#include <string.h>

/* Each distinct allocation a thunk touches becomes one operand: the
 * smallest slice of it that holds every slice the thunk has there, so that
 * passes see the bytes it uses, not the whole allocation. The thunk's
 * slices are rewritten to index operands, at offsets within them. */
typedef struct Localizer {
  Importer *im;
  int64_t *globals;   /* distinct allocation indices, first-seen order */
  int *writes;        /* per operand: whether the thunk may write it */
  uint64_t *lo, *hi;  /* per operand: the bytes it spans */
  size_t count;
  ThunkyHashMap locals; /* allocation index -> operand */
  bool failed;
} Localizer;

static bool spanSlice(ThunkySlice *s, ThunkyAccess access, void *userData) {
  Localizer *l = userData;
  if (!thunkyImportCheckSlice(l->im, s)) {
    l->failed = true;
    return false;
  }
  int64_t global = s->buffer_allocation_index;
  uint64_t lo = (uint64_t)s->offset, hi = lo + (uint64_t)s->size;
  uint32_t local;
  if (!thunkyHashMapGet(&l->locals, (uint64_t)global, &local)) {
    local = (uint32_t)l->count;
    if (!thunkyHashMapPut(&l->locals, (uint64_t)global, local)) {
      l->failed = true;
      return thunkyImportError(l->im, "%s", "out of memory");
    }
    l->globals[l->count] = global;
    l->lo[l->count] = lo, l->hi[l->count] = hi;
    l->writes[l->count++] = 0;
  }
  l->lo[local] = lo < l->lo[local] ? lo : l->lo[local];
  l->hi[local] = hi > l->hi[local] ? hi : l->hi[local];
  l->writes[local] |= (access & THUNKY_ACCESS_WRITE) != 0;
  return true;
}

static bool localizeSlice(ThunkySlice *s, ThunkyAccess access, void *userData) {
  Localizer *l = userData;
  uint32_t local = 0;
  thunkyHashMapGet(&l->locals, (uint64_t)s->buffer_allocation_index, &local);
  s->buffer_allocation_index = (int64_t)local;
  s->offset -= (int64_t)l->lo[local];
  /* XLA's slices are proto3: a zero is never on the wire. An explicit one is
   * dropped here, as export would drop it, so that import(export(m)) is m. */
  s->has_buffer_allocation_index = local != 0;
  s->has_offset = s->offset != 0;
  s->has_size = s->size != 0;
  return true;
}

static bool countSlice(ThunkySlice *s, ThunkyAccess access, void *userData) {
  ++*(size_t *)userData;
  return true;
}

static const char *kernelName(const Thunk *t) {
  if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_KERNEL_THUNK &&
      t->kernel_thunk->kernel_name)
    return t->kernel_thunk->kernel_name;
  if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK &&
      t->custom_kernel_thunk->custom_kernel &&
      t->custom_kernel_thunk->custom_kernel->name)
    return t->custom_kernel_thunk->custom_kernel->name;
  return "thunk";
}

/* A custom kernel's cubin or PTX, moved out of the thunk into *code (see
 * THUNKY_ATTR_KERNEL_BINARY), which stays null when there is none; false
 * when out of memory (reported). */
static bool takeKernelBinary(Importer *im, Thunk *t, MlirAttribute *code) {
  const Xla__Gpu__CustomKernelProto *k =
      t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK
          ? t->custom_kernel_thunk->custom_kernel
          : NULL;
  StreamExecutor__KernelLoaderSpecProto *spec = k ? k->kernel_spec : NULL;
  if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN &&
      spec->cubin && spec->cubin->has_data && spec->cubin->data.len) {
    *code = bytesAttr(im, kernelName(t), spec->cubin->data.data, spec->cubin->data.len);
    spec->cubin->has_data = 0;
    spec->cubin->data.len = 0;
  } else if (spec &&
             spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX &&
             spec->ptx && spec->ptx->has_data && spec->ptx->data.len) {
    *code = bytesAttr(im, kernelName(t), spec->ptx->data.data, spec->ptx->data.len);
    spec->ptx->has_data = 0;
    spec->ptx->data.len = 0;
  } else {
    return true;
  }
  return !mlirAttributeIsNull(*code) || thunkyImportError(im, "%s", "out of memory");
}

bool thunkyImportOpaque(Importer *im, Thunk *t) {
  size_t numSlices = 0;
  thunkyForEachSlice(&t->base, true, countSlice, &numSlices);
  Localizer l = {.im = im, .globals = malloc((numSlices + 1) * sizeof(int64_t)),
                 .writes = malloc((numSlices + 1) * sizeof(int)),
                 .lo = malloc((numSlices + 1) * sizeof(uint64_t)),
                 .hi = malloc((numSlices + 1) * sizeof(uint64_t))};
  bool ok = l.globals && l.writes && l.lo && l.hi;
  if (!ok)
    thunkyImportError(im, "%s", "out of memory");
  ok = ok && thunkyForEachSlice(&t->base, true, spanSlice, &l) && !l.failed &&
       thunkyForEachSlice(&t->base, true, localizeSlice, &l);
  thunkyHashMapDestroy(&l.locals);
  MlirValue *operands = ok ? malloc((l.count + 1) * sizeof *operands) : NULL;
  for (size_t i = 0; ok && operands && i < l.count; ++i) {
    ThunkySlice span = XLA__BUFFER_ASSIGNMENT__BUFFER_ALLOCATION_SLICE_PROTO__INIT;
    span.buffer_allocation_index = l.globals[i];
    span.offset = (int64_t)l.lo[i], span.size = (int64_t)(l.hi[i] - l.lo[i]);
    ok = thunkyImportSliceValue(im, &span, &operands[i]);
  }
  free(l.lo), free(l.hi);
  if (!ok) {
    free(l.globals), free(l.writes), free(operands);
    return false;
  }
  MlirType *types = malloc((l.count + 1) * sizeof *types);
  /* Sized once the binary is out: the thunk without its cubin is small. */
  MlirAttribute code = mlirAttributeGetNull();
  ok = takeKernelBinary(im, t, &code);
  MlirAttribute info = ok ? thunkyImportTakeThunkInfo(im, t) : mlirAttributeGetNull();
  /* The thunk reads and edits as text, every field of every kind. */
  MlirAttribute proto =
      ok ? thunkyProtoToAttr(&im->protoCache, &t->base, NULL) : mlirAttributeGetNull();
  if (!ok || !operands || !types || mlirAttributeIsNull(proto)) {
    free(l.globals), free(l.writes), free(operands), free(types);
    return ok && thunkyImportError(im, "%s", "out of memory");
  }
  MlirNamedAttribute attrs[5] = {
      named(im, "kernel_name", mlirStringAttrGet(im->ctx, str(kernelName(t)))),
      named(im, "thunk_proto", proto),
      /* PTX and cubin stay once on the module (thunky.executable). */
      named(im, "asm_text", stringAttr(im, "", 0)),
      named(im, "binary", stringAttr(im, "", 0)),
      /* What the thunk kind table says of each operand: its effects. */
      named(im, "written", mlirDenseBoolArrayGet(im->ctx, (intptr_t)l.count, l.writes)),
  };
  MlirOperation op = thunkyImportEmit(im, "thunky.call_thunk_proto", (intptr_t)l.count, operands,
                                      0, NULL, 5, attrs, 0);
  if (!mlirAttributeIsNull(info))
    mlirOperationSetDiscardableAttributeByName(op, str(THUNKY_ATTR_INFO), info);
  if (!mlirAttributeIsNull(code))
    mlirOperationSetDiscardableAttributeByName(op, str(THUNKY_ATTR_KERNEL_BINARY), code);
  const ProtobufCFieldDescriptor *kind =
      protobuf_c_message_descriptor_get_field(t->base.descriptor, (unsigned)t->impl_case);
  if (kind)
    mlirOperationSetDiscardableAttributeByName(
        op, str(THUNKY_ATTR_THUNK_KIND), mlirStringAttrGet(im->ctx, str(kind->name)));
  free(l.globals), free(l.writes), free(operands), free(types);
  return true;
}
