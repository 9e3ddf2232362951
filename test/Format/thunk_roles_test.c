/*===- thunk_roles_test.c - the thunk table against XLA's own roles -----===*
 *
 *   thunky-thunk-roles-test format/thunk_roles.tsv
 *
 * format/thunk_roles.tsv lists what each slice field of XLA's thunk protos
 * reads and writes, each row cited to the line of XLA that decides it. For
 * each row this builds a message with that field set (a distinct slice per
 * element), walks it with thunkyForEachSlice, as import, the plan and the
 * checks do, and compares the access the table gives each slice with the
 * row's. It then checks that every slice a thunk kind can hold, outside
 * nested thunks and other allocation tables, lies under a message the list
 * has rows for. Exits 1, naming each row that disagrees.
 *
 *===--------------------------------------------------------------------===*/
// RUN: thunky-thunk-roles-test %thunky_src/format/thunk_roles.tsv | FileCheck %s
// CHECK: thunk roles: {{[0-9]+}} rows of {{[0-9]+}} messages; {{[0-9]+}} thunk kinds; 0 disagreements
#include "thunky-c/format/Executable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { R = THUNKY_ACCESS_READ, W = THUNKY_ACCESS_WRITE, RW = THUNKY_ACCESS_READ_WRITE };
enum { MAX_SLICES = 64, MAX_TYPES = 1024 };

static const ProtobufCMessageDescriptor *types[MAX_TYPES];
static size_t numTypes;

/* Every message type reachable from the executable, found by name. */
static void addTypes(const ProtobufCMessageDescriptor *d) {
  for (size_t i = 0; i < numTypes; i++)
    if (types[i] == d)
      return;
  if (numTypes == MAX_TYPES)
    return;
  types[numTypes++] = d;
  for (unsigned i = 0; i < d->n_fields; i++)
    if (d->fields[i].type == PROTOBUF_C_TYPE_MESSAGE)
      addTypes(d->fields[i].descriptor);
}

static const ProtobufCMessageDescriptor *typeNamed(const char *name) {
  for (size_t i = 0; i < numTypes; i++)
    if (!strcmp(types[i]->name, name))
      return types[i];
  return NULL;
}

/* Everything built for one row; freed together. */
static void *blocks[4096];
static size_t numBlocks;

static void *block(size_t size) {
  void *p = numBlocks < sizeof blocks / sizeof blocks[0] ? calloc(1, size) : NULL;
  if (!p) {
    fprintf(stderr, "thunk_roles_test: out of memory\n");
    exit(2);
  }
  return blocks[numBlocks++] = p;
}

static void freeBlocks(void) {
  while (numBlocks)
    free(blocks[--numBlocks]);
}

static ProtobufCMessage *newMessage(const ProtobufCMessageDescriptor *d) {
  ProtobufCMessage *m = block(d->sizeof_message);
  protobuf_c_message_init(d, m);
  return m;
}

/* Each slice built gets the next allocation index; the walk reports it. */
static int64_t nextSlice;
static int expected[MAX_SLICES]; /* per slice: the role to find, 0: not checked */
static int found[MAX_SLICES];

static bool isSlice(const ProtobufCMessageDescriptor *d) {
  return d == &xla__buffer_assignment__buffer_allocation_slice_proto__descriptor;
}

/* A message of type `d` holding a slice: the slice itself, or a wrapper
 * (ShapedSliceProto, NullableShapedSliceProto, ...) whose first field
 * that leads to one is set. */
static ProtobufCMessage *holding(const ProtobufCMessageDescriptor *d, int role, int depth);

static void setField(ProtobufCMessage *m, const ProtobufCFieldDescriptor *f, size_t n,
                     ProtobufCMessage **items) {
  char *base = (char *)m;
  if (f->label == PROTOBUF_C_LABEL_REPEATED) {
    ProtobufCMessage **array = block(n * sizeof *array);
    memcpy(array, items, n * sizeof *array);
    *(size_t *)(base + f->quantifier_offset) = n;
    *(ProtobufCMessage ***)(base + f->offset) = array;
    return;
  }
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    *(uint32_t *)(base + f->quantifier_offset) = f->id;
  *(ProtobufCMessage **)(base + f->offset) = items[0];
}

static bool leadsToSlice(const ProtobufCMessageDescriptor *d, int depth) {
  if (isSlice(d))
    return true;
  for (unsigned i = 0; depth < 4 && i < d->n_fields; i++)
    if (d->fields[i].type == PROTOBUF_C_TYPE_MESSAGE &&
        leadsToSlice(d->fields[i].descriptor, depth + 1))
      return true;
  return false;
}

static ProtobufCMessage *holding(const ProtobufCMessageDescriptor *d, int role, int depth) {
  if (isSlice(d)) {
    ThunkySlice *s = (ThunkySlice *)newMessage(d);
    s->has_buffer_allocation_index = s->has_size = true;
    s->buffer_allocation_index = nextSlice, s->size = 8;
    expected[nextSlice++] = role;
    return &s->base;
  }
  ProtobufCMessage *m = newMessage(d);
  for (unsigned i = 0; depth < 4 && i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    if (f->type == PROTOBUF_C_TYPE_MESSAGE && leadsToSlice(f->descriptor, depth + 1)) {
      ProtobufCMessage *inner = holding(f->descriptor, role, depth + 1);
      setField(m, f, 1, &inner);
      return m;
    }
  }
  return m;
}

/* The elements a path segment's [spec] names, of how many it builds. */
typedef struct Elements {
  size_t count, first, last; /* checked: [first, last] */
} Elements;

static bool parseElements(const char *spec, Elements *e) {
  unsigned long a, b;
  if (!spec || !strcmp(spec, "*"))
    return *e = (Elements){2, 0, 1}, true;
  if (!strcmp(spec, "last"))
    return *e = (Elements){3, 2, 2}, true;
  if (sscanf(spec, "%lu..%lu", &a, &b) == 2 && a <= b && b < 16)
    return *e = (Elements){b + 1, a, b}, true;
  if (sscanf(spec, "%lu/%lu", &a, &b) == 2 && a < b && b <= 16)
    return *e = (Elements){b, a, a}, true;
  if (sscanf(spec, "%lu", &a) == 1 && a < 16)
    return *e = (Elements){a + 1, a, a}, true;
  return false;
}

/* Sets path `path` (segments "name" or "name[spec]" joined by '.') of `m`,
 * each slice at its end expecting `role` where its elements are checked,
 * and 0 (not checked) elsewhere. False when the path names no field. */
static bool setPath(ProtobufCMessage *m, char *path, int role) {
  char *close = strchr(path, ']');
  char *dot = strchr(close ? close : path, '.'), *rest = dot ? dot + 1 : NULL;
  if (dot)
    *dot = 0;
  char *bracket = strchr(path, '['), *spec = NULL;
  if (bracket) {
    *bracket = 0, spec = bracket + 1;
    if (close)
      *close = 0;
  }
  const ProtobufCFieldDescriptor *f =
      protobuf_c_message_descriptor_get_field_by_name(m->descriptor, path);
  Elements e;
  if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE || !parseElements(spec, &e))
    return false;
  if (f->label != PROTOBUF_C_LABEL_REPEATED)
    e = (Elements){1, 0, 0};
  ProtobufCMessage *items[16];
  for (size_t k = 0; k < e.count; k++) {
    int r = k >= e.first && k <= e.last ? role : 0;
    if (rest) {
      char copy[256];
      snprintf(copy, sizeof copy, "%s", rest);
      items[k] = newMessage(f->descriptor);
      if (!setPath(items[k], copy, r))
        return false;
    } else {
      items[k] = holding(f->descriptor, r, 0);
    }
  }
  setField(m, f, e.count, items);
  return true;
}

static bool record(ThunkySlice *slice, ThunkyAccess access, void *userData) {
  (void)userData;
  if (slice->buffer_allocation_index >= 0 && slice->buffer_allocation_index < MAX_SLICES)
    found[slice->buffer_allocation_index] = (int)access;
  return true;
}

static const char *roleName(int a) {
  return a == R ? "R" : a == W ? "W" : a == RW ? "RW" : "none";
}

static int parseRole(const char *s) {
  return !strcmp(s, "R") ? R : !strcmp(s, "W") ? W : !strcmp(s, "RW") ? RW : 0;
}

/* Sets the flags a token row reads: two arguments, the first flagged. */
static void setFlags(ProtobufCMessage *m, const char *field) {
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(
      m->descriptor, field);
  protobuf_c_boolean *flags = block(2 * sizeof *flags);
  flags[0] = true;
  *(size_t *)((char *)m + f->quantifier_offset) = 2;
  *(protobuf_c_boolean **)((char *)m + f->offset) = flags;
}

/* Builds, walks and checks one variant of a row: `roles` per element of
 * its field (the token rows check two). */
static bool checkRow(const ProtobufCMessageDescriptor *d, const char *field, const char *role,
                     int variant, const char *where) {
  char path[256];
  snprintf(path, sizeof path, "%s", field);
  nextSlice = 0;
  memset(expected, 0, sizeof expected), memset(found, 0, sizeof found);
  ProtobufCMessage *m = newMessage(d);
  bool flags = !strncmp(role, "flags", 5), beta = !strcmp(role, "W|RW:beta");
  int plain = parseRole(role);
  if ((!flags && !beta && !plain) || !setPath(m, path, flags ? -1 : beta ? (variant ? RW : W) : plain)) {
    printf("%s: %s %s: the row names no field or role this test knows\n", where, d->name, field);
    return false;
  }
  /* A flagged argument, then one not flagged. */
  if (flags) {
    bool outputs = !strcmp(role, "flags:output_args");
    setFlags(m, outputs ? "output_args" : "written");
    expected[0] = outputs ? W : RW, expected[1] = R;
  }
  if (beta && variant) {
    const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field_by_name(d, "gemm_config");
    Xla__GemmConfigProto *config = (Xla__GemmConfigProto *)newMessage(f->descriptor);
    config->beta = 1;
    *(ProtobufCMessage **)((char *)m + f->offset) = &config->base;
  }
  /* A row on the last of a broadcast's buffers holds with a dynamic root. */
  const ProtobufCFieldDescriptor *root =
      protobuf_c_message_descriptor_get_field_by_name(d, "has_dynamic_root");
  if (root && strstr(field, "[last]")) {
    *(protobuf_c_boolean *)((char *)m + root->quantifier_offset) = true;
    *(protobuf_c_boolean *)((char *)m + root->offset) = true;
  }
  thunkyForEachSlice(m, true, record, NULL);
  bool ok = true;
  for (int64_t i = 0; i < nextSlice; i++)
    if (expected[i] && expected[i] != found[i]) {
      printf("%s: %s %s%s: XLA's role is %s, the table's %s\n", where, d->name, field,
             beta ? (variant ? " (beta 1)" : " (beta 0)") : "", roleName(expected[i]),
             roleName(found[i]));
      ok = false;
      break;
    }
  freeBlocks();
  return ok;
}

/*--- every slice a thunk kind holds is under a listed message ----------------*/

static const ProtobufCMessageDescriptor *listed[512];
static size_t numListed;

static bool isListed(const ProtobufCMessageDescriptor *d) {
  for (size_t i = 0; i < numListed; i++)
    if (listed[i] == d)
      return true;
  return false;
}

/* Fields the walk does not take as this thunk's slices: nested thunks and
 * slices into other allocation tables (thunk_access.c: describeField). */
static bool skipped(const ProtobufCFieldDescriptor *f) {
  const ProtobufCMessageDescriptor *d = f->descriptor;
  return d == &xla__gpu__thunk_proto__descriptor ||
         d == &xla__gpu__thunk_sequence_proto__descriptor ||
         d == &xla__buffer_allocation_proto__descriptor || !strcmp(f->name, "embedded_thunks") ||
         !strcmp(f->name, "embedded_thunk") || !strcmp(f->name, "executable_proto");
}

static int uncovered(const ProtobufCMessageDescriptor *d, const char *kind, char *path,
                     size_t length, int depth) {
  if (isListed(d))
    return 0;
  if (isSlice(d)) {
    printf("the thunk kind %s holds a slice at %s, under no message thunk_roles.tsv lists\n",
           kind, path);
    return 1;
  }
  int bad = 0;
  for (unsigned i = 0; depth < 6 && i < d->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &d->fields[i];
    if (f->type != PROTOBUF_C_TYPE_MESSAGE || skipped(f) || !leadsToSlice(f->descriptor, 0))
      continue;
    size_t at = strlen(path);
    snprintf(path + at, length - at, "%s%s", at ? "." : "", f->name);
    bad += uncovered(f->descriptor, kind, path, length, depth + 1);
    path[at] = 0;
  }
  return bad;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: thunky-thunk-roles-test THUNK_ROLES.tsv\n");
    return 2;
  }
  FILE *in = fopen(argv[1], "r");
  if (!in) {
    perror(argv[1]);
    return 2;
  }
  addTypes(&xla__gpu__gpu_executable_proto__descriptor);
  char line[2048];
  int rows = 0, bad = 0, number = 0;
  while (fgets(line, sizeof line, in)) {
    number++;
    if (line[0] == '#' || line[0] == '\n')
      continue;
    char *message = strtok(line, "\t\n"), *field = strtok(NULL, "\t\n"),
         *role = strtok(NULL, "\t\n"), *citation = strtok(NULL, "\t\n");
    char where[64];
    snprintf(where, sizeof where, "%s:%d", argv[1], number);
    const ProtobufCMessageDescriptor *d = message ? typeNamed(message) : NULL;
    if (!d || !field || !role || !citation) {
      printf("%s: not a row of a message, a field, a role and a citation of XLA\n", where);
      bad++;
      continue;
    }
    if (!isListed(d) && numListed < sizeof listed / sizeof listed[0])
      listed[numListed++] = d;
    rows++;
    bad += !checkRow(d, field, role, 0, where);
    if (!strcmp(role, "W|RW:beta"))
      bad += !checkRow(d, field, role, 1, where);
  }
  fclose(in);
  /* Each kind of ThunkProto's oneof. */
  const ProtobufCMessageDescriptor *thunk = &xla__gpu__thunk_proto__descriptor;
  int kinds = 0;
  for (unsigned i = 0; i < thunk->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &thunk->fields[i];
    if (!(f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) || f->type != PROTOBUF_C_TYPE_MESSAGE)
      continue;
    char path[512] = "";
    kinds++;
    bad += uncovered(f->descriptor, f->name, path, sizeof path, 0);
  }
  printf("thunk roles: %d rows of %zu messages; %d thunk kinds; %d disagreements\n", rows,
         numListed, kinds, bad);
  return bad ? 1 : 0;
}
