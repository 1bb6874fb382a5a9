// RUN: xmux-opt %s -p lower-sub-group-collectives | filecheck %s
// RUN: xmux-opt %s -p 'lower-sub-group-collectives{sub-group-size=4}' | filecheck %s --check-prefix=OPT

// The kernel's mux.reqd_sub_group_size is the source of truth; the option (default 1) applies
// to kernels without it. Every kernel using sub-groups (ops or queries, also through a
// helper) gets the attribute; a helper takes the size of the kernels that call it and is
// marked when that is not 1. A kernel whose collectives go through scratch sized for the
// largest work-group (sub-groups wider than 1, no required work-group size) records that limit
// (mux.max_work_group_size).

func.func @helper() -> i32 {
  %q = mux.get_sub_group_local_id : i32
  func.return %q : i32
}
func.func @fixed(%x: i32) -> i32 attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 4 : i64} {
  %r = mux.sub_group_reduce add %x : i32
  func.return %r : i32
}
func.func @free(%x: i32) -> i32 attributes {mux.kernel = "entry_point"} {
  %r = mux.sub_group_reduce add %x : i32
  func.return %r : i32
}
func.func @queries() -> i32 attributes {mux.kernel = "entry_point"} {
  %r = func.call @helper() : () -> i32
  func.return %r : i32
}
func.func @none(%x: i32) -> i32 attributes {mux.kernel = "entry_point"} {
  func.return %x : i32
}

// CHECK:      func.func @helper() -> i32 {
// CHECK:      func.func @fixed(%x: i32) -> i32 attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 4 : i64, mux.max_work_group_size = 1024 : i64} {
// CHECK-NEXT:   mux.get_local_linear_id
// CHECK:      func.func @free(%x: i32) -> i32 attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 1 : i64} {
// CHECK-NEXT:   func.return %x : i32
// CHECK:      func.func @queries() -> i32 attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 1 : i64} {
// CHECK:      func.func @none(%x: i32) -> i32 attributes {mux.kernel = "entry_point"} {

// OPT:      func.func @helper() -> i32 attributes {mux.reqd_sub_group_size = 4 : i64} {
// OPT:      func.func @fixed(%x: i32) -> i32 attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 4 : i64, mux.max_work_group_size = 1024 : i64} {
// OPT-NEXT:   mux.get_local_linear_id
// OPT:      func.func @free(%x: i32) -> i32 attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 4 : i64, mux.max_work_group_size = 1024 : i64} {
// OPT-NEXT:   mux.get_local_linear_id
// OPT:      func.func @queries() -> i32 attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 4 : i64} {
// OPT:      func.func @none(%x: i32) -> i32 attributes {mux.kernel = "entry_point"} {
