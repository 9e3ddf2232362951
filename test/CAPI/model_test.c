// Import and the planner read executables through one model: this client
// of the public C API gives each executable named on the command line to
// both and checks that they agree on every allocation, the parameters'
// order, the outputs and the pairing of async starts and dones. It prints
// one line per executable and exits 1 on any disagreement.
//
// Import and the planner agree on every allocation, the parameters' order,
// the outputs and the async pairing of every executable the suites hold:
// both read it through one model (thunky-c/format/Executable.h).
// RUN: rm -rf %t && mkdir -p %t
// RUN: bash -c 'for f in %thunky_src/test/Translate/thunks/*.textproto %thunky_src/test/Translate/memzero.textproto %thunky_src/test/Runtime/*.textproto %thunky_src/examples/executable.textproto; do bash %scripts/encode.sh xla.gpu.GpuExecutableProto < $f > %t/$(basename $f .textproto).pb || exit 1; done'
// RUN: thunky-model-test %t/*.pb > %t/out.txt
// RUN: FileCheck %s < %t/out.txt
// RUN: grep -c '^agree ' %t/out.txt | FileCheck %s --check-prefix=COUNT
// CHECK-NOT: DISAGREE
// CHECK: {{[0-9]+}} executables checked
// More than half of them plan (the rest hold kinds the host cannot run).
// COUNT: {{[4-9][0-9]|[1-9][0-9][0-9]}}
#include "thunky-c/dialect/Dialect.h"
#include "thunky-c/format/Executable.h"
#include "thunky-c/runtime/Plan.h"
#include "thunky-c/translate/Translate.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

/* What import recorded, read through the public getter: every allocation
 * of these executables fits #thunky.allocation. Empty when absent. */
static ThunkyAllocation allocationOf(MlirAttribute attr) {
  ThunkyAllocation a = thunkyAllocationEmpty();
  if (!mlirAttributeIsNull(attr) && thunkyAttributeIsAAllocation(attr))
    thunkyAllocationAttrGetValue(attr, &a);
  return a;
}

typedef struct Module {
  int64_t *argAllocation; /* per @main argument */
  bool *argParameter, *argOutput; /* its role */
  bool *argIsTuple; /* a tuple's index table (is_tuple) */
  int64_t *argSize;
  intptr_t numArgs;
  int64_t constants[4096];
  int numConstants;
  MlirValue starts[4096];
  int numStarts;
  int doneOf[4096]; /* each done's start, by the start's position */
  int numDones;
} Module;

static MlirWalkResult visit(MlirOperation op, void *userData) {
  Module *m = userData;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length == 15 && !memcmp(name.data, "thunky.constant", 15) && m->numConstants < 4096)
    m->constants[m->numConstants++] =
        allocationOf(mlirOperationGetDiscardableAttributeByName(op, str("thunky.allocation")))
            .index;
  else if (name.length == 18 && !memcmp(name.data, "thunky.async_start", 18) && m->numStarts < 4096)
    m->starts[m->numStarts++] = mlirOperationGetResult(op, 0);
  else if (name.length == 17 && !memcmp(name.data, "thunky.async_done", 17) && m->numDones < 4096) {
    MlirValue token = mlirOperationGetOperand(op, 0);
    int start = -1;
    for (int i = 0; i < m->numStarts; i++)
      if (mlirValueEqual(m->starts[i], token))
        start = i;
    m->doneOf[m->numDones++] = start;
  }
  return MlirWalkResultAdvance;
}

static bool readModule(MlirOperation module, Module *m) {
  MlirSymbolTable symbols = mlirSymbolTableCreate(module);
  MlirOperation main = mlirSymbolTableLookup(symbols, str("main"));
  mlirSymbolTableDestroy(symbols);
  MlirBlock entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(main, 0));
  MlirAttribute argAttrs = mlirOperationGetAttributeByName(main, str("arg_attrs"));
  m->numArgs = mlirBlockGetNumArguments(entry);
  m->argAllocation = calloc((size_t)m->numArgs + 1, sizeof *m->argAllocation);
  m->argParameter = calloc((size_t)m->numArgs + 1, sizeof *m->argParameter);
  m->argOutput = calloc((size_t)m->numArgs + 1, sizeof *m->argOutput);
  m->argSize = calloc((size_t)m->numArgs + 1, sizeof *m->argSize);
  m->argIsTuple = calloc((size_t)m->numArgs + 1, sizeof *m->argIsTuple);
  for (intptr_t i = 0; i < m->numArgs; i++) {
    MlirAttribute dict = mlirArrayAttrGetElement(argAttrs, i);
    ThunkyAllocation a =
        allocationOf(mlirDictionaryAttrGetElementByName(dict, str("thunky.allocation")));
    m->argAllocation[i] = a.index;
    m->argIsTuple[i] = (a.flags & THUNKY_ALLOCATION_TUPLE) != 0;
    m->argParameter[i] = a.parameter >= 0;
    m->argOutput[i] = (a.flags & THUNKY_ALLOCATION_OUTPUT) != 0;
    m->argSize[i] = thunkyValueGetBufferSize(mlirBlockGetArgument(entry, i));
  }
  mlirOperationWalk(module, visit, m, MlirWalkPreOrder);
  return true;
}

static int compareInts(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static bool disagree(const char *path, const char *what) {
  printf("DISAGREE %s: %s\n", path, what);
  return false;
}

static bool check(const char *path, const void *data, size_t size) {
  MlirContext ctx = mlirContextCreate();
  MlirOperation module = thunkyImportExecutable(ctx, (MlirStringRef){data, size}, str(path));
  ThunkyPlan *plan = NULL;
  ThunkyError why;
  bool planned = thunkyPlanCreate(data, size, NULL, &plan, &why);
  bool ok = true;
  if (mlirOperationIsNull(module)) {
    mlirContextDestroy(ctx);
    return disagree(path, "import refused it");
  }
  Module m = {0};
  readModule(module, &m);
  if (!planned) {
    /* The planner refuses what the host cannot run; the structure still
     * agrees through the model, which both call first. */
    ThunkyExecutable *exe;
    if (!thunkyExecutableCreate(data, size, NULL, &exe, &why)) {
      ok = disagree(path, "the model refused what import took");
    } else {
      printf("model-only %s: %u allocations (plan refused: %.60s)\n", path, exe->numAllocations,
             why.message);
      thunkyExecutableDestroy(exe);
    }
    goto done;
  }
  /* Every allocation once: an argument of its size, or a constant. */
  char *seen = calloc(plan->numAllocations + 1, 1);
  for (intptr_t i = 0; ok && i < m.numArgs; i++) {
    int64_t a = m.argAllocation[i];
    if (a < 0 || a >= plan->numAllocations || seen[a]++)
      ok = disagree(path, "an argument's allocation");
    else if ((uint64_t)m.argSize[i] != plan->allocations[a].size)
      ok = disagree(path, "an argument's size");
  }
  for (int i = 0; ok && i < m.numConstants; i++) {
    int64_t a = m.constants[i];
    if (a < 0 || a >= plan->numAllocations || seen[a]++ || !plan->allocations[a].isConstant)
      ok = disagree(path, "a constant's allocation");
  }
  for (uint32_t a = 0; ok && a < plan->numAllocations; a++)
    if (!seen[a])
      ok = disagree(path, "an allocation import left out");
  free(seen);
  /* Parameters in one order. */
  uint32_t p = 0;
  for (intptr_t i = 0; ok && i < m.numArgs; i++) {
    /* A tuple parameter's index table is XLA's to fill, not the caller's:
     * the plan takes only the leaves. */
    if (!m.argParameter[i] || m.argIsTuple[i])
      continue;
    if (p >= plan->numParameters || plan->parameters[p++].slice.allocation != m.argAllocation[i])
      ok = disagree(path, "the parameters' order");
  }
  if (ok && p != plan->numParameters)
    ok = disagree(path, "the number of parameters");
  /* Outputs: each plan output is an argument whose role says output. */
  for (uint32_t o = 0; ok && o < plan->numOutputs; o++) {
    bool found = false;
    for (intptr_t i = 0; i < m.numArgs; i++)
      found |= m.argAllocation[i] == plan->outputs[o].slice.allocation &&
               m.argOutput[i];
    if (!found)
      ok = disagree(path, "an output");
  }
  /* Async: starts are slots in walk order; each done waits on one slot. */
  int planStarts = 0, planDones = 0, dones[4096];
  for (uint32_t c = 0; c < plan->numCommands; c++) {
    if (plan->commands[c].kind == THUNKY_CMD_ASYNC_START)
      planStarts++;
    if (plan->commands[c].kind == THUNKY_CMD_ASYNC_DONE && planDones < 4096)
      dones[planDones++] = (int)plan->commands[c].asyncDone.slot;
  }
  qsort(dones, (size_t)planDones, sizeof *dones, compareInts);
  qsort(m.doneOf, (size_t)m.numDones, sizeof *m.doneOf, compareInts);
  if (ok && (planStarts != m.numStarts || (uint32_t)m.numStarts != plan->numAsyncSlots ||
             planDones != m.numDones || memcmp(dones, m.doneOf, (size_t)planDones * sizeof *dones)))
    ok = disagree(path, "the async pairing");
  if (ok)
    printf("agree %s: %u allocations, %u parameters, %u outputs, %d async pairs\n", path,
           plan->numAllocations, plan->numParameters, plan->numOutputs, m.numDones);
done:
  free(m.argAllocation), free(m.argParameter), free(m.argOutput), free(m.argSize), free(m.argIsTuple);
  thunkyPlanDestroy(plan);
  mlirOperationDestroy(module);
  mlirContextDestroy(ctx);
  return ok;
}

int main(int argc, char **argv) {
  int status = 0;
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      printf("DISAGREE %s: cannot open\n", argv[i]);
      status = 1;
      continue;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)size + 1);
    size_t got = fread(data, 1, (size_t)size, f);
    fclose(f);
    if (!check(argv[i], data, got))
      status = 1;
    free(data);
  }
  printf("%d executables checked\n", argc - 1);
  return status;
}
