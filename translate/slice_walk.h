/*===- slice_walk.h - every buffer slice inside a message ---------------===*
 *
 * Thunks name memory as BufferAllocationSliceProto (allocation, offset,
 * size), at different depths in every thunk kind. The walk is driven by
 * protobuf-c's descriptors, not by a list of kinds, so every thunk kind of
 * the schema is covered, including ones added later.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_SLICE_WALK_H
#define THUNKY_TRANSLATE_SLICE_WALK_H

#include "xla/service/buffer_assignment.pb-c.h"

#include <stdbool.h>

typedef Xla__BufferAssignment__BufferAllocationSliceProto ThunkySlice;

/* Called for each slice; returning false stops the walk. */
typedef bool (*ThunkySliceVisitor)(ThunkySlice *slice, void *userData);

/* Visits every slice reachable from `msg`, depth first in field-number
 * order, except inside the two sub-trees that index an allocation table of
 * their own: DynamicSliceFusionThunkProto.embedded_thunks and
 * HostExecuteStartThunkProto.executable_proto. Returns false if a visitor
 * call did. Depth is bounded by the input checks (thunkyCheckWire). */
bool thunkyForEachSlice(ProtobufCMessage *msg, ThunkySliceVisitor visit,
                        void *userData);

#endif /* THUNKY_TRANSLATE_SLICE_WALK_H */
