#!/usr/bin/env python3
"""Checks the folders keep to the layers docs/building.md states.

Reads two tables from docs/building.md: the C API's (which library each
header of include/thunky-c belongs to; a header's folder must name that
library, and a header at the top that the table does not list must only
forward to its namesake in a folder) and "who may use whom" (which
libraries each folder may use, and of a library it may not, the symbols it
may). Then, for each folder, every thunky-c header its sources include, and
every symbol its built objects take from another folder's objects, must
belong to a library it may use. Prints one line per folder, or each
violation and exits 1.

usage: layers.py [--doc BUILDING_MD] SOURCE_ROOT BUILD_ROOT
"""
import os
import re
import subprocess
import sys

FOLDERS = ["base", "format", "dialect", "translate", "passes", "runtime"]


def tables(doc):
    headers, uses = {}, {}
    for line in open(doc, encoding="utf-8"):
        m = re.match(r"\| `thunky-c/((?:\w+/)?\w+\.h)` \| (\w+) \|", line)
        if m:
            headers[m.group(1)] = m.group(2)
            continue
        m = re.match(r"\| (\w+) \| ([^|]+) \|$", line.strip())
        if m and m.group(1) in FOLDERS:
            text = m.group(2)
            libs = set(re.findall(r"\b(%s)\b" % "|".join(FOLDERS), text.split(" of ")[0]))
            only = {}
            for lib, syms in re.findall(r"of (\w+) only ((?:`\w+`(?:, )?)+)", text):
                only[lib] = set(re.findall(r"`(\w+)`", syms))
            uses[m.group(1)] = (libs, only)
    return headers, uses


def forwards_to(path):
    """The header a forwarding header includes, if it includes only that."""
    lines = [l for l in open(path, encoding="utf-8") if l.lstrip().startswith("#")]
    m = len(lines) == 1 and re.match(r'#\s*include\s+"thunky-c/(\w+/\w+\.h)"', lines[0])
    return m.group(1) if m else None


def sources(root, folder):
    for d, _, files in os.walk(os.path.join(root, folder)):
        for f in sorted(files):
            if f.endswith((".c", ".h", ".cpp")):
                yield os.path.join(d, f)


def objects(build, folder):
    for d, _, files in os.walk(os.path.join(build, folder)):
        if "CMakeFiles" not in d:
            continue
        for f in sorted(files):
            if f.endswith(".o"):
                yield os.path.join(d, f)


def symbols(paths):
    """(defined, undefined) global symbols of the objects."""
    defined, undefined = set(), set()
    if not paths:
        return defined, undefined
    out = subprocess.run(["nm", "-P", "-g"] + paths, capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2 or line.endswith(":"):
            continue
        (undefined if parts[1] == "U" else defined).add(parts[0])
    return defined, undefined


def main():
    args = sys.argv[1:]
    doc = None
    if len(args) == 4 and args[0] == "--doc":
        doc, args = args[1], args[2:]
    if len(args) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    root, build = args
    headers, uses = tables(doc or os.path.join(root, "docs", "building.md"))
    bad = []
    top = os.path.join(root, "include", "thunky-c")
    present = set()
    for d, _, files in os.walk(top):
        present |= {os.path.relpath(os.path.join(d, f), top) for f in files if f.endswith(".h")}
    forwarding = {}
    for h in sorted(present - set(headers)):
        target = forwards_to(os.path.join(top, h))
        if target in headers and os.path.basename(target) == h:
            forwarding[h] = target
        else:
            bad.append("include/thunky-c/%s: not in docs/building.md's table of headers" % h)
    for h, lib in sorted(headers.items()):
        if "/" in h and h.split("/")[0] != lib:
            bad.append("include/thunky-c/%s: in the folder of %s, but docs/building.md says %s"
                       % (h, h.split("/")[0], lib))
    for folder in FOLDERS:
        if folder not in uses:
            bad.append("%s: not in docs/building.md's table of who may use whom" % folder)
    if bad:
        print("\n".join(bad))
        return 1
    print("include/thunky-c: %d headers in %d library folders, %d at the top, %d forwarding"
          % (sum("/" in h for h in headers), len({h.split("/")[0] for h in headers if "/" in h}),
             sum("/" not in h for h in headers), len(forwarding)))
    # Each folder's objects (format's include the schema's generated code),
    # read once: what they define and what they take from elsewhere.
    owner, taken = {}, {}
    for folder in FOLDERS:
        objs = list(objects(build, folder))
        if not objs:
            print("%s: no objects under %s" % (folder, os.path.join(build, folder)))
            return 1
        defined, taken[folder] = symbols(objs)
        for s in defined:
            owner.setdefault(s, folder)
    for folder in FOLDERS:
        libs, only = uses[folder]
        allowed = libs | {"all"}
        includes = symbols_taken = 0
        for path in sources(root, folder):
            for n, line in enumerate(open(path, encoding="utf-8"), 1):
                m = re.match(r'\s*#\s*include\s+"thunky-c/((?:\w+/)?\w+\.h)"', line)
                if not m:
                    continue
                includes += 1
                if m.group(1) in forwarding:
                    bad.append("%s:%d: includes thunky-c/%s, which only forwards to thunky-c/%s"
                               % (os.path.relpath(path, root), n, m.group(1),
                                  forwarding[m.group(1)]))
                    continue
                lib = headers.get(m.group(1), "?")
                if lib not in allowed and lib not in only:
                    bad.append("%s:%d: includes thunky-c/%s, of %s, which %s may not use"
                               % (os.path.relpath(path, root), n, m.group(1), lib, folder))
        for s in sorted(taken[folder]):
            lib = owner.get(s)
            if lib is None or lib == folder:
                continue
            symbols_taken += 1
            if lib not in allowed and s not in only.get(lib, set()):
                bad.append("%s: its objects use %s, of %s, which %s may not use"
                           % (folder, s, lib, folder))
        print("%s: %d thunky-c includes, %d symbols from other folders, may use %s"
              % (folder, includes, symbols_taken, ", ".join(sorted(libs))))
    if bad:
        print("\n".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
