/*===- fuzz_riegeli.c - the riegeli reader -------------------------------===*
 *
 * Two ways in. Raw bytes reach the signature and header checks; but every
 * header and chunk carries a hash, so raw mutations rarely get further. The
 * other way builds a file from the input with correct hashes (chunk type,
 * record count, decoded size and data all fuzzed), which takes the fuzzer
 * into record-size tables and decompression.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/format/Riegeli.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Small, so that a claimed size past it is refused, not allocated. */
enum { MAX_DECODED = 16 << 20 };

static uint64_t take(const uint8_t **data, size_t *size, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes && *size; i++, (*data)++, (*size)--)
    v |= (uint64_t)**data << (8 * i);
  return v;
}

static void readAll(const void *data, size_t size) {
  ThunkyRecordFile file;
  ThunkyError error;
  if (thunkyRiegeliRead(data, size, MAX_DECODED, &file, &error))
    thunkyRecordFileDestroy(&file);
}

/* Chunks of: type (1 byte), records (2), decoded size (3), data length (2),
 * data. The signature chunk comes first, as the writer puts it. */
static void readBuilt(const uint8_t *data, size_t size) {
  ThunkyBuffer file = {0};
  if (!thunkyRiegeliWriteChunk(&file, 's', NULL, 0, 0, 0))
    return;
  while (size && !file.failed) {
    uint8_t type = (uint8_t)take(&data, &size, 1);
    uint64_t records = take(&data, &size, 2), decoded = take(&data, &size, 3);
    size_t length = (size_t)take(&data, &size, 2);
    if (length > size)
      length = size;
    thunkyRiegeliWriteChunk(&file, type, data, length, records, decoded);
    data += length, size -= length;
  }
  if (!file.failed)
    readAll(file.data, file.size);
  thunkyBufferDestroy(&file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size && data[0] == 'B')
    readBuilt(data + 1, size - 1);
  else
    readAll(data, size);
  return 0;
}
