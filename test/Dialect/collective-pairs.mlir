// all_reduce, all_gather and reduce_scatter take several source/destination
// pairs, as XLA's combined thunks do: `(sources), (destinations)`, with one
// element type for all or a list of one per pair. The text reads back to
// itself, through generic form and bytecode too; one pair keeps upstream's
// `%src, %dst : <N>, <M>`.
// RUN: thunky-opt %s > %t.1.mlir
// RUN: thunky-opt %t.1.mlir | diff %t.1.mlir -
// RUN: FileCheck %s < %t.1.mlir
// RUN: thunky-opt %s --mlir-print-op-generic | thunky-opt | FileCheck %s
// RUN: thunky-opt %s -emit-bytecode | thunky-opt | FileCheck %s

// CHECK-LABEL: func.func @pairs
func.func @pairs(%a: !thunky.buffer<8>, %b: !thunky.buffer<8>, %c: !thunky.buffer<16>, %d: !thunky.buffer<16>) {
  // CHECK-NEXT: thunky.all_gather (%{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}) <element_type = [ui32, f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<8>), (!thunky.buffer<16>, !thunky.buffer<16>)
  thunky.all_gather (%a, %b), (%c, %d) <element_type = [ui32, f32], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<8>), (!thunky.buffer<16>, !thunky.buffer<16>)
  // CHECK-NEXT: thunky.all_reduce (%{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}) <reduction_kind = "max", element_type = [f32, i16], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<16>), (!thunky.buffer<8>, !thunky.buffer<16>)
  thunky.all_reduce (%a, %c), (%b, %d) <reduction_kind = "max", element_type = [f32, i16], replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>, !thunky.buffer<16>), (!thunky.buffer<8>, !thunky.buffer<16>)
  // CHECK-NEXT: thunky.reduce_scatter (%{{.*}}, %{{.*}}), (%{{.*}}, %{{.*}}) <reduction_kind = "sum", element_type = f32, replica_groups = {{\[}}[0, 1]], group_mode = "cross_replica"> : (!thunky.buffer<16>, !thunky.buffer<16>), (!thunky.buffer<8>, !thunky.buffer<8>)
  thunky.reduce_scatter (%c, %d), (%a, %b) <reduction_kind = "sum", element_type = f32, replica_groups = [[0, 1]], group_mode = "cross_replica"> : (!thunky.buffer<16>, !thunky.buffer<16>), (!thunky.buffer<8>, !thunky.buffer<8>)
  // One pair, in either spelling, prints as upstream does.
  // CHECK-NEXT: thunky.all_gather %{{.*}}, %{{.*}} <element_type = f32, replica_groups = [], group_mode = "cross_replica"> : <8>, <16>
  thunky.all_gather (%a), (%c) <element_type = f32, replica_groups = [], group_mode = "cross_replica"> : (!thunky.buffer<8>), (!thunky.buffer<16>)
  // CHECK-NEXT: return
  return
}
