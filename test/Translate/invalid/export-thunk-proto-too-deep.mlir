// A call_thunk_proto whose thunk_proto nests 200 sequential_thunks (400 message levels) is refused by the depth limit at the op.
// RUN: %python %S/Inputs/wire.py mlir-call-thunk-proto-nest 200 > %t.mlir
// RUN: not thunky-translate --export-thunky %t.mlir -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// The op's line is kilobytes long, so the error points at column 0 and shows the line cut around column 3.
// CHECK: :2:0: error: 'thunky.call_thunk_proto' op thunk_proto is not a ThunkProto: at byte {{[0-9]+}} in sequential_thunk.thunks.{{.*}}: messages nested deeper than 100 levels
// CHECK-NEXT: at column 3 of line 2 ({{[0-9]+}} bytes, cut to 240):
