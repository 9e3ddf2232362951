// RUN: not thunky-translate --export-thunky %s -o /dev/null 2>&1 | FileCheck %s
// Two starts of one async execution (id 5, kept from an import) in flight
// at once: XLA's runtime refuses start-start-done-done on one execution
// (openxla/xla#40432), so export refuses to write it, at the second start.
// CHECK: export-async-start-start-done-done.mlir:[[@LINE+11]]:10: error: 'thunky.async_start' op starts async execution 5 while an earlier start of it is in flight (its async_done comes later); XLA refuses start-start-done-done on one execution (openxla/xla#40432)
module {
  func.func @main(%a: !thunky.buffer<16>, %b: !thunky.buffer<16>) {
    %t = thunky.async_start stream = 1 {
      thunky.memzero %a : <16>
    } {thunky.thunk = {async_start_thunk = {async_execution_id = 5 : ui64}}} : !thunky.token
    // A pipelined chain may start the execution again after its done.
    thunky.async_done %t : !thunky.token
    %u = thunky.async_start stream = 1 {
      thunky.memzero %b : <16>
    } {thunky.thunk = {async_start_thunk = {async_execution_id = 5 : ui64}}} : !thunky.token
    %v = thunky.async_start stream = 1 {
      thunky.memzero %a : <16>
    } {thunky.thunk = {async_start_thunk = {async_execution_id = 5 : ui64}}} : !thunky.token
    thunky.async_done %u : !thunky.token
    thunky.async_done %v : !thunky.token
    return
  }
}
