// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s

// mode-transitions.c t14: inside a worker loop, an scf.if whose condition differs between
// workers holds vector loops. Their forks/joins are work-group barriers on the CPU, so the
// scf.if is if-converted: every work-item runs both branches, each vector loop's trip count
// selected to 0 where its branch is not taken.

func.func @h(%arr: memref<256xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %nw = arith.constant 8 : i32
  %vl = arith.constant 32 : i32
  %one = arith.constant 1 : i32
  acc.parallel num_workers(%nw : i32) vector_length(%vl : i32) {
    acc.loop worker control(%k : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
      %r = arith.remui %k, %c2 : index
      %even = arith.cmpi eq, %r, %c0 : index
      scf.if %even {
        acc.loop vector control(%m : index) = (%c0 : index) to (%c32 : index) step (%c1 : index) {
          memref.store %one, %arr[%m] : memref<256xi32>
          acc.yield
        } attributes {independent = [#acc.device_type<none>]}
      } else {
        acc.loop vector control(%n : index) = (%c0 : index) to (%c32 : index) step (%c1 : index) {
          memref.store %one, %arr[%n] : memref<256xi32>
          acc.yield
        } attributes {independent = [#acc.device_type<none>]}
      }
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  return
}

// CHECK-LABEL: func.func @h_acc_parallel_0(
// CHECK:         oacc.fork worker
// CHECK:         scf.for
// CHECK:           %even = arith.cmpi eq, %r, %{{.*}} : index
// CHECK-NEXT:      %[[T:.*]] = arith.constant true
// CHECK-NEXT:      %[[ODD:.*]] = arith.xori %even, %[[T]] : i1
// CHECK-NOT:       scf.if %even
// CHECK:           oacc.fork vector
// CHECK:           %[[N1:.*]] = arith.select %even, %{{.*}}, %{{.*}} : index
// CHECK:           oacc.join vector
// CHECK:           oacc.fork vector
// CHECK:           %[[N2:.*]] = arith.select %[[ODD]], %{{.*}}, %{{.*}} : index
// CHECK:           oacc.join vector
// CHECK:         oacc.join worker
