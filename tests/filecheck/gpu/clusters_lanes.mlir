// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// Thread-block cluster queries and launches (LLVM 19's syntax), the lane ops gpu.rotate and
// gpu.subgroup_broadcast (LLVM 21+; gpu.broadcast_lane: its first proposal's name) and
// gpu.warp_execute_on_lane_0 (LLVM 20+; vector.warp_execute_on_lane_0 in LLVM 19, same form).

// CHECK-LABEL: func.func @host
// CHECK:       gpu.launch clusters(%cx, %cy, %cz) in (%sx = %c2, %sy = %c1, %sz = %c1) blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%nx = %c4, %ny = %c1, %nz = %c1) {
// CHECK-NEXT:    memref.store %cx, %a[%sx] : memref<?xindex>
// CHECK:       gpu.launch_func @m::@k clusters in (%c2, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<?xindex>)
// GENERIC:     "gpu.launch_func"(%{{.*}}) <{kernel = @m::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0>}>
func.func @host(%a: memref<?xindex>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%sx = %c2, %sy = %c1, %sz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c4, %ny = %c1, %nz = %c1) {
    memref.store %cx, %a[%sx] : memref<?xindex>
    gpu.terminator
  }
  gpu.launch_func @m::@k clusters in (%c2, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c4, %c1, %c1) args(%a : memref<?xindex>)
  return
}

gpu.module @m {
  // CHECK-LABEL: gpu.func @k
  // CHECK-NEXT:    %a0 = gpu.cluster_id x
  // CHECK-NEXT:    %a1 = gpu.cluster_dim y
  // CHECK-NEXT:    %a2 = gpu.cluster_block_id z
  // CHECK-NEXT:    %a3 = gpu.cluster_dim_blocks x
  // GENERIC:       "gpu.cluster_dim"() <{dimension = #gpu<dim y>}> : () -> index
  // GENERIC:       "gpu.cluster_block_id"() <{dimension = #gpu<dim z>}> : () -> index
  // GENERIC:       "gpu.cluster_dim_blocks"() <{dimension = #gpu<dim x>}> : () -> index
  gpu.func @k(%a: memref<?xindex>) kernel {
    %a0 = gpu.cluster_id x
    %a1 = gpu.cluster_dim y
    %a2 = gpu.cluster_block_id z
    %a3 = gpu.cluster_dim_blocks x
    gpu.return
  }

  // CHECK-LABEL: gpu.func @lanes
  // CHECK-NEXT:    %r, %ok = gpu.rotate %f, 1, 16 : f32
  // CHECK-NEXT:    %rv, %okv = gpu.rotate %v, 0, 32 : vector<4xf32>
  // CHECK-NEXT:    %b0 = gpu.subgroup_broadcast %f, first_active_lane : f32
  // CHECK-NEXT:    %b1 = gpu.subgroup_broadcast %f, specific_lane %l : f32
  // CHECK-NEXT:    %b2 = gpu.broadcast_lane %i, any_lane : index
  // GENERIC:       "gpu.rotate"(%{{.*}}) <{offset = 1 : i32, width = 16 : i32}> : (f32) -> (f32, i1)
  // GENERIC:       "gpu.subgroup_broadcast"(%{{.*}}) <{broadcast_type = #gpu<broadcast first_active_lane>}> : (f32) -> f32
  // GENERIC:       "gpu.subgroup_broadcast"(%{{.*}}, %{{.*}}) <{broadcast_type = #gpu<broadcast specific_lane>}> : (f32, i32) -> f32
  gpu.func @lanes(%f: f32, %v: vector<4xf32>, %l: i32, %i: index) kernel {
    %r, %ok = gpu.rotate %f, 1, 16 : f32
    %rv, %okv = gpu.rotate %v, 0, 32 : vector<4xf32>
    %b0 = gpu.subgroup_broadcast %f, first_active_lane : f32
    %b1 = gpu.subgroup_broadcast %f, specific_lane %l : f32
    %b2 = gpu.broadcast_lane %i, any_lane : index
    gpu.return
  }

  // CHECK-LABEL: gpu.func @warp
  // CHECK-NEXT:    %lane = gpu.lane_id
  // CHECK-NEXT:    %{{.*}}, %{{.*}} = gpu.warp_execute_on_lane_0(%lane)[32] args(%v, %f : vector<4xf32>, f32) -> (vector<1xf32>, f32) {
  // CHECK-NEXT:    ^bb0(%all: vector<128xf32>, %g: f32):
  // CHECK-NEXT:      %s = vector.broadcast %g : f32 to vector<32xf32>
  // CHECK-NEXT:      gpu.yield %s, %g : vector<32xf32>, f32
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.warp_execute_on_lane_0(%lane)[32] {
  // CHECK-NEXT:      gpu.printf "lane 0"
  // CHECK-NEXT:    }
  // CHECK-NEXT:    gpu.return
  // GENERIC:       "gpu.warp_execute_on_lane_0"(%{{.*}}, %{{.*}}, %{{.*}}) <{warp_size = 32 : i64}> ({
  gpu.func @warp(%v: vector<4xf32>, %f: f32) kernel {
    %lane = gpu.lane_id
    %w:2 = gpu.warp_execute_on_lane_0(%lane)[32] args(%v, %f : vector<4xf32>, f32) -> (vector<1xf32>, f32) {
    ^bb0(%all: vector<128xf32>, %g: f32):
      %s = vector.broadcast %g : f32 to vector<32xf32>
      gpu.yield %s, %g : vector<32xf32>, f32
    }
    gpu.warp_execute_on_lane_0(%lane)[32] {
      gpu.printf "lane 0"
    }
    gpu.return
  }
}
