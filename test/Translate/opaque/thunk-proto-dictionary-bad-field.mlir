// A dictionary thunk_proto naming a field ThunkProto does not have is
// refused at export, naming the field.
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: thunk_proto.no_such_thunk: no such field
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "thunk" <thunk_proto = {no_such_thunk = {}}, asm_text = "", binary = "">
  return
}
