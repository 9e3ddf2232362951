#!/usr/bin/env python3
"""Fits the schedule model's timing constants on half of the measured steps
and reports the error on the other half (docs/schedule.md, "Fitted out of
sample").

usage: fit_device_model.py DATA [--thunky-run PATH] [--work DIR] [--check-builtin]

DATA is a table of measured steps (bench/model/h200-steps.tsv): case,
executable, thunky-run --model arguments, measured us, half ("fit" or
"held-out"). launch_ns, kernel_min_ns and sync_ns are fitted to the "fit" rows alone, minimizing the mean |log(predicted /
measured)|, by coordinate descent over a grid of 250 ns steps from 0 to
20 us, ties going to the smaller value, until no constant moves. Every other
key keeps the built-in H200 value. --check-builtin fails unless the
built-in constants predict every row exactly as the fitted ones do: the
constants compiled into thunky are the ones this fit gives.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEYS = ["launch_ns", "kernel_min_ns", "sync_ns"]
GRID = [250 * i for i in range(81)]
START = {k: 2000 for k in KEYS}


def read_table(path):
    rows = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.rstrip("\n").split("\t")
            if len(cells) != 5 or cells[4] not in ("fit", "held-out"):
                sys.exit("%s:%d: expected case, executable, arguments, measured us, "
                         "fit|held-out, tab-separated" % (path, number))
            case, exe, args, measured, half = cells
            rows.append({"case": case, "exe": exe, "args": [] if args == "-" else args.split(),
                         "measured_ns": float(measured) * 1e3, "half": half})
    return rows


def encoded(exe, work):
    """The executable as thunky-run reads it: a textproto is encoded first."""
    path = os.path.join(ROOT, exe)
    if not path.endswith(".textproto"):
        return path
    out = os.path.join(work, os.path.basename(path) + ".pb")
    if not os.path.exists(out):
        with open(path, "rb") as src, open(out, "wb") as dst:
            subprocess.run([os.path.join(ROOT, "scripts", "encode.sh"),
                            "xla.gpu.GpuExecutableProto"], stdin=src, stdout=dst, check=True)
    return out


class Model:
    def __init__(self, thunky_run, work):
        self.thunky_run, self.work, self.cache = thunky_run, work, {}

    def step_ns(self, row, consts):
        key = (row["case"], None if consts is None else tuple(consts[k] for k in KEYS))
        if key in self.cache:
            return self.cache[key]
        out = os.path.join(self.work, "step.json")
        cmd = [self.thunky_run, "--model", encoded(row["exe"], self.work)] + row["args"]
        if consts is not None:
            device = os.path.join(self.work, "fit.device")
            with open(device, "w") as f:
                f.writelines("%s = %d\n" % (k, consts[k]) for k in KEYS)
            cmd += ["--device", device]
        subprocess.run(cmd + ["--json", out], stdout=subprocess.DEVNULL, check=True)
        with open(out) as f:
            self.cache[key] = json.load(f)["step_ns"]
        return self.cache[key]


def error(model, rows, consts):
    """Mean |log(predicted / measured)| over the rows."""
    return sum(abs(math.log(model.step_ns(r, consts) / r["measured_ns"])) for r in rows) / len(rows)


def fit(model, rows):
    consts = dict(START)
    moved = True
    while moved:
        moved = False
        for k in KEYS:
            best = min(GRID, key=lambda v: (error(model, rows, dict(consts, **{k: v})), v))
            moved = moved or best != consts[k]
            consts[k] = best
    return consts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--thunky-run", default="thunky-run")
    parser.add_argument("--work")
    parser.add_argument("--check-builtin", action="store_true")
    a = parser.parse_args()
    rows = read_table(a.data)
    with tempfile.TemporaryDirectory() as tmp:
        model = Model(a.thunky_run, a.work or tmp)
        fitted = [r for r in rows if r["half"] == "fit"]
        held = [r for r in rows if r["half"] == "held-out"]
        consts = fit(model, fitted)
        print("fitted on %d steps: %s" % (len(fitted), ", ".join(
            "%s = %d" % (k, consts[k]) for k in KEYS)))
        print("%-28s %-9s %12s %12s %8s" % ("case", "half", "measured us", "predicted us", "ratio"))
        for r in rows:
            p = model.step_ns(r, consts)
            print("%-28s %-9s %12.3f %12.3f %7.2fx" % (r["case"], r["half"], r["measured_ns"] / 1e3,
                                                     p / 1e3, p / r["measured_ns"]))
        for name, part in (("in sample", fitted), ("out of sample", held)):
            ratios = [model.step_ns(r, consts) / r["measured_ns"] for r in part]
            print("%s: %d steps, geometric mean |log ratio| %.3f, ratios %.2fx to %.2fx" % (
                name, len(part), error(model, part, consts), min(ratios), max(ratios)))
        if a.check_builtin:
            differ = [r["case"] for r in rows if model.step_ns(r, None) != model.step_ns(r, consts)]
            if differ:
                sys.exit("the built-in H200 constants are not the fitted ones: they predict %s "
                         "otherwise (runtime/schedule/schedule_cost.c)" % ", ".join(differ))
            print("the built-in H200 constants are the fitted ones")


if __name__ == "__main__":
    main()
