// RUN: xmux-opt %s -p replace-local-module-scope-variables | filecheck %s

// 1-D, 3-D and rank-0 locals: the descriptors carry the static sizes and identity strides;
// every field starts 16-byte aligned: 13 f32 (52 bytes) + 12 bytes padding, 2*3*8 i32 at 64,
// the f64 at 256, 272 bytes in all.

"memref.global"() <{sym_name = "l1", sym_visibility = "private", type = memref<13xf32, 3>, initial_value}> : () -> ()
"memref.global"() <{sym_name = "l3", sym_visibility = "private", type = memref<2x3x8xi32, 3>, initial_value}> : () -> ()
"memref.global"() <{sym_name = "l0", sym_visibility = "private", type = memref<f64, 3>, initial_value}> : () -> ()

func.func @k() attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %a = memref.get_global @l1 : memref<13xf32, 3>
  %b = memref.get_global @l3 : memref<2x3x8xi32, 3>
  %c = memref.get_global @l0 : memref<f64, 3>
  %v = memref.load %a[%c0] : memref<13xf32, 3>
  %w = memref.load %b[%c0, %c0, %c0] : memref<2x3x8xi32, 3>
  %z = memref.load %c[] : memref<f64, 3>
  func.return
}

// CHECK:      func.func @k() attributes {mux.kernel = "entry_point", mux.local_mem_usage = 272 : i64} {
// CHECK-NEXT:   %0 = arith.constant 1 : i64
// CHECK-NEXT:   %local_guarded = llvm.alloca %0 x !llvm.array<816 x i8> {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: %local_mem = llvm.getelementptr inbounds %local_guarded[272] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:   %1 = llvm.getelementptr inbounds %local_mem[0, 0] : {{.*}}
// CHECK-NEXT:   %2 = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
// CHECK-NEXT:   %3 = llvm.insertvalue %1, %2[0]
// CHECK-NEXT:   %4 = llvm.insertvalue %1, %3[1]
// CHECK-NEXT:   %5 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %6 = llvm.insertvalue %5, %4[2]
// CHECK-NEXT:   %7 = llvm.mlir.constant(13) : i64
// CHECK-NEXT:   %8 = llvm.insertvalue %7, %6[3, 0]
// CHECK-NEXT:   %9 = llvm.mlir.constant(1) : i64
// CHECK-NEXT:   %10 = llvm.insertvalue %9, %8[4, 0]
// CHECK-NEXT:   %l1 = builtin.unrealized_conversion_cast %10 : {{.*}} to memref<13xf32, 3 : i64>
// CHECK-NEXT:   %11 = llvm.getelementptr inbounds %local_mem[0, 2] : {{.*}}
// CHECK-NEXT:   %12 = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<3 x i64>, !llvm.array<3 x i64>)>
// CHECK-NEXT:   %13 = llvm.insertvalue %11, %12[0]
// CHECK-NEXT:   %14 = llvm.insertvalue %11, %13[1]
// CHECK-NEXT:   %15 = llvm.insertvalue %5, %14[2]
// CHECK-NEXT:   %16 = llvm.mlir.constant(2) : i64
// CHECK-NEXT:   %17 = llvm.insertvalue %16, %15[3, 0]
// CHECK-NEXT:   %18 = llvm.mlir.constant(3) : i64
// CHECK-NEXT:   %19 = llvm.insertvalue %18, %17[3, 1]
// CHECK-NEXT:   %20 = llvm.mlir.constant(8) : i64
// CHECK-NEXT:   %21 = llvm.insertvalue %20, %19[3, 2]
// CHECK-NEXT:   %22 = llvm.mlir.constant(24) : i64
// CHECK-NEXT:   %23 = llvm.insertvalue %22, %21[4, 0]
// CHECK-NEXT:   %24 = llvm.insertvalue %20, %23[4, 1]
// CHECK-NEXT:   %25 = llvm.insertvalue %9, %24[4, 2]
// CHECK-NEXT:   %l3 = builtin.unrealized_conversion_cast %25 : {{.*}} to memref<2x3x8xi32, 3 : i64>
// CHECK-NEXT:   %26 = llvm.getelementptr inbounds %local_mem[0, 3] : {{.*}}
// CHECK-NEXT:   %27 = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>
// CHECK-NEXT:   %28 = llvm.insertvalue %26, %27[0]
// CHECK-NEXT:   %29 = llvm.insertvalue %26, %28[1]
// CHECK-NEXT:   %30 = llvm.insertvalue %5, %29[2]
// CHECK-NEXT:   %l0 = builtin.unrealized_conversion_cast %30 : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64)> to memref<f64, 3 : i64>
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %v = memref.load %l1[%c0] : memref<13xf32, 3 : i64>
// CHECK-NEXT:   %w = memref.load %l3[%c0, %c0, %c0] : memref<2x3x8xi32, 3 : i64>
// CHECK-NEXT:   %z = memref.load %l0[] : memref<f64, 3 : i64>
// CHECK-NEXT:   func.return
