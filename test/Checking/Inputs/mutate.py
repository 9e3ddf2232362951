"""mutate.py MODULE.mlir EDIT ARGS... > MUTANT.mlir: a deliberately wrong edit.

The module is one thunky-translate --import-thunky printed: an op starts a
line, and a long property dictionary continues it over the next lines.
Edits (REGEX picks the first line it matches, in the whole module; "that op"
is every line of it, its regions too):
  replace REGEX OLD NEW   in that line, OLD (a regex) becomes NEW, once
  delete REGEX            that op goes
  move-before REGEX TARGET
                          that op (with the slice_buffer lines just above it
                          that define its operands) moves before the line
                          TARGET matches
  move-after REGEX TARGET that op moves after the op TARGET matches
  swap-branches REGEX [I J]
                          regions I and J (0 and 1) of that thunky.cond swap
"""
import os
import re
import sys

# What an op spans is read as the mutation campaign reads it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "scripts"))
from mutation_campaign import op_end  # noqa: E402


def find(lines, pattern, start=0):
    for i in range(start, len(lines)):
        if re.search(pattern, lines[i]):
            return i
    sys.exit("mutate.py: no line matches %r" % pattern)


def operands_above(lines, i):
    """The slice_buffer lines just above line i that define its operands."""
    line = lines[i]
    if re.match(r"\s*%\w+ = ", line):
        line = line.split("=", 1)[1]
    used = set(re.findall(r"%\w+", line))
    first = i
    while first > 0:
        m = re.match(r"\s*(%\w+) = thunky.slice_buffer", lines[first - 1])
        if not m or m.group(1) not in used:
            break
        first -= 1
    return first


def region_bounds(lines, i):
    """[(open, close)] line pairs of the regions of the op starting at line i:
    a line "}, {" or "} body {" at the op's level closes one and opens the next."""
    regions, depth, opened = [], 1, i
    for k in range(i + 1, len(lines)):
        s = lines[k].strip()
        if s.startswith("}") and s.endswith("{"):
            if depth == 1:
                regions.append((opened, k))
                opened = k
        elif s.startswith("}"):
            depth -= 1
            if depth == 0:
                regions.append((opened, k))
                return regions
        elif s.endswith("{"):
            depth += 1
    sys.exit("mutate.py: unbalanced regions")


def main(argv):
    path, edit, args = argv[1], argv[2], argv[3:]
    lines = open(path).read().split("\n")
    if edit == "replace":
        i = find(lines, args[0])
        new, n = re.subn(args[1], args[2], lines[i], count=1)
        if not n:
            sys.exit("mutate.py: %r is not in %r" % (args[1], lines[i]))
        lines[i] = new
    elif edit == "delete":
        i = find(lines, args[0])
        del lines[i:op_end(lines, i) + 1]
    elif edit in ("move-before", "move-after"):
        i = find(lines, args[0])
        first = operands_above(lines, i)
        last = op_end(lines, i)
        op = lines[first:last + 1]
        del lines[first:last + 1]
        t = find(lines, args[1])
        at = t if edit == "move-before" else op_end(lines, t) + 1
        lines[at:at] = op
    elif edit == "swap-branches":
        i = find(lines, args[0])
        a, b = (int(args[1]), int(args[2])) if len(args) > 2 else (0, 1)
        regions = region_bounds(lines, i)
        (oa, ca), (ob, cb) = regions[a], regions[b]
        lines[oa + 1:cb] = lines[ob + 1:cb] + lines[ca:ob + 1] + lines[oa + 1:ca]
    else:
        sys.exit("mutate.py: unknown edit %r" % edit)
    sys.stdout.write("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv)
