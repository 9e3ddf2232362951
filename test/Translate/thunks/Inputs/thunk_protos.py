"""thunk_protos.py PROTO_DIR MODULE [--residuals]: prints, in order, every
thunk_proto of the thunky.call_thunk_proto ops of MODULE decoded as an
xla.gpu.ThunkProto (protoc's text format), each after a line "thunk_proto
N:". Lets the fixtures check how import renumbered a thunk's slices over the
op's operands.
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


for n, m in enumerate(re.finditer(r'thunk_proto = "((?:[^"\\]|\\.)*)"', text)):
    decoded = subprocess.run(
        ["protoc", "-I.", "--decode=xla.gpu.ThunkProto",
         "xla/backends/gpu/runtime/thunk.proto"],
        input=unescape(m.group(1)), capture_output=True, cwd=proto_dir, check=True)
    sys.stdout.write("thunk_proto %d:\n" % n)
    sys.stdout.write(decoded.stdout.decode("utf-8"))
