// RUN: xmux-opt %s -p 'work-item-loops{dump-plan=true}' 2>&1 | filecheck %s

// A loop body yields, as is, the result of an scf.if that holds a barrier: no segment of
// the body materialises that value (it lives in the scf.if's result array), so it cannot
// be coalesced; a copy loop after the scf.if moves it into the loop's array.

func.func @k(%a: memref<?xi32>, %t: memref<8xi32, 3>, %n: index, %flag: i1)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xi32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v) -> (i32) {
    %y = scf.if %flag -> (i32) {
      memref.store %acc, %t[%l] : memref<8xi32, 3>
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      %w = memref.load %t[%k] : memref<8xi32, 3>
      scf.yield %w : i32
    } else {
      scf.yield %acc : i32
    }
    scf.yield %y : i32
  }
  memref.store %r, %a[%i] : memref<?xi32>
  func.return
}

// CHECK:      work-item-loops plan @k:
// CHECK:        array #0 i32: %acc, %r
// CHECK-NEXT:   array #1 i32: %y
// CHECK:        copy scf.for body end: %y -> %acc (#0) edge
// CHECK:        copy scf.if then end: %w -> %y (#1) edge
// CHECK-NEXT:   copy scf.if else end: %acc -> %y (#1) edge

// CHECK:        %[[ACC:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xi32>
// CHECK-NEXT:   %[[Y:.*]] = memref.alloca(%{{.*}}) {mux.per_work_item, alignment = 64 : i64} : memref<?xi32>
// CHECK:        scf.for %k = %c0 to %n step %c1 {
// CHECK:          scf.if %flag {
// CHECK:          } else {
// CHECK:            } {mux.work_item_loop}
// CHECK-NEXT:     }
// CHECK-NEXT:     scf.for %[[X:.*]] = {{.*}} {
// CHECK-NEXT:       mux.set_local_id 0, %[[X]] : index
// CHECK-NEXT:       %[[YV:.*]] = memref.load %[[Y]][%[[X]]] : memref<?xi32>
// CHECK-NEXT:       memref.store %[[YV]], %[[ACC]][%[[X]]] : memref<?xi32>
// CHECK-NEXT:     } {mux.work_item_loop}
// CHECK-NEXT:   }
