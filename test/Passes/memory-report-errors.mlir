// A plot that cannot be written fails the pass with an error naming the
// path and why; so does a module with no @main to report on.
// RUN: thunky-opt -p 'builtin.module(thunky-memory-report{svg=%t.no-such-dir/plot.svg})' --split-input-file --verify-diagnostics %s -o /dev/null 2>/dev/null
// A report that cannot be written (output=) fails the same way.
// RUN: not thunky-opt -p 'builtin.module(thunky-memory-report{output=%t.no-such-dir/report.txt})' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: error: thunky-memory-report: cannot write the report to {{.*}}.no-such-dir/report.txt: No such file or directory

// expected-error-re@+1 {{thunky-memory-report: cannot write the plot to {{.*}}.no-such-dir/plot.svg: No such file or directory}}
func.func @main(%a: !thunky.buffer<4>) {
  thunky.memzero %a : <4>
  return
}

// -----

// expected-error@+1 {{thunky-memory-report: no func.func @main to report on}}
module {
  func.func @other(%a: !thunky.buffer<4>) {
    return
  }
}
