/* Unit tests of the container layers: HighwayHash, riegeli, split-proto and
 * layering. Each check prints one line; the program fails if any does.
 *
 * RUN: thunky-container-test
 */
#include "thunky-c/format/Container.h"

#include "thunky-c/format/Wire.h"
#include "thunky-c/format/Riegeli.h"
#include "snappy_compress.h"
#include "xla/python/pjrt_ifrt/executable_metadata.pb-c.h"
#include "xla/service/gpu/gpu_executable.pb-c.h"
#include "xla/xla_data.pb-c.h"
#include "xla/util/split_proto/split_proto.pb-c.h"

#include <brotli/encode.h>
#include <highwayhash/c_bindings.h>
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "check.h"

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static uint64_t nextRandom(void) { /* xorshift64: reproducible test data */
  seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
  return seed;
}
static void fillRandom(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)nextRandom();
}

/* Reads `file` expecting failure with `expected` in the message. */
static void expectReadError(ThunkyBytes file, uint64_t limit, const char *expected,
                            const char *what) {
  ThunkyRecordFile f;
  ThunkyError e = {{0}};
  bool ok = thunkyRiegeliRead(file.data, file.size, limit, &f, &e);
  CHECK(!ok, "%s: read succeeded", what);
  CHECK(ok || strstr(e.message, expected), "%s: got \"%s\", want \"%s\"", what, e.message,
        expected);
  if (ok)
    thunkyRecordFileDestroy(&f);
}

/*--- HighwayHash -----------------------------------------------------------*/

static void testHighwayHashReferenceValues(void) {
  uint8_t blockHeader[16] = {0};
  blockHeader[8] = 0x40; /* the signature's block header: previous 0, next 64 */
  CHECK(thunkyHighwayHash64(thunkyRiegeliHashKey, blockHeader, 16) == 0x3f4a880dd170af83ull,
        "block header hash");
  CHECK(thunkyHighwayHash64(thunkyRiegeliHashKey, "", 0) == 0x72c3b1e9c0139fe1ull,
        "empty data hash");
  uint8_t chunkHeader[32] = {0};
  chunkHeader[16] = 's';
  CHECK(thunkyHighwayHash64(thunkyRiegeliHashKey, chunkHeader, 24) != 0, "sanity");
}

/* Every length from 0 to 1100 (all remainder paths, many packets) under
 * random keys, against Debian's libhighwayhash. */
static void testHighwayHashMatchesLibrary(void) {
  static uint8_t data[1200];
  fillRandom(data, sizeof data);
  int mismatches = 0;
  for (size_t n = 0; n <= 1100; n++) {
    uint64_t key[4] = {nextRandom(), nextRandom(), nextRandom(), nextRandom()};
    const uint8_t *p = data + n % 61; /* unaligned starts too */
    mismatches += thunkyHighwayHash64(key, p, n) != HighwayHash64(key, (const char *)p, n);
  }
  CHECK(mismatches == 0, "%d of 1101 lengths differ from libhighwayhash", mismatches);
  printf("highwayhash: 1101 lengths match libhighwayhash\n");
}

/*--- snappy ----------------------------------------------------------------*/

/* The level-2 compressor against libsnappy's decoder: inputs with no
 * matches, long runs, short and far repeats, every fragment boundary. The
 * bytes XLA itself wrote are matched by test/Translate/jax-fixtures.test. */
static void testSnappyCompressor(void) {
  enum { MAX = 3 * 65536 + 300 };
  static uint8_t data[MAX], back[MAX];
  const size_t sizes[] = {0,     1,     14,    15,    16,    17,     100,    4095,
                          65535, 65536, 65537, 70000, 131072, 131087, MAX};
  int bad = 0, cases = 0;
  for (int kind = 0; kind < 5; kind++) {
    for (size_t i = 0; i < MAX; i++) {
      uint64_t r = nextRandom();
      data[i] = kind == 0   ? (uint8_t)r                       /* incompressible */
                : kind == 1 ? 0                                /* one long run */
                : kind == 2 ? (uint8_t)(i % 7 < 5 ? i % 13 : r) /* short repeats */
                : kind == 3 ? (uint8_t)(i < 40000 ? r : data[i - 40000]) /* far */
                            : (uint8_t)"thunk thunky thunks "[(i * 7 + r % 3) % 20];
    }
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++, cases++) {
      ThunkyBuffer out = {0};
      size_t length = sizeof back;
      bool ok = thunkySnappyCompress(data, sizes[s], &out) &&
                snappy_validate_compressed_buffer((const char *)out.data, out.size) == SNAPPY_OK &&
                snappy_uncompress((const char *)out.data, out.size, (char *)back, &length) ==
                    SNAPPY_OK &&
                length == sizes[s] && memcmp(back, data, length) == 0;
      CHECK(ok, "snappy: kind %d, %zu bytes: does not decode to the input", kind, sizes[s]);
      bad += !ok;
      /* A run must shrink to a few bytes per 64-byte copy. */
      if (kind == 1 && sizes[s] == MAX)
        CHECK(out.size < MAX / 20, "snappy: a run of %d zeros took %zu bytes", MAX, out.size);
      thunkyBufferDestroy(&out);
    }
  }
  printf("snappy: %d of %d inputs decode to themselves\n", cases - bad, cases);
}

/*--- riegeli ---------------------------------------------------------------*/

static const uint8_t referenceSignature[64] = {
    0x83, 0xaf, 0x70, 0xd1, 0x0d, 0x88, 0x4a, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x91, 0xba, 0xc2, 0x3c, 0x92, 0x87, 0xe1, 0xa9,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe1, 0x9f, 0x13, 0xc0, 0xe9, 0xb1, 0xc3, 0x72,
    0x73, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};

static void testSignature(void) {
  ThunkyBuffer out = {0};
  ThunkyError e;
  CHECK(thunkyRiegeliWrite(NULL, 0, THUNKY_COMPRESSION_SNAPPY, &out, &e), "%s", e.message);
  CHECK(out.size == 64 && memcmp(out.data, referenceSignature, 64) == 0,
        "an empty file is the 64-byte signature (%zu bytes)", out.size);
  thunkyBufferDestroy(&out);
}

/* Writes records, reads them back, and compares every byte. */
static bool roundTrip(const ThunkyBytes *records, size_t count, ThunkyCompression c,
                      const char *what, size_t *fileSize) {
  ThunkyBuffer out = {0};
  ThunkyRecordFile f;
  ThunkyError e = {{0}};
  bool ok = thunkyRiegeliWrite(records, count, c, &out, &e);
  CHECK(ok, "%s: write: %s", what, e.message);
  ok = ok && thunkyRiegeliRead(out.data, out.size, THUNKY_DEFAULT_MAX_DECODED_BYTES, &f, &e);
  CHECK(ok, "%s: read: %s", what, e.message);
  if (ok) {
    CHECK(f.count == count, "%s: %zu records back, %zu written", what, f.count, count);
    for (size_t i = 0; i < count && i < f.count; i++)
      CHECK(f.records[i].size == records[i].size &&
                (!records[i].size ||
                 memcmp(f.records[i].data, records[i].data, records[i].size) == 0),
            "%s: record %zu differs", what, i);
    thunkyRecordFileDestroy(&f);
  }
  if (fileSize)
    *fileSize = out.size;
  thunkyBufferDestroy(&out);
  return ok;
}

static void testRoundTrip(void) {
  size_t sizes[] = {0, 1, 300000, 0, 2500000, 17, 1048576, 65536};
  enum { N = sizeof sizes / sizeof sizes[0] };
  ThunkyBytes records[N];
  uint8_t *storage[N];
  for (size_t i = 0; i < N; i++) {
    storage[i] = malloc(sizes[i] + 1);
    /* Half random, half repetitive, so snappy has something to do. */
    fillRandom(storage[i], sizes[i] / 2);
    memset(storage[i] + sizes[i] / 2, 'x', sizes[i] - sizes[i] / 2);
    records[i] = (ThunkyBytes){storage[i], sizes[i]};
  }
  size_t plain, snappy;
  roundTrip(records, N, THUNKY_COMPRESSION_NONE, "uncompressed", &plain);
  roundTrip(records, N, THUNKY_COMPRESSION_SNAPPY, "snappy", &snappy);
  CHECK(plain > 4 * 65536 && snappy < plain, "sizes %zu, %zu", plain, snappy);
  printf("riegeli: %d records (up to 2.5 MB) read back bit-exactly: %zu bytes plain, %zu "
         "snappy\n", N, plain, snappy);
  for (size_t i = 0; i < N; i++)
    free(storage[i]);
}

/* Records whose chunks end at every offset around a block boundary, and a
 * chunk of 70000 empty records whose padding spans block headers. */
static void testBlockBoundaries(void) {
  static uint8_t data[65600];
  fillRandom(data, sizeof data);
  int failed = failures;
  for (size_t size = 65400; size <= 65560 && failures == failed; size++) {
    ThunkyBytes r = {data, size};
    roundTrip(&r, 1, THUNKY_COMPRESSION_NONE, "boundary", NULL);
  }
  ThunkyBytes *empties = calloc(70000, sizeof *empties);
  for (size_t i = 0; i < 70000; i++)
    empties[i] = (ThunkyBytes){data, 0};
  size_t fileSize;
  roundTrip(empties, 70000, THUNKY_COMPRESSION_NONE, "empty records", &fileSize);
  CHECK(fileSize > 70000, "a chunk is at least as long as its records: %zu", fileSize);
  free(empties);
  printf("riegeli: chunk ends around a block boundary and padding across blocks read back\n");
}

/* A simple chunk's data: compression type, sizes blob, values blob. */
static void simpleChunk(ThunkyBuffer *chunk, uint8_t type, ThunkyBytes sizes, ThunkyBytes values) {
  thunkyBufferAppend(chunk, &type, 1);
  thunkyBufferAppendVarint(chunk, sizes.size);
  thunkyBufferAppend(chunk, sizes.data, sizes.size);
  thunkyBufferAppend(chunk, values.data, values.size);
}

typedef size_t (*Compressor)(const uint8_t *in, size_t n, ThunkyBuffer *out);

static size_t zstdBlob(const uint8_t *in, size_t n, ThunkyBuffer *out) {
  thunkyBufferAppendVarint(out, n);
  size_t bound = ZSTD_compressBound(n);
  uint8_t *to = thunkyBufferExtend(out, bound);
  size_t got = ZSTD_compress(to, bound, in, n, 3);
  out->size -= bound - got;
  return got;
}

static size_t brotliBlob(const uint8_t *in, size_t n, ThunkyBuffer *out) {
  thunkyBufferAppendVarint(out, n);
  size_t bound = BrotliEncoderMaxCompressedSize(n), got = bound;
  uint8_t *to = thunkyBufferExtend(out, bound);
  BrotliEncoderCompress(5, 22, BROTLI_MODE_GENERIC, n, in, &got, to);
  out->size -= bound - got;
  return got;
}

/* A file with one simple chunk of the two given records. */
static void buildCompressedFile(ThunkyBuffer *file, uint8_t type, Compressor compress,
                                ThunkyBytes a, ThunkyBytes b) {
  ThunkyBuffer sizes = {0}, values = {0}, cs = {0}, cv = {0}, chunk = {0};
  thunkyBufferAppendVarint(&sizes, a.size);
  thunkyBufferAppendVarint(&sizes, b.size);
  thunkyBufferAppend(&values, a.data, a.size);
  thunkyBufferAppend(&values, b.data, b.size);
  compress(sizes.data, sizes.size, &cs);
  compress(values.data, values.size, &cv);
  simpleChunk(&chunk, type, (ThunkyBytes){cs.data, cs.size}, (ThunkyBytes){cv.data, cv.size});
  thunkyRiegeliWriteChunk(file, 's', NULL, 0, 0, 0);
  thunkyRiegeliWriteChunk(file, 'r', chunk.data, chunk.size, 2, values.size);
  thunkyBufferDestroy(&sizes), thunkyBufferDestroy(&values), thunkyBufferDestroy(&cs);
  thunkyBufferDestroy(&cv), thunkyBufferDestroy(&chunk);
}

static void testZstdAndBrotli(void) {
  static uint8_t big[200000];
  memset(big, 'z', sizeof big);
  fillRandom(big, 1000);
  ThunkyBytes a = {(const uint8_t *)"hello", 5}, b = {big, sizeof big};
  struct { uint8_t type; Compressor c; const char *name; } kinds[] = {
      {'z', zstdBlob, "zstd"}, {'b', brotliBlob, "brotli"}};
  for (int k = 0; k < 2; k++) {
    ThunkyBuffer file = {0};
    ThunkyRecordFile f;
    ThunkyError e = {{0}};
    buildCompressedFile(&file, kinds[k].type, kinds[k].c, a, b);
    bool ok = thunkyRiegeliRead(file.data, file.size, THUNKY_DEFAULT_MAX_DECODED_BYTES, &f, &e);
    CHECK(ok, "%s: %s", kinds[k].name, e.message);
    if (ok) {
      CHECK(f.count == 2 && f.records[0].size == 5 && !memcmp(f.records[0].data, "hello", 5) &&
                f.records[1].size == sizeof big && !memcmp(f.records[1].data, big, sizeof big),
            "%s records differ", kinds[k].name);
      thunkyRecordFileDestroy(&f);
    }
    /* The same file under a decoded-size limit smaller than its records. */
    expectReadError((ThunkyBytes){file.data, file.size}, 100000, "over the limit",
                    kinds[k].name);
    thunkyBufferDestroy(&file);
  }
  printf("riegeli: zstd and brotli chunks read; limit enforced\n");
}

/*--- riegeli: bad input ----------------------------------------------------*/

/* A valid file of two records, 100 KB in all, crossing a block boundary. */
static void validFile(ThunkyBuffer *out, ThunkyCompression c) {
  static uint8_t data[100000];
  fillRandom(data, sizeof data);
  ThunkyBytes records[2] = {{data, 40000}, {data + 40000, 60000}};
  ThunkyError e;
  thunkyRiegeliWrite(records, 2, c, out, &e);
}

static void testCorruption(void) {
  ThunkyBuffer file = {0};
  validFile(&file, THUNKY_COMPRESSION_NONE);
  ThunkyBytes bytes = {file.data, file.size};
  struct { size_t offset; const char *expected; } flips[] = {
      {0, "signature"},
      {64 + 3, "header hash mismatch"},       /* first chunk's header hash */
      {64 + 8, "header hash mismatch"},       /* its data_size */
      {64 + 40 + 100, "data hash mismatch"},  /* a byte of its data */
      {65536 + 2, "block header at byte 65536: hash mismatch"},
  };
  for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
    file.data[flips[i].offset] ^= 0x40;
    expectReadError(bytes, UINT64_MAX, flips[i].expected, flips[i].expected);
    file.data[flips[i].offset] ^= 0x40;
  }
  /* A block header with a valid hash that names the wrong chunk start. */
  uint8_t saved[24];
  memcpy(saved, file.data + 65536, 24);
  thunkyStoreU64(file.data + 65536 + 8, thunkyLoadU64(file.data + 65536 + 8) + 1);
  thunkyStoreU64(file.data + 65536,
                 thunkyHighwayHash64(thunkyRiegeliHashKey, file.data + 65536 + 8, 16));
  expectReadError(bytes, UINT64_MAX, "says the chunk spans", "inconsistent block header");
  memcpy(file.data + 65536, saved, 24);

  /* Every truncation: an error, or (at a chunk boundary) fewer records. */
  int refused = 0;
  for (size_t n = 0; n < file.size; n += (n < 200 ? 1 : 997)) {
    ThunkyRecordFile f;
    ThunkyError e;
    if (thunkyRiegeliRead(file.data, n, UINT64_MAX, &f, &e)) {
      CHECK(f.count < 2, "a %zu-byte prefix read as the whole file", n);
      thunkyRecordFileDestroy(&f);
    } else {
      refused++;
    }
  }
  expectReadError((ThunkyBytes){file.data, file.size - 1}, UINT64_MAX, "truncated",
                  "one byte short");
  thunkyBufferDestroy(&file);

  /* Every single-bit flip of a small snappy file is caught by a hash (or
   * lands in the signature). */
  ThunkyBuffer small = {0};
  ThunkyBytes records[2] = {{(const uint8_t *)"first record", 12},
                            {(const uint8_t *)"second", 6}};
  ThunkyError e;
  thunkyRiegeliWrite(records, 2, THUNKY_COMPRESSION_SNAPPY, &small, &e);
  int undetected = 0;
  for (size_t i = 0; i < small.size; i++) {
    for (int bit = 0; bit < 8; bit++) {
      ThunkyRecordFile f;
      small.data[i] ^= (uint8_t)(1 << bit);
      if (thunkyRiegeliRead(small.data, small.size, UINT64_MAX, &f, &e)) {
        undetected++;
        thunkyRecordFileDestroy(&f);
      }
      small.data[i] ^= (uint8_t)(1 << bit);
    }
  }
  CHECK(undetected == 0, "%d bit flips went unnoticed", undetected);
  printf("riegeli: corrupt hashes, block headers, %d truncations and %zu bit flips refused\n",
         refused, small.size * 8);
  thunkyBufferDestroy(&small);
}

/* Files whose hashes are right but whose contents lie. */
static void testLyingChunks(void) {
  struct {
    uint8_t chunkType, compression;
    uint64_t numRecords, decodedSize;
    const char *sizes, *values, *expected;
    size_t sizesLength, valuesLength;
  } cases[] = {
      /* snappy values claiming 2^40 bytes: refused before allocating */
      {'r', 's', 1, 1ull << 40, "\x01\x01\x00\x05", "\x80\x80\x80\x80\x80\x20\x00",
       "over the limit", 4, 7},
      {'r', 0, 1, 100, "\x05", "hello", "the header says 100", 1, 5},
      {'r', 0, 1000000, 5, "\x05", "hello", "cannot fit", 1, 5},
      {'r', 0, 1, 5, "\x09", "hello", "runs past", 1, 5},
      {'r', 0, 1, 5, "\x02", "hello", "left over", 1, 5},
      {'r', 's', 1, 5, "\x01\x01\x00", "\x05garbage", "corrupt snappy", 3, 8},
      {'r', 'q', 1, 5, "\x01", "hello", "unknown compression", 1, 5},
      {'t', 0, 1, 5, "\x05", "hello", "transposed", 1, 5},
      {'x', 0, 1, 5, "\x05", "hello", "unknown chunk type", 1, 5},
      {'p', 0, 3, 0, "", "", "holds no records", 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ThunkyBuffer file = {0}, chunk = {0};
    simpleChunk(&chunk, cases[i].compression,
                (ThunkyBytes){(const uint8_t *)cases[i].sizes, cases[i].sizesLength},
                (ThunkyBytes){(const uint8_t *)cases[i].values, cases[i].valuesLength});
    thunkyRiegeliWriteChunk(&file, 's', NULL, 0, 0, 0);
    thunkyRiegeliWriteChunk(&file, cases[i].chunkType, chunk.data, chunk.size,
                            cases[i].numRecords, cases[i].decodedSize);
    expectReadError((ThunkyBytes){file.data, file.size}, THUNKY_DEFAULT_MAX_DECODED_BYTES,
                    cases[i].expected, cases[i].expected);
    thunkyBufferDestroy(&file), thunkyBufferDestroy(&chunk);
  }
  /* A chunk header claiming more data than the file has. */
  ThunkyBuffer file = {0};
  thunkyRiegeliWriteChunk(&file, 's', NULL, 0, 0, 0);
  thunkyRiegeliWriteChunk(&file, 'r', "\0\0", 2, 0, 0);
  thunkyStoreU64(file.data + 64 + 8, 1ull << 50);
  thunkyStoreU64(file.data + 64, thunkyHighwayHash64(thunkyRiegeliHashKey, file.data + 72, 32));
  expectReadError((ThunkyBytes){file.data, file.size}, UINT64_MAX, "run past the end",
                  "data size past the end");
  thunkyBufferDestroy(&file);
  printf("riegeli: %zu lying chunks refused\n", sizeof cases / sizeof cases[0] + 1);
}

/*--- split-proto -----------------------------------------------------------*/

/* A riegeli file of a hand-made manifest and records. */
static void splitFile(ThunkyBuffer *out, Xla__Record **kinds, size_t nKinds,
                      const char *type, const ThunkyBytes *records, size_t count) {
  Xla__SplitProtoManifest m = XLA__SPLIT_PROTO_MANIFEST__INIT;
  char typeName[64];
  snprintf(typeName, sizeof typeName, "%s", type);
  m.result_proto_type = typeName;
  m.n_records = nKinds;
  m.records = kinds;
  uint8_t manifest[256];
  size_t size = xla__split_proto_manifest__pack(&m, manifest);
  ThunkyBytes all[8] = {{manifest, size}};
  for (size_t i = 0; i < count; i++)
    all[i + 1] = records[i];
  ThunkyError e;
  thunkyRiegeliWrite(all, count + 1, THUNKY_COMPRESSION_NONE, out, &e);
}

static void expectMergeError(ThunkyBuffer *file, const char *expected) {
  ThunkyRecordFile f;
  ThunkyBuffer merged = {0};
  ThunkyError e = {{0}};
  bool read = thunkyRiegeliRead(file->data, file->size, UINT64_MAX, &f, &e);
  CHECK(read, "%s", e.message);
  if (!read)
    return;
  bool ok = thunkySplitProtoMerge(&f, &merged, &e);
  CHECK(!ok && strstr(e.message, expected), "got \"%s\", want \"%s\"", ok ? "success" : e.message,
        expected);
  thunkyRecordFileDestroy(&f), thunkyBufferDestroy(&merged), thunkyBufferDestroy(file);
}

static void testSplitProtoBadManifests(void) {
  Xla__Record__ProtoMergeRecord merge = XLA__RECORD__PROTO_MERGE_RECORD__INIT;
  Xla__Record mergeKind = XLA__RECORD__INIT;
  mergeKind.record_type_case = XLA__RECORD__RECORD_TYPE_PROTO_MERGE_RECORD;
  mergeKind.proto_merge_record = &merge;
  Xla__Record *fiveMerges[5] = {&mergeKind, &mergeKind, &mergeKind, &mergeKind, &mergeKind};
  ThunkyBytes two[2] = {{(const uint8_t *)"", 0}, {(const uint8_t *)"", 0}};
  ThunkyBuffer file = {0};
  splitFile(&file, fiveMerges, 5, THUNKY_SPLIT_EXECUTABLE_TYPE, two, 2);
  expectMergeError(&file, "describes 5 records, the file holds 2");

  /* An override of a nested field path, which XLA does not support. */
  Xla__Record__FieldOverrideRecord__FieldPathPart parts[2] = {
      XLA__RECORD__FIELD_OVERRIDE_RECORD__FIELD_PATH_PART__INIT,
      XLA__RECORD__FIELD_OVERRIDE_RECORD__FIELD_PATH_PART__INIT};
  parts[0].has_field_number = parts[1].has_field_number = 1;
  parts[0].field_number = 1, parts[1].field_number = 2;
  Xla__Record__FieldOverrideRecord__FieldPathPart *path[2] = {&parts[0], &parts[1]};
  Xla__Record__FieldOverrideRecord o = XLA__RECORD__FIELD_OVERRIDE_RECORD__INIT;
  o.n_field_path = 2, o.field_path = path;
  o.has_field_type = 1;
  o.field_type = XLA__RECORD__FIELD_OVERRIDE_RECORD__FIELD_DESCRIPTOR_TYPE__TYPE_STRING;
  Xla__Record overrideKind = XLA__RECORD__INIT;
  overrideKind.record_type_case = XLA__RECORD__RECORD_TYPE_FIELD_OVERRIDE_RECORD;
  overrideKind.field_override_record = &o;
  Xla__Record *kinds[1] = {&overrideKind};
  splitFile(&file, kinds, 1, THUNKY_SPLIT_EXECUTABLE_TYPE, two, 1);
  expectMergeError(&file, "field path");

  o.n_field_path = 1;
  o.field_type = XLA__RECORD__FIELD_OVERRIDE_RECORD__FIELD_DESCRIPTOR_TYPE__TYPE_UNKNOWN;
  splitFile(&file, kinds, 1, THUNKY_SPLIT_EXECUTABLE_TYPE, two, 1);
  expectMergeError(&file, "only strings");

  Xla__Record empty = XLA__RECORD__INIT;
  Xla__Record *untyped[1] = {&empty};
  splitFile(&file, untyped, 1, THUNKY_SPLIT_EXECUTABLE_TYPE, two, 1);
  expectMergeError(&file, "no record type");

  /* Record 0 that is no manifest. */
  ThunkyBytes notManifest = {(const uint8_t *)"\x0a\x05hi", 4};
  ThunkyError e;
  thunkyRiegeliWrite(&notManifest, 1, THUNKY_COMPRESSION_NONE, &file, &e);
  expectMergeError(&file, "not a SplitProtoManifest");
  printf("split-proto: 5 bad manifests refused\n");
}

/*--- layerings ---------------------------------------------------------------*/

/* A small executable: with every field the split writer treats specially,
 * or (not `full`) with none of them, so that every split record is empty
 * but the last. */
static void sampleExecutable(ThunkyBuffer *out, bool full) {
  Xla__Gpu__GpuExecutableProto exe = XLA__GPU__GPU_EXECUTABLE_PROTO__INIT;
  Xla__Gpu__GpuExecutableProto__ConstantInfoProto c[2] = {
      XLA__GPU__GPU_EXECUTABLE_PROTO__CONSTANT_INFO_PROTO__INIT,
      XLA__GPU__GPU_EXECUTABLE_PROTO__CONSTANT_INFO_PROTO__INIT};
  Xla__Gpu__GpuExecutableProto__ConstantInfoProto *cs[2] = {&c[0], &c[1]};
  static uint8_t cubin[70000];
  fillRandom(cubin, sizeof cubin);
  static char names[2][16] = {"buffer_for_c0", "buffer_for_c1"}, ptx[] = "// ptx",
              module[] = "sample";
  c[0].symbol_name = names[0];
  c[1].symbol_name = names[1];
  exe.has_asm_text = 1;
  exe.asm_text = (ProtobufCBinaryData){sizeof ptx - 1, (uint8_t *)ptx};
  exe.has_binary = 1;
  exe.binary = (ProtobufCBinaryData){sizeof cubin, cubin};
  exe.n_constants = 2, exe.constants = cs;
  exe.module_name = module;
  if (!full) {
    exe.has_asm_text = 0, exe.has_binary = 0, exe.n_constants = 0;
  }
  size_t size = xla__gpu__gpu_executable_proto__get_packed_size(&exe);
  xla__gpu__gpu_executable_proto__pack(&exe, thunkyBufferExtend(out, size));
}

/* Parses and re-packs: the split-proto order of fields is not canonical. */
static void canonical(ThunkyBytes in, ThunkyBuffer *out) {
  Xla__Gpu__GpuExecutableProto *exe =
      xla__gpu__gpu_executable_proto__unpack(NULL, in.size, in.data);
  if (!exe)
    return;
  size_t size = xla__gpu__gpu_executable_proto__get_packed_size(exe);
  xla__gpu__gpu_executable_proto__pack(exe, thunkyBufferExtend(out, size));
  xla__gpu__gpu_executable_proto__free_unpacked(exe, NULL);
}

static void testLayerings(bool full) {
  ThunkyBuffer exe = {0}, metadata = {0};
  sampleExecutable(&exe, full);
  Xla__Ifrt__SerializedXlaExecutableMetadata m =
      XLA__IFRT__SERIALIZED_XLA_EXECUTABLE_METADATA__INIT;
  static char runtime[] = "pjrt_ifrt", computation[] = "jit_f";
  m.runtime_name = runtime;
  m.computation_name = computation;
  size_t size = xla__ifrt__serialized_xla_executable_metadata__get_packed_size(&m);
  xla__ifrt__serialized_xla_executable_metadata__pack(&m, thunkyBufferExtend(&metadata, size));
  const uint8_t options[] = {0x1a, 0x03, 'a', 'b', 'c'}; /* pjrt_client_name = "abc" */
  for (int l = 0; l < THUNKY_LAYERING_COUNT; l++) {
    ThunkyContainer in = {.layering = (ThunkyLayering)l, .executable = {exe.data, exe.size}};
    if (thunkyLayeringHasOptions(in.layering))
      in.options = (ThunkyBytes){options, sizeof options};
    if (thunkyLayeringHasEnvelope(in.layering))
      in.metadata = (ThunkyBytes){metadata.data, metadata.size};
    ThunkyBuffer file = {0}, back = {0};
    ThunkyContainer found;
    ThunkyError e = {{0}};
    const char *name = thunkyLayeringName(in.layering);
    bool ok = thunkyContainerWrite(&in, THUNKY_COMPRESSION_SNAPPY, &file, &e) &&
              thunkyContainerCreate(file.data, file.size, NULL, &found, &e);
    CHECK(ok, "%s: %s", name, e.message);
    if (!ok)
      continue;
    canonical(found.executable, &back);
    CHECK(found.layering == in.layering, "%s read back as %s", name,
          thunkyLayeringName(found.layering));
    CHECK(back.size == exe.size && !memcmp(back.data, exe.data, exe.size),
          "%s: the executable differs", name);
    CHECK(found.options.size == in.options.size &&
              (!in.options.size || !memcmp(found.options.data, options, sizeof options)),
          "%s: the options differ", name);
    CHECK(found.metadata.size == in.metadata.size &&
              (!in.metadata.size || !memcmp(found.metadata.data, metadata.data, metadata.size)),
          "%s: the metadata differs", name);
    /* Written again from what was found: the same bytes. */
    ThunkyBuffer again = {0};
    CHECK(thunkyContainerWrite(&found, THUNKY_COMPRESSION_SNAPPY, &again, &e) &&
              again.size == file.size && !memcmp(again.data, file.data, file.size),
          "%s: rewriting changed the bytes", name);
    thunkyContainerDestroy(&found);
    thunkyBufferDestroy(&file), thunkyBufferDestroy(&back), thunkyBufferDestroy(&again);
  }
  printf("layerings: all %d written, detected and read back (%s executable)\n",
         THUNKY_LAYERING_COUNT, full ? "full" : "minimal");

  /* An envelope whose length prefix runs past the data is no envelope. */
  ThunkyBuffer bad = {0};
  thunkyBufferAppendVarint(&bad, 1000);
  thunkyBufferAppend(&bad, metadata.data, metadata.size);
  ThunkyContainer found;
  ThunkyError e;
  CHECK(!thunkyContainerCreate(bad.data, bad.size, NULL, &found, &e) &&
            strstr(e.message, "not a GpuExecutableProto") == e.message,
        "an overlong envelope prefix is no envelope: the bytes are refused as an executable");
  thunkyBufferDestroy(&bad);
  /* A real envelope around bytes that are no PJRT executable. */
  thunkyBufferAppendVarint(&bad, metadata.size);
  thunkyBufferAppend(&bad, metadata.data, metadata.size);
  thunkyBufferAppend(&bad, "\x0a\x03xyz", 5);
  CHECK(!thunkyContainerCreate(bad.data, bad.size, NULL, &found, &e) &&
            strstr(e.message, "IFRT envelope") && strstr(e.message, "not a split-proto"),
        "got \"%s\"", e.message);
  thunkyBufferDestroy(&bad), thunkyBufferDestroy(&exe), thunkyBufferDestroy(&metadata);
}

/* thunkyMessagePacksWell agrees with thunkyValidateWire on the packed bytes:
 * shapes nested around the depth limit, and unknown fields good and bad. */
static bool packsAndChecks(const ProtobufCMessage *msg) {
  size_t size = protobuf_c_message_get_packed_size(msg);
  uint8_t *bytes = malloc(size + 1);
  protobuf_c_message_pack(msg, bytes);
  bool ok = thunkyValidateWire(msg->descriptor, bytes, size, NULL);
  free(bytes);
  return ok;
}

static void testPacksWell(void) {
  int before = failures;
  enum { DEEPEST = THUNKY_MAX_NESTING + 3 };
  static Xla__ShapeProto shapes[DEEPEST];
  static Xla__ShapeProto *inner[DEEPEST];
  for (int depth = THUNKY_MAX_NESTING - 1; depth < DEEPEST; depth++) {
    for (int i = 0; i < depth; i++) {
      xla__shape_proto__init(&shapes[i]);
      inner[i] = &shapes[i + 1];
      shapes[i].n_tuple_shapes = 1, shapes[i].tuple_shapes = &inner[i];
    }
    xla__shape_proto__init(&shapes[depth]);
    bool well = thunkyMessagePacksWell(&shapes[0].base), checks = packsAndChecks(&shapes[0].base);
    CHECK(well == checks && well == (depth <= THUNKY_MAX_NESTING),
          "nesting %d: packs well %d, wire check %d", depth, well, checks);
  }
  uint8_t value[] = {3, 'a', 'b', 'c'}, lying[] = {9, 'a', 'b', 'c'};
  struct {
    uint32_t tag;
    ProtobufCWireType type;
    const uint8_t *data;
    size_t len;
    bool good;
  } cases[] = {{1000, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, value, 4, true},
               {1000, PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED, lying, 4, false},
               {0, PROTOBUF_C_WIRE_TYPE_VARINT, value, 1, false},
               {1000, PROTOBUF_C_WIRE_TYPE_32BIT, value, 3, false}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    Xla__ShapeProto shape;
    xla__shape_proto__init(&shape);
    ProtobufCMessageUnknownField u = {cases[i].tag, cases[i].type, cases[i].len,
                                      (uint8_t *)(uintptr_t)cases[i].data};
    shape.base.n_unknown_fields = 1, shape.base.unknown_fields = &u;
    bool well = thunkyMessagePacksWell(&shape.base), checks = packsAndChecks(&shape.base);
    CHECK(well == cases[i].good && (!well || checks), "unknown field case %zu: packs well %d, "
          "wire check %d", i, well, checks);
  }
  report("packs well", before);
}

int main(void) {
  testHighwayHashReferenceValues();
  testPacksWell();
  testHighwayHashMatchesLibrary();
  testSnappyCompressor();
  testSignature();
  testRoundTrip();
  testBlockBoundaries();
  testZstdAndBrotli();
  testCorruption();
  testLyingChunks();
  testSplitProtoBadManifests();
  testLayerings(true);
  testLayerings(false);
  printf("%s: %d failures\n", failures ? "FAILED" : "passed", failures);
  return failures != 0;
}
