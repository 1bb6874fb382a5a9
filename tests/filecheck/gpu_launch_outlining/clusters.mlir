// RUN: xmux-opt %s -p gpu-launch-outlining | filecheck %s
// A launch with clusters keeps them on its gpu.launch_func; in the kernel the launch's
// cluster ids are gpu.cluster_id and its cluster sizes gpu.cluster_dim_blocks (what the
// launch passed: blocks per cluster).

// CHECK-LABEL: func.func @main(%a: memref<?xindex>)
// CHECK:         gpu.launch_func @main_kernel::@main_kernel clusters in (%c2, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xindex>)
// CHECK:       gpu.func @main_kernel(%a: memref<?xindex>) kernel
// CHECK:         %ux = gpu.block_dim x
// CHECK-NEXT:    %uy = gpu.block_dim y
// CHECK-NEXT:    %uz = gpu.block_dim z
// CHECK-NEXT:    %cx = gpu.cluster_id x
// CHECK-NEXT:    %cy = gpu.cluster_id y
// CHECK-NEXT:    %cz = gpu.cluster_id z
// CHECK-NEXT:    %sx = gpu.cluster_dim_blocks x
// CHECK-NEXT:    %sy = gpu.cluster_dim_blocks y
// CHECK-NEXT:    %sz = gpu.cluster_dim_blocks z
// CHECK-NEXT:    %s = arith.addi %cy, %sx : index
// CHECK-NEXT:    memref.store %s, %a[%bx] : memref<?xindex>
// CHECK-NEXT:    gpu.return
func.func @main(%a: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%sx = %c2, %sy = %c1, %sz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%ux = %c1, %uy = %c1, %uz = %c1) {
    %s = arith.addi %cy, %sx : index
    memref.store %s, %a[%bx] : memref<?xindex>
    gpu.terminator
  }
  return
}
