// RUN: xmux-opt %s -p 'work-item-loops,hoist-uniform-loads' | filecheck %s

// Loads at work-group-uniform addresses that come before any write in the work-item's program
// order leave the work-item loop nest, with the constants they need (a conv's coefficients).

// CHECK-LABEL: func.func @coefficients
// CHECK:         %[[C1:c1]] = arith.constant 1 : index
// CHECK-NEXT:    %[[W0:.*]] = memref.load %w[%{{.*}}] : memref<2xf32>
// CHECK-NEXT:    %[[W1:.*]] = memref.load %w[%[[C1]]] : memref<2xf32>
// CHECK-NEXT:    %[[S:.*]] = memref.load %scale[] : memref<f32>
// CHECK-NEXT:    scf.for %z
// CHECK:           scf.for %y
// CHECK:             scf.for %x
// CHECK-NOT:           memref.load %w
// CHECK:               arith.mulf %{{.*}}, %[[W0]] : f32
// CHECK:             } {mux.work_item_loop}
func.func @coefficients(%in: memref<?xf32>, %out: memref<?xf32>, %w: memref<2xf32>, %scale: memref<f32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w0 = memref.load %w[%c0] : memref<2xf32>
  %w1 = memref.load %w[%c1] : memref<2xf32>
  %s = memref.load %scale[] : memref<f32>
  %v = memref.load %in[%i] : memref<?xf32>
  %a = arith.mulf %v, %w0 : f32
  %b = arith.addf %a, %w1 : f32
  %r = arith.mulf %b, %s : f32
  memref.store %r, %out[%i] : memref<?xf32>
  func.return
}

// A load after a store of the same work-item may read what that store wrote: it stays. So do
// a load under control flow and one whose address depends on the work-item.
// CHECK-LABEL: func.func @stays
// CHECK:         scf.for %x
// CHECK:           memref.load %p[%{{.*}}] : memref<?xf32>
// CHECK:           memref.store
// CHECK:           memref.load %w[%{{.*}}] : memref<2xf32>
// CHECK:           scf.if
// CHECK-NEXT:        memref.load %w
// CHECK:         } {mux.work_item_loop}
func.func @stays(%p: memref<?xf32>, %w: memref<2xf32>, %f: i1) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %mine = memref.load %p[%i] : memref<?xf32>
  memref.store %mine, %p[%c0] : memref<?xf32>
  %after = memref.load %w[%c0] : memref<2xf32>
  %g = scf.if %f -> (f32) {
    %u = memref.load %w[%c1] : memref<2xf32>
    scf.yield %u : f32
  } else {
    scf.yield %after : f32
  }
  %t = arith.addf %after, %g : f32
  memref.store %t, %p[%i] : memref<?xf32>
  func.return
}

// A call may write memory: the loads after it stay, the one before it leaves.
// CHECK-LABEL: func.func @after_call
// CHECK:         %[[BEFORE:.*]] = memref.load %w[%{{.*}}] : memref<2xf32>
// CHECK-NEXT:    scf.for %z
// CHECK:             scf.for %x
// CHECK:               func.call @update(%[[BEFORE]], %w)
// CHECK-NEXT:          memref.load %w
// CHECK:             } {mux.work_item_loop}
func.func private @update(f32, memref<2xf32>)
func.func @after_call(%w: memref<2xf32>, %out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %before = memref.load %w[%c0] : memref<2xf32>
  func.call @update(%before, %w) : (f32, memref<2xf32>) -> ()
  %later = memref.load %w[%c1] : memref<2xf32>
  memref.store %later, %out[%i] : memref<?xf32>
  func.return
}
