// --timeout bounds a run on the host and a symbolic run as a whole: a loop
// of a billion iterations stops after a second, at the thunk it reached,
// instead of running for minutes (and --max-iterations is no help: a long
// loop can be meant).
// RUN: %thunky_src/test/Tools/Inputs/error-line.sh 2 thunky-run --kernels=fingerprint --timeout 1 --max-iterations 4000000000 %s | FileCheck %s
// CHECK: thunky-run: rank 0: thunk 3: the run took more than 1 second(s) (timeout)
// On 2 ranks the first rank to stop says so, and the other does not wait
// at a collective for it.
// RUN: %thunky_src/test/Tools/Inputs/error-line.sh 2 thunky-run --kernels=fingerprint --ranks 2 --timeout 1 --max-iterations 4000000000 %s | FileCheck %s --check-prefix=RANKS
// RANKS: thunky-run: rank {{[01]}}: thunk 3: the run took more than 1 second(s) (timeout)
// --max-iterations bounds the iterations instead of the time: this loop's
// known trip count is past it, so it is refused before it runs.
// RUN: %thunky_src/test/Tools/Inputs/error-line.sh 2 thunky-run --kernels=fingerprint --max-iterations 5 %s | FileCheck %s --check-prefix=ITER
// ITER: thunky-run: rank 0: thunk 1: the loop runs 1000000000 iterations, past --max-iterations (5)
module {
  func.func @main(%out: !thunky.buffer<4096> {thunky.role = "output {}", thunky.shape = tensor<1024xf32>},
                  %p: !thunky.buffer<1> {thunky.role = "scratch"}) {
    thunky.memzero %out : <4096>
    thunky.while %p : <1> cond {
      thunky.memzero %p : <1>
    } body {
      thunky.memset32 %out, 1 : <4096>
    } {thunky.thunk = {while_thunk = {trip_count = 1000000000}}}
    thunky.all_reduce (%out), (%out) <reduction_kind = "sum", element_type = [f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<4096>), (!thunky.buffer<4096>)
    return
  }
}
