// A call_thunk_proto whose thunk_proto bytes are not a ThunkProto is refused at the op, naming the byte and the wire error.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: 'thunky.call_thunk_proto' op thunk_proto is not a ThunkProto: at byte 0: truncated field key
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "k" <thunk_proto = "\FF\FF\FF", asm_text = "", binary = "">
  return
}
