// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s

// Round trip of every oacc op: the reference's gang reduction with a copy object, a worker
// reduction of a private object, a complex vector reduction and the dimension queries.

func.func @ops(%a: f32, %p: memref<f32>, %i: i32, %c: complex<f64>, %b: i1) -> index {
  %a1 = oacc.reduction_setup gang add %a res(%p : memref<f32>) lid 0 rid 0 : f32
  oacc.fork gang
  %a2 = oacc.reduction_init gang add %a1 res(%p : memref<f32>) lid 0 rid 0 : f32
  oacc.lock gang lid 0
  %a3 = oacc.reduction_fini gang add %a2 res(%p : memref<f32>) lid 0 rid 0 : f32
  oacc.unlock gang lid 0
  oacc.join gang
  %a4 = oacc.reduction_teardown gang add %a3 res(%p : memref<f32>) lid 0 rid 0 : f32
  %i1 = oacc.reduction_setup worker max %i lid 1 rid 2 : i32
  %c1 = oacc.reduction_init vector mul %c lid 3 rid 0 : complex<f64>
  %b1 = oacc.reduction_fini worker lor %b lid 4 rid 1 : i1
  %w = oacc.dim_pos worker : index
  %nv = oacc.dim_size vector : index
  func.return %w : index
}

// CHECK:      %a1 = oacc.reduction_setup gang add %a res(%p : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT: oacc.fork gang
// CHECK-NEXT: %a2 = oacc.reduction_init gang add %a1 res(%p : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT: oacc.lock gang lid 0
// CHECK-NEXT: %a3 = oacc.reduction_fini gang add %a2 res(%p : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT: oacc.unlock gang lid 0
// CHECK-NEXT: oacc.join gang
// CHECK-NEXT: %a4 = oacc.reduction_teardown gang add %a3 res(%p : memref<f32>) lid 0 rid 0 : f32
// CHECK-NEXT: %i1 = oacc.reduction_setup worker max %i lid 1 rid 2 : i32
// CHECK-NEXT: %c1 = oacc.reduction_init vector mul %c lid 3 rid 0 : complex<f64>
// CHECK-NEXT: %b1 = oacc.reduction_fini worker lor %b lid 4 rid 1 : i1
// CHECK-NEXT: %w = oacc.dim_pos worker : index
// CHECK-NEXT: %nv = oacc.dim_size vector : index
