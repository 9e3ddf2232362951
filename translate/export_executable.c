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
#include "export.h"

#include "thunky-c/format/Container.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/translate/Translate.h"
#include "thunky-c/format/Wire.h"
#include "proto_attr.h"
#include "xla/pjrt/proto/compile_options.pb-c.h"
#include "xla/python/pjrt_ifrt/executable_metadata.pb-c.h"
#include "xla/util/split_proto/human_readable_aot_executable.pb-c.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The allocation #thunky.allocation records, each field written when it
 * is not zero (import used this form only for allocations written so). */
static Allocation *compactAllocation(Exporter *ex, const ThunkyAllocation *c, MlirLocation loc) {
  Allocation *a = thunkyExportNewMessage(ex, &xla__buffer_allocation_proto__descriptor);
  Xla__BufferAllocationProto__Assigned **assigned =
      thunkyArenaAlloc(ex->arena, (c->numAssigned + 1) * sizeof *assigned);
  if (!a || !assigned) {
    thunkyEmitError(loc, "out of memory");
    return NULL;
  }
  a->index = c->index, a->has_index = c->index != 0;
  a->is_entry_computation_parameter = a->has_is_entry_computation_parameter = c->parameter >= 0;
  a->parameter_number = c->parameter > 0 ? c->parameter : 0;
  a->has_parameter_number = c->parameter > 0;
  a->color = c->color, a->has_color = c->color != 0;
#define FLAG(field, bit) a->field = a->has_##field = (c->flags & (bit)) != 0
  FLAG(is_thread_local, THUNKY_ALLOCATION_THREAD_LOCAL);
  FLAG(maybe_live_out, THUNKY_ALLOCATION_LIVE_OUT);
  FLAG(is_tuple, THUNKY_ALLOCATION_TUPLE);
  FLAG(is_constant, THUNKY_ALLOCATION_CONSTANT);
  FLAG(is_parameter_aliased_with_output, THUNKY_ALLOCATION_ALIASED);
#undef FLAG
  a->n_parameter_shape_index = c->numParameterShapeIndex;
  if (c->numParameterShapeIndex &&
      !(a->parameter_shape_index = thunkyArenaCopy(
            ex->arena, c->parameterShapeIndex, c->numParameterShapeIndex * sizeof(int64_t)))) {
    thunkyEmitError(loc, "out of memory");
    return NULL;
  }
  for (size_t i = 0; i < c->numAssigned; ++i) {
    const ThunkyAllocationAssigned *from = &c->assigned[i];
    Xla__BufferAllocationProto__Assigned *to =
        thunkyExportNewMessage(ex, &xla__buffer_allocation_proto__assigned__descriptor);
    if (!to) {
      thunkyEmitError(loc, "out of memory");
      return NULL;
    }
    to->logical_buffer_id = from->logicalBuffer, to->has_logical_buffer_id = from->logicalBuffer != 0;
    to->offset = from->offset, to->has_offset = from->offset != 0;
    to->size = from->size, to->has_size = from->size != 0;
    to->element_type = from->elementType, to->has_element_type = from->elementType != 0;
    assigned[i] = to;
  }
  a->n_assigned = c->numAssigned, a->assigned = assigned;
  return a;
}

/* The allocation an argument or constant op describes (`attr`: its
 * #thunky.allocation, or the older dictionary); `fresh` when it came with
 * none (written by hand, or stripped: a #thunky.allocation without an
 * index). */
static Allocation *describedAllocation(Exporter *ex, MlirAttribute attr,
                                       MlirLocation loc, bool *fresh) {
  ThunkyAllocation c = thunkyAllocationEmpty();
  if (!mlirAttributeIsNull(attr) && thunkyAttributeIsAAllocation(attr))
    thunkyAllocationAttrGetValue(attr, &c);
  *fresh = mlirAttributeIsNull(attr) || (thunkyAttributeIsAAllocation(attr) && c.index < 0);
  if (*fresh)
    return thunkyExportNewMessage(ex, &xla__buffer_allocation_proto__descriptor);
  if (thunkyAttributeIsAAllocation(attr))
    return compactAllocation(ex, &c, loc);
  return (Allocation *)thunkyAttrToProto(attr, &xla__buffer_allocation_proto__descriptor,
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

/*--- renumbering ----------------------------------------------------------*/

/* XLA finds allocation i at position i, so the indices must be 0..n-1. The
 * thunky.allocation indices are kept as they are when they are (an unchanged
 * module keeps its bytes); when they have gaps (an argument or constant was
 * deleted) they are renumbered in their order, and so is every allocation
 * index the executable's residual names (renumberResidual). Slices are
 * written from SSA values, so they follow by themselves. */
typedef struct Recorded {
  int64_t index; /* as thunky.allocation says */
  size_t at;     /* position among the arguments and constants */
} Recorded;

typedef struct Renumbering {
  const Recorded *old; /* the recorded indices in order: old[j] is now j */
  size_t numOld, total;
  bool renumbered;
} Renumbering;

static int compareRecorded(const void *a, const void *b) {
  int64_t x = ((const Recorded *)a)->index, y = ((const Recorded *)b)->index;
  return (x > y) - (x < y);
}

/* The index now of the allocation the residual calls `index`; -1 when no
 * argument or constant holds it any more. */
static int64_t renumbered(const Renumbering *r, int64_t index) {
  if (!r->renumbered)
    return index >= 0 && (uint64_t)index < r->total ? index : -1;
  size_t lo = 0, hi = r->numOld;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->old[mid].index < index)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < r->numOld && r->old[lo].index == index ? (int64_t)lo : -1;
}

/* The allocation indices in the executable's own fields (the rest of the
 * schema names allocations only in slices, written from SSA values, or in
 * the tables of their own that DynamicSliceFusion and HostExecuteStart
 * carry): output_info_map and the constant table. An output whose
 * allocation is gone is an error; a constant table entry whose allocation
 * is gone goes too. The HLO module and buffer assignment, debug data kept
 * as bytes, stay as they are. */
static bool renumberResidual(MlirOperation main, const Renumbering *r, Executable *exe) {
  for (size_t i = 0; i < exe->n_output_info_map; ++i) {
    Xla__Gpu__GpuExecutableProto__OutputInfoProto *o = exe->output_info_map[i]->output_info;
    if (!o)
      continue;
    int64_t now = renumbered(r, o->allocation_index);
    if (now < 0) {
      thunkyEmitError(mlirOperationGetLocation(main),
                      "output_info_map entry %zu is in allocation %" PRId64
                      ", which no argument or constant of @main holds any more",
                      i, o->allocation_index);
      return false;
    }
    if (now != o->allocation_index)
      o->allocation_index = now, o->has_allocation_index = now != 0;
  }
  size_t kept = 0;
  for (size_t i = 0; i < exe->n_constants; ++i) {
    Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c = exe->constants[i];
    int64_t now = c->allocation_index == -1 ? -1 : renumbered(r, c->allocation_index);
    if (now < 0 && c->allocation_index != -1)
      continue; /* its allocation was deleted */
    if (now >= 0 && now != c->allocation_index)
      c->allocation_index = now, c->has_allocation_index = now != 0;
    exe->constants[kept++] = c;
  }
  exe->n_constants = kept;
  return true;
}

/* Numbers the allocations: the recorded indices if they are 0..k-1, else
 * their order; those without one (written by hand) come after. */
static bool numberAllocations(Exporter *ex, MlirOperation main, Allocation **all,
                              const bool *fresh, size_t total, Renumbering *r) {
  MlirLocation loc = mlirOperationGetLocation(main);
  Recorded *old = thunkyArenaAlloc(ex->arena, (total + 1) * sizeof *old);
  if (!old)
    return opError(main, "out of memory");
  size_t k = 0;
  for (size_t i = 0; i < total; ++i)
    if (!fresh[i])
      old[k++] = (Recorded){all[i]->index, i};
  qsort(old, k, sizeof *old, compareRecorded);
  for (size_t j = 0; j < k; ++j)
    if (old[j].index < 0 || (j > 0 && old[j].index == old[j - 1].index)) {
      thunkyEmitError(loc, "allocation index %" PRId64 " is %s; the thunky.allocation "
                           "indices of @main's %zu arguments and constants must be >= 0 "
                           "and differ (export numbers them 0..%zu in their order)",
                      old[j].index, old[j].index < 0 ? "negative" : "used twice", total,
                      total ? total - 1 : 0);
      return false;
    }
  *r = (Renumbering){old, k, total, k > 0 && old[k - 1].index != (int64_t)(k - 1)};
  for (size_t j = 0; r->renumbered && j < k; ++j) {
    Allocation *a = all[old[j].at];
    a->index = (int64_t)j, a->has_index = j != 0;
  }
  return true;
}

/* Every argument and constant is one allocation, numbered 0..n-1 (see
 * numberAllocations). */
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
  int64_t next;
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
  }
  Renumbering numbering = {0};
  ok = ok && numberAllocations(ex, main, all, fresh, total, &numbering);
  next = (int64_t)numbering.numOld;
  for (size_t i = 0; i < total && ok; ++i) {
    bool isArg = i < (size_t)numArgs;
    MlirValue v = isArg ? mlirBlockGetArgument(ex->entry, (intptr_t)i)
                        : mlirOperationGetResult(
                              (MlirOperation){constantOps.items[i - (size_t)numArgs]}, 0);
    setSize(all[i], thunkyValueGetBufferSize(v));
    if (fresh[i]) {
      all[i]->index = next++, all[i]->has_index = all[i]->index != 0;
      if (!isArg)
        all[i]->is_constant = all[i]->has_is_constant = 1;
    }
    if (isArg)
      ex->argAllocation[i] = all[i]->index;
    else {
      ex->constants[i - (size_t)numArgs] =
          (Holder){{constantOps.items[i - (size_t)numArgs]}, all[i]->index};
      if (!thunkyHashMapPut(&ex->constantOf,
                            (uint64_t)(uintptr_t)constantOps.items[i - (size_t)numArgs],
                            (uint32_t)(i - (size_t)numArgs)))
        ok = opError(main, "out of memory");
    }
  }
  ok = ok && renumberResidual(main, &numbering, exe) &&
       thunkyExportDeclaredRoles(ex, main, exe, all, fresh, (size_t)numArgs);
  free(fresh);
  if (!ok)
    return false;
  Allocation **byIndex = thunkyArenaAlloc(ex->arena, (total + 1) * sizeof *byIndex);
  if (!byIndex)
    return opError(main, "out of memory");
  for (size_t i = 0; i < total; ++i)
    byIndex[all[i]->index] = all[i]; /* numberAllocations made them 0..total-1 */
  if (total) {
    if (!exe->buffer_allocations &&
        !(exe->buffer_allocations = thunkyExportNewMessage(
              ex, &xla__gpu__gpu_executable_proto__repeated_buffer_allocations__descriptor)))
      return opError(main, "out of memory");
    exe->buffer_allocations->n_values = total;
    exe->buffer_allocations->values = byIndex;
  }
  return true;
}

/* Puts each constant op's bytes and name back into the executable's
 * constant table; where import left the table out, it is rebuilt, one entry
 * per op in op order. */
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
    /* The op's name wins over the table's, as the op's other fields do. */
    MlirAttribute named = inherent(op, "name");
    MlirStringRef s = mlirAttributeIsNull(named) ? str("") : mlirStringAttrGetValue(named);
    char *symbol = mlirAttributeIsNull(named) ? NULL : thunkyArenaString(ex->arena, s.data, s.length);
    if (!mlirAttributeIsNull(named) && !symbol) {
      ok = opError(op, "out of memory");
      break;
    }
    Xla__Gpu__GpuExecutableProto__ConstantInfoProto *entry = NULL;
    uint32_t k;
    if (thunkyHashMapGet(&entryOf, (uint64_t)index, &k))
      entry = exe->constants[k];
    if (!entry) {
      entry = thunkyExportNewMessage(
          ex, &xla__gpu__gpu_executable_proto__constant_info_proto__descriptor);
      char *name = symbol ? symbol : thunkyArenaAlloc(ex->arena, 32);
      if (!entry || !name) {
        ok = opError(op, "out of memory");
        break;
      }
      if (!symbol)
        snprintf(name, 32, "thunky_const_%zu", added++);
      entry->symbol_name = name;
      entry->allocation_index = index, entry->has_allocation_index = index != 0;
      exe->constants[exe->n_constants++] = entry;
    } else if (symbol) {
      entry->symbol_name = symbol;
    }
    if (omitted || entry->content)
      continue;
    MlirStringRef value;
    if (!thunkyAttributeGetBytes(inherent(op, "value"), &value)) {
      ok = opError(op, "its value is neither a string nor a byte resource with its data");
      break;
    }
    entry->content =
        thunkyExportNewMessage(ex, &xla__gpu__dense_data_intermediate_proto__descriptor);
    if (!entry->content) {
      ok = opError(op, "out of memory");
      break;
    }
    /* The attribute outlives the export: no copy. */
    entry->content->data = (ProtobufCBinaryData){value.length, (uint8_t *)(uintptr_t)value.data};
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
  Executable *exe = thunkyExportNewMessage(ex, &xla__gpu__gpu_executable_proto__descriptor);
  if (exe)
    exe->buffer_assignment = thunkyExportNewMessage(ex, &xla__buffer_assignment_proto__descriptor);
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
  if (!thunkyValidateWire(msg->descriptor, bytes, size, &why))
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

/* protobuf-c's packing, handed on in pieces: the long bytes values (the
 * device code) as they are, the rest gathered into chunks. */
typedef struct Sink {
  ProtobufCBuffer base;
  MlirStringCallback callback;
  void *userData;
  size_t used;
  uint8_t chunk[1 << 16];
} Sink;

static void flushSink(Sink *s) {
  if (s->used)
    s->callback(mlirStringRefCreate((const char *)s->chunk, s->used), s->userData);
  s->used = 0;
}

static void appendToSink(ProtobufCBuffer *buffer, size_t length, const uint8_t *data) {
  Sink *s = (Sink *)buffer;
  bool whole = length > sizeof s->chunk / 2;
  if (whole || s->used + length > sizeof s->chunk)
    flushSink(s);
  if (whole) {
    s->callback(mlirStringRefCreate((const char *)data, length), s->userData);
    return;
  }
  if (length) /* protobuf-c passes empty bytes fields with no data */
    memcpy(s->chunk + s->used, data, length);
  s->used += length;
}

/* The executable in the layers around it: the golden-file wrapper for a
 * bare executable, else the container layering; written to `out`, or, for
 * a bare executable that packs well, streamed to the callback (*streamed
 * set): packed whole, a real executable's device code would be held twice. */
/* The serialize() pickle the module was imported from, if any; its bytes
 * are the attribute's, which outlives the export. */
static bool pickleOf(MlirOperation module, ThunkyContainer *c) {
  MlirAttribute pickle = mlirOperationGetAttributeByName(module, str(THUNKY_ATTR_PICKLE));
  MlirAttribute at = mlirOperationGetAttributeByName(module, str(THUNKY_ATTR_PICKLE_AT));
  MlirAttribute frame = mlirOperationGetAttributeByName(module, str(THUNKY_ATTR_PICKLE_FRAME));
  if (mlirAttributeIsNull(pickle))
    return true;
  if (!mlirAttributeIsAString(pickle) || mlirAttributeIsNull(at) ||
      !mlirAttributeIsAInteger(at) || mlirIntegerAttrGetValueInt(at) < 0 ||
      mlirAttributeIsNull(frame) || !mlirAttributeIsAInteger(frame))
    return mlirLogicalResultIsSuccess(thunkyEmitOpError(
        module, "%s must be a string, with integers %s and %s", THUNKY_ATTR_PICKLE,
        THUNKY_ATTR_PICKLE_AT, THUNKY_ATTR_PICKLE_FRAME));
  MlirStringRef bytes = mlirStringAttrGetValue(pickle);
  c->pickle = (ThunkyBytes){(const uint8_t *)bytes.data, bytes.length};
  c->pickleAt = (size_t)mlirIntegerAttrGetValueInt(at);
  c->pickleFrame = mlirIntegerAttrGetValueInt(frame);
  return true;
}

/* The compilation cache entry the module was imported from, if any. */
static bool cacheEntryOf(MlirOperation module, ThunkyContainer *c) {
  MlirAttribute kind = mlirOperationGetAttributeByName(module, str(THUNKY_ATTR_CACHE));
  MlirAttribute time = mlirOperationGetAttributeByName(module, str(THUNKY_ATTR_CACHE_TIME));
  if (mlirAttributeIsNull(kind))
    return true;
  MlirStringRef name = mlirAttributeIsAString(kind) ? mlirStringAttrGetValue(kind)
                                                    : mlirStringRefCreate(NULL, 0);
  c->cache = mlirStringRefEqual(name, str("zlib"))   ? THUNKY_CACHE_ZLIB
             : mlirStringRefEqual(name, str("zstd")) ? THUNKY_CACHE_ZSTD
                                                     : THUNKY_CACHE_NONE;
  if (!c->cache)
    return mlirLogicalResultIsSuccess(thunkyEmitOpError(
        module, "%s must be \"zlib\" or \"zstd\"", THUNKY_ATTR_CACHE));
  if (mlirAttributeIsNull(time) || !mlirAttributeIsAInteger(time) ||
      mlirIntegerAttrGetValueInt(time) < 0 || mlirIntegerAttrGetValueInt(time) > UINT32_MAX)
    return mlirLogicalResultIsSuccess(thunkyEmitOpError(
        module, "%s needs %s, a compile time of 0 to 2^32-1", THUNKY_ATTR_CACHE,
        THUNKY_ATTR_CACHE_TIME));
  c->cacheCompileTime = (uint32_t)mlirIntegerAttrGetValueInt(time);
  return true;
}

static bool writeOuter(Exporter *ex, MlirOperation module, ThunkyLayering layering,
                       Executable *exe, ThunkyBuffer *out, MlirStringCallback callback,
                       void *userData, bool *streamed) {
  ThunkyContainer c = {.layering = layering};
  if (!cacheEntryOf(module, &c) || !pickleOf(module, &c))
    return false;
  if (layering == THUNKY_LAYERING_EXECUTABLE && !c.cache && !c.pickle.size) {
    ProtobufCMessage *outer = outerMessage(ex, module, exe);
    if (!outer)
      return false;
    Sink *sink = thunkyMessagePacksWell(outer) ? malloc(sizeof *sink) : NULL;
    if (!sink)
      return packChecked(module, outer, out); /* which says what is wrong */
    *sink = (Sink){.base = {.append = appendToSink}, .callback = callback,
                   .userData = userData};
    protobuf_c_message_pack_to_buffer(outer, &sink->base);
    flushSink(sink);
    free(sink);
    *streamed = true;
    return true;
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
  c.executable = (ThunkyBytes){bytes.data, bytes.size};
  c.options = (ThunkyBytes){options.data, options.size};
  c.metadata = (ThunkyBytes){metadata.data, metadata.size};
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
                 .nextAsyncId = 1, .symbols = mlirSymbolTableCreate(module)};
  if (!ex.arena || mlirSymbolTableIsNull(ex.symbols)) {
    thunkyArenaDestroy(ex.arena);
    if (!mlirSymbolTableIsNull(ex.symbols))
      mlirSymbolTableDestroy(ex.symbols);
    return thunkyEmitOpError(module, "%s", ex.arena ? "export-thunky needs a builtin.module"
                                                    : "out of memory");
  }
  ThunkyLayering layering;
  MlirOperation main = findMain(module);
  bool ok = chooseLayering(module, layeringName, &layering);
  if (ok && mlirOperationIsNull(main))
    ok = mlirLogicalResultIsSuccess(
        thunkyEmitOpError(module, "export-thunky needs a func.func @main"));
  Executable *exe = ok ? startExecutable(&ex, module) : NULL;
  ok = ok && exe;
  ex.exe = exe;
  if (ok) {
    ex.entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(main, 0));
    mlirOperationWalk(main, maxAsyncId, &ex.nextAsyncId, MlirWalkPreOrder);
    List thunks = {0};
    ok = collectAllocations(&ex, main, exe) && exportConstants(&ex, exe) &&
         thunkyExportScanGroups(&ex, main) && thunkyExportBlock(&ex, ex.entry, &thunks);
    exe->n_thunks = thunks.count;
    exe->thunks = (Thunk **)thunks.items;
  }
  ThunkyBuffer out = {0};
  bool streamed = false;
  ok = ok && writeOuter(&ex, module, layering, exe, &out, callback, userData, &streamed);
  if (ok && !streamed)
    callback(mlirStringRefCreate((const char *)out.data, out.size), userData);
  thunkyBufferDestroy(&out);
  free(ex.argAllocation), free(ex.constants), free(ex.asyncs);
  thunkyHashMapDestroy(&ex.constantOf), thunkyHashMapDestroy(&ex.asyncOf);
  thunkyHashMapDestroy(&ex.startsInFlight);
  free(ex.groups), thunkyHashMapDestroy(&ex.groupOf);
  thunkyArenaDestroy(ex.arena);
  mlirSymbolTableDestroy(ex.symbols);
  return ok ? mlirLogicalResultSuccess() : mlirLogicalResultFailure();
}
