// RUN: not xmux-opt %s -p 'expand-oacc-reductions' 2>&1 | filecheck %s
// A reduction operator the type has no meaning for (bitwise and on f32) names the op.

func.func @k(%a: f32) attributes {mux.kernel = "entry_point", oacc.dims = array<i64: 8, 1, 1>} {
  %a2 = oacc.reduction_init gang and %a lid 0 rid 0 : f32
  func.return
}

// CHECK: 'oacc.reduction_init' (lid 0, rid 0): reduction operator 'and' is not valid for f32 (it takes bool, int types)
