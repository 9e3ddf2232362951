"""Each thunk's device time in a thunky-run --trace, for comparing two ways
of timing the same run: one line per thunk and stream, with how often the
thunk ran there and its total time in ns, host issue events left out.

  device_times.py TRACE

Prints how the trace says the device lanes were timed first."""
import collections
import json
import sys

with open(sys.argv[1]) as f:
    trace = json.load(f)
print("method:", trace["otherData"]["method"].split(":")[1].split(",")[0].strip())
runs = collections.defaultdict(lambda: [0, 0])
for e in trace["traceEvents"]:
    args = e.get("args", {})
    if e.get("ph") != "X" or "issues_thunk" in args:
        continue
    key = (args["thunk"], e["tid"], e["name"])
    runs[key][0] += 1
    runs[key][1] += round(e["dur"] * 1000)
for (thunk, tid, name), (count, ns) in sorted(runs.items()):
    print("%s on stream %d: %d runs, %d ns" % (name, tid, count, ns))
