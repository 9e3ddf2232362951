/*===- memory_plot.c - live bytes over the thunks, stacked by role ------===*
 *
 * thunky-memory-report's svg=<path>: live bytes over the thunks as bands
 * stacked by what they hold (constants, parameters, outputs, scratch...),
 * the total as a line over them, the peak marked, and a legend with each
 * band's bytes at the peak, so the picture says what the peak is made of.
 *
 * The thunks go into at most PLOT_COLUMNS columns. A column stands for the
 * first thunk where its thunks' live bytes are largest, and its bands are
 * that thunk's, so no peak is smoothed away and every column is the stack
 * of one real thunk. The peak's column stands for the peak's thunk. Bands
 * come from the spans by difference arrays over the columns, so the work
 * is linear in thunks and spans, and the document's size is bounded by
 * the columns, not by the thunks.
 *
 *===--------------------------------------------------------------------===*/
#include "memory_plot.h"

#include <inttypes.h>
#include <stdlib.h>

enum { PLOT_COLUMNS = 1000 };

enum {
  SVG_WIDTH = 1200, SVG_HEIGHT = 500,
  LEFT = 100, RIGHT = 250, TOP = 50, BOTTOM = 60, /* the plot's margins */
  LEGEND_ROW = 20,
};

static const double WIDTH = SVG_WIDTH - LEFT - RIGHT, HEIGHT = SVG_HEIGHT - TOP - BOTTOM;
static const double BASE = SVG_HEIGHT - BOTTOM; /* the y of 0 bytes */

/* Bottom to top: what is live from the start, then outputs, then scratch,
 * whose lifetimes vary most, so the changes show at the top. */
static const int STACK[THUNKY_HOLDS_KINDS] = {
    THUNKY_HOLDS_CONSTANT, THUNKY_ROLE_PARAMETER, THUNKY_ROLE_PARAMETER_OUTPUT,
    THUNKY_ROLE_NONE,      THUNKY_ROLE_OTHER,     THUNKY_ROLE_OUTPUT,
    THUNKY_ROLE_SCRATCH,   THUNKY_ROLE_THREAD_LOCAL_SCRATCH,
};

static const char *const NAMES[THUNKY_HOLDS_KINDS] = {
    [THUNKY_ROLE_NONE] = "no role",
    [THUNKY_ROLE_PARAMETER] = "parameters",
    [THUNKY_ROLE_PARAMETER_OUTPUT] = "aliased outputs", /* "parameter N, output {i}" */
    [THUNKY_ROLE_OUTPUT] = "outputs",
    [THUNKY_ROLE_SCRATCH] = "scratch",
    [THUNKY_ROLE_THREAD_LOCAL_SCRATCH] = "thread-local scratch",
    [THUNKY_ROLE_OTHER] = "other roles",
    [THUNKY_HOLDS_CONSTANT] = "constants",
};

static const char *const COLORS[THUNKY_HOLDS_KINDS] = {
    [THUNKY_ROLE_NONE] = "#bcbd22",
    [THUNKY_ROLE_PARAMETER] = "#1f77b4",
    [THUNKY_ROLE_PARAMETER_OUTPUT] = "#17becf",
    [THUNKY_ROLE_OUTPUT] = "#2ca02c",
    [THUNKY_ROLE_SCRATCH] = "#ff7f0e",
    [THUNKY_ROLE_THREAD_LOCAL_SCRATCH] = "#9467bd",
    [THUNKY_ROLE_OTHER] = "#8c564b",
    [THUNKY_HOLDS_CONSTANT] = "#7f7f7f",
};

static const char *const UNITS[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};

void thunkyHumanBytes(int64_t bytes, char *out, size_t size) {
  double value = (double)bytes;
  int unit = 0;
  for (; unit < 4 && value >= 1024; ++unit)
    value /= 1024;
  if (unit == 0)
    snprintf(out, size, "%" PRId64 " bytes", bytes);
  else
    snprintf(out, size, "%.1f %s", value, UNITS[unit]);
}

/*--- the axes ------------------------------------------------------------*/

/* The smallest of 1, 2 or 5 times a power of ten that is at least x > 0. */
static double roundStep(double x) {
  double power = 1;
  while (power * 10 <= x)
    power *= 10;
  while (power > x)
    power /= 10;
  return x <= power ? power : x <= 2 * power ? 2 * power : x <= 5 * power ? 5 * power : 10 * power;
}

/* The byte axis: 2 to 4 steps of a round whole number of B, KiB, MiB or
 * GiB up to the peak or just past it; a step that would be a fraction of
 * the peak's unit is taken in the unit below ("0, 500, 1000, 1500 B", not
 * "0, 0.5, 1, 1.5 KiB"). */
typedef struct Scale {
  int64_t unit, step, steps; /* the unit in bytes, the step in units */
  const char *name;
} Scale;

static Scale scaleOf(int64_t peak) {
  static const char *const SHORT[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int64_t bytes = peak > 0 ? peak : 1;
  int u = 0;
  int64_t unit = 1;
  while (u < 4 && bytes / unit >= 1024)
    ++u, unit *= 1024;
  double step = roundStep((double)bytes / (double)unit / 4);
  if (step < 1 && u > 0)
    --u, unit /= 1024, step = roundStep((double)bytes / (double)unit / 4);
  Scale s = {unit, step < 1 ? 1 : (int64_t)step, 0, SHORT[u]};
  int64_t stepBytes = s.step * s.unit;
  s.steps = bytes / stepBytes + (bytes % stepBytes != 0);
  return s;
}

/* Rounded to the tenth of a pixel the document writes, so that equal
 * heights compare equal. */
static double yOf(double bytes, double top) {
  return (double)(int64_t)((BASE - HEIGHT * bytes / top) * 10 + 0.5) / 10;
}

static double xOfThunk(int64_t thunk, int64_t thunks) {
  return LEFT + WIDTH * ((double)thunk + 0.5) / (double)thunks;
}

static void writeAxes(const ThunkyMemoryPlot *p, const Scale *s, FILE *f) {
  fprintf(f, "<path d=\"M%d %d V%.1f H%.1f\" stroke=\"black\" fill=\"none\"/>\n", LEFT, TOP, BASE,
          LEFT + WIDTH);
  for (int64_t k = 0; k <= s->steps; ++k) {
    double y = BASE - HEIGHT * (double)k / (double)s->steps;
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
               "<text class=\"byte-tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%" PRId64
               " %s</text>\n",
            LEFT, y, LEFT + WIDTH, y, LEFT - 6, y + 4, k * s->step, s->name);
  }
  /* At most 10 labels of at most 7 digits over the plot's width. */
  int64_t step = p->thunks > 10 ? (int64_t)roundStep((double)p->thunks / 10) : 1;
  for (int64_t thunk = 0; thunk < p->thunks; thunk += step) {
    double x = xOfThunk(thunk, p->thunks);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>"
               "<text class=\"thunk-tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%" PRId64
               "</text>\n",
            x, BASE, x, BASE + 5, x, BASE + 20, thunk);
  }
  fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">thunk</text>\n", LEFT + WIDTH / 2,
          SVG_HEIGHT - 16);
  fprintf(f, "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">"
             "live bytes</text>\n", TOP + HEIGHT / 2);
}

/*--- the title -----------------------------------------------------------*/

/* The program's name as XML text: printable ASCII, escaped, at most 80
 * characters; any other byte reads '?', so no name makes the document
 * ill-formed. */
static void writeName(MlirStringRef name, FILE *f) {
  size_t n = name.length > 80 ? 77 : name.length;
  for (size_t i = 0; i < n; ++i) {
    char c = name.data[i];
    if (c == '&')
      fputs("&amp;", f);
    else if (c == '<')
      fputs("&lt;", f);
    else if (c == '>')
      fputs("&gt;", f);
    else
      fputc(c >= 0x20 && c < 0x7f ? c : '?', f);
  }
  if (n < name.length)
    fputs("...", f);
}

static void writeTitle(const ThunkyMemoryPlot *p, FILE *f) {
  fprintf(f, "<text class=\"title\" x=\"%d\" y=\"24\" font-size=\"16\">", LEFT);
  if (p->program.length) {
    writeName(p->program, f);
    fputs(": ", f);
  }
  fprintf(f, "live bytes over %" PRId64 " thunk%s</text>\n", p->thunks, p->thunks == 1 ? "" : "s");
}

/*--- the bands -----------------------------------------------------------*/

typedef struct Columns {
  int64_t count;
  int64_t *thunk;  /* the thunk each column stands for */
  int64_t *bytes;  /* [kind * (count + 1) + column]: that thunk's bytes of kind */
  int64_t *sum;    /* scratch for stacking the bands */
  int64_t atPeak[THUNKY_HOLDS_KINDS];
  bool present[THUNKY_HOLDS_KINDS]; /* live somewhere */
} Columns;

/* The column whose thunks hold `thunk`: the last one starting at or
 * before it. */
static int64_t columnOf(int64_t thunk, int64_t columns, int64_t thunks) {
  return ((thunk + 1) * columns - 1) / thunks;
}

static bool fillColumns(const ThunkyMemoryPlot *p, Columns *c) {
  c->count = p->thunks < PLOT_COLUMNS ? p->thunks : PLOT_COLUMNS;
  c->thunk = calloc((size_t)c->count + 1, sizeof *c->thunk);
  c->bytes = calloc((size_t)(c->count + 1) * THUNKY_HOLDS_KINDS, sizeof *c->bytes);
  c->sum = calloc((size_t)c->count + 1, sizeof *c->sum);
  if (!c->thunk || !c->bytes || !c->sum)
    return false;
  for (int64_t k = 0; k < c->count; ++k) {
    int64_t t = k * p->thunks / c->count, end = (k + 1) * p->thunks / c->count;
    c->thunk[k] = t;
    for (; t < end; ++t)
      if (p->live[t] > p->live[c->thunk[k]])
        c->thunk[k] = t;
  }
  for (size_t i = 0; i < p->numSpans; ++i) {
    const ThunkyLiveSpan *s = &p->spans[i];
    if (s->from > s->to || s->bytes == 0)
      continue;
    c->present[s->holds] = true;
    if (s->from <= p->peakThunk && p->peakThunk <= s->to)
      c->atPeak[s->holds] += s->bytes;
    /* The columns whose thunks lie in the span: all between the two that
     * hold its ends, and those two if the thunks they stand for do. */
    int64_t first = columnOf(s->from, c->count, p->thunks);
    int64_t last = columnOf(s->to, c->count, p->thunks);
    first += c->thunk[first] < s->from;
    last -= c->thunk[last] > s->to;
    int64_t *row = c->bytes + (size_t)s->holds * (size_t)(c->count + 1);
    if (first <= last)
      row[first] += s->bytes, row[last + 1] -= s->bytes;
  }
  for (int kind = 0; kind < THUNKY_HOLDS_KINDS; ++kind) {
    int64_t *row = c->bytes + (size_t)kind * (size_t)(c->count + 1);
    for (int64_t k = 1; k < c->count; ++k)
      row[k] += row[k - 1];
  }
  return true;
}

static double xOfColumn(int64_t k, int64_t columns) {
  return LEFT + WIDTH * (double)k / (double)columns;
}

/* Each band is drawn from the axis to its top, topmost first, so the ones
 * below paint over its lower part: one edge a band, and a step edge only
 * where its height changes. */
static void writeBands(const Columns *c, double top, FILE *f) {
  int64_t *sum = c->sum;
  for (int kind = 0; kind < THUNKY_HOLDS_KINDS; ++kind) {
    const int64_t *row = c->bytes + (size_t)kind * (size_t)(c->count + 1);
    for (int64_t k = 0; k < c->count; ++k)
      sum[k] += row[k];
  }
  for (int i = THUNKY_HOLDS_KINDS - 1; i >= 0; --i) {
    int kind = STACK[i];
    if (!c->present[kind])
      continue;
    fprintf(f, "<path class=\"band\" data-holds=\"%s\" fill=\"%s\" d=\"M%d %.1f", NAMES[kind],
            COLORS[kind], LEFT, BASE);
    double previous = -1;
    for (int64_t k = 0; k < c->count; ++k) {
      double y = yOf((double)sum[k], top);
      if (y != previous) {
        if (k)
          fprintf(f, " H%.1f", xOfColumn(k, c->count));
        fprintf(f, " V%.1f", y);
        previous = y;
      }
    }
    fprintf(f, " H%.1f V%.1f Z\"/>\n", LEFT + WIDTH, BASE);
    const int64_t *row = c->bytes + (size_t)kind * (size_t)(c->count + 1);
    for (int64_t k = 0; k < c->count; ++k)
      sum[k] -= row[k];
  }
}

/* The total: the top of the stack, as a line over it. */
static void writeTotal(const ThunkyMemoryPlot *p, const Columns *c, double top, FILE *f) {
  fputs("<polyline fill=\"none\" stroke=\"black\" stroke-width=\"1\" points=\"", f);
  for (int64_t k = 0; k < c->count; ++k) {
    double y = yOf((double)p->live[c->thunk[k]], top);
    fprintf(f, "%s%.1f,%.1f %.1f,%.1f", k ? " " : "", xOfColumn(k, c->count), y,
            xOfColumn(k + 1, c->count), y);
  }
  fputs("\"/>\n", f);
}

static void writePeak(const ThunkyMemoryPlot *p, const Columns *c, double top, FILE *f) {
  char label[32];
  thunkyHumanBytes(p->peak, label, sizeof label);
  if (p->peakThunk < 0) {
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no thunks</text>\n",
            LEFT + WIDTH / 2, TOP + HEIGHT / 2);
    return;
  }
  int64_t column = columnOf(p->peakThunk, c->count, p->thunks);
  double x = xOfColumn(column, c->count) + WIDTH / (double)c->count / 2;
  double y = yOf((double)p->peak, top);
  fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#d62728\"/>"
             "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"#d62728\">"
             "peak %s at thunk %" PRId64 "</text>\n",
          x, y, x, y - 8 < TOP - 4 ? TOP - 4 : y - 8, x > LEFT + WIDTH / 2 ? "end" : "start",
          label, p->peakThunk);
}

/* Right of the plot, in the stack's order (its top first): each band's
 * name and bytes at the peak; data-peak-bytes holds them exactly. */
static void writeLegend(const ThunkyMemoryPlot *p, const Columns *c, FILE *f) {
  double x = LEFT + WIDTH + 20, y = TOP + 4;
  char human[32];
  if (p->peakThunk >= 0)
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">at the peak (thunk %" PRId64 "):</text>\n", x, y,
            p->peakThunk);
  for (int i = THUNKY_HOLDS_KINDS - 1; i >= 0; --i) {
    int kind = STACK[i];
    if (!c->present[kind])
      continue;
    y += LEGEND_ROW;
    thunkyHumanBytes(c->atPeak[kind], human, sizeof human);
    fprintf(f, "<g class=\"legend\" data-holds=\"%s\" data-peak-bytes=\"%" PRId64 "\">"
               "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
               "<text x=\"%.1f\" y=\"%.1f\">%s: %s</text></g>\n",
            NAMES[kind], c->atPeak[kind], x, y - 10, COLORS[kind], x + 18, y, NAMES[kind], human);
  }
}

bool thunkyWriteMemoryPlot(const ThunkyMemoryPlot *p, FILE *f) {
  Columns c = {0};
  if (p->thunks && !fillColumns(p, &c)) {
    free(c.thunk), free(c.bytes), free(c.sum);
    return false;
  }
  Scale scale = scaleOf(p->peak);
  double top = (double)(scale.steps * scale.step * scale.unit); /* bytes at the top */
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
             "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
          SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT);
  fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", SVG_WIDTH, SVG_HEIGHT);
  writeTitle(p, f);
  writeBands(&c, top, f);
  writeAxes(p, &scale, f);
  writeTotal(p, &c, top, f);
  writePeak(p, &c, top, f);
  writeLegend(p, &c, f);
  fputs("</svg>\n", f);
  free(c.thunk), free(c.bytes), free(c.sum);
  return !ferror(f);
}
