// A host computation reads its operands until its done thunk: a copy it
// reads is not forwarded from a source written before the done (the
// forwarded start would race with that write), and is once the write
// comes after the done.
// RUN: thunky-opt --thunky-elide-copies %s | FileCheck %s
// RUN: thunky-opt --thunky-elide-copies %s | thunky-opt --thunky-check-races -o /dev/null

// CHECK-LABEL: func.func @written_in_flight
// CHECK: thunky.copy
// CHECK-LABEL: func.func @written_after_the_done
// CHECK-NOT: thunky.copy
// CHECK: return
module {
  func.func @written_in_flight(%out: !thunky.buffer<16> {thunky.role = "output {}", thunky.shape = tensor<4xf32>},
                               %a: !thunky.buffer<16> {thunky.role = "scratch"},
                               %x: !thunky.buffer<16> {thunky.role = "scratch"}) {
    thunky.memset32 %a, 1 : <16>
    thunky.copy %a, %x : !thunky.buffer<16>, !thunky.buffer<16>
    thunky.call_thunk_proto %x, %out : !thunky.buffer<16>, !thunky.buffer<16> name = "host" <thunk_proto = {
      host_execute_start_thunk = {async_events_unique_id = 4 : ui64}
    }, asm_text = "", binary = "", written = [false, true]> {thunky.thunk_kind = "host_execute_start_thunk"}
    thunky.memset32 %a, 2 : <16>
    thunky.call_thunk_proto name = "host" <thunk_proto = {host_execute_done_thunk = {async_events_unique_id = 4 : ui64}}, asm_text = "", binary = "", written = []> {thunky.thunk_kind = "host_execute_done_thunk"}
    return
  }
  func.func @written_after_the_done(%out: !thunky.buffer<16> {thunky.role = "output {}", thunky.shape = tensor<4xf32>},
                                    %a: !thunky.buffer<16> {thunky.role = "scratch"},
                                    %x: !thunky.buffer<16> {thunky.role = "scratch"}) {
    thunky.memset32 %a, 1 : <16>
    thunky.copy %a, %x : !thunky.buffer<16>, !thunky.buffer<16>
    thunky.call_thunk_proto %x, %out : !thunky.buffer<16>, !thunky.buffer<16> name = "host" <thunk_proto = {
      host_execute_start_thunk = {async_events_unique_id = 4 : ui64}
    }, asm_text = "", binary = "", written = [false, true]> {thunky.thunk_kind = "host_execute_start_thunk"}
    thunky.call_thunk_proto name = "host" <thunk_proto = {host_execute_done_thunk = {async_events_unique_id = 4 : ui64}}, asm_text = "", binary = "", written = []> {thunky.thunk_kind = "host_execute_done_thunk"}
    thunky.memset32 %a, 2 : <16>
    return
  }
}
