// RUN: xmux-opt %s -p 'transfer-kernel-metadata' | filecheck %s

// No function is marked and nothing is launched: every public, defined function that no
// function calls and that returns nothing is a kernel. Called helpers, functions with
// results, private functions, declarations and @main (the host entry point) are not.

// CHECK:      func.func @helper(%{{.*}}: f32) -> f32 {
// CHECK:      func.func @k1(%{{.*}}: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.work_item_order = array<i64: 2, 1, 0>, mux.base_name = "k1"} {
// CHECK:      func.func @k2() attributes {mux.kernel = "entry_point", mux.work_item_order = array<i64: 2, 1, 0>, mux.base_name = "k2"} {
// CHECK:      func.func @uncalled_with_result() -> i32 {
// CHECK:      func.func private @internal() {
// CHECK:      func.func private @ext() -> ()
// CHECK:      func.func @main() {
func.func @helper(%x: f32) -> f32 {
  func.return %x : f32
}
func.func @k1(%a: memref<?xf32>) {
  %c = arith.constant 1.0 : f32
  %r = func.call @helper(%c) : (f32) -> f32
  func.return
}
func.func @k2() {
  func.return
}
func.func @uncalled_with_result() -> i32 {
  %c = arith.constant 0 : i32
  func.return %c : i32
}
func.func private @internal() {
  func.return
}
func.func private @ext()
func.func @main() {
  func.return
}
