"""The schedule model's replay of measured traces against the simulated
CUDA driver's own clock (test/CudaSim): for each case, a traced eager run
gives each thunk's device time and host issue, and the step as the host
timed it without instrumentation; the replay of that trace must come
within TOLERANCE of that step, for the eager run and, with the same
device times, for a run with command buffers as CUDA graphs.

  replay_vs_simulation.py [--own-traces] DEVICE NAME EXE [INPUT...] [-- NAME EXE ...]

A NAME ending in ":eager" is compared eagerly only (the test says why).
With --own-traces, the graphs' replay takes its device times from the
graph run's own trace (CUPTI times a graph's nodes, the gate its thunks
enqueued one by one), not from the eager run's.

Prints one line per run with both steps and their ratio; exits 1 when a
ratio is outside the tolerance or a trace's stream holds more device time
than its step. thunky-run (and the simulation's libraries, through the
environment) must be on the paths."""
import json
import os
import subprocess
import sys
import tempfile

TOLERANCE = 0.05


def run(args):
    done = subprocess.run(["thunky-run"] + args, capture_output=True, text=True)
    if done.returncode:
        sys.exit("thunky-run %s failed: %s" % (" ".join(args), done.stderr.strip()))
    return done


def step_of(trace):
    with open(trace) as f:
        return json.load(f)["otherData"]["step_ns"]


def check(device, name, exe, inputs, tmp, own_traces):
    failed = 0
    eager_only = name.endswith(":eager")
    name = name.split(":")[0]
    eager = os.path.join(tmp, name + ".eager.json")
    os.environ["THUNKY_CUDA_SIM_EXECUTABLE"] = exe
    # Three steps, as a trace of --repeat holds: each stream's device time
    # is held against one step, not the three.
    run(["--backend", "cuda", exe] + inputs + ["--repeat", "3", "--trace", eager])
    graphs = os.path.join(tmp, name + ".graphs.json")
    graph_args = ["--command-buffers", "--graph-min-size", "1"]
    run(["--backend", "cuda", exe] + inputs + graph_args + ["--trace", graphs])
    modes = [("eager", eager, [])]
    if not eager_only:
        modes.append(("graphs", graphs, graph_args))
    for mode, trace, extra in modes:
        prediction = os.path.join(tmp, name + "." + mode + ".prediction.json")
        measured_from = trace if own_traces else eager
        done = run(["--model", exe, "--device", device, "--measured", measured_from,
                    "--json", prediction] + extra)
        with open(prediction) as f:
            predicted = json.load(f)["step_ns"]
        measured = step_of(trace)
        ratio = predicted / measured
        ok = abs(ratio - 1) <= TOLERANCE and "exceeds the step" not in done.stderr
        failed |= not ok
        print("%s %s: replayed %.3f us, simulated %.3f us: %.3fx%s"
              % (name, mode, predicted / 1e3, measured / 1e3, ratio, "" if ok else "  WRONG"))
    return failed


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    own_traces = argv[0] == "--own-traces"
    argv = argv[1:] if own_traces else argv
    device, cases, case = argv[0], [], []
    for a in argv[1:] + ["--"]:
        if a == "--":
            cases.append(case)
            case = []
        else:
            case.append(a)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in cases:
            if len(c) < 2:
                sys.exit("a case is NAME EXE [INPUT...]")
            failed |= check(device, c[0], c[1], c[2:], tmp, own_traces)
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
