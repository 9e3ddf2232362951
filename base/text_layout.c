/*===- text_layout.c - long func.func signatures, one argument a line ----===*
 *
 * A stream filter: it decides at the start of each line, from the first
 * few bytes, whether the line is a func.func; only such a line is held
 * until its end, so a resource trailer of hundreds of megabytes goes
 * straight through. A held line is scanned once: its argument list's
 * commas at the outermost level are where it breaks.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/base/TextLayout.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char kFunc[] = "func.func ";
enum { FUNC_LEN = sizeof kFunc - 1 };
/* Deeper than this is no printer's indentation: such a line goes through. */
enum { MAX_INDENT = 1024 };

typedef enum { LINE_START, PASS, HOLD } Mode;

struct ThunkyTextLayout {
  size_t width;
  ThunkyTextSink sink;
  void *userData;
  Mode mode;
  size_t matched; /* bytes of kFunc seen at the line's start */
  char *held;
  size_t size, capacity;
};

ThunkyTextLayout *thunkyTextLayoutCreate(size_t width, ThunkyTextSink sink, void *userData) {
  ThunkyTextLayout *layout = calloc(1, sizeof *layout);
  if (!layout)
    return NULL;
  layout->width = width;
  layout->sink = sink;
  layout->userData = userData;
  return layout;
}

static void emit(ThunkyTextLayout *layout, const char *bytes, size_t size) {
  if (size)
    layout->sink(bytes, size, layout->userData);
}

static void release(ThunkyTextLayout *layout) {
  emit(layout, layout->held, layout->size);
  layout->size = 0;
}

static bool hold(ThunkyTextLayout *layout, const char *bytes, size_t size) {
  if (layout->capacity - layout->size < size) {
    size_t capacity = layout->capacity ? layout->capacity : 256;
    while (capacity - layout->size < size) {
      if (capacity > (size_t)-1 / 2)
        return false;
      capacity *= 2;
    }
    char *grown = realloc(layout->held, capacity);
    if (!grown)
      return false;
    layout->held = grown;
    layout->capacity = capacity;
  }
  memcpy(layout->held + layout->size, bytes, size);
  layout->size += size;
  return true;
}

/* Past the string that starts at line[i] (a '"'): MLIR escapes a quote and
 * a backslash with a backslash. */
static size_t skipString(const char *line, size_t size, size_t i) {
  for (i++; i < size && line[i] != '"'; i++)
    i += line[i] == '\\';
  return i;
}

/* +1 for an opening bracket at line[i], -1 for a closing one ("->" is an
 * arrow), 0 otherwise. */
static int bracket(const char *line, size_t i) {
  switch (line[i]) {
  case '(': case '[': case '{': case '<': return 1;
  case ')': case ']': case '}': return -1;
  case '>': return i > 0 && line[i - 1] == '-' ? 0 : -1;
  default: return 0;
  }
}

static void pad(ThunkyTextLayout *layout, size_t column) {
  static const char spaces[] = "                                ";
  while (column) {
    size_t n = column < sizeof spaces - 1 ? column : sizeof spaces - 1;
    emit(layout, spaces, n);
    column -= n;
  }
}

/* Writes the held func.func line, one argument a line when it is longer
 * than the width; as it is when it has no argument list to break. */
static void layOut(ThunkyTextLayout *layout) {
  const char *line = layout->held;
  size_t size = layout->size, open = 0, close = 0, depth = 0, commas = 0;
  /* The argument list: the first bracket outside a string (a symbol may be
   * quoted), a '(', up to its match. */
  for (size_t i = 0; size > layout->width && i < size && !close; i++) {
    if (line[i] == '"') {
      i = skipString(line, size, i);
    } else if (bracket(line, i) > 0) {
      if (!depth && line[i] != '(')
        break;
      if (!depth++)
        open = i;
    } else if (bracket(line, i) < 0) {
      if (!depth)
        break;
      if (!--depth)
        close = i;
    } else if (line[i] == ',' && depth == 1) {
      commas++;
    }
  }
  if (!close || !commas) {
    release(layout);
    return;
  }
  size_t start = 0;
  long nested = 0;
  for (size_t i = open + 1; i < close; i++) {
    if (line[i] == '"') {
      i = skipString(line, size, i);
    } else if (bracket(line, i)) {
      nested += bracket(line, i);
    } else if (line[i] == ',' && !nested) {
      emit(layout, line + start, i + 1 - start);
      emit(layout, "\n", 1);
      pad(layout, open + 1);
      for (start = i + 1; line[start] == ' '; start++)
        ;
    }
  }
  emit(layout, line + start, size - start);
  layout->size = 0;
}

void thunkyTextLayoutWrite(ThunkyTextLayout *layout, const char *bytes, size_t size) {
  while (size) {
    if (layout->mode == PASS) {
      const char *end = memchr(bytes, '\n', size);
      size_t n = end ? (size_t)(end - bytes) + 1 : size;
      emit(layout, bytes, n);
      bytes += n, size -= n;
      if (end)
        layout->mode = LINE_START, layout->matched = 0;
    } else if (layout->mode == HOLD) {
      const char *end = memchr(bytes, '\n', size);
      size_t n = end ? (size_t)(end - bytes) : size;
      if (!hold(layout, bytes, n)) {
        release(layout);
        layout->mode = PASS;
        continue;
      }
      bytes += n, size -= n;
      if (end) {
        layOut(layout);
        layout->mode = PASS; /* which writes the newline */
      }
    } else {
      /* A byte at a time, only until the line's first word tells. */
      char c = *bytes;
      bool indenting = layout->matched == 0 && c == ' ' && layout->size < MAX_INDENT;
      bool matching = layout->matched < FUNC_LEN && kFunc[layout->matched] == c;
      if ((indenting || matching) && hold(layout, bytes, 1)) {
        bytes++, size--;
        layout->matched += matching;
        if (layout->matched == FUNC_LEN)
          layout->mode = HOLD;
      } else {
        release(layout);
        layout->mode = PASS;
      }
    }
  }
}

void thunkyTextLayoutDestroy(ThunkyTextLayout *layout) {
  if (!layout)
    return;
  if (layout->mode == HOLD)
    layOut(layout);
  else
    release(layout);
  free(layout->held);
  free(layout);
}
