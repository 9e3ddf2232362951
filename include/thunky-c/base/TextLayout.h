/*===- thunky-c/base/TextLayout.h - how thunky's tools lay out MLIR text -----===*
 *
 * func.func prints its whole signature on one line, and MLIR has no hook to
 * change that: an executable's @main with a hundred allocations is a 10 KB
 * line, and one with 80,000 parameters is 10 MB. thunky-translate and
 * thunky-opt pass the text they print through a layout that puts each
 * argument of a signature longer than THUNKY_TEXT_LINE_LIMIT on its own
 * line. MLIR's parser reads both spellings alike; nothing but whitespace
 * changes.
 *
 *===--------------------------------------------------------------------===*/
#ifndef THUNKY_C_TEXTLAYOUT_H
#define THUNKY_C_TEXTLAYOUT_H

#include "thunky-c/Export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The width past which thunky's tools fold a signature. A line this long
 * is unreadable; anything shorter prints exactly as stock mlir-opt-22 with
 * the plugin prints it, upstream's own modules included. (The dialect folds
 * an op's property dictionary past 200 bytes itself, in every tool.) */
#define THUNKY_TEXT_LINE_LIMIT 1024

typedef void (*ThunkyTextSink)(const char *bytes, size_t size, void *userData);

typedef struct ThunkyTextLayout ThunkyTextLayout;

/* A layout that writes the text given to it through `sink`, each func.func
 * signature longer than `width` one argument per line, aligned under the
 * first. Holds back only such a line until its end; every other byte goes
 * through as it comes. NULL when memory runs out. */
THUNKY_EXPORT ThunkyTextLayout *thunkyTextLayoutCreate(size_t width, ThunkyTextSink sink,
                                                       void *userData);

/* Lays out and writes the next `size` bytes of text. If memory runs out,
 * the line being held goes out as it is: nothing is ever lost. */
THUNKY_EXPORT void thunkyTextLayoutWrite(ThunkyTextLayout *layout, const char *bytes, size_t size);

/* Writes whatever is still held back, and frees `layout` (NULL is a no-op). */
THUNKY_EXPORT void thunkyTextLayoutDestroy(ThunkyTextLayout *layout);

#ifdef __cplusplus
}
#endif

#endif /* THUNKY_C_TEXTLAYOUT_H */
