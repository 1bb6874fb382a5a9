// RUN: xmux-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of work-item queries and mux.set_local_id.

func.func @bad_dim() {
  %0 = mux.get_global_id 3 : index
  func.return
}
// CHECK: 'mux.get_global_id' dimension must be 0, 1 or 2, got 3

// -----

func.func @negative_dim() {
  %0 = mux.get_group_id -1 : index
  func.return
}
// CHECK: 'mux.get_group_id' dimension must be 0, 1 or 2, got -1

// -----

func.func @float_result() {
  %0 = mux.get_local_id 0 : f32
  func.return
}
// CHECK: 'mux.get_local_id' result must be index, i32 or i64, got f32

// -----

func.func @narrow_result() {
  %0 = mux.get_work_dim : i16
  func.return
}
// CHECK: 'mux.get_work_dim' result must be index, i32 or i64, got i16

// -----

func.func @signed_result() {
  %0 = mux.get_local_linear_id : si32
  func.return
}
// CHECK: 'mux.get_local_linear_id' result must be index, i32 or i64, got si32

// -----

func.func @set_bad_dim(%iv: index) {
  mux.set_local_id 4, %iv : index
  func.return
}
// CHECK: 'mux.set_local_id' dimension must be 0, 1 or 2, got 4

// -----

func.func @set_bad_type(%iv: f32) {
  mux.set_local_id 0, %iv : f32
  func.return
}
// CHECK: 'mux.set_local_id' value must be index, i32 or i64, got f32
