/*===- constant_bytes.h - where a constant's bytes are --------------------===*
 *
 * XLA leaves a constant's bytes out of the executable when it carries its
 * HLO module: they are the literal of the HLO constant instruction whose
 * name the constant's symbol encodes. Import and the runtime both need them.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_CONSTANT_BYTES_H
#define THUNKY_TRANSLATE_CONSTANT_BYTES_H

#include "thunky-c/Error.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"

#include <stdbool.h>
#include <stddef.h>

/* The bytes of constant `c` of `exe`: its own content, else its HLO
 * literal's (in the literal's layout). *inProto says which. Predicates are
 * widened to one byte each into *owned, which the caller frees; otherwise
 * *data points into the messages and *owned is NULL. */
bool thunkyConstantBytes(const Xla__Gpu__GpuExecutableProto *exe,
                         const Xla__Gpu__GpuExecutableProto__ConstantInfoProto *c,
                         const void **data, size_t *size, bool *inProto,
                         unsigned char **owned, ThunkyError *error);

#endif /* THUNKY_TRANSLATE_CONSTANT_BYTES_H */
