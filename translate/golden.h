/*===- golden.h - XLA's golden-file wrapper -----------------------------===*
 *
 * XLA's golden AOT files hold a HumanReadableAotExecutable: options in
 * field 1, then a oneof of backend executables, the GPU one in field 2.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_GOLDEN_H
#define THUNKY_TRANSLATE_GOLDEN_H

#include "xla/util/split_proto/human_readable_aot_executable.pb-c.h"

/* The GPU executable that `w` wraps, or NULL when `w` is not a golden
 * wrapper: its oneof holds another backend, it has fields the schema does
 * not know, or the executable has neither thunks nor allocations (the
 * bytes of a bare executable often parse as a wrapper too). */
Xla__Gpu__GpuExecutableProto *thunkyGoldenExecutable(Xla__HumanReadableAotExecutable *w);

#endif /* THUNKY_TRANSLATE_GOLDEN_H */
