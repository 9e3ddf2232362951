/*===- thunky-c/passes/PassKit.h - writing a thunky pass in C ------------------===*
 *
 * A pass is a static ThunkyPassInfo and a run function:
 *
 *   static void run(MlirOperation root, ThunkyPassState *state) { ... }
 *   static const ThunkyPassInfo info = {"MyPass", "my-pass", "what it does", run};
 *   MlirPass createMyPass(void) { return thunkyPassCreate(&info); }
 *   ...
 *   thunkyRegisterPass(createMyPass);   (thunky-c/passes/Passes.h)
 *
 * The pass runs on any op (usually the module) and may rewrite anything in
 * it. Options are integers, booleans or strings
 * (`-p 'builtin.module(my-pass{limit=3})'`, `thunky-opt --my-pass=limit=3`),
 * kept in crash reproducers and shown by --dump-pass-pipeline. To fail, emit a diagnostic (thunky-c/dialect/Diagnostics.h)
 * and call thunkyPassSignalFailure. docs/writing-a-pass.md walks through a
 * complete example built as its own plugin.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_PASSKIT_H
#define THUNKY_C_PASSKIT_H

#include "thunky-c/dialect/Ops.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ThunkyPassState ThunkyPassState;

typedef void (*ThunkyPassRun)(MlirOperation root, ThunkyPassState *state);

typedef enum ThunkyOptionKind {
  THUNKY_OPTION_BOOL,
  THUNKY_OPTION_INT,
  THUNKY_OPTION_STRING, /* e.g. a path; empty by default */
} ThunkyOptionKind;

typedef struct ThunkyPassOption {
  const char *name;        /* as written in a pipeline: name=value */
  const char *description; /* one line for --help */
  ThunkyOptionKind kind;
  int64_t defaultValue; /* a string option's default is empty */
} ThunkyPassOption;

typedef struct ThunkyPassInfo {
  const char *name;        /* class-style name, e.g. "ThunkyFoldSlices" */
  const char *argument;    /* the flag, e.g. "thunky-fold-slices" */
  const char *description; /* one line for --help */
  ThunkyPassRun run;
  const ThunkyPassOption *options; /* may be NULL */
  size_t numOptions;
} ThunkyPassInfo;

/* A new instance of the pass `info` describes. `info` must outlive every
 * instance (make it static): its address is the pass's identity. */
MLIR_CAPI_EXPORTED MlirPass thunkyPassCreate(const ThunkyPassInfo *info);

/* The value of option `index` (in ThunkyPassInfo.options) for this run. */
MLIR_CAPI_EXPORTED int64_t thunkyPassGetOption(const ThunkyPassState *state,
                                               size_t index);

/* The value of string option `index` for this run, NUL-terminated ("" when
 * unset); valid until the run function returns. */
MLIR_CAPI_EXPORTED const char *thunkyPassGetStringOption(const ThunkyPassState *state,
                                                         size_t index);

/* Marks this run as failed; report why with a diagnostic first. */
MLIR_CAPI_EXPORTED void thunkyPassSignalFailure(ThunkyPassState *state);

/* Says this run changed nothing, so MLIR need not verify the op again after
 * it (it preserves every analysis). An analysis pass calls it always. */
MLIR_CAPI_EXPORTED void thunkyPassMarkUnchanged(ThunkyPassState *state);

/* Runs the pass `stage` describes on `root`, with its default options, as a
 * stage of the pass whose run has `state`. MLIR verifies after each pass,
 * not each stage, so a pass made of stages verifies once. Sets *changed
 * (when not NULL) unless the stage marked itself unchanged. Returns false,
 * and marks `state` failed, when the stage failed. */
MLIR_CAPI_EXPORTED bool thunkyPassRunStage(const ThunkyPassInfo *stage, MlirOperation root,
                                           ThunkyPassState *state, bool *changed);

/* Ops found by a walk, to rewrite after it: a walk must not erase the op it
 * visits. */
typedef struct ThunkyOpList {
  MlirOperation *ops;
  size_t count, capacity;
} ThunkyOpList;

/* Appends every op of `kind` in `root` (root included) in walk `order`;
 * false when out of memory. */
MLIR_CAPI_EXPORTED bool thunkyCollectOps(MlirOperation root, ThunkyOpKind kind,
                                         MlirWalkOrder order, ThunkyOpList *out);

/* Frees the list's memory; it is empty and usable again afterwards. */
MLIR_CAPI_EXPORTED void thunkyOpListClear(ThunkyOpList *list);

/* Whether `op` is a collective (a first-class one, or one kept as
 * call_thunk_proto: a broadcast, send, recv, ragged all-to-all, collective
 * kernel) or holds one in its regions; with `outsideAsyncRegions`, leaving out those in async regions nested in it,
 * which run on execution streams of their own. */
MLIR_CAPI_EXPORTED bool thunkyOpHoldsCollective(MlirOperation op, bool outsideAsyncRegions);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_PASSKIT_H */
