// RUN: xmux-opt %s -p replace-local-module-scope-variables | filecheck %s

// Field layout: each field at a multiple of max(16, element alignment, the global's alignment)
// with explicit i8 padding; i1 stored as i8, index as i64; the alloca takes the largest
// alignment and local_mem_usage the struct size rounded up to it.
//   @flags 5 x i1      -> [0, 5),    pad 11
//   @idx   3 x index   -> [16, 40),  pad 24 (next alignment 64)
//   @vecs  2 x v4f32   -> [64, 96)
//   @d     1 x f64     -> [96, 104), size rounded to 64 -> 128

"memref.global"() <{sym_name = "flags", sym_visibility = "private", type = memref<5xi1, 3>, initial_value}> : () -> ()
"memref.global"() <{sym_name = "idx", sym_visibility = "private", type = memref<3xindex, 3>, initial_value}> : () -> ()
"memref.global"() <{sym_name = "vecs", sym_visibility = "private", type = memref<2xvector<4xf32>, 3>, initial_value, alignment = 64 : i64}> : () -> ()
"memref.global"() <{sym_name = "d", sym_visibility = "private", type = memref<f64, 3>, initial_value}> : () -> ()

func.func @k() attributes {mux.kernel = "entry_point"} {
  %a = memref.get_global @flags : memref<5xi1, 3>
  %b = memref.get_global @idx : memref<3xindex, 3>
  %c = memref.get_global @vecs : memref<2xvector<4xf32>, 3>
  %e = memref.get_global @d : memref<f64, 3>
  func.return
}

// CHECK:      func.func @k() attributes {mux.kernel = "entry_point", mux.local_mem_usage = 128 : i64} {
// CHECK-NEXT:   %0 = arith.constant 1 : i64
// CHECK-NEXT:   %local_guarded = llvm.alloca %0 x !llvm.array<640 x i8> {alignment = 64 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: %local_mem = llvm.getelementptr inbounds %local_guarded[256] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:   %1 = llvm.getelementptr inbounds %local_mem[0, 0]
// CHECK:        %flags = builtin.unrealized_conversion_cast %{{.*}} to memref<5xi1, 3 : i64>
// CHECK-NEXT:   %{{.*}} = llvm.getelementptr inbounds %local_mem[0, 2]
// CHECK:        %idx = builtin.unrealized_conversion_cast %{{.*}} to memref<3xindex, 3 : i64>
// CHECK-NEXT:   %{{.*}} = llvm.getelementptr inbounds %local_mem[0, 4]
// CHECK:        %vecs = builtin.unrealized_conversion_cast %{{.*}} to memref<2xvector<4xf32>, 3 : i64>
// CHECK-NEXT:   %{{.*}} = llvm.getelementptr inbounds %local_mem[0, 5]
// CHECK:        %d = builtin.unrealized_conversion_cast %{{.*}} to memref<f64, 3 : i64>
// CHECK-NEXT:   func.return
