// A shape type outside the form thunky writes (here minor_to_major is no
// permutation) is refused, naming the field.
// RUN: not thunky-translate --export-thunky %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: {{.*}}destination_buffer.shape: expected a dictionary or a static tensor type
func.func @main(%a: !thunky.buffer<32> {thunky.role = "parameter 0"}, %b: !thunky.buffer<16> {thunky.role = "output {}"}) {
  thunky.reduce_scatter %a, %b <reduction_kind = "sum", element_type = ui32, replica_groups = [], group_mode = "cross_replica"> {thunky.thunk = {reduce_scatter_thunk = {buffers = [{destination_buffer = {shape = tensor<2x2xui32, {minor_to_major = array<i64: 0, 0>}>, slice = {element_type = "U32"}}, element_count = 8 : i64, source_buffer = {shape = tensor<8xui32>, slice = {element_type = "U32"}}}]}}} : <32>, <16>
  return
}
