// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// memref.copy and memref.extract_aligned_pointer_as_index in the form mlir-opt prints.

func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) -> index {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  %p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
  return %p : index
}

// CHECK:      memref.copy %a, %b : memref<4xf32> to memref<4xf32>
// CHECK-NEXT: %p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
