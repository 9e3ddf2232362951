/*===- resource_text.h - the resource trailer of an imported module -----===*
 *
 * MLIR prints each resource blob as a hex string it builds whole and then
 * copies: for a module holding 65 MB of kernel code that was two thirds of
 * import to text, most of it page faults. Import prints the module with its
 * resources left out and then writes the same trailer itself, streaming.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_RESOURCE_TEXT_H
#define THUNKY_TRANSLATE_RESOURCE_TEXT_H

#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The blob of builtin resource `name`: its bytes and alignment; false when
 * there is none. */
typedef bool (*ThunkyResourceLookup)(MlirStringRef name, MlirStringRef *bytes,
                                     size_t *alignment, void *userData);

/* Writes, through `write`, `text` (a module printed without its
 * resources) and the `{-# dialect_resources: ... #-}` trailer MLIR would
 * print after it: each resource that `text` names as `dense_resource<NAME>`,
 * in the order first named, as MLIR spells it. False, with nothing
 * written, when a name has no blob or memory runs out. */
bool thunkyWriteWithResources(MlirStringRef text, ThunkyResourceLookup lookup,
                              void *lookupData, MlirStringCallback write, void *writeData);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_TRANSLATE_RESOURCE_TEXT_H */
