// RUN: not xmux-opt %s -p work-item-loops 2>&1 | filecheck %s

// A value used above its definition in one block (the mutation fuzzer's swapped lines): the
// parser resolves the forward reference and xDSL's verifier checks no dominance, so
// work-item-loops ended in an AssertionError; the verification names the op.

// CHECK:     error: {{.*}}malformed_use_before_def.mlir: 'memref.store' uses a value of 'memref.load' before its definition (in the same block)
// CHECK-NOT: Traceback
func.func @k(%a: memref<?xf32>, %p: memref<2xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %i = mux.get_global_id 0 : index
  memref.store %v, %p[%c0] : memref<2xf32>
  %v = memref.load %a[%i] : memref<?xf32>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  func.return
}
