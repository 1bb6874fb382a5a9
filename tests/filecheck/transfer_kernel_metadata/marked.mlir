// RUN: xmux-opt %s -p 'transfer-kernel-metadata{local-sizes=32 work-item-order=zyx}' | filecheck %s

// Functions already marked entry points are the kernels (as !opencl.kernels in the
// reference): only they get the metadata; an unmarked public function is not a kernel.

// CHECK:      func.func @k() attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 32, 1, 1>, mux.work_item_order = array<i64: 0, 1, 2>, mux.base_name = "k"} {
// CHECK:      func.func @not_a_kernel() {
// CHECK:      func.func @sub() attributes {mux.kernel = "sub_kernel"} {
func.func @k() attributes {mux.kernel = "entry_point"} {
  func.return
}
func.func @not_a_kernel() {
  func.return
}
func.func @sub() attributes {mux.kernel = "sub_kernel"} {
  func.return
}
