// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// memref.rank / memory_space_cast / alloca_scope in upstream's custom form, and
// memref.assume_alignment as LLVM 19 has it (no result).

func.func @f(%a: memref<4xf32>, %d: memref<?xf32>, %x: f32) -> f32 {
  %r = memref.rank %d : memref<?xf32>
  %g = memref.memory_space_cast %a : memref<4xf32> to memref<4xf32, 1>
  memref.alloca_scope {
    %m = memref.alloca() : memref<4xf32>
  }
  %z = memref.alloca_scope -> (f32) {
    memref.alloca_scope.return %x : f32
  }
  memref.assume_alignment %a, 16 : memref<4xf32>
  return %z : f32
}
// CHECK:      %r = memref.rank %d : memref<?xf32>
// CHECK-NEXT: %g = memref.memory_space_cast %a : memref<4xf32> to memref<4xf32, 1 : i64>
// CHECK-NEXT: memref.alloca_scope {
// CHECK-NEXT:   %m = memref.alloca() : memref<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %z = memref.alloca_scope -> (f32) {
// CHECK-NEXT:   memref.alloca_scope.return %x : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.assume_alignment %a, 16 : memref<4xf32>
