// RUN: thunky-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// Attributes shared by every collective
//===----------------------------------------------------------------------===//

func.func @unknown_reduction_kind(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op unknown reduction_kind 'avg' (expected sum, prod, min or max)}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "avg", element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @unknown_reduction_kind_reduce_scatter(%arg0: !thunky.buffer<32>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.reduce_scatter' op unknown reduction_kind 'SUM' (expected sum, prod, min or max)}}
  thunky.reduce_scatter %arg0, %arg1 <{reduction_kind = "SUM", element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"}> : <32>, <16>
  return
}

// -----

func.func @unknown_group_mode(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<32>) {
  // expected-error @+1 {{'thunky.all_gather' op unknown group_mode 'cross_host' (expected cross_replica, cross_partition, cross_replica_and_partition or flattened_id)}}
  thunky.all_gather %arg0, %arg1 <{element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_host"}> : <16>, <32>
  return
}

// -----

func.func @unsupported_element_type_f80(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op element type f80 is not supported by collectives}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f80, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @unsupported_element_type_i4(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<32>) {
  // expected-error @+1 {{'thunky.all_gather' op element type i4 is not supported by collectives}}
  thunky.all_gather %arg0, %arg1 <element_type = i4, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <32>
  return
}

// -----

func.func @unsupported_element_type_tf32(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.collective_permute' op element type tf32 is not supported by collectives}}
  thunky.collective_permute %arg0, %arg1 <{element_type = tf32, source_target_pairs = [[0, 1], [1, 0]], group_mode = "cross_replica"}> : <16>, <16>
  return
}

// -----

func.func @unsupported_element_type_complex_f16(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op element type complex<f16> is not supported by collectives}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = complex<f16>, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @buffer_not_whole_elements(%arg0: !thunky.buffer<6>, %arg1: !thunky.buffer<6>) {
  // expected-error @+1 {{'thunky.all_reduce' op buffer 0 holds 6 bytes, not a multiple of the 4-byte element type}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <6>, <6>
  return
}

// -----

func.func @destination_not_whole_elements(%arg0: !thunky.buffer<8>, %arg1: !thunky.buffer<12>) {
  // expected-error @+1 {{'thunky.all_gather' op buffer 1 holds 12 bytes, not a multiple of the 8-byte element type}}
  thunky.all_gather %arg0, %arg1 <{element_type = f64, replica_groups = [], group_mode = "cross_partition"}> : <8>, <12>
  return
}

// -----

func.func @min_on_complex(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op min is not defined for complex elements}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "min", element_type = complex<f32>, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @max_on_complex(%arg0: !thunky.buffer<64>, %arg1: !thunky.buffer<32>) {
  // expected-error @+1 {{'thunky.reduce_scatter' op max is not defined for complex elements}}
  thunky.reduce_scatter %arg0, %arg1 <{reduction_kind = "max", element_type = complex<f64>, replica_groups = [[0, 1]], group_mode = "cross_replica"}> : <64>, <32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// replica_groups
//===----------------------------------------------------------------------===//

func.func @replica_group_not_an_int_array(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op replica_groups[1] must be an array of 64-bit integers}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1], "2,3"], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @replica_group_holds_a_string(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op replica_groups[0] must be an array of 64-bit integers}}
  thunky.all_reduce %arg0, %arg1 <{reduction_kind = "sum", element_type = f32, replica_groups = [[0, "1"]], group_mode = "cross_replica"}> : <16>, <16>
  return
}

// -----

func.func @replica_group_empty(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op replica_groups[1] is empty}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1], []], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @replica_group_empty_dense(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op replica_groups[0] is empty}}
  thunky.all_reduce %arg0, %arg1 <{reduction_kind = "sum", element_type = f32, replica_groups = [array<i64>], group_mode = "cross_replica"}> : <16>, <16>
  return
}

// -----

func.func @replica_group_negative_id(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op replica_groups holds negative id -1}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1], [2, -1]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @replica_group_duplicate_id(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op id 1 appears twice in replica_groups}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1], [1, 2]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @replica_group_duplicate_id_dense(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.collective_permute' op id 3 appears twice in replica_groups}}
  thunky.collective_permute %arg0, %arg1 <{element_type = f32, source_target_pairs = [[0, 1], [1, 0]], group_mode = "cross_replica", replica_groups = [array<i64: 0, 1, 3>, array<i64: 2, 3>]}> : <16>, <16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// all_reduce, all_gather, reduce_scatter sizes
//===----------------------------------------------------------------------===//

func.func @all_reduce_size_mismatch(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<32>) {
  // expected-error @+1 {{'thunky.all_reduce' op source and destination sizes differ: 16 vs 32 bytes}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <16>, <32>
  return
}

// -----

// Only divisibility is checked, even when the group size is known (upstream
// gathers 64 bytes into 64 with two-member groups).
func.func @all_gather_not_divisible_known_group(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<40>) {
  // expected-error @+1 {{'thunky.all_gather' op source of 16 bytes does not divide the 40-byte other side}}
  thunky.all_gather %arg0, %arg1 <element_type = f32, replica_groups = [[0, 1], [2, 3]], group_mode = "cross_replica"> : <16>, <40>
  return
}

// -----

func.func @all_gather_not_divisible(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<24>) {
  // expected-error @+1 {{'thunky.all_gather' op source of 16 bytes does not divide the 24-byte other side}}
  thunky.all_gather %arg0, %arg1 <{element_type = f32, replica_groups = [], group_mode = "cross_replica"}> : <16>, <24>
  return
}

// -----

func.func @all_gather_empty_source(%arg0: !thunky.buffer<0>, %arg1: !thunky.buffer<8>) {
  // expected-error @+1 {{'thunky.all_gather' op source of 0 bytes does not divide the 8-byte other side}}
  thunky.all_gather %arg0, %arg1 <element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <0>, <8>
  return
}

// -----

func.func @reduce_scatter_not_divisible_known_group(%arg0: !thunky.buffer<48>, %arg1: !thunky.buffer<32>) {
  // expected-error @+1 {{'thunky.reduce_scatter' op destination of 32 bytes does not divide the 48-byte other side}}
  thunky.reduce_scatter %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"> : <48>, <32>
  return
}

// -----

func.func @reduce_scatter_not_divisible(%arg0: !thunky.buffer<24>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.reduce_scatter' op destination of 16 bytes does not divide the 24-byte other side}}
  thunky.reduce_scatter %arg0, %arg1 <{reduction_kind = "prod", element_type = f32, replica_groups = [], group_mode = "flattened_id"}> : <24>, <16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// all_to_all
//===----------------------------------------------------------------------===//

func.func @all_to_all_no_buffers() {
  // The custom syntax cannot spell an empty type list, so this one is generic.
  // expected-error @+1 {{'thunky.all_to_all' op needs at least one source and one destination buffer}}
  "thunky.all_to_all"() <{element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica", has_split_dimension = true}> : () -> ()
  return
}

// -----

func.func @all_to_all_size_mismatch(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>, %arg2: !thunky.buffer<16>, %arg3: !thunky.buffer<8>) {
  // expected-error @+1 {{'thunky.all_to_all' op source 1 and destination 1 sizes differ: 16 vs 8 bytes}}
  thunky.all_to_all (%arg0, %arg1), (%arg2, %arg3) <element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica", has_split_dimension = false> : (!thunky.buffer<16>, !thunky.buffer<16>), (!thunky.buffer<16>, !thunky.buffer<8>)
  return
}

// -----

func.func @all_to_all_one_buffer_per_participant(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_to_all' op without a split dimension there is one buffer per participant: 1 buffers for 2 participants}}
  thunky.all_to_all (%arg0), (%arg1) <{element_type = f32, replica_groups = [[0, 1], [2, 3]], group_mode = "cross_replica", has_split_dimension = false}> : (!thunky.buffer<16>), (!thunky.buffer<16>)
  return
}

// -----

func.func @all_to_all_split_not_whole_elements(%arg0: !thunky.buffer<24>, %arg1: !thunky.buffer<24>) {
  // expected-error @+1 {{'thunky.all_to_all' op with a split dimension buffer 0 (24 bytes) must split into 4 chunks of whole elements}}
  thunky.all_to_all (%arg0), (%arg1) <element_type = f32, replica_groups = [[0, 1, 2, 3]], group_mode = "cross_replica", has_split_dimension = true> : (!thunky.buffer<24>), (!thunky.buffer<24>)
  return
}

// -----

// Two sources but one destination: lists of different lengths are refused where the destinations are parsed,
// instead of being re-split into halves.
func.func @all_to_all_uneven_halves(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>, %arg2: !thunky.buffer<16>) {
  // expected-error @+1 {{expected as many destination buffers as source buffers (2), got 1}}
  thunky.all_to_all (%arg0, %arg1), (%arg2) <element_type = f32, replica_groups = [], group_mode = "cross_replica", has_split_dimension = true> : (!thunky.buffer<16>, !thunky.buffer<16>), (!thunky.buffer<16>)
  return
}

// -----

//===----------------------------------------------------------------------===//
// collective_permute
//===----------------------------------------------------------------------===//

func.func @permute_pair_of_three(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.collective_permute' op source_target_pairs[0] must be a pair of two 64-bit ids}}
  thunky.collective_permute %arg0, %arg1 <element_type = f32, source_target_pairs = [[0, 1, 2]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @permute_pair_not_integers(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.collective_permute' op source_target_pairs[1] must be a pair of two 64-bit ids}}
  thunky.collective_permute %arg0, %arg1 <{element_type = f32, source_target_pairs = [[0, 1], "1->0"], group_mode = "cross_replica"}> : <16>, <16>
  return
}

// -----

func.func @permute_negative_id(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.collective_permute' op source_target_pairs[1] holds a negative id}}
  thunky.collective_permute %arg0, %arg1 <element_type = f32, source_target_pairs = [[0, 1], [1, -1]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @permute_duplicate_source(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.collective_permute' op device 0 is the source of more than one pair}}
  thunky.collective_permute %arg0, %arg1 <{element_type = f32, source_target_pairs = [array<i64: 0, 1>, array<i64: 0, 2>], group_mode = "cross_replica"}> : <16>, <16>
  return
}

// -----

func.func @permute_duplicate_target(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.collective_permute' op device 1 is the target of more than one pair}}
  thunky.collective_permute %arg0, %arg1 <element_type = f32, source_target_pairs = [[0, 1], [2, 1]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @permute_size_mismatch(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<8>) {
  // expected-error @+1 {{'thunky.collective_permute' op source and destination sizes differ: 16 vs 8 bytes}}
  thunky.collective_permute %arg0, %arg1 <element_type = f32, source_target_pairs = [[0, 1], [1, 0]], group_mode = "cross_replica"> : <16>, <8>
  return
}

// -----

// The generic form cannot be re-split either: an odd operand count is refused.
func.func @all_to_all_odd_operands(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>, %arg2: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_to_all' op has 3 buffers; sources and destinations must pair up}}
  "thunky.all_to_all"(%arg0, %arg1, %arg2) <{element_type = f32, group_mode = "cross_replica", has_split_dimension = true, replica_groups = []}> : (!thunky.buffer<16>, !thunky.buffer<16>, !thunky.buffer<16>) -> ()
  return
}

// -----

// Ids are read as 64-bit integers; other integer kinds would change value.
func.func @replica_ids_not_64_bit(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op replica_groups[0] must be an array of 64-bit integers}}
  thunky.all_reduce %arg0, %arg1 <reduction_kind = "sum", element_type = f32, replica_groups = [[0 : ui8, 200 : ui8]], group_mode = "cross_replica"> : <16>, <16>
  return
}

// -----

func.func @pair_ids_not_64_bit(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.collective_permute' op source_target_pairs[0] must be a pair of two 64-bit ids}}
  thunky.collective_permute %arg0, %arg1 <element_type = f32, source_target_pairs = [[true, false]], group_mode = "cross_replica"> : <16>, <16>
  return
}

//===----------------------------------------------------------------------===//
// Several source/destination pairs
//===----------------------------------------------------------------------===//

// -----

func.func @pair_lists_differ(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<16>) {
  // expected-error @+1 {{expected as many destination buffers as source buffers (2), got 1}}
  thunky.all_gather (%a, %b), (%c) <element_type = f32, replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<8>), (!thunky.buffer<16>)
  return
}

// -----

func.func @element_types_per_pair_count(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<16>, %d: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_gather' op element_type lists 3 types for 2 source/destination pairs}}
  thunky.all_gather (%a, %b), (%c, %d) <element_type = [ui32, f32, f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<8>), (!thunky.buffer<16>, !thunky.buffer<16>)
  return
}

// -----

func.func @element_types_not_types(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<16>, %d: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_gather' op element_type[1] is not a type}}
  thunky.all_gather (%a, %b), (%c, %d) <element_type = [ui32, "f32"], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<8>), (!thunky.buffer<16>, !thunky.buffer<16>)
  return
}

// -----

func.func @element_type_not_a_type(%a: !thunky.buffer<8>, %c: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_gather' op element_type must be a type or a list of one type per pair}}
  thunky.all_gather %a, %c <element_type = 4, replica_groups = [], group_mode = "cross_replica"> : <8>, <16>
  return
}

// -----

// Each pair's buffers hold whole elements of its own type.
func.func @pair_element_size(%a: !thunky.buffer<8>, %b: !thunky.buffer<6>, %c: !thunky.buffer<16>, %d: !thunky.buffer<12>) {
  // expected-error @+1 {{'thunky.all_gather' op buffer 1 holds 6 bytes, not a multiple of the 4-byte element type}}
  thunky.all_gather (%a, %b), (%c, %d) <element_type = [i16, f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<6>), (!thunky.buffer<16>, !thunky.buffer<12>)
  return
}

// -----

func.func @pair_gather_divides(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<16>, %d: !thunky.buffer<12>) {
  // expected-error @+1 {{'thunky.all_gather' op source 1 of 8 bytes does not divide the 12-byte other side}}
  thunky.all_gather (%a, %b), (%c, %d) <element_type = f32, replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<8>), (!thunky.buffer<16>, !thunky.buffer<12>)
  return
}

// -----

func.func @pair_reduce_sizes(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<8>, %d: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op source 1 and destination 1 sizes differ: 8 vs 16 bytes}}
  thunky.all_reduce (%a, %b), (%c, %d) <reduction_kind = "sum", element_type = f32, replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<8>), (!thunky.buffer<8>, !thunky.buffer<16>)
  return
}

// -----

func.func @pair_complex_max(%a: !thunky.buffer<16>, %b: !thunky.buffer<16>, %c: !thunky.buffer<16>, %d: !thunky.buffer<16>) {
  // expected-error @+1 {{'thunky.all_reduce' op max is not defined for complex elements}}
  thunky.all_reduce (%a, %b), (%c, %d) <reduction_kind = "max", element_type = [f32, complex<f32>], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<16>, !thunky.buffer<16>), (!thunky.buffer<16>, !thunky.buffer<16>)
  return
}

// -----

func.func @no_pairs() {
  // expected-error @+1 {{'thunky.reduce_scatter' op needs at least one source and one destination buffer}}
  thunky.reduce_scatter (), () <reduction_kind = "sum", element_type = f32, replica_groups = [], group_mode = "cross_replica"> : (), ()
  return
}
