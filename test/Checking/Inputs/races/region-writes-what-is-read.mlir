// The region zeroes scratch bytes [0, 16) while a copy between its start
// and its done reads [8, 24) into the output.
module attributes {thunky.executable = {output_info_map = [{output_info = {allocation_index = 1 : i64}, shape_index = {}}]}} {
  func.func @main(%arg0: !thunky.buffer<64> {thunky.allocation = {}, thunky.role = "scratch"}, %arg1: !thunky.buffer<64> {thunky.allocation = {index = 1 : i64, maybe_live_out = true}, thunky.role = "output {}"}) {
    thunky.memset32 %arg0, 7 : <64>
    %0 = thunky.slice_buffer %arg0 offset = 0 : <64> -> <16>
    %t = thunky.async_start stream = 1 {
      thunky.memzero %0 : <16>
    } : !thunky.token
    %1 = thunky.slice_buffer %arg0 offset = 8 : <64> -> <16>
    %2 = thunky.slice_buffer %arg1 offset = 0 : <64> -> <16>
    thunky.copy %1, %2 : <16>, <16>
    thunky.async_done %t : !thunky.token
    return
  }
}
