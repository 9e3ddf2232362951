/*===- input_kind.c - what a file holds, from its bytes ------------------===*
 *
 * Every tool that reads an executable starts here, so that a textproto, an
 * MLIR module or an empty file is named as what it is (and the way to an
 * executable said) rather than read as a protobuf that fails at byte 0.
 * The text kinds are told apart by the first token after comments:
 * protobuf's text format comments with '#', MLIR with '//', and an MLIR
 * file starts with an op, an alias or `module`, a textproto with a field
 * name followed by ':', '{' or '<'.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/format/Container.h"

#include "xla/pjrt/proto/compile_options.pb-c.h"
#include "xla/python/pjrt_ifrt/executable_metadata.pb-c.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"
#include "xla/util/split_proto/human_readable_aot_executable.pb-c.h"

#include <stdio.h>
#include <string.h>

/* Looking further costs time on large binaries and tells nothing more. */
#define SNIFF_BYTES ((size_t)64 << 10)

static const char *const kindNames[THUNKY_INPUT_KIND_COUNT] = {
    [THUNKY_INPUT_EMPTY] = "an empty file",
    [THUNKY_INPUT_TEXTPROTO] = "a text-format protobuf",
    [THUNKY_INPUT_MLIR_TEXT] = "an MLIR module (text)",
    [THUNKY_INPUT_MLIR_BYTECODE] = "an MLIR module (bytecode)",
    [THUNKY_INPUT_TEXT] = "text, neither a textproto nor an MLIR module",
    [THUNKY_INPUT_BINARY] = "binary data",
};

const char *thunkyInputKindName(ThunkyInputKind kind) {
  return kind < THUNKY_INPUT_KIND_COUNT ? kindNames[kind] : "?";
}

/* The messages a textproto given for an executable may be, in the order a
 * first field is looked up (encode.sh takes each). */
static const ProtobufCMessageDescriptor *const textMessages[] = {
    &xla__gpu__gpu_executable_proto__descriptor,
    &xla__human_readable_aot_executable__descriptor,
    &xla__executable_and_options_proto__descriptor,
    &xla__ifrt__serialized_xla_executable_metadata__descriptor,
};

static bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '$';
}

/* Control bytes other than whitespace, and bytes that are no UTF-8, do
 * not occur in either text format; every binary executable has them
 * (lengths, small field keys). A sequence cut by the end of what is looked
 * at counts as text. */
static bool isText(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f)
      return false;
    size_t more = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 && c >= 0xc2 ? 1
                             : (c & 0xf0) == 0xe0             ? 2
                             : (c & 0xf8) == 0xf0 && c <= 0xf4 ? 3
                                                               : 4;
    if (more == 4)
      return false;
    for (; more && i + 1 < n; more--)
      if (((unsigned char)s[++i] & 0xc0) != 0x80)
        return false;
  }
  return true;
}

typedef struct Token {
  ThunkyInputKind kind;
  const char *field; /* a textproto's first field name */
  size_t fieldLength;
} Token;

static size_t skipSpaces(const char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n' || s[i] == '\f'))
    i++;
  return i;
}

static size_t identEnd(const char *s, size_t n, size_t i) {
  while (i < n && isIdentChar(s[i]))
    i++;
  return i;
}

/* Reads the first token after comments; s[0, n) is text. */
static Token firstToken(const char *s, size_t n) {
  for (size_t i = skipSpaces(s, n, 0); i < n; i = skipSpaces(s, n, i)) {
    size_t end = identEnd(s, n, i + 1), after = skipSpaces(s, n, end);
    if (s[i] == '/' && i + 1 < n && s[i + 1] == '/')
      return (Token){.kind = THUNKY_INPUT_MLIR_TEXT};
    /* `#alias = ...` and `!alias = ...` are MLIR; any other '#' line is a
     * textproto comment. */
    if ((s[i] == '#' || s[i] == '!') && end > i + 1 && after < n && s[after] == '=')
      return (Token){.kind = THUNKY_INPUT_MLIR_TEXT};
    if (s[i] == '#') {
      const char *newline = memchr(s + i, '\n', n - i);
      i = newline ? (size_t)(newline - s) + 1 : n;
      continue;
    }
    if (s[i] == '"' || s[i] == '%' || s[i] == '^' || (s[i] == '{' && i + 1 < n && s[i + 1] == '-'))
      return (Token){.kind = THUNKY_INPUT_MLIR_TEXT};
    end = identEnd(s, n, i);
    if (end == i)
      return (Token){.kind = THUNKY_INPUT_TEXT};
    after = skipSpaces(s, n, end);
    bool dotted = memchr(s + i, '.', end - i) != NULL;
    if (dotted || (end - i == 6 && !memcmp(s + i, "module", 6) &&
                   (after == n || s[after] == '{' || s[after] == '@' || s[after] == 'a')))
      return (Token){.kind = THUNKY_INPUT_MLIR_TEXT};
    if (after < n && (s[after] == ':' || s[after] == '{' || s[after] == '<'))
      return (Token){.kind = THUNKY_INPUT_TEXTPROTO, .field = s + i, .fieldLength = end - i};
    return (Token){.kind = THUNKY_INPUT_TEXT};
  }
  return (Token){.kind = THUNKY_INPUT_TEXT};
}

static Token classify(const void *data, size_t size) {
  const char *s = data;
  size_t n = size < SNIFF_BYTES ? size : SNIFF_BYTES;
  if (size == 0)
    return (Token){.kind = THUNKY_INPUT_EMPTY};
  if (size >= 4 && !memcmp(s, "ML\xefR", 4))
    return (Token){.kind = THUNKY_INPUT_MLIR_BYTECODE};
  if (!isText(s, n))
    return (Token){.kind = THUNKY_INPUT_BINARY};
  return firstToken(s, n);
}

ThunkyInputKind thunkyInputKindOf(const void *data, size_t size) {
  return classify(data, size).kind;
}

const char *thunkyTextprotoMessage(const void *data, size_t size) {
  Token t = classify(data, size);
  char name[128];
  if (t.kind != THUNKY_INPUT_TEXTPROTO || t.fieldLength >= sizeof name)
    return NULL;
  memcpy(name, t.field, t.fieldLength);
  name[t.fieldLength] = 0;
  for (size_t i = 0; i < sizeof textMessages / sizeof textMessages[0]; i++)
    if (protobuf_c_message_descriptor_get_field_by_name(textMessages[i], name))
      return textMessages[i]->name;
  return NULL;
}

/* Where encode.sh's output goes: the input's name less a text suffix, .pb. */
static void encodedName(const char *file, char *out, size_t size) {
  static const char *const suffixes[] = {".textproto", ".pbtxt", ".txtpb", ".txt"};
  size_t length = strlen(file);
  for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
    size_t n = strlen(suffixes[i]);
    if (length > n && !strcmp(file + length - n, suffixes[i])) {
      length -= n;
      break;
    }
  }
  snprintf(out, size, "%.*s.pb", (int)(length < 400 ? length : 400), file);
}

bool thunkyInputExpectExecutable(const void *data, size_t size, const char *name,
                                 ThunkyError *error) {
  ThunkyInputKind kind = thunkyInputKindOf(data, size);
  const char *file = name ? name : "FILE", *what = thunkyInputKindName(kind);
  char encoded[512];
  encodedName(file, encoded, sizeof encoded);
  switch (kind) {
  case THUNKY_INPUT_BINARY:
  case THUNKY_INPUT_TEXT: /* a few printable bytes can be an executable: the wire check says */
    return true;
  case THUNKY_INPUT_TEXTPROTO: {
    const char *message = thunkyTextprotoMessage(data, size);
    if (!message)
      return thunkyErrorf(error,
                          "%s of no message an executable is made of; encode an executable "
                          "with scripts/encode.sh MESSAGE < %s > %s",
                          what, file, encoded);
    return thunkyErrorf(error,
                        "%s (%s), not a binary executable; encode it first: "
                        "scripts/encode.sh %s < %s > %s",
                        what, message, message, file, encoded);
  }
  case THUNKY_INPUT_MLIR_TEXT:
  case THUNKY_INPUT_MLIR_BYTECODE:
    return thunkyErrorf(error,
                        "%s, not an executable; thunky-translate --export-thunky %s makes one",
                        what, file);
  default:
    return thunkyErrorf(error, "%s, not an executable", what);
  }
}

bool thunkyInputExpectModule(const void *data, size_t size, const char *name,
                             ThunkyError *error) {
  ThunkyInputKind kind = thunkyInputKindOf(data, size);
  const char *file = name ? name : "FILE", *what = thunkyInputKindName(kind);
  char encoded[512];
  switch (kind) {
  case THUNKY_INPUT_BINARY:
    return thunkyErrorf(error,
                        "%s, not an MLIR module (text or bytecode); if it is an executable, "
                        "thunky-translate --import-thunky %s makes one",
                        what, file);
  case THUNKY_INPUT_TEXTPROTO: {
    const char *message = thunkyTextprotoMessage(data, size);
    encodedName(file, encoded, sizeof encoded);
    return thunkyErrorf(error,
                        "%s, not an MLIR module; encode it (scripts/encode.sh %s < %s > %s), "
                        "then thunky-translate --import-thunky %s makes one",
                        what, message ? message : "MESSAGE", file, encoded, encoded);
  }
  default: /* MLIR, or text whose errors MLIR's parser says best */
    return true;
  }
}
