// RUN: not xmux-opt %s -p add-kernel-wrapper 2>&1 | filecheck %s

// Only signless integers (what arith computes with) are kernel scalars.
func.func @unsigned(%a: ui32) attributes {mux.kernel = "entry_point"} {
  func.return
}
// CHECK: error: kernel 'unsigned': kernel argument type ui32 cannot be passed in the packed arguments
