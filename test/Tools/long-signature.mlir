// thunky-opt, like thunky-translate's import, prints a func.func signature
// longer than 1 KB one argument per line, aligned under the first; what is
// shorter prints as stock mlir-opt prints it. Only whitespace changes: the
// output reads back to the same text, and bytecode is left alone.
// RUN: thunky-opt %s | FileCheck %s --strict-whitespace
// RUN: thunky-opt %s | thunky-opt | FileCheck %s --strict-whitespace
// RUN: thunky-opt %s --emit-bytecode | thunky-opt | FileCheck %s --strict-whitespace
// RUN: thunky-opt %s | awk 'length($0) > 1024' | count 0
// Stock mlir-opt with the plugin has no such layout.
// RUN: %mlir_opt_plugins %s | awk 'length($0) > 1024' | count 1
// The generic form is left as MLIR prints it.
// RUN: thunky-opt --mlir-print-op-generic %s | awk 'length($0) > 1024' | count 1

// Commas, brackets and arrows inside strings and types do not break a line.
// CHECK-LABEL: {{^}}  func.func @"long(sig, nature)"(%arg0: !thunky.buffer<1024> {x.note = "commas, (parens) -> arrows, \22quotes, too\22, [brackets, {braces}] and more padding 0"},
// CHECK-NEXT:  {{^}}                                 %arg1: !thunky.buffer<1024> {x.note = "commas, (parens) -> arrows, \22quotes, too\22, [brackets, {braces}] and more padding 1"},
// CHECK:       {{^}}                                 %arg8: memref<4x4xf32, strided<[4, 1], offset: ?>>,
// CHECK-NEXT:  {{^}}                                 %arg9: (i32, i64) -> (f32, f64)) {
// CHECK-NEXT:  {{^}}    return
func.func @"long(sig, nature)"(%a0: !thunky.buffer<1024> {x.note = "commas, (parens) -> arrows, \"quotes, too\", [brackets, {braces}] and more padding 0"}, %a1: !thunky.buffer<1024> {x.note = "commas, (parens) -> arrows, \"quotes, too\", [brackets, {braces}] and more padding 1"}, %a2: !thunky.buffer<1024> {x.note = "commas, (parens) -> arrows, \"quotes, too\", [brackets, {braces}] and more padding 2"}, %a3: !thunky.buffer<1024> {x.note = "commas, (parens) -> arrows, \"quotes, too\", [brackets, {braces}] and more padding 3"}, %a4: !thunky.buffer<1024> {x.note = "commas, (parens) -> arrows, \"quotes, too\", [brackets, {braces}] and more padding 4"}, %a5: !thunky.buffer<1024> {x.note = "commas, (parens) -> arrows, \"quotes, too\", [brackets, {braces}] and more padding 5"}, %a6: !thunky.buffer<1024> {x.note = "commas, (parens) -> arrows, \"quotes, too\", [brackets, {braces}] and more padding 6"}, %a7: !thunky.buffer<1024> {x.note = "commas, (parens) -> arrows, \"quotes, too\", [brackets, {braces}] and more padding 7"}, %m: memref<4x4xf32, strided<[4, 1], offset: ?>>, %f: (i32, i64) -> (f32, f64)) {
  return
}

// CHECK-LABEL: {{^}}  func.func @short(%arg0: !thunky.buffer<16>, %arg1: !thunky.buffer<16>, %arg2: !thunky.buffer<16>) {
func.func @short(%a: !thunky.buffer<16>, %b: !thunky.buffer<16>, %c: !thunky.buffer<16>) {
  return
}
