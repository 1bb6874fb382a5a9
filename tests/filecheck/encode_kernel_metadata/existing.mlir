// RUN: xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k local-sizes=8,8}' | filecheck %s

// Metadata the kernel already has is kept: the same required size (8, 8, 1), its work-item
// order (no option given) and its base name.

// CHECK: func.func @k() attributes {mux.reqd_work_group_size = array<i64: 8, 8, 1>, mux.work_item_order = array<i64: 0, 1, 2>, mux.base_name = "user_name", mux.kernel = "entry_point"} {
func.func @k() attributes {mux.reqd_work_group_size = array<i64: 8, 8, 1>, mux.work_item_order = array<i64: 0, 1, 2>, mux.base_name = "user_name"} {
  func.return
}
