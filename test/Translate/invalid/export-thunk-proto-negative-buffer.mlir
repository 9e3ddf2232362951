// A thunk_proto whose slice names buffer -1 is refused at the op.
// thunk_proto: kernel_thunk { args { buffer_allocation_index: -1 size: 16 } }
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: 'thunky.call_thunk_proto' op thunk_proto refers to buffer -1 but the op has 1
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "k" <thunk_proto = "\42\0F\0A\0D\18\FF\FF\FF\FF\FF\FF\FF\FF\FF\01\10\10", asm_text = "", binary = "">
  return
}
