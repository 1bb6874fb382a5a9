// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// Upstream MLIR's device-side gpu ops in the form mlir-opt prints them: the forms LLVM 19
// shares with newer versions (tests/test_gpu_mlir_opt.py feeds xmux's output to
// mlir-opt-19); newer_forms.mlir has those of LLVM 20+.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @queries(%arg0: f32, %arg1: memref<?xf32, 1>) kernel {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y upper_bound 64
      %bz = gpu.block_id z
      %dx = gpu.block_dim x
      %gy = gpu.grid_dim y
      %ix = gpu.global_id x
      %lane = gpu.lane_id
      %sg = gpu.subgroup_id : index
      %sgs = gpu.subgroup_size : index
      %nsg = gpu.num_subgroups : index
      gpu.barrier
      gpu.return
    }
    // CHECK-LABEL: gpu.func @queries(%{{.*}}: f32, %{{.*}}: memref<?xf32, 1 : i64>) kernel {
    // CHECK-NEXT:    %{{.*}} = gpu.thread_id x
    // CHECK-NEXT:    %{{.*}} = gpu.thread_id y upper_bound 64
    // CHECK-NEXT:    %{{.*}} = gpu.block_id z
    // CHECK-NEXT:    %{{.*}} = gpu.block_dim x
    // CHECK-NEXT:    %{{.*}} = gpu.grid_dim y
    // CHECK-NEXT:    %{{.*}} = gpu.global_id x
    // CHECK-NEXT:    %{{.*}} = gpu.lane_id
    // CHECK-NEXT:    %{{.*}} = gpu.subgroup_id : index
    // CHECK-NEXT:    %{{.*}} = gpu.subgroup_size : index
    // CHECK-NEXT:    %{{.*}} = gpu.num_subgroups : index
    // CHECK-NEXT:    gpu.barrier
    // CHECK-NEXT:    gpu.return

    gpu.func @collectives(%v: f32, %i: i32, %vec: vector<4xf32>) kernel {
      %a = gpu.all_reduce add %v {} : (f32) -> (f32)
      %b = gpu.all_reduce maxsi %i uniform {} : (i32) -> i32
      %c = gpu.all_reduce %i {
      ^bb0(%lhs: i32, %rhs: i32):
        %x = arith.xori %lhs, %rhs : i32
        gpu.yield %x : i32
      } : (i32) -> i32
      %d = gpu.subgroup_reduce minnumf %v : (f32) -> f32
      %e = gpu.subgroup_reduce add %i uniform : (i32) -> i32
      %g = gpu.subgroup_reduce add %vec : (vector<4xf32>) -> vector<4xf32>
      %w = arith.constant 13 : i32
      %o = arith.constant 4 : i32
      %s0, %p0 = gpu.shuffle xor %v, %o, %w : f32
      %s1, %p1 = gpu.shuffle up %v, %o, %w : f32
      %s2, %p2 = gpu.shuffle down %i, %o, %w : i32
      %s3, %p3 = gpu.shuffle idx %v, %o, %w : f32
      gpu.printf "]"
      gpu.return
    }
    // CHECK-LABEL: gpu.func @collectives(
    // CHECK-NEXT:    %{{.*}} = gpu.all_reduce add %{{.*}} {
    // CHECK-NEXT:    } : (f32) -> f32
    // CHECK-NEXT:    %{{.*}} = gpu.all_reduce maxsi %{{.*}} uniform {
    // CHECK-NEXT:    } : (i32) -> i32
    // CHECK-NEXT:    %{{.*}} = gpu.all_reduce %{{.*}} {
    // CHECK-NEXT:    ^{{.*}}(%[[L:.*]]: i32, %[[R:.*]]: i32):
    // CHECK-NEXT:      %[[X:.*]] = arith.xori %[[L]], %[[R]] : i32
    // CHECK-NEXT:      gpu.yield %[[X]] : i32
    // CHECK-NEXT:    } : (i32) -> i32
    // CHECK-NEXT:    %{{.*}} = gpu.subgroup_reduce minnumf %{{.*}} : (f32) -> f32
    // CHECK-NEXT:    %{{.*}} = gpu.subgroup_reduce add %{{.*}} uniform : (i32) -> i32
    // CHECK-NEXT:    %{{.*}} = gpu.subgroup_reduce add %{{.*}} : (vector<4xf32>) -> vector<4xf32>
    // CHECK:         %{{.*}}, %{{.*}} = gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
    // CHECK-NEXT:    %{{.*}}, %{{.*}} = gpu.shuffle up %{{.*}}, %{{.*}}, %{{.*}} : f32
    // CHECK-NEXT:    %{{.*}}, %{{.*}} = gpu.shuffle down %{{.*}}, %{{.*}}, %{{.*}} : i32
    // CHECK-NEXT:    %{{.*}}, %{{.*}} = gpu.shuffle idx %{{.*}}, %{{.*}}, %{{.*}} : f32
    // CHECK-NEXT:    gpu.printf "]"

    gpu.func @attributions(%arg0: f32)
        workgroup(%w: memref<32xf32, #gpu.address_space<workgroup>>)
        private(%p: memref<2xf32, 5>, %q: memref<1xf32, #gpu.address_space<private>>)
        kernel attributes {known_block_size = array<i32: 32, 1, 1>, foo = "bar"} {
      %m = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      gpu.return
    }
    // CHECK-LABEL: gpu.func @attributions(%{{.*}}: f32) workgroup(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>) private(%{{.*}} : memref<2xf32, 5 : i64>, %{{.*}} : memref<1xf32, #gpu.address_space<private>>) kernel attributes {
    // CHECK-SAME:    foo = "bar"
    // CHECK-SAME:    known_block_size = array<i32: 32, 1, 1>
    // CHECK-NEXT:    %{{.*}} = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>

    gpu.func @device(%x: i32) -> i32 {
      gpu.return %x : i32
    }
    // CHECK-LABEL: gpu.func @device(%{{.*}}: i32) -> i32 {
    // CHECK-NEXT:    gpu.return %{{.*}} : i32
  }
}
