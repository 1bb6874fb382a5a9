// RUN: xmux-opt %s -p 'expand-oacc-reductions{expansion=host}' | filecheck %s
// Host expansion of a gang reduction into a copy object (the reference's default
// implementation): setup V = *res; init and fini V = LOCAL; teardown *res = LOCAL, V = LOCAL;
// lock/unlock/fork/join vanish; the kernel's required work-group size becomes 1x1x1.

func.func @k(%a: f32, %r: memref<f32>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>, mux.reqd_work_group_size = array<i64: 32, 4, 1>} {
  %a1 = oacc.reduction_setup gang add %a res(%r : memref<f32>) lid 0 rid 0 : f32
  oacc.fork gang
  %a2 = oacc.reduction_init gang add %a1 res(%r : memref<f32>) lid 0 rid 0 : f32
  %s = arith.addf %a2, %a2 : f32
  oacc.lock gang lid 0
  %a3 = oacc.reduction_fini gang add %s res(%r : memref<f32>) lid 0 rid 0 : f32
  oacc.unlock gang lid 0
  oacc.join gang
  %a4 = oacc.reduction_teardown gang add %a3 res(%r : memref<f32>) lid 0 rid 0 : f32
  "test.op"(%a4) : (f32) -> ()
  func.return
}

// CHECK:      func.func @k(%a: f32, %r: memref<f32>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>, mux.reqd_work_group_size = array<i64: 1, 1, 1>} {
// CHECK-NEXT:   %a1 = memref.load %r[] : memref<f32>
// CHECK-NEXT:   %s = arith.addf %a1, %a1 : f32
// CHECK-NEXT:   memref.store %s, %r[] : memref<f32>
// CHECK-NEXT:   "test.op"(%s) : (f32) -> ()
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
