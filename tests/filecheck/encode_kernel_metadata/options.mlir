// RUN: xmux-opt %s -p 'encode-kernel-metadata{kernel-name=k local-sizes=64,2 work-item-order=zyx max-work-dim=2}' | filecheck %s

// All options: sizes padded to three, zyx order = z innermost = outermost-first (x, y, z),
// max work dim, base name. Other functions are left alone.

// CHECK:      func.func @helper(%{{.*}}: f32) -> f32 {
// CHECK:      func.func @k(%{{.*}}: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 64, 2, 1>, mux.work_item_order = array<i64: 0, 1, 2>, mux.max_work_dim = 2 : i64, mux.base_name = "k"} {
// CHECK:      func.func @other() {
func.func @helper(%x: f32) -> f32 {
  func.return %x : f32
}
func.func @k(%a: memref<?xf32>) {
  %i = mux.get_global_id 0 : index
  func.return
}
func.func @other() {
  func.return
}
