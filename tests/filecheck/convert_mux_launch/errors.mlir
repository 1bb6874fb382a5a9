// RUN: not xmux-opt %s -p convert-mux-launch 2>&1 | filecheck %s

// CHECK: mux.launch @k: argument types (f32) do not match the kernel's (i32)
func.func @k(%x: i32) attributes {mux.kernel = "entry_point"} {
  func.return
}
func.func @main(%f: f32) {
  %c1 = arith.constant 1 : index
  mux.launch @k(%f) global_size(%c1) local_size(%c1) : (f32)
  func.return
}
