// thunky's tools refuse text nested past --thunky-max-nesting (thunky-run:
// --max-nesting) before MLIR's parser recurses into it; brackets in strings
// and comments do not count. This module nests 4 deep on line 24.
// RUN: not thunky-opt --thunky-max-nesting=3 %s 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not thunky-translate --export-thunky --thunky-max-nesting=3 %s 2>&1 | FileCheck %s --check-prefix=EXPORT
// RUN: not thunky-run --max-nesting 3 %s 2>&1 | FileCheck %s --check-prefix=RUNS
// RUN: thunky-opt --thunky-max-nesting=4 %s | FileCheck %s --check-prefix=FITS
// RUN: not thunky-opt --thunky-max-nesting=0 %s 2>&1 | FileCheck %s --check-prefix=ZERO
// 20,000 nested regions crashed MLIR's parser; the default (1000) stops them.
// RUN: %python -c "print('func.func @main() {' + 'thunky.sequential {' * 20000 + '}' * 20000 + ' return }')" > %t.deep.mlir
// RUN: not thunky-opt %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not thunky-translate --export-thunky %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not thunky-run %t.deep.mlir 2>&1 | FileCheck %s --check-prefix=DEEP

// OPT: {{^}}{{.*}}max-nesting.mlir:24:45: error: nested more than 3 deep (the max-nesting limit; --thunky-max-nesting raises it){{$}}
// EXPORT: max-nesting.mlir:24:45: error: nested more than 3 deep (the max-nesting limit; --thunky-max-nesting raises it)
// RUNS: thunky-run: {{.*}}max-nesting.mlir:24:45: error: nested more than 3 deep (the max-nesting limit; --max-nesting raises it)
// FITS: thunky.memzero
// ZERO: max-nesting: '0' is not a positive count
// DEEP: deep.mlir:1:19019: error: nested more than 1000 deep (the max-nesting limit; --{{(thunky-)?}}max-nesting raises it)
// Not nesting: {{{{{{{{{{{{{{{{{{{{{{{{{{{{[[[[[[[[[[[[((((((((<<<<<<<<
func.func @main(%a: !thunky.buffer<4>) attributes {note = "{{{{[[[[ \" (((<<<<"} {
  thunky.sequential {
    thunky.sequential { thunky.memzero %a : <4> }
  }
  return
}
