// Every op of the dialect parses, prints, and parses again to the same text,
// through the custom syntax, the generic syntax and bytecode.
// RUN: thunky-opt %s > %t.1.mlir
// RUN: thunky-opt %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir
// RUN: thunky-opt %s --mlir-print-op-generic | thunky-opt | FileCheck %s
// RUN: thunky-opt %s -emit-bytecode | thunky-opt | FileCheck %s

// CHECK-LABEL: func.func @data_movement
// CHECK-SAME: (%[[A:.*]]: !thunky.buffer<128>, %[[B:.*]]: !thunky.buffer<64>)
func.func @data_movement(%a: !thunky.buffer<128>, %b: !thunky.buffer<64>) {
  // CHECK-NEXT: %[[S:.*]] = thunky.slice_buffer %[[A]] offset = 32 : <128> -> <64>
  %s = thunky.slice_buffer %a offset = 32 : !thunky.buffer<128> -> !thunky.buffer<64>
  // CHECK-NEXT: thunky.memzero %[[S]] : <64>
  thunky.memzero %s : <64>
  // CHECK-NEXT: thunky.memset32 %[[B]], -1 : <64>
  thunky.memset32 %b, -1 : <64>
  // CHECK-NEXT: thunky.memset32 %[[B]], 1077936128 : <64>
  thunky.memset32 %b, 1077936128 : <64>
  // CHECK-NEXT: thunky.copy %[[S]], %[[B]] : <64>, <64>
  thunky.copy %s, %b : <64>, <64>
  // CHECK-NEXT: %[[C:.*]] = thunky.constant <value = "ab\00\FF"> : <4>
  %c = thunky.constant <{value = "ab\00\ff"}> : !thunky.buffer<4>
  // CHECK-NEXT: %[[E:.*]] = thunky.constant <value = ""> : <0>
  %e = thunky.constant <value = ""> : <0>
  // CHECK-NEXT: thunky.copy %[[C]], %[[C]] : <4>, <4>
  thunky.copy %c, %c : <4>, <4>
  return
}

// CHECK-LABEL: func.func @kernels
func.func @kernels(%a: !thunky.buffer<16>, %b: !thunky.buffer<16>) {
  // CHECK-NEXT: thunky.ptx_kernel %{{.*}}, %{{.*}} : !thunky.buffer<16>, !thunky.buffer<16> name = "add" <ptx = ".entry add", grid_dim = [1, 2, 3], block_dim = [128, 1, 1], written = [false, true], shmem_bytes = 256>
  thunky.ptx_kernel %a, %b : !thunky.buffer<16>, !thunky.buffer<16> name = "add" <ptx = ".entry add", grid_dim = [1, 2, 3], block_dim = [128, 1, 1], written = [false, true], shmem_bytes = 256>
  // CHECK-NEXT: thunky.ptx_kernel name = "noargs" <ptx = "", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [], shmem_bytes = 0>
  thunky.ptx_kernel name = "noargs" <{block_dim = array<i64: 1, 1, 1>, grid_dim = array<i64: 1, 1, 1>, ptx = "", shmem_bytes = 0 : i64, written = array<i1>}>
  // CHECK-NEXT: thunky.call_thunk_proto %{{.*}} : !thunky.buffer<16> name = "fusion" <thunk_proto = "\08\01", asm_text = "ptx", binary = "\7FELF">
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "fusion" <thunk_proto = "\08\01", asm_text = "ptx", binary = "\7FELF">
  // CHECK-NEXT: thunky.call_thunk_proto name = "bare" <thunk_proto = "x", asm_text = "", binary = "">
  thunky.call_thunk_proto name = "bare" <{asm_text = "", binary = "", thunk_proto = "x"}>
  // CHECK-NEXT: thunky.custom_call %{{.*}}, %{{.*}} : !thunky.buffer<16>, !thunky.buffer<16> target = "my_target" <num_operands = 1, num_results = 1, backend_config = {count = 7 : i64, flag = true}, operand_shapes = [tensor<4xf32>], result_shapes = [tensor<2x2xf32>]>
  thunky.custom_call %a, %b : !thunky.buffer<16>, !thunky.buffer<16> target = "my_target" <{backend_config = {flag = true, count = 7 : i64}, num_operands = 1 : i64, num_results = 1 : i64, operand_shapes = [tensor<4xf32>], result_shapes = [tensor<2x2xf32>]}>
  // CHECK-NEXT: thunky.custom_call target = "side_effect" <num_operands = 0, num_results = 0, backend_config = {}>
  thunky.custom_call target = "side_effect" <num_operands = 0, num_results = 0, backend_config = {}>
  return
}

// CHECK-LABEL: func.func @control_flow
func.func @control_flow(%p: !thunky.buffer<1>, %i: !thunky.buffer<4>, %x: !thunky.buffer<64>) {
  // CHECK-NEXT: thunky.cond %{{.*}} : <1> {
  // CHECK-NEXT:   thunky.memzero
  // CHECK-NEXT: }, {
  // CHECK-NEXT:   thunky.memset32
  // CHECK-NEXT: }
  thunky.cond %p : <1> {
    thunky.memzero %x : <64>
  }, {
    thunky.memset32 %x, 1 : <64>
    thunky.yield
  }
  // CHECK-NEXT: thunky.cond %{{.*}} : <4> {
  // CHECK-NEXT:   thunky.memzero
  // CHECK-NEXT: }, {
  // CHECK-NEXT: }, {
  // CHECK-NEXT: }
  thunky.cond %i : <4> {
    thunky.memzero %x : <64>
  }, {
  }, {
  }
  // CHECK-NEXT: thunky.while %{{.*}} : <1> cond {
  // CHECK-NEXT:   thunky.memzero %{{.*}} : <1>
  // CHECK-NEXT: } body {
  // CHECK-NEXT:   thunky.memzero %{{.*}} : <64>
  // CHECK-NEXT: }
  thunky.while %p : <1> cond {
    thunky.memzero %p : <1>
  } body {
    thunky.memzero %x : <64>
  }
  // CHECK-NEXT: thunky.sequential {
  // CHECK-NEXT:   thunky.sequential {
  // CHECK-NEXT:     thunky.memzero
  // CHECK-NEXT:   }
  // CHECK-NEXT: }
  thunky.sequential {
    thunky.sequential {
      thunky.memzero %x : <64>
    }
  }
  return
}

// CHECK-LABEL: func.func @async
func.func @async(%x: !thunky.buffer<64>) {
  // CHECK-NEXT: %[[T0:.*]] = thunky.async_start stream = 0 {
  // CHECK-NEXT:   thunky.memzero
  // CHECK-NEXT: } : !thunky.token
  %t0 = thunky.async_start stream = 0 {
    thunky.memzero %x : <64>
  } : !thunky.token
  // CHECK-NEXT: %[[T1:.*]] = thunky.async_start stream = 2 {
  // CHECK-NEXT: } <is_communication = true> : !thunky.token
  %t1 = thunky.async_start stream = 2 {
  } <{is_communication = true}> : !thunky.token
  // CHECK-NEXT: thunky.async_done %[[T0]] : !thunky.token
  thunky.async_done %t0 : !thunky.token
  // CHECK-NEXT: thunky.async_done %[[T1]] : !thunky.token
  thunky.async_done %t1 : !thunky.token
  return
}

// CHECK-LABEL: func.func @collectives
func.func @collectives(%a: !thunky.buffer<64>, %b: !thunky.buffer<64>, %big: !thunky.buffer<128>) {
  // CHECK-NEXT: thunky.all_reduce %{{.*}}, %{{.*}} <reduction_kind = "sum", element_type = f32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica"> : <64>, <64>
  thunky.all_reduce %a, %b <{element_type = f32, group_mode = "cross_replica", reduction_kind = "sum", replica_groups = [array<i64: 0, 1>]}> : !thunky.buffer<64>, !thunky.buffer<64>
  // CHECK-NEXT: thunky.all_gather %{{.*}}, %{{.*}} <element_type = bf16, replica_groups = {{\[}}[0, 1]], group_mode = "flattened_id"> : <64>, <128>
  thunky.all_gather %a, %big <element_type = bf16, replica_groups = [[0, 1]], group_mode = "flattened_id"> : <64>, <128>
  // CHECK-NEXT: thunky.reduce_scatter %{{.*}}, %{{.*}} <reduction_kind = "max", element_type = i32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_partition"> : <128>, <64>
  thunky.reduce_scatter %big, %a <reduction_kind = "max", element_type = i32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_partition"> : <128>, <64>
  // CHECK-NEXT: thunky.all_to_all(%{{.*}}), (%{{.*}}) <element_type = f16, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica_and_partition", has_split_dimension = true> : (!thunky.buffer<64>), (!thunky.buffer<64>)
  thunky.all_to_all (%a), (%b) <{element_type = f16, group_mode = "cross_replica_and_partition", has_split_dimension = true, replica_groups = [array<i64: 0, 1>]}> : (!thunky.buffer<64>), (!thunky.buffer<64>)
  // CHECK-NEXT: thunky.all_to_all(%{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}) <element_type = f32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica", has_split_dimension = false> : (!thunky.buffer<64>, !thunky.buffer<64>), (!thunky.buffer<64>, !thunky.buffer<64>)
  thunky.all_to_all (%a, %b), (%b, %a) <element_type = f32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica", has_split_dimension = false> : (!thunky.buffer<64>, !thunky.buffer<64>), (!thunky.buffer<64>, !thunky.buffer<64>)
  // CHECK-NEXT: thunky.collective_permute %{{.*}}, %{{.*}} <element_type = f64, source_target_pairs = [array<i64: 0, 1>, array<i64: 1, 0>], group_mode = "cross_replica", replica_groups = [array<i64: 0, 1>]> : <64>, <64>
  thunky.collective_permute %a, %b <{element_type = f64, group_mode = "cross_replica", replica_groups = [array<i64: 0, 1>], source_target_pairs = [array<i64: 0, 1>, array<i64: 1, 0>]}> : !thunky.buffer<64>, !thunky.buffer<64>
  // CHECK-NEXT: thunky.collective_permute %{{.*}}, %{{.*}} <element_type = ui8, source_target_pairs = {{\[}}[0, 1]], group_mode = "flattened_id"> : <64>, <64>
  thunky.collective_permute %a, %b <element_type = ui8, source_target_pairs = [[0, 1]], group_mode = "flattened_id"> : <64>, <64>
  // CHECK-NEXT: thunky.collective_group {
  // CHECK-NEXT:   thunky.all_reduce
  // CHECK-NEXT:   thunky.copy
  // CHECK-NEXT: }
  thunky.collective_group {
    thunky.all_reduce %a, %b <reduction_kind = "min", element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <64>, <64>
    thunky.copy %a, %b : <64>, <64>
  }
  return
}

// The older upstream spelling kept inherent attributes in the trailing
// attribute dictionary; MLIR 22 moves them into properties.
// CHECK-LABEL: func.func @old_attr_dict_spelling
func.func @old_attr_dict_spelling(%a: !thunky.buffer<16>, %b: !thunky.buffer<16>) {
  // CHECK-NEXT: thunky.ptx_kernel {{.*}} name = "k" <ptx = "p", grid_dim = [1, 1, 1], block_dim = [4, 1, 1], written = [false, true], shmem_bytes = 0>
  thunky.ptx_kernel %a, %b : !thunky.buffer<16>, !thunky.buffer<16> name = "k" {block_dim = array<i64: 4, 1, 1>, grid_dim = array<i64: 1, 1, 1>, ptx = "p", shmem_bytes = 0 : i64, written = array<i1: false, true>}
  // CHECK-NEXT: thunky.call_thunk_proto {{.*}} name = "c" <thunk_proto = "t", asm_text = "a", binary = "b"> {executable_metadata_proto = "m"}
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "c" {asm_text = "a", binary = "b", executable_metadata_proto = "m", thunk_proto = "t"}
  // CHECK-NEXT: thunky.async_start stream = 3 {
  // CHECK-NEXT: } <is_communication = true> : !thunky.token
  %t = thunky.async_start stream = 3 {
  } {is_communication = true} : !thunky.token
  thunky.async_done %t : !thunky.token
  return
}
