"""Compares .npy files, or two folders of them, without numpy.

  compare_npy.py [--rtol R --atol A] EXPECTED ACTUAL

EXPECTED and ACTUAL are both files or both folders (then every .npy file of
EXPECTED must be in ACTUAL too, and the other way round). Without a
tolerance the arrays must be bit-identical. Two folders without a .npy file
are no comparison: exit 2. With one, floating-point
elements may differ by at most atol + rtol * |expected| (numpy's allclose
rule), as a GPU's TF32 GEMMs need (docs/runtime.md, "Comparing against
JAX"). Each difference is one line: the file, the largest absolute and
relative error, and the first element out of bounds with both values, so
that rounding noise and garbage read differently. Exit 0 same, 1
different, 2 unreadable input.

scripts/device-check.sh uses it for the CUDA backend against the host
backend and against JAX; it imports as a module too (compare)."""
import argparse
import ast
import math
import os
import struct
import sys

# descr (byte order stripped) -> struct code; others compare as raw bytes.
CODES = {"f2": "e", "f4": "f", "f8": "d", "i1": "b", "i2": "h", "i4": "i", "i8": "q",
         "u1": "B", "u2": "H", "u4": "I", "u8": "Q", "b1": "?"}


class NpyError(Exception):
    pass


def read(path):
    """(descr, shape, payload bytes) of a version 1-3 .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY" or len(data) < 10:
        raise NpyError("%s: not a .npy file" % path)
    major = data[6]
    if major == 1:
        length, start = struct.unpack_from("<H", data, 8)[0], 10
    elif major in (2, 3) and len(data) >= 12:
        length, start = struct.unpack_from("<I", data, 8)[0], 12
    else:
        raise NpyError("%s: .npy version %d is not one this reads" % (path, major))
    try:
        header = ast.literal_eval(data[start:start + length].decode("latin1"))
        descr, shape = header["descr"], tuple(header["shape"])
    except (ValueError, SyntaxError, KeyError, TypeError):
        raise NpyError("%s: unreadable .npy header" % path)
    if header.get("fortran_order"):
        raise NpyError("%s: Fortran-order arrays are not compared" % path)
    return descr, shape, data[start + length:]


def unravel(index, shape):
    coords = []
    for dim in reversed(shape):
        coords.append(index % dim if dim else 0)
        index = index // dim if dim else 0
    return "[%s]" % ", ".join(str(c) for c in reversed(coords))


def compare(expected_path, actual_path, rtol=0.0, atol=0.0):
    """None when the arrays agree, else one line saying how they differ."""
    descr, shape, want = read(expected_path)
    got_descr, got_shape, got = read(actual_path)
    name = os.path.basename(expected_path)
    if (descr, shape) != (got_descr, got_shape):
        return "%s: expected %s%s, got %s%s" % (name, descr, list(shape), got_descr,
                                                 list(got_shape))
    if want == got:
        return None
    code = CODES.get(descr.lstrip("<>|="))
    if code is None or descr[0] == ">":
        first = next(i for i in range(min(len(want), len(got))) if want[i] != got[i])
        return "%s: %s bytes differ, first at byte %d" % (name, descr, first)
    count = len(want) // struct.calcsize(code)
    a = struct.unpack("<%d%s" % (count, code), want)
    b = struct.unpack("<%d%s" % (count, code), got[:len(want)])
    floating = code in "efd"
    max_abs = max_rel = 0.0
    first = None
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y or (floating and math.isnan(x) and math.isnan(y)):
            continue
        if floating and (math.isinf(x) or math.isinf(y)):
            err = math.inf
        else:
            err = abs(float(x) - float(y))
        max_abs = max(max_abs, err)
        if x:
            max_rel = max(max_rel, err / abs(float(x)))
        elif err:
            max_rel = math.inf
        within = floating and (rtol or atol) and err <= atol + rtol * abs(float(x))
        if first is None and not within:
            first = (i, x, y)
    if first is None:
        return None
    i, x, y = first
    return ("%s: max abs error %.6g, max rel error %.6g; first at %s: expected %r, got %r"
            % (name, max_abs, max_rel, unravel(i, shape), x, y))


def npy_files(folder):
    return sorted(f for f in os.listdir(folder) if f.endswith(".npy"))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rtol", type=float, default=0.0)
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument("expected")
    parser.add_argument("actual")
    args = parser.parse_args(argv)
    try:
        if os.path.isdir(args.expected):
            want, got = npy_files(args.expected), npy_files(args.actual)
            lines = ["%s: only in %s" % (f, args.expected) for f in want if f not in got]
            lines += ["%s: only in %s" % (f, args.actual) for f in got if f not in want]
            pairs = [(os.path.join(args.expected, f), os.path.join(args.actual, f))
                     for f in want if f in got]
            if not want and not got:
                raise NpyError("%s and %s hold no .npy file: nothing to compare"
                               % (args.expected, args.actual))
        else:
            lines, pairs = [], [(args.expected, args.actual)]
        lines += filter(None, (compare(e, a, args.rtol, args.atol) for e, a in pairs))
    except (OSError, NpyError) as e:
        print("compare_npy: %s" % e, file=sys.stderr)
        return 2
    tolerance = " within rtol %g, atol %g" % (args.rtol, args.atol) if args.rtol or args.atol \
        else " bit for bit"
    for line in lines:
        print(line)
    print("%d array(s) compared%s: %s" % (len(pairs), tolerance,
                                          "different" if lines else "same"))
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
