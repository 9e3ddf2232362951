/*===- export_executable.c - thunky module -> GpuExecutableProto --------===*
 *
 * Builds the executable from @main: each argument and thunky.constant is an
 * allocation, each op a thunk. Everything import kept aside (executable_attrs.h)
 * is put back first and the ops' own fields written over it, so an unchanged
 * module exports to the executable it came from, and an edited one to the
 * edited executable. A module written by hand gets XLA's required fields and
 * one entry parameter per argument.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/Translate.h"

#include "thunky-c/Arena.h"
#include "thunky-c/Executable.h"
#include "thunky-c/HashMap.h"
#include "thunky-c/Wire.h"
#include "executable_attrs.h"
#include "ffi_attrs.h"
#include "xla_enums.h"
#include "thunky-c/ElementTypes.h"

#include "thunky-c/Diagnostics.h"
#include "thunky-c/Dialect.h"
#include "thunky-c/Ops.h"

#include "thunky-c/Container.h"
#include "xla/pjrt/proto/compile_options.pb-c.h"
#include "xla/python/pjrt_ifrt/executable_metadata.pb-c.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"
#include "xla/util/split_proto/human_readable_aot_executable.pb-c.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Xla__Gpu__GpuExecutableProto Executable;
typedef Xla__Gpu__ThunkProto Thunk;
typedef Xla__BufferAllocationProto Allocation;

/* Where a buffer value lives. */
typedef struct Place {
  int64_t allocation, offset, size;
} Place;

typedef struct Holder {
  MlirOperation op; /* a thunky.constant or an async_start */
  int64_t number;   /* its allocation index, or its async execution id */
} Holder;

typedef struct List {
  void **items;
  size_t count, capacity;
} List;

typedef struct Exporter {
  MlirContext ctx;
  ThunkyArena *arena;
  MlirBlock entry;
  int64_t *argAllocation;
  Holder *constants, *asyncs;
  size_t numConstants, numAsyncs, asyncCapacity;
  ThunkyHashMap constantOf, asyncOf; /* an op -> its position in constants / asyncs */
  List allocations;
  uint64_t nextAsyncId;
} Exporter;

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static bool opError(MlirOperation op, const char *message) {
  thunkyEmitOpError(op, "%s", message);
  return false;
}

static void *newMessage(Exporter *ex, const ProtobufCMessageDescriptor *desc) {
  void *m = thunkyArenaAlloc(ex->arena, desc->sizeof_message);
  if (m)
    protobuf_c_message_init(desc, m);
  return m;
}

static bool append(Exporter *ex, List *list, void *item) {
  if (list->count == list->capacity) {
    size_t capacity = list->capacity ? 2 * list->capacity : 8;
    void **grown = thunkyArenaAlloc(ex->arena, capacity * sizeof *grown);
    if (!grown)
      return false;
    if (list->count)
      memcpy(grown, list->items, list->count * sizeof *grown);
    list->items = grown;
    list->capacity = capacity;
  }
  list->items[list->count++] = item;
  return true;
}

static MlirAttribute discardable(MlirOperation op, const char *name) {
  return mlirOperationGetDiscardableAttributeByName(op, str(name));
}

static MlirAttribute inherent(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, str(name));
}

/*--- places --------------------------------------------------------------*/

static bool placeOf(Exporter *ex, MlirOperation user, MlirValue v, Place *out) {
  int64_t size = thunkyValueGetBufferSize(v);
  if (mlirValueIsABlockArgument(v)) {
    if (!mlirBlockEqual(mlirBlockArgumentGetOwner(v), ex->entry))
      return opError(user, "uses a buffer that is not an argument of @main");
    *out = (Place){ex->argAllocation[mlirBlockArgumentGetArgNumber(v)], 0, size};
    return true;
  }
  MlirOperation def = mlirOpResultGetOwner(v);
  switch (thunkyOpGetKind(def)) {
  case THUNKY_OP_SLICE_BUFFER:
    if (!placeOf(ex, def, mlirOperationGetOperand(def, 0), out))
      return false;
    out->offset += mlirIntegerAttrGetValueInt(inherent(def, "offset"));
    out->size = size;
    return true;
  case THUNKY_OP_CONSTANT: {
    uint32_t i;
    if (thunkyHashMapGet(&ex->constantOf, (uint64_t)(uintptr_t)def.ptr, &i)) {
      *out = (Place){ex->constants[i].number, 0, size};
      return true;
    }
    break;
  }
  default:
    break;
  }
  return opError(user, "uses a buffer that is neither an argument, a constant "
                       "nor a slice of one");
}

/* Writes where `v` lives into *slot, keeping the slice's other fields. */
static bool setSlice(Exporter *ex, MlirOperation op, MlirValue v, ThunkySlice **slot) {
  Place p;
  if (!placeOf(ex, op, v, &p))
    return false;
  if (!*slot &&
      !(*slot = newMessage(ex, &xla__buffer_assignment__buffer_allocation_slice_proto__descriptor)))
    return opError(op, "out of memory");
  ThunkySlice *s = *slot;
  /* proto3 writes no zeros, and export must match what XLA wrote. */
  s->offset = p.offset, s->has_offset = p.offset != 0;
  s->size = p.size, s->has_size = p.size != 0;
  s->buffer_allocation_index = p.allocation;
  s->has_buffer_allocation_index = p.allocation != 0;
  return true;
}

static bool setShapedSlice(Exporter *ex, MlirOperation op, MlirValue v,
                           Xla__ShapedSliceProto **slot) {
  if (!*slot && !(*slot = newMessage(ex, &xla__shaped_slice_proto__descriptor)))
    return opError(op, "out of memory");
  return setSlice(ex, op, v, &(*slot)->slice);
}

/*--- thunks --------------------------------------------------------------*/

static bool exportBlock(Exporter *ex, MlirBlock block, List *out);

/* The thunks of region `index` of `op` as a repeated field. */
static bool exportRegion(Exporter *ex, MlirOperation op, intptr_t index,
                         size_t *n, Thunk ***thunks) {
  List list = {0};
  if (!exportBlock(ex, mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index)),
                   &list))
    return false;
  *n = list.count;
  *thunks = (Thunk **)list.items;
  return true;
}

/* The sequence for a region; created only when absent and needed. */
static bool exportSequence(Exporter *ex, MlirOperation op, intptr_t index,
                           Xla__Gpu__ThunkSequenceProto **slot) {
  size_t n;
  Thunk **thunks;
  if (!exportRegion(ex, op, index, &n, &thunks))
    return false;
  if (!*slot && n == 0)
    return true;
  if (!*slot && !(*slot = newMessage(ex, &xla__gpu__thunk_sequence_proto__descriptor)))
    return opError(op, "out of memory");
  (*slot)->n_thunks = n;
  (*slot)->thunks = thunks;
  return true;
}

/* The op's ThunkProto: what import kept aside, with the impl message of
 * `implField` present. */
static Thunk *startThunk(Exporter *ex, MlirOperation op, const char *implField,
                         ProtobufCMessage **impl) {
  MlirAttribute kept = discardable(op, THUNKY_ATTR_THUNK);
  Thunk *t = mlirAttributeIsNull(kept)
                 ? newMessage(ex, &xla__gpu__thunk_proto__descriptor)
                 : (Thunk *)thunkyAttrToProto(kept, &xla__gpu__thunk_proto__descriptor,
                                              ex->arena, mlirOperationGetLocation(op),
                                              THUNKY_ATTR_THUNK);
  if (!t)
    return NULL;
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(&xla__gpu__thunk_proto__descriptor,
                                                      implField);
  if (t->impl_case != XLA__GPU__THUNK_PROTO__IMPL__NOT_SET && t->impl_case != f->id) {
    opError(op, THUNKY_ATTR_THUNK " holds a different thunk kind than the op");
    return NULL;
  }
  ProtobufCMessage **slot = (ProtobufCMessage **)((char *)t + f->offset);
  if (!*slot && !(*slot = newMessage(ex, f->descriptor))) {
    opError(op, "out of memory");
    return NULL;
  }
  t->impl_case = f->id;
  *impl = *slot;
  return t;
}

static Thunk *exportMemzero(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = startThunk(ex, op, "memzero_thunk", &impl);
  Xla__Gpu__MemzeroThunkProto *m = (void *)impl;
  return t && setShapedSlice(ex, op, mlirOperationGetOperand(op, 0), &m->dest_buffer)
             ? t
             : NULL;
}

static Thunk *exportMemset(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = startThunk(ex, op, "memset32bit_value_thunk", &impl);
  Xla__Gpu__Memset32BitValueThunkProto *m = (void *)impl;
  if (!t || !setSlice(ex, op, mlirOperationGetOperand(op, 0), &m->dest_buffer))
    return NULL;
  m->value = (uint32_t)mlirIntegerAttrGetValueInt(inherent(op, "value"));
  m->has_value = m->value != 0;
  return t;
}

static Thunk *exportCopy(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = startThunk(ex, op, "device_to_device_copy_thunk", &impl);
  Xla__Gpu__DeviceToDeviceCopyThunkProto *d = (void *)impl;
  if (!t)
    return NULL;
  if (!d->copy_thunk && !(d->copy_thunk = newMessage(ex, &xla__gpu__copy_thunk_proto__descriptor)))
    return NULL;
  Xla__Gpu__CopyThunkProto *c = d->copy_thunk;
  if (!setShapedSlice(ex, op, mlirOperationGetOperand(op, 0), &c->source_buffer) ||
      !setShapedSlice(ex, op, mlirOperationGetOperand(op, 1), &c->destination_buffer))
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
    Xla__ReplicaGroup *group = newMessage(ex, &xla__replica_group__descriptor);
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
  Thunk *t = startThunk(ex, op, fields[kind], &impl);
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
  MlirType element = mlirTypeAttrGetValue(inherent(op, "element_type"));
  int primitive = thunkyElementTypeFromMlir(element);
  int mode = thunkyGroupModeFromName(mlirStringAttrGetValue(inherent(op, "group_mode")));
  if (!primitive || mode < 0) {
    opError(op, "element type or group mode has no XLA equivalent");
    return NULL;
  }
  if (!*config && !(*config = newMessage(ex, &xla__gpu__collective_config_proto__descriptor)))
    return NULL;
  Xla__Gpu__CollectiveConfigProto *c = *config;
  c->n_operand_element_type = pairs;
  c->operand_element_type = thunkyArenaAlloc(ex->arena, (pairs + 1) * sizeof(int));
  for (size_t i = 0; c->operand_element_type && i < pairs; ++i)
    c->operand_element_type[i] = primitive;
  c->group_mode = mode, c->has_group_mode = mode != 0;
  c->replica_groups = replicaGroups(ex, inherent(op, "replica_groups"), &c->n_replica_groups);
  if (!c->operand_element_type || !c->replica_groups)
    return NULL;

  if (*nBuffers != 0 && *nBuffers != pairs) {
    opError(op, THUNKY_ATTR_THUNK " describes a different number of buffers");
    return NULL;
  }
  bool fresh = *nBuffers == 0;
  if (fresh) {
    *buffers = thunkyArenaAlloc(ex->arena, (pairs + 1) * sizeof **buffers);
    for (size_t i = 0; *buffers && i < pairs; ++i)
      (*buffers)[i] = newMessage(ex, &xla__gpu__collective_buffer_proto__descriptor);
    *nBuffers = pairs;
  }
  for (size_t i = 0; i < pairs; ++i) {
    Xla__Gpu__CollectiveBufferProto *b = (*buffers)[i];
    if (!b || !setShapedSlice(ex, op, mlirOperationGetOperand(op, (intptr_t)i), &b->source_buffer) ||
        !setShapedSlice(ex, op, mlirOperationGetOperand(op, (intptr_t)(pairs + i)),
                        &b->destination_buffer))
      return NULL;
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
      Xla__SourceTarget *st = newMessage(ex, &xla__source_target__descriptor);
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
  Thunk *t = startThunk(ex, op, field, &impl);
  if (!t)
    return NULL;
  /* sequential_thunk and collective_group_thunk hold `thunks` directly. */
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(impl->descriptor, "thunks");
  size_t *n = (size_t *)((char *)impl + f->quantifier_offset);
  Thunk ***thunks = (void *)((char *)impl + f->offset);
  return exportRegion(ex, op, 0, n, thunks) ? t : NULL;
}

static Thunk *exportCond(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = startThunk(ex, op, "conditional_thunk", &impl);
  Xla__Gpu__ConditionalThunkProto *c = (void *)impl;
  if (!t || !setShapedSlice(ex, op, mlirOperationGetOperand(op, 0), &c->branch_index_buffer))
    return NULL;
  size_t n = (size_t)mlirOperationGetNumRegions(op);
  if (c->n_branch_thunks != 0 && c->n_branch_thunks != n) {
    opError(op, THUNKY_ATTR_THUNK " describes a different number of branches");
    return NULL;
  }
  if (c->n_branch_thunks == 0) {
    c->branch_thunks = thunkyArenaAlloc(ex->arena, (n + 1) * sizeof(void *));
    for (size_t b = 0; c->branch_thunks && b < n; ++b)
      c->branch_thunks[b] = newMessage(ex, &xla__gpu__thunk_sequence_proto__descriptor);
    c->n_branch_thunks = n;
  }
  for (size_t b = 0; b < n; ++b)
    if (!c->branch_thunks[b] ||
        !exportRegion(ex, op, (intptr_t)b, &c->branch_thunks[b]->n_thunks,
                      &c->branch_thunks[b]->thunks))
      return NULL;
  return t;
}

static Thunk *exportWhile(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = startThunk(ex, op, "while_thunk", &impl);
  Xla__Gpu__WhileThunkProto *w = (void *)impl;
  return t &&
                 setSlice(ex, op, mlirOperationGetOperand(op, 0),
                          &w->condition_result_buffer_index) &&
                 exportSequence(ex, op, 0, &w->condition_thunk_sequence) &&
                 exportSequence(ex, op, 1, &w->body_thunk_sequence)
             ? t
             : NULL;
}

static Thunk *exportAsyncStart(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = startThunk(ex, op, "async_start_thunk", &impl);
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
  if (ex->numAsyncs == ex->asyncCapacity) {
    size_t capacity = ex->asyncCapacity ? 2 * ex->asyncCapacity : 16;
    Holder *grown = capacity < UINT32_MAX ? realloc(ex->asyncs, capacity * sizeof *grown) : NULL;
    if (!grown)
      return NULL;
    ex->asyncs = grown, ex->asyncCapacity = capacity;
  }
  if (!thunkyHashMapPut(&ex->asyncOf, (uint64_t)(uintptr_t)op.ptr, (uint32_t)ex->numAsyncs))
    return NULL;
  ex->asyncs[ex->numAsyncs++] = (Holder){op, (int64_t)a->async_execution_id};
  return exportSequence(ex, op, 0, &a->thunks) ? t : NULL;
}

static Thunk *exportAsyncDone(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = startThunk(ex, op, "async_done_thunk", &impl);
  Xla__Gpu__AsyncDoneThunkProto *d = (void *)impl;
  if (!t)
    return NULL;
  MlirOperation start = mlirOpResultGetOwner(mlirOperationGetOperand(op, 0));
  uint32_t i;
  if (thunkyHashMapGet(&ex->asyncOf, (uint64_t)(uintptr_t)start.ptr, &i)) {
    d->async_execution_id = (uint64_t)ex->asyncs[i].number;
    d->has_async_execution_id = d->async_execution_id != 0;
    return t;
  }
  opError(op, "waits for an async_start that comes later");
  return NULL;
}

/*--- kernels -------------------------------------------------------------*/

static char *arenaString(Exporter *ex, MlirStringRef s) {
  return thunkyArenaString(ex->arena, s.data, s.length);
}

/* A Dim3DProto from a 3-element dense array (the verifier checked it). */
static StreamExecutor__Dim3DProto *dim3(Exporter *ex, MlirAttribute dims) {
  StreamExecutor__Dim3DProto *d = newMessage(ex, &stream_executor__dim3_dproto__descriptor);
  if (!d)
    return NULL;
  d->x = mlirDenseI64ArrayGetElement(dims, 0), d->has_x = d->x != 0;
  d->y = mlirDenseI64ArrayGetElement(dims, 1), d->has_y = d->y != 0;
  d->z = mlirDenseI64ArrayGetElement(dims, 2), d->has_z = d->z != 0;
  return d;
}

/* As upstream: a PTX kernel is a CustomKernelThunk whose spec holds the PTX. */
static Thunk *exportPtxKernel(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = startThunk(ex, op, "custom_kernel_thunk", &impl);
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
    if (!setShapedSlice(ex, op, mlirOperationGetOperand(op, (intptr_t)i), &k->args[i]))
      return NULL;
  }
  Xla__Gpu__CustomKernelProto *ck = k->custom_kernel;
  if (!ck && !(ck = k->custom_kernel = newMessage(ex, &xla__gpu__custom_kernel_proto__descriptor)))
    return NULL;
  ck->name = arenaString(ex, mlirStringAttrGetValue(inherent(op, "kernel_name")));
  ck->block_dims = newMessage(ex, &stream_executor__block_dim_proto__descriptor);
  ck->thread_dims = newMessage(ex, &stream_executor__thread_dim_proto__descriptor);
  ck->shared_memory_bytes = mlirIntegerAttrGetValueInt(inherent(op, "shmem_bytes"));
  ck->has_shared_memory_bytes = ck->shared_memory_bytes != 0;
  StreamExecutor__KernelLoaderSpecProto *spec = ck->kernel_spec;
  if (!spec && !(spec = ck->kernel_spec =
                     newMessage(ex, &stream_executor__kernel_loader_spec_proto__descriptor)))
    return NULL;
  spec->payload_case = STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX;
  spec->ptx = newMessage(ex, &stream_executor__cuda_ptx_proto__descriptor);
  spec->arity = (int32_t)n, spec->has_arity = n != 0;
  spec->kernel_name = ck->name;
  if (!ck->name || !ck->block_dims || !ck->thread_dims || !spec->ptx ||
      !(ck->block_dims->coordinates = dim3(ex, inherent(op, "grid_dim"))) ||
      !(ck->thread_dims->coordinates = dim3(ex, inherent(op, "block_dim"))) ||
      !(spec->ptx->data = arenaString(ex, mlirStringAttrGetValue(inherent(op, "ptx"))))) {
    opError(op, "out of memory");
    return NULL;
  }
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
      (*args)[i] = newMessage(ex, &xla__nullable_shaped_slice_proto__descriptor);
    *count = n;
  }
  for (size_t i = 0; i < n; ++i) {
    Xla__NullableShapedSliceProto *arg = *args ? (*args)[i] : NULL;
    if (!arg || !setShapedSlice(ex, op, mlirOperationGetOperand(op, (intptr_t)(first + i)),
                                &arg->shaped_slice))
      return opError(op, "out of memory");
    if (mlirAttributeIsNull(shapes))
      continue;
    MlirType type = mlirTypeAttrGetValue(mlirArrayAttrGetElement(shapes, (intptr_t)i));
    bool tensor = mlirTypeIsARankedTensor(type);
    MlirType element = tensor ? mlirShapedTypeGetElementType(type) : type;
    int primitive = thunkyElementTypeFromMlir(element);
    if (!primitive)
      return opError(op, "a shape's element type has no XLA equivalent");
    Xla__ShapedSliceProto *s = arg->shaped_slice;
    if (!s->shape && !(s->shape = newMessage(ex, &xla__shape_proto__descriptor)))
      return opError(op, "out of memory");
    size_t rank = tensor ? (size_t)mlirShapedTypeGetRank(type) : 0;
    s->shape->element_type = primitive, s->shape->has_element_type = 1;
    s->shape->n_dimensions = rank;
    s->shape->dimensions = thunkyArenaAlloc(ex->arena, (rank + 1) * sizeof(int64_t));
    if (!s->shape->dimensions)
      return opError(op, "out of memory");
    for (size_t d = 0; d < rank; ++d)
      s->shape->dimensions[d] = mlirShapedTypeGetDimSize(type, (intptr_t)d);
  }
  return true;
}

static Thunk *exportCustomCall(Exporter *ex, MlirOperation op) {
  ProtobufCMessage *impl;
  Thunk *t = startThunk(ex, op, "custom_call_thunk", &impl);
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
  if (!mlirAttributeIsAString(code))
    return opError(op, THUNKY_ATTR_KERNEL_BINARY " must be a string");
  const Xla__Gpu__CustomKernelProto *k =
      t->impl_case == XLA__GPU__THUNK_PROTO__IMPL_CUSTOM_KERNEL_THUNK
          ? t->custom_kernel_thunk->custom_kernel
          : NULL;
  StreamExecutor__KernelLoaderSpecProto *spec = k ? k->kernel_spec : NULL;
  MlirStringRef bytes = mlirStringAttrGetValue(code);
  if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_CUBIN &&
      spec->cubin) {
    spec->cubin->has_data = 1;
    spec->cubin->data = (ProtobufCBinaryData){bytes.length, (uint8_t *)(uintptr_t)bytes.data};
    return true;
  }
  if (spec && spec->payload_case == STREAM_EXECUTOR__KERNEL_LOADER_SPEC_PROTO__PAYLOAD_PTX &&
      spec->ptx) {
    /* The attribute's bytes are not NUL-terminated; the string field must be. */
    char *text = thunkyArenaString(ex->arena, bytes.data, bytes.length);
    if (!text)
      return opError(op, "out of memory");
    spec->ptx->data = text;
    return true;
  }
  return opError(op, THUNKY_ATTR_KERNEL_BINARY " on a thunk that is not a custom kernel with a "
                     "cubin or PTX");
}

static Thunk *exportCallThunkProto(Exporter *ex, MlirOperation op) {
  MlirStringRef bytes = mlirStringAttrGetValue(inherent(op, "thunk_proto"));
  ThunkyError why;
  if (!thunkyCheckWire(&xla__gpu__thunk_proto__descriptor, (const unsigned char *)bytes.data,
                       bytes.length, &why)) {
    thunkyEmitOpError(op, "thunk_proto is not a ThunkProto: %s", why.message);
    return NULL;
  }
  Thunk *t = xla__gpu__thunk_proto__unpack(thunkyArenaAllocator(ex->arena),
                                           bytes.length, (const uint8_t *)bytes.data);
  size_t n = (size_t)mlirOperationGetNumOperands(op);
  Place *operands = malloc((n + 1) * sizeof *operands);
  if (!t || !operands) {
    free(operands);
    opError(op, t ? "out of memory" : "thunk_proto could not be unpacked");
    return NULL;
  }
  bool ok = true;
  for (size_t i = 0; i < n && ok; ++i)
    ok = placeOf(ex, op, mlirOperationGetOperand(op, (intptr_t)i), &operands[i]);
  Rebase r = {ex, op, operands, n, false};
  if (ok)
    thunkyForEachSlice(&t->base, true, rebaseSlice, &r);
  free(operands);
  return ok && !r.failed && restoreKernelBinary(ex, op, t) ? t : NULL;
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
  case THUNKY_OP_CALL_THUNK_PROTO: t = exportCallThunkProto(ex, op); break;
  case THUNKY_OP_PTX_KERNEL: t = exportPtxKernel(ex, op); break;
  case THUNKY_OP_CUSTOM_CALL: t = exportCustomCall(ex, op); break;
  default: {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    if (name.length == 11 && memcmp(name.data, "func.return", 11) == 0)
      return true;
    thunkyEmitOpError(op, "export-thunky cannot write this op as a thunk yet");
    return false;
  }
  }
  if (!t)
    return false;
  if (!append(ex, out, t))
    return opError(op, "out of memory");
  return true;
}

static bool exportBlock(Exporter *ex, MlirBlock block, List *out) {
  for (MlirOperation op = mlirBlockGetFirstOperation(block); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op))
    if (!exportOp(ex, op, out))
      return false;
  return true;
}

/*--- allocations and constants -------------------------------------------*/

static MlirOperation findMain(MlirOperation module) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute name = mlirOperationGetAttributeByName(op, str("sym_name"));
    MlirStringRef opName = mlirIdentifierStr(mlirOperationGetName(op));
    if (opName.length == 9 && memcmp(opName.data, "func.func", 9) == 0 &&
        !mlirAttributeIsNull(name) && mlirAttributeIsAString(name)) {
      MlirStringRef s = mlirStringAttrGetValue(name);
      if (s.length == 4 && memcmp(s.data, "main", 4) == 0)
        return op;
    }
  }
  return (MlirOperation){NULL};
}

/* The allocation an argument or constant op describes; `fresh` when it came
 * with none (written by hand). */
static Allocation *describedAllocation(Exporter *ex, MlirAttribute dict,
                                       MlirLocation loc, bool *fresh) {
  *fresh = mlirAttributeIsNull(dict);
  if (*fresh)
    return newMessage(ex, &xla__buffer_allocation_proto__descriptor);
  return (Allocation *)thunkyAttrToProto(dict, &xla__buffer_allocation_proto__descriptor,
                                         ex->arena, loc, THUNKY_ATTR_ALLOCATION);
}

static void setSize(Allocation *a, int64_t size) {
  a->size = size, a->has_size = size != 0;
}

static MlirWalkResult collectConstant(MlirOperation op, void *userData) {
  List *list = userData;
  if (thunkyOpGetKind(op) == THUNKY_OP_CONSTANT && list->count < list->capacity)
    list->items[list->count++] = op.ptr;
  return MlirWalkResultAdvance;
}

static MlirWalkResult countConstant(MlirOperation op, void *userData) {
  *(size_t *)userData += thunkyOpGetKind(op) == THUNKY_OP_CONSTANT;
  return MlirWalkResultAdvance;
}

/* Every argument and constant is one allocation; their indices must cover
 * 0..n-1 once each, since XLA finds allocation i at position i. */
static bool collectAllocations(Exporter *ex, MlirOperation main, Executable *exe) {
  MlirLocation loc = mlirOperationGetLocation(main);
  intptr_t numArgs = mlirBlockGetNumArguments(ex->entry);
  MlirAttribute argAttrs = mlirOperationGetAttributeByName(main, str("arg_attrs"));
  size_t numConstants = 0;
  mlirOperationWalk(main, countConstant, &numConstants, MlirWalkPreOrder);
  List constantOps = {thunkyArenaAlloc(ex->arena, (numConstants + 1) * sizeof(void *)),
                      0, numConstants};
  size_t total = (size_t)numArgs + numConstants;
  Allocation **all = thunkyArenaAlloc(ex->arena, (total + 1) * sizeof *all);
  bool *fresh = calloc(total + 1, sizeof *fresh);
  ex->argAllocation = calloc((size_t)numArgs + 1, sizeof *ex->argAllocation);
  ex->constants = calloc(numConstants + 1, sizeof *ex->constants);
  if (!constantOps.items || !all || !fresh || !ex->argAllocation || !ex->constants) {
    free(fresh);
    return opError(main, "out of memory");
  }
  mlirOperationWalk(main, collectConstant, &constantOps, MlirWalkPreOrder);
  ex->numConstants = numConstants;
  int64_t parameters = 0, next = 0;
  bool ok = true;
  for (size_t i = 0; i < total && ok; ++i) {
    MlirAttribute dict = {NULL};
    MlirLocation at = loc;
    if (i < (size_t)numArgs) {
      if (!mlirAttributeIsNull(argAttrs))
        dict = mlirDictionaryAttrGetElementByName(
            mlirArrayAttrGetElement(argAttrs, (intptr_t)i), str(THUNKY_ATTR_ALLOCATION));
      all[i] = describedAllocation(ex, dict, at, &fresh[i]);
    } else {
      MlirOperation c = {constantOps.items[i - (size_t)numArgs]};
      at = mlirOperationGetLocation(c);
      dict = discardable(c, THUNKY_ATTR_ALLOCATION);
      all[i] = describedAllocation(ex, dict, at, &fresh[i]);
    }
    if (!all[i]) {
      ok = false;
      break;
    }
    if (!fresh[i] && all[i]->index >= next)
      next = all[i]->index + 1;
  }
  for (size_t i = 0; i < total && ok; ++i) {
    bool isArg = i < (size_t)numArgs;
    MlirValue v = isArg ? mlirBlockGetArgument(ex->entry, (intptr_t)i)
                        : mlirOperationGetResult(
                              (MlirOperation){constantOps.items[i - (size_t)numArgs]}, 0);
    setSize(all[i], thunkyValueGetBufferSize(v));
    if (fresh[i]) {
      all[i]->index = next++, all[i]->has_index = all[i]->index != 0;
      if (isArg) {
        /* By hand: every argument is an entry parameter, in order. */
        all[i]->is_entry_computation_parameter = all[i]->has_is_entry_computation_parameter = 1;
        all[i]->parameter_number = parameters++;
        all[i]->has_parameter_number = all[i]->parameter_number != 0;
        all[i]->maybe_live_out = all[i]->has_maybe_live_out = 1;
      } else {
        all[i]->is_constant = all[i]->has_is_constant = 1;
      }
    }
    if (isArg)
      ex->argAllocation[i] = all[i]->index;
    else {
      ex->constants[i - (size_t)numArgs] =
          (Holder){{constantOps.items[i - (size_t)numArgs]}, all[i]->index};
      if (!thunkyHashMapPut(&ex->constantOf, (uint64_t)(uintptr_t)constantOps.items[i - (size_t)numArgs],
                            (uint32_t)(i - (size_t)numArgs)))
        ok = opError(main, "out of memory");
    }
  }
  free(fresh);
  if (!ok)
    return false;
  Allocation **byIndex = thunkyArenaAlloc(ex->arena, (total + 1) * sizeof *byIndex);
  if (!byIndex)
    return opError(main, "out of memory");
  for (size_t i = 0; i < total; ++i) {
    int64_t index = all[i]->index;
    if (index < 0 || (uint64_t)index >= total || byIndex[index]) {
      thunkyEmitError(loc, "allocation index %" PRId64 " is %s; the %zu arguments and "
                           "constants of @main must number 0..%zu once each",
                      index, index < 0 || (uint64_t)index >= total ? "out of range" : "used twice",
                      total, total ? total - 1 : 0);
      return false;
    }
    byIndex[index] = all[i];
  }
  if (total) {
    if (!exe->buffer_allocations &&
        !(exe->buffer_allocations = newMessage(
              ex, &xla__gpu__gpu_executable_proto__repeated_buffer_allocations__descriptor)))
      return opError(main, "out of memory");
    exe->buffer_allocations->n_values = total;
    exe->buffer_allocations->values = byIndex;
  }
  return true;
}

/* Puts each constant op's bytes back into the executable's constant table. */
static bool exportConstants(Exporter *ex, Executable *exe) {
  size_t added = 0;
  /* The table's entries by allocation (the first of each), and room for one
   * new entry per constant op, so that no lookup or growth is quadratic. */
  ThunkyHashMap entryOf = {0};
  Xla__Gpu__GpuExecutableProto__ConstantInfoProto **table =
      thunkyArenaAlloc(ex->arena, (exe->n_constants + ex->numConstants + 1) * sizeof *table);
  if (!table)
    return opError(mlirBlockGetParentOperation(ex->entry), "out of memory");
  if (exe->n_constants)
    memcpy(table, exe->constants, exe->n_constants * sizeof *table);
  exe->constants = table;
  bool ok = true;
  for (size_t k = exe->n_constants; ok && k-- > 0;)
    ok = thunkyHashMapPut(&entryOf, (uint64_t)exe->constants[k]->allocation_index, (uint32_t)k);
  for (size_t i = 0; ok && i < ex->numConstants; ++i) {
    MlirOperation op = ex->constants[i].op;
    int64_t index = ex->constants[i].number;
    bool omitted = !mlirAttributeIsNull(discardable(op, THUNKY_ATTR_CONTENT_OMITTED));
    Xla__Gpu__GpuExecutableProto__ConstantInfoProto *entry = NULL;
    uint32_t k;
    if (thunkyHashMapGet(&entryOf, (uint64_t)index, &k))
      entry = exe->constants[k];
    if (!entry) {
      entry = newMessage(ex, &xla__gpu__gpu_executable_proto__constant_info_proto__descriptor);
      char *name = thunkyArenaAlloc(ex->arena, 32);
      if (!entry || !name) {
        ok = opError(op, "out of memory");
        break;
      }
      snprintf(name, 32, "thunky_const_%zu", added++);
      entry->symbol_name = name;
      entry->allocation_index = index, entry->has_allocation_index = index != 0;
      exe->constants[exe->n_constants++] = entry;
    }
    if (omitted || entry->content)
      continue;
    MlirStringRef value = mlirStringAttrGetValue(inherent(op, "value"));
    entry->content = newMessage(ex, &xla__gpu__dense_data_intermediate_proto__descriptor);
    void *copy = thunkyArenaCopy(ex->arena, value.data, value.length);
    if (!entry->content || !copy) {
      ok = opError(op, "out of memory");
      break;
    }
    entry->content->data = (ProtobufCBinaryData){value.length, copy};
    entry->content->has_data = value.length != 0;
  }
  thunkyHashMapDestroy(&entryOf);
  return ok;
}

/* Execution ids kept on async_starts, so fresh ones do not collide. */
static MlirWalkResult maxAsyncId(MlirOperation op, void *userData) {
  if (thunkyOpGetKind(op) != THUNKY_OP_ASYNC_START)
    return MlirWalkResultAdvance;
  MlirAttribute kept = discardable(op, THUNKY_ATTR_THUNK);
  MlirAttribute start = mlirAttributeIsNull(kept) || !mlirAttributeIsADictionary(kept)
                            ? kept
                            : mlirDictionaryAttrGetElementByName(kept, str("async_start_thunk"));
  MlirAttribute id = mlirAttributeIsNull(start) || !mlirAttributeIsADictionary(start)
                         ? start
                         : mlirDictionaryAttrGetElementByName(start, str("async_execution_id"));
  if (!mlirAttributeIsNull(id) && mlirAttributeIsAInteger(id)) {
    uint64_t v = mlirIntegerAttrGetValueUInt(id);
    uint64_t *next = userData;
    if (v >= *next)
      *next = v + 1;
  }
  return MlirWalkResultAdvance;
}

/*--- the executable ------------------------------------------------------*/

static Executable *startExecutable(Exporter *ex, MlirOperation module) {
  MlirAttribute kept = mlirOperationGetAttributeByName(module, str(THUNKY_ATTR_EXECUTABLE));
  if (!mlirAttributeIsNull(kept))
    return (Executable *)thunkyAttrToProto(kept, &xla__gpu__gpu_executable_proto__descriptor,
                                           ex->arena, mlirOperationGetLocation(module),
                                           THUNKY_ATTR_EXECUTABLE);
  /* XLA refuses an executable without a buffer assignment; empty will do. */
  Executable *exe = newMessage(ex, &xla__gpu__gpu_executable_proto__descriptor);
  if (exe)
    exe->buffer_assignment = newMessage(ex, &xla__buffer_assignment_proto__descriptor);
  return exe && exe->buffer_assignment ? exe : NULL;
}

/* The bytes to write: the executable, inside the wrapper it came in. */
static ProtobufCMessage *outerMessage(Exporter *ex, MlirOperation module, Executable *exe) {
  MlirAttribute kept = mlirOperationGetAttributeByName(module, str(THUNKY_ATTR_WRAPPER));
  if (mlirAttributeIsNull(kept))
    return &exe->base;
  Xla__HumanReadableAotExecutable *w = (Xla__HumanReadableAotExecutable *)thunkyAttrToProto(
      kept, &xla__human_readable_aot_executable__descriptor, ex->arena,
      mlirOperationGetLocation(module), THUNKY_ATTR_WRAPPER);
  if (!w)
    return NULL;
  w->backend_executable_case =
      XLA__HUMAN_READABLE_AOT_EXECUTABLE__BACKEND_EXECUTABLE_GPU_EXECUTABLE;
  w->gpu_executable = exe;
  return &w->base;
}

/* Appends `msg`'s bytes to `out`, refusing bytes that would not read back
 * (in XLA or in import). */
static bool packChecked(MlirOperation module, ProtobufCMessage *msg, ThunkyBuffer *out) {
  size_t size = protobuf_c_message_get_packed_size(msg);
  uint8_t *bytes = thunkyBufferExtend(out, size);
  ThunkyError why;
  if (!bytes)
    return mlirLogicalResultIsSuccess(thunkyEmitOpError(module, "out of memory"));
  protobuf_c_message_pack(msg, bytes);
  if (!thunkyCheckWire(msg->descriptor, bytes, size, &why))
    return mlirLogicalResultIsSuccess(thunkyEmitOpError(
        module, "export-thunky: the %s would not read back: %s", msg->descriptor->name,
        why.message));
  return true;
}

/* The layering to write: the one asked for, else the one imported. */
static bool chooseLayering(MlirOperation module, MlirStringRef asked, ThunkyLayering *l) {
  MlirAttribute kept = mlirOperationGetAttributeByName(module, str(THUNKY_ATTR_CONTAINER));
  MlirStringRef name = asked;
  if (!name.length && !mlirAttributeIsNull(kept)) {
    if (!mlirAttributeIsAString(kept))
      return mlirLogicalResultIsSuccess(
          thunkyEmitOpError(module, "%s must be a string", THUNKY_ATTR_CONTAINER));
    name = mlirStringAttrGetValue(kept);
  }
  *l = THUNKY_LAYERING_EXECUTABLE;
  if (name.length && !thunkyLayeringParse(name.data, name.length, l))
    return mlirLogicalResultIsSuccess(thunkyEmitOpError(
        module, "unknown container layering '%.*s' (executable, split, options, split-options, "
                "ifrt+options or ifrt+split-options)", (int)name.length, name.data));
  return true;
}

/* The bytes of the message kept in module attribute `name`; none when the
 * attribute is absent. */
static bool packKept(Exporter *ex, MlirOperation module, const char *name,
                     const ProtobufCMessageDescriptor *desc, ThunkyBuffer *out) {
  MlirAttribute kept = mlirOperationGetAttributeByName(module, str(name));
  if (mlirAttributeIsNull(kept))
    return true;
  ProtobufCMessage *msg =
      thunkyAttrToProto(kept, desc, ex->arena, mlirOperationGetLocation(module), name);
  return msg && packChecked(module, msg, out);
}

/* The executable in the layers around it: the golden-file wrapper for a
 * bare executable, else the container layering. */
static bool writeOuter(Exporter *ex, MlirOperation module, ThunkyLayering layering,
                       Executable *exe, ThunkyBuffer *out) {
  if (layering == THUNKY_LAYERING_EXECUTABLE) {
    ProtobufCMessage *outer = outerMessage(ex, module, exe);
    return outer && packChecked(module, outer, out);
  }
  ThunkyBuffer bytes = {0}, options = {0}, metadata = {0};
  ThunkyError why;
  bool ok = packChecked(module, &exe->base, &bytes) &&
            packKept(ex, module, THUNKY_ATTR_OPTIONS,
                     &xla__executable_and_options_proto__descriptor, &options) &&
            packKept(ex, module, THUNKY_ATTR_IFRT_METADATA,
                     &xla__ifrt__serialized_xla_executable_metadata__descriptor, &metadata);
  if (ok && thunkyLayeringHasEnvelope(layering) && !metadata.size)
    ok = mlirLogicalResultIsSuccess(thunkyEmitOpError(
        module, "export-thunky: layering %s needs the IFRT metadata the module was imported "
                "with (%s)", thunkyLayeringName(layering), THUNKY_ATTR_IFRT_METADATA));
  ThunkyContainer c = {.layering = layering,
                       .executable = {bytes.data, bytes.size},
                       .options = {options.data, options.size},
                       .metadata = {metadata.data, metadata.size}};
  /* Snappy, as XLA writes its split-proto files. */
  if (ok && !thunkyContainerWrite(&c, THUNKY_COMPRESSION_SNAPPY, out, &why))
    ok = mlirLogicalResultIsSuccess(thunkyEmitOpError(module, "export-thunky: %s", why.message));
  thunkyBufferDestroy(&bytes), thunkyBufferDestroy(&options), thunkyBufferDestroy(&metadata);
  return ok;
}

MlirLogicalResult thunkyExportExecutable(MlirOperation module, MlirStringCallback callback,
                                         void *userData) {
  return thunkyExportExecutableAs(module, mlirStringRefCreate(NULL, 0), callback, userData);
}

MlirLogicalResult thunkyExportExecutableAs(MlirOperation module, MlirStringRef layeringName,
                                           MlirStringCallback callback, void *userData) {
  Exporter ex = {.ctx = mlirOperationGetContext(module), .arena = thunkyArenaCreate(),
                 .nextAsyncId = 1};
  if (!ex.arena)
    return thunkyEmitOpError(module, "out of memory");
  ThunkyLayering layering;
  MlirOperation main = findMain(module);
  bool ok = chooseLayering(module, layeringName, &layering);
  if (ok && mlirOperationIsNull(main))
    ok = mlirLogicalResultIsSuccess(
        thunkyEmitOpError(module, "export-thunky needs a func.func @main"));
  Executable *exe = ok ? startExecutable(&ex, module) : NULL;
  ok = ok && exe;
  if (ok) {
    ex.entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(main, 0));
    mlirOperationWalk(main, maxAsyncId, &ex.nextAsyncId, MlirWalkPreOrder);
    List thunks = {0};
    ok = collectAllocations(&ex, main, exe) && exportConstants(&ex, exe) &&
         exportBlock(&ex, ex.entry, &thunks);
    exe->n_thunks = thunks.count;
    exe->thunks = (Thunk **)thunks.items;
  }
  ThunkyBuffer out = {0};
  ok = ok && writeOuter(&ex, module, layering, exe, &out);
  if (ok)
    callback(mlirStringRefCreate((const char *)out.data, out.size), userData);
  thunkyBufferDestroy(&out);
  free(ex.argAllocation), free(ex.constants), free(ex.asyncs);
  thunkyHashMapDestroy(&ex.constantOf), thunkyHashMapDestroy(&ex.asyncOf);
  thunkyArenaDestroy(ex.arena);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}
