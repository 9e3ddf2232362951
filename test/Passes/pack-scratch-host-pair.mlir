// A host computation writes its result until its done thunk: the scratch it
// writes stays live to the done, so a memzero between the two does not get
// its bytes (the race thunky-check-races would then report). A start whose
// done never comes keeps its bytes to the end.
// RUN: thunky-opt --thunky-pack-scratch %s | FileCheck %s
// RUN: thunky-opt --thunky-pack-scratch %s | thunky-opt --thunky-check-races -o /dev/null

// CHECK-LABEL: func.func @paired
// CHECK-SAME: %arg1: !thunky.buffer<2048>
// CHECK: thunky.slice_buffer %{{.*}} offset = 0 :
// CHECK: thunky.slice_buffer %{{.*}} offset = 1024 :
// CHECK-LABEL: func.func @after_the_done
// CHECK-SAME: %arg1: !thunky.buffer<1024>
// CHECK-LABEL: func.func @never_done
// CHECK-SAME: %arg1: !thunky.buffer<2048>
module {
  func.func @paired(%in: !thunky.buffer<1024> {thunky.role = "parameter 0", thunky.shape = tensor<256xf32>},
                    %s: !thunky.buffer<2048> {thunky.role = "scratch"}) {
    %r = thunky.slice_buffer %s offset = 0 : <2048> -> <1024>
    thunky.call_thunk_proto %in, %r : !thunky.buffer<1024>, !thunky.buffer<1024> name = "host" <thunk_proto = {
      host_execute_start_thunk = {async_events_unique_id = 4 : ui64}
    }, asm_text = "", binary = "", written = [false, true]> {thunky.thunk_kind = "host_execute_start_thunk"}
    %z = thunky.slice_buffer %s offset = 1024 : <2048> -> <1024>
    thunky.memzero %z : <1024>
    thunky.call_thunk_proto name = "host" <thunk_proto = {host_execute_done_thunk = {async_events_unique_id = 4 : ui64}}, asm_text = "", binary = "", written = []> {thunky.thunk_kind = "host_execute_done_thunk"}
    return
  }
  // Once the done came, the result's bytes are free for the memzero.
  func.func @after_the_done(%in: !thunky.buffer<1024> {thunky.role = "parameter 0", thunky.shape = tensor<256xf32>},
                            %s: !thunky.buffer<2048> {thunky.role = "scratch"}) {
    %r = thunky.slice_buffer %s offset = 0 : <2048> -> <1024>
    thunky.call_thunk_proto %in, %r : !thunky.buffer<1024>, !thunky.buffer<1024> name = "host" <thunk_proto = {
      host_execute_start_thunk = {async_events_unique_id = 4 : ui64}
    }, asm_text = "", binary = "", written = [false, true]> {thunky.thunk_kind = "host_execute_start_thunk"}
    thunky.call_thunk_proto name = "host" <thunk_proto = {host_execute_done_thunk = {async_events_unique_id = 4 : ui64}}, asm_text = "", binary = "", written = []> {thunky.thunk_kind = "host_execute_done_thunk"}
    %z = thunky.slice_buffer %s offset = 1024 : <2048> -> <1024>
    thunky.memzero %z : <1024>
    return
  }
  // A done of another id ends nothing.
  func.func @never_done(%in: !thunky.buffer<1024> {thunky.role = "parameter 0", thunky.shape = tensor<256xf32>},
                        %s: !thunky.buffer<2048> {thunky.role = "scratch"}) {
    %r = thunky.slice_buffer %s offset = 0 : <2048> -> <1024>
    thunky.call_thunk_proto %in, %r : !thunky.buffer<1024>, !thunky.buffer<1024> name = "host" <thunk_proto = {
      host_execute_start_thunk = {async_events_unique_id = 4 : ui64}
    }, asm_text = "", binary = "", written = [false, true]> {thunky.thunk_kind = "host_execute_start_thunk"}
    thunky.call_thunk_proto name = "host" <thunk_proto = {host_execute_done_thunk = {async_events_unique_id = 5 : ui64}}, asm_text = "", binary = "", written = []> {thunky.thunk_kind = "host_execute_done_thunk"}
    %z = thunky.slice_buffer %s offset = 1024 : <2048> -> <1024>
    thunky.memzero %z : <1024>
    return
  }
}
