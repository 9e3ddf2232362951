// 60 nested thunky.sequential ops would export to messages nested deeper than XLA's (and import's) limit of 100; export must refuse rather than write an executable nobody can read back.
// RUN: %python %S/Inputs/wire.py mlir-sequential-nest 60 > %t.mlir
// RUN: not thunky-translate --export-thunky %t.mlir -o %t.pb 2>&1 | FileCheck %s --implicit-check-not=Sanitizer
// CHECK: error: {{.*}}nested deeper than 100 levels
