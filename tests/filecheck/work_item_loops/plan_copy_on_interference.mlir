// RUN: xmux-opt %s -p 'work-item-loops{dump-plan=true}' 2>&1 | filecheck %s

// The next value is computed before a barrier, but the current one (%acc, same array) is
// still read after it: storing the next value where it is computed would clobber %acc.
// The copy stays at the edge (a parallel copy after the last read), and %next is stored
// in an array of its own to get there.

func.func @k(%a: memref<?xi32>, %t: memref<8xi32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xi32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v) -> (i32) {
    %next = arith.muli %acc, %acc : i32
    memref.store %next, %t[%l] : memref<8xi32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %w = memref.load %t[%k] : memref<8xi32, 3>
    %u = arith.addi %acc, %w : i32
    memref.store %u, %t[%l] : memref<8xi32, 3>
    scf.yield %next : i32
  }
  memref.store %r, %a[%i] : memref<?xi32>
  func.return
}

// CHECK:      work-item-loops plan @k:
// CHECK:        array #0 i32: %acc, %r
// CHECK-NEXT:   array #1 i32: %next
// CHECK-NEXT:   stored %next -> #1
// CHECK:        copy scf.for body end: %next -> %acc (#0) edge

// CHECK:        scf.for %k = %c0 to %n step %c1 {
// CHECK:          mux.mem_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:     scf.for
// CHECK:            %[[U:.*]] = arith.addi
// CHECK:            %[[NX:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK-NEXT:       memref.store %[[NX]], %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK-NEXT:     } {mux.work_item_loop}
// CHECK-NEXT:   }
