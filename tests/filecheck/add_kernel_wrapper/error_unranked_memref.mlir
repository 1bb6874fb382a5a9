// RUN: not xmux-opt %s -p add-kernel-wrapper 2>&1 | filecheck %s

func.func @unranked(%a: memref<*xf32>) attributes {mux.kernel = "entry_point"} {
  func.return
}
// CHECK: error: kernel 'unranked': kernel argument type memref<*xf32> cannot be passed in the packed arguments
