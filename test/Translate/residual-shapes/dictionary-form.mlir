// A shape in a residual written as the dictionary of its fields, as import
// wrote it before shapes read as tensor types, still exports: to the same
// bytes as its type, tensor<4xui32>. Imported again, it reads as the type.
// RUN: thunky-translate --export-thunky %s -o %t.pb
// RUN: %decode_exe < %t.pb | FileCheck %s --check-prefix=PROTO
// RUN: sed -e '/^\/\//!s/destination_buffer = {shape = {[^}]*}[^}]*}/destination_buffer = {shape = tensor<4xui32>/' %s > %t.type.mlir
// RUN: grep -c 'destination_buffer = {shape = tensor<4xui32>, slice' %t.type.mlir
// RUN: thunky-translate --export-thunky %t.type.mlir -o %t.type.pb
// RUN: cmp %t.pb %t.type.pb
// RUN: thunky-translate --import-thunky %t.pb | FileCheck %s --check-prefix=MLIR

// PROTO: destination_buffer {
// PROTO: shape {
// PROTO-NEXT: element_type: U32
// PROTO-NEXT: dimensions: 4
// PROTO-NEXT: layout {
// PROTO-NEXT: minor_to_major: 0
// PROTO-NEXT: tail_padding_alignment_in_elements: 1
// PROTO-NEXT: }
// PROTO-NEXT: is_dynamic_dimension: false
// PROTO-NEXT: }

// MLIR: thunky.thunk = {reduce_scatter_thunk = {buffers = [{destination_buffer = {shape = tensor<4xui32>, slice = {element_type = "U32"}}, element_count = 8 : i64, source_buffer = {shape = tensor<8xui32>, slice = {element_type = "U32"}}}]}}
func.func @main(%a: !thunky.buffer<32> {thunky.role = "parameter 0"}, %b: !thunky.buffer<16> {thunky.role = "output {}"}) {
  thunky.reduce_scatter %a, %b <reduction_kind = "sum", element_type = ui32, replica_groups = [], group_mode = "cross_replica"> {thunky.thunk = {reduce_scatter_thunk = {buffers = [{destination_buffer = {shape = {element_type = "U32", dimensions = array<i64: 4>, layout = {minor_to_major = array<i64: 0>, tail_padding_alignment_in_elements = 1 : i64}, is_dynamic_dimension = array<i1: false>}, slice = {element_type = "U32"}}, element_count = 8 : i64, source_buffer = {shape = tensor<8xui32>, slice = {element_type = "U32"}}}]}}} : <32>, <16>
  return
}
