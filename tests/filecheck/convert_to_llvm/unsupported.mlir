// RUN: not xmux-opt %s -p convert-to-llvm 2>&1 | filecheck %s

// An op without a lowering is named with its function (here: the kernel pipeline did not run).
func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  return
}
// CHECK: error: {{.*}}unsupported.mlir:5:3: convert-to-llvm: 'mux.get_global_id' in @k: no lowering to the llvm dialect (run the kernel pipeline first)
