/*===- stats.c - what a module does, counted ----------------------------===*
 *
 * An analysis: prints on stderr, per op kind, how many thunks there are
 * and, apart, how many ops that are no thunk (slices, constants); how many
 * bytes are set, copied, sent through collectives, held in arguments,
 * scratch and constants. A call_thunk_proto of a collective counts as one
 * (thunkyIsCollective), though its bytes are in a proto passes do not
 * read. Launches that import gave the HLO they run (THUNKY_ATTR_HLO,
 * thunky-translate --thunky-hlo-names) are listed under the kernels, each
 * kernel once, with its HLO instruction and computation: the link from a
 * kernel to the text `thunky-container hlo --launch` prints. With
 * json=true the same as one JSON object, for scripts; output=FILE writes
 * it there instead. Changes nothing.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/base/Arena.h"
#include "thunky-c/passes/Access.h"
#include "report_file.h"
#include "thunk_info.h"

#include "thunky-c/dialect/Diagnostics.h"
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/base/HashMap.h"
#include "thunky-c/base/Json.h"
#include "thunky-c/dialect/Ops.h"
#include "thunky-c/passes/PassKit.h"
#include "thunky-c/passes/Passes.h"

#include "mlir-c/BuiltinAttributes.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct Stats {
  int64_t byKind[THUNKY_OP_COUNT];
  int64_t thunks, others, kernels, collectives;
  int64_t bytesSet, bytesCopied, bytesCommunicated;
  int64_t arguments, argumentBytes, scratchBytes;
  int64_t constants, constantBytes;
  /* Each kernel whose launch carries THUNKY_ATTR_HLO, once, in walk order. */
  struct KernelHlo {
    MlirStringRef kernel, instruction, computation;
  } *hlo;
  size_t numHlo, hloCapacity;
  ThunkyHashMap hloSeen; /* a kernel name's (uniqued) data -> listed */
  bool failed;           /* out of memory */
} Stats;

static MlirStringRef field(MlirAttribute dict, const char *name) {
  MlirAttribute a = mlirDictionaryAttrGetElementByName(dict, mlirStringRefCreateFromCString(name));
  return !mlirAttributeIsNull(a) && mlirAttributeIsAString(a) ? mlirStringAttrGetValue(a)
                                                              : mlirStringRefCreate("", 0);
}

/* Lists the HLO of a launch's kernel, the first time the kernel is seen. */
static void noteHlo(Stats *s, MlirOperation op) {
  MlirAttribute hlo = mlirOperationGetDiscardableAttributeByName(
      op, mlirStringRefCreateFromCString(THUNKY_ATTR_HLO));
  MlirStringRef kernel = thunkyKernelName(op);
  uint32_t seen;
  if (mlirAttributeIsNull(hlo) || !mlirAttributeIsADictionary(hlo) || !kernel.length ||
      thunkyHashMapGet(&s->hloSeen, (uint64_t)(uintptr_t)kernel.data, &seen))
    return;
  if (!thunkyArrayGrow((void **)&s->hlo, &s->hloCapacity, s->numHlo, sizeof *s->hlo)) {
    s->failed = true;
    return;
  }
  if (!thunkyHashMapPut(&s->hloSeen, (uint64_t)(uintptr_t)kernel.data, 1)) {
    s->failed = true;
    return;
  }
  s->hlo[s->numHlo++] =
      (struct KernelHlo){kernel, field(hlo, "instruction"), field(hlo, "computation")};
}

static int64_t operandBytes(MlirOperation op, intptr_t i) {
  return thunkyValueGetBufferSize(mlirOperationGetOperand(op, i));
}

static MlirWalkResult count(MlirOperation op, void *userData) {
  Stats *s = userData;
  ThunkyOpKind kind = thunkyOpGetKind(op);
  /* Implicit terminators are syntax, not work. */
  if (kind == THUNKY_OP_NONE || kind == THUNKY_OP_YIELD)
    return MlirWalkResultAdvance;
  ++s->byKind[kind];
  s->thunks += thunkyOpKindIsThunk(kind);
  s->others += !thunkyOpKindIsThunk(kind);
  switch (kind) {
  case THUNKY_OP_MEMZERO:
  case THUNKY_OP_MEMSET32:
    s->bytesSet += operandBytes(op, 0);
    break;
  case THUNKY_OP_COPY:
    s->bytesCopied += operandBytes(op, 0);
    break;
  case THUNKY_OP_CONSTANT:
    ++s->constants;
    s->constantBytes += thunkyValueGetBufferSize(mlirOperationGetResult(op, 0));
    break;
  case THUNKY_OP_LAUNCH:
    noteHlo(s, op);
    ++s->kernels;
    break;
  case THUNKY_OP_PTX_KERNEL:
    ++s->kernels;
    break;
  case THUNKY_OP_CALL_THUNK_PROTO:
    s->kernels += thunkyKernelName(op).length != 0;
    break;
  default:
    if (thunkyOpKindIsCollective(kind)) {
      intptr_t sources = mlirOperationGetNumOperands(op) / 2;
      for (intptr_t i = 0; i < sources; ++i)
        s->bytesCommunicated += operandBytes(op, i);
    }
    break;
  }
  s->collectives += thunkyIsCollective(op);
  return MlirWalkResultAdvance;
}

/* Arguments of every function, and those import marked as scratch. */
static MlirWalkResult countArguments(MlirOperation op, void *userData) {
  Stats *s = userData;
  if (!thunkyIsFunction(op))
    return MlirWalkResultAdvance;
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  for (intptr_t i = 0; !mlirBlockIsNull(entry) && i < mlirBlockGetNumArguments(entry); ++i) {
    MlirValue arg = mlirBlockGetArgument(entry, i);
    int64_t bytes = thunkyValueGetBufferSize(arg);
    if (bytes < 0)
      continue;
    ++s->arguments;
    s->argumentBytes += bytes;
    if (thunkyIsScratchArgument(arg))
      s->scratchBytes += bytes;
  }
  return MlirWalkResultAdvance;
}

static void printKinds(FILE *out, const Stats *s, bool thunks) {
  for (int k = 1; k < THUNKY_OP_COUNT; ++k)
    if (s->byKind[k] && thunkyOpKindIsThunk(k) == thunks)
      fprintf(out, "    %-20s %" PRId64 "\n", thunkyOpKindGetMnemonic(k), s->byKind[k]);
}

static void printText(FILE *out, const Stats *s) {
  fprintf(out, "thunky-stats:\n  thunks: %" PRId64 "\n", s->thunks);
  printKinds(out, s, true);
  fprintf(out, "  other ops: %" PRId64 "\n", s->others);
  printKinds(out, s, false);
  fprintf(out,
          "  bytes set: %" PRId64 ", copied: %" PRId64 "\n"
          "  kernels: %" PRId64 "\n",
          s->bytesSet, s->bytesCopied, s->kernels);
  /* As HLO text names them, so that the line can be searched for in
   * `thunky-container hlo`'s output. */
  for (size_t i = 0; i < s->numHlo; ++i) {
    const struct KernelHlo *k = &s->hlo[i];
    fprintf(out, "    %.*s: %%%.*s", (int)k->kernel.length, k->kernel.data,
            (int)k->instruction.length, k->instruction.data);
    if (k->computation.length)
      fprintf(out, ", calls=%%%.*s", (int)k->computation.length, k->computation.data);
    fputc('\n', out);
  }
  fprintf(out,
          "  collectives: %" PRId64 " (%" PRId64 " bytes sent)\n"
          "  arguments: %" PRId64 " (%" PRId64 " bytes, %" PRId64 " scratch)\n"
          "  constants: %" PRId64 " (%" PRId64 " bytes)\n",
          s->collectives, s->bytesCommunicated, s->arguments, s->argumentBytes,
          s->scratchBytes, s->constants, s->constantBytes);
}

/* {"memzero": 1, ...}: the thunks' kinds, or the other ops'. */
static void jsonKinds(FILE *out, const Stats *s, bool thunks) {
  const char *separator = "";
  fputc('{', out);
  for (int k = 1; k < THUNKY_OP_COUNT; ++k)
    if (s->byKind[k] && thunkyOpKindIsThunk(k) == thunks) {
      fprintf(out, "%s\"%s\": %" PRId64, separator, thunkyOpKindGetMnemonic(k),
              s->byKind[k]);
      separator = ", ";
    }
  fputc('}', out);
}

/* JSON: `, "hlo": [{"kernel": ..., "instruction": ..., "computation": ...}]`,
 * the computation null when there is none; nothing when no launch has it. */
static void jsonHlo(FILE *out, const Stats *s) {
  for (size_t i = 0; i < s->numHlo; ++i) {
    const struct KernelHlo *k = &s->hlo[i];
    fputs(i ? ", {\"kernel\": \"" : ", \"hlo\": [{\"kernel\": \"", out);
    thunkyJsonWriteString(out, k->kernel.data, k->kernel.length);
    fputs("\", \"instruction\": \"", out);
    thunkyJsonWriteString(out, k->instruction.data, k->instruction.length);
    fputs("\", \"computation\": ", out);
    if (k->computation.length) {
      fputc('"', out);
      thunkyJsonWriteString(out, k->computation.data, k->computation.length);
      fputs("\"}", out);
    } else {
      fputs("null}", out);
    }
  }
  if (s->numHlo)
    fputc(']', out);
}

static void printJson(FILE *out, const Stats *s) {
  fputs("{\"thunk_ops\": ", out);
  jsonKinds(out, s, true);
  fputs(", \"other_ops\": ", out);
  jsonKinds(out, s, false);
  fprintf(out,
          ", \"thunks\": %" PRId64 ", \"bytes_set\": %" PRId64
          ", \"bytes_copied\": %" PRId64 ", \"kernels\": %" PRId64
          ", \"collectives\": %" PRId64 ", \"bytes_communicated\": %" PRId64
          ", \"arguments\": %" PRId64 ", \"argument_bytes\": %" PRId64
          ", \"scratch_bytes\": %" PRId64 ", \"constants\": %" PRId64
          ", \"constant_bytes\": %" PRId64,
          s->thunks, s->bytesSet, s->bytesCopied, s->kernels, s->collectives,
          s->bytesCommunicated, s->arguments, s->argumentBytes, s->scratchBytes,
          s->constants, s->constantBytes);
  jsonHlo(out, s);
  fputs("}\n", out);
}

enum { OPTION_JSON, OPTION_OUTPUT };

static void run(MlirOperation root, ThunkyPassState *state) {
  thunkyPassMarkUnchanged(state);
  Stats s = {0};
  mlirOperationWalk(root, count, &s, MlirWalkPreOrder);
  mlirOperationWalk(root, countArguments, &s, MlirWalkPreOrder);
  MlirLocation loc = mlirOperationGetLocation(root);
  const char *path = thunkyPassGetStringOption(state, OPTION_OUTPUT);
  FILE *out = s.failed ? NULL : thunkyReportFileOpen(loc, "thunky-stats", path);
  if (s.failed)
    thunkyEmitError(loc, "thunky-stats: out of memory");
  else if (out && thunkyPassGetOption(state, OPTION_JSON))
    printJson(out, &s);
  else if (out)
    printText(out, &s);
  if (!out || !thunkyReportFileClose(out, loc, "thunky-stats", path))
    thunkyPassSignalFailure(state);
  free(s.hlo);
  thunkyHashMapDestroy(&s.hloSeen);
}

MlirPass thunkyCreateStatsPass(void) {
  static const ThunkyPassOption options[] = {
      [OPTION_JSON] = {"json", "Print one JSON object instead of text",
                       THUNKY_OPTION_BOOL, 0},
      [OPTION_OUTPUT] = {"output", "Write the report to this file instead of stderr",
                         THUNKY_OPTION_STRING, 0},
  };
  static const ThunkyPassInfo info = {
      "ThunkyStats", "thunky-stats",
      "Print op counts and bytes set, copied, communicated and held (stderr)",
      run, options, 2};
  return thunkyPassCreate(&info);
}
