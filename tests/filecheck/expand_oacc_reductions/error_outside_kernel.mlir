// RUN: not xmux-opt %s -p 'expand-oacc-reductions' 2>&1 | filecheck %s
// RUN: not xmux-opt %s -p 'expand-oacc-reductions{expansion=gpu}' 2>&1 | filecheck %s --check-prefix=TARGET
// An oacc builtin in a function that is not an OpenACC kernel (no oacc.dims) is an error
// naming the op and the function; an unknown expansion is an error naming the choices.

func.func @helper(%a: f32) -> f32 {
  %a3 = oacc.reduction_fini vector add %a lid 0 rid 0 : f32
  func.return %a3 : f32
}

// CHECK: error: expand-oacc-reductions: 'oacc.reduction_fini' in @helper: oacc builtins are only valid inside an OpenACC kernel (a func.func with oacc.dims, as convert-acc-to-oacc outlines acc.parallel)
// TARGET: error: expand-oacc-reductions: expansion must be one of host, cpu, ptx, got 'gpu'
