/*===- in_place.h - a tool that writes over its own input -------------===*/
#ifndef THUNKY_TOOLS_IN_PLACE_H
#define THUNKY_TOOLS_IN_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The path a tool that reads `input` writes `output` through: `output`
 * itself, or, when the two name one existing file, "<output>.partial".
 * The tools map their input and read it while they write, so truncating
 * it first would pull the pages out from under them. The result is in
 * `buffer`; false when it does not fit. */
bool toolWritePath(const char *input, const char *output, char *buffer, size_t size);

/* Moves what was written to `written` over `output`, where they differ;
 * false, with errno set, when the rename fails. */
bool toolFinishWrite(const char *written, const char *output);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_TOOLS_IN_PLACE_H */
