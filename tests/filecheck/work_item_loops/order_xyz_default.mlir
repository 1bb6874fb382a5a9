// RUN: xmux-opt %s -p work-item-loops | filecheck %s
// RUN: xmux-opt %s -p work-item-loops,work-item-loops | filecheck %s

// Default order xyz: z outermost, x innermost; bounds are the actual local sizes, read
// once before the nest; each loop level sets the id of the dimension it iterates. A second
// run leaves the work-group function alone.

func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %a[%i] : memref<?xf32>
  func.return
}

// Not an entry point: untouched.
func.func @helper(%x: index) -> index {
  func.return %x : index
}

// CHECK-LABEL: func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[LS0:.*]] = mux.get_local_size 0 : index
// CHECK-NEXT:    %[[LS1:.*]] = mux.get_local_size 1 : index
// CHECK-NEXT:    %[[LS2:.*]] = mux.get_local_size 2 : index
// CHECK-NEXT:    scf.for %z = %[[C0]] to %[[LS2]] step %[[C1]] {
// CHECK-NEXT:      mux.set_local_id 2, %z : index
// CHECK-NEXT:      scf.for %y = %[[C0]] to %[[LS1]] step %[[C1]] {
// CHECK-NEXT:        mux.set_local_id 1, %y : index
// CHECK-NEXT:        scf.for %x = %[[C0]] to %[[LS0]] step %[[C1]] {
// CHECK-NEXT:          mux.set_local_id 0, %x : index
// CHECK-NEXT:          %i = mux.get_global_id 0 : index
// CHECK-NEXT:          %v = memref.load %a[%i] : memref<?xf32>
// CHECK-NEXT:          %w = arith.addf %v, %v : f32
// CHECK-NEXT:          memref.store %w, %a[%i] : memref<?xf32>
// CHECK-NEXT:        } {mux.work_item_loop}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func @helper(%x: index) -> index {
// CHECK-NEXT:    func.return %x : index
// CHECK-NEXT:  }
