/*===- limits.c - bounds on what thunky reads ---------------------------===*/
#include "thunky-c/base/Limits.h"

#include <stddef.h>
#include <string.h>

ThunkyLimits thunkyLimitsDefault(void) {
  return (ThunkyLimits){.maxDecodedBytes = THUNKY_DEFAULT_MAX_DECODED_BYTES,
                        .maxThunks = THUNKY_DEFAULT_MAX_THUNKS,
                        .maxAllocationBytes = THUNKY_DEFAULT_MAX_ALLOCATION_BYTES,
                        .maxAllocations = THUNKY_DEFAULT_MAX_ALLOCATIONS,
                        .maxNesting = THUNKY_DEFAULT_MAX_NESTING};
}

bool thunkyParseAmount(const char *value, bool bytes, uint64_t *out) {
  uint64_t v = 0;
  const char *p = value;
  if (!p || *p < '0' || *p > '9')
    return false;
  for (; *p >= '0' && *p <= '9'; p++) {
    unsigned digit = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - digit) / 10)
      return false;
    v = v * 10 + digit;
  }
  static const char suffixes[] = "KMGT";
  const char *s = *p && bytes ? strchr(suffixes, *p) : NULL;
  if (s) {
    unsigned shift = 10 * (unsigned)(s - suffixes + 1);
    if (v > UINT64_MAX >> shift)
      return false;
    v <<= shift;
    p++;
  }
  if (*p || v == 0)
    return false;
  *out = v;
  return true;
}

bool thunkyLimitsSet(ThunkyLimits *limits, const char *name, const char *value,
                     ThunkyError *error) {
  static const struct {
    const char *name;
    size_t offset;
    bool bytes;
  } known[] = {
      {"max-decoded-bytes", offsetof(ThunkyLimits, maxDecodedBytes), true},
      {"max-thunks", offsetof(ThunkyLimits, maxThunks), false},
      {"max-allocation-bytes", offsetof(ThunkyLimits, maxAllocationBytes), true},
      {"max-allocations", offsetof(ThunkyLimits, maxAllocations), false},
      {"max-nesting", offsetof(ThunkyLimits, maxNesting), false},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    if (strcmp(name, known[i].name))
      continue;
    uint64_t v;
    if (!thunkyParseAmount(value, known[i].bytes, &v))
      return thunkyErrorf(error, "%s: '%s' is not a positive %s", name, value ? value : "",
                          known[i].bytes ? "byte count (K, M, G, T suffixes allowed)" : "count");
    memcpy((char *)limits + known[i].offset, &v, sizeof v);
    return true;
  }
  return thunkyErrorf(error, "unknown limit '%s'", name);
}
