"""Writes protobuf wire bytes for the bad-input tests to stdout.

  wire.py nest N          GpuExecutableProto: N sequential_thunks, each inside
                          the previous one (2 messages per level: the
                          ThunkProto and its SequentialThunkProto).
  wire.py random SEED N   N pseudo-random bytes (Python's random, seeded).
  wire.py nested-bytes N  a message of field 1 nested N deep (for strings
                          that claim to hold a serialized message).
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
    # Innermost: a ThunkProto holding an empty sequential_thunk.
    thunk = field(2, b"")
    for _ in range(levels - 1):
        thunk = field(2, field(1, thunk))  # sequential_thunk { thunks { ... } }
    return field(13, thunk)  # GpuExecutableProto.thunks


def nested_bytes(levels):
    msg = b""
    for _ in range(levels):
        msg = field(1, msg)
    return msg


def main(argv):
    out = sys.stdout.buffer
    if argv[1] == "nest":
        out.write(nest(int(argv[2])))
    elif argv[1] == "random":
        out.write(random.Random(int(argv[2])).randbytes(int(argv[3])))
    elif argv[1] == "nested-bytes":
        out.write(nested_bytes(int(argv[2])))
    else:
        sys.exit("wire.py: unknown command " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
