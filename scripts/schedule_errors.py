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
                      from the device model's durations, loops and
                      branches as the trace ran them (--counts-from)
  NAME.predicted.log  what the replay from measured said on stderr
  NAME.gate.json      where NAME.trace.json is CUPTI's: a --trace whose
                      device times were taken behind the gate instead
A case run with --cuda-graph is predicted with the same graphs
(--command-buffers): against its eager twin it says what launching XLA's
command buffers as graphs buys, measured and predicted. Its trace times
the graphs' thunks: CUPTI each node, the gate each thunk enqueued one by
one.

Prints how each trace timed the device (its method: CUPTI's records, or
events behind the gate) and how many thunks it timed, a graph case's
against its eager twin's, with any device work it could tie to no thunk;
then, per case, the measured step and the two
predictions with their ratios to it: the first tests the replay (issue, streams, waits), the
second the device model too. Then, over every case, the device model's
duration of each kind of thunk against the measured one, and each target
of issue 48 ("Done when") met or not: the replay from measured within 0.8x
to 1.25x with a geometric mean |log ratio| of at most 0.10, no stream's
traced device time over its step, the graph-versus-eager saving predicted
within 30% or 3 us, the modelled step within 0.67x to 1.5x. Exit status 0
after the report; 1 when DIR holds no case.
"""
import collections
import json
import math
import os
import re
import sys

TIMING = re.compile(r"runs on cuda: min ([0-9.]+) ms, median ([0-9.]+) ms")


def measured_step_us(path):
    with open(path) as f:
        match = TIMING.search(f.read())
    return float(match.group(2)) * 1e3 if match else None


def trace_method(path):
    with open(path) as f:
        method = json.load(f).get("otherData", {}).get("method", "")
    return ("CUPTI" if "CUPTI" in method else "gate" if "gate" in method
            else "issue only" if method.startswith("host issue only") else "unknown")


def unattributed_us(path):
    """Device work the run measured but tied to no thunk (a graph's node
    that no capture made)."""
    with open(path) as f:
        return json.load(f).get("otherData", {}).get("unattributed_ns", 0) / 1e3


def measured_thunk_us(path):
    """Mean device time and mean host issue of each thunk (by number) over
    the traced runs: a host issue's event names its thunk "issues_thunk"."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    total, count = collections.Counter(), collections.Counter()
    for e in events:
        args = e.get("args", {})
        issue = "issues_thunk" in args
        thunk = args.get("issues_thunk" if issue else "thunk")
        if e.get("ph") == "X" and thunk is not None:
            key = (thunk, issue)
            total[key] += e["dur"]
            count[key] += 1
    mean = {k: total[k] / count[k] for k in total}
    return ({t: v for (t, issue), v in mean.items() if not issue},
            {t: v for (t, issue), v in mean.items() if issue})


def geomean_abs_log(ratios):
    return sum(abs(math.log(r)) for r in ratios) / len(ratios) if ratios else float("nan")


def verdict(met, what):
    print("%s: %s" % ("met" if met else "NOT MET", what))


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
    print("%-28s %-12s %s" % ("trace", "device by", "thunks timed on the device"))
    graphs_timed = []
    for case in cases:
        trace = os.path.join(folder, case + ".trace.json")
        if not os.path.exists(trace):
            continue
        timed = set(measured_thunk_us(trace)[0])
        twin = os.path.join(folder, case[:-len("-graph")] + "-cuda.trace.json")
        of = ""
        if case.endswith("-graph") and os.path.exists(twin):
            eager = set(measured_thunk_us(twin)[0])
            of = " of the eager run's %d" % len(eager)
            graphs_timed.append(eager <= timed)
        lost = unattributed_us(trace)
        print("%-28s %-12s %d%s%s" % (case, trace_method(trace), len(timed), of,
                                      "; %.3f us tied to no thunk" % lost if lost else ""))
    print()
    # Two ways of timing the same thunks: CUPTI's records against the
    # gate's events, thunk by thunk.
    for case in cases:
        gate = os.path.join(folder, case + ".gate.json")
        if not os.path.exists(gate):
            continue
        cupti = measured_thunk_us(os.path.join(folder, case + ".trace.json"))[0]
        gated = measured_thunk_us(gate)[0]
        ratios = [cupti[t] / gated[t] for t in cupti if gated.get(t)]
        print("%-28s CUPTI against the gate, %d thunks: %s" % (
            case, len(ratios), "%.2fx to %.2fx, geometric mean |log ratio| %.3f" % (
                min(ratios), max(ratios), geomean_abs_log(ratios)) if ratios else "none alike"))
    print()
    print("%-28s %12s %14s %7s %14s %7s" % ("case", "measured us", "from measured",
                                          "ratio", "from model", "ratio"))
    by_kind = collections.defaultdict(lambda: [0.0, 0.0, 0, 0.0, 0])
    replay, modelled_ratios, over_step, steps = [], [], [], {}
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
        steps[case] = (step, modelled)
        if step and replayed:
            replay.append(replayed / step)
        if step:
            modelled_ratios.append(modelled / step)
        if os.path.exists(base + ".predicted.log"):
            with open(base + ".predicted.log") as f:
                if "exceeds the step" in f.read():
                    over_step.append(case)
        print("%-28s %12s %14s %7s %14.3f %7s" % (
            case, "%.3f" % step if step else "n/a",
            "%.3f" % replayed if replayed is not None else "n/a", ratio(replayed, step),
            modelled, ratio(modelled, step)))
        if not os.path.exists(base + ".trace.json"):
            continue
        measured, issued = measured_thunk_us(base + ".trace.json")
        if case.endswith("-graph"):
            issued = {}  # a graph's launch, not its first thunk's issue
        for t in model["thunks"]:
            if t["thunk"] in measured:
                row = by_kind[t["kind"]]
                row[0] += t["ns"] / t["runs"] / 1e3
                row[1] += measured[t["thunk"]]
                row[2] += 1
                if t["thunk"] in issued:
                    row[3] += issued[t["thunk"]]
                    row[4] += 1
    print()
    # The mean host issue per kind is what the device description's
    # *_launch_ns keys would be fitted to.
    print("%-32s %7s %14s %14s %8s %14s" % ("thunk kind", "thunks", "model us", "measured us",
                                           "model/measured", "issue us"))
    for kind in sorted(by_kind):
        model_us, measured_us, n, issue_us, issues = by_kind[kind]
        print("%-32s %7d %14.3f %14.3f %8s %14s" % (
            kind, n, model_us, measured_us, ratio(model_us, measured_us),
            "%.3f" % (issue_us / issues) if issues else "n/a"))
    print()
    print("graph against eager      measured saving us  predicted saving us")
    savings = []
    for case in cases:
        if not case.endswith("-graph"):
            continue
        eager = case[:-len("-graph")] + "-cuda"
        if eager not in steps or not steps[eager][0] or not steps[case][0]:
            continue
        measured = steps[eager][0] - steps[case][0]
        predicted = steps[eager][1] - steps[case][1]
        savings.append(abs(predicted - measured) <= max(3.0, 0.3 * abs(measured)))
        print("%-24s %19.3f %20.3f" % (case[:-len("-graph")], measured, predicted))
    print()
    verdict(replay and all(0.8 <= r <= 1.25 for r in replay) and geomean_abs_log(replay) <= 0.10,
            "replayed from measured: %d cases, %s, geometric mean |log ratio| %.3f "
            "(0.8x to 1.25x, at most 0.10)" % (
                len(replay), "%.2fx to %.2fx" % (min(replay), max(replay)) if replay else "none",
                geomean_abs_log(replay)))
    verdict(not over_step, "no stream's traced device time over its step%s" % (
        "" if not over_step else ": over in " + ", ".join(over_step)))
    verdict(savings and all(savings), "graph saving predicted within 30%% or 3 us: %d of %d" % (
        sum(savings), len(savings)))
    verdict(graphs_timed and all(graphs_timed),
            "graph runs timed thunk by thunk: %d of %d cover the eager run's thunks" % (
                sum(graphs_timed), len(graphs_timed)))
    verdict(modelled_ratios and all(0.67 <= r <= 1.5 for r in modelled_ratios),
            "modelled: %d cases, %s (0.67x to 1.5x)" % (
                len(modelled_ratios), "%.2fx to %.2fx" % (min(modelled_ratios), max(
                    modelled_ratios)) if modelled_ratios else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
