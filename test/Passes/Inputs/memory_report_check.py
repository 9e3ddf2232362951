"""memory_report_check.py REPORT.json PLOT.svg: checks thunky-memory-report's
figures against each other, independently of how the pass computes them.

- live_bytes has one entry a thunk, and each is the sum of the bytes of
  every allocation (or group of scratch slices) whose live range holds it;
- the peak is their maximum, first reached at its thunk, and what is live
  there adds up to it;
- the plot has one column a bucket of thunks, at most 1000 of them, and
  stays under 300 kB;
- its legend gives each kind of allocation live anywhere (by role, and
  constants) with its bytes at the peak, as the JSON's roles and live
  ranges say, and they add up to the peak;
- its byte ticks are 0, s, 2s... in one of B, KiB, MiB, GiB with s 1, 2 or
  5 times a power of ten, the last at or just past the peak; its thunk
  ticks are 0, s, 2s... every one a thunk, the next past the last; no two
  labels overlap (a character taken as 7 pixels wide, a line 12 high).
Prints one line of figures, or fails naming the first mismatch.
"""
import json
import re
import sys

report = json.load(open(sys.argv[1]))
thunks, live = report["thunks"], report["live_bytes"]
if len(live) != thunks:
    sys.exit("live_bytes has %d entries for %d thunks" % (len(live), thunks))

# Sums of ranges by a difference array, as plain as it gets.
diff = [0] * (thunks + 1)
for a in report["allocations"]:
    ranges = [(g["live_from"], g["live_to"], g["bytes"]) for g in a.get("groups", [])]
    if "groups" not in a:
        ranges = [(a["live_from"], a["live_to"], a["bytes"])]
    for first, last, size in ranges:
        if first is not None:
            diff[first] += size
            diff[last + 1] -= size
running = 0
for t in range(thunks):
    running += diff[t]
    if running != live[t]:
        sys.exit("thunk %d: live_bytes says %d, the ranges %d" % (t, live[t], running))

peak = report["peak"]
if peak["bytes"] != max(live) or live.index(peak["bytes"]) != peak["thunk"]:
    sys.exit("the peak is %d at thunk %d, not %d at %d"
             % (max(live), live.index(max(live)), peak["bytes"], peak["thunk"]))
if sum(item["bytes"] for item in peak["live"]) != peak["bytes"]:
    sys.exit("what is live at the peak does not add up to it")

svg = open(sys.argv[2]).read()
if len(svg) > 300000:
    sys.exit("the plot is %d bytes" % len(svg))
points = re.search(r'<polyline [^>]*points="([^"]*)"', svg).group(1)
columns = len(points.split()) // 2
if columns != min(thunks, 1000):
    sys.exit("the plot has %d columns for %d thunks" % (columns, thunks))


def kind(item):
    """What the legend calls an allocation, from its name and role."""
    role = item["role"]
    if item["name"].startswith("constant"):
        return "constants"
    if role is None:
        return "no role"
    if role.endswith("scratch"):
        return "thread-local scratch" if role.startswith("thread-local ") else "scratch"
    if role.startswith("output "):
        return "outputs"
    if role.startswith("parameter "):
        return "aliased outputs" if ", output " in role else "parameters"
    return "other roles"


expected = {}
for a in report["allocations"]:
    ranges = a.get("groups", [a])
    if any(g["live_from"] is not None and g["bytes"] for g in ranges):
        expected[kind(a)] = 0
for item in peak["live"]:
    expected[kind(item)] += item["bytes"]
legend = {k: int(v) for k, v in
          re.findall(r'<g class="legend" data-holds="([^"]*)" data-peak-bytes="(\d+)"', svg)}
if legend != expected:
    sys.exit("the legend says %s, the JSON %s" % (sorted(legend.items()), sorted(expected.items())))
if sum(legend.values()) != peak["bytes"]:
    sys.exit("the legend adds up to %d, not the peak" % sum(legend.values()))


def round_step(values):
    step = values[1] - values[0] if len(values) > 1 else 1
    if values != [k * step for k in range(len(values))]:
        return None
    digits = str(step)
    return step if digits[0] in "125" and set(digits[1:]) <= {"0"} else None


def labels(cls):
    return [(float(x), float(y), text) for x, y, text in
            re.findall(r'<text class="%s" x="([0-9.]+)" y="([0-9.]+)"[^>]*>([^<]*)<' % cls, svg)]


byte_ticks = labels("byte-tick")
units = {text.split()[1] for _, _, text in byte_ticks}
if len(units) != 1 or not units <= {"B", "KiB", "MiB", "GiB"}:
    sys.exit("byte ticks in %s" % sorted(units))
unit = 1024 ** ["B", "KiB", "MiB", "GiB"].index(units.pop())
values = [int(text.split()[0]) for _, _, text in byte_ticks]
step = round_step(values)
if step is None or len(values) < 2 or values[-1] * unit < peak["bytes"] \
        or (values[-1] - step) * unit >= max(peak["bytes"], 1):
    sys.exit("byte ticks %s for a peak of %d bytes" % (values, peak["bytes"]))
if any(abs(a[1] - b[1]) < 12 for a, b in zip(byte_ticks, byte_ticks[1:])):
    sys.exit("byte tick labels overlap")

thunk_ticks = labels("thunk-tick")
values = [int(text) for _, _, text in thunk_ticks]
step = round_step(values) if values else None
if thunks and (step is None or values[-1] >= thunks or values[-1] + step < thunks):
    sys.exit("thunk ticks %s for %d thunks" % (values, thunks))
for a, b in zip(thunk_ticks, thunk_ticks[1:]):
    if b[0] - a[0] < 7 * (len(a[2]) + len(b[2])) / 2 + 4:
        sys.exit("thunk tick labels %s and %s overlap" % (a[2], b[2]))
print("consistent: %d thunks, peak %d bytes at thunk %d (%s), %d live there, %d columns"
      % (thunks, peak["bytes"], peak["thunk"], peak["op"], len(peak["live"]), columns))
print("legend: " + ", ".join("%s %d" % kv for kv in sorted(legend.items())))
print("ticks: %s; thunks %s" % (", ".join(t for _, _, t in byte_ticks),
                                " ".join(t for _, _, t in thunk_ticks)))
