/*===- thunky-c/format/HloWork.h - what a launch does, by its HLO ----------===*
 *
 * A kernel launch runs one HLO fusion of the module the executable keeps
 * (thunky-c/format/HloText.h finds it by name). Its HLO says what the
 * thunk's buffers cannot: how much arithmetic its dots do, and which part
 * of a buffer it touches when it only slices it. The schedule model prices
 * that work (docs/schedule.md). No MLIR.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_HLO_WORK_H
#define THUNKY_C_HLO_WORK_H

#include "thunky-c/Export.h"

#include "thunky-c/base/Work.h"
#include "thunky-c/format/HloText.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The work of `launch`, a fusion thunkyHloLaunchFind found in `launches`:
 *  - flops: 2 per multiply-add of every dot in its computation and the
 *    fusions nested in it (four real multiply-adds per complex one), by the
 *    precision its operand types and precision config ask for (an algorithm
 *    of 3, 6 or 9 passes counts each pass);
 *  - bytes: its parameters read and its results written, where a parameter
 *    used only as a slice's or dynamic slice's source counts those slices,
 *    and a parameter a root dynamic-update-slice updates in place counts
 *    nothing read and its update written.
 * Convolutions and custom calls inside a fusion count bytes only. *known
 * is false, `work` left unset, when the HLO does not say: not a fusion, a
 * callee missing, a cycle or nesting past 64. False only when out of
 * memory. Each computation is costed once and kept in `launches`, so
 * costing every launch of an executable is linear in its module. */
THUNKY_EXPORT bool thunkyHloLaunchWork(ThunkyHloLaunches *launches,
                                       const Xla__HloInstructionProto *launch, ThunkyWork *work,
                                       bool *known);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_HLO_WORK_H */
