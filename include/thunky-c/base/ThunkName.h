/*===- thunky-c/base/ThunkName.h - how every report names a thunk ------------===*
 *
 * The format's errors, the plan, the checks and the passes all name a
 * thunk the same way, by its position and the id a module shows.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_THUNK_NAME_H
#define THUNKY_C_THUNK_NAME_H

#include "thunky-c/Export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "thunk 7 (loop_add_fusion, id 8)": how every report names the thunk at
 * depth-first position `number`, given its profile annotation
 * annotation[0, length) and XLA's thunk_id `id`, the number a module shows
 * in its #thunky.info (docs/runtime.md#thunk-numbers). An empty annotation
 * or an id of 0 or less is left out: "thunk 7 (id 8)", "thunk 7". */
THUNKY_EXPORT void thunkyThunkName(uint64_t number, const char *annotation, size_t length,
                                   int64_t id, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_THUNK_NAME_H */
