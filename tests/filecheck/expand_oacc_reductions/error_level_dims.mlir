// RUN: not xmux-opt %s -p 'expand-oacc-reductions{expansion=cpu}' 2>&1 | filecheck %s
// Worker and vector reductions need the two levels on different local dimensions.

func.func @k(%a: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 4, 32>, oacc.level_dims = array<i64: 0, 0, 0>} {
  %a3 = oacc.reduction_fini vector add %a lid 0 rid 0 : f32
  func.return
}

// CHECK: error: expand-oacc-reductions: 'oacc.reduction_fini' (lid 0, rid 0) in @k: worker and vector levels map to the same local dimension 0 (oacc.level_dims); they need different ones
