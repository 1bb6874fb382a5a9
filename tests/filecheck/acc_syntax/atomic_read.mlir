// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// acc.atomic.read: the LLVM 19 form names one pointer type (both pointers share it), the
// newer form both; both read, the newer form prints.

func.func @f(%x: memref<f32>, %v: memref<f32>, %c: i1) {
  acc.atomic.read %v = %x : memref<f32>, f32
  acc.atomic.read if(%c) %v = %x : memref<f32>, memref<f32>, f32
  return
}

// CHECK:      acc.atomic.read %v = %x : memref<f32>, memref<f32>, f32
// CHECK-NEXT: acc.atomic.read if(%c) %v = %x : memref<f32>, memref<f32>, f32
