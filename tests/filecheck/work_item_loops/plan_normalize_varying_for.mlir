// RUN: xmux-opt %s -p 'work-item-loops{dump-plan=true}' 2>&1 | filecheck %s

// A barrier loop whose bounds vary per work-item (lower bound = local id) but whose trip
// count is the same for all, as OpenCL requires of a barrier in it: only the trip count is
// uniform, so the loop is normalised to `for k in [0, trips)` with the work-item's own
// induction variable lb + k * step inside; trips is read from work-item 0, the induction
// variable is not.

func.func @k(%a: memref<?xi32>, %t: memref<8xi32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xi32>
  %ub = arith.addi %l, %n : index
  %r = scf.for %k = %l to %ub step %c1 iter_args(%acc = %v) -> (i32) {
    %kc = arith.index_cast %k : index to i32
    %s = arith.addi %acc, %kc : i32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.yield %s : i32
  }
  memref.store %r, %a[%i] : memref<?xi32>
  func.return
}

// CHECK:      work-item-loops plan @k:
// CHECK:        uniform by the barrier rule: %trips
// CHECK:        %[[TRIPS:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xindex>
// CHECK-NEXT:   scf.for %k = %{{.*}} to %[[TRIPS]] step %{{.*}} {
// CHECK-NEXT:     %[[KS:.*]] = arith.muli %k, %{{.*}} : index
// CHECK:            %[[L:.*]] = mux.get_local_id 0 : index
// CHECK-NEXT:       %{{.*}} = arith.addi %[[L]], %[[KS]] : index
