// A thunky.thunk given as a serialized string that nests 5000 sequential_thunks is refused by the depth limit at the op, not a stack overflow.
// RUN: %python %S/Inputs/wire.py mlir-thunk-attr-nest 5000 > %t.mlir
// RUN: not thunky-translate --export-thunky %t.mlir -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :2:3: error: {{.*}}nested deeper than 100 levels
