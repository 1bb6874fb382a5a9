// RUN: xmux-opt %s -p 'record-kernel-abi,work-item-loops{vector-width=4},define-mux-builtins,add-kernel-wrapper,add-entry-hook' | filecheck %s

// The record, and the vector schedule work-item-loops writes, travel with the entry point:
// the wrapper and then the entry hook (the symbol the runtime calls) carry them.

func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %a[%i] : memref<?xf32>
  func.return
}

// CHECK: func.func @"k.mux-entry-hook"(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {mux.kernel = "entry_point"
// CHECK-SAME: mux.kernel_abi = {name = "k", args = [{name = "a", kind = "memref", dtype = "float32", shape = array<i64: -1>, strided = false, written = true}]}
// CHECK-SAME: mux.vector_schedule = array<i64: 4, 0, 1>
