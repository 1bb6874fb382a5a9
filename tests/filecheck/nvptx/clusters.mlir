// RUN: env XMUX_NVPTX_ARCH=sm_90 xmux-run --target nvptx --emit ptx %s | filecheck %s
// RUN: env XMUX_NVPTX_ARCH=sm_80 not xmux-run --target nvptx --emit ptx %s 2>&1 | filecheck %s --check-prefix=SM80

// Thread-block clusters on sm_90: the launch's cluster shape is the entry's
// .reqnctapercluster (a plain launch then runs clusters), the queries read the cluster
// special registers. Older archs have no clusters.

// CHECK:       .entry main_kernel_main_kernel(
// CHECK:       .explicitcluster
// CHECK-NEXT:  .reqnctapercluster 2, 1, 1
// CHECK-DAG:   mov.u32 {{.*}}, %clusterid.x;
// CHECK-DAG:   mov.u32 {{.*}}, %nclusterid.x;
// CHECK-DAG:   mov.u32 {{.*}}, %cluster_ctaid.x;
// CHECK-DAG:   mov.u32 {{.*}}, %cluster_nctaid.x;
// SM80:        error: 'gpu.cluster_id' in @main_kernel_main_kernel: thread-block clusters need sm_90 or newer; the target is sm_80
func.func @main() {
  %out = memref.alloc() : memref<4xindex>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%sx = %c2, %sy = %c1, %sz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%ux = %c1, %uy = %c1, %uz = %c1) {
    %0 = gpu.cluster_id x
    %1 = gpu.cluster_dim x
    %2 = gpu.cluster_block_id x
    %3 = gpu.cluster_dim_blocks x
    %a = arith.addi %0, %1 : index
    %b = arith.muli %a, %2 : index
    %c = arith.addi %b, %3 : index
    memref.store %c, %out[%bx] : memref<4xindex>
    gpu.terminator
  }
  return
}
