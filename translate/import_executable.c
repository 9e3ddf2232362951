/*===- import_executable.c - GpuExecutableProto -> thunky module --------===*
 *
 * The mapping follows upstream JAX's importer (@main arguments: parameters,
 * fresh outputs, then scratch; constants as thunky.constant; slices; the
 * thunk kinds upstream maps as first-class ops; every other thunk as
 * thunky.call_thunk_proto with its slices renumbered over its operands), and
 * loses nothing: fields an op does not model stay on it as attributes
 * (executable_attrs.h), sequential thunks stay thunky.sequential (unless
 * an async token must leave one, import_flatten.c), PTX and
 * cubin stay once on the module, and each op's location names its thunk.
 *
 *===--------------------------------------------------------------------===*/
#include "import.h"

#include "thunky-c/translate/Translate.h"
#include "proto_attr.h"
#include "shape_type.h"
#include "signature.h"
#include "thunky-c/dialect/Diagnostics.h"
#include "xla/pjrt/proto/compile_options.pb-c.h"
#include "xla/python/pjrt_ifrt/executable_metadata.pb-c.h"

#include "mlir-c/BuiltinTypes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ProtobufCMessageDescriptor *const opaqueMessages[] = {
    &xla__hlo_module_proto_with_config__descriptor,
    &xla__buffer_assignment_proto__descriptor,
    &xla__executable_and_options_proto__descriptor,
    NULL,
};

/* What the module's resources are called (bytes_attr.h), where a field's
 * own name would not say what it holds. */
static const ThunkyResourceName resourceNames[] = {
    {&xla__gpu__gpu_executable_proto__descriptor, "binary", "module_binary"},
    {&xla__gpu__gpu_executable_proto__descriptor, "asm_text", "module_ptx"},
    {&xla__gpu__gpu_executable_proto__descriptor, "hlo_module_with_config", "hlo_module"},
    {&xla__gpu__gpu_executable_proto__descriptor, "buffer_allocations_debug_summary",
     "buffer_assignment_summary"},
    {NULL, NULL, NULL},
};

/*--- allocations ---------------------------------------------------------*/

/* Constants bigger than this are refused, and so is padding a constant's
 * bytes by more than MAX_CONSTANT_PADDING up to its allocation: a few bytes
 * of input must not make gigabytes of module. */
#define MAX_CONSTANT_BYTES ((int64_t)1 << 30)
#define MAX_CONSTANT_PADDING ((int64_t)1 << 20)

typedef Xla__BufferAllocationProto Allocation;

/* Upstream's order of @main's arguments: parameters (in the model's
 * order), then outputs that are not parameters in shape-index order, then
 * every remaining allocation that is not a constant, by index. */
static bool argumentOrder(Importer *im, size_t **order, size_t *count) {
  const ThunkyExecutable *m = im->model;
  bool *placed = calloc(m->numAllocations + 1, sizeof *placed);
  *order = calloc(m->numAllocations + 1, sizeof **order);
  *count = 0;
  if (!placed || !*order) {
    free(placed);
    return thunkyImportError(im, "%s", "out of memory");
  }
  for (uint32_t p = 0; p < m->numParameters; p++)
    placed[m->parameters[p]] = true, (*order)[(*count)++] = m->parameters[p];
  for (uint32_t o = 0; o < m->numOutputs; o++)
    if (!placed[m->outputs[o].allocation])
      placed[m->outputs[o].allocation] = true, (*order)[(*count)++] = m->outputs[o].allocation;
  for (uint32_t a = 0; a < m->numAllocations; a++)
    if (!placed[a] && m->allocations[a].constant < 0)
      (*order)[(*count)++] = a;
  free(placed);
  return true;
}

/* A role's text, built piece by piece: snprintf per piece cost more than
 * the rest of a parameter's import. Truncates at the buffer's end. */
typedef struct RoleText {
  char text[256];
  size_t used;
} RoleText;

static void putBytes(RoleText *r, const char *s, size_t n) {
  size_t room = sizeof r->text - r->used;
  n = n < room ? n : room;
  memcpy(r->text + r->used, s, n);
  r->used += n;
}

static void put(RoleText *r, const char *s) { putBytes(r, s, strlen(s)); }

static void putInt(RoleText *r, int64_t v) {
  char digits[24];
  size_t at = sizeof digits;
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do
    digits[--at] = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0)
    digits[--at] = '-';
  putBytes(r, digits + at, sizeof digits - at);
}

/* "parameter 0", "output {1, 0}", "parameter 2, output {0}", "scratch". */
static MlirAttribute roleAttr(Importer *im, size_t a) {
  const ThunkyExecutableAllocation *alloc = &im->model->allocations[a];
  RoleText r = {.used = 0};
  if (alloc->parameter >= 0)
    put(&r, "parameter "), putInt(&r, alloc->parameter);
  const Xla__ShapeIndexProto *index = alloc->outputIndex;
  if (alloc->isOutput) {
    put(&r, r.used ? ", output {" : "output {");
    for (size_t i = 0; index && i < index->n_indexes; ++i)
      put(&r, i ? ", " : ""), putInt(&r, index->indexes[i]);
    put(&r, "}");
  }
  if (!r.used)
    put(&r, alloc->proto->is_thread_local ? "thread-local scratch" : "scratch");
  return mlirStringAttrGet(im->ctx, mlirStringRefCreate(r.text, r.used));
}

/* The allocation's fields less its size, which the buffer type carries:
 * the older dictionary form, for allocations #thunky.allocation cannot
 * hold exactly. */
static MlirAttribute allocationDict(Importer *im, size_t a) {
  /* A shallow copy on the stack: the attribute copies what it keeps, and an
   * arena copy per allocation would outlive its use by the whole import. */
  Allocation copy = *im->model->allocations[a].proto;
  copy.has_size = 0;
  return thunkyProtoToAttr(&im->protoCache, &copy.base, NULL);
}

/* Whether a field is present exactly when it is not zero, as XLA writes
 * them; the compact form writes them back so. */
#define CANONICAL(m, f) ((bool)(m)->has_##f == ((m)->f != 0))

static bool assignedCanonical(const Xla__BufferAllocationProto__Assigned *s) {
  return !s->base.n_unknown_fields && CANONICAL(s, logical_buffer_id) && CANONICAL(s, offset) &&
         CANONICAL(s, size) && CANONICAL(s, element_type);
}

/* Whether #thunky.allocation holds `p` exactly: no field present at zero
 * or absent at non-zero, no unknown fields, a parameter number only on an
 * entry parameter, and an output index it has room for. */
static bool compactable(const ThunkyExecutableAllocation *alloc) {
  const Allocation *p = alloc->proto;
  if (p->base.n_unknown_fields || !CANONICAL(p, index) || p->index < 0 ||
      !CANONICAL(p, is_thread_local) || !CANONICAL(p, is_entry_computation_parameter) ||
      !CANONICAL(p, parameter_number) || p->parameter_number < 0 ||
      (p->parameter_number && !p->is_entry_computation_parameter) ||
      !CANONICAL(p, maybe_live_out) || !CANONICAL(p, color) || !CANONICAL(p, is_tuple) ||
      !CANONICAL(p, is_constant) || !CANONICAL(p, is_parameter_aliased_with_output) ||
      (alloc->outputIndex && alloc->outputIndex->n_indexes > THUNKY_MAX_OUTPUT_DEPTH))
    return false;
  for (size_t i = 0; i < p->n_assigned; ++i)
    if (!assignedCanonical(p->assigned[i]))
      return false;
  return true;
}

/* #thunky.allocation for allocation `a`, with its role when it is an
 * argument; null when it cannot hold the allocation exactly (or out of
 * memory). One attribute get: no dictionary, string or type attribute. */
static MlirAttribute allocationCompact(Importer *im, size_t a, bool argument, MlirType shape) {
  const ThunkyExecutableAllocation *alloc = &im->model->allocations[a];
  const Allocation *p = alloc->proto;
  if (!compactable(alloc))
    return mlirAttributeGetNull();
  ThunkyAllocationAssigned few[8], *assigned = few;
  if (p->n_assigned > sizeof few / sizeof *few &&
      !(assigned = malloc(p->n_assigned * sizeof *assigned)))
    return mlirAttributeGetNull();
  for (size_t i = 0; i < p->n_assigned; ++i)
    assigned[i] = (ThunkyAllocationAssigned){p->assigned[i]->logical_buffer_id,
                                             p->assigned[i]->offset, p->assigned[i]->size,
                                             p->assigned[i]->element_type};
  ThunkyAllocation c = thunkyAllocationEmpty();
  c.index = p->index, c.parameter = alloc->parameter, c.shape = shape, c.color = p->color;
  /* The parameter's name, on the allocation that holds all of it, where
   * XLA named each parameter (elideSignature takes the names out of the
   * program shape when they all read back). */
  const Xla__ProgramShapeProto *ps = im->exe->program_shape;
  if (argument && alloc->parameter >= 0 && !p->n_parameter_shape_index && ps &&
      ps->n_parameter_names == ps->n_parameters &&
      (uint64_t)alloc->parameter < ps->n_parameter_names && ps->parameter_names[alloc->parameter])
    c.name = str(ps->parameter_names[alloc->parameter]);
  c.flags = (p->is_thread_local ? THUNKY_ALLOCATION_THREAD_LOCAL : 0) |
            (p->maybe_live_out ? THUNKY_ALLOCATION_LIVE_OUT : 0) |
            (p->is_tuple ? THUNKY_ALLOCATION_TUPLE : 0) |
            (p->is_constant ? THUNKY_ALLOCATION_CONSTANT : 0) |
            (p->is_parameter_aliased_with_output ? THUNKY_ALLOCATION_ALIASED : 0);
  if (argument && alloc->isOutput) {
    c.flags |= THUNKY_ALLOCATION_OUTPUT;
    c.outputDepth = alloc->outputIndex ? alloc->outputIndex->n_indexes : 0;
    if (c.outputDepth)
      memcpy(c.outputIndex, alloc->outputIndex->indexes, c.outputDepth * sizeof *c.outputIndex);
  } else if (argument && alloc->parameter < 0) {
    c.flags |= THUNKY_ALLOCATION_SCRATCH;
  }
  c.numParameterShapeIndex = p->n_parameter_shape_index;
  c.parameterShapeIndex = p->parameter_shape_index;
  c.numAssigned = p->n_assigned, c.assigned = assigned;
  MlirAttribute attr = thunkyAllocationAttrGet(im->ctx, im->fileLoc, &c);
  if (assigned != few)
    free(assigned);
  return attr;
}

/*--- constants -----------------------------------------------------------*/

static bool samePacked(const ProtobufCMessage *a, const ProtobufCMessage *b) {
  size_t size = protobuf_c_message_get_packed_size(a);
  if (size != protobuf_c_message_get_packed_size(b))
    return false;
  uint8_t *x = malloc(2 * size + 1);
  if (!x)
    return false; /* unknown: the caller keeps the original bytes, which is safe */
  protobuf_c_message_pack(a, x);
  protobuf_c_message_pack(b, x + size);
  bool same = memcmp(x, x + size, size) == 0;
  free(x);
  return same;
}

/* Whether export, finding no constant table, writes back entry `c` as it
 * is from the op made for it (export_executable.c exportConstants). */
static bool rebuildsEntry(const Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c,
                          int64_t index, MlirAttribute value, bool omitted) {
  MlirStringRef bytes;
  if (!c->symbol_name || !*c->symbol_name || !thunkyAttributeGetBytes(value, &bytes))
    return false;
  Xla__Gpu__DenseDataIntermediateProto content = XLA__GPU__DENSE_DATA_INTERMEDIATE_PROTO__INIT;
  content.data = (ProtobufCBinaryData){bytes.length, (uint8_t *)(uintptr_t)bytes.data};
  content.has_data = bytes.length != 0;
  Xla__Gpu__GpuExecutableProto__ConstantInfoProto rebuilt =
      XLA__GPU__GPU_EXECUTABLE_PROTO__CONSTANT_INFO_PROTO__INIT;
  rebuilt.symbol_name = c->symbol_name;
  rebuilt.allocation_index = index, rebuilt.has_allocation_index = index != 0;
  rebuilt.content = omitted ? NULL : &content;
  return samePacked(&rebuilt.base, &c->base);
}

/* The op of constant `k`; *rebuilt stays true while export would write its
 * table entry back as it is. */
static bool importConstant(Importer *im, const ThunkyExecutableConstant *k, bool *rebuilt) {
  Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c = k->proto;
  size_t a = k->allocation;
  int64_t size = (int64_t)im->model->allocations[a].size;
  int64_t length = (int64_t)k->bytes.size;
  char what[160];
  snprintf(what, sizeof what, "%s (allocation %zu, %" PRId64 " bytes)",
           c->symbol_name ? c->symbol_name : "(unnamed)", a, size);
  if (size > MAX_CONSTANT_BYTES)
    return thunkyImportError(im, "constant %s is larger than the 1 GiB import limit", what);
  if (size - length > MAX_CONSTANT_PADDING)
    return thunkyImportError(im,
                             "constant %s holds %" PRId64 " bytes, more than 1 MiB short of its "
                             "allocation",
                             what, length);
  const char *symbol = c->symbol_name && *c->symbol_name ? c->symbol_name : NULL;
  const char *resource = symbol ? symbol : "constant";
  MlirAttribute value;
  if (length == size) {
    value = bytesAttr(im, resource, k->bytes.data, (size_t)size);
  } else {
    char *padded = calloc((size_t)size + 1, 1);
    if (!padded)
      return thunkyImportError(im, "%s", "out of memory");
    if (length) /* data is NULL for an empty constant */
      memcpy(padded, k->bytes.data, (size_t)length);
    value = thunkyBytesAttrTake(&im->bytes, resource, padded, (size_t)size);
  }
  MlirAttribute allocation = allocationCompact(im, a, false, (MlirType){NULL});
  if (mlirAttributeIsNull(allocation))
    allocation = allocationDict(im, a);
  if (mlirAttributeIsNull(allocation) || mlirAttributeIsNull(value))
    return thunkyImportError(im, "%s", "out of memory");
  MlirType type = thunkyBufferTypeGet(im->ctx, size);
  MlirNamedAttribute attrs[4];
  intptr_t n = 0;
  attrs[n++] = named(im, "value", value);
  if (symbol)
    attrs[n++] = named(im, "name", stringAttr(im, symbol, strlen(symbol)));
  attrs[n++] = named(im, THUNKY_ATTR_ALLOCATION, allocation);
  if (!k->inProto)
    attrs[n++] = named(im, THUNKY_ATTR_CONTENT_OMITTED, mlirUnitAttrGet(im->ctx));
  *rebuilt = *rebuilt && rebuildsEntry(c, (int64_t)a, value, !k->inProto);
  MlirOperation op = thunkyImportEmit(im, "thunky.constant", 0, NULL, 1, &type, n, attrs, 0);
  im->allocationValue[a] = mlirOperationGetResult(op, 0);
  /* The bytes live in the op; the proto keeps them only if padding made the
   * op's value differ from them. */
  if (k->inProto && length == size)
    thunkyProtoClearField(&c->base, "content");
  return true;
}

/*--- the module ----------------------------------------------------------*/

static MlirOperation buildMain(Importer *im) {
  size_t *order, n;
  if (!argumentOrder(im, &order, &n))
    return (MlirOperation){NULL};
  MlirType *types = malloc((n + 1) * sizeof *types);
  MlirLocation *locs = malloc((n + 1) * sizeof *locs);
  MlirAttribute *argAttrs = malloc((n + 1) * sizeof *argAttrs);
  if (!types || !locs || !argAttrs) {
    free(order), free(types), free(locs), free(argAttrs);
    thunkyImportError(im, "%s", "out of memory");
    return (MlirOperation){NULL};
  }
  MlirIdentifier allocationName = mlirIdentifierGet(im->ctx, str(THUNKY_ATTR_ALLOCATION));
  MlirIdentifier roleName = mlirIdentifierGet(im->ctx, str(THUNKY_ATTR_ROLE));
  MlirIdentifier shapeName = mlirIdentifierGet(im->ctx, str(THUNKY_ATTR_SHAPE));
  for (size_t i = 0; i < n; ++i) {
    size_t a = order[i];
    const Xla__ShapeProto *shape = im->model->allocations[a].shape;
    types[i] = thunkyBufferTypeGet(im->ctx, (int64_t)im->model->allocations[a].size);
    locs[i] = im->fileLoc;
    /* Lossless where it can be, so that export derives the program shape
     * from it (signature.h); else at least the array. */
    MlirType logical = shape ? thunkyShapeToType(im->ctx, im->elementTypes, shape, false)
                             : (MlirType){NULL};
    if (shape && mlirTypeIsNull(logical))
      logical = thunkyImportTensorType(im, shape);
    MlirAttribute compact = allocationCompact(im, a, true, logical);
    MlirAttribute allocation = mlirAttributeIsNull(compact) ? allocationDict(im, a) : compact;
    if (mlirAttributeIsNull(allocation)) {
      free(order), free(types), free(locs), free(argAttrs);
      thunkyImportError(im, "%s", "out of memory");
      return (MlirOperation){NULL};
    }
    MlirNamedAttribute entries[3] = {mlirNamedAttributeGet(allocationName, allocation)};
    intptr_t count = 1;
    /* The older form keeps role and shape beside the dictionary. */
    if (mlirAttributeIsNull(compact))
      entries[count++] = mlirNamedAttributeGet(roleName, roleAttr(im, a));
    if (mlirAttributeIsNull(compact) && !mlirTypeIsNull(logical))
      entries[count++] = mlirNamedAttributeGet(shapeName, mlirTypeAttrGet(logical));
    argAttrs[i] = mlirDictionaryAttrGet(im->ctx, count, entries);
  }
  MlirAttribute fnType = mlirTypeAttrGet(
      mlirFunctionTypeGet(im->ctx, (intptr_t)n, types, 0, NULL));
  MlirNamedAttribute attrs[3] = {
      named(im, "sym_name", mlirStringAttrGet(im->ctx, str("main"))),
      named(im, "function_type", fnType),
      named(im, "arg_attrs", mlirArrayAttrGet(im->ctx, (intptr_t)n, argAttrs)),
  };
  MlirOperationState state = mlirOperationStateGet(str("func.func"), im->fileLoc);
  mlirOperationStateAddAttributes(&state, 3, attrs);
  MlirRegion body = mlirRegionCreate();
  MlirBlock entry = mlirBlockCreate((intptr_t)n, types, locs);
  mlirRegionAppendOwnedBlock(body, entry);
  mlirOperationStateAddOwnedRegions(&state, 1, &body);
  free(types), free(locs), free(argAttrs);
  for (size_t i = 0; i < n; ++i)
    im->allocationValue[order[i]] = mlirBlockGetArgument(entry, (intptr_t)i);
  free(order);
  im->block = entry;
  return mlirOperationCreate(&state);
}

/* The constant table leaves the executable when export rebuilds every
 * entry from the ops, in op order, as it is. */
static bool importBody(Importer *im) {
  size_t made = 0;
  bool rebuilt = true;
  for (uint32_t c = 0; c < im->model->numConstants; ++c) {
    const ThunkyExecutableConstant *k = &im->model->constants[c];
    /* Constants of argument allocations, and those of none (module globals
     * only), stay in the executable's table. */
    if (k->allocation == THUNKY_NO_ALLOCATION ||
        !mlirValueIsNull(im->allocationValue[k->allocation])) {
      rebuilt = false;
      continue;
    }
    rebuilt = rebuilt && made < im->exe->n_constants && im->exe->constants[made] == k->proto;
    ++made;
    if (!importConstant(im, k, &rebuilt))
      return false;
  }
  if (rebuilt && made == im->exe->n_constants)
    thunkyProtoClearField(&im->exe->base, "constants");
  if (!thunkyImportThunks(im, im->exe->n_thunks, im->exe->thunks))
    return false;
  im->loc = im->fileLoc;
  thunkyImportEmit(im, "func.return", 0, NULL, 0, NULL, 0, NULL, 0);
  return true;
}

/*--- what @main's arguments give back -------------------------------------*/

static bool sameOutputs(const Executable *exe, ThunkyOutputEntry *const *made, size_t count) {
  if (count != exe->n_output_info_map)
    return false;
  for (size_t i = 0; i < count; ++i)
    if (!samePacked(&made[i]->base, &exe->output_info_map[i]->base))
      return false;
  return true;
}

/* Leaves the output_info_map, and the program shape's parameters, their
 * names and the result, out of the executable when export's derivation from @main's
 * arguments gives them back byte for byte (else they stay as XLA wrote
 * them, and export keeps them). False only when out of memory. */
static bool elideSignature(Importer *im, MlirBlock entry) {
  size_t n = (size_t)mlirBlockGetNumArguments(entry);
  const Allocation **allocations = calloc(n + 1, sizeof *allocations);
  ThunkySignatureArg *args = malloc((n + 1) * sizeof *args);
  bool ok = allocations && args;
  for (size_t a = 0; ok && a < im->numAllocations; ++a) {
    MlirValue v = im->allocationValue[a];
    if (!mlirValueIsNull(v) && mlirValueIsABlockArgument(v))
      allocations[mlirBlockArgumentGetArgNumber(v)] = im->model->allocations[a].proto;
  }
  for (size_t i = 0; ok && i < n; ++i)
    ok = allocations[i] != NULL;
  if (ok) {
    thunkySignatureArgsOf(entry, allocations, n, args);
    ThunkyOutputEntry **made;
    size_t count;
    ok = thunkySignatureOutputs(im->arena, args, n, &made, &count);
    if (ok && sameOutputs(im->exe, made, count))
      thunkyProtoClearField(&im->exe->base, "output_info_map");
  }
  Xla__ProgramShapeProto *kept = im->exe->program_shape;
  if (ok && kept) {
    Xla__ProgramShapeProto left = *kept, rebuilt;
    left.n_parameters = 0, left.parameters = NULL, left.result = NULL;
    left.n_parameter_names = 0, left.parameter_names = NULL;
    rebuilt = left;
    Xla__ProgramShapeProto *into = &rebuilt;
    const char *why;
    if (thunkySignatureProgramShape(im->arena, args, n, &into, &why) &&
        samePacked(&rebuilt.base, &kept->base)) {
      *kept = left;
    }
  }
  /* Names where the shapes stay. */
  if (ok && kept && kept->n_parameter_names) {
    Xla__ProgramShapeProto named = *kept;
    named.n_parameter_names = 0, named.parameter_names = NULL;
    ok = thunkySignatureParameterNames(im->arena, args, n, &named);
    if (ok && samePacked(&named.base, &kept->base))
      kept->n_parameter_names = 0, kept->parameter_names = NULL;
  }
  /* Left out only where export makes it again: an executable with neither
   * parameters nor outputs gets none, so one present, even empty, stays. */
  Xla__ProgramShapeProto *derived = NULL;
  const char *why;
  if (ok && kept && thunkyProtoIsEmpty(&kept->base) &&
      thunkySignatureProgramShape(im->arena, args, n, &derived, &why) && derived)
    im->exe->program_shape = NULL;
  free(allocations), free(args);
  return ok || thunkyImportError(im, "%s", "out of memory");
}

static bool setModuleAttr(Importer *im, MlirOperation module, const char *name,
                          ProtobufCMessage *msg) {
  MlirAttribute kept = thunkyProtoToAttr(&im->protoCache, msg, opaqueMessages);
  if (mlirAttributeIsNull(kept))
    return thunkyImportError(im, "%s", "out of memory");
  mlirOperationSetAttributeByName(module, str(name), kept);
  return true;
}

/* What the layers around the executable carry, so export can rebuild them
 * (the container checked both messages' wire format). */
static bool setContainerAttrs(Importer *im, MlirOperation module, const ThunkyContainer *c) {
  if (c->cache) {
    const char *kind = c->cache == THUNKY_CACHE_ZSTD ? "zstd" : "zlib";
    mlirOperationSetAttributeByName(module, str(THUNKY_ATTR_CACHE),
                                    stringAttr(im, kind, strlen(kind)));
    mlirOperationSetAttributeByName(module, str(THUNKY_ATTR_CACHE_TIME),
                                    i64Attr(im, c->cacheCompileTime));
  }
  if (c->pickle.size) {
    mlirOperationSetAttributeByName(module, str(THUNKY_ATTR_PICKLE),
                                    stringAttr(im, (const char *)c->pickle.data, c->pickle.size));
    mlirOperationSetAttributeByName(module, str(THUNKY_ATTR_PICKLE_AT),
                                    i64Attr(im, (int64_t)c->pickleAt));
    mlirOperationSetAttributeByName(module, str(THUNKY_ATTR_PICKLE_FRAME),
                                    i64Attr(im, c->pickleFrame));
  }
  if (c->layering == THUNKY_LAYERING_EXECUTABLE)
    return true;
  ProtobufCAllocator *alloc = thunkyArenaAllocator(im->arena);
  const char *name = thunkyLayeringName(c->layering);
  mlirOperationSetAttributeByName(module, str(THUNKY_ATTR_CONTAINER),
                                  stringAttr(im, name, strlen(name)));
  if (c->options.size) {
    ProtobufCMessage *options = protobuf_c_message_unpack(
        &xla__executable_and_options_proto__descriptor, alloc, c->options.size, c->options.data);
    if (!options || !setModuleAttr(im, module, THUNKY_ATTR_OPTIONS, options))
      return thunkyImportError(im, "%s", "the ExecutableAndOptionsProto did not unpack");
  }
  if (c->metadata.size) {
    ProtobufCMessage *metadata =
        protobuf_c_message_unpack(&xla__ifrt__serialized_xla_executable_metadata__descriptor,
                                  alloc, c->metadata.size, c->metadata.data);
    if (!metadata || !setModuleAttr(im, module, THUNKY_ATTR_IFRT_METADATA, metadata))
      return thunkyImportError(im, "%s", "the IFRT metadata did not unpack");
  }
  return true;
}

MlirOperation thunkyImportExecutable(MlirContext ctx, MlirStringRef bytes,
                                     MlirStringRef bufferName) {
  return thunkyImportExecutableWithLimits(ctx, bytes, bufferName, NULL);
}

/* The module of `bytes`, with what `flags` (ThunkyImportFlag) ask. */
static MlirOperation import(MlirContext ctx, MlirStringRef bytes, MlirStringRef bufferName,
                            const ThunkyLimits *limits, unsigned flags) {
  bool borrow = flags & THUNKY_IMPORT_BORROW;
  thunkyContextLoadDialects(ctx);
  Importer im = {.ctx = ctx, .arena = thunkyArenaCreate(),
                 .limits = limits ? *limits : thunkyLimitsDefault(), .bytes = {.ctx = ctx}};
  if (borrow)
    im.bytes.borrowBegin = bytes.data, im.bytes.borrowEnd = bytes.data + bytes.length;
  im.protoCache = (ThunkyProtoCache){
      .ctx = ctx, .bytes = &im.bytes, .resourceNames = resourceNames,
      .elementTypes = im.elementTypes};
  im.fileLoc = mlirLocationFileLineColGet(ctx, bufferName, 0, 0);
  im.loc = im.fileLoc;
  MlirOperation result = {NULL};
  ThunkyError why;
  if (!im.arena) {
    thunkyImportError(&im, "%s", "out of memory");
    return result;
  }
  char name[1024];
  snprintf(name, sizeof name, "%.*s", (int)(bufferName.length < 1000 ? bufferName.length : 1000),
           bufferName.data);
  if (!thunkyInputExpectExecutable(bytes.data, bytes.length, name, &why) ||
      !thunkyExecutableCreate(bytes.data, bytes.length, &im.limits, &im.model, &why)) {
    thunkyImportError(&im, "%s", why.message);
    thunkyArenaDestroy(im.arena);
    return result;
  }
  if (borrow) {
    ThunkyBytes strings = thunkyExecutableTakeStrings(im.model);
    if (!thunkyBytesPoolAdopt(&im.bytes, (void *)(uintptr_t)strings.data, strings.size)) {
      thunkyImportError(&im, "%s", "out of memory");
      thunkyExecutableDestroy(im.model);
      thunkyArenaDestroy(im.arena);
      return result;
    }
  }
  im.exe = im.model->proto;
  im.numAllocations = im.model->numAllocations;
  im.allocationValue = calloc(im.numAllocations + 1, sizeof *im.allocationValue);
  im.tokens = calloc(im.model->numAsyncSlots + 1, sizeof *im.tokens);
  MlirModule module = mlirModuleCreateEmpty(im.fileLoc);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  MlirOperation main = {NULL};
  bool ok = (im.allocationValue && im.tokens) || thunkyImportError(&im, "%s", "out of memory");
  ok = ok && !mlirOperationIsNull(main = buildMain(&im));
  if (!mlirOperationIsNull(main))
    mlirBlockAppendOwnedOperation(mlirModuleGetBody(module), main);
  ok = ok && importBody(&im) &&
       (!(flags & THUNKY_IMPORT_HLO_NAMES) || thunkyImportHloNames(&im, main));
  if (ok) {
    Xla__HumanReadableAotExecutable *wrapper = im.model->wrapper;
    /* What the ops and arguments now carry leaves the executable. */
    thunkyProtoClearField(&im.exe->base, "thunks");
    if (im.exe->buffer_allocations)
      thunkyProtoClearField(&im.exe->buffer_allocations->base, "values");
    if (wrapper)
      thunkyProtoClearField(&wrapper->base, "gpu_executable");
    ok = elideSignature(&im, mlirRegionGetFirstBlock(mlirOperationGetRegion(main, 0))) &&
         setModuleAttr(&im, moduleOp, THUNKY_ATTR_EXECUTABLE, &im.exe->base) &&
         (!wrapper || setModuleAttr(&im, moduleOp, THUNKY_ATTR_WRAPPER, &wrapper->base)) &&
         setContainerAttrs(&im, moduleOp, &im.model->container);
    if (ok)
      thunkyImportFinishKernelBinaries(&im, moduleOp);
    ok = ok && mlirOperationVerify(moduleOp);
  }
  if (ok)
    result = moduleOp;
  else
    mlirModuleDestroy(module);
  thunkyExecutableDestroy(im.model);
  free(im.allocationValue), free(im.tokens);
  thunkyImportFreeKernelBinaries(&im);
  thunkyProtoCacheDestroy(&im.protoCache);
  thunkyBytesPoolDestroy(&im.bytes);
  thunkyArenaDestroy(im.arena);
  return result;
}

MlirOperation thunkyImportExecutableWithLimits(MlirContext ctx, MlirStringRef bytes,
                                               MlirStringRef bufferName,
                                               const ThunkyLimits *limits) {
  return import(ctx, bytes, bufferName, limits, 0);
}

MlirOperation thunkyImportExecutableBorrowing(MlirContext ctx, MlirStringRef bytes,
                                              MlirStringRef bufferName,
                                              const ThunkyLimits *limits) {
  return import(ctx, bytes, bufferName, limits, THUNKY_IMPORT_BORROW);
}

MlirOperation thunkyImportExecutableWithFlags(MlirContext ctx, MlirStringRef bytes,
                                              MlirStringRef bufferName, const ThunkyLimits *limits,
                                              unsigned flags) {
  return import(ctx, bytes, bufferName, limits, flags);
}
