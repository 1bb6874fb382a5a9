// RUN: xmux-opt %s -p add-kernel-wrapper,add-entry-hook | filecheck %s

// Local-memory arguments (memrefs in memory space 3): the hook copies the packed arguments
// once, allocates each local buffer (size from the descriptor for dynamic dimensions,
// constants for static ones, times the element size) and rewrites the copy's descriptor to
// point there (offset 0, contiguous strides); the wrapper gets the copy.

func.func @k(%a: memref<?xf32>, %t: memref<?x4xf32, 3>, %n: i32, %s: memref<8xi16, 3>) attributes {mux.kernel = "entry_point"} {
  func.return
}

// CHECK:      func.func @"k.mux-entry-hook"(%packed: !llvm.ptr, %sched_info: !llvm.ptr)
// CHECK:        %wg_info = llvm.alloca
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:   %packed_local = llvm.alloca %[[ONE]] x !llvm.struct<(!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>, i32, {{.*}}> {alignment = 16 : i64}
// CHECK-NEXT:   %[[ALL:.*]] = llvm.load %packed : !llvm.ptr -> !llvm.struct
// CHECK-NEXT:   llvm.store %[[ALL]], %packed_local
// CHECK-NEXT:   %[[P0:.*]] = llvm.getelementptr inbounds %packed_local[0, 1, 3, 0]
// CHECK-NEXT:   %[[ROWS:.*]] = llvm.load %[[P0]] : !llvm.ptr -> i64
// CHECK-NEXT:   %[[FOUR:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[ESIZE:.*]] = arith.constant 4 : i64
// CHECK-NEXT:   %[[B1:.*]] = arith.muli %[[ESIZE]], %[[ROWS]] : i64
// CHECK-NEXT:   %[[BYTES:.*]] = arith.muli %[[B1]], %[[FOUR]] : i64
// CHECK-NEXT:   %local_arg1 = llvm.alloca %[[BYTES]] x i8 {alignment = 64 : i64}
// CHECK-NEXT:   %[[F0:.*]] = llvm.getelementptr inbounds %packed_local[0, 1, 0]
// CHECK-NEXT:   llvm.store %local_arg1, %[[F0]]
// CHECK-NEXT:   %[[F1:.*]] = llvm.getelementptr inbounds %packed_local[0, 1, 1]
// CHECK-NEXT:   llvm.store %local_arg1, %[[F1]]
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:   %[[F2:.*]] = llvm.getelementptr inbounds %packed_local[0, 1, 2]
// CHECK-NEXT:   llvm.store %[[ZERO]], %[[F2]]
// CHECK-NEXT:   %[[S1:.*]] = llvm.getelementptr inbounds %packed_local[0, 1, 4, 1]
// CHECK-NEXT:   llvm.store %[[ONE]], %[[S1]]
// CHECK-NEXT:   %[[Z1:.*]] = llvm.getelementptr inbounds %packed_local[0, 1, 3, 1]
// CHECK-NEXT:   llvm.store %[[FOUR]], %[[Z1]]
// CHECK-NEXT:   %[[STRIDE0:.*]] = arith.muli %[[ONE]], %[[FOUR]] : i64
// CHECK-NEXT:   %[[S0:.*]] = llvm.getelementptr inbounds %packed_local[0, 1, 4, 0]
// CHECK-NEXT:   llvm.store %[[STRIDE0]], %[[S0]]
// CHECK-NEXT:   %[[Z0:.*]] = llvm.getelementptr inbounds %packed_local[0, 1, 3, 0]
// CHECK-NEXT:   llvm.store %[[ROWS]], %[[Z0]]
// CHECK-NEXT:   %[[EIGHT:.*]] = arith.constant 8 : i64
// CHECK-NEXT:   %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT:   %[[SBYTES:.*]] = arith.muli %[[TWO]], %[[EIGHT]] : i64
// CHECK-NEXT:   %local_arg3 = llvm.alloca %[[SBYTES]] x i8 {alignment = 64 : i64}
// CHECK-NOT:    %packed_local[0, 2
// CHECK:        func.call @"k.mux-kernel-wrapper"(%packed_local, %wi_info, %wg_info, %sched_info)
