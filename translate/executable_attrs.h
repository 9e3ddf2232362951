/*===- executable_attrs.h - where import keeps what the dialect omits ---===*
 *
 * Shared by import and export; docs/formats.md says the same for users.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_EXECUTABLE_ATTRS_H
#define THUNKY_TRANSLATE_EXECUTABLE_ATTRS_H

#include "proto_attr.h"

/* Module: the GpuExecutableProto less its thunks, allocations and the bytes
 * of constants that became thunky.constant ops; less the constant table too
 * when export rebuilds it from those ops byte for byte. */
#define THUNKY_ATTR_EXECUTABLE "thunky.executable"
/* Module: the xla.HumanReadableAotExecutable around it, less the executable. */
#define THUNKY_ATTR_WRAPPER "thunky.wrapper"
/* Module: how the executable was packed ("split", "ifrt+split-options", ...,
 * see thunky-c/format/Container.h); absent for a bare GpuExecutableProto. Export
 * writes the same layering unless told otherwise. */
#define THUNKY_ATTR_CONTAINER "thunky.container"
/* Module: the JAX compilation cache entry around it all ("zlib" or "zstd",
 * thunky-c/format/Container.h), and the entry's compile time (i64); absent when
 * there is none. Export writes the entry again. */
#define THUNKY_ATTR_CACHE "thunky.cache_entry"
#define THUNKY_ATTR_CACHE_TIME "thunky.cache_compile_time"
/* Module: the jax.experimental.serialize_executable pickle around it all,
 * less the executable's bytes (a string of its bytes), where they go in it,
 * and the pickle frame that holds them (i64s; -1: none). Export writes the
 * pickle again around the new executable. */
#define THUNKY_ATTR_PICKLE "thunky.jax_pickle"
#define THUNKY_ATTR_PICKLE_AT "thunky.jax_pickle_at"
#define THUNKY_ATTR_PICKLE_FRAME "thunky.jax_pickle_frame"
/* Module: the xla.ExecutableAndOptionsProto around the executable (compile
 * options, PJRT client name), less the executable. */
#define THUNKY_ATTR_OPTIONS "thunky.executable_options"
/* Module: the IFRT envelope's xla.ifrt.SerializedXlaExecutableMetadata. */
#define THUNKY_ATTR_IFRT_METADATA "thunky.ifrt_metadata"
/* @main argument or thunky.constant: its BufferAllocationProto less size. */
#define THUNKY_ATTR_ALLOCATION "thunky.allocation"
/* @main argument: what the allocation is for ("parameter 0", "output {1}",
 * "scratch"...); export reads it on an argument without THUNKY_ATTR_ALLOCATION
 * (export_roles.c). */
#define THUNKY_ATTR_ROLE "thunky.role"
/* @main argument: the logical type of the array it holds (parameter or
 * output shape from the program shape); read by export as the role is. */
#define THUNKY_ATTR_SHAPE "thunky.shape"
/* thunky.constant: XLA left the bytes out of the proto (they are in the HLO
 * module, where import found them), so export leaves them out too. */
#define THUNKY_ATTR_CONTENT_OMITTED "thunky.content_omitted"
/* thunky.copy made by import to put a constant into an argument allocation;
 * not a thunk of the executable, so export skips it. */
#define THUNKY_ATTR_IMPLICIT "thunky.implicit"
/* call_thunk_proto of a custom kernel thunk: the kernel's cubin (or PTX),
 * taken out of thunk_proto so that a module holds each distinct binary once
 * (MLIR uniques attributes) however many thunks launch it; export puts it
 * back. It is the program's code, so thunky-strip-metadata keeps it. */
#define THUNKY_ATTR_KERNEL_BINARY "thunky.kernel_binary"
/* call_thunk_proto: THUNKY_ATTR_THUNK_KIND, in thunky-c/dialect/Dialect.h since
 * passes read it too. */
/* First-class op: the fields of its ThunkProto that the op does not model
 * (thunk_info, shapes, collective details...). */
#define THUNKY_ATTR_THUNK "thunky.thunk"
/* thunky.launch: its args' shapes (and their slices' element types) as an
 * array of tensor types, one per operand; the encoding of a type holds what
 * differs from XLA's own form (import_kernels.c, docs/formats.md). */
#define THUNKY_ATTR_ARG_SHAPES "thunky.arg_shapes"
/* Op that import took out of a sequential_thunk it had to flatten (an
 * async_start_thunk in it whose async_done_thunk comes after it): the
 * sequentials it was in, outermost first, as an array of dictionaries
 * {group = <n> : i64, thunk = <the sequential's THUNKY_ATTR_THUNK>} (`thunk`
 * absent when the sequential kept nothing). `group` numbers the flattened
 * sequentials of a module. Export wraps the thunks of each group back into
 * one sequential_thunk when they are still consecutive in one block (ops
 * that make no thunk, such as slices, may sit between); a group whose thunks
 * were separated, or that lies in more than one block, is dropped and its
 * thunks are written unwrapped (export_sequential.c). */
#define THUNKY_ATTR_IN_SEQUENTIAL "thunky.in_sequential"

#endif /* THUNKY_TRANSLATE_EXECUTABLE_ATTRS_H */
