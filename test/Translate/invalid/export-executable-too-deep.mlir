// A thunky.executable string nesting 5000 sequential_thunks is refused by the depth limit, not a stack overflow in protobuf-c.
// RUN: %python %S/Inputs/wire.py mlir-executable-nest 5000 > %t.mlir
// RUN: not thunky-translate --export-thunky %t.mlir -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: error: {{.*}}nested deeper than 100 levels
