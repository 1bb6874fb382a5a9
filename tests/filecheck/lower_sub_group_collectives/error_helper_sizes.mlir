// RUN: not xmux-opt %s -p lower-sub-group-collectives 2>&1 | filecheck %s

// A helper using sub-groups takes the size of the kernels that call it: they must agree.

func.func @helper() -> i32 {
  %q = mux.get_sub_group_id : i32
  func.return %q : i32
}
func.func @a() attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 4 : i64} {
  %q = func.call @helper() : () -> i32
  func.return
}
func.func @b() attributes {mux.kernel = "entry_point", mux.reqd_sub_group_size = 8 : i64} {
  %q = func.call @helper() : () -> i32
  func.return
}

// CHECK: lower-sub-group-collectives: @helper uses sub-groups and is called from kernels with different sub-group sizes (@a: 4, @b: 8)
