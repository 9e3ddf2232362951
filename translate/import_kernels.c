/*===- import_kernels.c - kernel launches, GEMMs and device ids ---------===*
 *
 * The kinds most of a real executable's thunks are: kernel_thunk and
 * custom_kernel_thunk become thunky.launch, gemm_thunk thunky.gemm,
 * cublas_lt_matmul_thunk thunky.cublaslt_matmul, replica_id_thunk and
 * partition_id_thunk their ops. A thunk becomes its op only when export
 * writes it back byte for byte from the op and its residual: fields the op
 * models must be in the canonical form XLA writes (proto3: a zero is never on
 * the wire, launch dimensions are positive), else it stays call_thunk_proto.
 *
 *===--------------------------------------------------------------------===*/
#include "import.h"

#include "proto_attr.h"
#include "shape_type.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- what fits -----------------------------------------------------------*/

/* XLA writes every dimension, each at least 1. */
static bool dim3Fits(const ProtobufCMessage *wrapper, const StreamExecutor__Dim3DProto *d) {
  return wrapper && wrapper->n_unknown_fields == 0 && d && d->base.n_unknown_fields == 0 &&
         d->has_x && d->has_y && d->has_z && d->x > 0 && d->y > 0 && d->z > 0;
}

static bool blockDimsFit(const StreamExecutor__BlockDimProto *b) {
  return b && dim3Fits(&b->base, b->coordinates);
}

static bool threadDimsFit(const StreamExecutor__ThreadDimProto *t) {
  return t && dim3Fits(&t->base, t->coordinates);
}

static bool clusterFits(const StreamExecutor__ClusterDimProto *c) {
  return !c || dim3Fits(&c->base, c->coordinates);
}

/* proto3's presence: an int64 is on the wire exactly when it is nonzero. */
static bool canonical(protobuf_c_boolean has, int64_t v) { return has == (v != 0); }

static bool nonEmpty(const char *s) { return s && *s; }

bool thunkyImportKernelFits(const ThunkyExecutable *model, const Thunk *t) {
  if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_KERNEL_THUNK) {
    const Xla__Gpu__KernelThunkProto *k = t->kernel_thunk;
    const Xla__Gpu__LaunchDimensionsProto *l = k->launch_dimensions;
    for (size_t i = 0; i < k->n_args; ++i)
      if (!k->args[i])
        return false;
    return nonEmpty(k->kernel_name) && k->n_written == k->n_args && l &&
           l->base.n_unknown_fields == 0 && blockDimsFit(l->block_counts) &&
           threadDimsFit(l->thread_counts_per_block) && clusterFits(k->cluster_dim) &&
           canonical(k->has_shmem_bytes, k->shmem_bytes) && k->shmem_bytes >= 0;
  }
  const Xla__Gpu__CustomKernelThunkProto *k = t->custom_kernel_thunk;
  const Xla__Gpu__CustomKernelProto *c = k->custom_kernel;
  const StreamExecutor__KernelLoaderSpecProto *spec = thunkyCustomKernelSpec(model, c);
  for (size_t i = 0; i < k->n_args; ++i)
    if (!k->args[i] || !k->args[i]->slice)
      return false;
  bool code =
      spec &&
      ((spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN &&
        spec->cubin->base.n_unknown_fields == 0 &&
        spec->cubin->has_data == (spec->cubin->data.len != 0)) ||
       (spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX &&
        spec->ptx->base.n_unknown_fields == 0 && spec->ptx->has_data));
  return c && c->base.n_unknown_fields == 0 && nonEmpty(c->name) && k->n_written == k->n_args &&
         blockDimsFit(c->block_dims) && threadDimsFit(c->thread_dims) &&
         clusterFits(c->cluster_dim) &&
         canonical(c->has_shared_memory_bytes, c->shared_memory_bytes) &&
         c->shared_memory_bytes >= 0 && code && spec->kernel_name &&
         strcmp(spec->kernel_name, c->name) == 0 &&
         canonical(spec->has_arity, spec->arity) && spec->arity == (int32_t)k->n_args;
}

/* The layouts the dialect's verifier asks for, with sizes it accepts. */
static bool layoutFits(const Xla__GemmConfigProto__MatrixLayout *l, bool required) {
  if (!l)
    return !required;
  return l->num_rows >= 0 && l->num_cols >= 0 && l->batch_size >= 0;
}

static bool configFits(const Xla__GemmConfigProto *c) {
  return c && layoutFits(c->lhs_layout, true) && layoutFits(c->rhs_layout, true) &&
         layoutFits(c->output_layout, true) && layoutFits(c->c_layout, false);
}

static bool shapedFits(const Xla__ShapedSliceProto *s, bool required) {
  return s ? s->slice != NULL : !required;
}

/* The name of BlasLtEpilogueProto value `e`, NULL when the schema has none. */
static const char *epilogueName(int e) {
  const ProtobufCEnumValue *v =
      protobuf_c_enum_descriptor_get_value(&xla__blas_lt_epilogue_proto__descriptor, e);
  return v ? v->name : NULL;
}

bool thunkyImportMatmulFits(const Thunk *t) {
  if (t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_GEMM_THUNK) {
    const Xla__Gpu__GemmThunkProto *g = t->gemm_thunk;
    return configFits(g->gemm_config) && g->lhs_buffer && g->rhs_buffer && g->output_buffer;
  }
  const Xla__Gpu__CublasLtMatmulThunkProto *m = t->cublas_lt_matmul_thunk;
  if (m->impl_case != XLA__GPU__CUBLAS_LT_MATMUL_THUNK_PROTO__IMPL_GEMM_CONFIG ||
      !configFits(m->gemm_config) || m->group_sizes)
    return false;
  const Xla__ShapedSliceProto *optional[] = {m->bias,    m->aux,     m->a_scale, m->b_scale,
                                             m->c_scale, m->d_scale, m->d_amax,  m->workspace};
  for (size_t i = 0; i < sizeof optional / sizeof *optional; ++i)
    if (!shapedFits(optional[i], false))
      return false;
  if (!shapedFits(m->a, true) || !shapedFits(m->b, true) || !shapedFits(m->c, true) ||
      !shapedFits(m->d, true))
    return false;
  if (!m->has_epilogue)
    return true;
  const char *e = epilogueName(m->epilogue);
  if (!e)
    return false;
  bool wantsBias, wantsAux;
  thunkyEpilogueOperands(str(e), &wantsBias, &wantsAux);
  return (!wantsBias || m->bias) && (!wantsAux || m->aux);
}

/*--- kernel binaries -----------------------------------------------------*/

/* The symbol of the thunky.kernel_binary holding `code` (a cubin, else
 * PTX): the kernel's name, or name_N when another binary has the name.
 * Each distinct binary is entered once. Null when out of memory. */
static MlirAttribute binarySymbol(Importer *im, const char *name, MlirAttribute code,
                                  bool cubin) {
  KernelBinaries *b = &im->binaries;
  /* Attributes are aligned: the low bit is free for the kind. */
  uint64_t key = (uint64_t)(uintptr_t)code.ptr | (cubin ? 1 : 0);
  uint32_t at;
  if (thunkyHashMapGet(&b->entryOf, key, &at))
    return mlirFlatSymbolRefAttrGet(im->ctx, mlirStringAttrGetValue(b->items[at].name));
  if (!thunkyArrayGrow((void **)&b->items, &b->capacity, b->count, sizeof *b->items))
    return mlirAttributeGetNull();
  MlirAttribute symbol = thunkyUniqueName(im->ctx, &b->names, str(name));
  if (mlirAttributeIsNull(symbol) || !thunkyHashMapPut(&b->entryOf, key, (uint32_t)b->count))
    return mlirAttributeGetNull();
  b->items[b->count++] = (KernelBinary){symbol, code, cubin};
  return mlirFlatSymbolRefAttrGet(im->ctx, mlirStringAttrGetValue(symbol));
}

void thunkyImportFinishKernelBinaries(Importer *im, MlirOperation module) {
  KernelBinaries *b = &im->binaries;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirOperation first = mlirBlockGetFirstOperation(body);
  MlirStringRef symName = str("sym_name"), cubin = str("cubin"), ptx = str("ptx");
  for (size_t i = 0; i < b->count; ++i) {
    MlirOperationState state =
        mlirOperationStateGet(str("thunky.kernel_binary"), mlirOperationGetLocation(module));
    MlirOperation op = mlirOperationCreate(&state);
    mlirOperationSetInherentAttributeByName(op, symName, b->items[i].name);
    mlirOperationSetInherentAttributeByName(op, b->items[i].cubin ? cubin : ptx,
                                            b->items[i].code);
    mlirBlockInsertOwnedOperationBefore(body, first, op);
  }
}

void thunkyImportFreeKernelBinaries(Importer *im) {
  KernelBinaries *b = &im->binaries;
  free(b->items);
  thunkyHashMapDestroy(&b->entryOf);
  thunkyUniqueNamesDestroy(&b->names);
  *b = (KernelBinaries){0};
}

/*--- kernels -------------------------------------------------------------*/

static MlirAttribute dim3Attr(Importer *im, const StreamExecutor__Dim3DProto *d) {
  int64_t v[3] = {d->x, d->y, d->z};
  return mlirDenseI64ArrayGet(im->ctx, 3, v);
}

/* Clears what export writes back from every slice of a list, and the list
 * itself when nothing else (element types) is left in it. */
static void consumeSlices(ProtobufCMessage *owner, const char *field, size_t n,
                          ThunkySlice **slices) {
  bool left = false;
  for (size_t i = 0; i < n; ++i) {
    ThunkySlice *s = slices[i];
    s->has_offset = s->has_size = s->has_buffer_allocation_index = 0;
    left |= !thunkyProtoIsEmpty(&s->base);
  }
  if (!left)
    thunkyProtoClearField(owner, field);
}

static void consumeShapedSlices(ProtobufCMessage *owner, const char *field, size_t n,
                                Xla__ShapedSliceProto **args) {
  bool left = false;
  for (size_t i = 0; i < n; ++i) {
    ThunkySlice *s = args[i]->slice;
    s->has_offset = s->has_size = s->has_buffer_allocation_index = 0;
    if (thunkyProtoIsEmpty(&s->base))
      args[i]->slice = NULL;
    left |= !thunkyProtoIsEmpty(&args[i]->base);
  }
  if (!left)
    thunkyProtoClearField(owner, field);
}

/*--- the args' shapes ----------------------------------------------------*/

/* The tensor type of arg shape `s` whose slice has element type `sliceType`
 * (0: none), when THUNKY_ATTR_ARG_SHAPES gives both back (shape_type.h; a
 * typed slice is typed as its shape); else null. */
static MlirType compactShape(Importer *im, const Xla__ShapeProto *s, int32_t sliceType) {
  if (!s || (sliceType && sliceType != (int32_t)s->element_type))
    return (MlirType){NULL};
  return thunkyShapeToType(im->ctx, im->elementTypes, s, sliceType == 0);
}

/* The args' shapes and their slices' element types as THUNKY_ATTR_ARG_SHAPES
 * on `op`, taken out of the thunk; nothing taken when one of them does not
 * fit it (it stays in the residual). `shapes[i]` is a pointer to arg i's
 * shape slot. */
static bool takeArgShapes(Importer *im, MlirOperation op, size_t n, ThunkySlice **slices,
                          Xla__ShapeProto ***shapes) {
  if (n == 0)
    return true;
  MlirAttribute *types = malloc(n * sizeof *types);
  if (!types)
    return thunkyImportError(im, "%s", "out of memory");
  for (size_t i = 0; i < n; ++i) {
    const ThunkySlice *s = slices[i];
    MlirType type = compactShape(im, *shapes[i], s->has_element_type ? s->element_type : 0);
    if (mlirTypeIsNull(type)) {
      free(types);
      return true;
    }
    types[i] = mlirTypeAttrGet(type);
  }
  mlirOperationSetDiscardableAttributeByName(op, str(THUNKY_ATTR_ARG_SHAPES),
                                             mlirArrayAttrGet(im->ctx, (intptr_t)n, types));
  free(types);
  for (size_t i = 0; i < n; ++i) {
    slices[i]->has_element_type = 0, slices[i]->element_type = 0;
    *shapes[i] = NULL;
  }
  return true;
}

/* takeArgShapes for either kind of launch. */
static bool takeLaunchShapes(Importer *im, MlirOperation op, Thunk *t) {
  bool custom = t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK;
  Xla__Gpu__KernelThunkProto *k = t->kernel_thunk;
  Xla__Gpu__CustomKernelThunkProto *ck = t->custom_kernel_thunk;
  size_t n = custom ? ck->n_args : k->n_args;
  if (n == 0 || (!custom && k->n_args_shape != n))
    return true;
  ThunkySlice **slices = malloc(n * sizeof *slices);
  Xla__ShapeProto ***shapes = malloc(n * sizeof *shapes);
  bool ok = slices && shapes;
  for (size_t i = 0; ok && i < n; ++i) {
    slices[i] = custom ? ck->args[i]->slice : k->args[i];
    shapes[i] = custom ? &ck->args[i]->shape : &k->args_shape[i];
  }
  ok = ok ? takeArgShapes(im, op, n, slices, shapes)
          : thunkyImportError(im, "%s", "out of memory");
  if (ok && !custom && !k->args_shape[0])
    thunkyProtoClearField(&k->base, "args_shape");
  free(slices), free(shapes);
  return ok;
}

/* What is left of a launch's thunk once the op took its fields and
 * THUNKY_ATTR_ARG_SHAPES the args' shapes (thunk_info, TMA metadata, the
 * zeroed outputs, anything the compact form cannot hold) stays as a
 * dictionary. */
bool thunkyImportKernel(Importer *im, Thunk *t) {
  bool custom = t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK;
  Xla__Gpu__KernelThunkProto *k = custom ? NULL : t->kernel_thunk;
  Xla__Gpu__CustomKernelThunkProto *ck = custom ? t->custom_kernel_thunk : NULL;
  Xla__Gpu__CustomKernelProto *c = custom ? ck->custom_kernel : NULL;
  size_t n = custom ? ck->n_args : k->n_args;
  const protobuf_c_boolean *writtenFlags = custom ? ck->written : k->written;
  MlirValue *operands = malloc((n + 1) * sizeof *operands);
  int *written = malloc((n + 1) * sizeof *written);
  if (!operands || !written) {
    free(operands), free(written);
    return thunkyImportError(im, "%s", "out of memory");
  }
  bool ok = true;
  for (size_t i = 0; ok && i < n; ++i) {
    ok = thunkyImportSliceValue(im, custom ? ck->args[i]->slice : k->args[i], &operands[i]);
    written[i] = writtenFlags[i] != 0;
  }
  const char *name = custom ? c->name : k->kernel_name;
  const StreamExecutor__Dim3DProto *grid =
      custom ? c->block_dims->coordinates : k->launch_dimensions->block_counts->coordinates;
  const StreamExecutor__Dim3DProto *block =
      custom ? c->thread_dims->coordinates
             : k->launch_dimensions->thread_counts_per_block->coordinates;
  const StreamExecutor__ClusterDimProto *cluster = custom ? c->cluster_dim : k->cluster_dim;
  int64_t shmem = custom ? c->shared_memory_bytes : k->shmem_bytes;
  MlirNamedAttribute attrs[7];
  intptr_t na = 0;
  attrs[na++] = named(im, "kernel_name", mlirStringAttrGet(im->ctx, str(name)));
  attrs[na++] = named(im, "grid", dim3Attr(im, grid));
  attrs[na++] = named(im, "block", dim3Attr(im, block));
  attrs[na++] = named(im, "written", mlirDenseBoolArrayGet(im->ctx, (intptr_t)n, written));
  if (cluster)
    attrs[na++] = named(im, "cluster", dim3Attr(im, cluster->coordinates));
  if (shmem)
    attrs[na++] = named(im, "shmem_bytes", i64Attr(im, shmem));
  if (ok && custom) {
    const StreamExecutor__KernelLoaderSpecProto *spec = thunkyCustomKernelSpec(im->model, c);
    bool cubin = spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN;
    MlirAttribute code =
        cubin ? bytesAttr(im, name, spec->cubin->data.data, spec->cubin->data.len)
              : bytesAttr(im, name, spec->ptx->data.data, spec->ptx->data.len);
    MlirAttribute symbol =
        mlirAttributeIsNull(code) ? code : binarySymbol(im, name, code, cubin);
    ok = !mlirAttributeIsNull(symbol) || thunkyImportError(im, "%s", "out of memory");
    if (ok)
      attrs[na++] = named(im, "binary", symbol);
  }
  MlirOperation op = {NULL};
  if (ok)
    op = thunkyImportEmit(im, "thunky.launch", (intptr_t)n, operands, 0, NULL, na, attrs, 0);
  free(operands), free(written);
  if (!ok)
    return false;
  if (!takeLaunchShapes(im, op, t))
    return false;
  if (custom) {
    consumeShapedSlices(&ck->base, "args", n, ck->args);
    thunkyProtoClearField(&ck->base, "written");
    /* Code from the executable's table stays there, shared; the index
     * stays in the residual, so that export writes it again. */
    StreamExecutor__KernelLoaderSpecProto *spec = c->kernel_spec;
    if (spec) {
      spec->payload_case = STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD__NOT_SET;
      spec->cubin = NULL;
      thunkyProtoClearField(&spec->base, "kernel_name");
      thunkyProtoClearField(&spec->base, "arity");
      if (thunkyProtoIsEmpty(&spec->base))
        c->kernel_spec = NULL;
    }
    static const char *const fields[] = {"name", "block_dims", "thread_dims", "cluster_dim",
                                         "shared_memory_bytes"};
    for (size_t f = 0; f < sizeof fields / sizeof *fields; ++f)
      thunkyProtoClearField(&c->base, fields[f]);
    if (thunkyProtoIsEmpty(&c->base))
      ck->custom_kernel = NULL;
    return thunkyImportAttachResidual(im, op, t, &ck->base, "custom_kernel_thunk");
  }
  consumeSlices(&k->base, "args", n, k->args);
  static const char *const fields[] = {"written", "kernel_name", "launch_dimensions",
                                       "cluster_dim", "shmem_bytes"};
  for (size_t f = 0; f < sizeof fields / sizeof *fields; ++f)
    thunkyProtoClearField(&k->base, fields[f]);
  return thunkyImportAttachResidual(im, op, t, &k->base, "kernel_thunk");
}

/*--- matrix multiplications ----------------------------------------------*/

/* The GemmConfigProto as the op's `config`, taken out of the thunk. */
static MlirAttribute takeConfig(Importer *im, ProtobufCMessage *owner,
                                Xla__GemmConfigProto *config) {
  MlirAttribute a = thunkyProtoToAttr(&im->protoCache, &config->base, NULL);
  thunkyProtoClearField(owner, "gemm_config");
  return a;
}

bool thunkyImportGemm(Importer *im, Thunk *t) {
  Xla__Gpu__GemmThunkProto *g = t->gemm_thunk;
  MlirValue operands[4];
  intptr_t n = g->workspace ? 4 : 3;
  ThunkySlice **slots[4] = {&g->lhs_buffer, &g->rhs_buffer, &g->output_buffer, &g->workspace};
  for (intptr_t i = 0; i < n; ++i)
    if (!thunkyImportSliceValue(im, *slots[i], &operands[i]))
      return false;
  MlirAttribute config = takeConfig(im, &g->base, g->gemm_config);
  if (mlirAttributeIsNull(config))
    return thunkyImportError(im, "%s", "out of memory");
  MlirNamedAttribute attrs[2] = {named(im, "config", config)};
  intptr_t na = 1;
  if (g->has_deterministic)
    attrs[na++] = named(im, "deterministic", mlirBoolAttrGet(im->ctx, g->deterministic));
  MlirOperation op = thunkyImportEmit(im, "thunky.gemm", n, operands, 0, NULL, na, attrs, 0);
  for (intptr_t i = 0; i < n; ++i)
    thunkyImportConsumeSlice(slots[i]);
  thunkyProtoClearField(&g->base, "deterministic");
  return thunkyImportAttachResidual(im, op, t, &g->base, "gemm_thunk");
}

bool thunkyImportCublasLtMatmul(Importer *im, Thunk *t) {
  Xla__Gpu__CublasLtMatmulThunkProto *m = t->cublas_lt_matmul_thunk;
  /* Operand groups in the op's order: a, b, c, d, then the optional ones. */
  Xla__ShapedSliceProto **groups[12] = {&m->a,       &m->b,       &m->c,       &m->d,
                                        &m->bias,    &m->aux,     &m->a_scale, &m->b_scale,
                                        &m->c_scale, &m->d_scale, &m->d_amax,  &m->workspace};
  MlirValue operands[12];
  int32_t sizes[12];
  intptr_t n = 0;
  for (size_t g = 0; g < 12; ++g) {
    sizes[g] = *groups[g] != NULL;
    if (sizes[g] && !thunkyImportSliceValue(im, (*groups[g])->slice, &operands[n++]))
      return false;
  }
  MlirAttribute config = takeConfig(im, &m->base, m->gemm_config);
  if (mlirAttributeIsNull(config))
    return thunkyImportError(im, "%s", "out of memory");
  m->impl_case = XLA__GPU__CUBLAS_LT_MATMUL_THUNK_PROTO__IMPL__NOT_SET;
  MlirNamedAttribute attrs[5] = {
      named(im, "config", config),
      named(im, "operandSegmentSizes", mlirDenseI32ArrayGet(im->ctx, 12, sizes)),
  };
  intptr_t na = 2;
  if (m->has_epilogue)
    attrs[na++] = named(im, "epilogue", mlirStringAttrGet(im->ctx, str(epilogueName(m->epilogue))));
  if (m->has_algorithm_idx)
    attrs[na++] = named(im, "algorithm_idx", i64Attr(im, m->algorithm_idx));
  if (m->has_autotune_workspace_size)
    attrs[na++] = named(im, "autotune_workspace_size", i64Attr(im, m->autotune_workspace_size));
  MlirOperation op =
      thunkyImportEmit(im, "thunky.cublaslt_matmul", n, operands, 0, NULL, na, attrs, 0);
  for (size_t g = 0; g < 12; ++g)
    if (*groups[g])
      thunkyImportConsumeShapedSlice(groups[g]);
  static const char *const fields[] = {"epilogue", "algorithm_idx", "autotune_workspace_size"};
  for (size_t f = 0; f < sizeof fields / sizeof *fields; ++f)
    thunkyProtoClearField(&m->base, fields[f]);
  return thunkyImportAttachResidual(im, op, t, &m->base, "cublas_lt_matmul_thunk");
}

/*--- device ids ----------------------------------------------------------*/

bool thunkyImportDeviceIdFits(const Thunk *t) {
  const ThunkySlice *s = t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_REPLICA_ID_THUNK
                             ? t->replica_id_thunk->dest_buffer
                             : t->partition_id_thunk->dest_buffer;
  return s && s->size == 4;
}

bool thunkyImportDeviceId(Importer *im, Thunk *t) {
  bool replica = t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_REPLICA_ID_THUNK;
  ProtobufCMessage *impl = replica ? &t->replica_id_thunk->base : &t->partition_id_thunk->base;
  ThunkySlice **slot =
      replica ? &t->replica_id_thunk->dest_buffer : &t->partition_id_thunk->dest_buffer;
  MlirValue dst;
  if (!thunkyImportSliceValue(im, *slot, &dst))
    return false;
  MlirOperation op = thunkyImportEmit(im, replica ? "thunky.replica_id" : "thunky.partition_id",
                                      1, &dst, 0, NULL, 0, NULL, 0);
  thunkyImportConsumeSlice(slot);
  return thunkyImportAttachResidual(im, op, t, impl,
                                    replica ? "replica_id_thunk" : "partition_id_thunk");
}
