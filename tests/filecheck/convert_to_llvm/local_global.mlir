// RUN: not xmux-opt %s -p convert-to-llvm 2>&1 | filecheck %s

// Work-group local globals must have been replaced by replace-local-module-scope-variables.
"memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<16xf32, 3>, initial_value}> : () -> ()
// CHECK: error: convert-to-llvm: memref.global @tile is in work-group local memory (memory space 3); replace-local-module-scope-variables must run before lowering
