// thunky-stats counts a collective that import kept as a call_thunk_proto:
// the kind import records (thunky.thunk_kind) names it, with no proto read.
// Another kind, or none (hand-written), is no collective.
// RUN: thunky-opt --thunky-stats %s -o /dev/null 2>&1 | FileCheck %s

// CHECK: thunks: 3
// CHECK: collectives: 1 (0 bytes sent)

func.func @main(%a: !thunky.buffer<16>) {
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "thunk" <thunk_proto = "\0A\00", asm_text = "", binary = "", written = [true]> {thunky.thunk_kind = "all_gather_thunk"}
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "thunk" <thunk_proto = "\0A\00", asm_text = "", binary = "", written = [true]> {thunky.thunk_kind = "host_send_thunk"}
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "thunk" <thunk_proto = "\0A\00", asm_text = "", binary = "", written = [true]>
  return
}
