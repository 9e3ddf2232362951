/*===- resource_text.c - the resource trailer, written as MLIR writes it ===*/
#include "resource_text.h"

#include "thunky-c/base/Arena.h"
#include "thunky-c/base/HashMap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char REFERENCE[] = "dense_resource<";

/* A resource as `text` names it: the key as printed (bare or quoted). */
typedef struct Name {
  const char *token;
  size_t length;
} Name;

typedef struct Names {
  Name *items;
  size_t count, capacity;
  ThunkyHashMap seen; /* hash of the token (+ probes) -> index */
} Names;

/* Adds the token at t[0, n) unless it is there already. */
static bool add(Names *names, const char *t, size_t n) {
  uint64_t key = thunkyHashBytes(t, n);
  uint32_t at;
  for (; thunkyHashMapGet(&names->seen, key, &at); ++key)
    if (names->items[at].length == n && memcmp(names->items[at].token, t, n) == 0)
      return true;
  if (!thunkyArrayGrow((void **)&names->items, &names->capacity, names->count, sizeof *names->items))
    return false;
  names->items[names->count] = (Name){t, n};
  return thunkyHashMapPut(&names->seen, key, (uint32_t)names->count++);
}

/* The length of the key token at t[0, n): a bare identifier up to `>`, or
 * a quoted string (whose escapes never hide a quote); 0 when neither. */
static size_t tokenLength(const char *t, size_t n) {
  size_t i = 0;
  if (n && t[0] == '"') {
    for (i = 1; i < n && t[i] != '"'; ++i)
      i += t[i] == '\\';
    return i < n ? i + 1 : 0;
  }
  while (i < n && t[i] != '>')
    ++i;
  return i < n ? i : 0;
}

static int hexDigit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                        : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The resource's name from its token, unescaped into out (as long as the
 * token, at least); its length. */
static size_t unquote(const Name *name, char *out) {
  if (name->token[0] != '"') {
    memcpy(out, name->token, name->length);
    return name->length;
  }
  size_t n = 0;
  for (size_t i = 1; i + 1 < name->length; ++i) {
    char c = name->token[i];
    if (c == '\\' && i + 2 < name->length) {
      char e = name->token[++i];
      int hi = hexDigit(e), lo = i + 2 < name->length ? hexDigit(name->token[i + 1]) : -1;
      if (hi >= 0 && lo >= 0)
        c = (char)(hi << 4 | lo), ++i;
      else
        c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
    }
    out[n++] = c;
  }
  return n;
}

/* Output through the callback in chunks, so that no blob is held twice. */
typedef struct Out {
  MlirStringCallback write;
  void *data;
  char chunk[1 << 16];
  size_t used;
} Out;

static void flush(Out *o) {
  if (o->used)
    o->write(mlirStringRefCreate(o->chunk, o->used), o->data);
  o->used = 0;
}

static void put(Out *o, const char *s, size_t n) {
  if (o->used + n > sizeof o->chunk)
    flush(o);
  if (n > sizeof o->chunk) {
    o->write(mlirStringRefCreate(s, n), o->data);
    return;
  }
  memcpy(o->chunk + o->used, s, n);
  o->used += n;
}

static void putHex(Out *o, const unsigned char *bytes, size_t n) {
  static const char digits[] = "0123456789ABCDEF";
  while (n) {
    if (sizeof o->chunk - o->used < 2)
      flush(o);
    size_t room = (sizeof o->chunk - o->used) / 2, take = n < room ? n : room;
    char *at = o->chunk + o->used;
    for (size_t i = 0; i < take; ++i) {
      at[2 * i] = digits[bytes[i] >> 4];
      at[2 * i + 1] = digits[bytes[i] & 15];
    }
    o->used += 2 * take, bytes += take, n -= take;
  }
}

/* The length of `text` less the empty `{-# #-}` section MLIR prints when
 * it left every resource out; 0 when a section there is not empty. */
static size_t withoutEmptySection(MlirStringRef text) {
  static const char open[] = "{-#";
  size_t end = text.length;
  while (end && (text.data[end - 1] == '\n' || text.data[end - 1] == ' '))
    --end;
  if (end < 3 || memcmp(text.data + end - 3, "#-}", 3) != 0)
    return text.length;
  end -= 3;
  while (end && (text.data[end - 1] == '\n' || text.data[end - 1] == ' '))
    --end;
  if (end < 3 || memcmp(text.data + end - 3, open, 3) != 0)
    return 0;
  end -= 3;
  while (end && text.data[end - 1] == '\n')
    --end;
  return end + 1; /* the module's last newline */
}

bool thunkyWriteWithResources(MlirStringRef text, ThunkyResourceLookup lookup,
                              void *lookupData, MlirStringCallback write, void *writeData) {
  text.length = withoutEmptySection(text);
  if (!text.length)
    return false;
  Names names = {0};
  size_t longest = 0;
  bool ok = true;
  const size_t refLength = sizeof REFERENCE - 1;
  for (const char *at = text.data, *end = text.data + text.length; ok && at < end;) {
    const char *found = memchr(at, 'd', (size_t)(end - at));
    if (!found)
      break;
    at = found + 1;
    if ((size_t)(end - found) < refLength || memcmp(found, REFERENCE, refLength) != 0)
      continue;
    const char *token = found + refLength;
    size_t n = tokenLength(token, (size_t)(end - token));
    ok = add(&names, token, n);
    longest = n > longest ? n : longest;
    at = token + n;
  }
  Out *out = ok ? malloc(sizeof *out) : NULL;
  char *name = ok ? malloc(longest + 1) : NULL;
  MlirStringRef *blobs = ok ? calloc(names.count + 1, sizeof *blobs) : NULL;
  size_t *alignments = ok ? calloc(names.count + 1, sizeof *alignments) : NULL;
  ok = out && name && blobs && alignments;
  for (size_t i = 0; ok && i < names.count; ++i) {
    size_t n = unquote(&names.items[i], name);
    ok = lookup(mlirStringRefCreate(name, n), &blobs[i], &alignments[i], lookupData);
  }
  if (ok)
    write(text, writeData);
  if (ok && names.count) {
    *out = (Out){.write = write, .data = writeData};
    static const char open[] = "\n{-#\n  dialect_resources: {\n    builtin: {\n";
    static const char close[] = "\n    }\n  }\n#-}\n";
    put(out, open, sizeof open - 1);
    for (size_t i = 0; i < names.count; ++i) {
      put(out, i ? ",\n      " : "      ", i ? 8 : 6);
      put(out, names.items[i].token, names.items[i].length);
      put(out, ": \"0x", 5);
      /* MLIR's blob string starts with the alignment, 4 bytes little-endian. */
      uint32_t a = (uint32_t)alignments[i];
      unsigned char alignment[4] = {(unsigned char)a, (unsigned char)(a >> 8),
                                    (unsigned char)(a >> 16), (unsigned char)(a >> 24)};
      putHex(out, alignment, 4);
      putHex(out, (const unsigned char *)blobs[i].data, blobs[i].length);
      put(out, "\"", 1);
    }
    put(out, close, sizeof close - 1);
    flush(out);
  }
  free(out), free(name), free(blobs), free(alignments);
  free(names.items);
  thunkyHashMapDestroy(&names.seen);
  return ok;
}
