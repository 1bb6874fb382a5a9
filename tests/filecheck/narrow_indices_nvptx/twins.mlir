// RUN: xmux-opt %s -p record-kernel-abi,add-kernel-wrapper-nvptx,narrow-indices-nvptx | filecheck %s

// A kernel whose loop steps addresses gets 32-bit address twins of both its entries (the
// generic @mm and the read-only @mm__xmux_ro_1_2), calling a narrowed clone of the body.
// In the clone the k loop runs on i32 (bounds: 0, %n: i32, step 1: k + 1 cannot wrap), each
// access's element offset is i32 arithmetic with nsw/nuw (in bounds under the launch
// condition), sign-extended once for a load of a 1-D view of the argument; a work-item id
// is truncated. The original body keeps its 64-bit index loop.

func.func @mm(%n: i32, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %col = mux.get_global_id 0 : index
  %row = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %nk = arith.index_cast %n : i32 to index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%s = %zero) -> (f32) {
    %a = memref.load %A[%row, %k] : memref<?x?xf32>
    %b = memref.load %B[%k, %col] : memref<?x?xf32>
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %s, %p : f32
    scf.yield %t : f32
  }
  memref.store %acc, %C[%row, %col] : memref<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @"mm.mux-kernel"(
// CHECK-SAME:      passthrough = ["alwaysinline"]
// CHECK:         scf.for %k = %c0 to %nk step %c1 iter_args(%s = %zero) -> (f32) {
// CHECK-NEXT:      memref.load %A[%row, %k] : memref<?x?xf32>

// CHECK-LABEL: func.func @"mm.mux-kernel.i32"(%n: i32, %A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>)
// CHECK-SAME:      mux.kernel = "sub_kernel"
// CHECK-SAME:      passthrough = ["alwaysinline"]
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[CS0:.*]], %{{.*}} = memref.extract_strided_metadata %C
// CHECK-NEXT:    %[[CST:.*]] = arith.index_cast %[[CS0]] : index to i32
// CHECK-NEXT:    %C_flat = memref.reinterpret_cast %C to offset: [0], sizes: [2147483647], strides: [1] : memref<?x?xf32> to memref<2147483647xf32>
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BS0:.*]], %{{.*}} = memref.extract_strided_metadata %B
// CHECK-NEXT:    %[[BST:.*]] = arith.index_cast %[[BS0]] : index to i32
// CHECK-NEXT:    %B_flat = memref.reinterpret_cast %B
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:         scf.for %k = %[[ZERO]] to %n step %[[ONE]] iter_args(%s = %zero) -> (f32) : i32 {
// CHECK-NEXT:      %k_1 = arith.index_cast %k : i32 to index
// CHECK:           %[[R:.*]] = arith.index_cast %row : index to i32
// CHECK-NEXT:      %[[RA:.*]] = arith.muli %[[R]], %{{.*}} overflow<nsw,nuw> : i32
// CHECK-NEXT:      %[[OA:.*]] = arith.addi %[[RA]], %k overflow<nsw,nuw> : i32
// CHECK-NEXT:      %[[IA:.*]] = arith.index_cast %[[OA]] : i32 to index
// CHECK-NEXT:      %a = memref.load %A_flat[%[[IA]]] : memref<2147483647xf32>
// CHECK-NEXT:      %[[KB:.*]] = arith.muli %k, %[[BST]] overflow<nsw,nuw> : i32
// CHECK-NEXT:      %[[COL:.*]] = arith.index_cast %col : index to i32
// CHECK-NEXT:      %[[OB:.*]] = arith.addi %[[KB]], %[[COL]] overflow<nsw,nuw> : i32
// CHECK-NEXT:      %[[IB:.*]] = arith.index_cast %[[OB]] : i32 to index
// CHECK-NEXT:      %b = memref.load %B_flat[%[[IB]]] : memref<2147483647xf32>
// CHECK:         memref.store %acc, %C_flat[%{{.*}}] : memref<2147483647xf32>

// CHECK-LABEL: func.func @mm(
// CHECK-SAME:      mux.kernel = "entry_point"
// CHECK:         func.call @"mm.mux-kernel"(
// CHECK-LABEL: func.func @mm__xmux_i32(
// CHECK-NOT:       mux.kernel =
// CHECK-SAME:      mux.orig_fn = @"mm.mux-kernel.i32"
// CHECK-SAME:      nvvm.kernel
// CHECK:         func.call @"mm.mux-kernel.i32"(
// CHECK-LABEL: func.func @mm__xmux_ro_1_2(%n: i32, %A: !llvm.ptr {llvm.noalias}
// CHECK:         func.call @"mm.mux-kernel"(
// CHECK-LABEL: func.func @mm__xmux_ro_1_2__xmux_i32(%n: i32, %A: !llvm.ptr {llvm.noalias}
// CHECK-NOT:       mux.kernel =
// CHECK-SAME:      nvvm.kernel
// CHECK:         func.call @"mm.mux-kernel.i32"(
