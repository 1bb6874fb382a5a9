// RUN: xmux-opt %s -p add-kernel-wrapper | filecheck %s

// memref arguments travel as MLIR descriptors (allocated, aligned, offset, sizes, strides),
// whatever their shape, layout or memory space; the wrapper casts each back to the memref.

func.func @k(%dyn: memref<?xf32>, %st: memref<4x8xf64>, %strided: memref<?x?xi32, strided<[?, ?], offset: ?>>, %r3: memref<2x?x4xi8, 1>, %r0: memref<f32>, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.scheduling_params} {
  func.return
}

// CHECK:      func.func @"k.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr)
// CHECK-NEXT:   %0 = llvm.getelementptr inbounds %packed[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<3 x i64>, !llvm.array<3 x i64>)>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>)>
// CHECK-NEXT:   %1 = llvm.load %0 : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
// CHECK-NEXT:   %2 = builtin.unrealized_conversion_cast %1 : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)> to memref<?xf32>
// CHECK-NEXT:   %3 = llvm.getelementptr inbounds %packed[0, 1] : {{.*}}
// CHECK-NEXT:   %4 = llvm.load %3 : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT:   %5 = builtin.unrealized_conversion_cast %4 : {{.*}} to memref<4x8xf64>
// CHECK-NEXT:   %6 = llvm.getelementptr inbounds %packed[0, 2] : {{.*}}
// CHECK-NEXT:   %7 = llvm.load %6 : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT:   %8 = builtin.unrealized_conversion_cast %7 : {{.*}} to memref<?x?xi32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:   %9 = llvm.getelementptr inbounds %packed[0, 3] : {{.*}}
// CHECK-NEXT:   %10 = llvm.load %9 : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<3 x i64>, !llvm.array<3 x i64>)>
// CHECK-NEXT:   %11 = builtin.unrealized_conversion_cast %10 : {{.*}} to memref<2x?x4xi8, 1 : i64>
// CHECK-NEXT:   %12 = llvm.getelementptr inbounds %packed[0, 4] : {{.*}}
// CHECK-NEXT:   %13 = llvm.load %12 : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>
// CHECK-NEXT:   %14 = builtin.unrealized_conversion_cast %13 : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)> to memref<f32>
// CHECK-NEXT:   func.call @k(%2, %5, %8, %11, %14, %wi_info, %wg_info, %sched_info) : (memref<?xf32>, memref<4x8xf64>, memref<?x?xi32, strided<[?, ?], offset: ?>>, memref<2x?x4xi8, 1 : i64>, memref<f32>, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
