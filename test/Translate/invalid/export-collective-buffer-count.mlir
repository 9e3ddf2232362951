// A thunky.all_reduce (one buffer pair) whose thunky.thunk describes 2 buffers is refused at the op.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<64>, %b: !thunky.buffer<64>) {
  // CHECK: :[[@LINE+1]]:3: error: 'thunky.all_reduce' op thunky.thunk describes a different number of buffers
  thunky.all_reduce %a, %b <{element_type = f32, group_mode = "cross_replica", reduction_kind = "sum", replica_groups = [array<i64: 0, 1>]}> {thunky.thunk = {all_reduce_thunk = {buffers = [{}, {}]}}} : !thunky.buffer<64>, !thunky.buffer<64>
  return
}
