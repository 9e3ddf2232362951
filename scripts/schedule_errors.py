#!/usr/bin/env python3
"""How far the schedule model is from the GPU: scripts/device-check.sh runs it.

Usage: schedule_errors.py DIR

DIR holds, for each case NAME that ran on --backend cuda:
  NAME.timing.log     thunky-run --repeat 100's summary ("100 runs on cuda:
                      min A ms, median B ms, ..."): the measured step
  NAME.trace.json     thunky-run --trace of 20 runs: every thunk timed
  NAME.measured.json  thunky-run --model --measured NAME.trace.json
                      --json: the step replayed from the measured durations
  NAME.model.json     thunky-run --model --json: the step replayed
                      from the device model's durations
A case run with --cuda-graph has only the first and the last (the model
given the same graphs, --command-buffers): against its eager twin it says
what launching XLA's command buffers as graphs buys, measured and predicted.

Prints, per case, the measured step and the two predictions with their
ratios to it: the first tests the replay (issue, streams, waits), the
second the device model too. Then, over every case, the device model's
duration of each kind of thunk against the measured one. Exit status 0
after the report; 1 when DIR holds no case.
"""
import collections
import json
import os
import re
import sys

TIMING = re.compile(r"runs on cuda: min ([0-9.]+) ms, median ([0-9.]+) ms")


def measured_step_us(path):
    with open(path) as f:
        match = TIMING.search(f.read())
    return float(match.group(2)) * 1e3 if match else None


def measured_thunk_us(path):
    """Mean duration of each thunk (by number) over the traced runs."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    total, count = collections.Counter(), collections.Counter()
    for e in events:
        thunk = e.get("args", {}).get("thunk")
        if e.get("ph") == "X" and thunk is not None:
            total[thunk] += e["dur"]
            count[thunk] += 1
    return {t: total[t] / count[t] for t in total}


def ratio(a, b):
    return "%.2fx" % (a / b) if a and b else "n/a"


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    folder = argv[1]
    cases = sorted(n[:-len(".model.json")] for n in os.listdir(folder)
                   if n.endswith(".model.json"))
    if not cases:
        print("schedule_errors: no NAME.model.json in %s" % folder)
        return 1
    print("%-28s %12s %14s %7s %14s %7s" % ("case", "measured us", "from measured",
                                          "ratio", "from model", "ratio"))
    by_kind = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for case in cases:
        base = os.path.join(folder, case)
        step = measured_step_us(base + ".timing.log")
        replayed = None
        if os.path.exists(base + ".measured.json"):
            with open(base + ".measured.json") as f:
                replayed = json.load(f)["step_ns"] / 1e3
        with open(base + ".model.json") as f:
            model = json.load(f)
        modelled = model["step_ns"] / 1e3
        print("%-28s %12s %14s %7s %14.3f %7s" % (
            case, "%.3f" % step if step else "n/a",
            "%.3f" % replayed if replayed is not None else "n/a", ratio(replayed, step),
            modelled, ratio(modelled, step)))
        if not os.path.exists(base + ".trace.json"):
            continue
        measured = measured_thunk_us(base + ".trace.json")
        for t in model["thunks"]:
            if t["thunk"] in measured:
                row = by_kind[t["kind"]]
                row[0] += t["ns"] / t["runs"] / 1e3
                row[1] += measured[t["thunk"]]
                row[2] += 1
    print()
    print("%-32s %7s %14s %14s %8s" % ("thunk kind", "thunks", "model us", "measured us",
                                      "model/measured"))
    for kind in sorted(by_kind):
        model_us, measured_us, n = by_kind[kind]
        print("%-32s %7d %14.3f %14.3f %8s" % (kind, n, model_us, measured_us,
                                              ratio(model_us, measured_us)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
