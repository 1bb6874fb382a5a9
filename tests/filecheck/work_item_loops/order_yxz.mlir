// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// Order yxz (y innermost, then x, z outermost) = array<i64: 2, 0, 1>, 2-D kernel.

func.func @k(%a: memref<?x?xf32>) attributes {mux.kernel = "entry_point", mux.work_item_order = array<i64: 2, 0, 1>} {
  %i = mux.get_global_id 0 : index
  %j = mux.get_global_id 1 : index
  %v = memref.load %a[%j, %i] : memref<?x?xf32>
  memref.store %v, %a[%i, %j] : memref<?x?xf32>
  func.return
}

// CHECK:         scf.for %z = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:      mux.set_local_id 2, %z : index
// CHECK-NEXT:      scf.for %x = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        mux.set_local_id 0, %x : index
// CHECK-NEXT:        scf.for %y = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          mux.set_local_id 1, %y : index
// CHECK-NEXT:          %i = mux.get_global_id 0 : index
// CHECK-NEXT:          %j = mux.get_global_id 1 : index
// CHECK:             } {mux.work_item_loop}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
