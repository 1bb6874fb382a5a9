// RUN: xmux-opt %s -p convert-gpu-to-mux | filecheck %s
// RUN: xmux-opt %s -p 'attach-target{triple=nvptx64-nvidia-cuda chip=sm_90 features="+ptx80" vector-bits=0 vector-registers=0},convert-gpu-to-mux' | filecheck %s --check-prefix=PTX
// Cluster queries. CPU: from the group ids and the kernel's cluster shape, which its launches
// give (constants; nvvm.cluster_dim on the kernel); a grid that is not a constant multiple of
// the cluster is checked before the launch. A kernel launched without clusters has clusters
// of one block. NVPTX: the cluster special registers.

// CHECK-LABEL: func.func @host(%n: index, %a: memref<?xindex>)
// CHECK:         %[[R:.*]] = arith.remui %n, %[[TWO:.*]] : index
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[OK:.*]] = arith.cmpi eq, %[[R]], %[[Z]] : index
// CHECK-NEXT:    cf.assert %[[OK]], "gpu.launch_func @m::@k in @host: the grid's x size is not a multiple of the cluster's (2)"
// CHECK:         mux.launch @k
// CHECK:         mux.launch @plain
func.func @host(%n: index, %a: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  gpu.launch_func @m::@k clusters in (%c2, %c3, %c1) blocks in (%n, %c3, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xindex>)
  gpu.launch_func @m::@plain blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xindex>)
  return
}

gpu.module @m {
  // CHECK-LABEL: func.func @k(%a: memref<?xindex>) attributes {mux.kernel = "entry_point", nvvm.cluster_dim = array<i32: 2, 3, 1>} {
  // CHECK-NEXT:    %[[G:.*]] = mux.get_group_id 0 : index
  // CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
  // CHECK-NEXT:    %{{.*}} = arith.divui %[[G]], %[[C2]] : index
  // CHECK-NEXT:    %[[N:.*]] = mux.get_num_groups 1 : index
  // CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
  // CHECK-NEXT:    %{{.*}} = arith.divui %[[N]], %[[C3]] : index
  // CHECK-NEXT:    %[[G1:.*]] = mux.get_group_id 1 : index
  // CHECK-NEXT:    %[[C3B:.*]] = arith.constant 3 : index
  // CHECK-NEXT:    %{{.*}} = arith.remui %[[G1]], %[[C3B]] : index
  // CHECK-NEXT:    %{{.*}} = arith.constant 2 : index
  // CHECK-NEXT:    %{{.*}} = mux.get_group_id 2 : index
  // PTX-LABEL:   func.func @k(
  // PTX-SAME:      nvvm.cluster_dim = array<i32: 2, 3, 1>
  // PTX-NEXT:      %[[R:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.clusterid.x"() : () -> i32
  // PTX-NEXT:      %[[E:.*]] = arith.extui %[[R]] : i32 to i64
  // PTX-NEXT:      %{{.*}} = arith.index_cast %[[E]] : i64 to index
  // PTX:           llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.nclusterid.y"() : () -> i32
  // PTX:           llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.cluster.ctaid.y"() : () -> i32
  // PTX:           llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.cluster.nctaid.x"() : () -> i32
  // PTX:           llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.clusterid.z"() : () -> i32
  gpu.func @k(%a: memref<?xindex>) kernel {
    %0 = gpu.cluster_id x
    %1 = gpu.cluster_dim y
    %2 = gpu.cluster_block_id y
    %3 = gpu.cluster_dim_blocks x
    %4 = gpu.cluster_id z
    gpu.return
  }
  // CHECK-LABEL: func.func @plain(%a: memref<?xindex>) attributes {mux.kernel = "entry_point"} {
  // CHECK-NEXT:    %{{.*}} = arith.constant 0 : index
  // CHECK-NEXT:    %{{.*}} = mux.get_group_id 0 : index
  // CHECK-NEXT:    %{{.*}} = mux.get_num_groups 0 : index
  // CHECK-NEXT:    func.return
  gpu.func @plain(%a: memref<?xindex>) kernel {
    %0 = gpu.cluster_block_id x
    %1 = gpu.cluster_id x
    %2 = gpu.cluster_dim x
    gpu.return
  }
}
