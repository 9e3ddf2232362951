// A call_thunk_proto whose thunk_proto nests 200 sequential_thunks (400 message levels) is refused by the depth limit at the op.
// RUN: %python %S/Inputs/wire.py mlir-call-thunk-proto-nest 200 > %t.mlir
// RUN: not thunky-translate --export-thunky %t.mlir -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: :2:3: error: 'thunky.call_thunk_proto' op thunk_proto is not a ThunkProto: at byte {{[0-9]+}} in sequential_thunk.thunks.{{.*}}: messages nested deeper than 100 levels
