/*===- hlo_work.c - what a launch's HLO says it does ----------------------===*
 *
 * A dot of an m x k by k x n product, per batch, is 2mnk operations, as
 * XLA's HloCostAnalysis counts it (openxla/xla, xla/service/
 * hlo_cost_analysis.cc, HandleDot). Which rate they run at follows the
 * dot's PrecisionConfig: an explicit algorithm names its inputs' precision
 * and passes (ALG_DOT_BF16_BF16_F32_X3 is three bf16 products); without
 * one, an f32 dot runs as TF32 unless an operand asks for HIGHEST, which
 * is what JAX's default precision gets on a GPU with tensor cores.
 *
 * Bytes follow XLA's operand utilization: a fusion parameter that is only
 * ever a slice's source reads what the slices take, and a buffer a root
 * dynamic-update-slice updates in place (XLA's can_share_buffer) is not
 * read, only its update written.
 *
 *===--------------------------------------------------------------------===*/
#include "hlo_launches.h"
#include "thunky-c/base/ElementTypes.h"
#include "thunky-c/format/HloWork.h"

#include <stdlib.h>
#include <string.h>

typedef Xla__HloInstructionProto Instr;
typedef Xla__HloComputationProto Computation;

enum { NOT_COSTED, COSTING, COSTED, UNKNOWN };
enum { MAX_NESTING = 64 };

static bool is(const Instr *in, const char *opcode) {
  return in->opcode && !strcmp(in->opcode, opcode);
}

static double elements(const Xla__ShapeProto *s) {
  double n = 1;
  for (size_t i = 0; i < s->n_dimensions; i++)
    n *= s->dimensions[i] > 0 ? (double)s->dimensions[i] : 0;
  return n;
}

static double shapeBytes(const Xla__ShapeProto *s, unsigned depth) {
  if (!s || depth > MAX_NESTING)
    return 0;
  if (s->element_type != XLA__PRIMITIVE_TYPE__TUPLE)
    return elements(s) * thunkyElementBits(s->element_type) / 8.0;
  double bytes = 0;
  for (size_t i = 0; i < s->n_tuple_shapes; i++)
    bytes += shapeBytes(s->tuple_shapes[i], depth + 1);
  return bytes;
}

static ThunkyFlopsKind dotKind(const Instr *dot, int32_t type, double *passes) {
  const Xla__PrecisionConfig *p = dot->precision_config;
  *passes = 1;
  switch (p && p->has_algorithm ? p->algorithm : XLA__PRECISION_CONFIG__ALGORITHM__ALG_UNSET) {
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_ANY_F8_ANY_F8_F32:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_ANY_F8_ANY_F8_F32_FAST_ACCUM:
    return THUNKY_FLOPS_F8;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_F16_F16_F16:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_F16_F16_F32:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_BF16_BF16_BF16:
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_BF16_BF16_F32:
    return THUNKY_FLOPS_F16;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_BF16_BF16_F32_X3:
    *passes = 3;
    return THUNKY_FLOPS_F16;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_BF16_BF16_F32_X6:
    *passes = 6;
    return THUNKY_FLOPS_F16;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_BF16_BF16_F32_X9:
    *passes = 9;
    return THUNKY_FLOPS_F16;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_TF32_TF32_F32:
    return THUNKY_FLOPS_TF32;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_TF32_TF32_F32_X3:
    *passes = 3;
    return THUNKY_FLOPS_TF32;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_F32_F32_F32:
    return THUNKY_FLOPS_F32;
  case XLA__PRECISION_CONFIG__ALGORITHM__ALG_DOT_F64_F64_F64:
    return THUNKY_FLOPS_F64;
  default:
    break;
  }
  ThunkyElementKind kind = thunkyElementKind(type);
  uint32_t bits = thunkyElementBits(type) / (kind == THUNKY_KIND_COMPLEX ? 2 : 1);
  if (kind != THUNKY_KIND_FLOAT && kind != THUNKY_KIND_COMPLEX)
    return bits <= 8 ? THUNKY_FLOPS_F8 : THUNKY_FLOPS_F32; /* int8 runs at the 8-bit rate */
  if (bits >= 64)
    return THUNKY_FLOPS_F64;
  if (bits <= 8)
    return THUNKY_FLOPS_F8;
  if (bits < 32)
    return THUNKY_FLOPS_F16;
  for (size_t i = 0; p && i < p->n_operand_precision; i++)
    if (p->operand_precision[i] == XLA__PRECISION_CONFIG__PRECISION__HIGHEST)
      return THUNKY_FLOPS_F32;
  return THUNKY_FLOPS_TF32;
}

static bool addDot(const Instr *dot, const Instr *lhs, ThunkyWork *w) {
  const Xla__DotDimensionNumbers *dn = dot->dot_dimension_numbers;
  if (!lhs || !lhs->shape || !dot->shape || !dn)
    return false;
  double k = 1;
  for (size_t i = 0; i < dn->n_lhs_contracting_dimensions; i++) {
    int64_t d = dn->lhs_contracting_dimensions[i];
    if (d < 0 || (size_t)d >= lhs->shape->n_dimensions)
      return false;
    k *= lhs->shape->dimensions[d] > 0 ? (double)lhs->shape->dimensions[d] : 0;
  }
  int32_t type = lhs->shape->element_type;
  double passes, flops = 2 * elements(dot->shape) * k;
  if (thunkyElementKind(type) == THUNKY_KIND_COMPLEX)
    flops *= 4;
  ThunkyFlopsKind kind = dotKind(dot, type, &passes);
  w->flops[kind] += flops * passes;
  return true;
}

/* What each instruction of the computation being costed is to its bytes. */
typedef struct {
  double sliced; /* a parameter: bytes its slices take */
  bool whole;    /* a parameter read other than by slicing */
  bool inPlace;  /* a root dynamic-update-slice of a parameter */
} Use;

static bool cost(ThunkyHloLaunches *l, uint32_t index, unsigned depth);

static bool find(const ThunkyHashMap *ids, int64_t id, uint32_t *at) {
  return thunkyHashMapGet(ids, (uint64_t)id, at);
}

/* The flops of nested fusions and dots, and how each parameter is used. */
static bool walk(ThunkyHloLaunches *l, const Computation *c, const ThunkyHashMap *ids, Use *use,
                 ThunkyWork *w, unsigned depth) {
  for (size_t i = 0; i < c->n_instructions; i++) {
    const Instr *in = c->instructions[i];
    uint32_t at;
    if (is(in, "dot") && !(in->n_operand_ids && find(ids, in->operand_ids[0], &at) &&
                           addDot(in, c->instructions[at], w)))
      return false;
    if (is(in, "fusion"))
      for (size_t k = 0; k < in->n_called_computation_ids; k++) {
        uint32_t callee;
        if (!thunkyHashMapGet(&l->computations, (uint64_t)in->called_computation_ids[k], &callee) ||
            !cost(l, callee, depth + 1))
          return false;
        for (int f = 0; f < THUNKY_FLOPS_KINDS; f++)
          w->flops[f] += l->work[callee].work.flops[f];
      }
    bool slices = is(in, "slice") || is(in, "dynamic-slice");
    for (size_t k = 0; k < in->n_operand_ids; k++) {
      if (!find(ids, in->operand_ids[k], &at) || !is(c->instructions[at], "parameter"))
        continue;
      if (k == 0 && slices)
        use[at].sliced += shapeBytes(in->shape, 0);
      else if (!(k == 0 && use[i].inPlace))
        use[at].whole = true;
    }
  }
  return true;
}

/* The bytes the roots write; marks the dynamic-update-slices that write in
 * place. */
static double rootBytes(const Computation *c, const ThunkyHashMap *ids, Use *use) {
  uint32_t root;
  if (!find(ids, c->root_id, &root))
    root = (uint32_t)c->n_instructions - 1;
  const Instr *r = c->instructions[root];
  bool tuple = is(r, "tuple");
  size_t n = tuple ? r->n_operand_ids : 1;
  double bytes = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t at = root, base, update;
    if (tuple && !find(ids, r->operand_ids[k], &at))
      continue;
    const Instr *out = c->instructions[at];
    if (is(out, "dynamic-update-slice") && out->n_operand_ids >= 2 &&
        find(ids, out->operand_ids[0], &base) && is(c->instructions[base], "parameter") &&
        find(ids, out->operand_ids[1], &update)) {
      use[at].inPlace = true;
      bytes += shapeBytes(c->instructions[update]->shape, 0);
    } else {
      bytes += shapeBytes(out->shape, 0);
    }
  }
  return bytes;
}

static bool costInstructions(ThunkyHloLaunches *l, const Computation *c, ThunkyWork *w,
                             unsigned depth) {
  if (!c->n_instructions || c->n_instructions >= UINT32_MAX)
    return false;
  ThunkyHashMap ids = {0};
  Use *use = calloc(c->n_instructions, sizeof *use);
  bool ok = use != NULL;
  for (size_t i = 0; ok && i < c->n_instructions; i++)
    ok = thunkyHashMapPut(&ids, (uint64_t)c->instructions[i]->id, (uint32_t)i);
  l->outOfMemory = l->outOfMemory || !ok;
  if (ok) {
    w->bytes = rootBytes(c, &ids, use);
    ok = walk(l, c, &ids, use, w, depth);
  }
  for (size_t i = 0; ok && i < c->n_instructions; i++) {
    if (!is(c->instructions[i], "parameter"))
      continue;
    double whole = shapeBytes(c->instructions[i]->shape, 0);
    w->bytes += use[i].whole || use[i].sliced > whole ? whole : use[i].sliced;
  }
  free(use);
  thunkyHashMapDestroy(&ids);
  return ok;
}

static bool cost(ThunkyHloLaunches *l, uint32_t index, unsigned depth) {
  HloComputationWork *cw = &l->work[index];
  if (cw->state == COSTED)
    return true;
  if (cw->state != NOT_COSTED || depth > MAX_NESTING)
    return false;
  cw->state = COSTING;
  ThunkyWork w = {{0}, 0};
  bool ok = costInstructions(l, l->module->computations[index], &w, depth);
  cw->work = w;
  cw->state = ok ? COSTED : UNKNOWN;
  return ok;
}

bool thunkyHloLaunchWork(ThunkyHloLaunches *l, const Instr *launch, ThunkyWork *work, bool *known) {
  uint32_t callee;
  *known = false;
  if (!launch || !is(launch, "fusion") || launch->n_called_computation_ids != 1 ||
      !thunkyHashMapGet(&l->computations, (uint64_t)launch->called_computation_ids[0], &callee))
    return true;
  if (!l->work && !(l->work = calloc(l->module->n_computations, sizeof *l->work)))
    return false;
  *known = cost(l, callee, 0);
  if (*known)
    *work = l->work[callee].work;
  return !l->outOfMemory;
}
