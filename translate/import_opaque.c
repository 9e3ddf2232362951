/*===- import_opaque.c - every other thunk: thunky.call_thunk_proto ----===*/
#include "import.h"

#include "proto_attr.h"
#include <stdlib.h>
#include <string.h>

/* A thunk's operands: each run of overlapping slices of one allocation
 * becomes one, the smallest slice that holds them, written where the thunk
 * writes any of them. Slices of one allocation that do not overlap stay
 * apart, so that passes and the race check see the bytes a thunk writes
 * apart from those it only reads (a dynamic-slice fusion reads its loop
 * counter beside the window it writes, in the same allocation). Operands are
 * numbered in the order their first slice is visited; each slice is then
 * rewritten to index its operand, at an offset within it. */
typedef struct Piece {
  int64_t global;    /* allocation index */
  uint64_t lo, hi;   /* the bytes the slice spans */
  size_t seq;        /* which slice, in visiting order */
  bool write;
} Piece;

typedef struct Localizer {
  Importer *im;
  Piece *pieces;     /* per slice, in visiting order, later sorted */
  size_t *groupOf;   /* per slice: its run of overlapping slices */
  size_t *operandOf; /* per run: its operand, or SIZE_MAX before numbering */
  Piece *operands;   /* per operand: allocation, span, written */
  size_t numSlices, numOperands, next;
  bool failed;
} Localizer;

static bool collectSlice(ThunkySlice *s, ThunkyAccess access, void *userData) {
  Localizer *l = userData;
  if (!thunkyImportCheckSlice(l->im, s)) {
    l->failed = true;
    return false;
  }
  uint64_t lo = (uint64_t)s->offset;
  l->pieces[l->next] = (Piece){s->buffer_allocation_index, lo, lo + (uint64_t)s->size, l->next,
                               (access & THUNKY_ACCESS_WRITE) != 0};
  ++l->next;
  return true;
}

static int byPlace(const void *a, const void *b) {
  const Piece *x = a, *y = b;
  if (x->global != y->global)
    return x->global < y->global ? -1 : 1;
  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts the slices by place and sweeps them into runs (n log n), then
 * numbers the runs by their first slice in visiting order. */
static void groupSlices(Localizer *l) {
  qsort(l->pieces, l->numSlices, sizeof *l->pieces, byPlace);
  Piece *runs = l->operands; /* per run until numbered */
  size_t numRuns = 0;
  for (size_t i = 0; i < l->numSlices; ++i) {
    const Piece *p = &l->pieces[i];
    Piece *run = numRuns ? &runs[numRuns - 1] : NULL;
    /* Zero-size slices at a run's first byte join it, so that two empty
     * slices at one place are one operand. */
    if (run && run->global == p->global && (p->lo < run->hi || p->lo == run->lo)) {
      run->hi = p->hi > run->hi ? p->hi : run->hi;
      run->write |= p->write;
    } else {
      runs[numRuns++] = *p;
    }
    l->groupOf[p->seq] = numRuns - 1;
  }
  for (size_t r = 0; r < numRuns; ++r)
    l->operandOf[r] = SIZE_MAX;
  Piece *numbered = l->pieces; /* the pieces are no longer needed */
  for (size_t k = 0; k < l->numSlices; ++k) {
    size_t r = l->groupOf[k];
    if (l->operandOf[r] == SIZE_MAX) {
      l->operandOf[r] = l->numOperands;
      numbered[l->numOperands++] = runs[r];
    }
  }
  l->pieces = runs, l->operands = numbered;
}

static bool localizeSlice(ThunkySlice *s, ThunkyAccess access, void *userData) {
  Localizer *l = userData;
  size_t local = l->operandOf[l->groupOf[l->next++]];
  s->buffer_allocation_index = (int64_t)local;
  s->offset -= (int64_t)l->operands[local].lo;
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
  Localizer l = {.im = im, .numSlices = numSlices,
                 .pieces = malloc((numSlices + 1) * sizeof(Piece)),
                 .operands = malloc((numSlices + 1) * sizeof(Piece)),
                 .groupOf = malloc((numSlices + 1) * sizeof(size_t)),
                 .operandOf = malloc((numSlices + 1) * sizeof(size_t))};
  bool ok = l.pieces && l.operands && l.groupOf && l.operandOf;
  if (!ok)
    thunkyImportError(im, "%s", "out of memory");
  ok = ok && thunkyForEachSlice(&t->base, true, collectSlice, &l) && !l.failed;
  if (ok) {
    groupSlices(&l);
    l.next = 0;
    thunkyForEachSlice(&t->base, true, localizeSlice, &l);
  }
  MlirValue *operands = ok ? malloc((l.numOperands + 1) * sizeof *operands) : NULL;
  int *writes = ok ? malloc((l.numOperands + 1) * sizeof *writes) : NULL;
  if (ok && (!operands || !writes))
    ok = thunkyImportError(im, "%s", "out of memory");
  for (size_t i = 0; ok && i < l.numOperands; ++i) {
    const Piece *p = &l.operands[i];
    ThunkySlice span = XLA__BUFFER_ASSIGNMENT__BUFFER_ALLOCATION_SLICE_PROTO__INIT;
    span.buffer_allocation_index = p->global;
    span.offset = (int64_t)p->lo, span.size = (int64_t)(p->hi - p->lo);
    writes[i] = p->write;
    ok = thunkyImportSliceValue(im, &span, &operands[i]);
  }
  size_t count = l.numOperands;
  free(l.pieces), free(l.operands), free(l.groupOf), free(l.operandOf);
  if (!ok) {
    free(writes), free(operands);
    return false;
  }
  MlirType *types = malloc((count + 1) * sizeof *types);
  /* Sized once the binary is out: the thunk without its cubin is small. */
  MlirAttribute code = mlirAttributeGetNull();
  ok = takeKernelBinary(im, t, &code);
  MlirAttribute info = ok ? thunkyImportTakeThunkInfo(im, t) : mlirAttributeGetNull();
  /* The thunk reads and edits as text, every field of every kind. */
  MlirAttribute proto =
      ok ? thunkyProtoToAttr(&im->protoCache, &t->base, NULL) : mlirAttributeGetNull();
  if (!ok || !types || mlirAttributeIsNull(proto)) {
    free(writes), free(operands), free(types);
    return ok && thunkyImportError(im, "%s", "out of memory");
  }
  MlirNamedAttribute attrs[5] = {
      named(im, "kernel_name", mlirStringAttrGet(im->ctx, str(kernelName(t)))),
      named(im, "thunk_proto", proto),
      /* PTX and cubin stay once on the module (thunky.executable). */
      named(im, "asm_text", stringAttr(im, "", 0)),
      named(im, "binary", stringAttr(im, "", 0)),
      /* What the thunk kind table says of each operand: its effects. */
      named(im, "written", mlirDenseBoolArrayGet(im->ctx, (intptr_t)count, writes)),
  };
  MlirOperation op = thunkyImportEmit(im, "thunky.call_thunk_proto", (intptr_t)count, operands,
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
  free(writes), free(operands), free(types);
  return true;
}
