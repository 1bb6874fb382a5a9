// RUN: xmux-opt %s -p replace-local-module-scope-variables | filecheck %s

// A 2-D local tile used inside the work-item loops: one alloca at the top of the kernel (once
// per work-group), one view built there, the get_global inside the loops replaced by it.

"memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<16x16xf32, 3>, initial_value}> : () -> ()

func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %y = %c0 to %c16 step %c1 {
    scf.for %x = %c0 to %c16 step %c1 {
      %t = memref.get_global @tile : memref<16x16xf32, 3>
      %v = memref.load %a[%x] : memref<?xf32>
      memref.store %v, %t[%y, %x] : memref<16x16xf32, 3>
    } {mux.work_item_loop}
  }
  func.return
}

// CHECK:      builtin.module {
// CHECK-NOT:  memref.global
// CHECK-NEXT:   func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.local_mem_usage = 1024 : i64} {
// CHECK-NEXT:     %0 = arith.constant 1 : i64
// CHECK-NEXT:     %local_guarded = llvm.alloca %0 x !llvm.array<3072 x i8> {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: %local_mem = llvm.getelementptr inbounds %local_guarded[1024] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:     %1 = llvm.getelementptr inbounds %local_mem[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(!llvm.array<256 x f32>)>
// CHECK-NEXT:     %2 = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT:     %3 = llvm.insertvalue %1, %2[0] : [[DESC:!llvm.struct<\(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>\)>]]
// CHECK-NEXT:     %4 = llvm.insertvalue %1, %3[1] : [[DESC]]
// CHECK-NEXT:     %5 = llvm.mlir.constant(0) : i64
// CHECK-NEXT:     %6 = llvm.insertvalue %5, %4[2] : [[DESC]]
// CHECK-NEXT:     %7 = llvm.mlir.constant(16) : i64
// CHECK-NEXT:     %8 = llvm.insertvalue %7, %6[3, 0] : [[DESC]]
// CHECK-NEXT:     %9 = llvm.insertvalue %7, %8[3, 1] : [[DESC]]
// CHECK-NEXT:     %10 = llvm.insertvalue %7, %9[4, 0] : [[DESC]]
// CHECK-NEXT:     %11 = llvm.mlir.constant(1) : i64
// CHECK-NEXT:     %12 = llvm.insertvalue %11, %10[4, 1] : [[DESC]]
// CHECK-NEXT:     %tile = builtin.unrealized_conversion_cast %12 : [[DESC]] to memref<16x16xf32, 3 : i64>
// CHECK-NEXT:     %c0 = arith.constant 0 : index
// CHECK-NEXT:     %c1 = arith.constant 1 : index
// CHECK-NEXT:     %c16 = arith.constant 16 : index
// CHECK-NEXT:     scf.for %y = %c0 to %c16 step %c1 {
// CHECK-NEXT:       scf.for %x = %c0 to %c16 step %c1 {
// CHECK-NEXT:         %v = memref.load %a[%x] : memref<?xf32>
// CHECK-NEXT:         memref.store %v, %tile[%y, %x] : memref<16x16xf32, 3 : i64>
// CHECK-NEXT:       } {mux.work_item_loop}
// CHECK-NEXT:     }
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
// CHECK-NEXT: }
