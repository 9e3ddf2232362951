// thunky's own ops (launch, gemm, cublaslt_matmul, replica_id, partition_id)
// parse, print and parse again to the same text, through the custom syntax,
// the generic syntax and bytecode.
// RUN: thunky-opt %s > %t.1.mlir
// RUN: thunky-opt %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir
// RUN: thunky-opt %s --mlir-print-op-generic | thunky-opt | FileCheck %s
// RUN: thunky-opt %s -emit-bytecode | thunky-opt | FileCheck %s

// CHECK: thunky.kernel_binary @k_cubin cubin = "\7FELF\02"
// CHECK-NEXT: thunky.kernel_binary @k_ptx ptx = ".entry k_ptx"
module {
thunky.kernel_binary @k_cubin cubin = "\7FELF\02"
thunky.kernel_binary @k_ptx ptx = ".entry k_ptx"

// CHECK-LABEL: func.func @launches
// CHECK-SAME: (%[[A:.*]]: !thunky.buffer<16>, %[[B:.*]]: !thunky.buffer<16>)
func.func @launches(%a: !thunky.buffer<16>, %b: !thunky.buffer<16>) {
  // A KernelThunk: its code is the executable's module. Zero shared memory
  // is the default and is not printed.
  // CHECK-NEXT: thunky.launch "fusion"(%[[A]], %[[B]] : !thunky.buffer<16>, !thunky.buffer<16>) <grid = [4, 1, 1], block = [128, 1, 1], written = [false, true]>
  thunky.launch "fusion"(%a, %b : !thunky.buffer<16>, !thunky.buffer<16>) <grid = [4, 1, 1], block = [128, 1, 1], written = [false, true], shmem_bytes = 0>
  // CHECK-NEXT: thunky.launch "k_cubin"(%[[A]] : !thunky.buffer<16>) <grid = [2, 1, 1], block = [32, 2, 1], written = [true], cluster = [2, 1, 1], shmem_bytes = 1024, binary = @k_cubin>
  thunky.launch "k_cubin"(%a : !thunky.buffer<16>) <grid = [2, 1, 1], block = [32, 2, 1], written = [true], cluster = [2, 1, 1], shmem_bytes = 1024, binary = @k_cubin>
  // CHECK-NEXT: thunky.launch "k_ptx"() <grid = [1, 1, 1], block = [1, 1, 1], written = [], binary = @k_ptx>
  thunky.launch "k_ptx"() <grid = [1, 1, 1], block = [1, 1, 1], written = [], binary = @k_ptx>
  return
}

// CHECK-LABEL: func.func @matmuls
// CHECK-SAME: (%[[L:.*]]: !thunky.buffer<32>, %[[R:.*]]: !thunky.buffer<32>, %[[O:.*]]: !thunky.buffer<16>, %[[W:.*]]: !thunky.buffer<64>, %[[S:.*]]: !thunky.buffer<4>)
func.func @matmuls(%l: !thunky.buffer<32>, %r: !thunky.buffer<32>, %o: !thunky.buffer<16>, %w: !thunky.buffer<64>, %s: !thunky.buffer<4>) {
  // A property dictionary longer than 200 bytes prints one entry per line.
  // CHECK-NEXT: thunky.gemm %[[L]], %[[R]] -> %[[O]] workspace(%[[W]] : !thunky.buffer<64>) : <32>, <32> -> <16> <config = {
  // CHECK-NEXT:   alpha_real = 1.000000e+00 : f64,
  // CHECK-NEXT:   beta = 0.000000e+00 : f64,
  // CHECK-NEXT:   lhs_layout = {num_cols = 4 : i64, num_rows = 2 : i64},
  // CHECK-NEXT:   output_layout = {num_cols = 2 : i64, num_rows = 2 : i64},
  // CHECK-NEXT:   rhs_layout = {num_cols = 2 : i64, num_rows = 4 : i64}
  // CHECK-NEXT: }, deterministic = true>
  thunky.gemm %l, %r -> %o workspace(%w : !thunky.buffer<64>) : <32>, <32> -> <16> <config = {lhs_layout = {num_rows = 2 : i64, num_cols = 4 : i64}, rhs_layout = {num_rows = 4 : i64, num_cols = 2 : i64}, output_layout = {num_rows = 2 : i64, num_cols = 2 : i64}, alpha_real = 1.0 : f64, beta = 0.0 : f64}, deterministic = true>
  // CHECK-NEXT: thunky.gemm %[[L]], %[[R]] -> %[[O]] : <32>, <32> -> <16> <config = {lhs_layout = {}, output_layout = {}, rhs_layout = {}}>
  thunky.gemm %l, %r -> %o : <32>, <32> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}}>
  // CHECK-NEXT: thunky.cublaslt_matmul %[[L]], %[[R]], %[[O]] -> %[[O]] bias(%[[S]] : !thunky.buffer<4>) aux(%[[W]] : !thunky.buffer<64>) d_amax(%[[S]] : !thunky.buffer<4>) workspace(%[[W]] : !thunky.buffer<64>) : <32>, <32>, <16> -> <16> <config = {lhs_layout = {}, output_layout = {}, rhs_layout = {}}, epilogue = "EPILOGUE_BIAS_THEN_GELU_WITH_AUX", algorithm_idx = 7, autotune_workspace_size = 64>
  thunky.cublaslt_matmul %l, %r, %o -> %o bias(%s : !thunky.buffer<4>) aux(%w : !thunky.buffer<64>) d_amax(%s : !thunky.buffer<4>) workspace(%w : !thunky.buffer<64>) : <32>, <32>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}}, epilogue = "EPILOGUE_BIAS_THEN_GELU_WITH_AUX", algorithm_idx = 7, autotune_workspace_size = 64>
  // CHECK-NEXT: thunky.cublaslt_matmul %[[L]], %[[R]], %[[O]] -> %[[O]] a_scale(%[[S]] : !thunky.buffer<4>) b_scale(%[[S]] : !thunky.buffer<4>) c_scale(%[[S]] : !thunky.buffer<4>) d_scale(%[[S]] : !thunky.buffer<4>) : <32>, <32>, <16> -> <16> <config = {lhs_layout = {}, output_layout = {}, rhs_layout = {}}>
  thunky.cublaslt_matmul %l, %r, %o -> %o a_scale(%s : !thunky.buffer<4>) b_scale(%s : !thunky.buffer<4>) c_scale(%s : !thunky.buffer<4>) d_scale(%s : !thunky.buffer<4>) : <32>, <32>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}}>
  // CHECK-NEXT: thunky.replica_id %[[S]] : <4>
  thunky.replica_id %s : <4>
  // CHECK-NEXT: thunky.partition_id %[[S]] : <4>
  thunky.partition_id %s : <4>
  return
}

}
