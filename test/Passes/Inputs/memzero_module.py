"""memzero_module.py N [NAME]: a module of N memzero thunks, for plots at
any number of thunks: each zeroes a 256-byte scratch slice that lives only
there, beside a 1024-byte parameter, so live bytes are 1280 at every thunk
(1024 with no thunks)."""
import sys

n = int(sys.argv[1])
name = " @%s" % sys.argv[2] if len(sys.argv) > 2 else ""
lines = ["module%s {" % name,
         'func.func @main(%p: !thunky.buffer<1024> {thunky.role = "parameter 0"},',
         '                %%t: !thunky.buffer<%d> {thunky.role = "scratch"}) {' % (256 * max(n, 1))]
for i in range(n):
    lines.append("  %%s%d = thunky.slice_buffer %%t offset = %d : <%d> -> <256>"
                 % (i, 256 * i, 256 * max(n, 1)))
    lines.append("  thunky.memzero %%s%d : <256>" % i)
lines += ["  return", "}", "}"]
print("\n".join(lines))
