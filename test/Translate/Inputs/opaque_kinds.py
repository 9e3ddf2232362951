"""opaque_kinds.py PROTO_DIR MESSAGE FILE...: for each textproto FILE (a
MESSAGE), imports it, strips the metadata and counts, by thunk kind, the
thunks still held as escaped ThunkProto bytes in call_thunk_proto ops.
Prints one line per file that holds any of KINDS (the kinds thunky has ops
for), then a total line, with the number of ops of those kinds. Needs thunky-translate and thunky-opt on PATH.
"""
import os
import re
import subprocess
import sys

KINDS = ("kernel_thunk", "custom_kernel_thunk", "gemm_thunk",
         "cublas_lt_matmul_thunk", "replica_id_thunk", "partition_id_thunk")
here = os.path.dirname(os.path.abspath(__file__))
thunk_protos = os.path.join(here, "..", "thunks", "Inputs", "thunk_protos.py")
proto_dir, message, files = sys.argv[1], sys.argv[2], sys.argv[3:]

total_thunks, opaque, readable = 0, 0, 0
for path in files:
    with open(path, "rb") as f:
        encoded = subprocess.run(
            ["bash", os.path.join(here, "..", "..", "..", "scripts", "encode.sh"), message],
            stdin=f, capture_output=True, check=True).stdout
    imported = subprocess.run(["thunky-translate", "--import-thunky"], input=encoded,
                              capture_output=True, check=True).stdout
    stripped = subprocess.run(["thunky-opt", "--thunky-strip-metadata"], input=imported,
                              capture_output=True, check=True).stdout
    readable += len(re.findall(
        rb"thunky\.(launch|gemm|cublaslt_matmul|replica_id|partition_id) ", stripped))
    with open("opaque_kinds.tmp.mlir", "wb") as f:
        f.write(stripped)
    decoded = subprocess.run([sys.executable, thunk_protos, proto_dir, "opaque_kinds.tmp.mlir"],
                             capture_output=True, check=True, text=True).stdout
    kinds = re.findall(r"^(\w+_thunk) \{", decoded, re.M)
    total_thunks += len(re.findall(r"^thunk_proto \d+:", decoded, re.M))
    held = [k for k in kinds if k in KINDS]
    opaque += len(held)
    if held:
        print("%s: %s" % (os.path.basename(path), ", ".join(sorted(set(held)))))
if files:
    os.remove("opaque_kinds.tmp.mlir")
print("opaque kinds: %d files, %d launch/gemm/matmul/id ops, %d call_thunk_proto thunks, "
      "%d of a kind thunky has an op for" % (len(files), readable, total_thunks, opaque))
