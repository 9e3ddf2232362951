/*===- slice_walk.c - descriptor-driven walk over buffer slices ---------===*/
#include "slice_walk.h"

#include "proto_attr.h"

#include <string.h>

static bool hasOwnAllocationTable(const ProtobufCMessageDescriptor *desc,
                                  const ProtobufCFieldDescriptor *f) {
  return (strcmp(desc->name, "xla.gpu.DynamicSliceFusionThunkProto") == 0 &&
          strcmp(f->name, "embedded_thunks") == 0) ||
         (strcmp(desc->name, "xla.gpu.HostExecuteStartThunkProto") == 0 &&
          strcmp(f->name, "executable_proto") == 0);
}

bool thunkyForEachSlice(ProtobufCMessage *msg, ThunkySliceVisitor visit,
                        void *userData) {
  const ProtobufCMessageDescriptor *desc = msg->descriptor;
  if (desc == &xla__buffer_assignment__buffer_allocation_slice_proto__descriptor)
    return visit((ThunkySlice *)msg, userData);
  for (unsigned i = 0; i < desc->n_fields; ++i) {
    const ProtobufCFieldDescriptor *f = &desc->fields[i];
    if (f->type != PROTOBUF_C_TYPE_MESSAGE || !thunkyProtoHasField(msg, f) ||
        hasOwnAllocationTable(desc, f))
      continue;
    void *slot = (char *)msg + f->offset;
    if (f->label == PROTOBUF_C_LABEL_REPEATED) {
      size_t n = *(size_t *)((char *)msg + f->quantifier_offset);
      ProtobufCMessage **items = *(ProtobufCMessage ***)slot;
      for (size_t k = 0; k < n; ++k)
        if (!thunkyForEachSlice(items[k], visit, userData))
          return false;
    } else if (!thunkyForEachSlice(*(ProtobufCMessage **)slot, visit, userData)) {
      return false;
    }
  }
  return true;
}
