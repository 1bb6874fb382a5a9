// RUN: not xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' 2>&1 | filecheck %s

// oacc.dims with a size of -2^63 (the mutation fuzzer's find): the work-group size computed
// from it overflowed i64 in a ValueError traceback; the attribute is checked where it is read.

// CHECK:     error: @k: oacc.dims must be (num_gangs, num_workers, vector_length), each positive or -1 (known at run time), got [8, -9223372036854775808, 32]
// CHECK-NOT: Traceback
func.func @k(%a: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, -9223372036854775808, 32>, oacc.level_dims = array<i64: 0, 0, 0>} {
  func.return
}
