"""Writes the generated inputs of the bad-input tests (wire bytes, .mlir) to stdout.

  wire.py nest N          GpuExecutableProto: N sequential_thunks, each inside
                          the previous one (2 messages per level: the
                          ThunkProto and its SequentialThunkProto).
  wire.py random SEED N   N pseudo-random bytes (Python's random, seeded).
  wire.py mlir-executable-nest N
                          a module whose thunky.executable string holds
                          `nest N` (export-side depth check).
  wire.py mlir-call-thunk-proto-nest N
                          an @main whose thunky.call_thunk_proto (line 2)
                          holds a ThunkProto of N nested sequential_thunks.
  wire.py mlir-thunk-attr-nest N
                          an @main whose thunky.sequential (line 2) has a
                          thunky.thunk string holding that same ThunkProto.
  wire.py mlir-sequential-nest N
                          an @main of N thunky.sequential ops nested in each
                          other around one thunky.memzero.
"""
import random
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, payload):
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def nest(levels):
    return field(13, nested_thunk(levels))  # GpuExecutableProto.thunks


def nested_thunk(levels):
    thunk = field(2, b"")
    for _ in range(levels - 1):
        thunk = field(2, field(1, thunk))
    return thunk


def mlir_string(data):
    return "".join("\\%02X" % b for b in data)


def main(argv):
    out = sys.stdout.buffer
    if argv[1] == "nest":
        out.write(nest(int(argv[2])))
    elif argv[1] == "random":
        out.write(random.Random(int(argv[2])).randbytes(int(argv[3])))
    elif argv[1] == "mlir-executable-nest":
        out.write(('module attributes {thunky.executable = "%s"} {\n'
                   '  func.func @main() {\n    return\n  }\n}\n'
                   % mlir_string(nest(int(argv[2])))).encode())
    elif argv[1] == "mlir-call-thunk-proto-nest":
        out.write(('func.func @main(%%a: !thunky.buffer<16>) {\n'
                   '  thunky.call_thunk_proto %%a : !thunky.buffer<16> name = "k" '
                   '<thunk_proto = "%s", asm_text = "", binary = "">\n'
                   '  return\n}\n' % mlir_string(nested_thunk(int(argv[2])))).encode())
    elif argv[1] == "mlir-thunk-attr-nest":
        out.write(('func.func @main() {\n'
                   '  thunky.sequential {\n  } {thunky.thunk = "%s"}\n'
                   '  return\n}\n' % mlir_string(nested_thunk(int(argv[2])))).encode())
    elif argv[1] == "mlir-sequential-nest":
        n = int(argv[2])
        out.write(("func.func @main(%a: !thunky.buffer<4>) {\n"
                   + "thunky.sequential {\n" * n
                   + "thunky.memzero %a : <4>\n"
                   + "}\n" * n
                   + "return\n}\n").encode())
    else:
        sys.exit("wire.py: unknown command " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
