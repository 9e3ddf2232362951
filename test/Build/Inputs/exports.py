"""Lists what a shared library exports that no public header declares.

  exports.py --headers DIR [--headers DIR...] [--cxx] [--complete DIR
             [--defined-elsewhere NAME...]] LIBRARY...

Every defined dynamic symbol of each LIBRARY (nm -D) must be a word of some
header (.h, or MLIR's generated .h.inc) under a --headers folder. With
--complete, the other way round too: each function or object the headers
under DIR mark for export (THUNKY_EXPORT, MLIR_CAPI_EXPORTED) must be
exported by one of the LIBRARY. With --cxx, C++ symbols (_Z...) pass too:
the plugin's dialect is MLIR C++, whose template instances (TypeID
resolvers, op models) MLIR finds by name. Prints each symbol that is not
declared, and a count per library; exit 1 if there is one."""
import argparse
import os
import re
import subprocess
import sys

# The linker's own symbols, in every shared library; names beginning "__"
# are the implementation's too (a sanitizer build's section bounds).
LINKER = {"_init", "_fini", "_edata", "_end"}


def declared(folders):
    words = set()
    for folder in folders:
        for base, _, files in os.walk(folder):
            for name in files:
                if name.endswith((".h", ".h.inc")):
                    with open(os.path.join(base, name), errors="replace") as f:
                        words.update(re.findall(r"[A-Za-z_]\w*", f.read()))
    return words


def marked(folder):
    """The names the headers under `folder` declare for export."""
    names = set()
    for base, _, files in os.walk(folder):
        for name in files:
            if name.endswith(".h"):
                with open(os.path.join(base, name)) as f:
                    text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
                text = re.sub(r"^#.*$", "", text, flags=re.M)
                for decl in re.findall(r"\b(?:THUNKY_EXPORT|MLIR_CAPI_EXPORTED)\b([^;{(]*)", text):
                    found = re.findall(r"[A-Za-z_]\w*", decl)
                    if found and found[-1] not in ("THUNKY_EXPORT", "MLIR_CAPI_EXPORTED"):
                        names.add(found[-1])
    return names


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", "-P", library], check=True,
                         capture_output=True, text=True).stdout
    return sorted({line.split()[0].split("@")[0] for line in out.splitlines() if line.strip()})


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("--headers", action="append", required=True)
    parser.add_argument("--cxx", action="store_true")
    parser.add_argument("--complete", metavar="DIR")
    parser.add_argument("--defined-elsewhere", action="append", default=[], metavar="NAME",
                        help="declared for others to define (a host-kernel library's "
                             "thunky_register_v1)")
    parser.add_argument("libraries", nargs="+")
    args = parser.parse_args(argv)
    words = declared(args.headers)
    status = 0
    everything = set()
    for library in args.libraries:
        symbols = exported(library)
        everything.update(symbols)
        stray = [s for s in symbols if s not in words and s not in LINKER and
                 not s.startswith("__") and not (args.cxx and s.startswith("_Z"))]
        for s in stray:
            print("%s: exports %s, which no public header declares" % (os.path.basename(library), s))
        print("%s: %d symbols exported, %d undeclared" % (os.path.basename(library), len(symbols),
                                                          len(stray)))
        status |= bool(stray)
    if args.complete:
        missing = sorted(marked(args.complete) - everything - set(args.defined_elsewhere))
        for name in missing:
            print("%s declares %s for export, which no library exports" % (args.complete, name))
        print("%s: %d declared for export, %d missing" % (args.complete, len(marked(args.complete)),
                                                          len(missing)))
        status |= bool(missing)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
