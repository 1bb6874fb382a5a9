// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// Loops with no level (auto, implicitly independent in acc.parallel) get GCC's levels
// (oacc_loop_auto_partitions): a two-deep auto nest is gang / vector; an auto loop inside
// an explicit gang loop is worker vector.

func.func @h(%a: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1 : i32
  acc.parallel {
    acc.loop control(%i : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
      acc.loop control(%j : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
        memref.store %one, %a[%j] : memref<64xi32>
        acc.yield
      } attributes {auto_ = [#acc.device_type<none>]}
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.loop gang control(%k : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
      acc.loop control(%l : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
        memref.store %one, %a[%l] : memref<64xi32>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(
// CHECK:         oacc.fork gang
// CHECK:         scf.for
// CHECK:           oacc.fork vector
// CHECK-NOT:       oacc.fork worker
// CHECK:           oacc.join vector
// CHECK:         oacc.join gang
// CHECK-NEXT:    oacc.fork gang
// CHECK:         scf.for
// CHECK:           oacc.fork worker
// CHECK-NEXT:      oacc.fork vector
// CHECK:           oacc.join vector
// CHECK-NEXT:      oacc.join worker
// CHECK:         oacc.join gang
