// RUN: xmux-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Verifier errors of group collectives and shuffles.

func.func @mismatched_result(%f: f32) {
  %0 = "mux.work_group_reduce"(%f) <{kind = #mux<kind fadd>}> : (f32) -> f64
  func.return
}
// CHECK: 'mux.work_group_reduce' result type f64 must equal the type f32 of operand 'value'

// -----

func.func @mismatched_scan(%i: i32) {
  %0 = "mux.sub_group_scan_exclusive"(%i) <{kind = #mux<kind add>}> : (i32) -> i64
  func.return
}
// CHECK: 'mux.sub_group_scan_exclusive' result type i64 must equal the type i32 of operand 'value'

// -----

func.func @mismatched_shuffle_up(%f: f32, %i: i32) {
  %0 = "mux.sub_group_shuffle_up"(%f, %i, %i) : (f32, i32, i32) -> f32
  func.return
}
// CHECK: 'mux.sub_group_shuffle_up' result type f32 must equal the type i32 of operand 'curr'

// -----

func.func @int_kind_on_float(%f: f32) {
  %0 = mux.work_group_reduce add %f : f32
  func.return
}
// CHECK: 'mux.work_group_reduce' kind add needs an integer value, got f32 (use fadd for floats)

// -----

func.func @float_kind_on_int(%i: i32) {
  %0 = mux.sub_group_scan_inclusive fmax %i : i32
  func.return
}
// CHECK: 'mux.sub_group_scan_inclusive' kind fmax needs a float value, got i32

// -----

func.func @logical_kind_on_float(%f: f64) {
  %0 = mux.sub_group_reduce logical_or %f : f64
  func.return
}
// CHECK: 'mux.sub_group_reduce' kind logical_or needs an i1 or integer value, got f64

// -----

func.func @bitwise_kind_on_float_vector(%v: vector<4xf32>) {
  %0 = mux.vec_group_reduce xor %v : vector<4xf32> -> f32
  func.return
}
// CHECK: 'mux.vec_group_reduce' kind xor needs an integer value, got vector<4xf32>

// -----

func.func @vector_in_work_group(%v: vector<4xi32>) {
  %0 = mux.work_group_reduce add %v : vector<4xi32>
  func.return
}
// CHECK: 'mux.work_group_reduce' value must be a scalar integer or float, got vector<4xi32>

// -----

func.func @vec_reduce_result(%v: vector<4xi32>) {
  %0 = mux.vec_group_reduce add %v : vector<4xi32> -> vector<4xi32>
  func.return
}
// CHECK: 'mux.vec_group_reduce' result must be the element type i32 of the value, got vector<4xi32>

// -----

func.func @vec_broadcast_result(%v: vector<2xi64>, %i: i32) {
  %0 = mux.vec_group_broadcast %v, %i : vector<2xi64> -> i32
  func.return
}
// CHECK: 'mux.vec_group_broadcast' result must be the element type i64 of the value, got i32

// -----

func.func @any_not_bool(%i: i32) {
  %0 = mux.work_group_any %i : i32
  func.return
}
// CHECK: 'mux.work_group_any' value must be i1, got i32

// -----

func.func @vec_all_not_bool(%v: vector<4xi32>) {
  %0 = mux.vec_group_all %v : vector<4xi32>
  func.return
}
// CHECK: 'mux.vec_group_all' value must be i1 or vector of i1, got vector<4xi32>

// -----

func.func @shuffle_index_type(%f: f32, %x: index) {
  %0 = "mux.sub_group_shuffle"(%f, %x) : (f32, index) -> f32
  func.return
}
// CHECK: operand 'lid' at position 1 does not verify:
// CHECK-NEXT: Expected attribute i32 but got index

// -----

func.func @shuffle_xor_index_type(%f: f32, %l: i64) {
  %0 = "mux.sub_group_shuffle_xor"(%f, %l) : (f32, i64) -> f32
  func.return
}
// CHECK: operand 'xor_val' at position 1 does not verify:
// CHECK-NEXT: Expected attribute i32 but got i64

// -----

func.func @broadcast_id_type(%f: f32, %i: i32) {
  %0 = "mux.work_group_broadcast"(%f, %i, %i, %i) : (f32, i32, i32, i32) -> f32
  func.return
}
// CHECK: operand 'local_id_x' at position 1 does not verify:
// CHECK-NEXT: i32 should be of base attribute index

// -----

func.func @memref_in_shuffle(%m: memref<4xf32>, %i: i32) {
  %0 = mux.sub_group_shuffle %m, %i : memref<4xf32>
  func.return
}
// CHECK: 'mux.sub_group_shuffle' value must be a scalar integer or float, got memref<4xf32>
