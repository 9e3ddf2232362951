#!/usr/bin/env python3
"""Fails each allocation of a command in turn, and says whether it coped.

    fail_each_allocation.py --shim libThunkyFailAlloc.so [--file F]... [--mask] -- CMD...

The command runs once to count its allocations (fail_alloc.c), once as the
reference, then once per allocation with that one failing. Each run must
either fail with one line on stderr (besides the reference's warnings) and
a status of 1 to 3, or succeed with
the reference's stdout and files (--file; with --mask, numbers with a
fraction, times, are not compared, nor the order of lines or their
spacing). Anything else is wrong: a crash, a
hang, several lines, silence, or a success that lost something.
"""
import argparse
import os
import re
import subprocess
import sys

DECIMAL = re.compile(rb"[0-9]+\.[0-9]+")


def run(command, env, files, timeout=60):
    for f in files:
        if os.path.exists(f):
            os.remove(f)
    try:
        p = subprocess.run(command, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    kept = {}
    for f in files:
        kept[f] = open(f, "rb").read() if os.path.exists(f) else None
    return p, kept


def firstDifference(expected, got):
    a, b = expected.split(b"\n"), got.split(b"\n")
    for x, y in zip(a, b):
        if x != y:
            return "%r where %r was expected" % (y.decode(errors="replace"),
                                                x.decode(errors="replace"))
    return "%d lines where %d were expected" % (len(b), len(a))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shim", required=True)
    parser.add_argument("--file", action="append", default=[])
    parser.add_argument("--mask", action="store_true")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    # Times differ run to run, and so does the order of what they rank.
    mask = ((lambda b: b"\n".join(sorted(re.sub(rb" +", b" ", DECIMAL.sub(b"T", b)).split(b"\n"))))
            if args.mask else (lambda b: b))

    env = dict(os.environ, LD_PRELOAD=args.shim, THUNKY_FAIL_ALLOC_COUNT="1")
    counted = run(args.command, env, args.file)
    found = re.search(rb"fail_alloc: ([0-9]+) allocations", counted[0].stderr) if counted else None
    if not counted or counted[0].returncode != 0 or not found:
        sys.exit("the command does not run cleanly with the shim: %r" %
                 (counted[0].stderr[-500:] if counted else "timed out"))
    total = int(found.group(1))
    reference = run(args.command, dict(os.environ), args.file)
    warnings = set(reference[0].stderr.decode(errors="replace").splitlines())
    ref_out, ref_files = mask(reference[0].stdout), {f: mask(b) for f, b in reference[1].items()
                                                     if b is not None}

    failed = absorbed = 0
    wrong = []
    env = dict(os.environ, LD_PRELOAD=args.shim)
    for n in range(1, total + 1):
        env["THUNKY_FAIL_ALLOC"] = str(n)
        result = run(args.command, env, args.file)
        if result is None:
            wrong.append("allocation %d: the command hung" % n)
            continue
        p, files = result
        # What the reference run also said is a warning, not the error.
        lines = [l for l in p.stderr.decode(errors="replace").splitlines()
                 if l and l not in warnings]
        if p.returncode < 0 or p.returncode > 3:
            wrong.append("allocation %d: status %d: %s" % (n, p.returncode, " | ".join(lines[-3:])))
        elif p.returncode:
            if len(lines) != 1:
                wrong.append("allocation %d: status %d with %d lines on stderr: %s" %
                             (n, p.returncode, len(lines), " | ".join(lines[:4])))
            else:
                failed += 1
        elif mask(p.stdout) != ref_out:
            wrong.append("allocation %d: succeeded with other output: %s" %
                         (n, firstDifference(ref_out, mask(p.stdout))))
        elif any(mask(files[f] or b"") != b for f, b in ref_files.items()):
            wrong.append("allocation %d: succeeded with other files: %s" %
                         (n, " | ".join(lines[:2])))
        else:
            absorbed += 1
    # The files as the command writes them, for whatever reads them next.
    for f, b in reference[1].items():
        if b is not None:
            open(f, "wb").write(b)
    name = os.path.basename(args.command[0])
    print("%s: %d allocations, each failed in turn: %d failed with one line, %d ran as if "
          "none had, %d wrong" % (name, total, failed, absorbed, len(wrong)))
    for w in wrong:
        print("  " + w)
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
