// RUN: xmux-opt %s -p 'prepare-barriers,vectorize-local-reduction-trees' | filecheck %s

// Rounds written out one after the other, as CUDA-style code unrolls a tree's last rounds:
// `if (lid < 4) ...; barrier; if (lid < 2) ...; barrier; if (lid < 1) ...; barrier` with a
// minimum over f64. The steps and all their barriers but the last become one vector step
// (after the barrier already in front of the first step); the round values stay (pure).

module {
  memref.global "private" @buf : memref<8xf64, 3> = uninitialized
  func.func @unrolled(%x: memref<?xf64>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
    %lid = mux.get_local_id 0 : index
    %buf = memref.get_global @buf : memref<8xf64, 3>
    %v = memref.load %x[%lid] : memref<?xf64>
    memref.store %v, %buf[%lid] : memref<8xf64, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %c4 = arith.constant 4 : index
    %a4 = arith.cmpi ult, %lid, %c4 : index
    scf.if %a4 {
      %o = arith.addi %lid, %c4 : index
      %a = memref.load %buf[%lid] : memref<8xf64, 3>
      %b = memref.load %buf[%o] : memref<8xf64, 3>
      %t = arith.minimumf %a, %b : f64
      memref.store %t, %buf[%lid] : memref<8xf64, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %c2 = arith.constant 2 : index
    %a2 = arith.cmpi ult, %lid, %c2 : index
    scf.if %a2 {
      %o = arith.addi %lid, %c2 : index
      %a = memref.load %buf[%lid] : memref<8xf64, 3>
      %b = memref.load %buf[%o] : memref<8xf64, 3>
      %t = arith.minimumf %a, %b : f64
      memref.store %t, %buf[%lid] : memref<8xf64, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %c1 = arith.constant 1 : index
    %a1 = arith.cmpi ult, %lid, %c1 : index
    scf.if %a1 {
      %o = arith.addi %lid, %c1 : index
      %a = memref.load %buf[%lid] : memref<8xf64, 3>
      %b = memref.load %buf[%o] : memref<8xf64, 3>
      %t = arith.minimumf %a, %b : f64
      memref.store %t, %buf[%lid] : memref<8xf64, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %c0 = arith.constant 0 : index
    %r = memref.load %buf[%c0] : memref<8xf64, 3>
    memref.store %r, %x[%lid] : memref<?xf64>
    func.return
  }
}

// CHECK:      memref.store %v, %buf[%lid] : memref<8xf64, 3 : i64>
// CHECK-NEXT: mux.work_group_barrier id 1, work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %a4 = arith.cmpi ult, %lid, %c4 : index
// CHECK-NEXT: %{{.*}} = mux.get_local_linear_id : index
// CHECK:      scf.if %{{.*}} {
// CHECK:        %{{.*}} = vector.load %buf[%{{.*}}] : memref<8xf64, 3 : i64>, vector<8xf64>
// CHECK:        arith.minimumf %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK:        arith.minimumf %{{.*}}, %{{.*}} : vector<2xf64>
// CHECK:        arith.minimumf %{{.*}}, %{{.*}} : vector<1xf64>
// CHECK:      }{mux.single_work_item}
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %a2 = arith.cmpi ult, %lid, %c2 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %a1 = arith.cmpi ult, %lid, %c1 : index
// CHECK-NEXT: mux.work_group_barrier id 2, work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NOT:  scf.if
// CHECK-NOT:  mux.work_group_barrier
