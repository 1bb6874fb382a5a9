// RUN: not xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' 2>&1 | filecheck %s

// oacc.level_dims names NDRange dimensions: -2^63 (the mutation fuzzer's find) indexed a list
// in an IndexError traceback; the attribute is checked where it is read.

// CHECK:     error: @k: oacc.level_dims must be three NDRange dimensions (0, 1 or 2: gang, worker, vector), got [0, 0, -9223372036854775808]
// CHECK-NOT: Traceback
func.func @k(%a: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>, oacc.level_dims = array<i64: 0, 0, -9223372036854775808>} {
  func.return
}
