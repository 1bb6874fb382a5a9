// RUN: xmux-opt %s -p lower-work-group-collectives | filecheck %s

// Collectives inside a uniform loop and in a helper function are lowered in place. The
// helper is reached by a kernel with a 8x8 required size and by one without: the scratch is
// sized for the larger (1024). Types get one global each.

func.func @helper(%v: index) -> index {
  %r = mux.work_group_reduce umax %v : index
  func.return %r : index
}

func.func @k1(%x: f32, %n: index) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 8, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %n step %c1 {
    %r = mux.work_group_reduce fmin %x : f32
    scf.yield
  }
  %h = func.call @helper(%n) : (index) -> index
  func.return
}

func.func @k2(%n: index) attributes {mux.kernel = "entry_point"} {
  %h = func.call @helper(%n) : (index) -> index
  func.return
}

// CHECK:      memref.global "private" @__mux_wg_scratch_f32 : memref<1x1026xf32, 3 : i64>
// CHECK-NEXT: memref.global "private" @__mux_wg_scratch_index : memref<1x1026xindex, 3 : i64>
// CHECK:      func.func @helper
// CHECK:        mux.work_group_barrier
// CHECK:        arith.maxui %{{.*}}, %{{.*}} : index
// CHECK:        %r = memref.load %{{.*}} : memref<1x1026xindex, 3 : i64>
// CHECK-NEXT:   func.return %r : index
// CHECK:      func.func @k1
// CHECK:        scf.for
// CHECK:          mux.work_group_barrier
// CHECK:          arith.minnumf %{{.*}}, %{{.*}} : f32
// CHECK:          mux.work_group_barrier
// CHECK:          %r = memref.load
// CHECK-NEXT:   }
// CHECK-NOT:  mux.work_group_reduce
