// RUN: xmux-opt %s -p lower-work-group-collectives-nvptx | filecheck %s

// Consecutive independent collectives share one pair of barriers (a batch, as
// lower-work-group-collectives forms them): each writes its own row of its type's storage,
// warp 0 runs all their second stages in one branch. An op between them that uses a result
// (%s) moves after the batch; a collective that uses it (%d) starts the next batch.

func.func @k(%x: f32, %y: f32, %i: i32) -> (f32, f32, i32, f32) {
  %a = mux.work_group_reduce fadd %x : f32
  %s = arith.mulf %a, %a : f32
  %b = mux.work_group_scan_exclusive fmax %y : f32
  %c = mux.work_group_reduce add %i : i32
  %d = mux.work_group_reduce fmin %s : f32
  func.return %a, %b, %c, %d : f32, f32, i32, f32
}

// CHECK:      "memref.global"() <{sym_name = "__mux_wg_nvptx_f32", type = memref<2x64xf32, 3 : i64>
// CHECK:      "memref.global"() <{sym_name = "__mux_wg_nvptx_i32", type = memref<1x64xi32, 3 : i64>
// CHECK:      %scratch = memref.get_global @__mux_wg_nvptx_f32 : memref<2x64xf32, 3 : i64>
// CHECK-NEXT: %scratch_1 = memref.get_global @__mux_wg_nvptx_i32 : memref<1x64xi32, 3 : i64>
// CHECK-NOT:  mux.work_group_barrier
// CHECK:      memref.store %{{.*}}, %scratch[%[[ROW0:.*]], %{{.*}}] : memref<2x64xf32, 3 : i64>
// CHECK-NOT:  mux.work_group_barrier
// CHECK:      %[[ROW1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %{{.*}} = arith.index_cast %warp : i32 to index
// CHECK-NEXT: memref.store %{{.*}}, %scratch[%[[ROW1]], %{{.*}}] : memref<2x64xf32, 3 : i64>
// CHECK-NOT:  mux.work_group_barrier
// CHECK:      memref.store %{{.*}}, %scratch_1[%{{.*}}, %{{.*}}] : memref<1x64xi32, 3 : i64>
// CHECK-NEXT: }
// CHECK-NEXT: mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %[[W0:.*]] = arith.cmpi eq, %warp, %{{.*}} : i32
// CHECK-NEXT: scf.if %[[W0]] {
// CHECK-NOT:  mux.work_group_barrier
// CHECK:        memref.load %scratch[%{{.*}}, %{{.*}}] : memref<2x64xf32, 3 : i64>
// CHECK-NOT:  mux.work_group_barrier
// CHECK:        memref.load %scratch[%{{.*}}, %{{.*}}] : memref<2x64xf32, 3 : i64>
// CHECK-NOT:  mux.work_group_barrier
// CHECK:        memref.load %scratch_1[%{{.*}}, %{{.*}}] : memref<1x64xi32, 3 : i64>
// CHECK:      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[R:.*]] = arith.constant 32 : index
// CHECK-NEXT: %a = memref.load %scratch[%[[Z]], %[[R]]] : memref<2x64xf32, 3 : i64>
// CHECK:      %b = scf.if
// CHECK:      %c = memref.load %scratch_1[%[[Z]], %[[R]]] : memref<1x64xi32, 3 : i64>
// CHECK-NEXT: %s = arith.mulf %a, %a : f32
// CHECK:      mux.work_group_barrier
// CHECK:      mux.work_group_barrier
// CHECK-NOT:  mux.work_group_barrier
// CHECK:      %d = memref.load
// CHECK-NEXT: func.return %a, %b, %c, %d : f32, f32, i32, f32
