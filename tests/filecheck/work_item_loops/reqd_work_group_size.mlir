// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// With a required work-group size the bounds are constants, and a dimension of size 1
// gets no loop: its id is set to 0 once.

func.func @k2d(%a: memref<?x?xi32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 4, 1>} {
  %i = mux.get_global_id 0 : index
  %j = mux.get_global_id 1 : index
  %c = arith.constant 7 : i32
  memref.store %c, %a[%j, %i] : memref<?x?xi32>
  func.return
}

// CHECK-LABEL: func.func @k2d
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    mux.set_local_id 2, %[[C0]] : index
// CHECK-NEXT:    scf.for %y = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT:      mux.set_local_id 1, %y : index
// CHECK-NEXT:      scf.for %x = %[[C0]] to %[[C16]] step %[[C1]] {
// CHECK-NEXT:        mux.set_local_id 0, %x : index
// CHECK-NEXT:        %i = mux.get_global_id 0 : index
// CHECK-NEXT:        %j = mux.get_global_id 1 : index
// CHECK-NEXT:        %c = arith.constant 7 : i32
// CHECK-NEXT:        memref.store %c, %a[%j, %i] : memref<?x?xi32>
// CHECK-NEXT:      } {mux.work_item_loop}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// A 1x1x1 group: no loop at all.
func.func @single(%a: memref<1xi32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 1, 1, 1>} {
  %c = arith.constant 7 : i32
  %z = arith.constant 0 : index
  memref.store %c, %a[%z] : memref<1xi32>
  func.return
}

// CHECK-LABEL: func.func @single
// CHECK-NEXT:    %[[Z0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:    mux.set_local_id 0, %[[Z0]] : index
// CHECK-NEXT:    mux.set_local_id 1, %[[Z0]] : index
// CHECK-NEXT:    mux.set_local_id 2, %[[Z0]] : index
// CHECK-NEXT:    %c = arith.constant 7 : i32
// CHECK-NEXT:    %z = arith.constant 0 : index
// CHECK-NEXT:    memref.store %c, %a[%z] : memref<1xi32>
// CHECK-NEXT:    func.return
