// thunky-translate is a drop-in mlir-translate: stock translations are there
// and it honours --split-input-file and --verify-diagnostics.
// RUN: thunky-translate --help | FileCheck %s --check-prefix=HELP
// HELP: --mlir-to-llvmir
// RUN: thunky-translate --mlir-to-llvmir --split-input-file --verify-diagnostics %s | FileCheck %s

// CHECK: define void @ok()
llvm.func @ok() {
  llvm.return
}

// -----

// expected-error @+1 {{custom op 'llvm.nonexistent' is unknown}}
llvm.nonexistent
