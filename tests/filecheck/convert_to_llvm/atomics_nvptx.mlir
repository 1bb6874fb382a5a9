// RUN: xmux-opt %s -p 'convert-to-llvm{target=nvptx}' | filecheck %s

// On NVPTX work-group local memory is a block's shared memory, updated by many threads at
// once: its updates stay atomic (relaxed), as global ones do.
func.func @shared(%l: memref<256xi32, 3>, %g: memref<?xi32>, %i: index, %v: i32) {
  %0 = memref.atomic_rmw addi %v, %l[%i] : (i32, memref<256xi32, 3>) -> i32
  %1 = memref.atomic_rmw muli %v, %l[%i] : (i32, memref<256xi32, 3>) -> i32
  %2 = memref.atomic_rmw addi %v, %g[%i] : (i32, memref<?xi32>) -> i32
  return
}
// CHECK-LABEL: llvm.func internal @shared(
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK:         llvm.load %{{.*}} atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK:         llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} monotonic monotonic : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw add %{{.*}}, %{{.*}} monotonic : !llvm.ptr, i32
// CHECK-NOT:     llvm.fence
// CHECK:         llvm.return
