#!/usr/bin/env python3
"""Every host-side check thunky has, on real executables: the corpus.

    corpus_check.py [--report FILE] [--max-host-memory B] INPUT...

INPUT is a corpus folder (its manifest.json, as scripts/make-corpus.py
writes it, names the executables), or an executable (bare, packed, or
zstd-compressed as NAME.exe.zst). For each executable:

  layering    thunky-container info: how JAX and XLA packed it
  round trip  import, export: the same bytes as the file held
  passes      each rewriting pass alone, then thunky-optimize; a pass that
              changes the module is proved to have kept its meaning on
              every rank the executable records, twice: by fingerprints
              (--kernels=fingerprint; past --max-host-memory, the symbolic
              run, as --compare does) and by the symbolic run; the result
              exports and imports again; thunky-check-races runs on the
              module before and after
  model       thunky-run --model, eager and with XLA's command buffers
  memory      thunky-memory-report's peak, before and after thunky-optimize

It prints a line per executable and, with --report, a Markdown table of
what thunky-optimize changed (docs/corpus.md). Exit 0 when every check of
every executable passed, 1 when one failed (the line says which and why),
2 on a usage error.

Needs thunky-translate, thunky-opt, thunky-run and thunky-container on
PATH, and zstd for compressed files. Python's standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

# The rewriting passes, each alone: the analyses (stats, memory report,
# check-races) and strip-metadata (which drops what export needs) are run
# as checks, not proved.
PASSES = ("thunky-flatten-sequential", "thunky-fold-slices", "thunky-elide-copies",
          "thunky-pack-scratch", "thunky-remove-redundant-async",
          "thunky-expand-async-scope", "thunky-optimize")
SECONDS = 600  # the most one tool call may take on one executable


class Failed(Exception):
    pass


def tool(*argv, ok=(0,), stdin=None):
    """Runs a thunky tool; its stdout and stderr, or Failed with its last
    line of error output."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=SECONDS,
                              stdin=stdin)
    except subprocess.TimeoutExpired:
        raise Failed("%s took more than %d s" % (os.path.basename(argv[0]), SECONDS))
    if done.returncode not in ok:
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise Failed("%s exit %d: %s" % (" ".join(os.path.basename(a) for a in argv[:2]),
                                         done.returncode, said[-1] if said else "(no output)"))
    return done


def executables(inputs):
    """(name, path) for each executable named."""
    found = []
    for item in inputs:
        manifest = os.path.join(item, "manifest.json")
        if os.path.isdir(item) and os.path.exists(manifest):
            with open(manifest) as f:
                for entry in json.load(f).get("programs", []):
                    if "file" in entry:
                        found.append((entry["name"], os.path.join(item, entry["file"])))
        elif os.path.isfile(item):
            name = os.path.basename(item)
            for suffix in (".zst", ".exe"):
                name = name[:-len(suffix)] if name.endswith(suffix) else name
            found.append((name, item))
        else:
            raise Failed("%s: neither an executable nor a corpus folder with manifest.json" % item)
    return found


def plain(path, work):
    """The executable's bytes as a file: a .zst is decompressed first."""
    if not path.endswith(".zst"):
        return path
    out = os.path.join(work, "plain.exe")
    with open(out, "wb") as f:
        done = subprocess.run(["zstd", "-dc", path], stdout=f, stderr=subprocess.PIPE)
    if done.returncode != 0:
        raise Failed("zstd -dc %s: %s" % (path, done.stderr.decode(errors="replace").strip()))
    return out


def stats(module):
    out = tool("thunky-opt", "-p", "builtin.module(thunky-stats{json=true})", module,
               "-o", os.devnull).stderr
    return json.loads(out[out.index("{"):])


def peak(module):
    out = tool("thunky-opt", "-p", "builtin.module(thunky-memory-report{json=true})", module,
               "-o", os.devnull).stderr
    return json.loads(out[out.index("{"):])["peak"]["bytes"]


def same(original, changed, how, memory):
    """Proves CHANGED computes what ORIGINAL does; the proof's line."""
    if how == "fingerprint":
        argv = ["thunky-run", "--kernels=fingerprint", "--max-host-memory", memory]
    else:
        argv = ["thunky-run", "--backend", "symbolic"]
    said = tool(*argv, original, "--compare", changed).stdout.strip().splitlines()
    line = said[-1] if said else ""
    if not line.startswith("same:"):
        raise Failed("%s: %s" % (how, line or "no verdict"))
    return line


def check(name, path, memory, work):
    """Every check on one executable; a dict of what it found."""
    found = {"name": name}
    exe = plain(path, work)
    found["layering"] = tool("thunky-container", "info", exe).stdout.splitlines()[0]
    module = os.path.join(work, "in.mlirbc")
    tool("thunky-translate", "--import-thunky", exe, "--emit-bytecode", "-o", module)
    back = os.path.join(work, "back.pb")
    tool("thunky-translate", "--export-thunky", module, "-o", back)
    if not filecmp(exe, back):
        raise Failed("round trip: the export differs from %s" % path)
    found["bytes"] = os.path.getsize(exe)
    text = tool("thunky-opt", module, "--mlir-print-op-generic").stdout
    tool("thunky-opt", "--thunky-check-races", module, "-o", os.devnull)
    tool("thunky-opt", "--thunky-strip-metadata", module, "-o", os.devnull)
    found["changed_by"] = []
    for rewrite in PASSES:
        out = os.path.join(work, rewrite + ".mlirbc")
        tool("thunky-opt", "--" + rewrite, module, "--emit-bytecode", "-o", out)
        if tool("thunky-opt", out, "--mlir-print-op-generic").stdout == text:
            continue
        found["changed_by"].append(rewrite)
        for how in ("fingerprint", "symbolic"):
            found["proof " + how] = same(exe, out, how, memory)
        tool("thunky-translate", "--export-thunky", out, "-o", back)
        tool("thunky-translate", "--import-thunky", back, "-o", os.devnull)
        if rewrite == "thunky-optimize":
            tool("thunky-opt", "--thunky-check-races", out, "-o", os.devnull)
    optimized = os.path.join(work, "thunky-optimize.mlirbc")
    found["stats"], found["optimized stats"] = stats(module), stats(optimized)
    found["peak"], found["optimized peak"] = peak(module), peak(optimized)
    for mode, extra in (("model", ()), ("model with command buffers", ("--command-buffers",))):
        said = tool("thunky-run", "--model", *extra, exe).stdout.splitlines()
        found[mode] = next((s for s in said if s.startswith("predicted step:")), "")
        if not found[mode]:
            raise Failed("%s: no prediction in %d lines" % (mode, len(said)))
    return found


def filecmp(a, b):
    with open(a, "rb") as f, open(b, "rb") as g:
        while True:
            x, y = f.read(1 << 20), g.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def microseconds(line):
    # "predicted step: 78.117 us on H200 SXM (...)"
    return line.split()[2]


def summary(found):
    s, o = found["stats"], found["optimized stats"]
    proof = found.get("proof fingerprint", "")
    return ("%s: round trip byte-identical (%d bytes); %d thunks -> %d, scratch %d -> %d bytes, "
            "peak %d -> %d bytes; changed by %s%s; model %s us eager, %s us with command buffers"
            % (found["name"], found["bytes"], s["thunks"], o["thunks"], s["scratch_bytes"],
               o["scratch_bytes"], found["peak"], found["optimized peak"],
               ", ".join(p[len("thunky-"):] for p in found["changed_by"]) or "no pass",
               "; " + proof if proof else "", microseconds(found["model"]),
               microseconds(found["model with command buffers"])))


def table(results):
    rows = ["| program | thunks | after optimize | scratch bytes | after | peak bytes | after "
            "| changed by | proved | model (us) | with graphs (us) |",
            "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|"]
    for found in results:
        s, o = found["stats"], found["optimized stats"]
        proof = found.get("proof fingerprint", "")
        ranks = proof.split(" on ")[1].split(",")[0] if " on " in proof else ""
        rows.append("| %s | %d | %d | %d | %d | %d | %d | %s | %s | %s | %s |" % (
            found["name"], s["thunks"], o["thunks"], s["scratch_bytes"], o["scratch_bytes"],
            found["peak"], found["optimized peak"],
            ", ".join(p[len("thunky-"):] for p in found["changed_by"]) or "-",
            "same on %s, both checks" % ranks if proof else "-",
            microseconds(found["model"]), microseconds(found["model with command buffers"])))
    return "\n".join(rows) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="+", metavar="INPUT")
    parser.add_argument("--report", help="write the Markdown table here")
    parser.add_argument("--max-host-memory", default="2G",
                        help="fingerprint runs past this go symbolic (default 2G)")
    args = parser.parse_args(argv)
    for needed in ("thunky-translate", "thunky-opt", "thunky-run", "thunky-container"):
        if not shutil.which(needed):
            print("corpus_check: no %s on PATH" % needed, file=sys.stderr)
            return 2
    try:
        programs = executables(args.inputs)
    except Failed as e:
        print("corpus_check: %s" % e, file=sys.stderr)
        return 2
    results, failures = [], 0
    for name, path in programs:
        with tempfile.TemporaryDirectory() as work:
            try:
                found = check(name, path, args.max_host_memory, work)
            except Failed as e:
                print("%s: FAIL: %s" % (name, e), flush=True)
                failures += 1
                continue
        results.append(found)
        print(summary(found), flush=True)
    print("corpus: %d of %d executables passed every check" % (len(results), len(programs)))
    if args.report:
        with open(args.report, "w") as f:
            f.write(table(results))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
