// RUN: not xmux-opt %s -p convert-to-llvm 2>&1 | filecheck %s

// A dealloc of stack memory (the mutation fuzzer's memref.alloc -> memref.alloca): free() of
// it aborted xmux-run ("free(): invalid size"); the lowering names the op and the function.

// CHECK:     error: convert-to-llvm: 'memref.dealloc' in @main frees the memref of a 'memref.alloca' (stack memory, released when the function returns): only memref.alloc memory can be deallocated
// CHECK-NOT: Traceback
func.func @main() {
  %tmp = memref.alloca() : memref<32xi32>
  %v = memref.cast %tmp : memref<32xi32> to memref<?xi32>
  memref.dealloc %v : memref<?xi32>
  func.return
}
