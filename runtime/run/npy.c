/*===- npy.c - reading and writing NumPy .npy files ----------------------===*
 *
 * A .npy file is the magic "\x93NUMPY", a version (two bytes), the header's
 * length (uint16 in 1.0, uint32 in 2.0 and 3.0, little-endian), the header,
 * and the data. The header is a Python dict literal padded with spaces and a
 * newline:
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * numpy reads it with ast.literal_eval. Here a small parser takes the subset
 * of Python that such a dict uses; the file may be anything, so every step
 * is bounded by the header's length and every number is checked.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/runtime/Npy.h"

#include "thunky-c/base/ElementTypes.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- element types ---------------------------------------------------------*/

/* The XLA types numpy can hold; sizes and XLA's names come from
 * element_types.c. */
typedef struct NpyType {
  int32_t type;          /* xla.PrimitiveType */
  char kind;             /* numpy's kind letter; 0: numpy has no such type */
  const char *numpyName; /* numpy's or ml_dtypes' name; read as a descr too */
} NpyType;

static const NpyType npyTypes[] = {
    {1, 'b', "bool"},
    {2, 'i', "int8"},
    {3, 'i', "int16"},
    {4, 'i', "int32"},
    {5, 'i', "int64"},
    {6, 'u', "uint8"},
    {7, 'u', "uint16"},
    {8, 'u', "uint32"},
    {9, 'u', "uint64"},
    {10, 'f', "float16"},
    {11, 'f', "float32"},
    {12, 'f', "float64"},
    {15, 'c', "complex64"},
    {18, 'c', "complex128"},
    /* ml_dtypes registers these with numpy as kind 'V', so np.save writes
     * them as '<V2' and '<V1'. The sub-byte types are left out: XLA packs
     * them, while numpy holds one per byte. */
    {16, 0, "bfloat16"},
    {19, 0, "float8_e5m2"},
    {20, 0, "float8_e4m3fn"},
    {23, 0, "float8_e4m3b11fnuz"},
    {24, 0, "float8_e5m2fnuz"},
    {25, 0, "float8_e4m3fnuz"},
    {28, 0, "float8_e4m3"},
    {29, 0, "float8_e3m4"},
    {33, 0, "float8_e8m0fnu"},
};
enum { NUM_NPY_TYPES = sizeof npyTypes / sizeof npyTypes[0] };

static const NpyType *findType(int32_t type) {
  for (size_t i = 0; i < NUM_NPY_TYPES; i++)
    if (npyTypes[i].type == type)
      return &npyTypes[i];
  return NULL;
}

/* Bytes of an array of `rank` dims and `elementBytes`-byte elements; false
 * past 2^64. A zero dim makes the array empty whatever the others say. */
static bool arrayBytes(uint32_t rank, const int64_t *dims, uint64_t elementBytes,
                       uint64_t *bytes) {
  uint64_t product = elementBytes;
  bool overflow = false;
  for (uint32_t i = 0; i < rank; i++) {
    uint64_t dim = (uint64_t)dims[i];
    if (dim == 0) {
      *bytes = 0;
      return true;
    }
    overflow |= product > UINT64_MAX / dim;
    product *= dim;
  }
  *bytes = product;
  return !overflow;
}

/*--- text for messages and headers ------------------------------------------*/

typedef struct Text {
  char *data;
  size_t size, used; /* size >= 1; used < size */
} Text;

static void appendf(Text *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void appendf(Text *text, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(text->data + text->used, text->size - text->used, fmt, args);
  va_end(args);
  if (n > 0)
    text->used += (size_t)n < text->size - text->used ? (size_t)n : text->size - text->used - 1;
}

/* dims between `open` and `close`, split by `separator`. */
static void appendDims(Text *text, uint32_t rank, const int64_t *dims, const char *open,
                       const char *separator, const char *close) {
  appendf(text, "%s", open);
  for (uint32_t i = 0; i < rank; i++)
    appendf(text, "%s%lld", i ? separator : "", (long long)dims[i]);
  appendf(text, "%s", close);
}

/* s[0, n) quoted for a message: other than printable ASCII as \xNN, and cut
 * short, since it comes from a file that may hold anything. */
static void quote(const char *s, size_t n, char *out, size_t size) {
  Text text = {out, size, 0};
  out[0] = '\0';
  appendf(&text, "'");
  for (size_t i = 0; i < n && i < 40; i++) {
    unsigned char c = (unsigned char)s[i];
    appendf(&text, c >= 0x20 && c < 0x7f && c != '\\' ? "%c" : "\\x%02x", c);
  }
  appendf(&text, n > 40 ? "...'" : "'");
}

void thunkyNpyDescribe(int32_t elementType, uint32_t rank, const int64_t *dims, char *out,
                       size_t size) {
  if (!size)
    return;
  Text text = {out, size, 0};
  out[0] = '\0';
  const NpyType *t = findType(elementType);
  if (t)
    appendf(&text, "%s", thunkyElementTypeName(t->type));
  else if (elementType)
    appendf(&text, "type%d", (int)elementType);
  else
    appendf(&text, "raw");
  appendDims(&text, rank, dims, "[", ",", "]");
}

/*--- the header ---------------------------------------------------------------*/

/* What a header says, checked against the file. */
typedef struct Header {
  int32_t type;          /* 0: raw bytes */
  uint32_t elementBytes;
  uint32_t swapBytes;    /* big-endian data: bytes per swapped unit; else 0 */
  bool fortranOrder;
  uint32_t rank;
  int64_t dims[THUNKY_NPY_MAX_RANK];
  size_t dataOffset;
  uint64_t dataSize;
} Header;

typedef struct Parser {
  const char *p, *end;  /* the rest of the header text */
  const uint8_t *file;  /* for byte offsets in messages */
  const char *name;
  ThunkyError *error;
} Parser;

static bool parseError(const Parser *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool parseError(const Parser *ps, const char *fmt, ...) {
  if (!ps->error)
    return false;
  char what[256];
  va_list args;
  va_start(args, fmt);
  vsnprintf(what, sizeof what, fmt, args);
  va_end(args);
  return thunkyErrorf(ps->error, "%s: header byte %zu: %s", ps->name,
                      (size_t)((const uint8_t *)ps->p - ps->file), what);
}

static void skipSpace(Parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
    ps->p++;
}

/* Skips whitespace, then takes `c` if it comes next. */
static bool take(Parser *ps, char c) {
  skipSpace(ps);
  if (ps->p == ps->end || *ps->p != c)
    return false;
  ps->p++;
  return true;
}

/* "expected <wanted>, found 'x'" at the parser's position. */
static bool unexpected(const Parser *ps, const char *wanted) {
  char found[24] = "the header's end";
  if (ps->p < ps->end)
    quote(ps->p, 1, found, sizeof found);
  return parseError(ps, "expected %s, found %s", wanted, found);
}

/* A quoted string without escapes (the header's keys and descr need none). */
static bool parseString(Parser *ps, const char **s, size_t *n) {
  skipSpace(ps);
  if (ps->p == ps->end || (*ps->p != '\'' && *ps->p != '"'))
    return unexpected(ps, "a string");
  char quoteChar = *ps->p++;
  const char *start = ps->p;
  while (ps->p < ps->end && *ps->p != quoteChar) {
    if (*ps->p == '\\' || *ps->p == '\n')
      return parseError(ps, *ps->p == '\n' ? "unterminated string"
                                           : "escapes in header strings are not supported");
    ps->p++;
  }
  if (ps->p == ps->end)
    return parseError(ps, "unterminated string");
  *s = start, *n = (size_t)(ps->p++ - start);
  return true;
}

static bool parseBool(Parser *ps, bool *value) {
  skipSpace(ps);
  const char *start = ps->p;
  while (ps->p < ps->end && (*ps->p == '_' || (*ps->p >= 'a' && *ps->p <= 'z') ||
                             (*ps->p >= 'A' && *ps->p <= 'Z') || (*ps->p >= '0' && *ps->p <= '9')))
    ps->p++;
  size_t n = (size_t)(ps->p - start);
  *value = n == 4 && memcmp(start, "True", 4) == 0;
  if (*value || (n == 5 && memcmp(start, "False", 5) == 0))
    return true;
  ps->p = start;
  return unexpected(ps, "True or False for 'fortran_order'");
}

static bool parseDim(Parser *ps, int64_t *dim) {
  skipSpace(ps);
  if (ps->p < ps->end && *ps->p == '-')
    return parseError(ps, "negative dimension");
  if (ps->p == ps->end || *ps->p < '0' || *ps->p > '9')
    return unexpected(ps, "a dimension");
  int64_t value = 0;
  for (; ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9'; ps->p++) {
    int digit = *ps->p - '0';
    if (value > (INT64_MAX - digit) / 10)
      return parseError(ps, "dimension larger than 2^63-1");
    value = value * 10 + digit;
  }
  if (ps->p < ps->end && (*ps->p == 'L' || *ps->p == 'l'))
    ps->p++; /* Python 2's numpy wrote longs as 3L */
  *dim = value;
  return true;
}

/* A tuple of dims: (), (3,), (2, 3) or (2, 3,). */
static bool parseShape(Parser *ps, Header *h) {
  if (!take(ps, '('))
    return unexpected(ps, "'(' opening the shape tuple");
  h->rank = 0;
  if (take(ps, ')'))
    return true;
  for (;;) {
    skipSpace(ps);
    if (h->rank == THUNKY_NPY_MAX_RANK)
      return parseError(ps, "more than %d dimensions", THUNKY_NPY_MAX_RANK);
    if (!parseDim(ps, &h->dims[h->rank++]))
      return false;
    bool comma = take(ps, ',');
    if (take(ps, ')')) {
      /* Python reads (3) as the number 3, and numpy refuses it. */
      if (h->rank == 1 && !comma)
        return parseError(ps, "shape (%lld) is no tuple: a 1-D shape is written (%lld,)",
                          (long long)h->dims[0], (long long)h->dims[0]);
      return true;
    }
    if (!comma)
      return unexpected(ps, "',' or ')' in the shape");
  }
}

/* Sets h's type fields from a descr: a typestr such as '<f4' or '|b1', or
 * a type's name ("float32", "bfloat16"). False if it names nothing here. */
static bool interpretDescr(const char *s, size_t n, int32_t expectedType, Header *h) {
  const NpyType *found = NULL;
  bool bigEndian = false;
  for (size_t i = 0; i < NUM_NPY_TYPES && !found; i++)
    if (strlen(npyTypes[i].numpyName) == n && memcmp(s, npyTypes[i].numpyName, n) == 0)
      found = &npyTypes[i];
  if (!found) {
    /* numpy always writes a byte order; '|' where there is none to write. */
    if (n < 3 || n > 11 /* 9 digits */ || (s[0] != '<' && s[0] != '>' && s[0] != '|'))
      return false;
    char order = s[0], kind = s[1];
    uint32_t bytes = 0;
    for (size_t i = 2; i < n; i++) {
      if (s[i] < '0' || s[i] > '9')
        return false;
      bytes = bytes * 10 + (uint32_t)(s[i] - '0');
    }
    if (bytes == 0)
      return false;
    bigEndian = order == '>';
    if (kind == 'V') {
      /* Opaque bytes: a type numpy lacks, if the caller expects one of
       * this size, and otherwise raw bytes, never swapped. */
      const NpyType *expected = findType(expectedType);
      if (!expected || expected->kind || thunkyElementBytes(expected->type) != bytes) {
        h->type = 0, h->elementBytes = bytes, h->swapBytes = 0;
        return true;
      }
      found = expected;
    } else {
      if (order == '|' && bytes != 1)
        return false;
      for (size_t i = 0; i < NUM_NPY_TYPES && !found; i++)
        if (npyTypes[i].kind == kind && thunkyElementBytes(npyTypes[i].type) == bytes)
          found = &npyTypes[i];
      if (!found)
        return false;
    }
  }
  /* A complex number is two floats, each in the file's byte order. */
  uint32_t size = thunkyElementBytes(found->type);
  uint32_t unit = found->kind == 'c' ? size / 2u : size;
  h->type = found->type, h->elementBytes = size;
  h->swapBytes = bigEndian && unit > 1 ? unit : 0;
  return true;
}

/* The header dict. Its keys may come in any order; numpy's reader wants
 * exactly these three. A repeated key is refused, though Python would let
 * the last one win: no writer repeats one, so it means a damaged file. */
static bool parseDict(Parser *ps, int32_t expectedType, Header *h) {
  static const char *const keys[] = {"descr", "fortran_order", "shape"};
  bool seen[3] = {false, false, false};
  const char *descr = NULL;
  size_t descrSize = 0;
  if (!take(ps, '{'))
    return unexpected(ps, "'{' opening the header dict");
  while (!take(ps, '}')) {
    skipSpace(ps);
    const char *keyStart = ps->p, *key;
    size_t keySize, k = 0;
    if (!parseString(ps, &key, &keySize))
      return false;
    while (k < 3 && !(strlen(keys[k]) == keySize && memcmp(key, keys[k], keySize) == 0))
      k++;
    if (k == 3 || seen[k]) {
      char quoted[64];
      quote(key, keySize, quoted, sizeof quoted);
      ps->p = keyStart;
      return parseError(ps, k == 3 ? "unexpected key %s" : "key %s appears twice", quoted);
    }
    seen[k] = true;
    if (!take(ps, ':'))
      return unexpected(ps, "':' after a key");
    bool ok;
    if (k == 0) {
      skipSpace(ps);
      if (ps->p < ps->end && *ps->p == '[')
        return parseError(ps, "unsupported structured dtype (a list of fields)");
      ok = parseString(ps, &descr, &descrSize);
    } else {
      ok = k == 1 ? parseBool(ps, &h->fortranOrder) : parseShape(ps, h);
    }
    if (!ok)
      return false;
    if (!take(ps, ',')) {
      if (!take(ps, '}'))
        return unexpected(ps, "',' or '}' in the header dict");
      break;
    }
  }
  skipSpace(ps);
  if (ps->p != ps->end)
    return unexpected(ps, "only padding after the header dict");
  for (size_t k = 0; k < 3; k++)
    if (!seen[k])
      return thunkyErrorf(ps->error, "%s: the header has no '%s'", ps->name, keys[k]);
  if (!interpretDescr(descr, descrSize, expectedType, h)) {
    char quoted[64];
    quote(descr, descrSize, quoted, sizeof quoted);
    return thunkyErrorf(ps->error, "%s: unsupported dtype %s", ps->name, quoted);
  }
  return true;
}

/* Reads and checks the prefix and header; the data must fill the rest of
 * the file exactly. */
static bool parseHeader(const uint8_t *bytes, size_t size, const char *name,
                        int32_t expectedType, Header *h, ThunkyError *error) {
  if (size < 6 || memcmp(bytes, "\x93NUMPY", 6) != 0)
    return thunkyErrorf(error, "%s: not a .npy file (no \\x93NUMPY magic)", name);
  if (size < 8)
    return thunkyErrorf(error, "%s: truncated: %zu bytes end in the version", name, size);
  unsigned major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0)
    return thunkyErrorf(error, "%s: unsupported .npy version %u.%u (1.0, 2.0, 3.0 are read)",
                        name, major, minor);
  size_t prefix = major == 1 ? 10 : 12;
  if (size < prefix)
    return thunkyErrorf(error, "%s: truncated: %zu bytes end in the header length", name, size);
  uint64_t headerSize = (uint64_t)bytes[8] | (uint64_t)bytes[9] << 8;
  if (major > 1)
    headerSize |= (uint64_t)bytes[10] << 16 | (uint64_t)bytes[11] << 24;
  if (headerSize > size - prefix)
    return thunkyErrorf(error,
                        "%s: the header is %llu bytes long and runs past the end of the file "
                        "(%zu bytes)",
                        name, (unsigned long long)headerSize, size);
  *h = (Header){0};
  Parser ps = {(const char *)bytes + prefix, (const char *)bytes + prefix + headerSize, bytes,
               name, error};
  if (!parseDict(&ps, expectedType, h))
    return false;
  h->dataOffset = prefix + (size_t)headerSize;
  char shape[160];
  thunkyNpyDescribe(h->type, h->rank, h->dims, shape, sizeof shape);
  if (!arrayBytes(h->rank, h->dims, h->elementBytes, &h->dataSize))
    return thunkyErrorf(error, "%s: %s is larger than 2^64 bytes", name, shape);
  if (h->dataSize != size - h->dataOffset)
    return thunkyErrorf(error,
                        "%s: %s needs %llu bytes of data, but %zu follow the %zu-byte header",
                        name, shape, (unsigned long long)h->dataSize, size - h->dataOffset,
                        h->dataOffset);
  return true;
}

/*--- the data ------------------------------------------------------------------*/

/* Fortran order runs the first index fastest. Walks the C-order output with
 * an odometer over the dims, stepping the Fortran-order offset alongside. */
static void transposeToC(const Header *h, const uint8_t *src, uint8_t *dst) {
  uint64_t stride[THUNKY_NPY_MAX_RANK], step = h->elementBytes, offset = 0;
  int64_t index[THUNKY_NPY_MAX_RANK] = {0};
  for (uint32_t k = 0; k < h->rank; k++)
    stride[k] = step, step *= (uint64_t)h->dims[k];
  for (uint64_t n = 0; n < h->dataSize; n += h->elementBytes) {
    memcpy(dst + n, src + offset, h->elementBytes);
    for (uint32_t k = h->rank; k-- > 0;) {
      if (++index[k] < h->dims[k]) {
        offset += stride[k];
        break;
      }
      index[k] = 0;
      offset -= stride[k] * (uint64_t)(h->dims[k] - 1);
    }
  }
}

static void swapBytes(uint8_t *data, uint64_t size, uint32_t unit) {
  for (uint64_t i = 0; i + unit <= size; i += unit)
    for (uint32_t a = 0, b = unit - 1; a < b; a++, b--) {
      uint8_t t = data[i + a];
      data[i + a] = data[i + b], data[i + b] = t;
    }
}

/* Parses a whole file and fills `out`. `owned`, when not NULL, is `bytes`
 * from malloc: it is taken over (its data moved to the front) rather than
 * copied, so that reading a large file needs its size in memory once. */
static bool decode(const uint8_t *bytes, size_t size, uint8_t *owned, const char *name,
                   int32_t expectedType, ThunkyNpyArray *out, ThunkyError *error) {
  *out = (ThunkyNpyArray){0};
  Header h;
  if (!parseHeader(bytes, size, name, expectedType, &h, error)) {
    free(owned);
    return false;
  }
  const uint8_t *src = bytes + h.dataOffset;
  bool transpose = h.fortranOrder && h.rank > 1;
  uint8_t *data;
  if (owned && !transpose) {
    memmove(owned, src, (size_t)h.dataSize);
    data = realloc(owned, h.dataSize ? (size_t)h.dataSize : 1);
    if (!data) /* it could not shrink; the larger block serves as well */
      data = owned;
  } else {
    data = malloc(h.dataSize ? (size_t)h.dataSize : 1);
    if (data && transpose)
      transposeToC(&h, src, data);
    else if (data && h.dataSize)
      memcpy(data, src, (size_t)h.dataSize);
    free(owned);
    if (!data)
      return thunkyErrorf(error, "%s: out of memory for %llu bytes", name,
                          (unsigned long long)h.dataSize);
  }
  if (h.swapBytes)
    swapBytes(data, h.dataSize, h.swapBytes);
  out->elementType = h.type;
  out->rank = h.rank;
  memcpy(out->dims, h.dims, sizeof out->dims);
  out->data = data;
  out->size = h.dataSize;
  return true;
}

bool thunkyNpyReadMemory(const void *data, size_t size, const char *name, int32_t expectedType,
                         ThunkyNpyArray *out, ThunkyError *error) {
  return decode(data, size, NULL, name ? name : "<memory>", expectedType, out, error);
}

bool thunkyNpyRead(const char *path, int32_t expectedType, ThunkyNpyArray *out,
                   ThunkyError *error) {
  *out = (ThunkyNpyArray){0};
  FILE *f = fopen(path, "rb");
  if (!f)
    return thunkyErrorf(error, "%s: cannot open: %s", path, strerror(errno));
  /* Read to the end rather than trusting a size from the file system, so
   * that pipes work too. Growing by doubling costs no copies for large
   * blocks, which realloc moves by remapping. */
  size_t size = 0, capacity = 1 << 20;
  uint8_t *bytes = malloc(capacity);
  while (bytes) {
    size += fread(bytes + size, 1, capacity - size, f);
    if (size < capacity || capacity > SIZE_MAX / 2)
      break;
    uint8_t *grown = realloc(bytes, capacity *= 2);
    if (!grown)
      free(bytes);
    bytes = grown;
  }
  int readErrno = errno;
  bool ok = bytes && !ferror(f) && feof(f);
  fclose(f);
  if (!ok) {
    thunkyErrorf(error, "%s: cannot read: %s", path,
                 bytes ? strerror(readErrno) : "out of memory");
    free(bytes);
    return false;
  }
  return decode(bytes, size, bytes, path, expectedType, out, error);
}

/*--- writing ---------------------------------------------------------------------*/

/* numpy pads the header after the dict so that the first dim (the one
 * appends grow) can take up to 21 digits in place, and then so that the data
 * starts at a multiple of 64 bytes; doing the same makes our files
 * byte-identical to np.save's. A header of THUNKY_NPY_MAX_RANK dims of 20
 * digits stays far below version 1.0's 65535 bytes. */
enum { NPY_ALIGN = 64, NPY_GROWTH_DIGITS = 21, NPY_HEADER_MAX = 512 };
_Static_assert(80 + 22 * THUNKY_NPY_MAX_RANK + NPY_GROWTH_DIGITS + NPY_ALIGN < NPY_HEADER_MAX,
               "the header buffer holds every header");

/* The prefix and header of an array into out[NPY_HEADER_MAX]; their size. */
static size_t formatHeader(const char *descr, uint32_t rank, const int64_t *dims, char *out) {
  Text text = {out, NPY_HEADER_MAX, 10}; /* the prefix is filled in below */
  appendf(&text, "{'descr': '%s', 'fortran_order': False, 'shape': ", descr);
  appendDims(&text, rank, dims, "(", ", ", rank == 1 ? ",)" : ")");
  appendf(&text, ", }");
  if (rank > 0) {
    char first[24];
    int digits = snprintf(first, sizeof first, "%lld", (long long)dims[0]);
    appendf(&text, "%*s", NPY_GROWTH_DIGITS - digits, "");
  }
  /* numpy pads a full NPY_ALIGN when the header is already aligned. */
  size_t pad = NPY_ALIGN - (text.used + 1) % NPY_ALIGN;
  appendf(&text, "%*s\n", (int)pad, "");
  size_t headerSize = text.used - 10;
  memcpy(out, "\x93NUMPY\x01\x00", 8);
  out[8] = (char)(headerSize & 0xff), out[9] = (char)(headerSize >> 8);
  return text.used;
}

bool thunkyNpyWrite(const char *path, const ThunkyNpyArray *array, ThunkyError *error) {
  char descr[8] = "|u1", header[NPY_HEADER_MAX];
  uint32_t rank = 1;
  const int64_t *dims = array->dims;
  int64_t rawDim = (int64_t)array->size;
  if (array->elementType == 0) {
    dims = &rawDim;
    if (rawDim < 0)
      return thunkyErrorf(error, "%s: %llu bytes are too many for a .npy shape", path,
                          (unsigned long long)array->size);
  } else {
    const NpyType *t = findType(array->elementType);
    if (!t)
      return thunkyErrorf(error, "%s: element type %d has no .npy dtype", path,
                          (int)array->elementType);
    if (array->rank > THUNKY_NPY_MAX_RANK)
      return thunkyErrorf(error, "%s: rank %u is more than %d", path, array->rank,
                          THUNKY_NPY_MAX_RANK);
    rank = array->rank;
    char shape[160];
    thunkyNpyDescribe(array->elementType, rank, dims, shape, sizeof shape);
    uint64_t bytes = 0;
    bool negative = false;
    for (uint32_t i = 0; i < rank; i++)
      negative |= dims[i] < 0;
    uint32_t size = thunkyElementBytes(t->type);
    if (negative || !arrayBytes(rank, dims, size, &bytes) || bytes != array->size)
      return thunkyErrorf(error, "%s: %s does not describe the array's %llu bytes", path, shape,
                          (unsigned long long)array->size);
    /* numpy's typestr: '|' for one byte, and ml_dtypes' '<V<n>' where numpy
     * has no type. */
    snprintf(descr, sizeof descr, "%c%c%u", t->kind && size == 1 ? '|' : '<',
             t->kind ? t->kind : 'V', (unsigned)size);
  }
  size_t headerSize = formatHeader(descr, rank, dims, header);

  size_t pathSize = strlen(path);
  char *temporary = malloc(pathSize + sizeof ".partial");
  if (!temporary)
    return thunkyErrorf(error, "%s: out of memory", path);
  memcpy(temporary, path, pathSize);
  memcpy(temporary + pathSize, ".partial", sizeof ".partial");
  FILE *f = fopen(temporary, "wb");
  bool ok = f && fwrite(header, 1, headerSize, f) == headerSize &&
            (!array->size || fwrite(array->data, 1, (size_t)array->size, f) == array->size);
  ok = f && fclose(f) == 0 && ok && rename(temporary, path) == 0;
  if (!ok) {
    int writeErrno = errno;
    remove(temporary);
    thunkyErrorf(error, "%s: cannot write: %s", path, strerror(writeErrno));
  }
  free(temporary);
  return ok;
}

void thunkyNpyArrayDestroy(ThunkyNpyArray *array) {
  if (!array)
    return;
  free(array->data);
  *array = (ThunkyNpyArray){0};
}
