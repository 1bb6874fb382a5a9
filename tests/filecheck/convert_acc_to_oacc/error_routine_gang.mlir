// RUN: not xmux-opt %s -p convert-acc-to-oacc 2>&1 | filecheck %s
// A gang routine holds partitioned loops across a call: not supported, named.

acc.routine @r func(@f) gang
func.func @f() attributes {acc.routine_info = #acc.routine_info<[@r]>} {
  return
}
func.func @main() {
  acc.init
  return
}
// CHECK: error: convert-acc-to-oacc: 'acc.routine' @r with gang/worker/vector parallelism is not supported by this pipeline yet
