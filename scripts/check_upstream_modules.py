#!/usr/bin/env python3
"""Parse and round-trip upstream JAX's own thunky test modules.

Reads the team's collection of upstream test modules (shared/reference/
upstream-expected-mlir.txt; never copied into this repository), and for each
module checks, with every given tool:
  * it parses and verifies;
  * printing, parsing and printing again gives identical text;
  * the generic form parses back to the same text;
and, for printer outputs of upstream's newest Python tests, whether our
printer reproduces upstream's text exactly. With --translate, each module
also goes through export and import: export(import(export(m))) must equal
export(m), and import(export(m)) must print as m once thunky-strip-metadata
has removed what import keeps for export (except that a ptx_kernel comes
back as the CustomKernelThunk it exports to). Modules whose call_thunk_proto
holds upstream's "..." placeholder instead of a ThunkProto cannot export;
they are counted apart.

Prints one summary line and exits 1 if any module fails to round-trip.
"""
import argparse
import os
import re
import subprocess
import sys
import textwrap

# LowersCallThunkProto is a StrFormat template whose %s is an escaped,
# serialized ThunkProto. We fill it with a real one: memzero_thunk (field 19)
# of a 64-byte slice of allocation 0.
MEMZERO_THUNK_PROTO = r"\9A\01\06\0A\04\0A\02\10@"


def read_entries(path):
    """Yields (header, body lines) for every `=== name` entry."""
    header, body = None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("=== ") or line.startswith("#####"):
                if header:
                    yield header, body
                header = line[4:] if line.startswith("=== ") else None
                body = []
            elif header is not None:
                body.append(line)
    if header:
        yield header, body


def extract_module(header, body):
    """The module text of an entry, or None for substring-only entries."""
    start = next((i for i, l in enumerate(body) if l.strip() == "module {"), None)
    if start is None:
        return None
    indent = len(body[start]) - len(body[start].lstrip())
    end = next(i for i in range(start + 1, len(body))
               if body[i].rstrip() == " " * indent + "}")
    text = textwrap.dedent("\n".join(body[start:end + 1])) + "\n"
    if "StrFormat template" in header:
        text = text.replace("%s", MEMZERO_THUNK_PROTO).replace("%%", "%")
    return text


def run(tool, args, text):
    proc = subprocess.run(tool + args, input=text, capture_output=True,
                          text=True)
    return proc.returncode, proc.stdout, proc.stderr


def check(tool, text):
    """Returns (error or None, printed text)."""
    rc, printed, err = run(tool, [], text)
    if rc != 0:
        return "does not parse: " + err.strip().splitlines()[0], None
    rc, again, err = run(tool, [], printed)
    if rc != 0 or again != printed:
        return "printed text does not round-trip", printed
    rc, generic, err = run(tool, ["--mlir-print-op-generic"], printed)
    rc2, back, _ = run(tool, [], generic)
    if rc != 0 or rc2 != 0 or back != printed:
        return "generic form does not round-trip", printed
    return None, printed


def check_translate(opt, translate, text, printed):
    """Returns "exact", "canonical", "placeholder" or an error message for
    the trip through export and import."""
    def trip(module_text):
        rc, exported, err = run_bytes(translate + ["--export-thunky"],
                                      module_text.encode())
        if rc != 0:
            return None, None, err.strip().splitlines()[0]
        rc, imported, err = run_bytes(translate + ["--import-thunky"], exported)
        if rc != 0:
            return None, None, "import of the export fails: " + \
                err.strip().splitlines()[0]
        rc, stripped, err = run_bytes(opt + ["--thunky-strip-metadata"], imported)
        return exported, stripped.decode(), None if rc == 0 else err

    exported, stripped, error = trip(text)
    if error:
        return "placeholder" if "thunk_proto is not a ThunkProto" in error \
            else "export fails: " + error
    if "thunky.ptx_kernel" not in text and stripped == printed:
        return "exact"
    # Otherwise import gave the canonical form (replica groups as dense
    # arrays, a first-class thunk kept in call_thunk_proto opened up, a
    # ptx_kernel as the CustomKernelThunk it exports to): that must be a
    # fixed point, in text and in bytes.
    exported2, stripped2, error = trip(stripped)
    if error or stripped2 != stripped:
        return "import(export(m)) is not a fixed point"
    return "canonical"


def run_bytes(tool, data):
    proc = subprocess.run(tool, input=data, capture_output=True)
    return proc.returncode, proc.stdout, proc.stderr.decode(errors="replace")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", required=True,
                        help="path to upstream-expected-mlir.txt")
    parser.add_argument("--tool", action="append", required=True,
                        help="opt command line, e.g. 'thunky-opt' (repeatable)")
    parser.add_argument("--translate",
                        help="thunky-translate command: also check export/import")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    if not os.path.exists(args.reference):
        print("upstream test modules: %s not found, nothing checked"
              % args.reference)
        return 2

    modules, skipped = [], 0
    for header, body in read_entries(args.reference):
        text = extract_module(header, body)
        if text is None:
            skipped += 1
        else:
            modules.append((header.split(" ")[0], header, text))

    failures, exact, printer_outputs = [], 0, 0
    exact_trips, canonical_trips, placeholders = 0, 0, 0
    for name, header, text in modules:
        outputs = []
        for tool in args.tool:
            error, printed = check(tool.split(), text)
            if error:
                failures.append("%s [%s]: %s" % (name, tool, error))
            outputs.append(printed)
        if args.translate and outputs[0] is not None:
            error = check_translate(args.tool[0].split(), args.translate.split(),
                                    text, outputs[0])
            if error == "placeholder":
                placeholders += 1
            elif error == "exact":
                exact_trips += 1
            elif error == "canonical":
                canonical_trips += 1
            else:
                failures.append("%s [translate]: %s" % (name, error))
        # Expected printer output of upstream's newest Python tests.
        if name.startswith("py:"):
            printer_outputs += 1
            same = outputs[0] is not None and outputs[0].strip() == text.strip()
            exact += same
            if args.verbose and not same:
                print("differs from upstream's printer: " + name)
        if args.verbose:
            print("ok  " if not any(name in f for f in failures) else "FAIL", name)

    for failure in failures:
        print("FAIL " + failure)
    passed = len(modules) - len({f.split(" ")[0] for f in failures})
    print("upstream test modules: %d found, %d parse and round-trip, "
          "%d fail; %d of %d newest-printer outputs reprinted exactly; "
          "%d substring-only entries skipped"
          % (len(modules), passed, len(modules) - passed, exact,
             printer_outputs, skipped))
    if args.translate:
        print("upstream test modules through export and import: %d come back "
              "as written, %d in canonical form, %d hold placeholder "
              "thunk_proto bytes, %d fail"
              % (exact_trips, canonical_trips, placeholders,
                 len(modules) - exact_trips - canonical_trips - placeholders))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
