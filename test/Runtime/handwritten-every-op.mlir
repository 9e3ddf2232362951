// Every op kind the dialect has (but call_thunk_proto, which holds an XLA
// thunk as import found it), written by hand with no thunky.thunk metadata,
// exports into an executable that runs: collectives get their element
// counts from their buffers, the arguments' roles give parameters and
// outputs, and the outputs compare.
// RUN: thunky-run --kernels=fingerprint --ranks 2 --seed 1 %s --print | FileCheck %s
// CHECK: rank 0 out0: f32[16] =
// CHECK: rank 0 out2: u32[2] = [0, 1065353216]
// CHECK: rank 1 out2: u32[2] = [1, 1065353216]
// RUN: thunky-run --kernels=fingerprint --ranks 2 %s --compare %s | FileCheck %s --check-prefix=SAME
// SAME: same: 3 output(s) on 2 rank(s), bit for bit
// Stripped, it is the same program.
// RUN: thunky-opt --thunky-strip-metadata %s -o %t.stripped.mlir
// RUN: thunky-run --kernels=fingerprint --ranks 2 %s --compare %t.stripped.mlir | FileCheck %s --check-prefix=SAME
// A bad edit (another constant) is caught.
// RUN: sed 's/value = "\\00\\00\\80?"/value = "\\00\\00\\00@"/' %s > %t.bad.mlir
// RUN: not thunky-run --kernels=fingerprint --ranks 2 %s --compare %t.bad.mlir | FileCheck %s --check-prefix=BAD
// BAD: different: output 2 (u32[2]) of rank 0 differs first at byte 6 (element 1)
module {
  thunky.kernel_binary @k_ptx ptx = ".entry k_ptx"
  func.func @main(%in: !thunky.buffer<64> {thunky.role = "parameter 0", thunky.shape = tensor<16xf32>},
                  %out: !thunky.buffer<64> {thunky.role = "output {0}", thunky.shape = tensor<16xf32>},
                  %gathered: !thunky.buffer<128> {thunky.role = "output {1}", thunky.shape = tensor<32xf32>},
                  %ids: !thunky.buffer<8> {thunky.role = "output {2}", thunky.shape = tensor<2xui32>},
                  %tmp: !thunky.buffer<256> {thunky.role = "scratch"}) {
    %c = thunky.constant <value = "\00\00\80?"> : <4>
    %a = thunky.slice_buffer %tmp offset = 0 : <256> -> <64>
    %b = thunky.slice_buffer %tmp offset = 64 : <256> -> <64>
    %p = thunky.slice_buffer %tmp offset = 128 : <256> -> <4>
    %w = thunky.slice_buffer %tmp offset = 192 : <256> -> <64>
    %rid = thunky.slice_buffer %ids offset = 0 : <8> -> <4>
    %pid = thunky.slice_buffer %ids offset = 4 : <8> -> <4>
    thunky.memzero %p : <4>
    thunky.memset32 %b, 1065353216 : <64>
    thunky.copy %in, %a : <64>, <64>
    thunky.replica_id %rid : <4>
    thunky.partition_id %pid : <4>
    thunky.sequential {
      thunky.launch "k_cubin"(%a, %b : !thunky.buffer<64>, !thunky.buffer<64>) <grid = [1, 1, 1], block = [16, 1, 1], written = [false, true]>
      thunky.launch "k_ptx"(%b : !thunky.buffer<64>) <grid = [1, 1, 1], block = [16, 1, 1], written = [true], binary = @k_ptx>
      thunky.ptx_kernel %a, %b : !thunky.buffer<64>, !thunky.buffer<64> name = "k_inline" <ptx = ".entry k_inline", grid_dim = [1, 1, 1], block_dim = [16, 1, 1], written = [false, true], shmem_bytes = 0>
    }
    thunky.custom_call %a, %b : !thunky.buffer<64>, !thunky.buffer<64> target = "my_target" <num_operands = 1, num_results = 1, backend_config = {count = 7 : i64}, operand_shapes = [tensor<16xf32>], result_shapes = [tensor<16xf32>]>
    thunky.gemm %a, %b -> %w : <64>, <64> -> <64> <config = {lhs_layout = {num_rows = 4 : i64, num_cols = 4 : i64, order = "ORDER_ROW_MAJOR", leading_dim_stride = 4 : i64, dtype = "F32"}, rhs_layout = {num_rows = 4 : i64, num_cols = 4 : i64, order = "ORDER_ROW_MAJOR", leading_dim_stride = 4 : i64, dtype = "F32"}, output_layout = {num_rows = 4 : i64, num_cols = 4 : i64, order = "ORDER_ROW_MAJOR", leading_dim_stride = 4 : i64, dtype = "F32"}, alpha_real = 1.0 : f64, beta = 0.0 : f64}>
    thunky.cublaslt_matmul %w, %b, %a -> %a : <64>, <64>, <64> -> <64> <config = {lhs_layout = {num_rows = 4 : i64, num_cols = 4 : i64, order = "ORDER_ROW_MAJOR", leading_dim_stride = 4 : i64, dtype = "F32"}, rhs_layout = {num_rows = 4 : i64, num_cols = 4 : i64, order = "ORDER_ROW_MAJOR", leading_dim_stride = 4 : i64, dtype = "F32"}, c_layout = {num_rows = 4 : i64, num_cols = 4 : i64, order = "ORDER_ROW_MAJOR", leading_dim_stride = 4 : i64, dtype = "F32"}, output_layout = {num_rows = 4 : i64, num_cols = 4 : i64, order = "ORDER_ROW_MAJOR", leading_dim_stride = 4 : i64, dtype = "F32"}, alpha_real = 1.0 : f64, beta = 1.0 : f64}>
    thunky.cond %p : <4> {
      thunky.memset32 %w, 2 : <64>
    }, {
      thunky.memzero %w : <64>
    }
    thunky.while %p : <4> cond {
      thunky.memzero %p : <4>
    } body {
      thunky.launch "step"(%p : !thunky.buffer<4>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]>
    }
    %t = thunky.async_start stream = 1 {
      thunky.collective_group {
        thunky.all_reduce %a, %a <reduction_kind = "sum", element_type = f32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica"> : <64>, <64>
      }
    } <is_communication = true> : !thunky.token
    thunky.async_done %t : !thunky.token
    thunky.all_gather %a, %gathered <element_type = f32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica"> : <64>, <128>
    thunky.reduce_scatter %gathered, %b <reduction_kind = "max", element_type = f32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica"> : <128>, <64>
    thunky.all_to_all(%a), (%w) <element_type = f32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica", has_split_dimension = true> : (!thunky.buffer<64>), (!thunky.buffer<64>)
    thunky.collective_permute %w, %out <element_type = f32, source_target_pairs = [array<i64: 0, 1>, array<i64: 1, 0>], group_mode = "cross_replica"> : <64>, <64>
    thunky.copy %c, %pid : <4>, <4>
    return
  }
}
