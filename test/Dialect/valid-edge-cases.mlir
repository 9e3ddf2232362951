// RUN: thunky-opt %s | thunky-opt | FileCheck %s

// Boundary cases that every verifier must accept.

// CHECK-LABEL: func.func @slice_at_end_of_parent
// CHECK: thunky.slice_buffer %{{.*}} offset = 12 : <16> -> <4>
// CHECK: thunky.slice_buffer %{{.*}} offset = 16 : <16> -> <0>
// CHECK: thunky.slice_buffer %{{.*}} offset = 0 : <16> -> <16>
func.func @slice_at_end_of_parent(%arg0: !thunky.buffer<16>) {
  %0 = thunky.slice_buffer %arg0 offset = 12 : <16> -> <4>
  %1 = thunky.slice_buffer %arg0 offset = 16 : <16> -> <0>
  %2 = thunky.slice_buffer %arg0 offset = 0 : <16> -> <16>
  thunky.memzero %0 : <4>
  thunky.memzero %1 : <0>
  thunky.memzero %2 : <16>
  return
}

// CHECK-LABEL: func.func @zero_size_buffers
// CHECK-SAME: (%[[A:.*]]: !thunky.buffer<0>, %[[B:.*]]: !thunky.buffer<0>)
// CHECK: thunky.memset32 %[[A]], 0 : <0>
// CHECK: thunky.memset32 %[[A]], -1 : <0>
// CHECK: thunky.copy %[[A]], %[[B]] : <0>, <0>
// CHECK: thunky.constant <value = ""> : <0>
func.func @zero_size_buffers(%arg0: !thunky.buffer<0>, %arg1: !thunky.buffer<0>) -> !thunky.buffer<0> {
  thunky.memset32 %arg0, 0 : <0>
  thunky.memset32 %arg0, -1 : <0>
  thunky.copy %arg0, %arg1 : <0>, <0>
  %0 = thunky.constant <{value = ""}> : <0>
  return %0 : !thunky.buffer<0>
}

// CHECK-LABEL: func.func @s32_cond_one_and_three_branches
// CHECK: thunky.cond %{{.*}} : <4> {
// CHECK-NEXT: thunky.memzero
// CHECK-NEXT: }
// CHECK-NOT: }, {
// CHECK: thunky.cond %{{.*}} : <4> {
// CHECK-NEXT: thunky.memzero
// CHECK-NEXT: }, {
// CHECK-NEXT: thunky.memset32 %{{.*}}, 1 : <16>
// CHECK-NEXT: }, {
// CHECK-NEXT: thunky.memset32 %{{.*}}, 2 : <16>
// CHECK-NEXT: }
func.func @s32_cond_one_and_three_branches(%arg0: !thunky.buffer<4>, %arg1: !thunky.buffer<16>) {
  thunky.cond %arg0 : <4> {
    thunky.memzero %arg1 : <16>
  }
  thunky.cond %arg0 : <4> {
    thunky.memzero %arg1 : <16>
  }, {
    thunky.memset32 %arg1, 1 : <16>
  }, {
    thunky.memset32 %arg1, 2 : <16>
  }
  return
}

// CHECK-LABEL: func.func @bool_cond_two_branches
// CHECK: thunky.cond %{{.*}} : <1> {
// CHECK-NEXT: thunky.memzero
// CHECK-NEXT: }, {
// CHECK-NEXT: }
func.func @bool_cond_two_branches(%arg0: !thunky.buffer<1>, %arg1: !thunky.buffer<16>) {
  thunky.cond %arg0 : <1> {
    thunky.memzero %arg1 : <16>
  }, {
  }
  return
}

// CHECK-LABEL: func.func @while_one_and_four_byte_condition
// CHECK: thunky.while %{{.*}} : <1> cond {
// CHECK: } body {
// CHECK: thunky.while %{{.*}} : <4> cond {
// CHECK: } body {
func.func @while_one_and_four_byte_condition(%arg0: !thunky.buffer<1>, %arg1: !thunky.buffer<4>, %arg2: !thunky.buffer<16>) {
  thunky.while %arg0 : <1> cond {
    thunky.memzero %arg0 : <1>
  } body {
    thunky.memzero %arg2 : <16>
  }
  thunky.while %arg1 : <4> cond {
    thunky.memset32 %arg1, 0 : <4>
  } body {
    thunky.memzero %arg2 : <16>
  }
  return
}

// CHECK-LABEL: func.func @async_stream_zero
// CHECK: %[[T:.*]] = thunky.async_start stream = 0 {
// CHECK: } : !thunky.token
// CHECK: thunky.async_done %[[T]] : !thunky.token
func.func @async_stream_zero(%arg0: !thunky.buffer<16>) {
  %0 = thunky.async_start stream = 0 {
    thunky.memzero %arg0 : <16>
  } : !thunky.token
  thunky.async_done %0 : !thunky.token
  return
}

// CHECK-LABEL: func.func @all_to_all_even_split
// CHECK: thunky.all_to_all(%{{.*}}), (%{{.*}}) <element_type = f32, replica_groups = {{\[\[}}0, 1, 2, 3]], group_mode = "cross_replica", has_split_dimension = true> : (!thunky.buffer<32>), (!thunky.buffer<32>)
// CHECK: thunky.all_to_all(%{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}) <element_type = bf16, replica_groups = {{\[\[}}0, 1]], group_mode = "cross_partition", has_split_dimension = false>
func.func @all_to_all_even_split(%arg0: !thunky.buffer<32>, %arg1: !thunky.buffer<32>) {
  thunky.all_to_all (%arg0), (%arg1) <{element_type = f32, replica_groups = [[0, 1, 2, 3]], group_mode = "cross_replica", has_split_dimension = true}> : (!thunky.buffer<32>), (!thunky.buffer<32>)
  thunky.all_to_all (%arg0, %arg1), (%arg1, %arg0) <element_type = bf16, replica_groups = [[0, 1]], group_mode = "cross_partition", has_split_dimension = false> : (!thunky.buffer<32>, !thunky.buffer<32>), (!thunky.buffer<32>, !thunky.buffer<32>)
  return
}

// CHECK-LABEL: func.func @all_gather_unknown_group_size
// CHECK: thunky.all_gather %{{.*}}, %{{.*}} <element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <16>, <48>
// CHECK: thunky.reduce_scatter %{{.*}}, %{{.*}} <reduction_kind = "sum", element_type = f32, replica_groups = [], group_mode = "flattened_id"> : <48>, <16>
func.func @all_gather_unknown_group_size(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<48>) {
  thunky.all_gather %arg0, %arg1 <element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <16>, <48>
  thunky.reduce_scatter %arg1, %arg0 <{reduction_kind = "sum", element_type = f32, replica_groups = [], group_mode = "flattened_id"}> : <48>, <16>
  return
}

// The gathered side need only be a multiple of the other: upstream's own
// tests gather 64 bytes into 64 with two-member groups.
// CHECK-LABEL: func.func @gather_scatter_divisibility_only
// CHECK: thunky.all_gather %{{.*}}, %{{.*}} <element_type = f32, replica_groups = {{\[\[}}0, 1]], group_mode = "cross_replica"> : <64>, <64>
// CHECK: thunky.reduce_scatter %{{.*}}, %{{.*}} <reduction_kind = "sum", element_type = f32, replica_groups = {{\[\[}}0, 1]], group_mode = "cross_replica"> : <64>, <64>
func.func @gather_scatter_divisibility_only(%arg0: !thunky.buffer<64>, %arg1: !thunky.buffer<64>) {
  thunky.all_gather %arg0, %arg1 <element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <64>, <64>
  thunky.reduce_scatter %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <64>, <64>
  return
}

// CHECK-LABEL: func.func @uneven_replica_groups
// CHECK: thunky.all_gather %{{.*}}, %{{.*}} <element_type = i32, replica_groups = {{\[\[}}0, 1], [2, 3, 4]], group_mode = "cross_replica"> : <8>, <24>
func.func @uneven_replica_groups(%arg0: !thunky.buffer<8>, %arg1: !thunky.buffer<24>) {
  thunky.all_gather %arg0, %arg1 <element_type = i32, replica_groups = [[0, 1], [2, 3, 4]], group_mode = "cross_replica"> : <8>, <24>
  return
}

// CHECK-LABEL: func.func @collective_permute_nested_pairs
// CHECK: thunky.collective_permute %{{.*}}, %{{.*}} <element_type = f32, source_target_pairs = {{\[\[}}0, 1], [1, 0]], group_mode = "cross_replica"> : <16>, <16>
// CHECK: thunky.collective_permute %{{.*}}, %{{.*}} <element_type = f32, source_target_pairs = [array<i64: 0, 1>, array<i64: 1, 2>], group_mode = "cross_partition", replica_groups = {{\[\[}}0, 1, 2]]> : <16>, <16>
func.func @collective_permute_nested_pairs(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  thunky.collective_permute %arg0, %arg1 <element_type = f32, source_target_pairs = [[0, 1], [1, 0]], group_mode = "cross_replica"> : <16>, <16>
  thunky.collective_permute %arg0, %arg1 <{element_type = f32, source_target_pairs = [array<i64: 0, 1>, array<i64: 1, 2>], group_mode = "cross_partition", replica_groups = [[0, 1, 2]]}> : <16>, <16>
  return
}

// CHECK-LABEL: func.func @replica_group_spellings
// CHECK: thunky.all_reduce %{{.*}}, %{{.*}} <reduction_kind = "sum", element_type = f32, replica_groups = {{\[\[}}0, 1], [2, 3]], group_mode = "cross_replica"> : <16>, <16>
// CHECK: thunky.all_reduce %{{.*}}, %{{.*}} <reduction_kind = "max", element_type = f32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica_and_partition"> : <16>, <16>
func.func @replica_group_spellings(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1], [2, 3]], group_mode = "cross_replica"> : <16>, <16>
  thunky.all_reduce %arg0, %arg1 <{reduction_kind = "max", element_type = f32, replica_groups = [array<i64: 0, 1>], group_mode = "cross_replica_and_partition"}> : <16>, <16>
  return
}

// CHECK-LABEL: func.func @reduction_kinds_and_element_types
// CHECK: thunky.all_reduce %{{.*}}, %{{.*}} <reduction_kind = "product", element_type = f32,
// CHECK: thunky.all_reduce %{{.*}}, %{{.*}} <reduction_kind = "prod", element_type = i64,
// CHECK: thunky.all_reduce %{{.*}}, %{{.*}} <reduction_kind = "max", element_type = i1,
// CHECK: thunky.all_reduce %{{.*}}, %{{.*}} <reduction_kind = "sum", element_type = complex<f32>,
// CHECK: thunky.all_reduce %{{.*}}, %{{.*}} <reduction_kind = "sum", element_type = complex<f64>,
// CHECK: thunky.all_reduce %{{.*}}, %{{.*}} <reduction_kind = "min", element_type = f8E4M3FN,
// CHECK: thunky.all_reduce %{{.*}}, %{{.*}} <reduction_kind = "sum", element_type = bf16,
func.func @reduction_kinds_and_element_types(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "product", element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
  thunky.all_reduce %arg0, %arg1 <{reduction_kind = "prod", element_type = i64, replica_groups = [[0, 1]], group_mode = "cross_replica"}> : <16>, <16>
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "max", element_type = i1, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = complex<f32>, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
  thunky.all_reduce %arg0, %arg1 <{reduction_kind = "sum", element_type = complex<f64>, replica_groups = [[0, 1]], group_mode = "cross_replica"}> : <16>, <16>
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "min", element_type = f8E4M3FN, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = bf16, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// CHECK-LABEL: func.func @custom_call_without_shapes
// CHECK: thunky.custom_call %{{.*}}, %{{.*}} : !thunky.buffer<16>, !thunky.buffer<4> target = "my_ffi" <num_operands = 1, num_results = 1, backend_config = {}>
// CHECK: thunky.custom_call target = "no_buffers" <num_operands = 0, num_results = 0, backend_config = {api_version = 4 : i32}>
// CHECK: thunky.custom_call %{{.*}}, %{{.*}} : !thunky.buffer<16>, !thunky.buffer<4> target = "shaped" <num_operands = 1, num_results = 1, backend_config = {}, operand_shapes = [tensor<4xf32>], result_shapes = [i32]>
func.func @custom_call_without_shapes(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<4>) {
  thunky.custom_call %arg0, %arg1 : !thunky.buffer<16>, !thunky.buffer<4> target = "my_ffi" <num_operands = 1, num_results = 1, backend_config = {}>
  thunky.custom_call target = "no_buffers" <{num_operands = 0 : i64, num_results = 0 : i64, backend_config = {api_version = 4 : i32}}>
  thunky.custom_call %arg0, %arg1 : !thunky.buffer<16>, !thunky.buffer<4> target = "shaped" <num_operands = 1, num_results = 1, backend_config = {}, operand_shapes = [tensor<4xf32>], result_shapes = [i32]>
  return
}

// CHECK-LABEL: func.func @ptx_kernel_minimal_launch
// CHECK: thunky.ptx_kernel name = "noop" <ptx = "", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [], shmem_bytes = 0>
func.func @ptx_kernel_minimal_launch() {
  thunky.ptx_kernel name = "noop" <ptx = "", grid_dim = [1, 1, 1], block_dim = [1, 1, 1], written = [], shmem_bytes = 0>
  return
}

// CHECK-LABEL: func.func @collective_group_with_collectives_copies_and_slices
// CHECK: thunky.collective_group {
// CHECK-NEXT: thunky.slice_buffer
// CHECK-NEXT: thunky.all_reduce
// CHECK-NEXT: thunky.copy
// CHECK-NEXT: }
func.func @collective_group_with_collectives_copies_and_slices(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  thunky.collective_group {
    %0 = thunky.slice_buffer %arg0 offset = 8 : <16> -> <8>
    thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
    thunky.copy %arg1, %arg0 : <16>, <16>
  }
  return
}
