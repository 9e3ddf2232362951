"""Makes an executable that runs one collective on N ranks, and checks what
each rank got against XLA's semantics computed here, independently.

  collectives.py make KIND N > exe.textproto
  collectives.py check KIND N OUTDIR

Every rank first fills its source with 100 * rank + i (kernel rank_iota_s32
of test_kernels.c), then runs the collective; the output is the
destination."""
import sys

import npy

E = 4  # elements per rank's chunk


def wrap(x):
    return (x + 2 ** 31) % 2 ** 32 - 2 ** 31


def source(rank, count):
    return [100 * rank + i for i in range(count)]


def reduce_all(op, n, count):
    out = source(0, count)
    for r in range(1, n):
        out = [wrap(op(a, b)) for a, b in zip(out, source(r, count))]
    return out


REDUCTIONS = {"sum": (lambda a, b: a + b, "REDUCTION_KIND_SUM"),
              "prod": (lambda a, b: a * b, "REDUCTION_KIND_PRODUCT"),
              "min": (min, "REDUCTION_KIND_MIN"), "max": (max, "REDUCTION_KIND_MAX")}


def sizes(kind, n):
    """(source elements, destination elements) per rank."""
    return {"all-gather": (E, E * n), "reduce-scatter": (E * n, E),
            "all-to-all": (E * n, E * n), "all-to-all-split": (E * n, E * n)}.get(
        kind, (2 * E, 2 * E))


def expected(kind, n, rank):
    src, dst = sizes(kind, n)
    if kind.startswith("all-reduce-"):
        return reduce_all(REDUCTIONS[kind[11:]][0], n, src)
    if kind == "group":
        return reduce_all(REDUCTIONS["sum"][0], n, src)
    if kind == "all-gather":
        return sum((source(r, src) for r in range(n)), [])
    if kind == "reduce-scatter":
        total = reduce_all(REDUCTIONS["sum"][0], n, src)
        return total[rank * E:(rank + 1) * E]
    if kind in ("all-to-all", "all-to-all-split"):
        return sum((source(i, src)[rank * E:(rank + 1) * E] for i in range(n)), [])
    if kind == "permute":
        return source((rank - 1) % n, src)
    if kind == "broadcast":
        return source(0, src)
    if kind == "pairs":
        return [a + b for a, b in zip(source(rank - rank % 2, src), source(rank - rank % 2 + 1, src))]
    raise SystemExit("unknown kind " + kind)


def slice_(alloc, offset, size):
    return "{ slice { offset: %d size: %d buffer_allocation_index: %d } }" % (offset, size, alloc)


def buffer(count, src, dst):
    return "buffers { element_count: %d source_buffer %s destination_buffer %s }" % (count, src, dst)


def make(kind, n):
    src, dst = sizes(kind, n)
    config = "collective_config { operand_element_type: S32 %s}"
    groups = ""
    if kind == "pairs":
        groups = "".join("replica_groups { replica_ids: %d replica_ids: %d } " % (g, g + 1)
                         for g in range(0, n, 2))
    buffers = buffer(src, slice_(0, 0, 4 * src), slice_(1, 0, 4 * dst))
    if kind.startswith("all-reduce-") or kind == "pairs":
        reduction = REDUCTIONS[kind[11:] if kind != "pairs" else "sum"][1]
        body = "all_reduce_thunk { %s %s reduction_kind: %s }" % (
            config % groups, buffers, reduction)
    elif kind == "all-gather":
        body = "all_gather_thunk { %s %s }" % (config % "", buffers)
    elif kind == "reduce-scatter":
        body = "reduce_scatter_thunk { %s %s reduction_kind: REDUCTION_KIND_SUM }" % (
            config % "", buffers)
    elif kind == "all-to-all-split":
        body = "all_to_all_thunk { %s %s has_split_dimension: true }" % (config % "", buffers)
    elif kind == "all-to-all":
        per = "".join(buffer(E, slice_(0, 4 * E * i, 4 * E), slice_(1, 4 * E * i, 4 * E))
                      for i in range(n))
        body = "all_to_all_thunk { collective_config { %s} %s }" % (
            "operand_element_type: S32 " * n, per)
    elif kind == "permute":
        pairs = "".join("source_target_pairs { source: %d target: %d } " % (r, (r + 1) % n)
                        for r in range(n))
        body = "collective_permute_thunk { %s %s %s }" % (buffers, config % "", pairs)
    elif kind == "broadcast":
        body = "collective_broadcast_thunk { %s %s }" % (buffers, config % "")
    elif kind == "group":
        body = ("collective_group_thunk { thunk_kind: %s thunks { all_reduce_thunk { %s %s "
                "reduction_kind: REDUCTION_KIND_SUM } } }") % (
            "THUNK_KIND_GROUP", config % "", buffers)
    else:
        raise SystemExit("unknown kind " + kind)
    print("""# %s on %d ranks (made by collectives.py)
buffer_allocations {
  values { size: %d }
  values { index: 1 size: %d maybe_live_out: true }
}
output_info_map { shape_index { } output_info { allocation_index: 1 } }
binary: "\\177ELF stand-in for the simulated CUDA driver"
program_shape { result { element_type: S32 dimensions: %d } }
thunks {
  thunk_info { profile_annotation: "iota" }
  kernel_thunk { args { size: %d } kernel_name: "rank_iota_s32"
    launch_dimensions { block_counts { coordinates { x: 1 y: 1 z: 1 } }
                        thread_counts_per_block { coordinates { x: 1 y: 1 z: 1 } } } }
}
thunks { thunk_info { profile_annotation: "%s" } %s }""" % (
        kind, n, 4 * src, 4 * dst, dst, 4 * src, kind, body))


def check(kind, n, outdir):
    for rank in range(n):
        name = "%s/out0%s.npy" % (outdir, ".rank%d" % rank if rank else "")
        want = expected(kind, n, rank)
        npy.main(["npy.py", "check", name, "s32", str(len(want))] + [str(v) for v in want])


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], int(sys.argv[3]))
    else:
        check(sys.argv[2], int(sys.argv[3]), sys.argv[4])
