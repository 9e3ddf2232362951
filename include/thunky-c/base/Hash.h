/*===- thunky-c/base/Hash.h - HighwayHash, and a hash for keying by content ---===*
 *
 * One hash for everything thunky keys by content (kernel code, constants,
 * byte strings) and for riegeli's chunk hashes, which are HighwayHash64
 * under riegeli's key.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_HASH_H
#define THUNKY_C_HASH_H

#include "thunky-c/Export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* HighwayHash64 of data[0, size) under the 256-bit key. */
THUNKY_EXPORT uint64_t thunkyHighwayHash64(const uint64_t key[4], const void *data, size_t size);

/* The key riegeli uses: "Riegeli/records\n" twice, as four little-endian
 * 64-bit words. */
THUNKY_EXPORT extern const uint64_t thunkyRiegeliHashKey[4];

/* A 64-bit hash of data[0, size), for keying a map by content (callers
 * compare the bytes on a hit). */
THUNKY_EXPORT uint64_t thunkyHashBytes(const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_HASH_H */
