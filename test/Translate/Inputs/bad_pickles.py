"""bad_pickles.py DIR: pickles that are not what JAX's serialize() writes,
for jax-pickles.test: of something else, of two executables, with an
opcode JAX's pickles do not use, with a far memo slot, and with bytes
after STOP."""
import io
import pickle
import sys


class TwoExecutables(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, bytes) and obj in (b"x" * 10, b"y" * 10):
            return ("exec", obj.decode())  # a str inside: no recursion on the bytes
        return None


def main():
    out = sys.argv[1]
    with open(out + "/other", "wb") as f:
        f.write(pickle.dumps({"a": 1}, protocol=4))
    buffer = io.BytesIO()
    TwoExecutables(buffer, protocol=4).dump([b"x" * 10, b"y" * 10])
    # The ids as JAX writes them hold bytes: put them back.
    two = buffer.getvalue().replace(b"\x8c\nxxxxxxxxxx", b"C\nxxxxxxxxxx")
    two = two.replace(b"\x8c\nyyyyyyyyyy", b"C\nyyyyyyyyyy")
    with open(out + "/two", "wb") as f:
        f.write(two)
    with open(out + "/opcode", "wb") as f:
        f.write(bytes([0x80, 4, 0xFF, 0x2E]))
    # 'exec' kept in memo slot 2^32 - 1 (LONG_BINPUT): a slot, not a size.
    with open(out + "/memo", "wb") as f:
        f.write(bytes([0x80, 4, 0x8C, 4]) + b"exec" + bytes([0x72, 0xFF, 0xFF, 0xFF, 0xFF, 0x2E]))
    with open(out + "/trailing", "wb") as f:
        f.write(pickle.dumps(1, protocol=4) + b"more")


if __name__ == "__main__":
    main()
