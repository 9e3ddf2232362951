/*===- export_thunks.c - a thunk for each first-class op --------------===*/
#include "export.h"

#include "ffi_attrs.h"
#include "proto_attr.h"
#include "xla_enums.h"
#include "thunky-c/base/Arena.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/dialect/Ops.h"
#include "mlir-c/BuiltinTypes.h"
#include "thunky-c/dialect/Diagnostics.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static Thunk *exportMemzero(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, "memzero_thunk", &impl);
  Xla__Gpu__MemzeroThunkProto *m = (void *)impl;
  return t && thunkyExportSetShapedSlice(ex, op, mlirOperationGetOperand(op, 0), &m->dest_buffer)
             ? t
             : NULL;
}

static Thunk *exportMemset(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, "memset32bit_value_thunk", &impl);
  Xla__Gpu__Memset32BitValueThunkProto *m = (void *)impl;
  if (!t || !thunkyExportSetSlice(ex, op, mlirOperationGetOperand(op, 0), &m->dest_buffer))
    return NULL;
  m->value = (uint32_t)mlirIntegerAttrGetValueInt(inherent(op, "value"));
  m->has_value = m->value != 0;
  return t;
}

static Thunk *exportCopy(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, "device_to_device_copy_thunk", &impl);
  Xla__Gpu__DeviceToDeviceCopyThunkProto *d = (void *)impl;
  if (!t)
    return NULL;
  if (!d->copy_thunk &&
      !(d->copy_thunk = thunkyExportNewMessage(ex, &xla__gpu__copy_thunk_proto__descriptor)))
    return NULL;
  Xla__Gpu__CopyThunkProto *c = d->copy_thunk;
  if (!thunkyExportSetShapedSlice(ex, op, mlirOperationGetOperand(op, 0), &c->source_buffer) ||
      !thunkyExportSetShapedSlice(ex, op, mlirOperationGetOperand(op, 1), &c->destination_buffer))
    return NULL;
  /* thunky.copy copies all of its source. */
  c->mem_size = c->source_buffer->slice->size;
  c->has_mem_size = c->mem_size != 0;
  return t;
}

/*--- collectives ---------------------------------------------------------*/

static Xla__ReplicaGroup **replicaGroups(Exporter *ex, MlirAttribute groups,
                                         size_t *n) {
  *n = mlirAttributeIsNull(groups) ? 0 : (size_t)mlirArrayAttrGetNumElements(groups);
  Xla__ReplicaGroup **out = thunkyArenaAlloc(ex->arena, (*n + 1) * sizeof *out);
  for (size_t g = 0; out && g < *n; ++g) {
    MlirAttribute ids = mlirArrayAttrGetElement(groups, (intptr_t)g);
    bool dense = mlirAttributeIsADenseI64Array(ids);
    size_t k = (size_t)(dense ? mlirDenseArrayGetNumElements(ids)
                              : mlirArrayAttrGetNumElements(ids));
    Xla__ReplicaGroup *group = thunkyExportNewMessage(ex, &xla__replica_group__descriptor);
    int64_t *values = thunkyArenaAlloc(ex->arena, (k + 1) * sizeof *values);
    if (!group || !values)
      return NULL;
    for (size_t i = 0; i < k; ++i)
      values[i] = dense ? mlirDenseI64ArrayGetElement(ids, (intptr_t)i)
                        : mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(ids, (intptr_t)i));
    group->n_replica_ids = k;
    group->replica_ids = values;
    out[g] = group;
  }
  return out;
}

static Thunk *exportCollective(Exporter *ex, MlirOperation op, ThunkyOpKind kind) {
  static const char *const fields[] = {
      [THUNKY_OP_ALL_REDUCE] = "all_reduce_thunk",
      [THUNKY_OP_ALL_GATHER] = "all_gather_thunk",
      [THUNKY_OP_REDUCE_SCATTER] = "reduce_scatter_thunk",
      [THUNKY_OP_ALL_TO_ALL] = "all_to_all_thunk",
      [THUNKY_OP_COLLECTIVE_PERMUTE] = "collective_permute_thunk",
  };
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, fields[kind], &impl);
  if (!t)
    return NULL;
  /* The five messages differ in field order, not in what matters here. */
  const ProtobufCMessageDescriptor *desc = impl->descriptor;
  const ProtobufCFieldDescriptor *configField =
      protobuf_c_message_descriptor_get_field_by_name(desc, "collective_config");
  const ProtobufCFieldDescriptor *buffersField =
      protobuf_c_message_descriptor_get_field_by_name(desc, "buffers");
  Xla__Gpu__CollectiveConfigProto **config =
      (void *)((char *)impl + configField->offset);
  size_t *nBuffers = (size_t *)((char *)impl + buffersField->quantifier_offset);
  Xla__Gpu__CollectiveBufferProto ***buffers =
      (void *)((char *)impl + buffersField->offset);

  size_t pairs = (size_t)mlirOperationGetNumOperands(op) / 2;
  Xla__PrimitiveType *primitives = thunkyArenaAlloc(ex->arena, (pairs + 1) * sizeof *primitives);
  if (!primitives)
    return NULL;
  bool typed = true;
  for (size_t i = 0; i < pairs; ++i)
    typed &= (primitives[i] = (Xla__PrimitiveType)thunkyElementTypeFromMlir(
                  thunkyCollectivePairElementType(op, (intptr_t)i))) != 0;
  int mode = thunkyGroupModeFromName(mlirStringAttrGetValue(inherent(op, "group_mode")));
  if (!typed || mode < 0) {
    opError(op, "element type or group mode has no XLA equivalent");
    return NULL;
  }
  if (!*config &&
      !(*config = thunkyExportNewMessage(ex, &xla__gpu__collective_config_proto__descriptor)))
    return NULL;
  Xla__Gpu__CollectiveConfigProto *c = *config;
  c->n_operand_element_type = pairs;
  c->operand_element_type = primitives;
  c->group_mode = mode, c->has_group_mode = mode != 0;
  c->replica_groups = replicaGroups(ex, inherent(op, "replica_groups"), &c->n_replica_groups);
  if (!c->replica_groups)
    return NULL;

  if (*nBuffers != 0 && *nBuffers != pairs) {
    opError(op, THUNKY_ATTR_THUNK " describes a different number of buffers");
    return NULL;
  }
  bool fresh = *nBuffers == 0;
  if (fresh) {
    *buffers = thunkyArenaAlloc(ex->arena, (pairs + 1) * sizeof **buffers);
    for (size_t i = 0; *buffers && i < pairs; ++i)
      (*buffers)[i] = thunkyExportNewMessage(ex, &xla__gpu__collective_buffer_proto__descriptor);
    *nBuffers = pairs;
  }
  for (size_t i = 0; i < pairs; ++i) {
    Xla__Gpu__CollectiveBufferProto *b = (*buffers)[i];
    MlirValue source = mlirOperationGetOperand(op, (intptr_t)i);
    if (!b || !thunkyExportSetShapedSlice(ex, op, source, &b->source_buffer) ||
        !thunkyExportSetShapedSlice(ex, op, mlirOperationGetOperand(op, (intptr_t)(pairs + i)),
                                    &b->destination_buffer))
      return NULL;
    /* XLA counts a buffer's source elements; with no metadata to say so,
     * the source's size says it (the verifier checked it holds whole ones). */
    if (fresh) {
      b->element_count = thunkyValueGetBufferSize(source) / thunkyElementBytes(primitives[i]);
      b->has_element_count = b->element_count != 0;
    }
  }

  MlirAttribute reduction = inherent(op, "reduction_kind");
  if (!mlirAttributeIsNull(reduction)) {
    int k = thunkyReductionKindFromName(mlirStringAttrGetValue(reduction));
    if (kind == THUNKY_OP_ALL_REDUCE)
      t->all_reduce_thunk->reduction_kind = k, t->all_reduce_thunk->has_reduction_kind = 1;
    else
      t->reduce_scatter_thunk->reduction_kind = k,
      t->reduce_scatter_thunk->has_reduction_kind = 1;
  }
  if (kind == THUNKY_OP_ALL_TO_ALL) {
    bool split = mlirBoolAttrGetValue(inherent(op, "has_split_dimension"));
    t->all_to_all_thunk->has_split_dimension = split;
    t->all_to_all_thunk->has_has_split_dimension = split;
  }
  if (kind == THUNKY_OP_COLLECTIVE_PERMUTE) {
    Xla__Gpu__CollectivePermuteThunkProto *p = t->collective_permute_thunk;
    MlirAttribute list = inherent(op, "source_target_pairs");
    size_t n = (size_t)mlirArrayAttrGetNumElements(list);
    p->source_target_pairs = thunkyArenaAlloc(ex->arena, (n + 1) * sizeof(void *));
    if (!p->source_target_pairs)
      return NULL;
    p->n_source_target_pairs = n;
    for (size_t i = 0; i < n; ++i) {
      MlirAttribute pair = mlirArrayAttrGetElement(list, (intptr_t)i);
      bool dense = mlirAttributeIsADenseI64Array(pair);
      int64_t s = dense ? mlirDenseI64ArrayGetElement(pair, 0)
                        : mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(pair, 0));
      int64_t d = dense ? mlirDenseI64ArrayGetElement(pair, 1)
                        : mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(pair, 1));
      Xla__SourceTarget *st = thunkyExportNewMessage(ex, &xla__source_target__descriptor);
      if (!st)
        return NULL;
      st->source = s, st->has_source = s != 0;
      st->target = d, st->has_target = d != 0;
      p->source_target_pairs[i] = st;
    }
  }
  return t;
}

/*--- control flow and async ----------------------------------------------*/

static Thunk *exportRegionThunk(Exporter *ex, MlirOperation op, const char *field) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, field, &impl);
  if (!t)
    return NULL;
  /* sequential_thunk and collective_group_thunk hold `thunks` directly. */
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(impl->descriptor, "thunks");
  size_t *n = (size_t *)((char *)impl + f->quantifier_offset);
  Thunk ***thunks = (void *)((char *)impl + f->offset);
  return thunkyExportRegion(ex, op, 0, n, thunks) ? t : NULL;
}

static Thunk *exportCond(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, "conditional_thunk", &impl);
  Xla__Gpu__ConditionalThunkProto *c = (void *)impl;
  if (!t ||
      !thunkyExportSetShapedSlice(ex, op, mlirOperationGetOperand(op, 0), &c->branch_index_buffer))
    return NULL;
  size_t n = (size_t)mlirOperationGetNumRegions(op);
  if (c->n_branch_thunks != 0 && c->n_branch_thunks != n) {
    opError(op, THUNKY_ATTR_THUNK " describes a different number of branches");
    return NULL;
  }
  if (c->n_branch_thunks == 0) {
    c->branch_thunks = thunkyArenaAlloc(ex->arena, (n + 1) * sizeof(void *));
    for (size_t b = 0; c->branch_thunks && b < n; ++b)
      c->branch_thunks[b] = thunkyExportNewMessage(ex, &xla__gpu__thunk_sequence_proto__descriptor);
    c->n_branch_thunks = n;
  }
  for (size_t b = 0; b < n; ++b)
    if (!c->branch_thunks[b] ||
        !thunkyExportRegion(ex, op, (intptr_t)b, &c->branch_thunks[b]->n_thunks,
                            &c->branch_thunks[b]->thunks))
      return NULL;
  return t;
}

static Thunk *exportWhile(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, "while_thunk", &impl);
  Xla__Gpu__WhileThunkProto *w = (void *)impl;
  return t &&
                 thunkyExportSetSlice(ex, op, mlirOperationGetOperand(op, 0),
                                      &w->condition_result_buffer_index) &&
                 thunkyExportSequence(ex, op, 0, &w->condition_thunk_sequence) &&
                 thunkyExportSequence(ex, op, 1, &w->body_thunk_sequence)
             ? t
             : NULL;
}

static Thunk *exportAsyncStart(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, "async_start_thunk", &impl);
  Xla__Gpu__AsyncStartThunkProto *a = (void *)impl;
  if (!t)
    return NULL;
  if (!a->has_async_execution_id && a->async_execution_id == 0) {
    a->async_execution_id = ex->nextAsyncId++;
    a->has_async_execution_id = 1;
  }
  uint64_t stream = (uint64_t)mlirIntegerAttrGetValueInt(inherent(op, "stream_id"));
  MlirAttribute comm = inherent(op, "is_communication");
  if (!mlirAttributeIsNull(comm) && mlirBoolAttrGetValue(comm)) {
    a->execution_stream_id_case =
        XLA__GPU__ASYNC_START_THUNK_PROTO__EXECUTION_STREAM_ID_COMMUNICATION_STREAM_ID;
    a->communication_stream_id = stream;
  } else {
    a->execution_stream_id_case =
        XLA__GPU__ASYNC_START_THUNK_PROTO__EXECUTION_STREAM_ID_COMPUTATION_STREAM_ID;
    a->computation_stream_id = stream;
  }
  if (ex->numAsyncs >= UINT32_MAX ||
      !thunkyArrayGrow((void **)&ex->asyncs, &ex->asyncCapacity, ex->numAsyncs, sizeof *ex->asyncs))
    return NULL;
  /* XLA keeps one open start/done scope per execution: a second start
   * before the first's done is refused at run time (openxla/xla#40432). */
  uint32_t open = 0;
  if (thunkyHashMapGet(&ex->startsInFlight, a->async_execution_id, &open) && open) {
    thunkyEmitOpError(op, "starts async execution %" PRIu64 " while an earlier start of it "
                          "is in flight (its async_done comes later); XLA refuses "
                          "start-start-done-done on one execution (openxla/xla#40432)",
                      (uint64_t)a->async_execution_id);
    return NULL;
  }
  if (!thunkyHashMapPut(&ex->asyncOf, (uint64_t)(uintptr_t)op.ptr, (uint32_t)ex->numAsyncs) ||
      !thunkyHashMapPut(&ex->startsInFlight, a->async_execution_id, 1))
    return NULL;
  ex->asyncs[ex->numAsyncs++] = (Holder){op, (int64_t)a->async_execution_id};
  return thunkyExportSequence(ex, op, 0, &a->thunks) ? t : NULL;
}

static Thunk *exportAsyncDone(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, "async_done_thunk", &impl);
  Xla__Gpu__AsyncDoneThunkProto *d = (void *)impl;
  if (!t)
    return NULL;
  MlirOperation start = mlirOpResultGetOwner(mlirOperationGetOperand(op, 0));
  uint32_t i;
  if (thunkyHashMapGet(&ex->asyncOf, (uint64_t)(uintptr_t)start.ptr, &i)) {
    d->async_execution_id = (uint64_t)ex->asyncs[i].number;
    d->has_async_execution_id = d->async_execution_id != 0;
    return thunkyHashMapPut(&ex->startsInFlight, d->async_execution_id, 0) ? t : NULL;
  }
  opError(op, "waits for an async_start that comes later");
  return NULL;
}

/*--- kernels -------------------------------------------------------------*/

static char *arenaString(Exporter *ex, MlirStringRef s) {
  return thunkyArenaString(ex->arena, s.data, s.length);
}

/* As upstream: a PTX kernel is a CustomKernelThunk whose spec holds the PTX. */
static Thunk *exportPtxKernel(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, "custom_kernel_thunk", &impl);
  Xla__Gpu__CustomKernelThunkProto *k = (void *)impl;
  if (!t)
    return NULL;
  size_t n = (size_t)mlirOperationGetNumOperands(op);
  if (k->n_args != 0 && k->n_args != n) {
    opError(op, THUNKY_ATTR_THUNK " describes a different number of arguments");
    return NULL;
  }
  if (k->n_args == 0) {
    k->args = thunkyArenaAlloc(ex->arena, (n + 1) * sizeof *k->args);
    k->n_args = n;
  }
  MlirAttribute written = inherent(op, "written");
  k->written = thunkyArenaAlloc(ex->arena, (n + 1) * sizeof *k->written);
  k->n_written = n;
  if (!k->args || !k->written)
    return NULL;
  for (size_t i = 0; i < n; ++i) {
    k->written[i] = mlirDenseBoolArrayGetElement(written, (intptr_t)i);
    if (!thunkyExportSetShapedSlice(ex, op, mlirOperationGetOperand(op, (intptr_t)i), &k->args[i]))
      return NULL;
  }
  Xla__Gpu__CustomKernelProto *ck = k->custom_kernel;
  if (!ck && !(ck = k->custom_kernel =
                   thunkyExportNewMessage(ex, &xla__gpu__custom_kernel_proto__descriptor)))
    return NULL;
  ck->name = arenaString(ex, mlirStringAttrGetValue(inherent(op, "kernel_name")));
  ck->block_dims = thunkyExportNewMessage(ex, &stream_executor__block_dim_proto__descriptor);
  ck->thread_dims = thunkyExportNewMessage(ex, &stream_executor__thread_dim_proto__descriptor);
  ck->shared_memory_bytes = mlirIntegerAttrGetValueInt(inherent(op, "shmem_bytes"));
  ck->has_shared_memory_bytes = ck->shared_memory_bytes != 0;
  StreamExecutor__KernelLoaderSpecProto *spec = ck->kernel_spec;
  if (!spec && !(spec = ck->kernel_spec = thunkyExportNewMessage(
                     ex, &stream_executor__kernel_loader_spec_proto__descriptor)))
    return NULL;
  spec->payload_case = STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX;
  spec->ptx = thunkyExportNewMessage(ex, &stream_executor__cuda_ptx_proto__descriptor);
  spec->arity = (int32_t)n, spec->has_arity = n != 0;
  spec->kernel_name = ck->name;
  if (!ck->name || !ck->block_dims || !ck->thread_dims || !spec->ptx ||
      !(ck->block_dims->coordinates = thunkyExportDim3(ex, inherent(op, "grid_dim"))) ||
      !(ck->thread_dims->coordinates = thunkyExportDim3(ex, inherent(op, "block_dim")))) {
    opError(op, "out of memory");
    return NULL;
  }
  /* The attribute outlives the export: no copy. */
  MlirStringRef ptx = mlirStringAttrGetValue(inherent(op, "ptx"));
  spec->ptx->has_data = 1;
  spec->ptx->data = (ProtobufCBinaryData){ptx.length, (uint8_t *)(uintptr_t)ptx.data};
  return t;
}

/*--- custom calls --------------------------------------------------------*/

/* Writes buffers [first, first + n) into the custom call's argument list
 * `*args` (kept from import, or made fresh), with shapes from `shapes`. */
static bool exportArguments(Exporter *ex, MlirOperation op, size_t first, size_t n,
                            MlirAttribute shapes, size_t *count,
                            Xla__NullableShapedSliceProto ***args) {
  if (*count != 0 && *count != n)
    return opError(op, THUNKY_ATTR_THUNK " describes a different number of buffers");
  if (*count == 0) {
    *args = thunkyArenaAlloc(ex->arena, (n + 1) * sizeof **args);
    for (size_t i = 0; *args && i < n; ++i)
      (*args)[i] = thunkyExportNewMessage(ex, &xla__nullable_shaped_slice_proto__descriptor);
    *count = n;
  }
  for (size_t i = 0; i < n; ++i) {
    Xla__NullableShapedSliceProto *arg = *args ? (*args)[i] : NULL;
    if (!arg || !thunkyExportSetShapedSlice(
                    ex, op, mlirOperationGetOperand(op, (intptr_t)(first + i)), &arg->shaped_slice))
      return opError(op, "out of memory");
    if (mlirAttributeIsNull(shapes))
      continue;
    MlirType type = mlirTypeAttrGetValue(mlirArrayAttrGetElement(shapes, (intptr_t)i));
    if (!thunkyExportShape(ex, op, type, &arg->shaped_slice->shape))
      return false;
  }
  return true;
}

static Thunk *exportCustomCall(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = thunkyExportStartThunk(ex, op, "custom_call_thunk", &impl);
  Xla__Gpu__CustomCallThunkProto *c = (void *)impl;
  if (!t)
    return NULL;
  size_t operands = (size_t)mlirIntegerAttrGetValueInt(inherent(op, "num_operands"));
  size_t results = (size_t)mlirIntegerAttrGetValueInt(inherent(op, "num_results"));
  c->target_name = arenaString(ex, mlirStringAttrGetValue(inherent(op, "target_name")));
  c->api_version = XLA__CUSTOM_CALL_API_VERSION__API_VERSION_TYPED_FFI;
  c->has_api_version = 1;
  c->attributes = thunkyFfiAttrsFromAttr(inherent(op, "backend_config"), ex->arena,
                                         mlirOperationGetLocation(op));
  if (!c->target_name || !c->attributes ||
      !exportArguments(ex, op, 0, operands, inherent(op, "operand_shapes"), &c->n_operands,
                       &c->operands) ||
      !exportArguments(ex, op, operands, results, inherent(op, "result_shapes"),
                       &c->n_results, &c->results))
    return NULL;
  return t;
}

/*--- dispatch ------------------------------------------------------------*/

static bool exportOp(Exporter *ex, MlirOperation op, List *out) {
  ThunkyOpKind kind = thunkyOpGetKind(op);
  Thunk *t = NULL;
  switch (kind) {
  case THUNKY_OP_SLICE_BUFFER:
  case THUNKY_OP_CONSTANT:
  case THUNKY_OP_YIELD:
    return true;
  case THUNKY_OP_MEMZERO: t = exportMemzero(ex, op); break;
  case THUNKY_OP_MEMSET32: t = exportMemset(ex, op); break;
  case THUNKY_OP_COPY:
    if (!mlirAttributeIsNull(discardable(op, THUNKY_ATTR_IMPLICIT)))
      return true;
    t = exportCopy(ex, op);
    break;
  case THUNKY_OP_ALL_REDUCE:
  case THUNKY_OP_ALL_GATHER:
  case THUNKY_OP_REDUCE_SCATTER:
  case THUNKY_OP_ALL_TO_ALL:
  case THUNKY_OP_COLLECTIVE_PERMUTE:
    t = exportCollective(ex, op, kind);
    break;
  case THUNKY_OP_SEQUENTIAL: t = exportRegionThunk(ex, op, "sequential_thunk"); break;
  case THUNKY_OP_COLLECTIVE_GROUP:
    t = exportRegionThunk(ex, op, "collective_group_thunk");
    break;
  case THUNKY_OP_COND: t = exportCond(ex, op); break;
  case THUNKY_OP_WHILE: t = exportWhile(ex, op); break;
  case THUNKY_OP_ASYNC_START: t = exportAsyncStart(ex, op); break;
  case THUNKY_OP_ASYNC_DONE: t = exportAsyncDone(ex, op); break;
  case THUNKY_OP_CALL_THUNK_PROTO: t = thunkyExportCallThunkProto(ex, op); break;
  case THUNKY_OP_PTX_KERNEL: t = exportPtxKernel(ex, op); break;
  case THUNKY_OP_CUSTOM_CALL: t = exportCustomCall(ex, op); break;
  case THUNKY_OP_LAUNCH: t = thunkyExportLaunch(ex, op); break;
  case THUNKY_OP_GEMM: t = thunkyExportGemm(ex, op); break;
  case THUNKY_OP_CUBLASLT_MATMUL: t = thunkyExportCublasLtMatmul(ex, op); break;
  case THUNKY_OP_REPLICA_ID: t = thunkyExportDeviceId(ex, op, true); break;
  case THUNKY_OP_PARTITION_ID: t = thunkyExportDeviceId(ex, op, false); break;
  default: {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    if (name.length == 11 && memcmp(name.data, "func.return", 11) == 0)
      return true;
    thunkyEmitOpError(op, "export writes thunky ops only, and this op has no thunk: lower it "
                          "to thunky ops or remove it");
    return false;
  }
  }
  if (!t || !thunkyExportThunkInfo(ex, op, discardable(op, THUNKY_ATTR_INFO), t))
    return false;
  if (!thunkyExportAppend(ex, out, t))
    return opError(op, "out of memory");
  return true;
}

bool thunkyExportBlock(Exporter *ex, MlirBlock block, List *out) {
  if (ex->numGroups)
    return thunkyExportGroupedBlock(ex, block, out, exportOp);
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (!exportOp(ex, op, out))
      return false;
  return true;
}
