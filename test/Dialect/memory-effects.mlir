// slice_buffer and constant are pure, so MLIR's own CSE and DCE work on
// them; every op that touches memory survives both.
// RUN: thunky-opt %s --cse --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @pure_ops
// CHECK-SAME: (%[[A:.*]]: !thunky.buffer<64>, %[[B:.*]]: !thunky.buffer<32>)
func.func @pure_ops(%a: !thunky.buffer<64>, %b: !thunky.buffer<32>) {
  // Identical slices merge; unused slices and constants disappear.
  // CHECK-NEXT: %[[S:.*]] = thunky.slice_buffer %[[A]] offset = 0 : <64> -> <32>
  // CHECK-NEXT: %[[C:.*]] = thunky.constant <value = "abcd"> : <4>
  // CHECK-NEXT: thunky.copy %[[S]], %[[B]]
  // CHECK-NEXT: thunky.copy %[[B]], %[[S]]
  // CHECK-NEXT: %[[T:.*]] = thunky.slice_buffer %[[B]] offset = 0 : <32> -> <4>
  // CHECK-NEXT: thunky.copy %[[C]], %[[T]]
  // CHECK-NEXT: return
  %s1 = thunky.slice_buffer %a offset = 0 : <64> -> <32>
  %s2 = thunky.slice_buffer %a offset = 0 : <64> -> <32>
  %unused = thunky.slice_buffer %a offset = 32 : <64> -> <32>
  %c1 = thunky.constant <value = "abcd"> : <4>
  %c2 = thunky.constant <value = "abcd"> : <4>
  %dead = thunky.constant <value = "dead"> : <4>
  thunky.copy %s1, %b : <32>, <32>
  thunky.copy %b, %s2 : <32>, <32>
  %t = thunky.slice_buffer %b offset = 0 : <32> -> <4>
  thunky.copy %c1, %t : <4>, <4>
  thunky.copy %c2, %c2 : <4>, <4>
  return
}

// Writes to buffers nobody reads afterwards are still effects: nothing goes.
// CHECK-LABEL: func.func @effects_survive
func.func @effects_survive(%a: !thunky.buffer<64>, %p: !thunky.buffer<1>) {
  // CHECK-NEXT: thunky.memzero
  // CHECK-NEXT: thunky.memset32
  // CHECK-NEXT: thunky.ptx_kernel
  // CHECK-NEXT: thunky.custom_call
  // CHECK-NEXT: thunky.all_reduce
  // CHECK-NEXT: thunky.cond
  // CHECK:      thunky.while
  // CHECK:      thunky.async_start
  // CHECK:      thunky.async_done
  // CHECK-NEXT: thunky.sequential
  // CHECK:      thunky.collective_group
  thunky.memzero %a : <64>
  thunky.memset32 %a, 7 : <64>
  thunky.ptx_kernel %a : !thunky.buffer<64> name = "k" <ptx = "", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [true], shmem_bytes = 0>
  thunky.custom_call %a : !thunky.buffer<64> target = "t" <num_operands = 0, num_results = 1, backend_config = {}>
  thunky.all_reduce %a, %a <reduction_kind = "sum", element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <64>, <64>
  thunky.cond %p : <1> {
    thunky.memzero %a : <64>
  }, {
  }
  thunky.while %p : <1> cond {
    thunky.memzero %p : <1>
  } body {
  }
  %t = thunky.async_start stream = 1 {
    thunky.memzero %a : <64>
  } : !thunky.token
  thunky.async_done %t : !thunky.token
  thunky.sequential {
    thunky.memzero %a : <64>
  }
  thunky.collective_group {
    thunky.all_reduce %a, %a <reduction_kind = "sum", element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <64>, <64>
  }
  return
}

// thunky's own ops declare exactly what they touch: what writes survives, a
// kernel that writes nothing is dead code, and an opaque thunk never is (it
// may send or call the host).
// CHECK-LABEL: func.func @exact_effects
func.func @exact_effects(%a: !thunky.buffer<16>, %w: !thunky.buffer<64>, %id: !thunky.buffer<4>) {
  // CHECK-NEXT: thunky.launch "writes"
  // CHECK-NEXT: thunky.gemm
  // CHECK-NEXT: thunky.cublaslt_matmul
  // CHECK-NEXT: thunky.replica_id
  // CHECK-NEXT: thunky.partition_id
  // CHECK-NEXT: thunky.call_thunk_proto
  // CHECK-NEXT: return
  thunky.launch "writes"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [true]>
  thunky.launch "reads_only"(%a : !thunky.buffer<16>) <grid = [1, 1, 1], block = [1, 1, 1], written = [false]>
  thunky.gemm %a, %a -> %a : <16>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}}>
  thunky.cublaslt_matmul %a, %a, %a -> %a : <16>, <16>, <16> -> <16> <config = {lhs_layout = {}, rhs_layout = {}, output_layout = {}}>
  thunky.replica_id %id : <4>
  thunky.partition_id %id : <4>
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "send" <thunk_proto = "x", asm_text = "", binary = "", written = [false]>
  return
}
