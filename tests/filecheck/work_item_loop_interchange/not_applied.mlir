// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange' | filecheck %s

// Left alone: a small constant trip count (LLVM unrolls it), a bound that depends on the
// work-item, and a private array shared once work-items interleave.

// CHECK-LABEL: func.func @small
// CHECK:           mux.set_local_id 0
// CHECK-NOT:       mux.work_item_loop
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:         } {mux.work_item_loop}
func.func @small(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c3 step %c1 iter_args(%s = %zero) -> (f32) {
    %x = memref.load %a[%k] : memref<?xf32>
    %t = arith.addf %s, %x : f32
    scf.yield %t : f32
  }
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @varying
// CHECK:           mux.set_local_id 0
// CHECK-NOT:       mux.work_item_loop
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK:         } {mux.work_item_loop}
func.func @varying(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %i step %c1 iter_args(%s = %zero) -> (f32) {
    %x = memref.load %a[%k] : memref<?xf32>
    %t = arith.addf %s, %x : f32
    scf.yield %t : f32
  }
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @private_array
// CHECK:         memref.alloca() : memref<4xf32>
// CHECK:           mux.set_local_id 0
// CHECK-NOT:       mux.work_item_loop
// CHECK:           scf.for %{{.*}} = %{{.*}} to %n step %{{.*}} {
// CHECK:         } {mux.work_item_loop}
func.func @private_array(%n: index, %a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %tmp = memref.alloca() : memref<4xf32>
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    memref.store %x, %tmp[%c0] : memref<4xf32>
  }
  %y = memref.load %tmp[%c0] : memref<4xf32>
  memref.store %y, %a[%i] : memref<?xf32>
  func.return
}
