// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// Upstream's acc constructs take their clauses in any order (an oilist); xmux prints them in
// one order, which reads back.

func.func @f(%x: memref<16xf32>, %n: index, %ng: i32, %nw: i32, %vl: i32, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = acc.copyin varPtr(%x : memref<16xf32>) -> memref<16xf32>
  acc.parallel vector_length(%vl : i32) if(%c) num_workers(%nw : i32) dataOperands(%d : memref<16xf32>) num_gangs({%ng : i32}) {
    acc.loop vector worker gang control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  acc.serial if(%c) dataOperands(%d : memref<16xf32>) {
    acc.yield
  }
  acc.kernels num_workers(%nw : i32) dataOperands(%d : memref<16xf32>) {
    acc.terminator
  }
  acc.data if(%c) dataOperands(%d : memref<16xf32>) {
    acc.terminator
  }
  return
}

// CHECK:      acc.parallel dataOperands(%{{.*}} : memref<16xf32>) num_gangs({%ng : i32}) num_workers(%nw : i32) vector_length(%vl : i32) if(%c) {
// CHECK-NEXT:   acc.loop gang worker vector control(%{{.*}} : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
// CHECK:      acc.serial dataOperands(%{{.*}} : memref<16xf32>) if(%c) {
// CHECK:      acc.kernels dataOperands(%{{.*}} : memref<16xf32>) num_workers(%nw : i32) {
// CHECK:      acc.data if(%c) dataOperands(%{{.*}} : memref<16xf32>) {
