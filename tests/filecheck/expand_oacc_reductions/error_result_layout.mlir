// RUN: not xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' 2>&1 | filecheck %s
// The atomic gang fini needs the address of the RESULT object: a dynamic offset is refused.

func.func @k(%a: f32, %r: memref<f32, strided<[], offset: ?>>) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 1, 1>} {
  %a3 = oacc.reduction_fini gang add %a res(%r : memref<f32, strided<[], offset: ?>>) lid 0 rid 0 : f32
  func.return
}

// CHECK: error: expand-oacc-reductions: 'oacc.reduction_fini' (lid 0, rid 0) in @k: result pointer memref<f32, strided<[], offset: ?>> needs an identity or static-offset layout
