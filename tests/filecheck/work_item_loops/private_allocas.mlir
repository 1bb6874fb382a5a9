// RUN: xmux-opt %s -p work-item-loops | filecheck %s

// Static private allocations move above the nest (one per work-group call, reused by each
// work-item in turn); dynamic ones stay in the loop.

func.func @k(%a: memref<?xf32>, %n: index) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %buf = memref.alloca() : memref<4xf32>
  %dyn = memref.alloca(%n) : memref<?xf32>
  %one = llvm.mlir.constant(1 : i32) : i32
  %p = llvm.alloca %one x f32 : (i32) -> !llvm.ptr
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  memref.store %v, %buf[%c0] : memref<4xf32>
  llvm.store %v, %p : f32, !llvm.ptr
  func.return
}

// CHECK:         %{{.*}} = mux.get_local_size 2 : index
// CHECK-NEXT:    %buf = memref.alloca() : memref<4xf32>
// CHECK-NEXT:    %one = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %p = llvm.alloca %one x f32 : (i32) -> !llvm.ptr
// CHECK-NEXT:    scf.for %z
// CHECK:             scf.for %x
// CHECK-NEXT:          mux.set_local_id 0, %x : index
// CHECK-NEXT:          %i = mux.get_global_id 0 : index
// CHECK-NEXT:          %dyn = memref.alloca(%n) : memref<?xf32>
// CHECK-NEXT:          %c0 = arith.constant 0 : index
