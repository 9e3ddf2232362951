/*===- thunk_info.h - what passes say of a thunk beyond its op ----------===*
 *
 * One numbering for every report: a thunk is "thunk N (annotation)"
 * (thunkyThunkName in thunky-c/format/Executable.h), N its depth-first position,
 * from 0, among the thunks of its function (thunkyOpKindIsThunk: every op
 * but slices, constants and yields; an op with regions before the thunks
 * nested in it), as thunky-run's plan, profiles and --compare number them
 * (docs/runtime.md). Import's #thunky.info (and its locations) carry XLA's
 * thunk id, the number a module shows, which the name adds after the
 * profile annotation: "thunk 7 (loop_add_fusion, id 8)".
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_PASSES_THUNK_INFO_H
#define THUNKY_PASSES_THUNK_INFO_H

#include "op_map.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Thunk numbers, each function's found in one walk the first time one of
 * its ops is asked about, so that naming many ops stays linear. Zero-
 * initialise; free with thunkyThunkNumbersClear. */
typedef struct ThunkyThunkNumbers {
  ThunkyOpMap map;
  MlirOperation function; /* whose thunks the map numbers */
} ThunkyThunkNumbers;

/* The number of thunk `op` among the thunks of its function, or -1 when
 * `op` is no thunk of a function (or memory ran out). */
int64_t thunkyThunkNumberOf(ThunkyThunkNumbers *numbers, MlirOperation op);
void thunkyThunkNumbersClear(ThunkyThunkNumbers *numbers);

/* The profile annotation of `op`'s #thunky.info (THUNKY_ATTR_INFO), else
 * the one import put in its location ("thunk <xla id> <annotation>"), or an
 * empty string; borrowed from the context. */
MlirStringRef thunkyThunkAnnotation(MlirOperation op);

/* "thunk 7 (loop_add_fusion, id 8)" for `op` at `number`, with the
 * annotation and XLA id its #thunky.info (or import's location) gives, each
 * left out where it has none (thunkyThunkName); into out[0, size). */
void thunkyOpThunkName(MlirOperation op, int64_t number, char *out, size_t size);

/* Where `op` came from, as MLIR prints locations, but for import's name
 * location "thunk <xla id> <annotation>"(file) only the file part: the
 * name, with XLA's id, is not how reports name a thunk. */
void thunkyPrintOpSource(MlirOperation op, MlirStringCallback write, void *userData);

/* The thunk kind a call_thunk_proto holds (THUNKY_ATTR_THUNK_KIND,
 * "send_thunk"); empty for any other op, or one without the attribute. */
MlirStringRef thunkyCallThunkKind(MlirOperation op);

/* Whether `op` is a collective: a collective op (thunkyOpKindIsCollective),
 * or a call_thunk_proto whose THUNKY_ATTR_THUNK_KIND names one. */
bool thunkyIsCollective(MlirOperation op);

/* XLA's host computations and transfers, kept as call_thunk_proto: a start
 * thunk whose work goes on until the done thunk of the same kind and
 * async_events_unique_id. Whether `op` starts or ends such a pair; *key is
 * the pair's kind and id (key->b < 0: a thunk_proto kept serialized gives
 * no id, so its start stays in flight to the end of its block, and its
 * done ends nothing). */
typedef enum { THUNKY_UNPAIRED, THUNKY_PAIR_START, THUNKY_PAIR_DONE } ThunkyHostPairing;
ThunkyHostPairing thunkyHostPairing(MlirOperation op, ThunkyOpMapKey *key);

#endif /* THUNKY_PASSES_THUNK_INFO_H */
