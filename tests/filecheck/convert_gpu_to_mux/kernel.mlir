// RUN: xmux-opt %s -p convert-gpu-to-mux | filecheck %s
// gpu.module/gpu.func kernels become mux kernels at the top level; device ops become mux
// queries, barriers and collectives; launch_func becomes mux.launch; host ops vanish or
// become memref ops.

module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: memref<?xf32>) workgroup(%w: memref<8xf32, #gpu.address_space<workgroup>>)
        private(%p: memref<2xf32, #gpu.address_space<private>>)
        kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      %t = gpu.thread_id x
      %b = gpu.block_dim y
      %g = gpu.grid_dim z
      %l = gpu.lane_id
      %v = memref.load %a[%t] : memref<?xf32>
      memref.store %v, %w[%t] : memref<8xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %s = gpu.all_reduce maxnumf %v {} : (f32) -> f32
      %c = arith.constant 2 : i32
      %r, %ok = gpu.shuffle xor %s, %c, %c : f32
      memref.store %r, %p[%t] : memref<2xf32, #gpu.address_space<private>>
      gpu.return
    }
  }
  func.func @main(%a: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %u = memref.cast %a : memref<?xf32> to memref<*xf32>
    gpu.host_register %u : memref<*xf32>
    gpu.launch_func @m::@k blocks in (%c8, %c1, %c1) threads in (%c8, %c1, %c1) args(%a : memref<?xf32>)
    return
  }
}

// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @k(%[[A:.*]]: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>, mux.reqd_sub_group_size = 32 : i64} {
// CHECK-NEXT:     %[[W:.*]] = memref.get_global @__gpu_wg_k_0 : memref<8xf32, 3 : i64>
// CHECK-NEXT:     %[[P:.*]] = memref.alloca() : memref<2xf32>
// CHECK-NEXT:     %[[T:.*]] = mux.get_local_id 0 : index
// CHECK-NEXT:     %{{.*}} = mux.get_local_size 1 : index
// CHECK-NEXT:     %{{.*}} = mux.get_num_groups 2 : index
// CHECK-NEXT:     %{{.*}} = mux.get_sub_group_local_id : index
// CHECK-NEXT:     %[[V:.*]] = memref.load %[[A]][%[[T]]] : memref<?xf32>
// CHECK-NEXT:     memref.store %[[V]], %[[W]][%[[T]]] : memref<8xf32, 3 : i64>
// CHECK-NEXT:     mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:     %[[S:.*]] = mux.work_group_reduce fmax %[[V]] : f32
// CHECK-NEXT:     %[[C:.*]] = arith.constant 2 : i32
// CHECK-NEXT:     %[[LANE:.*]] = mux.get_sub_group_local_id : i32
// CHECK-NEXT:     %[[SRC:.*]] = arith.xori %[[LANE]], %[[C]] : i32
// CHECK-NEXT:     %[[OK:.*]] = arith.cmpi ult, %[[SRC]], %[[C]] : i32
// CHECK-NEXT:     %[[SEL:.*]] = arith.select %[[OK]], %[[SRC]], %[[LANE]] : i32
// CHECK-NEXT:     %[[R:.*]] = mux.sub_group_shuffle %[[S]], %[[SEL]] : f32
// CHECK-NEXT:     memref.store %[[R]], %[[P]][%[[T]]] : memref<2xf32>
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   func.func @main(%[[HA:.*]]: memref<?xf32>) {
// CHECK-NEXT:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT:     %{{.*}} = memref.cast %[[HA]] : memref<?xf32> to memref<*xf32>
// CHECK-NEXT:     %[[G0:.*]] = arith.muli %[[C8]], %[[C8]] : index
// CHECK-NEXT:     %[[G1:.*]] = arith.muli %[[C1]], %[[C1]] : index
// CHECK-NEXT:     %[[G2:.*]] = arith.muli %[[C1]], %[[C1]] : index
// CHECK-NEXT:     mux.launch @k(%[[HA]]) global_size(%[[G0]], %[[G1]], %[[G2]]) local_size(%[[C8]], %[[C1]], %[[C1]]) : (memref<?xf32>)
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT:   memref.global "private" @__gpu_wg_k_0 : memref<8xf32, 3 : i64> = uninitialized
// CHECK-NEXT: }
