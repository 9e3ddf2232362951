"""thunk_protos.py PROTO_DIR MODULE: prints, in order, every
thunk_proto of the thunky.call_thunk_proto ops of MODULE decoded as an
xla.gpu.ThunkProto (protoc's text format), each after a line "thunk_proto
N:". Lets the fixtures check how import renumbered a thunk's slices over the
op's operands. A thunk_proto is either serialized in a string or, as import
writes it, a dictionary, which is rewritten in protoc's text format and
encoded by protoc (enum values are the all-capital strings; a shape may be
its tensor type, as translate/shape_type.h maps it; fields kept as
"_unknown" or in resources are not supported).
"""
import re
import subprocess
import sys

proto_dir, module = sys.argv[1], sys.argv[2]
text = open(module, encoding="utf-8").read()


def unescape(s):
    """MLIR prints a string attribute's bytes as themselves, \\\\ or \\XX."""
    out, i = bytearray(), 0
    while i < len(s):
        if s[i] != "\\":
            out += s[i].encode("utf-8")
            i += 1
        elif s[i + 1] in "\\\"":
            out.append(ord(s[i + 1]))
            i += 2
        else:
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
    return bytes(out)


TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|tensor<(?:[^<>]|\w+<[^<>]*>)*>|array<[^>]*>'
                   r'|[{}\[\],=]|[^\s{}\[\],=]+)')
TENSOR = re.compile(r'tensor<((?:\d+x)*)(\w+(?:<\w+>)?)(?:, \{(.*)\})?>')
ENCODING = re.compile(r'(\w+) = array<\w+(?:: ([^>]*))?>')


def element_type(name):
    """XLA's name of an MLIR element type: i1 PRED, i8 S8, ui8 U8, f32 F32,
    complex<f32> C64."""
    if name == "i1":
        return "PRED"
    m = re.fullmatch(r"(u?)i(\d+)", name)
    if m:
        return ("U" if m.group(1) else "S") + m.group(2)
    m = re.fullmatch(r"complex<f(\d+)>", name)
    if m:
        return "C%d" % (2 * int(m.group(1)))
    return name.upper()


def shape_text(tok, field, lines):
    """The ShapeProto of a tensor type: the bare type is XLA's own form
    (descending minor_to_major, tail padding 1, one is_dynamic_dimension
    per dimension); the encoding names what differs."""
    m = TENSOR.fullmatch(tok)
    if not m:
        sys.exit("thunk_protos.py: %s is not a shape" % tok)
    dims = [d for d in m.group(1).split("x") if d]
    encoding = dict(ENCODING.findall(m.group(3) or ""))
    order = encoding.get("minor_to_major")
    order = ([v.strip() for v in order.split(",")] if order is not None
             else [str(d) for d in reversed(range(len(dims)))])
    dynamic = encoding.get("is_dynamic_dimension")
    dynamic = ([v.strip() for v in dynamic.split(",") if v.strip()]
               if dynamic is not None else ["false"] * len(dims))
    lines.append("%s {" % field)
    lines.append("element_type: %s" % element_type(m.group(2)))
    lines += ["dimensions: %s" % d for d in dims]
    lines.append("layout {")
    lines += ["minor_to_major: %s" % d for d in order]
    lines.append("tail_padding_alignment_in_elements: 1")
    lines.append("}")
    lines += ["is_dynamic_dimension: %s" % d for d in dynamic]
    lines.append("}")


def tokens(text, at):
    """The tokens of the attribute starting at `at`, up to its end."""
    out, depth = [], 0
    while True:
        m = TOKEN.match(text, at)
        tok, at = m.group(1), m.end()
        out.append(tok)
        depth += tok in "{[" and 1 or tok in "}]" and -1 or 0
        if depth == 0:
            return out, at


def to_text(toks, i, field, lines):
    """Writes the value at toks[i] as field `field`; returns the next index."""
    tok = toks[i]
    if tok == "{":
        lines.append("%s {" % field if field else "")
        i += 1
        while toks[i] != "}":
            key = toks[i]
            if key == "_unknown" or toks[i + 2].startswith("dense_resource"):
                sys.exit("thunk_protos.py: %s is not supported" % key)
            i = to_text(toks, i + 2, key, lines)
            i += toks[i] == ","
        lines.append("}" if field else "")
        return i + 1
    if tok == "[":
        i += 1
        while toks[i] != "]":
            i = to_text(toks, i, field, lines)
            i += toks[i] == ","
        return i + 1
    if tok.startswith("tensor<"):
        shape_text(tok, field, lines)
        return i + 1
    if tok.startswith("array<"):
        body = tok[len("array<"):-1]
        for v in (body.split(":", 1)[1].split(",") if ":" in body else []):
            lines.append("%s: %s" % (field, v.strip()))
        return i + 1
    if tok.startswith('"'):
        inner = tok[1:-1]
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", inner):
            value = inner
        else:
            value = '"' + re.sub(r"\\([0-9A-F]{2})", r"\\x\1", inner) + '"'
        lines.append("%s: %s" % (field, value))
        return i + 1
    lines.append("%s: %s" % (field, tok))
    i += 1
    if toks[i] == ":":  # a typed integer or float: `1 : i64`
        i += 2
    elif toks[i].startswith(":"):
        i += 1
    return i


def thunk_bytes(m):
    if m.group(1) is not None:
        return unescape(m.group(1))
    toks, _ = tokens(text, m.end() - 1)
    lines = []
    to_text(toks, 0, "", lines)
    return subprocess.run(
        ["protoc", "-I.", "--encode=xla.gpu.ThunkProto",
         "xla/backends/gpu/runtime/thunk.proto"],
        input="\n".join(lines).encode("utf-8"), capture_output=True, cwd=proto_dir,
        check=True).stdout


for n, m in enumerate(re.finditer(r'thunk_proto = (?:"((?:[^"\\]|\\.)*)"|\{)', text)):
    decoded = subprocess.run(
        ["protoc", "-I.", "--decode=xla.gpu.ThunkProto",
         "xla/backends/gpu/runtime/thunk.proto"],
        input=thunk_bytes(m), capture_output=True, cwd=proto_dir, check=True)
    sys.stdout.write("thunk_proto %d:\n" % n)
    sys.stdout.write(decoded.stdout.decode("utf-8"))
