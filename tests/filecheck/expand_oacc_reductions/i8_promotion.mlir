// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' | filecheck %s
// i8 (and i16) values are promoted to i32 in the work-group buffers: sign-extended on the way
// in (max/min stay signed), combined in i32, truncated on the way out.

func.func @k(%a: i8, %b: i16) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 2, 1, 8>} {
  %a3 = oacc.reduction_fini vector max %a lid 0 rid 0 : i8
  %b3 = oacc.reduction_fini vector mul %b lid 0 rid 1 : i16
  oacc.join vector
  %a4 = oacc.reduction_teardown vector max %a3 lid 0 rid 0 : i8
  %b4 = oacc.reduction_teardown vector mul %b3 lid 0 rid 1 : i16
  "test.op"(%a4, %b4) : (i8, i16) -> ()
  func.return
}

// CHECK:      memref.global "private" @__oacc_vector_red_i32 : memref<2x8xi32, 3 : i64>
// CHECK:      %[[A:.*]] = arith.extsi %a : i8 to i32
// CHECK:      memref.store %[[A]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x8xi32, 3 : i64>
// CHECK:      %[[B:.*]] = arith.extsi %b : i16 to i32
// CHECK:      memref.store %[[B]], %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x8xi32, 3 : i64>
// CHECK:      mux.work_group_barrier
// CHECK:      %[[SA:.*]] = scf.for %{{.*}} -> (i32) {
// CHECK:        arith.maxsi %{{.*}}, %{{.*}} : i32
// CHECK:      }
// CHECK-NEXT: %a4 = arith.trunci %[[SA]] : i32 to i8
// CHECK:      %[[SB:.*]] = scf.for %{{.*}} -> (i32) {
// CHECK:        arith.muli %{{.*}}, %{{.*}} : i32
// CHECK:      }
// CHECK-NEXT: %b4 = arith.trunci %[[SB]] : i32 to i16
// CHECK-NEXT: "test.op"(%a4, %b4) : (i8, i16) -> ()
