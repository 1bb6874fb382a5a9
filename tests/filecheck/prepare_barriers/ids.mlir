// RUN: xmux-opt %s -p prepare-barriers | filecheck %s
// RUN: xmux-opt %s -p prepare-barriers,prepare-barriers | filecheck %s

// Barriers and work-group collectives get ids 1, 2, ... in program order, nested ones too;
// running the pass twice gives the same ids. Functions that are not kernels keep theirs.

func.func @k(%a: memref<?xi32>, %n: index) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  mux.work_group_barrier id 7, work_group, <acq_rel, work_group_memory>
  scf.for %i = %c0 to %n step %c1 {
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %v = memref.load %a[%i] : memref<?xi32>
    %r = mux.work_group_reduce add %v : i32
    memref.store %r, %a[%i] : memref<?xi32>
  }
  mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  func.return
}

func.func @not_a_kernel() {
  mux.work_group_barrier id 5, work_group, <acq_rel, work_group_memory>
  func.return
}

// CHECK-LABEL: func.func @k
// CHECK:         mux.work_group_barrier id 1, work_group, <acq_rel, work_group_memory>
// CHECK:         scf.for
// CHECK-NEXT:      mux.work_group_barrier id 2, work_group, <acq_rel, work_group_memory>
// CHECK:           mux.work_group_reduce id 3, add %{{.*}} : i32
// CHECK:         mux.sub_group_barrier id 4, sub_group, <acq_rel, sub_group_memory>
// CHECK-NEXT:    mux.work_group_barrier id 5, work_group, <acq_rel, work_group_memory>
// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NEXT:    mux.work_group_barrier id 5, work_group, <acq_rel, work_group_memory>
