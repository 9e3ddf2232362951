/*===- snappy_compress.h - the snappy compressor riegeli's writer uses --===*/
#ifndef THUNKY_FORMAT_SNAPPY_COMPRESS_H
#define THUNKY_FORMAT_SNAPPY_COMPRESS_H

#include "thunky-c/format/Wire.h"

/* Appends data[0, size) to `out` as a snappy stream, compressed as snappy's
 * level 2 does it; false when out of memory or over snappy's 4 GiB. */
bool thunkySnappyCompress(const uint8_t *data, size_t size, ThunkyBuffer *out);

#endif
