/*===- thunk_access.c - what each thunk kind reads and writes -----------===*
 *
 * One row per slice field of the schema whose access is known; a field
 * that is no row reads and writes (safe for every pass and check). Rows are
 * keyed by the message and field names of the schema, so a kind added to
 * the schema is covered, conservatively, before anyone writes its row.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/Executable.h"

#include <string.h>

enum { R = THUNKY_ACCESS_READ, W = THUNKY_ACCESS_WRITE, RW = THUNKY_ACCESS_READ_WRITE };

static const struct {
  const char *message, *field;
  ThunkyAccess access;
} rows[] = {
    {"xla.gpu.CopyThunkProto", "source_buffer", R},
    {"xla.gpu.CopyThunkProto", "destination_buffer", W},
    {"xla.gpu.MemzeroThunkProto", "dest_buffer", W},
    {"xla.gpu.Memset32BitValueThunkProto", "dest_buffer", W},
    {"xla.gpu.ReplicaIdThunkProto", "dest_buffer", W},
    {"xla.gpu.PartitionIdThunkProto", "dest_buffer", W},
    {"xla.gpu.RngSeedThunkProto", "dest_buffer", W},
    {"xla.gpu.CollectiveBufferProto", "source_buffer", R},
    {"xla.gpu.CollectiveBufferProto", "destination_buffer", W},
    {"xla.gpu.ConditionalThunkProto", "branch_index_buffer", R},
    {"xla.gpu.WhileThunkProto", "condition_result_buffer_index", R},
    {"xla.gpu.CustomCallThunkProto", "operands", R},
    {"xla.gpu.CustomCallThunkProto", "results", W},
    {"xla.gpu.GemmThunkProto", "lhs_buffer", R},
    {"xla.gpu.GemmThunkProto", "rhs_buffer", R},
    {"xla.gpu.GemmThunkProto", "output_buffer", W}, /* RW when beta != 0, below */
    {"xla.gpu.GemmThunkProto", "workspace", W},
    {"xla.gpu.CublasLtMatmulThunkProto", "a", R},
    {"xla.gpu.CublasLtMatmulThunkProto", "b", R},
    {"xla.gpu.CublasLtMatmulThunkProto", "c", R},
    {"xla.gpu.CublasLtMatmulThunkProto", "d", W},
    {"xla.gpu.CublasLtMatmulThunkProto", "bias", R},
    {"xla.gpu.CublasLtMatmulThunkProto", "aux", W},
    {"xla.gpu.CublasLtMatmulThunkProto", "a_scale", R},
    {"xla.gpu.CublasLtMatmulThunkProto", "b_scale", R},
    {"xla.gpu.CublasLtMatmulThunkProto", "c_scale", R},
    {"xla.gpu.CublasLtMatmulThunkProto", "d_scale", R},
    {"xla.gpu.CublasLtMatmulThunkProto", "d_amax", W},
    {"xla.gpu.CublasLtMatmulThunkProto", "workspace", W},
    {"xla.gpu.CublasLtMatmulThunkProto", "group_sizes", R},
    {"xla.gpu.ConvolutionThunkProto", "operand_buffers", R},
    {"xla.gpu.ConvolutionThunkProto", "result_buffers", W},
    {"xla.gpu.ConvolutionThunkProto", "scratch_buffer", W},
    {"xla.gpu.ConvolutionReorderThunkProto", "filter_input", R},
    {"xla.gpu.ConvolutionReorderThunkProto", "filter_output", W},
    {"xla.gpu.ConvolutionReorderBiasBuffers", "bias_input", R},
    {"xla.gpu.ConvolutionReorderBiasBuffers", "bias_output", W},
    {"xla.gpu.FftThunkProto", "input_buffer", R},
    {"xla.gpu.FftThunkProto", "output_buffer", W},
    {"xla.gpu.TriangularSolveThunkProto", "a_buffer", R},
    {"xla.gpu.TriangularSolveThunkProto", "b_buffer", RW}, /* solved in place */
    {"xla.gpu.TriangularSolveThunkProto", "temp_buffer", W},
    {"xla.gpu.NormThunkProto", "x", R},
    {"xla.gpu.NormThunkProto", "scale", R},
    {"xla.gpu.NormThunkProto", "bias", R},
    {"xla.gpu.NormThunkProto", "dy", R},
    {"xla.gpu.NormThunkProto", "y_or_dx", W},
    {"xla.gpu.NormThunkProto", "expectation", W},
    {"xla.gpu.NormThunkProto", "norm_factor", W},
    {"xla.gpu.NormThunkProto", "dscale", W},
    {"xla.gpu.NormThunkProto", "dbias", W},
    {"xla.gpu.NormThunkProto", "scratch", W},
    {"xla.gpu.HostExecuteStartThunkProto", "args", R},
    {"xla.gpu.HostExecuteStartThunkProto", "results", W},
    {"xla.gpu.HostSendThunkProto", "buffer", R},
    {"xla.gpu.HostRecvThunkProto", "buffer", W},
    {"xla.gpu.InfeedThunkProto", "dest_slices", W},
    {"xla.gpu.OutfeedThunkProto", "source_slices", R},
    {"xla.gpu.DynamicSliceFusionThunkProto", "parameter_buffers", R},
    {"xla.gpu.DynamicSliceFusionThunkProto", "result_buffers", W},
};

static ThunkyAccess rowAccess(const ProtobufCMessageDescriptor *desc,
                              const ProtobufCFieldDescriptor *f, ThunkyAccess inherited) {
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (strcmp(rows[i].field, f->name) == 0 && strcmp(rows[i].message, desc->name) == 0)
      return rows[i].access;
  return inherited;
}

/* A kernel's `written` flags say which arguments it may write (and maybe
 * read); the others it only reads. Without one flag per argument, all may. */
static ThunkyAccess kernelArgAccess(size_t nFlags, const protobuf_c_boolean *written,
                                    size_t nArgs, size_t i) {
  if (nFlags != nArgs)
    return RW;
  return written[i] ? RW : R;
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

/* Fields whose slices index another allocation table, or hold thunks. */
static bool skipped(const ProtobufCMessageDescriptor *desc, const ProtobufCFieldDescriptor *f,
                    bool nested) {
  if (f->descriptor == &xla__buffer_allocation_proto__descriptor)
    return true;
  if ((desc == &xla__gpu__dynamic_slice_fusion_thunk_proto__descriptor &&
       strcmp(f->name, "embedded_thunks") == 0) ||
      (desc == &xla__gpu__host_execute_start_thunk_proto__descriptor &&
       strcmp(f->name, "executable_proto") == 0))
    return true;
  return !nested && (f->descriptor == &xla__gpu__thunk_proto__descriptor ||
                     f->descriptor == &xla__gpu__thunk_sequence_proto__descriptor);
}

static bool walk(ProtobufCMessage *msg, bool nested, ThunkyAccess access,
                 ThunkySliceVisitor visit, void *userData) {
  const ProtobufCMessageDescriptor *desc = msg->descriptor;
  if (desc == &xla__buffer_assignment__buffer_allocation_slice_proto__descriptor)
    return visit((ThunkySlice *)msg, access, userData);
  for (unsigned i = 0; i < desc->n_fields; ++i) {
    const ProtobufCFieldDescriptor *f = &desc->fields[i];
    if (f->type != PROTOBUF_C_TYPE_MESSAGE || !isSet(msg, f) || skipped(desc, f, nested))
      continue;
    ThunkyAccess fieldAccess = rowAccess(desc, f, access);
    if (desc == &xla__gpu__gemm_thunk_proto__descriptor &&
        strcmp(f->name, "output_buffer") == 0) {
      const Xla__Gpu__GemmThunkProto *g = (const Xla__Gpu__GemmThunkProto *)msg;
      if (g->gemm_config && g->gemm_config->beta != 0)
        fieldAccess = RW;
    }
    void *slot = (char *)msg + f->offset;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *(size_t *)((char *)msg + f->quantifier_offset);
      ProtobufCMessage **items = *(ProtobufCMessage ***)slot;
      for (size_t k = 0; k < n; ++k) {
        ThunkyAccess a = fieldAccess;
        if (desc == &xla__gpu__kernel_thunk_proto__descriptor && strcmp(f->name, "args") == 0) {
          const Xla__Gpu__KernelThunkProto *kt = (const Xla__Gpu__KernelThunkProto *)msg;
          a = kernelArgAccess(kt->n_written, kt->written, n, k);
        } else if (desc == &xla__gpu__custom_kernel_thunk_proto__descriptor &&
                   strcmp(f->name, "args") == 0) {
          const Xla__Gpu__CustomKernelThunkProto *kt =
              (const Xla__Gpu__CustomKernelThunkProto *)msg;
          a = kernelArgAccess(kt->n_written, kt->written, n, k);
        }
        if (items[k] && !walk(items[k], nested, a, visit, userData))
          return false;
      }
    } else if (!walk(*(ProtobufCMessage **)slot, nested, fieldAccess, visit, userData)) {
      return false;
    }
  }
  return true;
}

bool thunkyForEachSlice(ProtobufCMessage *msg, bool nested, ThunkySliceVisitor visit,
                        void *userData) {
  return walk(msg, nested, RW, visit, userData);
}
