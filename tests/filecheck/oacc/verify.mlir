// RUN: xmux-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of the oacc builtins: operator/type compatibility, result pointers only at
// gang level and of the reduction type, no vector-level lock.

func.func @and_on_float(%a: f32) {
  %0 = oacc.reduction_init gang and %a lid 0 rid 0 : f32
  func.return
}
// CHECK: 'oacc.reduction_init' (lid 0, rid 0): reduction operator 'and' is not valid for f32 (it takes bool, int types)

// -----

func.func @max_on_complex(%a: complex<f32>) {
  %0 = oacc.reduction_fini worker max %a lid 2 rid 1 : complex<f32>
  func.return
}
// CHECK: 'oacc.reduction_fini' (lid 2, rid 1): reduction operator 'max' is not valid for complex<f32> (it takes float, int types)

// -----

func.func @add_on_bool(%a: i1) {
  %0 = oacc.reduction_setup vector add %a lid 0 rid 0 : i1
  func.return
}
// CHECK: 'oacc.reduction_setup' (lid 0, rid 0): reduction operator 'add' is not valid for i1 (it takes complex, float, int types)

// -----

func.func @not_a_reduction_type(%a: index) {
  %0 = oacc.reduction_setup gang add %a lid 0 rid 0 : index
  func.return
}
// CHECK: 'oacc.reduction_setup' (lid 0, rid 0): index is not a reduction type

// -----

func.func @res_ptr_at_worker(%a: f32, %p: memref<f32>) {
  %0 = oacc.reduction_setup worker add %a res(%p : memref<f32>) lid 0 rid 0 : f32
  func.return
}
// CHECK: 'oacc.reduction_setup' (lid 0, rid 0): a result pointer is only allowed at gang level (worker and vector reductions always have a private RESULT), got level worker

// -----

func.func @res_ptr_type(%a: f32, %p: memref<4xf32>) {
  %0 = oacc.reduction_teardown gang add %a res(%p : memref<4xf32>) lid 0 rid 0 : f32
  func.return
}
// CHECK: 'oacc.reduction_teardown' (lid 0, rid 0): result pointer must be memref<f32> (rank 0, the reduction type), got memref<4xf32>

// -----

func.func @vector_lock() {
  oacc.lock vector lid 3
  func.return
}
// CHECK: 'oacc.lock' (lid 3): vector reductions need no lock; only gang and worker levels have one
