// Stock mlir-opt-22 loads libThunkyPlugin.so as a dialect plugin and a pass
// plugin; the module using every op parses and prints through it exactly as
// through thunky-opt (same CHECK lines), and the printed text is stable.
// RUN: %mlir_opt_plugins %S/../Dialect/ops.mlir > %t.1.mlir 2> %t.err
// RUN: FileCheck %S/../Dialect/ops.mlir < %t.1.mlir
// RUN: %mlir_opt_plugins %t.1.mlir > %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// A failed plugin load is only a warning in mlir-opt: make sure there is none.
// RUN: FileCheck %s --check-prefix=NOWARN --allow-empty < %t.err
// NOWARN-NOT: Failed to load
