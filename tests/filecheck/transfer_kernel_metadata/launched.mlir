// RUN: xmux-opt %s -p 'transfer-kernel-metadata{local-sizes=16,4 max-work-dim=2}' | filecheck %s

// With host code, the targets of mux.launch are the kernels (each once); the host function
// and unlaunched functions are not. The options apply to every kernel.

// CHECK:      func.func @a(%{{.*}}: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 4, 1>, mux.work_item_order = array<i64: 2, 1, 0>, mux.max_work_dim = 2 : i64, mux.base_name = "a"} {
// CHECK:      func.func @unused() {
// CHECK:      func.func @b(%{{.*}}: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 16, 4, 1>, mux.work_item_order = array<i64: 2, 1, 0>, mux.max_work_dim = 2 : i64, mux.base_name = "b"} {
// CHECK:      func.func @main(%{{.*}}: memref<?xf32>, %{{.*}}: index) {
func.func @a(%x: memref<?xf32>) {
  func.return
}
func.func @unused() {
  func.return
}
func.func @b(%x: memref<?xf32>) {
  func.return
}
func.func @main(%x: memref<?xf32>, %n: index) {
  mux.launch @b(%x) global_size(%n) local_size(%n) : (memref<?xf32>)
  mux.launch @a(%x) global_size(%n) local_size(%n) : (memref<?xf32>)
  mux.launch @b(%x) global_size(%n) local_size(%n) : (memref<?xf32>)
  func.return
}
