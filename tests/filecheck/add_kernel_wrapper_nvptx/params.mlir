// RUN: xmux-opt %s -p add-kernel-wrapper-nvptx | filecheck %s

// The PTX entry @k takes each argument flattened (abi/nvptx_abi.py): a memref as its
// aligned pointer, offset, sizes and strides; a local-memory memref as a byte offset into the
// dynamic shared memory; index as i64, i1 as i8; then the 16 fields of the launch record. It
// rebuilds the descriptors and the record and calls the kernel, renamed @"k.mux-kernel".
// %a, its one global memref, is only read: its pointer is noalias (read_only.mlir).

func.func @k(%a: memref<?x4xf32>, %t: memref<?xf32, 3>, %n: index, %flag: i1,
             %launch: !llvm.array<16 x i64>)
    attributes {mux.kernel = "entry_point", mux.scheduling_params,
                mux.reqd_work_group_size = array<i64: 64, 1, 1>} {
  func.return
}

// CHECK-LABEL: func.func @"k.mux-kernel"(%a: memref<?x4xf32>, %t: memref<?xf32, 3 : i64>, %n: index, %flag: i1, %launch: !llvm.array<16 x i64>)
// CHECK-SAME:      mux.kernel = "sub_kernel"
// CHECK-LABEL: func.func @k(%a: !llvm.ptr {llvm.noalias}, %0: i64, %1: i64, %2: i64, %3: i64, %4: i64, %t: i64, %5: i64, %6: i64, %7: i64, %n: i64, %flag: i8, %8: i64,
// CHECK-SAME:      %23: i64)
// CHECK-SAME:      mux.kernel = "entry_point"
// CHECK-SAME:      mux.base_name = "k"
// CHECK-SAME:      mux.orig_fn = @"k.mux-kernel"
// CHECK-SAME:      mux.reqd_work_group_size = array<i64: 64, 1, 1>
// CHECK-SAME:      nvvm.kernel
// CHECK-NEXT:    %24 = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT:    %25 = llvm.insertvalue %a, %24[0]
// CHECK-NEXT:    %26 = llvm.insertvalue %a, %25[1]
// CHECK-NEXT:    %27 = llvm.insertvalue %0, %26[2]
// CHECK-NEXT:    %28 = llvm.insertvalue %1, %27[3, 0]
// CHECK-NEXT:    %29 = llvm.insertvalue %3, %28[4, 0]
// CHECK-NEXT:    %30 = llvm.insertvalue %2, %29[3, 1]
// CHECK-NEXT:    %31 = llvm.insertvalue %4, %30[4, 1]
// CHECK-NEXT:    %32 = builtin.unrealized_conversion_cast %31 : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)> to memref<?x4xf32>
// CHECK-NEXT:    %33 = llvm.mlir.addressof @__xmux_dynamic_shared : !llvm.ptr<3>
// CHECK-NEXT:    %34 = llvm.addrspacecast %33 : !llvm.ptr<3> to !llvm.ptr
// CHECK-NEXT:    %35 = llvm.getelementptr %34[%t] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)> to memref<?xf32, 3 : i64>
// CHECK-NEXT:    %[[N:.*]] = arith.index_cast %n : i64 to index
// CHECK-NEXT:    %[[FLAG:.*]] = arith.trunci %flag : i8 to i1
// CHECK-NEXT:    %[[R0:.*]] = llvm.mlir.undef : !llvm.array<16 x i64>
// CHECK-NEXT:    %{{.*}} = llvm.insertvalue %8, %[[R0]][0] : !llvm.array<16 x i64>
// CHECK:         %[[R:.*]] = llvm.insertvalue %23, %{{.*}}[15] : !llvm.array<16 x i64>
// CHECK-NEXT:    func.call @"k.mux-kernel"(%32, %{{.*}}, %[[N]], %[[FLAG]], %[[R]])
// CHECK-NEXT:    func.return
// CHECK:       llvm.mlir.global external @__xmux_dynamic_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
