// RUN: not xmux-opt %s -p replace-local-module-scope-variables 2>&1 | filecheck %s

"memref.global"() <{sym_name = "c", sym_visibility = "private", type = memref<2xcomplex<f32>, 3>, initial_value}> : () -> ()
func.func @k() attributes {mux.kernel = "entry_point"} {
  %a = memref.get_global @c : memref<2xcomplex<f32>, 3>
  func.return
}
// CHECK: error: work-group local global @c (memref<2xcomplex<f32>, 3 : i64>): element type complex<f32> is not supported in work-group local memory
