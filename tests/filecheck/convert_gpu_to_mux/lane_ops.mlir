// RUN: xmux-opt %s -p convert-gpu-to-mux | filecheck %s
// The newer lane ops through mux sub-group ops (the same on both targets):
// gpu.rotate reads lane ((lane + o) & (w - 1)) + (lane & ~(w - 1)), valid = lane < w, vectors
// element by element; gpu.subgroup_broadcast is mux.sub_group_broadcast (first_active_lane:
// lane 0); gpu.warp_execute_on_lane_0 is upstream's scf.if rule: distributed arguments
// through a work-group buffer row per sub-group, the region under `laneid == 0`, results
// stored by lane 0 and loaded by every lane (its slice, or the whole uniform value).

gpu.module @m {
  // CHECK-LABEL: func.func @lanes(%v: f32, %l: i32, %u: vector<2xf32>) attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 32 : i64} {
  // CHECK-NEXT:    %[[LANE:.*]] = mux.get_sub_group_local_id : i32
  // CHECK-NEXT:    %[[O:.*]] = arith.constant 3 : i32
  // CHECK-NEXT:    %[[LOW:.*]] = arith.constant 7 : i32
  // CHECK-NEXT:    %[[HIGH:.*]] = arith.constant -8 : i32
  // CHECK-NEXT:    %[[P:.*]] = arith.addi %[[LANE]], %[[O]] : i32
  // CHECK-NEXT:    %[[WR:.*]] = arith.andi %[[P]], %[[LOW]] : i32
  // CHECK-NEXT:    %[[B:.*]] = arith.andi %[[LANE]], %[[HIGH]] : i32
  // CHECK-NEXT:    %[[SRC:.*]] = arith.addi %[[WR]], %[[B]] : i32
  // CHECK-NEXT:    %[[W:.*]] = arith.constant 8 : i32
  // CHECK-NEXT:    %ok = arith.cmpi ult, %[[LANE]], %[[W]] : i32
  // CHECK-NEXT:    %r = mux.sub_group_shuffle %v, %[[SRC]] : f32
  // CHECK-NEXT:    %b = mux.sub_group_broadcast %v, %l : f32
  // CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i32
  // CHECK-NEXT:    %c = mux.sub_group_broadcast %v, %[[Z]] : f32
  // CHECK:         %[[E0:.*]] = vector.extract %u[0] : f32 from vector<2xf32>
  // CHECK-NEXT:    %[[E1:.*]] = vector.extract %u[1] : f32 from vector<2xf32>
  // CHECK-NEXT:    %[[S0:.*]] = mux.sub_group_shuffle %[[E0]], %{{.*}} : f32
  // CHECK-NEXT:    %[[S1:.*]] = mux.sub_group_shuffle %[[E1]], %{{.*}} : f32
  // CHECK-NEXT:    %[[V0:.*]] = vector.broadcast %[[S0]] : f32 to vector<2xf32>
  // CHECK-NEXT:    %d = vector.insert %[[S1]], %[[V0]] [1] : f32 into vector<2xf32>
  gpu.func @lanes(%v: f32, %l: i32, %u: vector<2xf32>) kernel {
    %r, %ok = gpu.rotate %v, 3, 8 : f32
    %b = gpu.subgroup_broadcast %v, specific_lane %l : f32
    %c = gpu.subgroup_broadcast %v, first_active_lane : f32
    %d, %okd = gpu.rotate %u, 1, 32 : vector<2xf32>
    gpu.return
  }

  // CHECK-LABEL: func.func @warp(%v: vector<2xf32>, %f: f32)
  // CHECK-NEXT:    %lane = mux.get_sub_group_local_id : index
  // CHECK-NEXT:    %[[SG:.*]] = mux.get_sub_group_id : index
  // CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 32 : index
  // CHECK-NEXT:    %[[FITS:.*]] = arith.cmpi ult, %[[SG]], %[[ROWS]] : index
  // CHECK-NEXT:    cf.assert %[[FITS]], "'gpu.warp_execute_on_lane_0' in @warp: more than 32 warps in a block"
  // CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
  // CHECK-NEXT:    %[[K:.*]] = arith.constant 2 : index
  // CHECK-NEXT:    %[[AT:.*]] = arith.muli %lane, %[[K]] : index
  // CHECK-NEXT:    %[[IN:.*]] = memref.get_global @__gpu_warp_0_0 : memref<32x64xf32, 3 : i64>
  // CHECK-NEXT:    vector.store %v, %[[IN]][%[[SG]], %[[AT]]] : memref<32x64xf32, 3 : i64>, vector<2xf32>
  // CHECK-NEXT:    mux.sub_group_barrier sub_group, <acq_rel, work_group_memory>
  // CHECK-NEXT:    %[[IS0:.*]] = arith.cmpi eq, %lane, %[[ZERO]] : index
  // CHECK-NEXT:    scf.if %[[IS0]] {
  // CHECK-NEXT:      %[[IN2:.*]] = memref.get_global @__gpu_warp_0_0 : memref<32x64xf32, 3 : i64>
  // CHECK-NEXT:      %all = vector.load %[[IN2]][%[[SG]], %[[ZERO]]] : memref<32x64xf32, 3 : i64>, vector<64xf32>
  // CHECK-NEXT:      %s = vector.reduction <add>, %all : vector<64xf32> into f32
  // CHECK-NEXT:      %t = arith.addf %s, %f : f32
  // CHECK-NEXT:      %y = vector.broadcast %t : f32 to vector<32xf32>
  // CHECK-NEXT:      %[[O1:.*]] = memref.get_global @__gpu_warp_0_1 : memref<32x32xf32, 3 : i64>
  // CHECK-NEXT:      vector.store %y, %[[O1]][%[[SG]], %[[ZERO]]] : memref<32x32xf32, 3 : i64>, vector<32xf32>
  // CHECK-NEXT:      %[[O2:.*]] = memref.get_global @__gpu_warp_0_2 : memref<32x1xf32, 3 : i64>
  // CHECK-NEXT:      memref.store %t, %[[O2]][%[[SG]], %[[ZERO]]] : memref<32x1xf32, 3 : i64>
  // CHECK-NEXT:    }
  // CHECK-NEXT:    mux.sub_group_barrier sub_group, <acq_rel, work_group_memory>
  // CHECK-NEXT:    %[[R1:.*]] = memref.get_global @__gpu_warp_0_1 : memref<32x32xf32, 3 : i64>
  // CHECK-NEXT:    %[[K1:.*]] = arith.constant 1 : index
  // CHECK-NEXT:    %[[AT1:.*]] = arith.muli %lane, %[[K1]] : index
  // CHECK-NEXT:    %{{.*}} = vector.load %[[R1]][%[[SG]], %[[AT1]]] : memref<32x32xf32, 3 : i64>, vector<1xf32>
  // CHECK-NEXT:    %[[R2:.*]] = memref.get_global @__gpu_warp_0_2 : memref<32x1xf32, 3 : i64>
  // CHECK-NEXT:    %{{.*}} = memref.load %[[R2]][%[[SG]], %[[ZERO]]] : memref<32x1xf32, 3 : i64>
  // CHECK-NEXT:    func.return
  gpu.func @warp(%v: vector<2xf32>, %f: f32) kernel {
    %lane = gpu.lane_id
    %w:2 = gpu.warp_execute_on_lane_0(%lane)[32] args(%v, %f : vector<2xf32>, f32) -> (vector<1xf32>, f32) {
    ^bb0(%all: vector<64xf32>, %g: f32):
      %s = vector.reduction <add>, %all : vector<64xf32> into f32
      %t = arith.addf %s, %g : f32
      %y = vector.broadcast %t : f32 to vector<32xf32>
      gpu.yield %y, %t : vector<32xf32>, f32
    }
    gpu.return
  }

  // A known block of 40 threads: two rows (sub-groups), no assert.
  // CHECK-LABEL: func.func @known(%f: f32)
  // CHECK-NEXT:    %lane = mux.get_sub_group_local_id : index
  // CHECK-NEXT:    %[[SG:.*]] = mux.get_sub_group_id : index
  // CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
  // CHECK-NEXT:    %[[IS0:.*]] = arith.cmpi eq, %lane, %[[ZERO]] : index
  // CHECK-NEXT:    scf.if %[[IS0]] {
  // CHECK-NEXT:      %[[G:.*]] = arith.addf %f, %f : f32
  // CHECK-NEXT:      %[[B:.*]] = memref.get_global @__gpu_warp_1_3 : memref<2x1xf32, 3 : i64>
  // CHECK-NEXT:      memref.store %[[G]], %[[B]][%[[SG]], %[[ZERO]]] : memref<2x1xf32, 3 : i64>
  // CHECK-NEXT:    }
  // CHECK-NEXT:    mux.sub_group_barrier sub_group, <acq_rel, work_group_memory>
  // CHECK-NEXT:    %[[B2:.*]] = memref.get_global @__gpu_warp_1_3 : memref<2x1xf32, 3 : i64>
  // CHECK-NEXT:    %{{.*}} = memref.load %[[B2]][%[[SG]], %[[ZERO]]] : memref<2x1xf32, 3 : i64>
  gpu.func @known(%f: f32) kernel attributes {known_block_size = array<i32: 40, 1, 1>} {
    %lane = gpu.lane_id
    %r = gpu.warp_execute_on_lane_0(%lane)[32] args(%f : f32) -> (f32) {
    ^bb0(%g: f32):
      %h = arith.addf %g, %g : f32
      gpu.yield %h : f32
    }
    gpu.return
  }
}
// CHECK:       memref.global "private" @__gpu_warp_0_0 : memref<32x64xf32, 3 : i64> = uninitialized {alignment = 16 : i64}
// CHECK:       memref.global "private" @__gpu_warp_1_3 : memref<2x1xf32, 3 : i64> = uninitialized {alignment = 16 : i64}
