// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// Upstream MLIR's gpu.launch, gpu.launch_func and host ops, and the custom forms of
// memref.cast and memref.atomic_rmw, in the form mlir-opt prints them.

module attributes {gpu.container_module} {
  func.func @launch(%n: index, %data: memref<?xf32>, %bytes: i32) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1)
               dynamic_shared_memory_size %bytes
               workgroup(%w : memref<32xf32, #gpu.address_space<workgroup>>)
               private(%p : memref<1xf32, #gpu.address_space<private>>) {
      %v = memref.load %data[%tx] : memref<?xf32>
      gpu.terminator
    }
    %t0 = gpu.wait async
    %t1 = gpu.launch async [%t0] blocks(%a0, %a1, %a2) in (%a3 = %n, %a4 = %n, %a5 = %n)
        threads(%a6, %a7, %a8) in (%a9 = %n, %a10 = %n, %a11 = %n) {
      gpu.terminator
    }
    gpu.wait [%t1]
    return
  }
  // CHECK-LABEL: func.func @launch(
  // CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) dynamic_shared_memory_size %{{.*}} workgroup(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>) private(%{{.*}} : memref<1xf32, #gpu.address_space<private>>) {
  // CHECK-NEXT:      %{{.*}} = memref.load %{{.*}}[%[[TX]]] : memref<?xf32>
  // CHECK-NEXT:      gpu.terminator
  // CHECK-NEXT:    }
  // CHECK-NEXT:    %[[T0:.*]] = gpu.wait async
  // CHECK-NEXT:    %[[T1:.*]] = gpu.launch async [%[[T0]]] blocks({{.*}}) in ({{.*}}) threads({{.*}}) in ({{.*}}) {
  // CHECK:         gpu.wait [%[[T1]]]

  gpu.module @kernels {
    gpu.func @k(%a: f32, %b: memref<?xf32>) kernel {
      gpu.return
    }
  }

  func.func @launch_func(%f: f32, %m: memref<?xf32>, %i: i32) {
    %c8 = arith.constant 8 : index
    %c0 = arith.constant 0 : i32
    gpu.launch_func @kernels::@k blocks in (%c8, %c8, %c8) threads in (%c8, %c8, %c8) args(%f : f32, %m : memref<?xf32>)
    gpu.launch_func @kernels::@k blocks in (%c8, %c8, %c8) threads in (%c8, %c8, %c8) dynamic_shared_memory_size %c0 args(%f : f32, %m : memref<?xf32>)
    gpu.launch_func @kernels::@k blocks in (%i, %i, %i) threads in (%i, %i, %i) : i32 args(%f : f32, %m : memref<?xf32>)
    %t = gpu.wait async
    %t2 = gpu.launch_func async [%t] @kernels::@k blocks in (%c8, %c8, %c8) threads in (%c8, %c8, %c8) args(%f : f32, %m : memref<?xf32>)
    return
  }
  // CHECK-LABEL: func.func @launch_func(
  // CHECK:         gpu.launch_func @kernels::@k blocks in (%[[C8:.*]], %[[C8]], %[[C8]]) threads in (%[[C8]], %[[C8]], %[[C8]]) args(%{{.*}} : f32, %{{.*}} : memref<?xf32>)
  // CHECK-NEXT:    gpu.launch_func @kernels::@k blocks in ({{.*}}) threads in ({{.*}}) dynamic_shared_memory_size %{{.*}} args(%{{.*}} : f32, %{{.*}} : memref<?xf32>)
  // CHECK-NEXT:    gpu.launch_func @kernels::@k blocks in ({{.*}}) threads in ({{.*}}) : i32 args(%{{.*}} : f32, %{{.*}} : memref<?xf32>)
  // CHECK-NEXT:    %[[T:.*]] = gpu.wait async
  // CHECK-NEXT:    %{{.*}} = gpu.launch_func async [%[[T]]] @kernels::@k blocks in

  func.func @memory(%n: index, %v: f32) {
    %m0 = gpu.alloc () : memref<13xf32, 1>
    gpu.dealloc %m0 : memref<13xf32, 1>
    %t0 = gpu.wait async
    %m1, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %t2 = gpu.dealloc async [%t1] %m1 : memref<?xf32>
    %m2 = gpu.alloc host_shared (%n) : memref<?xf32>
    %m3 = gpu.alloc (%n) : memref<?xf32>
    gpu.memcpy %m3, %m2 : memref<?xf32>, memref<?xf32>
    %t3 = gpu.memcpy async [%t2] %m3, %m2 : memref<?xf32>, memref<?xf32>
    gpu.memset %m3, %v : memref<?xf32>, f32
    %t4 = gpu.memset async [%t3] %m3, %v : memref<?xf32>, f32
    gpu.wait [%t3, %t4]
    gpu.wait
    %u = memref.cast %m2 : memref<?xf32> to memref<*xf32>
    gpu.host_register %u : memref<*xf32>
    gpu.host_unregister %u : memref<*xf32>
    %c0 = arith.constant 0 : index
    %old = memref.atomic_rmw addf %v, %m2[%c0] : (f32, memref<?xf32>) -> f32
    %old2 = memref.atomic_rmw maxnumf %v, %m2[%c0] : (f32, memref<?xf32>) -> f32
    return
  }
  // CHECK-LABEL: func.func @memory(
  // CHECK-NEXT:    %[[M0:.*]] = gpu.alloc () : memref<13xf32, 1 : i64>
  // CHECK-NEXT:    gpu.dealloc %[[M0]] : memref<13xf32, 1 : i64>
  // CHECK-NEXT:    %[[T0:.*]] = gpu.wait async
  // CHECK-NEXT:    %[[M1:.*]], %[[T1:.*]] = gpu.alloc async [%[[T0]]] (%{{.*}}) : memref<?xf32>
  // CHECK-NEXT:    %[[T2:.*]] = gpu.dealloc async [%[[T1]]] %[[M1]] : memref<?xf32>
  // CHECK-NEXT:    %[[M2:.*]] = gpu.alloc host_shared (%{{.*}}) : memref<?xf32>
  // CHECK-NEXT:    %[[M3:.*]] = gpu.alloc (%{{.*}}) : memref<?xf32>
  // CHECK-NEXT:    gpu.memcpy %[[M3]], %[[M2]] : memref<?xf32>, memref<?xf32>
  // CHECK-NEXT:    %[[T3:.*]] = gpu.memcpy async [%[[T2]]] %[[M3]], %[[M2]] : memref<?xf32>, memref<?xf32>
  // CHECK-NEXT:    gpu.memset %[[M3]], %{{.*}} : memref<?xf32>, f32
  // CHECK-NEXT:    %[[T4:.*]] = gpu.memset async [%[[T3]]] %[[M3]], %{{.*}} : memref<?xf32>, f32
  // CHECK-NEXT:    gpu.wait [%[[T3]], %[[T4]]]
  // CHECK-NEXT:    gpu.wait
  // CHECK-NEXT:    %[[U:.*]] = memref.cast %[[M2]] : memref<?xf32> to memref<*xf32>
  // CHECK-NEXT:    gpu.host_register %[[U]] : memref<*xf32>
  // CHECK-NEXT:    gpu.host_unregister %[[U]] : memref<*xf32>
  // CHECK-NEXT:    %{{.*}} = arith.constant 0 : index
  // CHECK-NEXT:    %{{.*}} = memref.atomic_rmw addf %{{.*}}, %[[M2]][%{{.*}}] : (f32, memref<?xf32>) -> f32
  // CHECK-NEXT:    %{{.*}} = memref.atomic_rmw maxnumf %{{.*}}, %[[M2]][%{{.*}}] : (f32, memref<?xf32>) -> f32
}
