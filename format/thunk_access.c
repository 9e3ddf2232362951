/*===- thunk_access.c - what each thunk kind reads and writes -----------===*
 *
 * One row per slice field of the schema whose access is known; a field
 * that is no row reads and writes (safe for every pass and check), so a
 * kind added to the schema is covered, conservatively, before anyone
 * writes its row. Each role is XLA's, as its thunks' buffer_uses() and
 * ExecuteOnStream show: thunk_roles.tsv beside this file cites the line
 * of XLA for each, and test/Format/thunk_roles_test.c checks this table
 * against that list.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/format/Executable.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

enum { R = THUNKY_ACCESS_READ, W = THUNKY_ACCESS_WRITE, RW = THUNKY_ACCESS_READ_WRITE };

static const struct {
  const ProtobufCMessageDescriptor *message;
  const char *field;
  ThunkyAccess access;
} rows[] = {
    {&xla__gpu__copy_thunk_proto__descriptor, "source_buffer", R},
    {&xla__gpu__copy_thunk_proto__descriptor, "destination_buffer", W},
    {&xla__gpu__dynamic_memcpy_thunk_proto__descriptor, "source_buffer", R},
    /* XLA calls it a write, but it writes mem_size bytes at an offset of the
     * operand it updates (a dynamic-update-slice): the rest stays. */
    {&xla__gpu__dynamic_memcpy_thunk_proto__descriptor, "destination_buffer", RW},
    {&xla__gpu__memzero_thunk_proto__descriptor, "dest_buffer", W},
    {&xla__gpu__memset32_bit_value_thunk_proto__descriptor, "dest_buffer", W},
    {&xla__gpu__replica_id_thunk_proto__descriptor, "dest_buffer", W},
    {&xla__gpu__partition_id_thunk_proto__descriptor, "dest_buffer", W},
    {&xla__gpu__rng_seed_thunk_proto__descriptor, "dest_buffer", W},
    {&xla__gpu__collective_buffer_proto__descriptor, "source_buffer", R},
    {&xla__gpu__collective_buffer_proto__descriptor, "destination_buffer", W},
    {&xla__gpu__conditional_thunk_proto__descriptor, "branch_index_buffer", R},
    {&xla__gpu__while_thunk_proto__descriptor, "condition_result_buffer_index", R},
    {&xla__gpu__custom_call_thunk_proto__descriptor, "operands", R},
    {&xla__gpu__custom_call_thunk_proto__descriptor, "results", W},
    {&xla__gpu__gemm_thunk_proto__descriptor, "lhs_buffer", R},
    {&xla__gpu__gemm_thunk_proto__descriptor, "rhs_buffer", R},
    {&xla__gpu__gemm_thunk_proto__descriptor, "output_buffer", W}, /* RW when beta != 0, below */
    {&xla__gpu__gemm_thunk_proto__descriptor, "workspace", W},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "a", R},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "b", R},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "c", R},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "d", W},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "bias", R},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "aux", W},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "a_scale", R},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "b_scale", R},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "c_scale", R},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "d_scale", R},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "d_amax", W},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "workspace", W},
    {&xla__gpu__cublas_lt_matmul_thunk_proto__descriptor, "group_sizes", R},
    {&xla__gpu__convolution_thunk_proto__descriptor, "operand_buffers", R},
    {&xla__gpu__convolution_thunk_proto__descriptor, "result_buffers", W},
    {&xla__gpu__convolution_thunk_proto__descriptor, "scratch_buffer", W},
    {&xla__gpu__convolution_reorder_thunk_proto__descriptor, "filter_input", R},
    {&xla__gpu__convolution_reorder_thunk_proto__descriptor, "filter_output", W},
    {&xla__gpu__convolution_reorder_bias_buffers__descriptor, "bias_input", R},
    {&xla__gpu__convolution_reorder_bias_buffers__descriptor, "bias_output", W},
    {&xla__gpu__fft_thunk_proto__descriptor, "input_buffer", R},
    {&xla__gpu__fft_thunk_proto__descriptor, "output_buffer", W},
    {&xla__gpu__triangular_solve_thunk_proto__descriptor, "a_buffer", R},
    {&xla__gpu__triangular_solve_thunk_proto__descriptor, "b_buffer", RW}, /* solved in place */
    {&xla__gpu__triangular_solve_thunk_proto__descriptor, "temp_buffer", W},
    {&xla__gpu__norm_thunk_proto__descriptor, "x", R},
    {&xla__gpu__norm_thunk_proto__descriptor, "scale", R},
    {&xla__gpu__norm_thunk_proto__descriptor, "bias", R},
    {&xla__gpu__norm_thunk_proto__descriptor, "dy", R},
    {&xla__gpu__norm_thunk_proto__descriptor, "y_or_dx", W},
    {&xla__gpu__norm_thunk_proto__descriptor, "expectation", W},
    {&xla__gpu__norm_thunk_proto__descriptor, "norm_factor", W},
    {&xla__gpu__norm_thunk_proto__descriptor, "dscale", W},
    {&xla__gpu__norm_thunk_proto__descriptor, "dbias", W},
    {&xla__gpu__norm_thunk_proto__descriptor, "scratch", W},
    {&xla__gpu__host_execute_start_thunk_proto__descriptor, "args", R},
    {&xla__gpu__host_execute_start_thunk_proto__descriptor, "results", W},
    {&xla__gpu__host_send_thunk_proto__descriptor, "buffer", R},
    {&xla__gpu__host_recv_thunk_proto__descriptor, "buffer", W},
    {&xla__gpu__infeed_thunk_proto__descriptor, "dest_slices", W},
    {&xla__gpu__outfeed_thunk_proto__descriptor, "source_slices", R},
    {&xla__gpu__dynamic_slice_fusion_thunk_proto__descriptor, "parameter_buffers", R},
    /* A result with an update is written in a window of its parameter. */
    {&xla__gpu__dynamic_slice_fusion_thunk_proto__descriptor, "result_buffers", RW},
    {&xla__gpu__optional_dynamic_slice_offsets_proto__dynamic_slice_offset_proto__descriptor,
     "slice_offset", R},
};

/* Rows for some elements of a repeated field: the input, then the values
 * and indices a top-k writes. */
static const struct {
  const ProtobufCMessageDescriptor *message;
  const char *field;
  size_t index;
  ThunkyAccess access;
} elementRows[] = {
    {&xla__gpu__select_kthunk_proto__descriptor, "args", 0, R},
    {&xla__gpu__select_kthunk_proto__descriptor, "args", 1, W},
    {&xla__gpu__select_kthunk_proto__descriptor, "args", 2, W},
};

/* The access of element `k` of field `f` of `desc` by its element row; 0
 * where it has none. */
static ThunkyAccess elementAccess(const ProtobufCMessageDescriptor *desc,
                                  const ProtobufCFieldDescriptor *f, size_t k) {
  for (size_t i = 0; i < sizeof elementRows / sizeof elementRows[0]; i++)
    if (elementRows[i].message == desc && elementRows[i].index == k &&
        strcmp(elementRows[i].field, f->name) == 0)
      return elementRows[i].access;
  return 0;
}

static bool hasElementRows(const ProtobufCMessageDescriptor *desc,
                           const ProtobufCFieldDescriptor *f) {
  for (size_t i = 0; i < sizeof elementRows / sizeof elementRows[0]; i++)
    if (elementRows[i].message == desc && strcmp(elementRows[i].field, f->name) == 0)
      return true;
  return false;
}

/* A collective's buffers are source and destination pairs, read and
 * written, but some thunks give a pair one slice for both ends, or use a
 * pair otherwise: a send's destination is its operand, which it reads; a
 * recv's source is its result, which it writes; a ragged all-to-all's
 * six pairs, one per operand as XLA makes them, are its input, its output
 * (updated where rows arrive) and four offset and size operands (any
 * other count keeps the rows, every destination written, rather than
 * miss the write of a result); a broadcast with a dynamic root ends with
 * the roots, read. Element `k` of `n` of the buffers of thunk `msg`:
 * whether its roles differ from the pair's rows, and if so, what they
 * are. */
static bool pairRoles(const ProtobufCMessage *msg, size_t k, size_t n, ThunkyAccess *source,
                      ThunkyAccess *destination) {
  const ProtobufCMessageDescriptor *d = msg->descriptor;
  if (d == &xla__gpu__send_thunk_proto__descriptor ||
      d == &xla__gpu__nvshmem_send_thunk_proto__descriptor)
    return *source = R, *destination = R, true;
  if (d == &xla__gpu__recv_thunk_proto__descriptor ||
      d == &xla__gpu__nvshmem_recv_thunk_proto__descriptor)
    return *source = W, *destination = W, true;
  if (d == &xla__gpu__ragged_all_to_all_thunk_proto__descriptor && n == 6)
    return *source = R, *destination = k == 1 ? RW : R, true;
  if (d == &xla__gpu__collective_broadcast_thunk_proto__descriptor &&
      ((const Xla__Gpu__CollectiveBroadcastThunkProto *)msg)->has_dynamic_root && k + 1 == n)
    return *source = R, *destination = R, true;
  return false;
}

static bool isPairedThunk(const ProtobufCMessageDescriptor *d) {
  return d == &xla__gpu__send_thunk_proto__descriptor ||
         d == &xla__gpu__nvshmem_send_thunk_proto__descriptor ||
         d == &xla__gpu__recv_thunk_proto__descriptor ||
         d == &xla__gpu__nvshmem_recv_thunk_proto__descriptor ||
         d == &xla__gpu__ragged_all_to_all_thunk_proto__descriptor ||
         d == &xla__gpu__collective_broadcast_thunk_proto__descriptor;
}

/* The access of field `f` of `desc` by its row; 0 where it has none. */
static ThunkyAccess rowAccess(const ProtobufCMessageDescriptor *desc,
                              const ProtobufCFieldDescriptor *f) {
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (rows[i].message == desc && strcmp(rows[i].field, f->name) == 0)
      return rows[i].access;
  return 0;
}

/* A kernel's `written` flags say which arguments it may write (and maybe
 * read), a cuDNN graph's `output_args` which it writes; the others they
 * only read. Without one flag per argument, all may be both. */
typedef struct KernelFlags {
  const protobuf_c_boolean *written; /* NULL: `f` is no kernel's arguments */
  size_t count;
  ThunkyAccess flagged; /* of a flagged argument */
} KernelFlags;

/* The flags of a kernel thunk `msg`, whose arguments are being walked. */
static KernelFlags kernelFlags(const ProtobufCMessage *msg) {
  static const protobuf_c_boolean none[1];
  if (msg->descriptor == &xla__gpu__kernel_thunk_proto__descriptor) {
    const Xla__Gpu__KernelThunkProto *k = (const Xla__Gpu__KernelThunkProto *)msg;
    return (KernelFlags){k->written ? k->written : none, k->n_written, RW};
  }
  if (msg->descriptor == &xla__gpu__custom_kernel_thunk_proto__descriptor) {
    const Xla__Gpu__CustomKernelThunkProto *k = (const Xla__Gpu__CustomKernelThunkProto *)msg;
    return (KernelFlags){k->written ? k->written : none, k->n_written, RW};
  }
  if (msg->descriptor == &xla__gpu__cudnn_thunk_proto__descriptor) {
    const Xla__Gpu__CudnnThunkProto *c = (const Xla__Gpu__CudnnThunkProto *)msg;
    return (KernelFlags){c->output_args ? c->output_args : none, c->n_output_args, W};
  }
  return (KernelFlags){NULL, 0, 0};
}

static ThunkyAccess kernelArgAccess(KernelFlags flags, size_t nArgs, size_t i) {
  if (flags.count != nArgs)
    return RW;
  return flags.written[i] ? flags.flagged : R;
}

/*--- which fields can hold a slice ----------------------------------------*/

/* Most of a thunk's submessages (shapes, layouts, configs, launch
 * dimensions) can hold no slice, and a thunk sets one of its kind's
 * dozens of fields; walking them all was most of the walk's time. Every
 * message type reachable from the executable is classified once, and the
 * fields of each that may lead to a slice are listed with what the table
 * says of them. */
#define SLICE_TYPES 1024 /* a power of two, above the schema's message count */

/* A message field that may lead to a slice. */
typedef struct WalkField {
  const ProtobufCFieldDescriptor *field;
  ThunkyAccess access; /* its row's access; 0: the one around it */
  bool thunks;         /* holds thunks: walked only for nested slices */
  bool gemmOutput;     /* a GEMM's output: read too when beta != 0 */
  bool kernelArgs;     /* a kernel's arguments: written per its flags */
  bool elements;       /* some elements have rows of their own */
  bool pairs;          /* a collective's buffers, whose roles pairRoles may change */
} WalkField;

static struct {
  const ProtobufCMessageDescriptor *desc[SLICE_TYPES];
  bool holds[SLICE_TYPES];
  uint32_t first[SLICE_TYPES], count[SLICE_TYPES]; /* in fields */
  WalkField *fields;
  size_t numTypes;
} sliceTypes;
static pthread_once_t sliceTypesOnce = PTHREAD_ONCE_INIT;

static size_t typeSlot(const ProtobufCMessageDescriptor *d) {
  size_t h = (size_t)(((uintptr_t)d >> 4) * 0x9e3779b97f4a7c15ull) & (SLICE_TYPES - 1);
  while (sliceTypes.desc[h] && sliceTypes.desc[h] != d)
    h = (h + 1) & (SLICE_TYPES - 1);
  return h;
}

static void addType(const ProtobufCMessageDescriptor *d) {
  size_t h = typeSlot(d);
  if (sliceTypes.desc[h] || sliceTypes.numTypes + 1 >= SLICE_TYPES)
    return; /* known, or the table is full: unlisted types are walked field by field */
  sliceTypes.desc[h] = d;
  sliceTypes.holds[h] = d == &xla__buffer_assignment__buffer_allocation_slice_proto__descriptor;
  sliceTypes.numTypes++;
  for (unsigned i = 0; i < d->n_fields; ++i)
    if (d->fields[i].type == PROTOBUF_C_TYPE_MESSAGE)
      addType(d->fields[i].descriptor);
}

static bool mayHoldSlice(const ProtobufCMessageDescriptor *d) {
  size_t h = typeSlot(d);
  return !sliceTypes.desc[h] || sliceTypes.holds[h];
}

/* Whether field `f` of `desc` may lead to a slice of this executable's
 * allocations, and if so what the table says of it. */
static bool describeField(const ProtobufCMessageDescriptor *desc,
                          const ProtobufCFieldDescriptor *f, WalkField *out) {
  if (f->type != PROTOBUF_C_TYPE_MESSAGE || !mayHoldSlice(f->descriptor))
    return false;
  /* Slices that index another allocation table. */
  if (f->descriptor == &xla__buffer_allocation_proto__descriptor ||
      (desc == &xla__gpu__dynamic_slice_fusion_thunk_proto__descriptor &&
       strcmp(f->name, "embedded_thunks") == 0) ||
      (desc == &xla__gpu__dynamic_slice_thunk_proto__descriptor &&
       strcmp(f->name, "embedded_thunk") == 0) || /* its fake_allocations */
      (desc == &xla__gpu__host_execute_start_thunk_proto__descriptor &&
       strcmp(f->name, "executable_proto") == 0))
    return false;
  *out = (WalkField){
      .field = f,
      .access = rowAccess(desc, f),
      .thunks = f->descriptor == &xla__gpu__thunk_proto__descriptor ||
                f->descriptor == &xla__gpu__thunk_sequence_proto__descriptor,
      .gemmOutput = desc == &xla__gpu__gemm_thunk_proto__descriptor &&
                    strcmp(f->name, "output_buffer") == 0,
      .kernelArgs = (desc == &xla__gpu__kernel_thunk_proto__descriptor ||
                     desc == &xla__gpu__custom_kernel_thunk_proto__descriptor ||
                     desc == &xla__gpu__cudnn_thunk_proto__descriptor) &&
                    strcmp(f->name, "args") == 0,
      .elements = hasElementRows(desc, f),
      .pairs = isPairedThunk(desc) &&
               f->descriptor == &xla__gpu__collective_buffer_proto__descriptor};
  return true;
}

static void classifyTypes(void) {
  addType(&xla__gpu__gpu_executable_proto__descriptor);
  /* A type holds a slice when a field of it does: grow the set until no
   * type joins it (at most one round per level of the schema). */
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t h = 0; h < SLICE_TYPES; ++h) {
      const ProtobufCMessageDescriptor *d = sliceTypes.desc[h];
      if (!d || sliceTypes.holds[h])
        continue;
      for (unsigned i = 0; i < d->n_fields && !sliceTypes.holds[h]; ++i)
        if (d->fields[i].type == PROTOBUF_C_TYPE_MESSAGE &&
            sliceTypes.holds[typeSlot(d->fields[i].descriptor)])
          sliceTypes.holds[h] = grew = true;
    }
  }
  size_t total = 0;
  for (size_t h = 0; h < SLICE_TYPES; ++h)
    total += sliceTypes.desc[h] && sliceTypes.holds[h] ? sliceTypes.desc[h]->n_fields : 0;
  /* Lives as long as the process; without it types are walked field by
   * field, as unlisted ones are. */
  if (!(sliceTypes.fields = malloc((total + 1) * sizeof *sliceTypes.fields)))
    return;
  uint32_t used = 0;
  for (size_t h = 0; h < SLICE_TYPES; ++h) {
    const ProtobufCMessageDescriptor *d = sliceTypes.desc[h];
    if (!d || !sliceTypes.holds[h])
      continue;
    sliceTypes.first[h] = used;
    for (unsigned i = 0; i < d->n_fields; ++i)
      used += describeField(d, &d->fields[i], &sliceTypes.fields[used]);
    sliceTypes.count[h] = used - sliceTypes.first[h];
  }
}

static bool isSet(const ProtobufCMessage *msg, const ProtobufCFieldDescriptor *f) {
  const void *slot = (const char *)msg + f->offset;
  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    return *(const size_t *)((const char *)msg + f->quantifier_offset) != 0;
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    return *(const uint32_t *)((const char *)msg + f->quantifier_offset) == f->id &&
           *(void *const *)slot;
  return *(void *const *)slot != NULL;
}

static bool walk(ProtobufCMessage *msg, bool nested, ThunkyAccess access,
                 ThunkySliceVisitor visit, void *userData);

static bool walkField(ProtobufCMessage *msg, const WalkField *w, bool nested,
                      ThunkyAccess access, ThunkySliceVisitor visit, void *userData) {
  const ProtobufCFieldDescriptor *f = w->field;
  if ((w->thunks && !nested) || !isSet(msg, f))
    return true;
  ThunkyAccess fieldAccess = w->access ? w->access : access;
  if (w->gemmOutput) {
    const Xla__Gpu__GemmThunkProto *g = (const Xla__Gpu__GemmThunkProto *)msg;
    if (g->gemm_config && g->gemm_config->beta != 0)
      fieldAccess = RW;
  }
  void *slot = (char *)msg + f->offset;
  bool repeated = f->label == PROTOBUF_C_LABEL_REPEATED;
  size_t n = repeated ? *(size_t *)((char *)msg + f->quantifier_offset) : 1;
  ProtobufCMessage **items = repeated ? *(ProtobufCMessage ***)slot : (ProtobufCMessage **)slot;
  const KernelFlags flags = w->kernelArgs ? kernelFlags(msg) : (KernelFlags){NULL, 0, 0};
  for (size_t k = 0; k < n; ++k) {
    ThunkyAccess a = flags.written ? kernelArgAccess(flags, n, k) : fieldAccess, source, destination;
    if (w->elements && elementAccess(msg->descriptor, f, k))
      a = elementAccess(msg->descriptor, f, k);
    if (!items[k])
      continue;
    if (w->pairs && pairRoles(msg, k, n, &source, &destination)) {
      const Xla__Gpu__CollectiveBufferProto *b = (const Xla__Gpu__CollectiveBufferProto *)items[k];
      if ((b->source_buffer && !walk(&b->source_buffer->base, nested, source, visit, userData)) ||
          (b->destination_buffer &&
           !walk(&b->destination_buffer->base, nested, destination, visit, userData)))
        return false;
      continue;
    }
    if (!walk(items[k], nested, a, visit, userData))
      return false;
  }
  return true;
}

static bool walk(ProtobufCMessage *msg, bool nested, ThunkyAccess access,
                 ThunkySliceVisitor visit, void *userData) {
  const ProtobufCMessageDescriptor *desc = msg->descriptor;
  if (desc == &xla__buffer_assignment__buffer_allocation_slice_proto__descriptor)
    return visit((ThunkySlice *)msg, access, userData);
  size_t h = typeSlot(desc);
  if (sliceTypes.desc[h] && sliceTypes.fields) {
    for (uint32_t i = 0; i < sliceTypes.count[h]; ++i)
      if (!walkField(msg, &sliceTypes.fields[sliceTypes.first[h] + i], nested, access, visit,
                     userData))
        return false;
    return true;
  }
  for (unsigned i = 0; i < desc->n_fields; ++i) {
    WalkField w;
    if (describeField(desc, &desc->fields[i], &w) &&
        !walkField(msg, &w, nested, access, visit, userData))
      return false;
  }
  return true;
}

bool thunkyForEachSlice(ProtobufCMessage *msg, bool nested, ThunkySliceVisitor visit,
                        void *userData) {
  pthread_once(&sliceTypesOnce, classifyTypes);
  return walk(msg, nested, RW, visit, userData);
}
