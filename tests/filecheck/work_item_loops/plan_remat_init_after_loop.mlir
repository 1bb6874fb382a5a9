// RUN: xmux-opt %s -p 'work-item-loops{dump-plan=true}' 2>&1 | filecheck %s

// Fuzz class 4: the initial value of the second barrier loop (%lidi) is re-computed, not
// materialised in any segment, so its copy into the loop's array stays at the loop's entry:
// a nest right before the loop stores it (the old early store, planned at the end of the
// first segment, was never emitted and the loop read another loop's leftovers).

func.func @zt2(%out: memref<?xi32>, %k0: index, %k1: index) attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_linear_id : index
  %lid = mux.get_local_linear_id : index
  %lidi = arith.index_cast %lid : index to i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m1 = arith.constant -1 : i32
  scf.for %j = %c0 to %k0 step %c1 {
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  }
  %r = scf.for %i = %c0 to %k1 step %c1 iter_args(%a = %lidi) -> (i32) {
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %x = arith.xori %a, %m1 : i32
    scf.yield %x : i32
  }
  memref.store %r, %out[%gid] : memref<?xi32>
  func.return
}

// CHECK:      work-item-loops plan @zt2:
// CHECK:        array #0 i32: %a, %r
// CHECK:        re-computed %lidi (2 ops)
// CHECK:        copy scf.for entry: %lidi -> %a (#0) edge
// CHECK:        scf.for %j = %c0 to %k0 step %c1 {
// CHECK-NEXT:     mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:   }
// CHECK:              %lidi = arith.index_cast %lid : index to i32
// CHECK-NEXT:         memref.store %lidi, %[[A:.*]][%lin] : memref<?xi32>
// CHECK-NEXT:       } {mux.work_item_loop}
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.for %i = %c0 to %k1 step %c1 {
