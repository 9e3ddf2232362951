// RUN: thunky-opt --thunky-check-races --split-input-file --verify-diagnostics %s -o /dev/null

// XLA's host computations and host transfers are async pairs, kept as
// call_thunk_proto: a host_execute_start works on its buffers until the
// host_execute_done of the same async_events_unique_id, as a host_send or
// host_recv does until its done. A memzero of the host computation's
// result between the two races with it; one of other bytes (XLA's own
// program, test/Translate/thunks/host_execute_done_thunk.textproto) does
// not, and neither does one after the done.
func.func @host_execute(%in: !thunky.buffer<1024>, %out: !thunky.buffer<2048>) {
  %0 = thunky.slice_buffer %out offset = 0 : <2048> -> <1024>
  // expected-error @+1 {{races with thunk 2, 'thunky.memzero'}}
  thunky.call_thunk_proto %in, %0 : !thunky.buffer<1024>, !thunky.buffer<1024> name = "thunk" <thunk_proto = {host_execute_start_thunk = {args = [{slice = {size = 1024 : i64}}], async_events_unique_id = 4 : ui64, results = [{slice = {buffer_allocation_index = 1 : i64, size = 1024 : i64}}]}}, asm_text = "", binary = "", written = [false, true]> {thunky.thunk_kind = "host_execute_start_thunk"}
  %1 = thunky.slice_buffer %out offset = 1024 : <2048> -> <1024>
  thunky.memzero %1 : <1024>
  thunky.memzero %0 : <1024>
  thunky.call_thunk_proto name = "thunk" <thunk_proto = {host_execute_done_thunk = {async_events_unique_id = 4 : ui64}}, asm_text = "", binary = "", written = []> {thunky.thunk_kind = "host_execute_done_thunk"}
  thunky.memzero %0 : <1024>
  return
}

// -----

// A host_send reads its buffer until its done: writing it in between races.
func.func @host_send(%a: !thunky.buffer<64>) {
  // expected-error @+1 {{races with thunk 1, 'thunky.memset32'}}
  thunky.call_thunk_proto %a : !thunky.buffer<64> name = "thunk" <thunk_proto = {host_send_thunk = {async_events_unique_id = 5 : ui64, buffer = {size = 64 : i64}, channel_id = 1 : i64}}, asm_text = "", binary = "", written = [false]> {thunky.thunk_kind = "host_send_thunk"}
  thunky.memset32 %a, 1 : <64>
  thunky.call_thunk_proto name = "thunk" <thunk_proto = {host_send_done_thunk = {async_events_unique_id = 5 : ui64, channel_id = 1 : i64}}, asm_text = "", binary = "", written = []> {thunky.thunk_kind = "host_send_done_thunk"}
  return
}

// -----

// A host_recv writes its buffer until its done: reading it in between
// races; a done of another id ends nothing.
func.func @host_recv(%a: !thunky.buffer<64>, %b: !thunky.buffer<64>) {
  // expected-error @+1 {{races with thunk 2, 'thunky.copy'}}
  thunky.call_thunk_proto %a : !thunky.buffer<64> name = "thunk" <thunk_proto = {host_recv_thunk = {async_events_unique_id = 6 : ui64, buffer = {size = 64 : i64}, channel_id = 2 : i64}}, asm_text = "", binary = "", written = [true]> {thunky.thunk_kind = "host_recv_thunk"}
  thunky.call_thunk_proto name = "thunk" <thunk_proto = {host_recv_done_thunk = {async_events_unique_id = 7 : ui64, channel_id = 2 : i64}}, asm_text = "", binary = "", written = []> {thunky.thunk_kind = "host_recv_done_thunk"}
  thunky.copy %a, %b : <64>, <64>
  thunky.call_thunk_proto name = "thunk" <thunk_proto = {host_recv_done_thunk = {async_events_unique_id = 6 : ui64, channel_id = 2 : i64}}, asm_text = "", binary = "", written = []> {thunky.thunk_kind = "host_recv_done_thunk"}
  return
}
