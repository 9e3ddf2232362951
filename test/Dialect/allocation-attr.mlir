// #thunky.allocation prints every entry it holds, in one order, and parses
// back to itself: the role, the logical type, the flags and the recorded
// fields of the BufferAllocationProto, assigned buffers included.
// RUN: thunky-opt %s | FileCheck %s
// RUN: thunky-opt %s | thunky-opt | FileCheck %s

// CHECK-LABEL: func.func @main(
// CHECK-SAME: %arg0: !thunky.buffer<16> {thunky.allocation = #thunky.allocation<index = 0, output {0}, tensor<4xui32>, live_out, assigned = [13 at 0 + 8 : u32, 19 at 0 + 16 : u32]>}
// CHECK-SAME: %arg1: !thunky.buffer<8> {thunky.allocation = #thunky.allocation<index = 4, parameter 2, output {1, 0}, tensor<2xf32>, live_out, aliased, color = 1, parameter_shape_index = [0, 1]>}
// CHECK-SAME: %arg2: !thunky.buffer<1544> {thunky.allocation = #thunky.allocation<index = 3, scratch, tuple, thread_local, assigned = [7 at 1024 + 16 : tuple, 0 at 0 + 4, 9 at 8 + 8 : 99]>}
// CHECK-SAME: %arg3: !thunky.buffer<4> {thunky.allocation = #thunky.allocation<parameter 0, tensor<f32>>}
// CHECK-SAME: %arg4: !thunky.buffer<4> {thunky.allocation = #thunky.allocation<>})
// CHECK: thunky.constant <value = "\00\00\80?"> {thunky.allocation = #thunky.allocation<index = 5, constant, assigned = [12 at 0 + 4 : f32]>} : <4>
func.func @main(
    %out: !thunky.buffer<16> {thunky.allocation = #thunky.allocation<index = 0, output {0}, tensor<4xui32>, live_out, assigned = [13 at 0 + 8 : u32, 19 at 0 + 16 : u32]>},
    // Entries in any order; printed in one.
    %both: !thunky.buffer<8> {thunky.allocation = #thunky.allocation<parameter_shape_index = [0, 1], color = 1, aliased, live_out, tensor<2xf32>, output {1, 0}, parameter 2, index = 4>},
    %tmp: !thunky.buffer<1544> {thunky.allocation = #thunky.allocation<index = 3, scratch, tuple, thread_local, assigned = [7 at 1024 + 16 : tuple, 0 at 0 + 4, 9 at 8 + 8 : 99]>},
    %hand: !thunky.buffer<4> {thunky.allocation = #thunky.allocation<parameter 0, tensor<f32>>},
    %none: !thunky.buffer<4> {thunky.allocation = #thunky.allocation<>}) {
  %c = thunky.constant <value = "\00\00\80?"> {thunky.allocation = #thunky.allocation<index = 5, constant, assigned = [12 at 0 + 4 : f32]>} : <4>
  return
}
