/*===- export_kernels.c - launches, GEMMs and device ids back to thunks -===*
 *
 * The inverse of import_kernels.c: the residual import kept is put back
 * first, and the op's fields are written over it.
 *
 *===--------------------------------------------------------------------===*/
#include "export.h"

#include "proto_attr.h"
#include "shape_type.h"

#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"

#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <string.h>

static char *arenaString(Exporter *ex, MlirAttribute s) {
  MlirStringRef v = mlirStringAttrGetValue(s);
  return thunkyArenaString(ex->arena, v.data, v.length);
}

/* Gives a repeated field of pointers one entry per operand: the entries
 * import kept (their element types, shapes) or fresh ones. */
static bool argumentList(Exporter *ex, MlirOperation op, size_t *count, void ***items) {
  size_t n = (size_t)mlirOperationGetNumOperands(op);
  if (*count != 0 && *count != n)
    return opError(op, THUNKY_ATTR_THUNK " describes a different number of arguments");
  if (*count == 0 && !(*items = thunkyArenaAlloc(ex->arena, (n + 1) * sizeof **items)))
    return opError(op, "out of memory");
  *count = n;
  return true;
}

static bool exportSlices(Exporter *ex, MlirOperation op, size_t *count, ThunkySlice ***items) {
  if (!argumentList(ex, op, count, (void ***)items))
    return false;
  for (size_t i = 0; i < *count; ++i)
    if (!thunkyExportSetSlice(ex, op, mlirOperationGetOperand(op, (intptr_t)i), &(*items)[i]))
      return false;
  return true;
}

static bool exportShapedSlices(Exporter *ex, MlirOperation op, size_t *count,
                               Xla__ShapedSliceProto ***items) {
  if (!argumentList(ex, op, count, (void ***)items))
    return false;
  for (size_t i = 0; i < *count; ++i)
    if (!thunkyExportSetShapedSlice(ex, op, mlirOperationGetOperand(op, (intptr_t)i),
                                    &(*items)[i]))
      return false;
  return true;
}

/* A BlockDimProto, ThreadDimProto or ClusterDimProto into `out`: each is
 * just a Dim3DProto at its own field number. */
#define DIMS(ex, desc, value, out)                                                         \
  (((out) = thunkyExportNewMessage((ex), &(desc))) &&                                      \
   ((out)->coordinates = thunkyExportDim3((ex), (value))))

/* The cubin or PTX of a custom kernel, from its thunky.kernel_binary. */
static bool exportBinary(Exporter *ex, MlirOperation op, StreamExecutor__KernelLoaderSpecProto *spec) {
  MlirAttribute symbol = inherent(op, "binary");
  MlirOperation binary = mlirSymbolTableLookup(ex->symbols, mlirFlatSymbolRefAttrGetValue(symbol));
  if (mlirOperationIsNull(binary) || thunkyOpGetKind(binary) != THUNKY_OP_KERNEL_BINARY)
    return opError(op, "its binary is no thunky.kernel_binary of the module");
  MlirAttribute cubin = inherent(binary, "cubin");
  MlirAttribute code = mlirAttributeIsNull(cubin) ? inherent(binary, "ptx") : cubin;
  MlirStringRef bytes;
  if (!thunkyAttributeGetBytes(code, &bytes))
    return opError(op, "its binary is neither a string nor a byte resource with its data");
  if (!mlirAttributeIsNull(cubin)) {
    spec->payload_case = STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN;
    if (!(spec->cubin = thunkyExportNewMessage(ex, &stream_executor__cuda_cubin_proto__descriptor)))
      return opError(op, "out of memory");
    /* The attribute outlives the export: no copy. */
    spec->cubin->data = (ProtobufCBinaryData){bytes.length, (uint8_t *)(uintptr_t)bytes.data};
    spec->cubin->has_data = bytes.length != 0;
    return true;
  }
  spec->payload_case = STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX;
  if (!(spec->ptx = thunkyExportNewMessage(ex, &stream_executor__cuda_ptx_proto__descriptor)))
    return opError(op, "out of memory");
  spec->ptx->has_data = 1;
  spec->ptx->data = (ProtobufCBinaryData){bytes.length, (uint8_t *)(uintptr_t)bytes.data};
  return true;
}

static ProtobufCBinaryData codeOf(const StreamExecutor__KernelLoaderSpecProto *spec) {
  if (spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN && spec->cubin)
    return spec->cubin->data;
  if (spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX && spec->ptx)
    return spec->ptx->data;
  return (ProtobufCBinaryData){0, NULL};
}

/* Whether `spec`, what the launch `op` says, is entry `index` of the
 * executable's kernel_specs: the same kind of code, bytes, name and arity.
 * An edit of one launch's code cannot go into a table its others share. */
static bool sameAsTableEntry(Exporter *ex, MlirOperation op, int32_t index,
                             const StreamExecutor__KernelLoaderSpecProto *spec) {
  if (index < 0 || (size_t)index >= ex->exe->n_kernel_specs)
    return thunkyEmitOpError(op, "its kernel_spec_index %d is past the executable's %zu kernel "
                                 "specs (thunky.executable's kernel_specs)",
                             index, ex->exe->n_kernel_specs),
           false;
  const StreamExecutor__KernelLoaderSpecProto *entry = ex->exe->kernel_specs[index];
  ProtobufCBinaryData a = codeOf(spec), b = codeOf(entry);
  bool same = entry->payload_case == spec->payload_case && a.len == b.len &&
              (a.len == 0 || memcmp(a.data, b.data, a.len) == 0) && entry->kernel_name &&
              strcmp(entry->kernel_name, spec->kernel_name) == 0 && entry->arity == spec->arity;
  if (!same)
    thunkyEmitOpError(op, "its name, arity or binary differs from kernel_specs[%d] of the "
                          "executable, which its kernel_spec_index names; edit the table "
                          "(thunky.executable's kernel_specs) or drop the index",
                      index);
  return same;
}

/*--- the args' shapes ----------------------------------------------------*/

#define ARG_SHAPES_FORM                                                          \
  THUNKY_ATTR_ARG_SHAPES " must be an array of one static tensor type per operand, " \
                         "with an encoding of at most {minor_to_major = array<i64: ...>, " \
                         "is_dynamic_dimension = array<i1: ...>, untyped_slice}"

/* Arg `i`'s shape and its slice's element type from entry `i` of
 * THUNKY_ATTR_ARG_SHAPES (`shapes`). */
static bool exportArgShape(Exporter *ex, MlirOperation op, MlirAttribute shapes, size_t i,
                           ThunkySlice *slice, Xla__ShapeProto **slot) {
  if (*slot || slice->has_element_type) {
    thunkyEmitOpError(op, THUNKY_ATTR_ARG_SHAPES " and " THUNKY_ATTR_THUNK
                          " both give the shape of arg %zu", i);
    return false;
  }
  MlirAttribute a = mlirArrayAttrGetElement(shapes, (intptr_t)i);
  MlirType type = mlirAttributeIsAType(a) ? mlirTypeAttrGetValue(a) : (MlirType){NULL};
  if (mlirTypeIsNull(type) || !mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type)) {
    thunkyEmitOpError(op, "arg %zu: " ARG_SHAPES_FORM, i);
    return false;
  }
  if (!thunkyElementTypeFromMlir(mlirShapedTypeGetElementType(type)))
    return opError(op, "a shape's element type has no XLA equivalent");
  bool untyped;
  if (!(*slot = thunkyShapeFromType(ex->arena, type, &untyped))) {
    thunkyEmitOpError(op, "arg %zu: " ARG_SHAPES_FORM
                          " (minor_to_major a permutation of the dimensions, one flag per dimension)", i);
    return false;
  }
  slice->has_element_type = !untyped;
  slice->element_type = untyped ? 0 : (*slot)->element_type;
  return true;
}

/* The op's THUNKY_ATTR_ARG_SHAPES when it has one for each operand; null
 * when it has none, and false when it is malformed. */
static bool argShapes(MlirOperation op, MlirAttribute *out) {
  *out = discardable(op, THUNKY_ATTR_ARG_SHAPES);
  if (mlirAttributeIsNull(*out) ||
      (mlirAttributeIsAArray(*out) &&
       mlirArrayAttrGetNumElements(*out) == mlirOperationGetNumOperands(op)))
    return true;
  return opError(op, ARG_SHAPES_FORM);
}

Thunk *thunkyExportLaunch(Exporter *ex, MlirOperation op) {
  bool custom = !mlirAttributeIsNull(inherent(op, "binary"));
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, custom ? "custom_kernel_thunk" : "kernel_thunk", &impl);
  if (!t)
    return NULL;
  size_t n = (size_t)mlirOperationGetNumOperands(op);
  MlirAttribute writtenAttr = inherent(op, "written");
  protobuf_c_boolean *written = thunkyArenaAlloc(ex->arena, (n + 1) * sizeof *written);
  char *name = arenaString(ex, inherent(op, "kernel_name"));
  if (!written || !name) {
    opError(op, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < n; ++i)
    written[i] = mlirDenseBoolArrayGetElement(writtenAttr, (intptr_t)i);
  MlirAttribute grid = inherent(op, "grid"), block = inherent(op, "block");
  MlirAttribute cluster = inherent(op, "cluster");
  int64_t shmem = mlirIntegerAttrGetValueInt(inherent(op, "shmem_bytes"));
  bool ok;
  if (!custom) {
    Xla__Gpu__KernelThunkProto *k = (void *)impl;
    MlirAttribute shapes;
    if (!exportSlices(ex, op, &k->n_args, &k->args) || !argShapes(op, &shapes))
      return NULL;
    if (!mlirAttributeIsNull(shapes) && n) {
      if (k->n_args_shape) {
        thunkyEmitOpError(op, THUNKY_ATTR_ARG_SHAPES " and " THUNKY_ATTR_THUNK
                              " both give the args' shapes");
        return NULL;
      }
      if (!(k->args_shape = thunkyArenaAlloc(ex->arena, n * sizeof *k->args_shape))) {
        opError(op, "out of memory");
        return NULL;
      }
      memset(k->args_shape, 0, n * sizeof *k->args_shape);
      k->n_args_shape = n;
    }
    for (size_t i = 0; !mlirAttributeIsNull(shapes) && i < n; ++i)
      if (!exportArgShape(ex, op, shapes, i, k->args[i], &k->args_shape[i]))
        return NULL;
    k->written = written, k->n_written = n;
    k->kernel_name = name;
    k->shmem_bytes = shmem, k->has_shmem_bytes = shmem != 0;
    Xla__Gpu__LaunchDimensionsProto *l = k->launch_dimensions =
        thunkyExportNewMessage(ex, &xla__gpu__launch_dimensions_proto__descriptor);
    ok = l && DIMS(ex, stream_executor__block_dim_proto__descriptor,
                   grid, l->block_counts) &&
         DIMS(ex, stream_executor__thread_dim_proto__descriptor,
              block, l->thread_counts_per_block) &&
         (mlirAttributeIsNull(cluster) ||
          DIMS(ex, stream_executor__cluster_dim_proto__descriptor, cluster, k->cluster_dim));
    if (!ok) {
      opError(op, "out of memory");
      return NULL;
    }
    return t;
  }
  Xla__Gpu__CustomKernelThunkProto *ck = (void *)impl;
  MlirAttribute shapes;
  if (!exportShapedSlices(ex, op, &ck->n_args, &ck->args) || !argShapes(op, &shapes))
    return NULL;
  for (size_t i = 0; !mlirAttributeIsNull(shapes) && i < n; ++i)
    if (!exportArgShape(ex, op, shapes, i, ck->args[i]->slice, &ck->args[i]->shape))
      return NULL;
  ck->written = written, ck->n_written = n;
  Xla__Gpu__CustomKernelProto *c = ck->custom_kernel;
  if (!c && !(c = ck->custom_kernel =
                  thunkyExportNewMessage(ex, &xla__gpu__custom_kernel_proto__descriptor))) {
    opError(op, "out of memory");
    return NULL;
  }
  c->name = name;
  c->shared_memory_bytes = shmem, c->has_shared_memory_bytes = shmem != 0;
  /* A launch whose residual names an entry of the executable's table of
   * kernel specs writes the index; its code must still be that entry's. */
  bool indexed = c->has_kernel_spec_index;
  StreamExecutor__KernelLoaderSpecProto *spec = indexed ? NULL : c->kernel_spec;
  ok = (spec || (spec = thunkyExportNewMessage(
                     ex, &stream_executor__kernel_loader_spec_proto__descriptor))) &&
       DIMS(ex, stream_executor__block_dim_proto__descriptor, grid,
            c->block_dims) &&
       DIMS(ex, stream_executor__thread_dim_proto__descriptor,
            block, c->thread_dims) &&
       (mlirAttributeIsNull(cluster) ||
        DIMS(ex, stream_executor__cluster_dim_proto__descriptor,
             cluster, c->cluster_dim));
  if (!ok) {
    opError(op, "out of memory");
    return NULL;
  }
  spec->kernel_name = name;
  spec->arity = (int32_t)n, spec->has_arity = n != 0;
  if (!exportBinary(ex, op, spec))
    return NULL;
  if (!indexed) {
    c->kernel_spec = spec;
    return t;
  }
  return sameAsTableEntry(ex, op, c->kernel_spec_index, spec) ? t : NULL;
}

/* The thunk of a gemm or cublaslt_matmul, its impl message in *impl and the
 * op's `config` as a GemmConfigProto in *config; NULL on failure. */
static Thunk *startMatmul(Exporter *ex, MlirOperation op, const char *implField, void **impl,
                          Xla__GemmConfigProto **config) {
  Thunk *t = thunkyExportStartThunk(ex, op, implField, (ProtobufCMessage **)impl);
  if (!t || !(*config = (Xla__GemmConfigProto *)thunkyAttrToProto(
                  inherent(op, "config"), &xla__gemm_config_proto__descriptor, ex->arena,
                  mlirOperationGetLocation(op), "config")))
    return NULL;
  return t;
}

Thunk *thunkyExportGemm(Exporter *ex, MlirOperation op) {
  Xla__Gpu__GemmThunkProto *g;
  Xla__GemmConfigProto *config;
  Thunk *t = startMatmul(ex, op, "gemm_thunk", (void **)&g, &config);
  if (!t)
    return NULL;
  g->gemm_config = config;
  ThunkySlice **slots[4] = {&g->lhs_buffer, &g->rhs_buffer, &g->output_buffer, &g->workspace};
  intptr_t n = mlirOperationGetNumOperands(op);
  for (intptr_t i = 0; i < 4; ++i)
    if (i >= n)
      *slots[i] = NULL;
    else if (!thunkyExportSetSlice(ex, op, mlirOperationGetOperand(op, i), slots[i]))
      return NULL;
  MlirAttribute deterministic = inherent(op, "deterministic");
  g->has_deterministic = !mlirAttributeIsNull(deterministic);
  g->deterministic = g->has_deterministic && mlirBoolAttrGetValue(deterministic);
  return t;
}

static void optionalInt(MlirOperation op, const char *name, protobuf_c_boolean *has,
                        int64_t *value) {
  MlirAttribute a = inherent(op, name);
  *has = !mlirAttributeIsNull(a);
  *value = *has ? mlirIntegerAttrGetValueInt(a) : 0;
}

Thunk *thunkyExportCublasLtMatmul(Exporter *ex, MlirOperation op) {
  Xla__Gpu__CublasLtMatmulThunkProto *m;
  Xla__GemmConfigProto *config;
  Thunk *t = startMatmul(ex, op, "cublas_lt_matmul_thunk", (void **)&m, &config);
  if (!t)
    return NULL;
  m->gemm_config = config;
  m->impl_case = XLA__GPU__CUBLAS_LT_MATMUL_THUNK_PROTO__IMPL_GEMM_CONFIG;
  Xla__ShapedSliceProto **groups[12] = {&m->a,       &m->b,       &m->c,       &m->d,
                                        &m->bias,    &m->aux,     &m->a_scale, &m->b_scale,
                                        &m->c_scale, &m->d_scale, &m->d_amax,  &m->workspace};
  MlirAttribute sizes = inherent(op, "operandSegmentSizes");
  intptr_t next = 0;
  for (intptr_t g = 0; g < 12; ++g) {
    if (mlirDenseI32ArrayGetElement(sizes, g) == 0)
      *groups[g] = NULL;
    else if (!thunkyExportSetShapedSlice(ex, op, mlirOperationGetOperand(op, next++), groups[g]))
      return NULL;
  }
  MlirAttribute epilogue = inherent(op, "epilogue");
  m->has_epilogue = !mlirAttributeIsNull(epilogue);
  if (m->has_epilogue) {
    MlirStringRef e = mlirStringAttrGetValue(epilogue);
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)e.length, e.data);
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value_by_name(
        &xla__blas_lt_epilogue_proto__descriptor, name);
    if (!v) {
      opError(op, "epilogue is not an XLA BlasLtEpilogueProto name");
      return NULL;
    }
    m->epilogue = v->value;
  }
  optionalInt(op, "algorithm_idx", &m->has_algorithm_idx, &m->algorithm_idx);
  optionalInt(op, "autotune_workspace_size", &m->has_autotune_workspace_size,
              &m->autotune_workspace_size);
  return t;
}

Thunk *thunkyExportDeviceId(Exporter *ex, MlirOperation op, bool replica) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, replica ? "replica_id_thunk" : "partition_id_thunk",
                                    &impl);
  if (!t)
    return NULL;
  ThunkySlice **slot = replica ? &((Xla__Gpu__ReplicaIdThunkProto *)impl)->dest_buffer
                               : &((Xla__Gpu__PartitionIdThunkProto *)impl)->dest_buffer;
  return thunkyExportSetSlice(ex, op, mlirOperationGetOperand(op, 0), slot) ? t : NULL;
}
