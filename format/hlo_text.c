/*===- hlo_text.c - an HloModuleProto as XLA's HLO text -----------------===*
 *
 * The layout of the text follows XLA's printers (openxla/xla:
 * xla/hlo/ir/hlo_module.cc, hlo_computation.cc, hlo_instruction.cc,
 * hlo_instructions.cc, xla/shape_util.cc, xla/layout.cc, xla/literal.cc);
 * what is left out is listed in thunky-c/format/HloText.h. Instructions are
 * found by id through one map per computation, computations through one
 * map for the module, so printing is linear in the module.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/format/HloText.h"

#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/base/HashMap.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef Xla__HloInstructionProto Instr;
typedef Xla__HloComputationProto Comp;

typedef struct {
  FILE *out;
  const Xla__HloModuleProto *module;
  ThunkyHashMap computations; /* computation id -> index */
  ThunkyHashMap sequences;    /* computation id -> schedule entry */
  ThunkyHashMap *instructions; /* per computation: instruction id -> index */
  bool failed;                 /* out of memory */
} Printer;

/*--- small pieces ------------------------------------------------------------*/

/* protobuf-c leaves an absent proto2 string NULL. */
static const char *str(const char *s) { return s ? s : ""; }

static void put(Printer *p, const char *s) { fputs(s, p->out); }

static void putInts(Printer *p, const int64_t *values, size_t n, const char *sep) {
  for (size_t i = 0; i < n; i++)
    fprintf(p->out, "%s%" PRId64, i ? sep : "", values[i]);
}

/* `{1,0}`: a list of integers as XLA prints dimensions and indices. */
static void putBraced(Printer *p, const int64_t *values, size_t n) {
  put(p, "{");
  putInts(p, values, n, ",");
  put(p, "}");
}

/* A string between quotes with C escapes, as absl::CEscape writes it. */
static void putQuoted(Printer *p, const char *s, size_t n) {
  fputc('"', p->out);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\' || c == '\'')
      fprintf(p->out, "\\%c", c);
    else if (c == '\n')
      put(p, "\\n");
    else if (c == '\t')
      put(p, "\\t");
    else if (c == '\r')
      put(p, "\\r");
    else if (c < 0x20 || c >= 0x7f)
      fprintf(p->out, "\\%03o", c);
    else
      fputc(c, p->out);
  }
  fputc('"', p->out);
}

static void putString(Printer *p, const char *s) { putQuoted(p, str(s), strlen(str(s))); }

static const char *typeName(int32_t type) {
  const char *name = thunkyElementTypeName(type);
  return name ? name : "invalid";
}

/*--- shapes and layouts ------------------------------------------------------*/

static void putLayout(Printer *p, const Xla__LayoutProto *l) {
  put(p, "{");
  putInts(p, l->minor_to_major, l->n_minor_to_major, ",");
  const char *colon = ":";
  if (l->n_tiles) {
    fprintf(p->out, "%sT", colon), colon = "";
    for (size_t i = 0; i < l->n_tiles; i++) {
      put(p, "(");
      for (size_t j = 0; l->tiles[i] && j < l->tiles[i]->n_dimensions; j++) {
        int64_t d = l->tiles[i]->dimensions[j];
        fprintf(p->out, j ? "," : "");
        d == INT64_MIN ? put(p, "*") : (void)fprintf(p->out, "%" PRId64, d);
      }
      put(p, ")");
    }
  }
  /* An unset alignment is XLA's default of 1, which it does not print. */
  if (l->tail_padding_alignment_in_elements > 1)
    fprintf(p->out, "%sL(%" PRId64 ")", colon, l->tail_padding_alignment_in_elements), colon = "";
  if (l->has_index_primitive_type && l->index_primitive_type)
    fprintf(p->out, "%s#(%s)", colon, typeName(l->index_primitive_type)), colon = "";
  if (l->has_pointer_primitive_type && l->pointer_primitive_type)
    fprintf(p->out, "%s*(%s)", colon, typeName(l->pointer_primitive_type)), colon = "";
  if (l->element_size_in_bits)
    fprintf(p->out, "%sE(%" PRId64 ")", colon, l->element_size_in_bits), colon = "";
  if (l->memory_space)
    fprintf(p->out, "%sS(%" PRId64 ")", colon, l->memory_space), colon = "";
  if (l->dynamic_shape_metadata_prefix_bytes > 0)
    fprintf(p->out, "%sM(%" PRId64 ")", colon, l->dynamic_shape_metadata_prefix_bytes);
  put(p, "}");
}

/* `f32[2,<=4]{1,0}`, `(u32[4]{0}, f32[])`; layouts only when asked.
 * Tuples nest as deep as the proto, which protobuf-c's own recursion
 * limit bounds. */
static void putShape(Printer *p, const Xla__ShapeProto *s, bool layout) {
  if (!s) {
    put(p, "<no shape>");
    return;
  }
  if (s->element_type == XLA__PRIMITIVE_TYPE__TUPLE) {
    put(p, "(");
    for (size_t i = 0; i < s->n_tuple_shapes; i++) {
      put(p, i ? ", " : "");
      putShape(p, s->tuple_shapes[i], layout);
    }
    put(p, ")");
    return;
  }
  fprintf(p->out, "%s[", typeName(s->element_type));
  for (size_t i = 0; i < s->n_dimensions; i++) {
    bool dynamic = i < s->n_is_dynamic_dimension && s->is_dynamic_dimension[i];
    put(p, i ? "," : "");
    if (dynamic && s->dimensions[i] == INT64_MIN)
      put(p, "?");
    else
      fprintf(p->out, "%s%" PRId64, dynamic ? "<=" : "", s->dimensions[i]);
  }
  put(p, "]");
  bool array = thunkyElementKind(s->element_type) != THUNKY_KIND_NONE;
  /* A scalar's layout is "{}" and not printed. */
  if (layout && array && s->layout &&
      (s->n_dimensions || s->layout->n_tiles || s->layout->memory_space ||
       s->layout->element_size_in_bits))
    putLayout(p, s->layout);
}

/*--- literals ----------------------------------------------------------------*/

/* The shortest of XLA's two precisions that reads back as the same value. */
static void formatFloat(char *text, size_t size, double v, int32_t type) {
  if (isnan(v) || isinf(v)) {
    snprintf(text, size, "%s%s", signbit(v) ? "-" : "", isnan(v) ? "nan" : "inf");
    return;
  }
  int digits = 15, most = 17;
  if (type == THUNKY_TYPE_F32)
    digits = 6, most = 9;
  else if (type != THUNKY_TYPE_F64)
    digits = type == THUNKY_TYPE_BF16 ? 2 : 3, most = type == THUNKY_TYPE_BF16 ? 4 : 5;
  snprintf(text, size, "%.*g", digits, v);
  double back = strtod(text, NULL);
  bool same = type == THUNKY_TYPE_F64   ? back == v
              : type == THUNKY_TYPE_F32 ? (float)back == (float)v
                                        : thunkySmallFloatEncode(type, (float)back) ==
                                              thunkySmallFloatEncode(type, (float)v);
  if (!same)
    snprintf(text, size, "%.*g", most, v);
}

/* Element i of the literal's values as text; false when the literal does
 * not hold it (too few values, or a type this does not print). */
static bool formatElement(char *text, size_t size, const Xla__LiteralProto *l, int32_t type,
                          size_t i) {
  const ProtobufCBinaryData *bytes = NULL;
  size_t width = 0;
  switch (type) {
  case THUNKY_TYPE_PRED:
    return i < l->n_preds && snprintf(text, size, "%s", l->preds[i] ? "true" : "false") > 0;
  case THUNKY_TYPE_S32:
    return i < l->n_s32s && snprintf(text, size, "%" PRId32, l->s32s[i]) > 0;
  case THUNKY_TYPE_S64:
    return i < l->n_s64s && snprintf(text, size, "%" PRId64, l->s64s[i]) > 0;
  case THUNKY_TYPE_U32:
    return i < l->n_u32s && snprintf(text, size, "%" PRIu32, l->u32s[i]) > 0;
  case THUNKY_TYPE_U64:
    return i < l->n_u64s && snprintf(text, size, "%" PRIu64, l->u64s[i]) > 0;
  case THUNKY_TYPE_F32:
    return i < l->n_f32s && (formatFloat(text, size, l->f32s[i], type), true);
  case THUNKY_TYPE_F64:
    return i < l->n_f64s && (formatFloat(text, size, l->f64s[i], type), true);
  case THUNKY_TYPE_S8: bytes = &l->s8s, width = 1; break;
  case THUNKY_TYPE_U8: bytes = &l->u8s, width = 1; break;
  case THUNKY_TYPE_S16: bytes = &l->s16s, width = 2; break;
  case THUNKY_TYPE_U16: bytes = &l->u16s, width = 2; break;
  case THUNKY_TYPE_F16: bytes = &l->f16s, width = 2; break;
  case THUNKY_TYPE_BF16: bytes = &l->bf16s, width = 2; break;
  default: return false;
  }
  if (bytes->len / width <= i)
    return false;
  const uint8_t *b = bytes->data + i * width;
  uint32_t v = width == 1 ? b[0] : (uint32_t)(b[0] | b[1] << 8);
  if (type == THUNKY_TYPE_F16 || type == THUNKY_TYPE_BF16)
    formatFloat(text, size, thunkySmallFloatDecode(type, v), type);
  else if (type == THUNKY_TYPE_S8 || type == THUNKY_TYPE_S16)
    snprintf(text, size, "%d", width == 1 ? (int)(int8_t)v : (int)(int16_t)v);
  else
    snprintf(text, size, "%u", v);
  return true;
}

/* `0`, `{1, 2, 3}`, `{ { 1, 2 }, { 3, 4 } }` as XLA's one-line literals;
 * arrays of more than ten elements, like XLA without large constants, and
 * anything this cannot read print as {...}. */
static void putLiteral(Printer *p, const Xla__LiteralProto *l, const Xla__ShapeProto *shape) {
  if (!l || !shape || thunkyElementKind(shape->element_type) == THUNKY_KIND_NONE) {
    put(p, "{...}");
    return;
  }
  size_t rank = shape->n_dimensions, count = 1;
  for (size_t d = 0; d < rank; d++) {
    int64_t n = shape->dimensions[d];
    count = n < 0 || n > 10 ? 11 : count * (size_t)n;
    if (count > 10)
      count = 11;
  }
  int32_t type = shape->element_type;
  char text[64];
  if (count > 10 || (count && !formatElement(text, sizeof text, l, type, count - 1))) {
    put(p, "{...}");
    return;
  }
  if (rank == 0) {
    put(p, text);
    return;
  }
  /* Walk the elements in row-major order, opening and closing braces where
   * an index rolls over, as nested loops would. */
  size_t index[64] = {0};
  if (rank > 64) {
    put(p, "{...}");
    return;
  }
  const char *open = rank > 1 ? "{ " : "{", *close = rank > 1 ? " }" : "}";
  for (size_t d = 0; d < rank; d++)
    put(p, d + 1 < rank ? "{ " : open);
  for (size_t e = 0; e < count; e++) {
    formatElement(text, sizeof text, l, type, e);
    put(p, text);
    size_t d = rank;
    while (d-- > 0 && ++index[d] == (size_t)shape->dimensions[d])
      index[d] = 0, put(p, d + 1 < rank ? " }" : close);
    if (e + 1 < count) {
      put(p, ", ");
      for (size_t k = d + 1; k < rank; k++)
        put(p, k + 1 < rank ? "{ " : open);
    }
  }
  if (count == 0)
    for (size_t d = 0; d < rank; d++)
      put(p, d + 1 < rank ? " }" : close);
}

/*--- finding things ------------------------------------------------------------*/

static const Comp *computationById(Printer *p, int64_t id) {
  uint32_t index;
  return thunkyHashMapGet(&p->computations, (uint64_t)id, &index) ? p->module->computations[index]
                                                                  : NULL;
}

static const Instr *instructionById(Printer *p, size_t comp, int64_t id) {
  uint32_t index;
  return thunkyHashMapGet(&p->instructions[comp], (uint64_t)id, &index)
             ? p->module->computations[comp]->instructions[index]
             : NULL;
}

static void putComputationName(Printer *p, int64_t id) {
  const Comp *c = computationById(p, id);
  c ? (void)fprintf(p->out, "%%%s", str(c->name)) : (void)fprintf(p->out, "%%<computation %" PRId64 ">", id);
}

static void putCalls(Printer *p, const char *key, const Instr *in, size_t from, size_t to,
                     bool braced) {
  fprintf(p->out, ", %s=%s", key, braced ? "{" : "");
  for (size_t i = from; i < to && i < in->n_called_computation_ids; i++) {
    put(p, i > from ? ", " : "");
    putComputationName(p, in->called_computation_ids[i]);
  }
  put(p, braced ? "}" : "");
}

/*--- instructions -----------------------------------------------------------------*/

static bool is(const Instr *in, const char *opcode) { return !strcmp(str(in->opcode), opcode); }

static bool isAny(const Instr *in, const char *const *opcodes) {
  for (; *opcodes; opcodes++)
    if (is(in, *opcodes))
      return true;
  return false;
}

/* XLA's default comparison type for the operands' element type, which it
 * does not print. */
static const char *defaultComparison(int32_t type) {
  switch (thunkyElementKind(type)) {
  case THUNKY_KIND_SIGNED: return "SIGNED";
  case THUNKY_KIND_FLOAT:
  case THUNKY_KIND_COMPLEX: return "FLOAT";
  default: return "UNSIGNED";
  }
}

static void putReplicaGroups(Printer *p, const Instr *in) {
  put(p, ", replica_groups=");
  if (in->replica_group_list_case ==
          XLA__HLO_INSTRUCTION_PROTO__REPLICA_GROUP_LIST_IOTA_COLLECTIVE_DEVICE_LIST &&
      in->iota_collective_device_list) {
    const Xla__IotaReplicaGroupListProto *iota = in->iota_collective_device_list;
    fprintf(p->out, "[%" PRId64 ",%" PRId64 "]<=[", iota->num_replica_groups,
            iota->num_devices_per_group);
    putInts(p, iota->iota_reshape_dims, iota->n_iota_reshape_dims, ",");
    put(p, "]");
    bool identity = true;
    for (size_t i = 0; i < iota->n_iota_transpose_perm; i++)
      identity = identity && iota->iota_transpose_perm[i] == (int32_t)i;
    if (!identity) {
      put(p, "T(");
      for (size_t i = 0; i < iota->n_iota_transpose_perm; i++)
        fprintf(p->out, "%s%" PRId32, i ? "," : "", iota->iota_transpose_perm[i]);
      put(p, ")");
    }
    return;
  }
  size_t n = in->n_replica_groups;
  Xla__ReplicaGroup **groups = in->replica_groups;
  if (in->replica_group_list_case ==
          XLA__HLO_INSTRUCTION_PROTO__REPLICA_GROUP_LIST_COLLECTIVE_DEVICE_LIST &&
      in->collective_device_list)
    n = in->collective_device_list->n_replica_groups,
    groups = in->collective_device_list->replica_groups;
  put(p, "{");
  for (size_t i = 0; i < n; i++) {
    put(p, i ? "," : "");
    groups[i] ? putBraced(p, groups[i]->replica_ids, groups[i]->n_replica_ids) : put(p, "{}");
  }
  put(p, "}");
}

static const char *const collectives[] = {
    "all-gather", "all-gather-start", "all-reduce", "all-reduce-start", "reduce-scatter",
    "all-to-all", "ragged-all-to-all", "collective-broadcast", NULL};
static const char *const withDimensions[] = {"broadcast", "transpose", "reduce", "reverse",
                                             "concatenate", "sort", NULL};
static const char *const withToApply[] = {
    "call", "map", "reduce-window", "reduce", "all-reduce", "reduce-scatter",
    "all-reduce-start", "scatter", "sort", "topk", NULL};

/* `, frontend_attributes={a="x",b="y"}`, sorted by key as XLA prints them. */
static void putFrontendAttributes(Printer *p, const Xla__FrontendAttributes *attributes) {
  if (!attributes || !attributes->n_map)
    return;
  /* A handful each, so insertion sort is fine. */
  size_t count = attributes->n_map;
  Xla__FrontendAttributes__MapEntry **sorted = malloc(count * sizeof *sorted);
  if (!sorted) {
    p->failed = true;
    return;
  }
  memcpy(sorted, attributes->map, count * sizeof *sorted);
  for (size_t i = 1; i < count; i++)
    for (size_t j = i; j > 0 && strcmp(str(sorted[j - 1]->key), str(sorted[j]->key)) > 0; j--) {
      Xla__FrontendAttributes__MapEntry *t = sorted[j];
      sorted[j] = sorted[j - 1], sorted[j - 1] = t;
    }
  put(p, ", frontend_attributes={");
  for (size_t i = 0; i < count; i++) {
    fprintf(p->out, "%s%s=", i ? "," : "", str(sorted[i]->key));
    putString(p, sorted[i]->value);
  }
  put(p, "}");
  free(sorted);
}

/* What XLA's instruction classes print after the operands, in its order:
 * their own attributes, then called computations, then the generic ones. */
static void putAttributes(Printer *p, size_t comp, const Instr *in) {
  bool collective = isAny(in, collectives);
  if (in->channel_id > 0)
    fprintf(p->out, ", channel_id=%" PRId64, in->channel_id);
  if (collective || is(in, "collective-permute") || is(in, "collective-permute-start")) {
    if (collective)
      putReplicaGroups(p, in);
    if (in->constrain_layout)
      put(p, ", constrain_layout=true");
  }
  if (in->n_source_target_pairs) {
    put(p, ", source_target_pairs={");
    for (size_t i = 0; i < in->n_source_target_pairs; i++) {
      const Xla__SourceTarget *st = in->source_target_pairs[i];
      fprintf(p->out, "%s{%" PRId64 ",%" PRId64 "}", i ? "," : "", st ? st->source : 0,
              st ? st->target : 0);
    }
    put(p, "}");
  }
  if (is(in, "get-tuple-element"))
    fprintf(p->out, ", index=%" PRId64, in->tuple_index);
  if (*str(in->fusion_kind))
    fprintf(p->out, ", kind=%s", in->fusion_kind);
  if (is(in, "iota") && in->n_dimensions)
    fprintf(p->out, ", iota_dimension=%" PRId64, in->dimensions[0]);
  else if (in->n_dimensions || isAny(in, withDimensions)) {
    put(p, ", dimensions=");
    putBraced(p, in->dimensions, in->n_dimensions);
  }
  if (collective && in->use_global_device_ids)
    put(p, ", use_global_device_ids=true");
  if (*str(in->comparison_direction)) {
    fprintf(p->out, ", direction=%s", in->comparison_direction);
    const Instr *lhs = in->n_operand_ids ? instructionById(p, comp, in->operand_ids[0]) : NULL;
    const char *type = str(in->comparison_type);
    if (*type && lhs && lhs->shape &&
        strcmp(type, defaultComparison(lhs->shape->element_type)))
      fprintf(p->out, ", type=%s", type);
  }
  if (in->n_slice_dimensions) {
    bool strided = false;
    for (size_t i = 0; i < in->n_slice_dimensions; i++)
      strided = strided || (in->slice_dimensions[i] && in->slice_dimensions[i]->stride != 1);
    put(p, ", slice={");
    for (size_t i = 0; i < in->n_slice_dimensions; i++) {
      const Xla__HloInstructionProto__SliceDimensions *s = in->slice_dimensions[i];
      fprintf(p->out, "%s[%" PRId64 ":%" PRId64, i ? ", " : "", s ? s->start : 0, s ? s->limit : 0);
      strided ? (void)fprintf(p->out, ":%" PRId64 "]", s ? s->stride : 0) : put(p, "]");
    }
    put(p, "}");
  }
  if (in->n_dynamic_slice_sizes) {
    put(p, ", dynamic_slice_sizes=");
    putBraced(p, in->dynamic_slice_sizes, in->n_dynamic_slice_sizes);
  }
  if (in->dot_dimension_numbers) {
    const Xla__DotDimensionNumbers *d = in->dot_dimension_numbers;
    if (d->n_lhs_batch_dimensions)
      put(p, ", lhs_batch_dims="), putBraced(p, d->lhs_batch_dimensions, d->n_lhs_batch_dimensions);
    put(p, ", lhs_contracting_dims=");
    putBraced(p, d->lhs_contracting_dimensions, d->n_lhs_contracting_dimensions);
    if (d->n_rhs_batch_dimensions)
      put(p, ", rhs_batch_dims="), putBraced(p, d->rhs_batch_dimensions, d->n_rhs_batch_dimensions);
    put(p, ", rhs_contracting_dims=");
    putBraced(p, d->rhs_contracting_dimensions, d->n_rhs_contracting_dimensions);
  }
  if (*str(in->custom_call_target)) {
    put(p, ", custom_call_target=");
    putString(p, in->custom_call_target);
  }
  if (in->custom_call_has_side_effect)
    put(p, ", custom_call_has_side_effect=true");
  if (in->is_stable)
    put(p, ", is_stable=true");

  /* Called computations, named as XLA names them for the opcode. */
  size_t n = in->n_called_computation_ids;
  if (is(in, "while") && n == 2) {
    /* XLA keeps the body first and the condition second. */
    putCalls(p, "condition", in, 1, 2, false);
    putCalls(p, "body", in, 0, 1, false);
  } else if (is(in, "select-and-scatter") && n == 2) {
    putCalls(p, "select", in, 0, 1, false);
    putCalls(p, "scatter", in, 1, 2, false);
  } else if (is(in, "conditional") && n) {
    const Instr *index = in->n_operand_ids ? instructionById(p, comp, in->operand_ids[0]) : NULL;
    if (n == 2 && index && index->shape && index->shape->element_type == THUNKY_TYPE_PRED)
      putCalls(p, "true_computation", in, 0, 1, false),
          putCalls(p, "false_computation", in, 1, 2, false);
    else
      putCalls(p, "branch_computations", in, 0, n, true);
  } else if (n && (isAny(in, withToApply) || (is(in, "custom-call") && n == 1))) {
    putCalls(p, "to_apply", in, 0, n, false);
  } else if (n && is(in, "custom-call")) {
    putCalls(p, "called_computations", in, 0, n, true);
  } else if (n) {
    putCalls(p, "calls", in, 0, n, false);
  }
  if (in->is_composite)
    put(p, ", is_composite=true");

  putFrontendAttributes(p, in->frontend_attributes);
  if (in->n_control_predecessor_ids) {
    put(p, ", control-predecessors={");
    for (size_t i = 0; i < in->n_control_predecessor_ids; i++) {
      const Instr *pred = instructionById(p, comp, in->control_predecessor_ids[i]);
      put(p, i ? ", " : "");
      pred ? (void)fprintf(p->out, "%%%s", str(pred->name))
           : (void)fprintf(p->out, "%%<instruction %" PRId64 ">", in->control_predecessor_ids[i]);
    }
    put(p, "}");
  }
}

/* The metadata's op_type, op_name, source_file and source_line; XLA's
 * other metadata fields are left out. */
static void putMetadata(Printer *p, const Xla__OpMetadata *m) {
  if (!m || !(*str(m->op_type) || *str(m->op_name) || *str(m->source_file)))
    return;
  const char *sep = "";
  put(p, ", metadata={");
  if (*str(m->op_type))
    put(p, "op_type="), putString(p, m->op_type), sep = " ";
  if (*str(m->op_name))
    fprintf(p->out, "%sop_name=", sep), putString(p, m->op_name), sep = " ";
  if (*str(m->source_file)) {
    fprintf(p->out, "%ssource_file=", sep), putString(p, m->source_file);
    if (m->source_line)
      fprintf(p->out, " source_line=%" PRId32, m->source_line);
  }
  put(p, "}");
}

/* The backend config, inline or in the module's payloads; JSON objects
 * print bare, anything else quoted, as XLA does. */
static void putBackendConfig(Printer *p, const Instr *in) {
  ProtobufCBinaryData config = in->backend_config;
  const Xla__Payload *payload = in->backend_config_payload;
  if (payload && payload->payload_source_case == XLA__PAYLOAD__PAYLOAD_SOURCE_VALUE)
    config = payload->value;
  else if (payload && payload->payload_source_case == XLA__PAYLOAD__PAYLOAD_SOURCE_ID) {
    if (payload->id < 0 || (uint64_t)payload->id >= p->module->n_payloads) {
      fprintf(p->out, ", backend_config=<payload %" PRId64 " missing>", payload->id);
      return;
    }
    config = p->module->payloads[payload->id];
  }
  if (!config.len)
    return;
  put(p, ", backend_config=");
  if (config.data[0] == '{' && config.data[config.len - 1] == '}' &&
      !memchr(config.data, '\n', config.len))
    fwrite(config.data, 1, config.len, p->out);
  else
    putQuoted(p, (const char *)config.data, config.len);
}

static void putInstruction(Printer *p, size_t comp, const Instr *in) {
  fprintf(p->out, "%%%s = ", str(in->name));
  putShape(p, in->shape, true);
  fprintf(p->out, " %s(", str(in->opcode));
  if (is(in, "parameter"))
    fprintf(p->out, "%" PRId64, in->parameter_number);
  else if (is(in, "constant"))
    putLiteral(p, in->literal, in->shape);
  for (size_t i = 0; i < in->n_operand_ids; i++) {
    const Instr *operand = instructionById(p, comp, in->operand_ids[i]);
    put(p, i ? ", " : "");
    if (!operand) {
      fprintf(p->out, "%%<instruction %" PRId64 ">", in->operand_ids[i]);
      continue;
    }
    putShape(p, operand->shape, true);
    fprintf(p->out, " %%%s", str(operand->name));
  }
  put(p, ")");
  putAttributes(p, comp, in);
  putMetadata(p, in->metadata);
  putBackendConfig(p, in);
}

/*--- computations and the module ---------------------------------------------------*/

static void putComputation(Printer *p, size_t index) {
  const Comp *c = p->module->computations[index];
  const Xla__HloModuleProto *m = p->module;
  if (m->has_entry_computation_id ? c->id == m->entry_computation_id
                                  : !strcmp(str(c->name), str(m->entry_computation_name)))
    put(p, "ENTRY ");
  fprintf(p->out, "%%%s (", str(c->name));
  const Xla__ProgramShapeProto *shape = c->program_shape;
  for (size_t i = 0; shape && i < shape->n_parameters; i++) {
    const char *name = i < shape->n_parameter_names && *str(shape->parameter_names[i])
                           ? shape->parameter_names[i]
                           : "(unknown)";
    fprintf(p->out, "%s%s: ", i ? ", " : "", name);
    putShape(p, shape->parameters[i], false);
  }
  put(p, ") -> ");
  putShape(p, shape ? shape->result : NULL, false);
  if (*str(c->execution_thread) && strcmp(c->execution_thread, "main"))
    put(p, ", execution_thread="), putString(p, c->execution_thread);
  put(p, " {\n");
  /* A scheduled computation prints in its schedule's order, when the
   * schedule names each of its instructions; otherwise in the proto's. */
  uint32_t entry;
  const Xla__HloScheduleProto__InstructionSequence *sequence =
      thunkyHashMapGet(&p->sequences, (uint64_t)c->id, &entry)
          ? m->schedule->sequences[entry]->value
          : NULL;
  bool scheduled = sequence && sequence->n_instruction_ids == c->n_instructions;
  for (size_t i = 0; scheduled && i < sequence->n_instruction_ids; i++)
    scheduled = instructionById(p, index, sequence->instruction_ids[i]) != NULL;
  for (size_t i = 0; i < c->n_instructions; i++) {
    const Instr *in = scheduled ? instructionById(p, index, sequence->instruction_ids[i])
                                : c->instructions[i];
    put(p, in->id == c->root_id ? "  ROOT " : "  ");
    putInstruction(p, index, in);
    put(p, "\n");
  }
  put(p, "}\n\n");
}

static void printerDestroy(Printer *p) {
  for (size_t i = 0; p->instructions && i < p->module->n_computations; i++)
    thunkyHashMapDestroy(&p->instructions[i]);
  free(p->instructions);
  thunkyHashMapDestroy(&p->computations);
  thunkyHashMapDestroy(&p->sequences);
}

static bool printerCreate(Printer *p, FILE *out, const Xla__HloModuleProto *m, ThunkyError *error) {
  *p = (Printer){.out = out, .module = m};
  p->instructions = calloc(m->n_computations ? m->n_computations : 1, sizeof *p->instructions);
  bool ok = p->instructions != NULL && m->n_computations < UINT32_MAX;
  for (size_t c = 0; ok && c < m->n_computations; c++) {
    const Comp *comp = m->computations[c];
    ok = thunkyHashMapPut(&p->computations, (uint64_t)comp->id, (uint32_t)c) &&
         comp->n_instructions < UINT32_MAX;
    for (size_t i = 0; ok && i < comp->n_instructions; i++)
      ok = thunkyHashMapPut(&p->instructions[c], (uint64_t)comp->instructions[i]->id, (uint32_t)i);
  }
  for (size_t s = 0; ok && m->schedule && s < m->schedule->n_sequences; s++)
    ok = !m->schedule->sequences[s]->value ||
         thunkyHashMapPut(&p->sequences, (uint64_t)m->schedule->sequences[s]->key, (uint32_t)s);
  if (!ok) {
    printerDestroy(p);
    return thunkyErrorf(error, "out of memory indexing the HLO module");
  }
  return true;
}

/* Appends to `order` every computation that instructions [first, last) of
 * computation `root` call, directly or not, callees before callers, each
 * once (`state`: 0 unseen, 1 on the walk, 2 done), and `root` itself when
 * `withRoot`. A depth-first walk on an explicit stack, so deep nesting
 * cannot overflow the C stack; a call back into the walk is skipped. */
typedef struct {
  size_t comp, instr, last, call;
} Frame;

static bool walkCallees(Printer *p, size_t root, size_t first, size_t last, bool withRoot,
                        uint8_t *state, Frame *stack, size_t *order, size_t *count) {
  const Xla__HloModuleProto *m = p->module;
  size_t depth = 1;
  stack[0] = (Frame){root, first, last, 0};
  state[root] = 1;
  while (depth) {
    Frame *f = &stack[depth - 1];
    const Comp *c = m->computations[f->comp];
    if (f->instr < f->last) {
      const Instr *in = c->instructions[f->instr];
      if (f->call == in->n_called_computation_ids) {
        f->instr++, f->call = 0;
        continue;
      }
      uint32_t callee;
      if (thunkyHashMapGet(&p->computations, (uint64_t)in->called_computation_ids[f->call++],
                           &callee) &&
          !state[callee]) {
        state[callee] = 1;
        stack[depth++] = (Frame){callee, 0, m->computations[callee]->n_instructions, 0};
      }
      continue;
    }
    state[f->comp] = 2;
    if (depth > 1 || withRoot)
      order[(*count)++] = f->comp;
    depth--;
  }
  return true;
}

/* The module's computations in print order: from each computation no
 * instruction calls, in the proto's order, its callees depth first and
 * then itself, as XLA's post order does; any left (only on a cycle) after. */
static size_t *printOrder(Printer *p, size_t root, size_t first, size_t last, bool all,
                          size_t *count) {
  size_t n = p->module->n_computations;
  uint8_t *state = calloc(n ? n : 1, 1), *called = calloc(n ? n : 1, 1);
  Frame *stack = malloc((n ? n : 1) * sizeof *stack);
  size_t *order = malloc((n ? n : 1) * sizeof *order);
  *count = 0;
  if (!state || !called || !stack || !order) {
    free(state), free(called), free(stack), free(order);
    return NULL;
  }
  if (!all)
    walkCallees(p, root, first, last, false, state, stack, order, count);
  for (size_t c = 0; all && c < n; c++)
    for (size_t i = 0; i < p->module->computations[c]->n_instructions; i++) {
      const Instr *in = p->module->computations[c]->instructions[i];
      for (size_t k = 0; k < in->n_called_computation_ids; k++) {
        uint32_t callee;
        if (thunkyHashMapGet(&p->computations, (uint64_t)in->called_computation_ids[k], &callee))
          called[callee] = 1;
      }
    }
  for (size_t pass = 0; all && pass < 2; pass++)
    for (size_t c = 0; c < n; c++)
      if (!state[c] && (pass || !called[c]))
        walkCallees(p, c, 0, p->module->computations[c]->n_instructions, true, state, stack, order,
                    count);
  free(state), free(called), free(stack);
  return order;
}

static const Xla__ProgramShapeProto *layoutOf(const Xla__HloModuleProto *m,
                                              const Xla__HloModuleConfigProto *config) {
  return config && config->entry_computation_layout ? config->entry_computation_layout
                                                    : m->host_program_shape;
}

static void putShapeIndex(Printer *p, const int64_t *index, size_t n) { putBraced(p, index, n); }

static void putHeader(Printer *p, const Xla__HloModuleConfigProto *config) {
  const Xla__HloModuleProto *m = p->module;
  fprintf(p->out, "HloModule %s", str(m->name));
  if (m->schedule && m->schedule->n_sequences)
    put(p, ", is_scheduled=true");
  const Xla__HloInputOutputAliasProto *alias = m->input_output_alias;
  if (alias && alias->n_entries) {
    put(p, ", input_output_alias={ ");
    for (size_t i = 0; i < alias->n_entries; i++) {
      const Xla__HloInputOutputAliasProto__AliasEntryProto *e = alias->entries[i];
      put(p, i ? ", " : "");
      putShapeIndex(p, e->output_shape_index, e->n_output_shape_index);
      fprintf(p->out, ": (%" PRId64 ", ", e->parameter_number);
      putShapeIndex(p, e->parameter_shape_index, e->n_parameter_shape_index);
      put(p, e->kind == XLA__KIND__MUST_ALIAS ? ", must-alias)" : ", may-alias)");
    }
    put(p, " }");
  }
  const Xla__HloBufferDonorProto *donor = m->buffer_donor;
  if (donor && donor->n_entries) {
    put(p, ", buffer_donor={ ");
    for (size_t i = 0; i < donor->n_entries; i++) {
      fprintf(p->out, "%s(%" PRId64 ", ", i ? ", " : "", donor->entries[i]->parameter_number);
      putShapeIndex(p, donor->entries[i]->parameter_shape_index,
                    donor->entries[i]->n_parameter_shape_index);
      put(p, ")");
    }
    put(p, " }");
  }
  if (config && config->alias_passthrough_params)
    put(p, ", alias_passthrough_params=true");
  const Xla__ProgramShapeProto *layout = layoutOf(m, config);
  if (layout) {
    put(p, ", entry_computation_layout={(");
    for (size_t i = 0; i < layout->n_parameters; i++) {
      put(p, i ? ", " : "");
      putShape(p, layout->parameters[i], true);
    }
    put(p, ")->");
    putShape(p, layout->result, true);
    put(p, "}");
  }
  if (config) {
    const char *keys[2] = {"allow_spmd_sharding_propagation_to_parameters",
                           "allow_spmd_sharding_propagation_to_output"};
    size_t counts[2] = {config->n_allow_spmd_sharding_propagation_to_parameters,
                        config->n_allow_spmd_sharding_propagation_to_output};
    protobuf_c_boolean *values[2] = {config->allow_spmd_sharding_propagation_to_parameters,
                                     config->allow_spmd_sharding_propagation_to_output};
    for (int k = 0; k < 2; k++) {
      if (!counts[k] || (counts[k] == 1 && !values[k][0]))
        continue;
      fprintf(p->out, ", %s={", keys[k]);
      for (size_t i = 0; i < counts[k]; i++)
        fprintf(p->out, "%s%s", i ? "," : "", values[k][i] ? "true" : "false");
      put(p, "}");
    }
    if (config->replica_count > 1)
      fprintf(p->out, ", replica_count=%" PRId64, config->replica_count);
    if (config->num_partitions > 1)
      fprintf(p->out, ", num_partitions=%" PRId64, config->num_partitions);
  }
  putFrontendAttributes(p, m->frontend_attributes);
  put(p, "\n\n");
}

static bool finish(Printer *p, size_t *order, ThunkyError *error) {
  bool failed = p->failed || !order;
  free(order);
  printerDestroy(p);
  if (failed)
    return thunkyErrorf(error, "out of memory printing the HLO module");
  return fflush(p->out) == 0 && !ferror(p->out) ? true
                                                : thunkyErrorf(error, "cannot write the HLO text");
}

bool thunkyHloTextPrintModule(FILE *out, const Xla__HloModuleProto *module,
                              const Xla__HloModuleConfigProto *config, ThunkyError *error) {
  Printer p;
  if (!printerCreate(&p, out, module, error))
    return false;
  putHeader(&p, config);
  size_t count;
  size_t *order = printOrder(&p, 0, 0, 0, true, &count);
  for (size_t i = 0; order && i < count; i++)
    putComputation(&p, order[i]);
  return finish(&p, order, error);
}

/*--- one launch -------------------------------------------------------------------*/

/* How many leading characters `name` shares with the kernel name of
 * `instruction`: the measure of near names in the error. */
static size_t sharedPrefix(const char *name, const char *instruction) {
  size_t n = 0;
  while (name[n] && instruction[n] &&
         name[n] == (isalnum((unsigned char)instruction[n]) ? instruction[n] : '_'))
    n++;
  return n;
}

/* The instruction's position in the module, to print from it. */
static bool positionOf(const Xla__HloModuleProto *module, const Instr *in, size_t *comp,
                       size_t *index) {
  for (*comp = 0; *comp < module->n_computations; ++*comp)
    for (*index = 0; *index < module->computations[*comp]->n_instructions; ++*index)
      if (module->computations[*comp]->instructions[*index] == in)
        return true;
  return false;
}

/* "; near: a, b, c": the three instructions (of computations that are no
 * fusion's) whose kernel names share the longest prefix with `name`,
 * first found first; "" when none shares any. */
static void nearNames(const Xla__HloModuleProto *module, const char *name, char *out,
                      size_t size) {
  const Instr *near[3] = {NULL};
  size_t nearLength[3] = {0};
  for (size_t c = 0; c < module->n_computations; c++) {
    const Comp *comp = module->computations[c];
    for (size_t i = 0; !comp->is_fusion_computation && i < comp->n_instructions; i++) {
      const Instr *in = comp->instructions[i];
      size_t length = sharedPrefix(name, str(in->name));
      for (size_t k = 0; length && k < 3; k++)
        if (!near[k] || length > nearLength[k]) {
          memmove(&near[k + 1], &near[k], (2 - k) * sizeof *near);
          memmove(&nearLength[k + 1], &nearLength[k], (2 - k) * sizeof *nearLength);
          near[k] = in, nearLength[k] = length;
          break;
        }
    }
  }
  snprintf(out, size, "%s%s%s%s%s%s", near[0] ? "; near: " : "", near[0] ? str(near[0]->name) : "",
           near[1] ? ", " : "", near[1] ? str(near[1]->name) : "", near[2] ? ", " : "",
           near[2] ? str(near[2]->name) : "");
}

bool thunkyHloTextPrintLaunch(FILE *out, const Xla__HloModuleProto *module, const char *name,
                              ThunkyError *error) {
  ThunkyHloLaunches *launches = thunkyHloLaunchesCreate(module);
  if (!launches)
    return thunkyErrorf(error, "out of memory indexing the HLO module");
  const Instr *in = thunkyHloLaunchFind(launches, name, strlen(name), NULL);
  thunkyHloLaunchesDestroy(launches);
  size_t c, i;
  if (!in || !positionOf(module, in, &c, &i)) {
    char near[800];
    nearNames(module, name, near, sizeof near);
    return thunkyErrorf(error, "no instruction named '%s' in the HLO module%s", name, near);
  }
  Printer p;
  if (!printerCreate(&p, out, module, error))
    return false;
  putInstruction(&p, c, in);
  put(&p, "\n\n");
  size_t count;
  size_t *order = printOrder(&p, c, i, i + 1, false, &count);
  for (size_t k = 0; order && k < count; k++)
    putComputation(&p, order[k]);
  return finish(&p, order, error);
}
