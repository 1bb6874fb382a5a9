// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// Order zyx (z innermost) = array<i64: 0, 1, 2>: x outermost.

func.func @k(%a: memref<?x?x?xf32>) attributes {mux.kernel = "entry_point", mux.work_item_order = array<i64: 0, 1, 2>} {
  %i = mux.get_global_id 0 : index
  %j = mux.get_global_id 1 : index
  %l = mux.get_global_id 2 : index
  %v = memref.load %a[%i, %j, %l] : memref<?x?x?xf32>
  memref.store %v, %a[%l, %j, %i] : memref<?x?x?xf32>
  func.return
}

// CHECK:         %[[LS0:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT:    %[[LS1:.*]] = mux.get_local_size 1 : index
// CHECK-NEXT:    %[[LS2:.*]] = mux.get_local_size 2 : index
// CHECK-NEXT:    scf.for %x = %{{.*}} to %[[LS0]] step %{{.*}} {
// CHECK-NEXT:      mux.set_local_id 0, %x : index
// CHECK-NEXT:      scf.for %y = %{{.*}} to %[[LS1]] step %{{.*}} {
// CHECK-NEXT:        mux.set_local_id 1, %y : index
// CHECK-NEXT:        scf.for %z = %{{.*}} to %[[LS2]] step %{{.*}} {
// CHECK-NEXT:          mux.set_local_id 2, %z : index
// CHECK-NEXT:          %i = mux.get_global_id 0 : index
// CHECK:               memref.store
// CHECK-NEXT:        } {mux.work_item_loop}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
