// RUN: not xmux-opt %s -p record-kernel-abi 2>&1 | filecheck %s

// An argument the launcher cannot pass is an error naming the kernel and the argument.

func.func @k(%a: memref<?xf32>, %n: i3) attributes {mux.kernel = "entry_point"} {
  func.return
}

// CHECK: kernel 'k' argument 1 ('n'): i3 is not supported
