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
  Piece *pieces;     /* per slice, in visiting order, then sorted by place */
  Piece *runs;       /* runs of overlapping slices: allocation, span, written */
  size_t *runOf;     /* per slice, by visiting order: its run */
  size_t *operandOf; /* per run: its operand */
  size_t numSlices, numRuns, next;
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
 * numbers the runs as operands in the order their first slice is visited. */
static void groupSlices(Localizer *l) {
  qsort(l->pieces, l->numSlices, sizeof *l->pieces, byPlace);
  for (size_t i = 0; i < l->numSlices; ++i) {
    const Piece *p = &l->pieces[i];
    Piece *run = l->numRuns ? &l->runs[l->numRuns - 1] : NULL;
    /* Zero-size slices at a run's first byte join it, so that two empty
     * slices at one place are one operand. */
    if (run && run->global == p->global && (p->lo < run->hi || p->lo == run->lo)) {
      run->hi = p->hi > run->hi ? p->hi : run->hi;
      run->write |= p->write;
    } else {
      l->runs[l->numRuns++] = *p;
    }
    l->runOf[p->seq] = l->numRuns - 1;
  }
  for (size_t r = 0; r < l->numRuns; ++r)
    l->operandOf[r] = SIZE_MAX;
  size_t next = 0;
  for (size_t k = 0; k < l->numSlices; ++k)
    if (l->operandOf[l->runOf[k]] == SIZE_MAX)
      l->operandOf[l->runOf[k]] = next++;
}

static bool localizeSlice(ThunkySlice *s, ThunkyAccess access, void *userData) {
  Localizer *l = userData;
  size_t run = l->runOf[l->next++];
  size_t local = l->operandOf[run];
  s->buffer_allocation_index = (int64_t)local;
  s->offset -= (int64_t)l->runs[run].lo;
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
  Localizer l = {.im = im,
                 .numSlices = numSlices,
                 .pieces = malloc((numSlices + 1) * sizeof(Piece)),
                 .runs = malloc((numSlices + 1) * sizeof(Piece)),
                 .runOf = malloc((numSlices + 1) * sizeof(size_t)),
                 .operandOf = malloc((numSlices + 1) * sizeof(size_t))};
  MlirValue *operands = malloc((numSlices + 1) * sizeof *operands);
  int *writes = malloc((numSlices + 1) * sizeof *writes);
  bool ok = l.pieces && l.runs && l.runOf && l.operandOf && operands && writes;
  if (!ok)
    thunkyImportError(im, "%s", "out of memory");
  ok = ok && thunkyForEachSlice(&t->base, true, collectSlice, &l) && !l.failed;
  if (ok) {
    groupSlices(&l);
    l.next = 0;
    thunkyForEachSlice(&t->base, true, localizeSlice, &l);
  }
  /* Each operand's slice, made in operand order: at its run's first slice. */
  for (size_t k = 0, made = 0; ok && k < l.numSlices; ++k) {
    size_t run = l.runOf[k];
    if (l.operandOf[run] != made)
      continue;
    const Piece *p = &l.runs[run];
    ThunkySlice span = XLA__BUFFER_ASSIGNMENT__BUFFER_ALLOCATION_SLICE_PROTO__INIT;
    span.buffer_allocation_index = p->global;
    span.offset = (int64_t)p->lo, span.size = (int64_t)(p->hi - p->lo);
    writes[made] = p->write;
    ok = thunkyImportSliceValue(im, &span, &operands[made++]);
  }
  size_t count = l.numRuns;
  free(l.pieces), free(l.runs), free(l.runOf), free(l.operandOf);
  if (!ok) {
    free(writes), free(operands);
    return false;
  }
  /* Sized once the binary is out: the thunk without its cubin is small. */
  MlirAttribute code = mlirAttributeGetNull();
  ok = takeKernelBinary(im, t, &code);
  MlirAttribute info = ok ? thunkyImportTakeThunkInfo(im, t) : mlirAttributeGetNull();
  /* The thunk reads and edits as text, every field of every kind. */
  MlirAttribute proto =
      ok ? thunkyProtoToAttr(&im->protoCache, &t->base, NULL) : mlirAttributeGetNull();
  if (!ok || mlirAttributeIsNull(proto)) {
    free(writes), free(operands);
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
  free(writes), free(operands);
  return true;
}
