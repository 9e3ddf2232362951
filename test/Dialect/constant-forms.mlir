// thunky.constant's value is a string (upstream's form, printed as before)
// or a byte resource, and the op may carry the constant's XLA symbol name;
// all of them parse, print and parse again, through the custom syntax, the
// generic syntax and bytecode.
// RUN: thunky-opt %s > %t.1.mlir
// RUN: thunky-opt %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir
// RUN: thunky-opt %s --mlir-print-op-generic | thunky-opt | FileCheck %s
// RUN: thunky-opt %s -emit-bytecode | thunky-opt | FileCheck %s

// CHECK-LABEL: func.func @forms
func.func @forms() -> (!thunky.buffer<4>, !thunky.buffer<4>, !thunky.buffer<3>) {
  // CHECK-NEXT: thunky.constant <value = "abcd"> : <4>
  %upstream = thunky.constant <value = "abcd"> : <4>
  // CHECK-NEXT: thunky.constant <value = "abcd", name = "buffer_for_constant_0"> : <4>
  %named = thunky.constant <value = "abcd", name = "buffer_for_constant_0"> : <4>
  // CHECK-NEXT: thunky.constant <value = dense_resource<blob> : tensor<3xi8>, name = "c"> : <3>
  %resource = thunky.constant <value = dense_resource<blob> : tensor<3xi8>, name = "c"> : <3>
  return %upstream, %named, %resource : !thunky.buffer<4>, !thunky.buffer<4>, !thunky.buffer<3>
}

// CHECK: blob: "0x01000000616263"
{-#
  dialect_resources: {
    builtin: {
      blob: "0x01000000616263"
    }
  }
#-}
