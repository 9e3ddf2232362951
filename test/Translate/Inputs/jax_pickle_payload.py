"""jax_pickle_payload.py PICKLE OUT: unpickles what JAX's serialize() wrote,
with every class and function replaced by an inert stand-in (nothing in the
pickle runs), and writes the executable's bytes, its ('exec', bytes)
persistent id, to OUT. That Python's own unpickler reads the file checks
what thunky wrote back: its opcodes, memo and frames."""
import io
import pickle
import sys


class StandIn:
    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass


class Reader(pickle.Unpickler):
    def __init__(self, f):
        super().__init__(f)
        self.executables = []

    def find_class(self, module, name):
        return type(name, (StandIn,), {})

    def persistent_load(self, pid):
        if isinstance(pid, tuple) and pid and pid[0] == "exec":
            self.executables.append(pid[1])
        return StandIn()


def main():
    with open(sys.argv[1], "rb") as f:
        reader = Reader(io.BytesIO(f.read()))
    reader.load()
    if len(reader.executables) != 1:
        sys.exit("%d executables in the pickle" % len(reader.executables))
    with open(sys.argv[2], "wb") as f:
        f.write(reader.executables[0])


if __name__ == "__main__":
    main()
