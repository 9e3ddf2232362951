/*===- thunky-c/format/HloText.h - an executable's HLO module as HLO text ------===*
 *
 * An XLA:GPU executable keeps the HLO module XLA compiled
 * (hlo_module_with_config). These print it in XLA's own text format, the
 * form HloModule::ToString writes with its long-text options: shapes with
 * layouts, operands with their shapes, computations callees first, the
 * entry marked ENTRY. Attributes XLA prints that are not printed here
 * (shardings, statistics, original values, most of the metadata, the
 * dimension numbers of convolutions, gathers and scatters, windows) are
 * left out, never guessed; every instruction still prints its name, shape,
 * opcode and operands. Linear in the module's size. No MLIR.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_HLO_TEXT_H
#define THUNKY_C_HLO_TEXT_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Error.h"
#include "xla/service/hlo.pb-c.h"
#include "xla/xla.pb-c.h"

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the whole module to `out`. `config` (may be NULL) gives the entry
 * computation layout, replica count and partitions for the header line;
 * without it the module's host program shape stands for the layout. False,
 * with `error` saying why, only when memory or the stream fails. Neither
 * argument is kept. */
THUNKY_EXPORT bool thunkyHloTextPrintModule(FILE *out, const Xla__HloModuleProto *module,
                                            const Xla__HloModuleConfigProto *config,
                                            ThunkyError *error);

/* Writes what one launch runs: the instruction named `name` in a computation
 * that is no fusion's (matched by its HLO name, e.g. "loop_transpose_fusion.1",
 * or by its kernel name, where XLA turns every character other than a
 * letter, digit or '_' into '_': "loop_transpose_fusion_1"), then every
 * computation it calls, callees first. False when no instruction has the
 * name (the error lists up to three near ones) or memory or the stream
 * fails. */
THUNKY_EXPORT bool thunkyHloTextPrintLaunch(FILE *out, const Xla__HloModuleProto *module,
                                            const char *name, ThunkyError *error);

/* The instructions launches can name, hashed once by name (so that finding
 * every launch of an executable is linear). Borrows the module, which must
 * outlive it; free with thunkyHloLaunchesDestroy. */
typedef struct ThunkyHloLaunches ThunkyHloLaunches;

/* Indexes `module`'s instructions; NULL when out of memory. */
THUNKY_EXPORT ThunkyHloLaunches *thunkyHloLaunchesCreate(const Xla__HloModuleProto *module);
THUNKY_EXPORT void thunkyHloLaunchesDestroy(ThunkyHloLaunches *launches);

/* The instruction that a launch of name[0, length) runs, matched as
 * thunkyHloTextPrintLaunch matches (its own name first, then its kernel
 * name), or NULL; with *computation (when `computation` is not NULL) the
 * name of the one computation it calls ("fused_select" for a fusion), NULL
 * when it calls none or several. Both borrowed from the module. */
THUNKY_EXPORT const Xla__HloInstructionProto *thunkyHloLaunchFind(const ThunkyHloLaunches *launches,
                                                                  const char *name, size_t length,
                                                                  const char **computation);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_HLO_TEXT_H */
