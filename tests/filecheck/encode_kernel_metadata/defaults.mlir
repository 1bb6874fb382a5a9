// RUN: xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k}' | filecheck %s

// Without options: entry point, the default xyz order stored explicitly (x innermost =
// array<i64: 2, 1, 0>), no required work-group size, no max work dim.

// CHECK: func.func @k() attributes {mux.kernel = "entry_point", mux.work_item_order = array<i64: 2, 1, 0>, mux.base_name = "k"} {
func.func @k() {
  func.return
}
