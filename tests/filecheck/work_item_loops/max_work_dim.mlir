// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// max_work_dim = 1: the local sizes of y and z are 1, so only x gets a loop.

func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.max_work_dim = 1 : i64} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[LS0:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT:    mux.set_local_id 1, %[[C0]] : index
// CHECK-NEXT:    mux.set_local_id 2, %[[C0]] : index
// CHECK-NEXT:    scf.for %x = %[[C0]] to %[[LS0]] step %[[C1]] {
// CHECK-NEXT:      mux.set_local_id 0, %x : index
// CHECK-NEXT:      %i = mux.get_global_id 0 : index
// CHECK-NEXT:      %v = memref.load %a[%i] : memref<?xf32>
// CHECK-NEXT:      memref.store %v, %a[%i] : memref<?xf32>
// CHECK-NEXT:    } {mux.work_item_loop}
// CHECK-NEXT:    func.return
