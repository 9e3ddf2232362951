/*===- highwayhash.h - 64-bit HighwayHash for riegeli's checksums -------===*
 *
 * Riegeli protects every block header, chunk header and chunk payload with a
 * 64-bit HighwayHash under a fixed key. This is a portable implementation of
 * the published algorithm, so the container code needs no C++ library and
 * links statically into thunky-run.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_TRANSLATE_HIGHWAYHASH_H
#define THUNKY_TRANSLATE_HIGHWAYHASH_H

#include <stddef.h>
#include <stdint.h>

/* HighwayHash64 of data[0, size) under the 256-bit key. */
uint64_t thunkyHighwayHash64(const uint64_t key[4], const void *data, size_t size);

/* The key riegeli uses: "Riegeli/records\n" twice, as four little-endian
 * 64-bit words. */
extern const uint64_t thunkyRiegeliHashKey[4];

#endif /* THUNKY_TRANSLATE_HIGHWAYHASH_H */
