// RUN: not xmux-opt %s -p convert-gpu-to-mux 2>&1 | filecheck %s
// An async token that leaves the gpu ops (here: returned) cannot vanish: an error names it.

func.func @f() -> !gpu.async.token {
  %t = gpu.wait async
  return %t : !gpu.async.token
}
// CHECK: 'gpu.wait' in @f: its async token is used by 'func.return' (tokens may only feed gpu ops)
