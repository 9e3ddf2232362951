/*===- thunky-c/base/Json.h - strings in the JSON thunky prints --------------===*
 *
 * thunky-run's traces and the passes' json=true reports carry names that
 * may hold quotes or control characters (annotations, roles, locations);
 * one escaper keeps every such document valid JSON.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_JSON_H
#define THUNKY_C_JSON_H

#include "thunky-c/Export.h"

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes data[0, size) as the body of a JSON string (no quotes around it):
 * quotes, backslashes and control characters escaped. */
THUNKY_EXPORT void thunkyJsonWriteString(FILE *f, const char *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_JSON_H */
