"""gain.py WHAT BEFORE.json AFTER.json no-longer|shorter: one summary line
for a rewrite's predicted gain (thunky-run --model --json); exits 1
unless the exposed communication shrank and the step got no longer (or,
with `shorter`, shorter)."""
import json
import sys

what, before, after, rule = sys.argv[1:5]
a, b = (json.load(open(path)) for path in (before, after))
print("schedule: %s, thunky-expand-async-scope: predicted step %.1f -> %.1f us, "
      "exposed communication %.1f -> %.1f us" % (
          what, a["step_ns"] / 1e3, b["step_ns"] / 1e3,
          a["exposed_communication_ns"] / 1e3, b["exposed_communication_ns"] / 1e3))
step_ok = b["step_ns"] < a["step_ns"] if rule == "shorter" else b["step_ns"] <= a["step_ns"]
sys.exit(0 if step_ok and b["exposed_communication_ns"] < a["exposed_communication_ns"] else 1)
