// A thunk_proto whose slice names buffer 3 when the op has one operand is refused at the op, naming both numbers.
// thunk_proto: kernel_thunk { args { buffer_allocation_index: 3 size: 16 } }
// RUN: not thunky-translate --export-thunky %s -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
func.func @main(%a: !thunky.buffer<16>) {
  // CHECK: :[[@LINE+1]]:3: error: 'thunky.call_thunk_proto' op thunk_proto refers to buffer 3 but the op has 1
  thunky.call_thunk_proto %a : !thunky.buffer<16> name = "k" <thunk_proto = "\42\06\0A\04\18\03\10\10", asm_text = "", binary = "">
  return
}
