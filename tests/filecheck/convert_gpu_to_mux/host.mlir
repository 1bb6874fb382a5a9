// RUN: xmux-opt %s -p convert-gpu-to-mux | filecheck %s
// Host gpu ops on the CPU's shared memory: alloc/dealloc/memcpy/memset become memref ops,
// wait and host_register vanish, async tokens with them; launch sizes of type i32 are cast.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @main(%n: index, %v: f32, %g: i32) {
    %t0 = gpu.wait async
    %a, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %h = gpu.alloc host_shared (%n) : memref<?xf32>
    %t2 = gpu.memset async [%t1] %a, %v : memref<?xf32>, f32
    %t3 = gpu.launch_func async [%t2] @m::@k blocks in (%g, %g, %g) threads in (%g, %g, %g) : i32
        args(%a : memref<?xf32>)
    %t4 = gpu.memcpy async [%t3] %h, %a : memref<?xf32>, memref<?xf32>
    gpu.wait [%t4]
    %u = memref.cast %h : memref<?xf32> to memref<*xf32>
    gpu.host_register %u : memref<*xf32>
    gpu.dealloc %a : memref<?xf32>
    return
  }
}

// CHECK:      func.func @main(%[[N:.*]]: index, %[[V:.*]]: f32, %[[G:.*]]: i32) {
// CHECK-NEXT:   %[[A:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK-NEXT:   %[[H:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[D:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[DIM:.*]] = memref.dim %[[A]], %[[D]] : memref<?xf32>
// CHECK-NEXT:   scf.for %[[I:.*]] = %[[C0]] to %[[DIM]] step %[[C1]] {
// CHECK-NEXT:     memref.store %[[V]], %[[A]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:   }
// CHECK-COUNT-6: arith.index_cast %[[G]] : i32 to index
// CHECK-COUNT-3: arith.muli
// CHECK-NEXT:   mux.launch @k(%[[A]]) global_size
// CHECK-NEXT:   memref.copy %[[A]], %[[H]] : memref<?xf32> to memref<?xf32>
// CHECK-NEXT:   %{{.*}} = memref.cast %[[H]] : memref<?xf32> to memref<*xf32>
// CHECK-NEXT:   memref.dealloc %[[A]] : memref<?xf32>
// CHECK-NEXT:   func.return
// CHECK-NOT:  gpu.
