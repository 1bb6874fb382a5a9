// RUN: xmux-opt %s -p work-item-loops,replace-local-module-scope-variables | filecheck %s

// In pipeline order: the allocation lands above the work-item loop nest, so it happens once
// per work-group, not per work-item.

"memref.global"() <{sym_name = "tile", sym_visibility = "private", type = memref<8x8xf32, 3>, initial_value}> : () -> ()

func.func @k(%a: memref<?x?xf32>) attributes {mux.kernel = "entry_point"} {
  %x = mux.get_local_id 0 : index
  %y = mux.get_local_id 1 : index
  %t = memref.get_global @tile : memref<8x8xf32, 3>
  %v = memref.load %a[%y, %x] : memref<?x?xf32>
  memref.store %v, %t[%y, %x] : memref<8x8xf32, 3>
  func.return
}

// CHECK:      func.func @k(%a: memref<?x?xf32>) attributes {mux.kernel = "entry_point", mux.local_mem_usage = 256 : i64} {
// CHECK-NEXT:   %0 = arith.constant 1 : i64
// CHECK-NEXT:   %local_guarded = llvm.alloca %0 x !llvm.array<768 x i8> {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: %local_mem = llvm.getelementptr inbounds %local_guarded[256] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:        %tile = builtin.unrealized_conversion_cast %{{.*}} to memref<8x8xf32, 3 : i64>
// CHECK-NOT:    llvm.alloca
// CHECK:        scf.for
// CHECK-NOT:    llvm.alloca
// CHECK:          memref.store %v, %tile[%{{.*}}, %{{.*}}] : memref<8x8xf32, 3 : i64>
// CHECK:        } {mux.work_item_loop}
