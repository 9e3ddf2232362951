/*===- split_proto.c - XLA's split-proto container ----------------------===*/
#include "thunky-c/format/Riegeli.h"

#include "thunky-c/format/Wire.h"
#include "xla/util/split_proto/split_proto.pb-c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef Xla__SplitProtoManifest Manifest;
typedef Xla__Record__FieldOverrideRecord Override;

enum { WIRE_LEN = 2 };

static Manifest *readManifest(const ThunkyRecordFile *file, ThunkyError *error) {
  if (file->count == 0) {
    thunkyErrorf(error, "split-proto: the file holds no records (record 0 is the manifest)");
    return NULL;
  }
  ThunkyBytes m = file->records[0];
  ThunkyError why;
  if (!thunkyValidateWire(&xla__split_proto_manifest__descriptor, m.data, m.size, &why)) {
    thunkyErrorf(error, "split-proto: record 0 is not a SplitProtoManifest: %s", why.message);
    return NULL;
  }
  Manifest *manifest = xla__split_proto_manifest__unpack(NULL, m.size, m.data);
  if (!manifest)
    thunkyErrorf(error, "split-proto: record 0 is not a SplitProtoManifest");
  return manifest;
}

bool thunkySplitProtoType(const ThunkyRecordFile *file, char *type, size_t typeSize) {
  Manifest *manifest = readManifest(file, NULL);
  bool named = manifest && manifest->result_proto_type && *manifest->result_proto_type;
  if (named)
    snprintf(type, typeSize, "%s", manifest->result_proto_type);
  if (manifest)
    xla__split_proto_manifest__free_unpacked(manifest, NULL);
  return named;
}

/* XLA's reader sets one top-level string field from an override record and
 * supports nothing else; neither does this one. */
static bool overrideField(const Override *o, size_t record, uint32_t *number,
                          ThunkyError *error) {
  const Xla__Record__FieldOverrideRecord__FieldPathPart *part =
      o->n_field_path == 1 ? o->field_path[0] : NULL;
  if (!part ||
      part->index_case != XLA__RECORD__FIELD_OVERRIDE_RECORD__FIELD_PATH_PART__INDEX__NOT_SET ||
      part->field_number <= 0 || part->field_number > 0x1fffffff)
    return thunkyErrorf(error,
                        "split-proto: record %zu overrides a field path other than one "
                        "top-level field number, which XLA does not support", record);
  if (o->field_type != XLA__RECORD__FIELD_OVERRIDE_RECORD__FIELD_DESCRIPTOR_TYPE__TYPE_STRING)
    return thunkyErrorf(error,
                        "split-proto: record %zu overrides a field of type %d; only strings "
                        "(type 1) are supported", record, (int)o->field_type);
  *number = (uint32_t)part->field_number;
  return true;
}

static bool appendLengthDelimited(ThunkyBuffer *out, uint32_t number, ThunkyBytes value) {
  return thunkyBufferAppendVarint(out, (uint64_t)number << 3 | WIRE_LEN) &&
         thunkyBufferAppendVarint(out, value.size) &&
         thunkyBufferAppend(out, value.data, value.size);
}

bool thunkySplitProtoMerge(const ThunkyRecordFile *file, ThunkyBuffer *out, ThunkyError *error) {
  Manifest *manifest = readManifest(file, error);
  if (!manifest)
    return false;
  bool ok = true;
  if (manifest->n_records != file->count - 1)
    ok = thunkyErrorf(error,
                      "split-proto: the manifest describes %zu records, the file holds %zu "
                      "after it", manifest->n_records, file->count - 1);
  for (size_t i = 0; ok && i < manifest->n_records; i++) {
    const Xla__Record *r = manifest->records[i];
    ThunkyBytes data = file->records[i + 1];
    uint32_t number;
    if (r->base.n_unknown_fields) {
      ok = thunkyErrorf(error, "split-proto: record %zu has a type thunky does not know", i + 1);
    } else if (r->record_type_case == XLA__RECORD__RECORD_TYPE_PROTO_MERGE_RECORD) {
      ok = thunkyBufferAppend(out, data.data, data.size);
    } else if (r->record_type_case == XLA__RECORD__RECORD_TYPE_FIELD_OVERRIDE_RECORD) {
      /* An empty string is an absent proto3 field: leave it out. */
      ok = overrideField(r->field_override_record, i + 1, &number, error) &&
           (data.size == 0 || appendLengthDelimited(out, number, data));
    } else {
      ok = thunkyErrorf(error, "split-proto: record %zu has no record type", i + 1);
    }
  }
  if (ok && out->failed)
    ok = thunkyErrorf(error, "split-proto: out of memory");
  xla__split_proto_manifest__free_unpacked(manifest, NULL);
  return ok;
}

/*--- writing ---------------------------------------------------------------*/

/* One record after the manifest: a merge record, or the raw bytes of
 * top-level string field `overrideField`. */
typedef struct {
  ThunkyBytes data;
  uint32_t overrideField;
} SplitRecord;

/* What the manifest says of one record, with storage for its parts. */
typedef struct {
  Xla__Record record;
  Override override;
  Xla__Record__FieldOverrideRecord__FieldPathPart part, *partPointer;
} RecordKind;

static void describeRecord(RecordKind *k, const SplitRecord *r,
                           Xla__Record__ProtoMergeRecord *merge) {
  k->record = (Xla__Record)XLA__RECORD__INIT;
  if (!r->overrideField) {
    k->record.record_type_case = XLA__RECORD__RECORD_TYPE_PROTO_MERGE_RECORD;
    k->record.proto_merge_record = merge;
    return;
  }
  k->part = (Xla__Record__FieldOverrideRecord__FieldPathPart)
      XLA__RECORD__FIELD_OVERRIDE_RECORD__FIELD_PATH_PART__INIT;
  k->part.has_field_number = 1;
  k->part.field_number = (int32_t)r->overrideField;
  k->partPointer = &k->part;
  k->override = (Override)XLA__RECORD__FIELD_OVERRIDE_RECORD__INIT;
  k->override.n_field_path = 1;
  k->override.field_path = &k->partPointer;
  k->override.has_field_type = 1;
  k->override.field_type = XLA__RECORD__FIELD_OVERRIDE_RECORD__FIELD_DESCRIPTOR_TYPE__TYPE_STRING;
  k->record.record_type_case = XLA__RECORD__RECORD_TYPE_FIELD_OVERRIDE_RECORD;
  k->record.field_override_record = &k->override;
}

static bool writeSplit(const char *type, const SplitRecord *records, size_t count,
                       ThunkyCompression compression, ThunkyBuffer *out, ThunkyError *error) {
  RecordKind *kinds = calloc(count + 1, sizeof *kinds);
  Xla__Record **kindPointers = calloc(count + 1, sizeof *kindPointers);
  ThunkyBytes *all = calloc(count + 1, sizeof *all);
  Xla__Record__ProtoMergeRecord merge = XLA__RECORD__PROTO_MERGE_RECORD__INIT;
  Manifest manifest = XLA__SPLIT_PROTO_MANIFEST__INIT;
  uint8_t *manifestBytes = NULL;
  bool ok = kinds && kindPointers && all;
  for (size_t i = 0; ok && i < count; i++) {
    describeRecord(&kinds[i], &records[i], &merge);
    kindPointers[i] = &kinds[i].record;
    all[i + 1] = records[i].data;
  }
  if (ok) {
    char typeName[64];
    snprintf(typeName, sizeof typeName, "%s", type); /* protobuf-c wants it mutable */
    manifest.result_proto_type = typeName;
    manifest.n_records = count;
    manifest.records = kindPointers;
    size_t size = xla__split_proto_manifest__get_packed_size(&manifest);
    ok = (manifestBytes = malloc(size)) != NULL;
    if (ok) {
      xla__split_proto_manifest__pack(&manifest, manifestBytes);
      all[0] = (ThunkyBytes){manifestBytes, size};
    }
  }
  if (ok)
    ok = thunkyRiegeliWrite(all, count + 1, compression, out, error);
  else
    thunkyErrorf(error, "split-proto: out of memory");
  free(kinds), free(kindPointers), free(all), free(manifestBytes);
  return ok;
}

/* GpuExecutableProto's fields that XLA writes in records of their own. */
enum { ASM_TEXT = 3, BINARY = 4, DNN_COMPILED_GRAPHS = 5, CONSTANTS = 12 };

bool thunkySplitProtoWriteExecutable(ThunkyBytes exe, ThunkyCompression compression,
                                     ThunkyBuffer *out, ThunkyError *error) {
  ThunkyWireField f;
  size_t constants = 0;
  for (size_t pos = 0; pos < exe.size;) {
    if (!thunkyNextWireField(exe.data, exe.size, &pos, &f, error))
      return thunkyErrorContext(error, "split-proto: the executable is malformed");
    constants += f.number == CONSTANTS;
  }
  /* asm_text, binary, dnn_compiled_graphs, one per constant, the rest. */
  size_t count = 4 + constants, nextConstant = 3;
  SplitRecord *records = calloc(count, sizeof *records);
  ThunkyBuffer graphs = {0}, rest = {0};
  if (!records)
    return thunkyErrorf(error, "split-proto: out of memory");
  records[0].overrideField = ASM_TEXT;
  records[1].overrideField = BINARY;
  for (size_t pos = 0; pos < exe.size;) {
    thunkyNextWireField(exe.data, exe.size, &pos, &f, NULL);
    ThunkyBytes whole = {exe.data + f.begin, f.end - f.begin};
    if ((f.number == ASM_TEXT || f.number == BINARY) && f.wireType == WIRE_LEN)
      records[f.number - ASM_TEXT].data = (ThunkyBytes){exe.data + f.payload, f.end - f.payload};
    else if (f.number == DNN_COMPILED_GRAPHS)
      thunkyBufferAppend(&graphs, whole.data, whole.size);
    else if (f.number == CONSTANTS)
      records[nextConstant++].data = whole;
    else
      thunkyBufferAppend(&rest, whole.data, whole.size);
  }
  records[2].data = (ThunkyBytes){graphs.data, graphs.size};
  records[count - 1].data = (ThunkyBytes){rest.data, rest.size};
  bool ok = graphs.failed || rest.failed
                ? thunkyErrorf(error, "split-proto: out of memory")
                : writeSplit(THUNKY_SPLIT_EXECUTABLE_TYPE, records, count, compression, out,
                             error);
  free(records);
  thunkyBufferDestroy(&graphs), thunkyBufferDestroy(&rest);
  return ok;
}

bool thunkySplitProtoWriteOptions(ThunkyBytes serializedExecutable, ThunkyBytes rest,
                                  ThunkyCompression compression, ThunkyBuffer *out,
                                  ThunkyError *error) {
  const SplitRecord records[] = {{serializedExecutable, 1}, {rest, 0}};
  return writeSplit(THUNKY_SPLIT_OPTIONS_TYPE, records, 2, compression, out, error);
}
