// RUN: not xmux-opt %s -p replace-local-module-scope-variables 2>&1 | filecheck %s

"memref.global"() <{sym_name = "init", sym_visibility = "private", type = memref<2xf32, 3>, initial_value = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> ()
func.func @k() attributes {mux.kernel = "entry_point"} {
  %a = memref.get_global @init : memref<2xf32, 3>
  func.return
}
// CHECK: error: work-group local global @init (memref<2xf32, 3 : i64>) has an initial value; local memory cannot be initialized
