/*===- thunky-c/passes/Passes.h - thunky passes from C -------------------------===*/
#ifndef THUNKY_C_PASSES_H
#define THUNKY_C_PASSES_H

#include "mlir-c/Pass.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A function that makes a fresh instance of one pass. */
typedef MlirPass (*ThunkyPassFactory)(void);

/* Registers a pass made by `factory` in MLIR's global pass registry, so that
 * pipelines (`-p 'builtin.module(name)'`) and tools' flags can name it. The
 * factory must return passes with the same TypeID every time. */
MLIR_CAPI_EXPORTED void thunkyRegisterPass(ThunkyPassFactory factory);

/* Registers every thunky pass; safe to call more than once. */
MLIR_CAPI_EXPORTED void thunkyRegisterPasses(void);

/* thunky-flatten-sequential: inlines thunky.sequential bodies into their
 * parent block, nested ones too. */
MLIR_CAPI_EXPORTED MlirPass thunkyCreateFlattenSequentialPass(void);

/* thunky-fold-slices: a slice of a slice becomes one slice of the root, a
 * slice of a whole buffer the buffer; slices move next to their buffer, and
 * identical ones merge. */
MLIR_CAPI_EXPORTED MlirPass thunkyCreateFoldSlicesPass(void);

/* thunky-elide-copies: drops copies onto the same bytes and dead copies into
 * scratch, and forwards copies into scratch that is afterwards only read. */
MLIR_CAPI_EXPORTED MlirPass thunkyCreateElideCopiesPass(void);

/* thunky-pack-scratch: scratch slices whose lifetimes do not overlap share
 * bytes; the scratch argument shrinks. Option report. */
MLIR_CAPI_EXPORTED MlirPass thunkyCreatePackScratchPass(void);

/* thunky-optimize: flatten-sequential, fold-slices, elide-copies,
 * fold-slices and pack-scratch as the stages of one pass, so that MLIR
 * verifies once; option verify-stages verifies after each stage too. */
MLIR_CAPI_EXPORTED MlirPass thunkyCreateOptimizePass(void);

/* thunky-stats: prints op counts and bytes moved and held; option json. */
MLIR_CAPI_EXPORTED MlirPass thunkyCreateStatsPass(void);

/* thunky-memory-report: prints each allocation's live range over the
 * thunks and the peak of live bytes with what is live there; options json
 * and svg (a path to plot to). */
MLIR_CAPI_EXPORTED MlirPass thunkyCreateMemoryReportPass(void);

/* thunky-check-races: an error at each async_start whose region touches
 * bytes an op beside it writes, or writes bytes such an op reads. */
MLIR_CAPI_EXPORTED MlirPass thunkyCreateCheckRacesPass(void);

/* thunky-remove-redundant-async: inlines each async region whose
 * async_done directly follows its async_start (XLA's
 * RemoveRedundantAsyncThunkPass). */
MLIR_CAPI_EXPORTED MlirPass thunkyCreateRemoveRedundantAsyncPass(void);

/* thunky-expand-async-scope: moves each async_start up and each async_done
 * down past the ops they do not conflict with (XLA's
 * ExpandAsyncScopeThunkPass); option max-pairs bounds the work. */
MLIR_CAPI_EXPORTED MlirPass thunkyCreateExpandAsyncScopePass(void);

/* thunky-strip-metadata: removes the thunky.* attributes that import keeps
 * so that export can rebuild the executable. */
MLIR_CAPI_EXPORTED MlirPass thunkyCreateStripMetadataPass(void);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_PASSES_H */
