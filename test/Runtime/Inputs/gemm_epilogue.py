"""A cuBLASLt matmul with an epilogue, and what a run of it must give.

  gemm_epilogue.py exe EPILOGUE ORDER > exe.textproto
  gemm_epilogue.py inputs ORDER DIR          writes DIR/lhs.npy, rhs.npy and bias.npy
  gemm_epilogue.py check EPILOGUE ORDER DIR  checks DIR/out0.npy (and out1.npy, the aux)

EPILOGUE is an xla.BlasLtEpilogueProto name without EPILOGUE_; ORDER (row or
column) is the output's. The executable multiplies two batches of 2x2 by
2x3 (f32, at precision HIGHEST so that a GPU computes in f32). The check
computes what cublasLt.h says each epilogue does with numpy: the bias,
one value per index of the output's minor dimension, added to every
batch; the aux, the sum before the activation; ReLU, and GELU in its tanh
form. Outputs are written as the executable lays them out, so a
column-major one is read back as the transpose of its storage. Only
inputs and check need numpy: exe runs where it is missing
(scripts/build-runtime.sh)."""
import sys

B, M, K, N = 2, 2, 2, 3
EPILOGUES = {  # name: (adds a bias, keeps the aux, activation)
    "DEFAULT": (False, False, None),
    "RELU": (False, False, "relu"),
    "BIAS": (True, False, None),
    "BIAS_THEN_RELU": (True, False, "relu"),
    "GELU": (False, False, "gelu"),
    "GELU_WITH_AUX": (False, True, "gelu"),
    "BIAS_THEN_GELU": (True, False, "gelu"),
    "BIAS_THEN_GELU_WITH_AUX": (True, True, "gelu"),
    "SILU": (False, False, "silu"),
}
LHS = [[[1, 2], [3, 4]], [[-1, 0.5], [0, -1]]]
RHS = [[[1, 0, -1], [0, 1, 2]], [[1, 2, 3], [-4, 0.25, -6]]]
BIAS = [0.5, -1, 0.25]


def bias_length(order):
    return N if order == "row" else M


def bias_values(order):
    return BIAS[:bias_length(order)]


def layout(order, rows, cols, batch_stride):
    ld = cols if order == "row" else rows
    return ("{ order: ORDER_%s_MAJOR num_rows: %d num_cols: %d batch_size: %d "
            "leading_dim_stride: %d batch_stride: %d dtype: F32 }"
            % ("ROW" if order == "row" else "COLUMN", rows, cols, B, ld, batch_stride))


def exe(epilogue, order):
    bias, aux, _ = EPILOGUES[epilogue]
    sizes = [B * M * K * 4, B * K * N * 4] + ([bias_length(order) * 4] if bias else [])
    params = len(sizes)
    outputs = [B * M * N * 4] * (2 if aux else 1)
    lines = ["buffer_allocations {"]
    # As XLA writes them: a field at its default (index 0) is left out.
    for i, size in enumerate(sizes):
        number = " index: %d" % i if i else ""
        lines.append("  values {%s size: %d is_entry_computation_parameter: true%s }"
                     % (number, size, " parameter_number: %d" % i if i else ""))
    for i, size in enumerate(outputs):
        lines.append("  values { index: %d size: %d maybe_live_out: true }" % (params + i, size))
    lines.append("}")
    stored = [B, M, N] if order == "row" else [B, N, M]
    shape = "{ element_type: F32 %s }" % " ".join("dimensions: %d" % d for d in stored)
    if aux:
        for i in range(2):
            lines.append("output_info_map { shape_index { indexes: %d } output_info "
                         "{ allocation_index: %d } }" % (i, params + i))
        result = "{ element_type: TUPLE tuple_shapes %s tuple_shapes %s }" % (shape, shape)
    else:
        lines.append("output_info_map { shape_index { } output_info "
                     "{ allocation_index: %d } }" % params)
        result = shape
    lines.append("program_shape {")
    lines.append("  parameters { element_type: F32 dimensions: %d dimensions: %d dimensions: %d }"
                 % (B, M, K))
    lines.append("  parameters { element_type: F32 dimensions: %d dimensions: %d dimensions: %d }"
                 % (B, K, N))
    if bias:
        lines.append("  parameters { element_type: F32 dimensions: %d }" % bias_length(order))
    lines.append("  result %s" % result)
    lines.append("}")
    out = layout(order, M, N, M * N)
    lines += [
        "thunks {",
        '  thunk_info { profile_annotation: "dense" }',
        "  cublas_lt_matmul_thunk {",
        "    gemm_config {",
        "      lhs_layout %s" % layout("row", M, K, M * K),
        "      rhs_layout %s" % layout("row", K, N, K * N),
        "      c_layout %s" % out,
        "      output_layout %s" % out,
        "      alpha_real: 1",
        "      compute_precision: 2",
        "    }",
        "    epilogue: EPILOGUE_%s" % epilogue,
        "    a { slice { size: %d } }" % sizes[0],
        "    b { slice { size: %d buffer_allocation_index: 1 } }" % sizes[1],
        "    c { slice { size: %d buffer_allocation_index: %d } }" % (outputs[0], params),
        "    d { slice { size: %d buffer_allocation_index: %d } }" % (outputs[0], params),
    ]
    if bias:
        lines.append("    bias { slice { size: %d buffer_allocation_index: 2 } "
                     "shape { element_type: F32 dimensions: %d } }"
                     % (sizes[2], bias_length(order)))
    if aux:
        lines.append("    aux { slice { size: %d buffer_allocation_index: %d } }"
                     % (outputs[1], params + 1))
    lines += ["  }", "}"]
    print("\n".join(lines))


def expected(epilogue, order):
    import numpy as np
    bias, aux, activation = EPILOGUES[epilogue]
    pre = np.matmul(np.array(LHS, np.float64), np.array(RHS, np.float64))
    if bias:
        vector = np.array(bias_values(order), np.float64)
        pre = pre + (vector[None, None, :] if order == "row" else vector[None, :, None])
    out = pre
    if activation == "relu":
        out = np.maximum(pre, 0)
    elif activation == "gelu":
        out = 0.5 * pre * (1 + np.tanh(np.sqrt(2 / np.pi) * (pre + 0.044715 * pre ** 3)))
    return out.astype(np.float32), pre.astype(np.float32) if aux else None


def stored(path, order):
    import numpy as np
    value = np.load(path)
    return value if order == "row" else np.swapaxes(value, 1, 2)


def check(epilogue, order, folder):
    import numpy as np
    want, want_aux = expected(epilogue, order)
    pairs = [("out0.npy", want)] + ([("out1.npy", want_aux)] if want_aux is not None else [])
    for name, value in pairs:
        got = stored("%s/%s" % (folder, name), order)
        if got.shape != value.shape or not np.allclose(got, value, rtol=1e-6, atol=1e-6):
            sys.exit("%s: %s, expected %s" % (name, got.tolist(), value.tolist()))
    # An epilogue that changes nothing here would pass for DEFAULT: each
    # one's outputs differ from the plain product's.
    plain = np.matmul(np.array(LHS, np.float32), np.array(RHS, np.float32))
    if epilogue != "DEFAULT" and np.allclose(want, plain):
        sys.exit("the inputs do not tell %s from no epilogue" % epilogue)
    print("%s %s: %s as cublasLt.h defines it" % (epilogue, order,
                                                  " and ".join(n for n, _ in pairs)))


def main(argv):
    command = argv[1]
    if command == "exe":
        exe(argv[2], argv[3])
    elif command == "inputs":
        import numpy as np
        order, folder = argv[2], argv[3]
        np.save("%s/lhs.npy" % folder, np.array(LHS, np.float32))
        np.save("%s/rhs.npy" % folder, np.array(RHS, np.float32))
        np.save("%s/bias.npy" % folder, np.array(bias_values(order), np.float32))
    else:
        check(argv[2], argv[3], argv[4])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
