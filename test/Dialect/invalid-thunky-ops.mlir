// Each verifier rule of thunky's own ops, one case each.
// RUN: thunky-opt %s --split-input-file --verify-diagnostics

func.func @launch_grid_two_values(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.launch' op grid must have exactly 3 values (x, y, z), got 2}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [4, 1], block = [1, 1, 1], written = [true]>
  return
}

// -----

func.func @launch_block_not_positive(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.launch' op block values must be positive, got 0 at index 0}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [0, 1, 1], written = [true]>
  return
}

// -----

func.func @launch_cluster_not_positive(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.launch' op cluster values must be positive, got -2 at index 1}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true], cluster = [1, -2, 1]>
  return
}

// -----

func.func @launch_written_count(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.launch' op written has 2 entries for 1 buffers}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true, false]>
  return
}

// -----

func.func @launch_negative_shmem(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.launch' op shmem_bytes must be >= 0, got -1}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true], shmem_bytes = -1>
  return
}

// -----

func.func @launch_binary_missing(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.launch' op binary @k is no thunky.kernel_binary of the module}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true], binary = @k>
  return
}

// -----

func.func @launch_binary_not_code(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.launch' op binary @launch_binary_not_code is no thunky.kernel_binary of the module}}
  thunky.launch "k"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true], binary = @launch_binary_not_code>
  return
}

// -----

// expected-error @+1 {{'thunky.kernel_binary' op needs exactly one of cubin and ptx}}
thunky.kernel_binary @both cubin = "\7FELF" ptx = ".entry k"

// -----

// expected-error @+1 {{'thunky.kernel_binary' op needs exactly one of cubin and ptx}}
thunky.kernel_binary @neither

// -----

// expected-error @+1 {{'thunky.kernel_binary' op its cubin must be a string or a byte resource}}
thunky.kernel_binary @number cubin = 7 : i64

// -----

func.func @kernel_binary_nested() {
  // expected-error @+1 {{'thunky.kernel_binary' op expects parent op 'builtin.module'}}
  "thunky.kernel_binary"() <{sym_name = "k", ptx = ".entry k"}> : () -> ()
  return
}

// -----

func.func @gemm_layout_missing(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.gemm' op config needs output_layout as a dictionary}}
  thunky.gemm %a, %a -> %a : <16>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}}>
  return
}

// -----

func.func @gemm_layout_negative(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.gemm' op config.lhs_layout.num_rows must be a non-negative i64}}
  thunky.gemm %a, %a -> %a : <16>, <16> -> <16> <config = {lhs_layout = {num_rows = -4 : i64}, rhs_layout = {}, output_layout = {}}>
  return
}

// -----

func.func @gemm_beta_not_float(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.gemm' op config.beta must be a float}}
  thunky.gemm %a, %a -> %a : <16>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}, beta = 1 : i64}>
  return
}

// -----

func.func @matmul_unknown_epilogue(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.cublaslt_matmul' op epilogue 'EPILOGUE_SWISH' is not an XLA BlasLtEpilogueProto name}}
  thunky.cublaslt_matmul %a, %a, %a -> %a : <16>, <16>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}}, epilogue = "EPILOGUE_SWISH">
  return
}

// -----

func.func @matmul_bias_missing(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.cublaslt_matmul' op epilogue EPILOGUE_BIAS_THEN_RELU needs a bias operand}}
  thunky.cublaslt_matmul %a, %a, %a -> %a : <16>, <16>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}}, epilogue = "EPILOGUE_BIAS_THEN_RELU">
  return
}

// -----

func.func @matmul_aux_missing(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.cublaslt_matmul' op epilogue EPILOGUE_GELU_WITH_AUX needs an aux operand}}
  thunky.cublaslt_matmul %a, %a, %a -> %a : <16>, <16>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}}, epilogue = "EPILOGUE_GELU_WITH_AUX">
  return
}

// -----

func.func @matmul_bias_unused(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.cublaslt_matmul' op epilogue EPILOGUE_GELU adds no bias, so it takes no bias operand}}
  thunky.cublaslt_matmul %a, %a, %a -> %a bias(%a : !thunky.buffer<16>) : <16>, <16>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}}, epilogue = "EPILOGUE_GELU">
  return
}

// -----

func.func @matmul_aux_unused(%a: !thunky.buffer<16>, %x: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.cublaslt_matmul' op epilogue EPILOGUE_DEFAULT writes no aux, so it takes no aux operand}}
  thunky.cublaslt_matmul %a, %a, %a -> %a aux(%x : !thunky.buffer<16>) : <16>, <16>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}}>
  return
}

// -----

func.func @matmul_config_layout_missing(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.cublaslt_matmul' op config needs lhs_layout as a dictionary}}
  thunky.cublaslt_matmul %a, %a, %a -> %a : <16>, <16>, <16> -> <16> <config = {}>
  return
}

// -----

func.func @replica_id_not_4_bytes(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.replica_id' op writes a 4-byte u32, but its buffer has 16 bytes}}
  thunky.replica_id %a : <16>
  return
}

// -----

func.func @partition_id_not_4_bytes(%a: !thunky.buffer<8>) {
  // expected-error @+1 {{'thunky.partition_id' op writes a 4-byte u32, but its buffer has 8 bytes}}
  thunky.partition_id %a : <8>
  return
}

// -----

func.func @call_thunk_proto_written_count(%a: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.call_thunk_proto' op written has 0 entries for 1 buffers}}
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "t" <thunk_proto = "x", asm_text = "", binary = "", written = []>
  return
}
