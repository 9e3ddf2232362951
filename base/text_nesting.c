/*===- text_nesting.c - how deep MLIR text nests, before MLIR parses it -===*
 *
 * MLIR's parser recurses once per nested region, attribute, type or
 * location, so text nested thousands deep overflows its stack. One pass
 * over the bytes finds that first: brackets outside strings and comments,
 * each kind counted on its own so that a stray closer of one kind cannot
 * hide openers of another.
 *
 *===--------------------------------------------------------------------===*/
#include "thunky-c/base/Limits.h"

#include <inttypes.h>
#include <string.h>

enum { CURLY, SQUARE, ROUND, ANGLE, KINDS };

static int openerKind(char c) {
  switch (c) {
  case '{': return CURLY;
  case '[': return SQUARE;
  case '(': return ROUND;
  case '<': return ANGLE;
  default: return -1;
  }
}

static int closerKind(char c) {
  switch (c) {
  case '}': return CURLY;
  case ']': return SQUARE;
  case ')': return ROUND;
  case '>': return ANGLE;
  default: return -1;
  }
}

bool thunkyValidateTextNesting(const char *text, size_t size, const char *name,
                            uint64_t maxNesting, const char *flag, ThunkyError *error) {
  /* Bytecode has its own reader. */
  if (size >= 4 && !memcmp(text, "ML\xEFR", 4))
    return true;
  uint64_t open[KINDS] = {0}, depth = 0, line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < size; i++) {
    char c = text[i];
    if (c == '\n') {
      line++, lineStart = i + 1;
    } else if (c == '"') {
      /* MLIR strings end at the line's end at the latest. */
      for (i++; i < size && text[i] != '"' && text[i] != '\n'; i++)
        i += text[i] == '\\' && i + 1 < size && text[i + 1] != '\n';
      if (i < size && text[i] == '\n')
        i--;
    } else if (c == '/' && i + 1 < size && text[i + 1] == '/') {
      while (i + 1 < size && text[i + 1] != '\n')
        i++;
    } else if (openerKind(c) >= 0) {
      open[openerKind(c)]++;
      if (++depth > maxNesting)
        return thunkyErrorf(error,
                            "%s:%" PRIu64 ":%zu: error: nested more than %" PRIu64
                            " deep (the max-nesting limit; %s raises it)",
                            name, line, i - lineStart + 1, maxNesting, flag);
    } else if (closerKind(c) >= 0) {
      /* "->" is an arrow, not a closer. */
      int kind = closerKind(c);
      if (open[kind] && !(kind == ANGLE && i > 0 && text[i - 1] == '-'))
        open[kind]--, depth--;
    }
  }
  return true;
}
