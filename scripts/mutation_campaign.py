#!/usr/bin/env python3
"""mutation_campaign.py [--sample N] [--jobs J] [--report FILE] INPUT...

Makes wrong programs of real executables, one class of mistake at a time,
and asks both equivalence checks (docs/checking.md) about each against the
original: thunky-run --kernels=fingerprint --compare and
--backend symbolic --compare, and for the async class thunky-check-races
too. A mutant is caught when no check calls it `same`. One that some check
calls `same` survives, and needs a reason it computes what the original
does; the reasons are found here, by means that do not use either check:

  unchanged     the mutant exports to the original's bytes
  no race       (async) the done moved across no op that touches what its
                region touches: thunky-check-races finds no race the original
                does not have
  dead store    (init) every byte the deleted op wrote is written again
                before any op reads it, or never read again and no output

A survivor without a reason is listed as UNEXPLAINED and the script exits
1. The classes (the issue's list):

  init      a memzero, memset, copy or launch deleted (initialisations
            dropped, copies and memsets removed, a kernel's writes lost)
  groups    a collective's replica groups permuted at the same size (two
            groups trade members; a group's order reversed where order
            places data: all-gather, all-to-all, reduce-scatter), a
            permute's pairs reversed
  operands  two read operands of a launch swapped; a slice moved within its
            buffer by its size, half its size, or one or two 4-byte elements
  alias     a launch's operand replaced by one of its read operands: a
            written one (an output onto its input), or a read one (two
            operands made one)
  async     an async_done moved after the next op, or the one after it
  control   a while loop's trip count changed by one; a conditional's
            branches swapped

Inputs are executables in any layering thunky reads, or text: XLA's golden
AOT wrappers (.pbtxt) and bare executables (.textproto). --sample N takes the
first N mutants of each class of each input. The report (markdown) has the
counts per class and every survivor with its reason; stdout has one line.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
CLASSES = ["init", "groups", "operands", "alias", "async", "control"]
LAYOUTS = [["--ranks", "2"], ["--ranks", "4"], ["--ranks", "8"],
           ["--ranks", "2", "--partitions", "2"], ["--ranks", "4", "--partitions", "4"],
           ["--ranks", "8", "--partitions", "8"], ["--ranks", "1"]]


def run(tools, args, timeout=300):
    try:
        tool = os.path.join(tools, args[0]) if tools else args[0]
        p = subprocess.run([tool] + args[1:], capture_output=True,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 124, "timed out"


# --- the module as lines ------------------------------------------------------

def op_end(lines, i):
    """The last line of the op starting at line i: where its brackets close."""
    depth = 0
    for k in range(i, len(lines)):
        quoted = escaped = False
        for c in lines[k]:
            if quoted:
                quoted = escaped or c != '"'
                escaped = not escaped and c == "\\"
            elif c == '"':
                quoted = True
            elif c in "{[(":
                depth += 1
            elif c in "}])":
                depth -= 1
        if depth <= 0:
            return k
    return len(lines) - 1


SLICE = re.compile(r"^\s*(%\w+) = thunky\.slice_buffer (%\w+) offset = (\d+) : <(\d+)> -> <(\d+)>")
LAUNCH = re.compile(r'thunky\.launch "[^"]*"\(([^:]*) : ([^)]*)\)')
WRITTEN = re.compile(r"written = \[([^\]]*)\]")


def operands(text):
    return [o.strip() for o in text.split(",") if o.strip()]


class Module:
    def __init__(self, text):
        self.lines = text.split("\n")
        # A body ends at the dialect resources; mutations stay above them.
        self.end = next((i for i, l in enumerate(self.lines) if l.startswith("{-#")),
                        len(self.lines))

    def ops(self, pattern):
        return [i for i in range(self.end) if re.search(pattern, self.lines[i])]

    def text(self, lines=None):
        return "\n".join(lines if lines is not None else self.lines)


def slices_of(lines):
    """Each slice value's (root, offset, size), and each function
    argument's size, by name, per function (names repeat per region, so
    the last definition above a use wins: kept per line)."""
    defs = {}
    for i, l in enumerate(lines):
        m = SLICE.match(l)
        if m:
            defs.setdefault(m.group(1), []).append((i, m.group(2), int(m.group(3)),
                                                    int(m.group(5))))
    return defs


def resolve(defs, name, line):
    """(root, offset, size) of value `name` as used at `line`; size None for
    a root (a function argument or a constant)."""
    best = None
    for i, root, offset, size in defs.get(name, []):
        if i < line:
            best = (root, offset, size)
    return best if best else (name, 0, None)


# --- mutants ------------------------------------------------------------------

def mutants_init(m):
    for i in m.ops(r"^\s*thunky\.(memzero|memset32|copy|launch) "):
        kind = re.search(r"thunky\.(\w+)", m.lines[i]).group(1)
        end = op_end(m.lines, i)
        yield ("delete %s at line %d" % (kind, i + 1), m.lines[:i] + m.lines[end + 1:], i)


def mutants_groups(m):
    for i in m.ops(r"replica_groups = \[array<"):
        line = m.lines[i]
        field = re.search(r"replica_groups = \[((?:array<i64: [\d, ]+>(?:, )?)+)\]", line)
        if not field:
            continue
        groups = [[int(x) for x in g.split(",")]
                  for g in re.findall(r"array<i64: ([\d, ]+)>", field.group(1))]
        ordered = re.search(r"thunky\.(all_gather|all_to_all|reduce_scatter)", line)

        def put(gs, what):
            text = ", ".join("array<i64: %s>" % ", ".join(map(str, g)) for g in gs)
            new = line[:field.start(1)] + text + line[field.end(1):]
            return (what + " at line %d" % (i + 1), m.lines[:i] + [new] + m.lines[i + 1:], i)

        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                if len(groups[a]) >= 2 and len(groups[b]) >= 2:
                    gs = [list(g) for g in groups]
                    gs[a][-1], gs[b][0] = gs[b][0], gs[a][-1]
                    yield put(gs, "groups %d and %d trade members" % (a, b))
            if ordered and len(groups[a]) >= 2:
                gs = [list(g) for g in groups]
                gs[a].reverse()
                yield put(gs, "group %d's order reversed" % a)
            if ordered and len(groups[a]) >= 3:
                gs = [list(g) for g in groups]
                gs[a][0], gs[a][1] = gs[a][1], gs[a][0]
                yield put(gs, "group %d's first two members swapped" % a)
    for i in m.ops(r"source_target_pairs = \[array<"):
        line = m.lines[i]
        pairs = re.findall(r"array<i64: (\d+), (\d+)>", line)
        if not pairs or all(a == b for a, b in pairs):
            continue
        new = re.sub(r"array<i64: (\d+), (\d+)>", r"array<i64: \2, \1>", line)
        yield ("permute pairs reversed at line %d" % (i + 1),
               m.lines[:i] + [new] + m.lines[i + 1:], i)


def launch_args(line):
    call = LAUNCH.search(line)
    written = WRITTEN.search(line)
    if not call or not written:
        return None
    args, types = operands(call.group(1)), operands(call.group(2))
    flags = [w.strip() == "true" for w in written.group(1).split(",") if w.strip()]
    if len(args) != len(types) or len(args) != len(flags):
        return None
    return call, args, types, flags


def with_args(line, call, args, types):
    return line[:call.start(1)] + ", ".join(args) + " : " + ", ".join(types) + line[call.end(2):]


def launches(m):
    """Each launch whose operands read: (line, call match, args, types, written)."""
    for i in m.ops(r"thunky\.launch "):
        parsed = launch_args(m.lines[i])
        if parsed:
            yield (i,) + parsed


def mutants_operands(m):
    for i, call, args, types, flags in launches(m):
        reads = [k for k in range(len(args)) if not flags[k]]
        for a in range(len(reads)):
            for b in range(a + 1, len(reads)):
                x, y = reads[a], reads[b]
                if types[x] != types[y] or args[x] == args[y]:
                    continue
                new = list(args)
                new[x], new[y] = new[y], new[x]
                yield ("operands %d and %d swapped at line %d" % (x, y, i + 1),
                       m.lines[:i] + [with_args(m.lines[i], call, new, types)] + m.lines[i + 1:], i)
    # Each slice moved by its size, half its size, or one or two 4-byte
    # elements, where it stays inside its buffer.
    for i in range(m.end):
        s = SLICE.match(m.lines[i])
        if not s:
            continue
        offset, whole, size = int(s.group(3)), int(s.group(4)), int(s.group(5))
        for moved in sorted({offset + size, offset - size, offset + 4, offset - 4,
                             offset + 8, offset - 8, offset + size // 2}):
            if moved < 0 or moved + size > whole or moved == offset:
                continue
            new = m.lines[i].replace("offset = %d :" % offset, "offset = %d :" % moved, 1)
            yield ("slice moved from %d to %d at line %d" % (offset, moved, i + 1),
                   m.lines[:i] + [new] + m.lines[i + 1:], i)


def mutants_alias(m):
    for i, call, args, types, flags in launches(m):
        for w in range(len(args)):
            for r in range(len(args)):
                if r == w or flags[r] or types[r] != types[w] or args[r] == args[w]:
                    continue
                if not flags[w] and r > w:
                    continue  # two reads made one: once per pair
                new = list(args)
                new[w] = args[r]
                what = "written operand" if flags[w] else "read operand"
                yield ("%s %d made operand %d at line %d" % (what, w, r, i + 1),
                       m.lines[:i] + [with_args(m.lines[i], call, new, types)] + m.lines[i + 1:],
                       i)


def mutants_async(m):
    """Each done moved after the next op, then after the one after it."""
    for i in m.ops(r"^\s*thunky\.async_done "):
        end = i
        for _ in range(2):
            k = end + 1
            while k < m.end and SLICE.match(m.lines[k]):
                k += 1
            if k >= m.end or re.match(r"^\s*(return|\}|thunky\.async_done)", m.lines[k]):
                break
            end = op_end(m.lines, k)
            lines = m.lines[:i] + m.lines[i + 1:end + 1] + [m.lines[i]] + m.lines[end + 1:]
            yield ("async_done at line %d moved after line %d" % (i + 1, end + 1), lines, i)


def mutants_control(m):
    for i in m.ops(r"trip_count = \d+"):
        n = int(re.search(r"trip_count = (\d+)", m.lines[i]).group(1))
        for other in (n + 1, n - 1):
            if other < 0:
                continue
            new = re.sub(r"trip_count = \d+", "trip_count = %d" % other, m.lines[i], count=1)
            yield ("trip count %d made %d at line %d" % (n, other, i + 1),
                   m.lines[:i] + [new] + m.lines[i + 1:], i)
    for i in m.ops(r"^\s*thunky\.cond "):
        end = op_end(m.lines, i)
        # Branch regions start at the cond line and at each "}, {" line.
        starts = [i] + [k for k in range(i + 1, end) if re.match(r"^\s*\}, \{\s*$", m.lines[k])]
        if len(starts) < 2:
            continue
        bodies = []
        for n, s in enumerate(starts):
            stop = starts[n + 1] if n + 1 < len(starts) else end
            bodies.append(m.lines[s + 1:stop])
        bodies[0], bodies[1] = bodies[1], bodies[0]
        lines = m.lines[:i + 1]
        for n, body in enumerate(bodies):
            lines += body
            lines.append(m.lines[starts[n + 1]] if n + 1 < len(starts) else m.lines[end])
        yield ("branches 0 and 1 swapped at line %d" % (i + 1), lines + m.lines[end + 1:], i)


MAKERS = {"init": mutants_init, "groups": mutants_groups, "operands": mutants_operands,
          "alias": mutants_alias, "async": mutants_async, "control": mutants_control}


# --- reasons a survivor is equivalent, found without the checks ---------------

def in_unrun_condition(lines, i):
    """Whether line i is in the condition of a loop with a known trip count,
    or defines a slice only such a loop's predicate uses: XLA runs the body
    that many times and never the condition (docs/runtime.md)."""
    for w in range(len(lines)):
        if not re.match(r"^\s*thunky\.while ", lines[w]):
            continue
        end = op_end(lines, w)
        if not re.search(r"trip_count = \d+", lines[end]):
            continue
        body = next((k for k in range(w, end + 1) if re.search(r"\} body \{\s*$", lines[k])), end)
        if w < i < body:
            return True
        slice_ = SLICE.match(lines[i])
        if slice_ and i < w:
            name = slice_.group(1)
            uses = [k for k in range(i + 1, len(lines))
                    if re.search(re.escape(name) + r"\b", lines[k])
                    and not re.match(r"^\s*" + re.escape(name) + r" = ", lines[k])]
            redefined = [k for k in range(i + 1, len(lines))
                         if re.match(r"^\s*" + re.escape(name) + r" = ", lines[k])]
            live = [k for k in uses if not redefined or k < redefined[0]]
            if live == [w]:
                return True
    return False


def dead_store(lines, i):
    """Whether the op at line i (a memzero, memset or copy) writes only bytes
    that straight-line ops after it, in its block, write whole before any op
    reads them; conservative: any op it cannot read, or a region, ends the
    proof, and bytes never written again must be scratch no later op reads."""
    defs = slices_of(lines)
    op = lines[i]
    if re.search(r"thunky\.copy ", op):
        dst = operands(re.search(r"thunky\.copy ([^:{]*)", op).group(1))[1]
    else:
        dst = operands(re.search(r"thunky\.\w+ ([^:{]*)", op).group(1))[0]
    root, start, size = resolve(defs, dst, i)
    if size is None:
        return False
    left = [(start, start + size)]
    k = op_end(lines, i) + 1
    while k < len(lines) and left:
        l = lines[k]
        if SLICE.match(l):
            k += 1
            continue
        if re.match(r"^\s*(return|\})", l):
            break
        end = op_end(lines, k)
        if end != k:
            return False  # a region: not followed here
        launch = launch_args(l)
        if launch:
            _, args, _, flags = launch
            touched = [(resolve(defs, a, k), f) for a, f in zip(args, flags)]
        elif re.search(r"thunky\.copy ", l):
            a = operands(re.search(r"thunky\.copy ([^:{]*)", l).group(1))
            touched = [(resolve(defs, a[0], k), False), (resolve(defs, a[1], k), True)]
        elif re.search(r"thunky\.(memzero|memset32) ", l):
            a = operands(re.search(r"thunky\.\w+ ([^:{]*)", l).group(1))
            touched = [(resolve(defs, a[0], k), True)]
        else:
            return False
        for (r, o, s), write in touched:
            if r != root:
                continue
            if s is None:
                return False
            if any(o < b and a < o + s for a, b in left):
                if not write:
                    return False  # read (an in-place update reads too)
                if launch:
                    return False  # a kernel's written argument may be read
                cut = []
                for a, b in left:
                    if a < o:
                        cut.append((a, min(b, o)))
                    if b > o + s:
                        cut.append((max(a, o + s), b))
                left = cut
        k = end + 1
    if not left:
        return True
    # Bytes never written again: dead only in scratch no later op names.
    scratch = re.search(re.escape(root) + r": !thunky\.buffer<\d+> \{thunky\.allocation = "
                        r"#thunky\.allocation<index = \d+, scratch>", "\n".join(lines))
    later = lines[op_end(lines, i) + 1:]
    return bool(scratch) and not any(re.search(re.escape(root) + r"\b", l) for l in later
                                     if not l.startswith("{-#"))


def written_only(lines, i):
    """The ops that use the slice defined at line i, when each only writes
    it whole (a launch's written argument, a memzero or memset target, a
    copy's destination); None when one reads it, or it is used otherwise."""
    name = SLICE.match(lines[i]).group(1)
    users = []
    for k in range(i + 1, len(lines)):
        l = lines[k]
        if re.match(r"^\s*" + re.escape(name) + r" = ", l):
            break
        if not re.search(re.escape(name) + r"\b", l):
            continue
        launch = launch_args(l)
        if launch:
            _, args, _, flags = launch
            if any(a == name and not f for a, f in zip(args, flags)):
                return None
        elif re.search(r"thunky\.copy ", l):
            a = operands(re.search(r"thunky\.copy ([^:{]*)", l).group(1))
            if a[0] == name:
                return None
        elif not re.search(r"thunky\.(memzero|memset32) ", l):
            return None
        if op_end(lines, k) != k:
            return None
        users.append(k)
    return users


def poisoned(lines, i, users):
    """lines with what the slice at line i holds replaced by zeros after
    each op that writes it."""
    s = SLICE.match(lines[i])
    out = list(lines)
    for k in reversed(users):
        indent = re.match(r"^\s*", lines[k]).group(0)
        out.insert(k + 1, "%sthunky.memzero %s : <%s>" % (indent, s.group(1), s.group(5)))
    return out


def dead_writes(tools, work, job):
    """Whether a moved slice is only written, and what is written there is
    read by nothing, in the original and in the mutant: replacing it with
    zeros right after each write changes no output of either (the
    fingerprint check), so each program is the same as one that never
    writes it, and the two are the same."""
    i, lines, mutant = job["line"], job["lines"], job["mutant"]
    if not SLICE.match(lines[i]):
        return False
    users = written_only(lines, i)
    if not users:
        return False
    for name, module in (("original", lines), ("mutant", mutant)):
        plain = os.path.join(work, name + "-plain.mlir")
        dead = os.path.join(work, name + "-dead.mlir")
        with open(plain, "w") as f:
            f.write("\n".join(module))
        with open(dead, "w") as f:
            f.write("\n".join(poisoned(module, i, users)))
        code, out = run(tools, ["thunky-run", "--kernels=fingerprint"] + job["layout"] +
                        [plain, "--compare", dead])
        if verdict(code, out) != "same":
            return False
    return True


# --- one input ---------------------------------------------------------------

def verdict(code, out):
    if code == 0 and out.startswith("same:"):
        return "same"
    if code == 1:
        return "different"
    if "cannot prove" in out:
        return "cannot prove"
    return "error: " + out.strip().split("\n")[-1][:200]


def layout_of(tools, exe):
    for layout in LAYOUTS:
        fp = run(tools, ["thunky-run", "--kernels=fingerprint", "--seed", "1"] + layout + [exe])[0] == 0
        sym = run(tools, ["thunky-run", "--backend symbolic", "--print"] + layout + [exe])[0] == 0
        if fp or sym:
            return layout, fp, sym
    return None, False, False


def races(tools, path):
    """How many async regions thunky-check-races finds a race of."""
    _, out = run(tools, ["thunky-opt", "--thunky-check-races", path, "-o", "/dev/null"])
    return len(re.findall(r"error: 'thunky\.async_start' op races with", out))


def check_mutant(job):
    """One mutant: job holds tools, exe, original (its exported bytes),
    lines (its module's), layout, fp, sym (which checks run it), cls, what,
    mutant (its lines), line (where the edit is) and work (a folder)."""
    tools, work, layout = job["tools"], job["work"], job["layout"]
    path = os.path.join(work, "mutant.mlir")
    with open(path, "w") as f:
        f.write("\n".join(job["mutant"]))
    code, out = run(tools, ["thunky-opt", path, "-o", "/dev/null"])
    if code != 0:
        return job, "invalid", {}, None
    results = {}
    if job["fp"]:
        results["fingerprint"] = verdict(*run(tools, ["thunky-run", "--kernels=fingerprint"] +
                                              layout + [job["exe"], "--compare", path]))
    if job["sym"]:
        results["symbolic"] = verdict(*run(tools, ["thunky-run", "--backend symbolic"] + layout +
                                           [job["exe"], "--compare", path]))
    if job["cls"] == "async":
        results["races"] = "race" if races(tools, path) > job["races"] else "none"
    # A check that fails on the mutant where the original runs does not call
    # it the same; nor does a race the original does not have, as a proof
    # needs the race check too.
    if not any(v == "same" for v in results.values()) or results.get("races") == "race":
        return job, "caught", results, None
    exported = os.path.join(work, "mutant.pb")
    code, _ = run(tools, ["thunky-translate", "--export-thunky", path, "-o", exported])
    if code == 0 and open(exported, "rb").read() == job["original"]:
        return job, "survived", results, "unchanged: it exports to the original's bytes"
    if job["cls"] == "async" and results.get("races") == "none":
        return job, "survived", results, ("no race: the done moved across no op that touches "
                                           "what its region touches (thunky-check-races finds "
                                           "no race the original does not have)")
    if in_unrun_condition(job["lines"], job["line"]):
        return job, "survived", results, ("never run: it is in the condition of a loop with a "
                                          "known trip count, which XLA never runs")
    if job["cls"] == "init" and dead_store(job["lines"], job["line"]):
        return job, "survived", results, ("dead store: every byte it wrote is written again "
                                          "before any op reads it")
    if job["cls"] == "operands" and dead_writes(tools, work, job):
        return job, "survived", results, ("dead writes: the slice is only written, and nothing "
                                          "reads what is written there, in the original or the "
                                          "mutant (zeros in its place after each write change "
                                          "no output)")
    return job, "survived", results, None


def campaign(tools, exe, sample, jobs):
    """Every mutant of one executable: (name, layout or None, why not, results)."""
    name = os.path.basename(exe)
    work = tempfile.mkdtemp(prefix="mutants.")
    try:
        # Text: XLA's golden AOT wrapper (.pbtxt) or a bare executable.
        if exe.endswith((".pbtxt", ".textproto")):
            message = ("xla.HumanReadableAotExecutable" if exe.endswith(".pbtxt")
                       else "xla.gpu.GpuExecutableProto")
            encoded = os.path.join(work, "input.pb")
            with open(exe) as text, open(encoded, "wb") as out:
                subprocess.run([os.path.join(SCRIPTS, "encode.sh"), message], stdin=text,
                               stdout=out, check=True)
            exe = encoded
        mlir = os.path.join(work, "original.mlir")
        code, out = run(tools, ["thunky-translate", "--import-thunky", exe, "-o", mlir])
        if code:
            return name, None, "does not import: " + out.strip()[:200], []
        original = os.path.join(work, "original.pb")
        run(tools, ["thunky-translate", "--export-thunky", mlir, "-o", original])
        layout, fp, sym = layout_of(tools, exe)
        if not layout:
            _, why = run(tools, ["thunky-run", "--kernels=fingerprint", "--seed", "1", exe])
            return name, None, why.strip().split("\n")[-1][:200], []
        m = Module(open(mlir).read())
        base = {"tools": tools, "exe": exe, "original": open(original, "rb").read(),
                "lines": m.lines, "layout": layout, "fp": fp, "sym": sym,
                "races": races(tools, mlir)}
        todo = []
        for cls in CLASSES:
            for n, (what, lines, line) in enumerate(MAKERS[cls](m)):
                if sample and n >= sample:
                    break
                d = os.path.join(work, "%s-%d" % (cls, n))
                os.mkdir(d)
                todo.append(dict(base, cls=cls, what=what, mutant=lines, line=line, work=d))
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(check_mutant, todo))
        return name, " ".join(layout), None, results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--tools", help="where thunky-run, -opt and -translate are "
                        "(default: on PATH)")
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--report")
    a = parser.parse_args()
    for tool in ("thunky-run", "thunky-opt", "thunky-translate"):
        if not (os.access(os.path.join(a.tools, tool), os.X_OK) if a.tools
                else shutil.which(tool)):
            sys.exit("mutation_campaign.py: %s not found %s" %
                     (tool, "in " + a.tools if a.tools else "on PATH (--tools DIR)"))
    counts = {c: {"mutants": 0, "caught": 0, "fingerprint": 0, "symbolic": 0, "cannot": 0,
                  "explained": 0, "unexplained": 0, "invalid": 0, "error": 0} for c in CLASSES}
    survivors, errors, inputs, skipped = [], [], [], []
    for exe in a.inputs:
        name, layout, why, results = campaign(a.tools, exe, a.sample, a.jobs)
        if layout is None:
            skipped.append((name, why))
            continue
        inputs.append((name, layout, len(results)))
        for job, outcome, checks, reason in results:
            c = counts[job["cls"]]
            if outcome == "invalid":
                c["invalid"] += 1
                continue
            c["mutants"] += 1
            if any(v.startswith("error") for v in checks.values()):
                c["error"] += 1
                errors.append((name, job["what"], checks))
            c["fingerprint"] += checks.get("fingerprint") == "different"
            c["symbolic"] += checks.get("symbolic") == "different"
            c["cannot"] += "cannot prove" in checks.values()
            if outcome == "caught":
                c["caught"] += 1
            else:
                c["explained" if reason else "unexplained"] += 1
                survivors.append((name, job["cls"], job["what"], checks, reason))
    total = {k: sum(c[k] for c in counts.values()) for k in counts["init"]}
    line = ("mutation campaign: %d mutants of %d executables: %d caught, %d survived as "
            "equivalent (explained), %d unexplained; %d made a check fail where the original "
            "runs (caught); %d invalid edits not counted" %
            (total["mutants"], len(inputs), total["caught"], total["explained"],
             total["unexplained"], total["error"], total["invalid"]))
    print(line)
    if a.report:
        with open(a.report, "w") as out:
            write_report(out, line, counts, inputs, skipped, survivors, errors)
    return 1 if total["unexplained"] else 0


def write_report(out, line, counts, inputs, skipped, survivors, errors):
    out.write("# Mutation campaign\n\n")
    out.write("Made by `scripts/mutation_campaign.py %s` (docs/checking.md, \"Mutation "
              "campaign\"), from the checkout's root, `build/bin` on PATH; do not edit by "
              "hand.\n\n" % " ".join(sys.argv[1:]))
    out.write(line + ".\n\n")
    out.write("| class | mutants | caught | different (fingerprint) | different (symbolic) | "
              "cannot prove | survived, explained | unexplained | a check failed | "
              "invalid edits |\n")
    out.write("|---|---|---|---|---|---|---|---|---|---|\n")
    for cls, c in counts.items():
        out.write("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n" % (
            cls, c["mutants"], c["caught"], c["fingerprint"], c["symbolic"], c["cannot"],
            c["explained"], c["unexplained"], c["error"], c["invalid"]))
    out.write("\n## Executables\n\n")
    for name, layout, n in inputs:
        out.write("- %s: %d mutants, on %s\n" % (name, n, layout))
    for name, why in skipped:
        out.write("- %s: not run: %s\n" % (name, why))
    out.write("\n## Survivors\n\nEach mutant some check calls `same`, with why it computes "
              "what the original does.\n\n")
    if not survivors:
        out.write("None.\n")
    for name, cls, what, checks, reason in survivors:
        verdicts = ", ".join("%s %s" % (k, v) for k, v in sorted(checks.items()))
        out.write("- %s, %s, %s (%s): %s\n" % (name, cls, what, verdicts,
                                               reason or "UNEXPLAINED"))
    if errors:
        out.write("\n## Checks that failed on a mutant\n\nEach is counted as caught: the "
                  "check ran the original and failed on the mutant, so it did not call them "
                  "the same.\n\n")
        for name, what, checks in errors:
            out.write("- %s, %s: %s\n" % (name, what, checks))


if __name__ == "__main__":
    sys.exit(main())
