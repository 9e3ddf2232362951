"""memory_report_check.py REPORT.json PLOT.svg: checks thunky-memory-report's
figures against each other, independently of how the pass computes them.

- live_bytes has one entry a thunk, and each is the sum of the bytes of
  every allocation (or group of scratch slices) whose live range holds it;
- the peak is their maximum, first reached at its thunk, and what is live
  there adds up to it;
- the plot has one column a bucket of thunks, at most 2000 of them.
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

points = re.search(r'<polyline [^>]*points="([^"]*)"', open(sys.argv[2]).read()).group(1)
columns = len(points.split()) // 2
if columns != min(thunks, 2000):
    sys.exit("the plot has %d columns for %d thunks" % (columns, thunks))
print("consistent: %d thunks, peak %d bytes at thunk %d (%s), %d live there, %d columns"
      % (thunks, peak["bytes"], peak["thunk"], peak["op"], len(peak["live"]), columns))
