"""Writes and checks .npy files for the runtime tests, without numpy.

  npy.py write FILE TYPE DIMS VALUE...   e.g. write x.npy f32 2,2 1 2 3 4
  npy.py check FILE TYPE DIMS VALUE...   exit 1, saying what differs
  npy.py raw FILE BYTES                  FILE holds that many zero bytes

TYPE is an XLA type name (f32, s32, u32, u8, pred, f64, f16, bf16); DIMS is
comma-separated ("" or "scalar" for rank 0). The files are written as np.save
writes them, so the reader is tested against the real format."""
import ast
import struct
import sys

TYPES = {"f32": ("<f4", "f"), "f64": ("<f8", "d"), "s32": ("<i4", "i"), "u32": ("<u4", "I"),
         "s64": ("<i8", "q"), "u8": ("|u1", "B"), "s8": ("|i1", "b"), "pred": ("|b1", "?"),
         "s16": ("<i2", "h"), "u16": ("<u2", "H"), "f16": ("<f2", "e"),
         # ml_dtypes' bfloat16, which np.save writes as opaque bytes.
         "bf16": ("<V2", "bf16")}


def pack(code, values):
    if code == "bf16":  # a float32's upper half (the values must fit exactly)
        return b"".join(struct.pack("<f", v)[2:] for v in values)
    return struct.pack("<%d%s" % (len(values), code), *values)


def unpack(code, count, body):
    if code == "bf16":
        return [struct.unpack("<f", b"\0\0" + body[2 * i:2 * i + 2])[0] for i in range(count)]
    return list(struct.unpack("<%d%s" % (count, code), body))


def dims_of(text):
    return () if text in ("", "scalar") else tuple(int(d) for d in text.split(","))


def header(descr, dims):
    shape = "(%s)" % ("".join("%d, " % d for d in dims)[:-2] + ("," if len(dims) == 1 else ""))
    text = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    pad = 64 - (10 + len(text) + 1) % 64
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text) + pad + 1) + \
        (text + " " * pad + "\n").encode()


def parse(value, code):
    if code == "?":
        return value in ("1", "true", "True")
    return float(value) if code in ("f", "d", "e", "bf16") else int(value, 0)


def read(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        sys.exit("%s: not a .npy file" % path)
    length = struct.unpack("<H", data[8:10])[0]
    meta = ast.literal_eval(data[10:10 + length].decode())
    return meta["descr"], tuple(meta["shape"]), data[10 + length:]


def main(argv):
    command, path = argv[1], argv[2]
    if command == "raw":
        open(path, "wb").write(header("|u1", (int(argv[3]),)) + bytes(int(argv[3])))
        return 0
    descr, code = TYPES[argv[3]]
    dims = dims_of(argv[4])
    values = [parse(v, code) for v in argv[5:]]
    count = 1
    for d in dims:
        count *= d
    if len(values) != count:
        sys.exit("npy.py: %d values for shape %s" % (len(values), dims))
    body = pack(code, values)
    if command == "write":
        open(path, "wb").write(header(descr, dims) + body)
        return 0
    got_descr, got_dims, got_body = read(path)
    if (got_descr, got_dims) != (descr, dims):
        sys.exit("%s: %s%s, expected %s%s" % (path, got_descr, got_dims, descr, dims))
    got = unpack(code, count, got_body)
    if got != values:
        sys.exit("%s: %s, expected %s" % (path, list(got), values))
    print("%s: %s%s as expected" % (path.rsplit("/", 1)[-1], argv[3], list(dims)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
