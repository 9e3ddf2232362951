/* Unit tests of the .npy reader and writer: round trips of every dtype, files
 * as numpy writes them, and malformed files. Each check prints one line; the
 * program fails if any does.
 *
 * RUN: thunky-npy-test
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include "thunky-c/runtime/Npy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

enum { PRED = 1, S8 = 2, S32 = 4, S64 = 5, U8 = 6, U16 = 7, F16 = 10, F32 = 11, C64 = 15,
       BF16 = 16, F8E4M3FN = 20 };

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static uint64_t nextRandom(void) { /* xorshift64: reproducible test data */
  seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
  return seed;
}

static char directory[256];

/* A path in the test's temporary directory, valid until the next call. */
static const char *tempPath(const char *name) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", directory, name);
  return path;
}

static bool fileExists(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f)
    fclose(f);
  return f != NULL;
}

/* The whole file at `path`, malloc'ed. */
static uint8_t *readAll(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  uint8_t *data = malloc(1 << 16);
  *size = f ? fread(data, 1, 1 << 16, f) : 0;
  if (f)
    fclose(f);
  return data;
}

/* Reads bytes from memory expecting failure with `expected` in the message. */
static void expectError(const void *bytes, size_t size, int32_t expectedType,
                        const char *expected, const char *what) {
  ThunkyNpyArray a;
  ThunkyError e = {{0}};
  bool ok = thunkyNpyReadMemory(bytes, size, "bad.npy", expectedType, &a, &e);
  CHECK(!ok, "%s: read succeeded", what);
  CHECK(ok || (strstr(e.message, expected) && strncmp(e.message, "bad.npy: ", 9) == 0),
        "%s: got \"%s\", want \"%s\"", what, e.message, expected);
  CHECK(ok || (a.data == NULL && a.size == 0), "%s: failure left data", what);
  thunkyNpyArrayDestroy(&a);
}

/* A version 1.0 file around `header` (the dict and its padding). */
static size_t makeFile(uint8_t *out, const char *header, const void *data, size_t dataSize) {
  size_t n = strlen(header);
  memcpy(out, "\x93NUMPY\x01\x00", 8);
  out[8] = (uint8_t)n, out[9] = (uint8_t)(n >> 8);
  memcpy(out + 10, header, n);
  memcpy(out + 10 + n, data, dataSize);
  return 10 + n + dataSize;
}

/*--- round trips -------------------------------------------------------------*/

static const struct {
  int32_t type;
  uint32_t bytes;
} allTypes[] = {{1, 1},  {2, 1},  {3, 2},  {4, 4},  {5, 8},  {6, 1},  {7, 2},  {8, 4},
                {9, 8},  {10, 2}, {11, 4}, {12, 8}, {15, 8}, {18, 16}, {16, 2}, {19, 1},
                {20, 1}, {23, 1}, {24, 1}, {25, 1}, {28, 1}, {29, 1}, {33, 1}};

static const struct {
  uint32_t rank;
  int64_t dims[THUNKY_NPY_MAX_RANK];
} shapes[] = {{0, {0}},        {1, {5}},    {3, {2, 3, 4}},
              {1, {0}},        {3, {3, 0, 2}}, {8, {1, 2, 1, 3, 1, 2, 1, 2}},
              {2, {123457, 1}}};

/* Writes, reads back, and compares every byte; false if anything differs. */
static bool roundTrip(int32_t type, uint32_t elementBytes, uint32_t rank, const int64_t *dims) {
  ThunkyNpyArray a = {.elementType = type, .rank = rank};
  uint64_t count = 1;
  for (uint32_t i = 0; i < rank; i++)
    a.dims[i] = dims[i], count *= (uint64_t)dims[i];
  a.size = count * elementBytes;
  a.data = malloc(a.size + 1);
  for (uint64_t i = 0; i < a.size; i++)
    a.data[i] = (uint8_t)nextRandom();
  char what[64];
  thunkyNpyDescribe(type, rank, dims, what, sizeof what);

  const char *path = tempPath("round.npy");
  ThunkyError e = {{0}};
  ThunkyNpyArray b;
  bool ok = thunkyNpyWrite(path, &a, &e);
  CHECK(ok, "%s: write: %s", what, e.message);
  ok = ok && thunkyNpyRead(path, type, &b, &e);
  CHECK(ok, "%s: read: %s", what, e.message);
  if (ok) {
    bool same = b.elementType == type && b.rank == rank && b.size == a.size &&
                memcmp(b.dims, a.dims, rank * sizeof *dims) == 0 &&
                (!a.size || memcmp(a.data, b.data, a.size) == 0);
    CHECK(same, "%s: read back differently", what);
    ok = same;
    thunkyNpyArrayDestroy(&b);
  }
  /* The data starts 64-byte aligned, as numpy's does. */
  size_t size;
  uint8_t *file = readAll(path, &size);
  size_t dataOffset = size >= 10 ? 10u + file[8] + 256u * file[9] : 0;
  CHECK(dataOffset >= 128 && dataOffset % 64 == 0, "%s: data starts at %zu", what, dataOffset);
  free(file);
  free(a.data);
  return ok;
}

static void testRoundTrip(void) {
  int trips = 0;
  for (size_t t = 0; t < sizeof allTypes / sizeof allTypes[0]; t++)
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      trips += roundTrip(allTypes[t].type, allTypes[t].bytes, shapes[s].rank, shapes[s].dims);
  CHECK(!fileExists(tempPath("round.npy.partial")), "a .partial file is left");

  /* Raw bytes go out as '|u1' of shape (size,), and come back as u8. */
  uint8_t bytes[5] = {1, 2, 3, 4, 5};
  ThunkyNpyArray raw = {.elementType = 0, .data = bytes, .size = 5}, back;
  ThunkyError e = {{0}};
  bool ok = thunkyNpyWrite(tempPath("raw.npy"), &raw, &e) &&
            thunkyNpyRead(tempPath("raw.npy"), 0, &back, &e);
  CHECK(ok && back.elementType == U8 && back.rank == 1 && back.dims[0] == 5 &&
            back.size == 5 && memcmp(back.data, bytes, 5) == 0,
        "raw bytes: %s", e.message);
  if (ok)
    thunkyNpyArrayDestroy(&back);
  printf("round trip: %d of %zu dtype and shape pairs bit-exact; raw bytes as u8\n", trips,
         sizeof allTypes / sizeof allTypes[0] * (sizeof shapes / sizeof shapes[0]));
}

/*--- files as numpy writes them ------------------------------------------------*/

/* np.save pads the dict with 21 - len(str(shape[0])) spaces (room for the
 * first dim to grow in place; shape[-1] in Fortran order), then with spaces
 * and '\n' so that the data starts at a multiple of 64. For these headers
 * that is 118 bytes (0x76) of header after the 10-byte prefix. */
static const char f32Header[] =
    "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    "                                                          \n"; /* 58 spaces */
static const char scalarHeader[] =
    "{'descr': '<i8', 'fortran_order': False, 'shape': (), }"
    "                                                              \n"; /* 62 */
static const char boolHeader[] =
    "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }"
    "                                                            \n"; /* 60 */
static const char fortranHeader[] =
    "{'descr': '<i4', 'fortran_order': True, 'shape': (3, 2), }"
    "                                                           \n"; /* 59 */
static const char bigEndianHeader[] =
    "{'descr': '>u2', 'fortran_order': False, 'shape': (3,), }"
    "                                                            \n"; /* 60 */

/* Reads `file` expecting `type`, `rank` dims and `data`; then, where
 * `rewrite`, writes what was read and expects numpy's bytes back. */
static void expectNumpyFile(const uint8_t *file, size_t size, int32_t type, uint32_t rank,
                            const int64_t *dims, const void *data, size_t dataSize,
                            bool rewrite, const char *what) {
  ThunkyNpyArray a;
  ThunkyError e = {{0}};
  bool ok = thunkyNpyReadMemory(file, size, what, 0, &a, &e);
  CHECK(ok, "%s: %s", what, e.message);
  if (!ok)
    return;
  CHECK(size == 128 + dataSize, "%s: the header is not numpy's 128 bytes", what);
  CHECK(a.elementType == type && a.rank == rank &&
            memcmp(a.dims, dims, rank * sizeof *dims) == 0 && a.size == dataSize &&
            memcmp(a.data, data, dataSize) == 0,
        "%s: read wrongly (type %d, rank %u, %llu bytes)", what, a.elementType, a.rank,
        (unsigned long long)a.size);
  if (rewrite) {
    size_t written;
    ok = thunkyNpyWrite(tempPath("numpy.npy"), &a, &e);
    uint8_t *bytes = readAll(tempPath("numpy.npy"), &written);
    CHECK(ok && written == size && memcmp(bytes, file, size) == 0,
          "%s: not written as numpy writes it: %s", what, e.message);
    free(bytes);
  }
  thunkyNpyArrayDestroy(&a);
}

static void testNumpyFiles(void) {
  uint8_t file[512];
  size_t size;
  /* np.arange(6, dtype=np.float32).reshape(2, 3) */
  const float f32[6] = {0, 1, 2, 3, 4, 5};
  size = makeFile(file, f32Header, f32, sizeof f32);
  CHECK(memcmp(file, "\x93NUMPY\x01\x00\x76\x00", 10) == 0, "the f32 prefix");
  expectNumpyFile(file, size, F32, 2, (int64_t[]){2, 3}, f32, sizeof f32, true, "f32[2,3]");
  /* np.int64(-7) */
  const int64_t scalar = -7;
  size = makeFile(file, scalarHeader, &scalar, 8);
  expectNumpyFile(file, size, S64, 0, (int64_t[]){0}, &scalar, 8, true, "s64 scalar");
  /* np.array([True, False, True]) */
  size = makeFile(file, boolHeader, "\1\0\1", 3);
  expectNumpyFile(file, size, PRED, 1, (int64_t[]){3}, "\1\0\1", 3, true, "pred[3]");
  /* np.arange(6, dtype=np.int32).reshape(2, 3).T is Fortran-contiguous:
   * numpy writes its memory (0..5) and fortran_order True. */
  const int32_t fortranData[6] = {0, 1, 2, 3, 4, 5}, cOrder[6] = {0, 3, 1, 4, 2, 5};
  size = makeFile(file, fortranHeader, fortranData, sizeof fortranData);
  expectNumpyFile(file, size, S32, 2, (int64_t[]){3, 2}, cOrder, sizeof cOrder, false,
                  "Fortran-order s32[3,2]");
  /* np.arange(3, dtype='>u2') */
  const uint16_t little[3] = {0, 1, 2};
  size = makeFile(file, bigEndianHeader, "\0\0\0\1\0\2", 6);
  expectNumpyFile(file, size, U16, 1, (int64_t[]){3}, little, 6, false, "big-endian u16[3]");
  printf("numpy files: f32, s64 scalar, pred read and rewritten byte-identically; Fortran "
         "order transposed, big-endian swapped\n");
}

/* A 3-D Fortran-order array, and big-endian complex numbers. */
static void testLayouts(void) {
  uint8_t file[512];
  int16_t fortran[2 * 3 * 4];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 4; k++)
        fortran[i + 2 * (j + 3 * k)] = (int16_t)(100 * i + 10 * j + k);
  size_t size = makeFile(file, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3, 4)}\n",
                         fortran, sizeof fortran);
  ThunkyNpyArray a;
  ThunkyError e = {{0}};
  bool ok = thunkyNpyReadMemory(file, size, "fortran", 0, &a, &e);
  CHECK(ok, "%s", e.message);
  int wrong = 0;
  for (int n = 0; ok && n < 24; n++) {
    int16_t v;
    memcpy(&v, a.data + 2 * n, 2);
    wrong += v != 100 * (n / 12) + 10 * (n / 4 % 3) + n % 4;
  }
  CHECK(ok && wrong == 0, "%d elements out of place", wrong);
  thunkyNpyArrayDestroy(&a);

  /* 1+2j, -0.5+0j as '>c8': each float big-endian on its own. */
  const uint8_t be[16] = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0, 0xbf, 0, 0, 0, 0, 0, 0, 0};
  const float le[4] = {1, 2, -0.5f, 0};
  size = makeFile(file, "{'descr': '>c8', 'fortran_order': False, 'shape': (2,), }\n", be, 16);
  ok = thunkyNpyReadMemory(file, size, "complex", 0, &a, &e);
  CHECK(ok && a.elementType == C64 && memcmp(a.data, le, 16) == 0, "big-endian c64: %s",
        e.message);
  thunkyNpyArrayDestroy(&a);

  /* Version 2.0 and 3.0 prefixes, double quotes, no trailing comma, odd
   * spacing, Python 2's 3L: what literal_eval reads, this reads too. */
  const char *header = "{\"shape\" :(1L,2L) ,\n\"fortran_order\":False,\"descr\":\"<f2\"}  \n";
  size_t n = strlen(header);
  for (uint8_t major = 2; major <= 3; major++) {
    memcpy(file, "\x93NUMPY", 6);
    file[6] = major, file[7] = 0;
    file[8] = (uint8_t)n, file[9] = file[10] = file[11] = 0;
    memcpy(file + 12, header, n);
    memcpy(file + 12 + n, "\x01\x02\x03\x04", 4);
    ok = thunkyNpyReadMemory(file, 16 + n, "v2", 0, &a, &e);
    CHECK(ok && a.elementType == F16 && a.rank == 2 && a.dims[0] == 1 && a.dims[1] == 2 &&
              a.size == 4,
          "version %u.0: %s", major, e.message);
    thunkyNpyArrayDestroy(&a);
  }
  printf("layouts: 3-D Fortran order, big-endian c64, versions 2.0 and 3.0 read\n");
}

/* bf16 and f8 have no numpy dtype: '<V2' and '<V1' are raw unless expected. */
static void testVoidTypes(void) {
  uint8_t file[512];
  ThunkyNpyArray a;
  ThunkyError e = {{0}};
  const struct {
    const char *descr;
    uint32_t bytes;
    int32_t expected, type;
    uint8_t first; /* the first byte read: swapped for '>' */
  } cases[] = {
      {"<V2", 2, 0, 0, 0x11},           {"<V2", 2, BF16, BF16, 0x11},
      {"|V2", 2, BF16, BF16, 0x11},     {">V2", 2, BF16, BF16, 0x22},
      {">V2", 2, 0, 0, 0x11},           {"<V2", 2, F16, 0, 0x11},
      {"<V2", 2, F32, 0, 0x11},         {"bfloat16", 2, 0, BF16, 0x11},
      {"bfloat16", 2, F32, BF16, 0x11}, {"<V1", 1, F8E4M3FN, F8E4M3FN, 0x11},
      {"<V1", 1, BF16, 0, 0x11},        {"float8_e4m3fn", 1, 0, F8E4M3FN, 0x11},
      {"float32", 4, 0, F32, 0x11},     {"<V4", 4, 0, 0, 0x11},
  };
  const char data[] = "\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc\xdd\xee\xff\x00";
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char header[128];
    snprintf(header, sizeof header,
             "{'descr': '%s', 'fortran_order': False, 'shape': (2, 2), }\n", cases[i].descr);
    size_t size = makeFile(file, header, data, 4 * cases[i].bytes);
    bool ok = thunkyNpyReadMemory(file, size, cases[i].descr, cases[i].expected, &a, &e);
    CHECK(ok && a.elementType == cases[i].type && a.rank == 2 && a.dims[1] == 2 &&
              a.size == 4 * cases[i].bytes && a.data[0] == cases[i].first,
          "%s expecting %d: %s (type %d)", cases[i].descr, cases[i].expected, e.message,
          a.elementType);
    thunkyNpyArrayDestroy(&a);
  }
  /* What is written for bf16 is what ml_dtypes writes. */
  uint16_t one = 0x3f80;
  ThunkyNpyArray bf16 = {.elementType = BF16, .rank = 1, .dims = {1}, .data = (uint8_t *)&one,
                         .size = 2};
  size_t size;
  bool ok = thunkyNpyWrite(tempPath("bf16.npy"), &bf16, &e);
  uint8_t *bytes = readAll(tempPath("bf16.npy"), &size);
  CHECK(ok && size > 20 && memcmp(bytes + 10, "{'descr': '<V2',", 16) == 0, "bf16 descr: %s",
        e.message);
  free(bytes);
  printf("void types: %zu descr and expected-type pairs; bf16 written as '<V2'\n",
         sizeof cases / sizeof cases[0]);
}

/*--- malformed files ----------------------------------------------------------*/

static void testMalformed(void) {
  uint8_t file[1024];
  const float data[6] = {0};
  static const struct {
    const char *header, *expected;
  } headers[] = {
      {"{'descr': '<f4', ", "expected a string, found the header's end"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False}", "the header has no 'shape'"},
      {"{'fortran_order': False, 'shape': (2, 3)}", "the header has no 'descr'"},
      {"{}", "the header has no 'descr'"},
      {"", "expected '{' opening the header dict, found the header's end"},
      {"[1, 2]", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", "unexpected key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}",
       "key 'descr' appears twice"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", "negative dimension"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 0)}",
       "dimension larger than 2^63-1"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
       "f32[4294967296,4294967296] is larger than 2^64 bytes"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,)}",
       "is larger than 2^64 bytes"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1)}",
       "more than 8 dimensions"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", "expected '(' opening"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (6)}", "shape (6) is no tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}", "expected a dimension"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3)}", "True or False"},
      {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2, 3)}", "True or False"},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': (2, 3)}", "expected ':' after a key"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}", "expected ',' or '}'"},
      {"{'descr': '<f4", "unterminated string"},
      {"{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2, 3)}", "escapes"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3)}", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} x", "only padding"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}}", "only padding"},
      {"{'descr': '<U3', 'fortran_order': False, 'shape': (2, 3)}", "unsupported dtype '<U3'"},
      {"{'descr': '|O', 'fortran_order': False, 'shape': (2, 3)}", "unsupported dtype '|O'"},
      {"{'descr': '<f3', 'fortran_order': False, 'shape': (2, 3)}", "unsupported dtype '<f3'"},
      {"{'descr': '|f4', 'fortran_order': False, 'shape': (2, 3)}", "unsupported dtype '|f4'"},
      {"{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (2, 3)}",
       "unsupported dtype '<M8[ns]'"},
      {"{'descr': '<V0', 'fortran_order': False, 'shape': (2, 3)}", "unsupported dtype '<V0'"},
      {"{'descr': '', 'fortran_order': False, 'shape': (2, 3)}", "unsupported dtype ''"},
      {"{'descr': '\x01\xff', 'fortran_order': False, 'shape': (2, 3)}",
       "unsupported dtype '\\x01\\xff'"},
      {"{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2, 3)}",
       "structured dtype"},
  };
  for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
    size_t size = makeFile(file, headers[i].header, data, sizeof data);
    expectError(file, size, 0, headers[i].expected, headers[i].header);
  }
  /* A NUL inside the header, and where messages point. */
  size_t size = makeFile(file, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", data,
                         sizeof data);
  file[10 + 17] = '\0';
  expectError(file, size, 0, "header byte 27: expected a string, found '\\x00'", "a NUL");

  /* The prefix. */
  size = makeFile(file, f32Header, data, sizeof data);
  expectError(file, 0, 0, "not a .npy file", "empty");
  expectError("\x93NUMPZ\x01\x00\x76\x00", 10, 0, "not a .npy file", "bad magic");
  expectError("PK\x03\x04", 4, 0, "not a .npy file", "a zip file");
  expectError(file, 7, 0, "truncated: 7 bytes end in the version", "7 bytes");
  expectError(file, 9, 0, "truncated: 9 bytes end in the header length", "9 bytes");
  expectError("\x93NUMPY\x02\x00\x76\x00\x00", 11, 0, "11 bytes end in the header length",
              "v2 prefix");
  expectError("\x93NUMPY\x04\x00\x76\x00", 10, 0, "unsupported .npy version 4.0", "4.0");
  expectError("\x93NUMPY\x01\x01\x76\x00", 10, 0, "unsupported .npy version 1.1", "1.1");
  expectError(file, 100, 0, "the header is 118 bytes long and runs past the end of the file",
              "header past the end");
  expectError("\x93NUMPY\x02\x00\xff\xff\xff\xff{}", 14, 0, "4294967295 bytes long",
              "v2 header past the end");

  /* The data must fill the rest of the file exactly. */
  expectError(file, size - 1, 0, "f32[2,3] needs 24 bytes of data, but 23 follow the 128-byte",
              "short data");
  file[size] = 0;
  expectError(file, size + 1, 0, "but 25 follow", "long data");
  ThunkyNpyArray a;
  ThunkyError e = {{0}};
  size = makeFile(file, "{'descr': '<f8', 'fortran_order': False, 'shape': "
                        "(9223372036854775807, 0, 9223372036854775807)}", "", 0);
  CHECK(thunkyNpyReadMemory(file, size, NULL, 0, &a, &e) && a.size == 0 && a.rank == 3,
        "a zero dim empties any shape: %s", e.message);
  thunkyNpyArrayDestroy(&a);

  /* Every truncation of a good file, and random damage to its header:
   * each a clean failure or a read, never a crash. */
  size = makeFile(file, f32Header, data, sizeof data);
  int truncations = 0, survived = 0;
  for (size_t n = 0; n < size; n++) {
    bool ok = thunkyNpyReadMemory(file, n, "cut.npy", 0, &a, &e);
    truncations += !ok && e.message[0];
    thunkyNpyArrayDestroy(&a);
  }
  CHECK(truncations == (int)size, "%d of %zu truncations refused", truncations, size);
  uint8_t damaged[sizeof file];
  for (int trial = 0; trial < 20000; trial++) {
    memcpy(damaged, file, size);
    for (int flips = 1 + (int)(nextRandom() % 4); flips > 0; flips--)
      damaged[nextRandom() % 128] = (uint8_t)nextRandom();
    size_t cut = trial % 7 ? size : (size_t)(nextRandom() % (size + 1));
    if (thunkyNpyReadMemory(damaged, cut, "damaged.npy", BF16, &a, &e))
      survived++;
    thunkyNpyArrayDestroy(&a);
  }
  printf("malformed: %zu headers, the prefix, data size refused; %d truncations, 20000 "
         "damaged files (%d still read)\n",
         sizeof headers / sizeof headers[0], truncations, survived);
}

/*--- files, writing, describing ----------------------------------------------*/

static void testFilesAndWriting(void) {
  ThunkyNpyArray a;
  ThunkyError e = {{0}};
  const char *missing = tempPath("missing.npy");
  CHECK(!thunkyNpyRead(missing, 0, &a, &e) && strstr(e.message, "missing.npy: cannot open"),
        "got \"%s\"", e.message);
  CHECK(!thunkyNpyRead(directory, 0, &a, &e) && strstr(e.message, "cannot"),
        "a directory: got \"%s\"", e.message);

  float values[6] = {1, 2, 3, 4, 5, 6};
  ThunkyNpyArray good = {.elementType = F32, .rank = 2, .dims = {2, 3},
                         .data = (uint8_t *)values, .size = sizeof values};
  const struct {
    ThunkyNpyArray array;
    const char *expected;
  } bad[] = {
      {{.elementType = 99, .rank = 1, .dims = {1}, .data = good.data, .size = 1},
       "element type 99 has no .npy dtype"},
      {{.elementType = F32, .rank = 2, .dims = {2, 2}, .data = good.data, .size = 24},
       "f32[2,2] does not describe the array's 24 bytes"},
      {{.elementType = F32, .rank = 2, .dims = {-2, -3}, .data = good.data, .size = 24},
       "f32[-2,-3] does not describe"},
      {{.elementType = F32, .rank = 9, .data = good.data, .size = 4}, "rank 9 is more than 8"},
      {{.elementType = S8, .rank = 2, .dims = {INT64_MAX, 4}, .data = good.data, .size = 4},
       "does not describe"},
  };
  char path[512];
  snprintf(path, sizeof path, "%s", tempPath("bad.npy"));
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK(!thunkyNpyWrite(path, &bad[i].array, &e) && strstr(e.message, bad[i].expected) &&
              !fileExists(path),
          "got \"%s\", want \"%s\"", e.message, bad[i].expected);
  CHECK(!thunkyNpyWrite(tempPath("no/such/dir.npy"), &good, &e) &&
            strstr(e.message, "dir.npy: cannot write: "),
        "got \"%s\"", e.message);
  /* A rewrite replaces the old file whole. */
  CHECK(thunkyNpyWrite(path, &good, &e), "%s", e.message);
  good.rank = 1, good.dims[0] = 6;
  CHECK(thunkyNpyWrite(path, &good, &e) && thunkyNpyRead(path, 0, &a, &e) && a.rank == 1 &&
            a.dims[0] == 6 && !fileExists(tempPath("bad.npy.partial")),
        "rewrite: %s", e.message);
  thunkyNpyArrayDestroy(&a);
  thunkyNpyArrayDestroy(NULL);

  char text[64];
  thunkyNpyDescribe(F32, 2, (int64_t[]){2, 3}, text, sizeof text);
  CHECK(strcmp(text, "f32[2,3]") == 0, "%s", text);
  thunkyNpyDescribe(S32, 0, NULL, text, sizeof text);
  CHECK(strcmp(text, "s32[]") == 0, "%s", text);
  thunkyNpyDescribe(0, 1, (int64_t[]){6}, text, sizeof text);
  CHECK(strcmp(text, "raw[6]") == 0, "%s", text);
  thunkyNpyDescribe(99, 1, (int64_t[]){1}, text, sizeof text);
  CHECK(strcmp(text, "type99[1]") == 0, "%s", text);
  thunkyNpyDescribe(BF16, 3, (int64_t[]){1000, 2000, 3000}, text, 10);
  CHECK(strcmp(text, "bf16[1000") == 0, "truncated: %s", text);
  printf("files and writing: open and write errors, refused arrays, atomic rewrite, "
         "descriptions\n");
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(directory, sizeof directory, "%s/thunky-npy-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(directory)) {
    perror("mkdtemp");
    return 1;
  }
  testRoundTrip();
  testNumpyFiles();
  testLayouts();
  testVoidTypes();
  testMalformed();
  testFilesAndWriting();
  const char *names[] = {"round.npy", "raw.npy", "numpy.npy", "bf16.npy", "bad.npy"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    remove(tempPath(names[i]));
  rmdir(directory);
  printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
  return failures != 0;
}
