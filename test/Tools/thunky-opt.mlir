// thunky-opt has thunky's passes as bare flags (stock mlir-opt cannot take a
// plugin's pass as a flag) next to every upstream pass and dialect.
// RUN: thunky-opt --help | FileCheck %s --check-prefix=HELP
// HELP-DAG: --thunky-flatten-sequential
// HELP-DAG: --canonicalize
// RUN: thunky-opt --thunky-flatten-sequential --canonicalize %s | FileCheck %s
// --version names thunky's version next to LLVM's (thunky-c/Version.h).
// RUN: thunky-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: thunky-translate --version | FileCheck %s --check-prefix=VERSION
// VERSION-DAG: LLVM version 22
// VERSION-DAG: thunky version {{[0-9]+\.[0-9]+\.[0-9]+$}}

// CHECK-LABEL: func.func @main
// CHECK-NEXT: arith.constant
// CHECK-NEXT: thunky.memzero
func.func @main(%a: !thunky.buffer<4>) -> i32 {
  thunky.sequential {
    thunky.memzero %a : <4>
  }
  %c = arith.constant 1 : i32
  return %c : i32
}
