// RUN: xmux-opt %s -p prepare-barriers,work-item-loops | filecheck %s

// No barrier: one loop nest, no per-work-item storage, no fence (the foundation's form).

func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %a[%i] : memref<?xf32>
  func.return
}

// CHECK:      func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
// CHECK-NEXT:   %0 = arith.constant 0 : index
// CHECK-NEXT:   %1 = arith.constant 1 : index
// CHECK-NEXT:   %2 = mux.get_local_size 0 : index
// CHECK-NEXT:   %3 = mux.get_local_size 1 : index
// CHECK-NEXT:   %4 = mux.get_local_size 2 : index
// CHECK-NEXT:   scf.for %z = %0 to %4 step %1 {
// CHECK-NEXT:     mux.set_local_id 2, %z : index
// CHECK-NEXT:     scf.for %y = %0 to %3 step %1 {
// CHECK-NEXT:       mux.set_local_id 1, %y : index
// CHECK-NEXT:       scf.for %x = %0 to %2 step %1 {
// CHECK-NEXT:         mux.set_local_id 0, %x : index
// CHECK-NEXT:         %i = mux.get_global_id 0 : index
// CHECK-NEXT:         %v = memref.load %a[%i] : memref<?xf32>
// CHECK-NEXT:         %w = arith.addf %v, %v : f32
// CHECK-NEXT:         memref.store %w, %a[%i] : memref<?xf32>
// CHECK-NEXT:       } {mux.work_item_loop}
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
