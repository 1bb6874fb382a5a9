// RUN: xmux-opt %s -p gpu-launch-outlining | filecheck %s
// gpu.launch -> gpu.module + gpu.func kernel + gpu.launch_func, as upstream's
// -gpu-kernel-outlining: captured values become arguments, constants are cloned.

func.func @main(%a: memref<?xf32>, %s: f32) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%w : memref<64xf32, #gpu.address_space<workgroup>>) {
    %v = arith.mulf %s, %two : f32
    memref.store %v, %w[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %i = arith.addi %bx, %sx : index
    memref.store %v, %a[%i] : memref<?xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// CHECK:       builtin.module attributes {gpu.container_module} {
// CHECK:         func.func @main(%[[A:.*]]: memref<?xf32>, %[[S:.*]]: f32) {
// CHECK:           %[[C1:.*]] = arith.constant 1 : index
// CHECK:           %[[C64:.*]] = arith.constant 64 : index
// CHECK:           gpu.launch_func @main_kernel::@main_kernel blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C64]], %[[C1]], %[[C1]]) args(%[[S]] : f32, %[[A]] : memref<?xf32>)
// CHECK-NEXT:      gpu.launch_func @main_kernel_0::@main_kernel_0 blocks in
// CHECK-NEXT:      func.return
// CHECK:         gpu.module @main_kernel {
// CHECK-NEXT:      gpu.func @main_kernel(%[[KS:.*]]: f32, %[[KA:.*]]: memref<?xf32>) workgroup(%[[W:.*]] : memref<64xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 1, 1, 1>} {
// CHECK-NEXT:        %[[BX:.*]] = gpu.block_id x
// CHECK-NEXT:        %{{.*}} = gpu.block_id y
// CHECK-NEXT:        %{{.*}} = gpu.block_id z
// CHECK-NEXT:        %[[TX:.*]] = gpu.thread_id x
// CHECK-NEXT:        %{{.*}} = gpu.thread_id y
// CHECK-NEXT:        %{{.*}} = gpu.thread_id z
// CHECK-NEXT:        %{{.*}} = gpu.grid_dim x
// CHECK-NEXT:        %{{.*}} = gpu.grid_dim y
// CHECK-NEXT:        %{{.*}} = gpu.grid_dim z
// CHECK-NEXT:        %[[SX:.*]] = gpu.block_dim x
// CHECK-NEXT:        %{{.*}} = gpu.block_dim y
// CHECK-NEXT:        %{{.*}} = gpu.block_dim z
// CHECK-NEXT:        %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:        %[[V:.*]] = arith.mulf %[[KS]], %[[TWO]] : f32
// CHECK-NEXT:        memref.store %[[V]], %[[W]][%[[TX]]] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:        %[[I:.*]] = arith.addi %[[BX]], %[[SX]] : index
// CHECK-NEXT:        memref.store %[[V]], %[[KA]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:        gpu.return
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.module @main_kernel_0 {
