// RUN: xmux-opt %s -p replace-local-module-scope-variables | filecheck %s

// Over 256 KiB of work-group local memory comes from the heap: aligned_alloc at the top of
// the kernel, free before its return (a worker's stack overflowed with 16 MiB). As on the
// stack, 64 KiB of guard space on each side (at most) keep a small overflow off malloc's data.

"memref.global"() <{sym_name = "big", type = memref<131072xf32, 3>, sym_visibility = "private", initial_value}> : () -> ()
func.func @k(%i: index, %v: f32) attributes {mux.kernel = "entry_point"} {
  %t = memref.get_global @big : memref<131072xf32, 3>
  memref.store %v, %t[%i] : memref<131072xf32, 3>
  func.return
}

// CHECK:      func.func @k(%i: index, %v: f32) attributes {mux.kernel = "entry_point", mux.local_mem_usage = 524288 : i64} {
// CHECK-NEXT:   %[[A:.*]] = arith.constant 16 : i64
// CHECK-NEXT:   %[[S:.*]] = arith.constant 655360 : i64
// CHECK-NEXT:   %local_guarded = func.call @aligned_alloc(%[[A]], %[[S]]) : (i64, i64) -> !llvm.ptr
// CHECK-NEXT:   %local_mem = llvm.getelementptr inbounds %local_guarded[65536] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:        memref.store %v, %big[%i] : memref<131072xf32, 3 : i64>
// CHECK-NEXT:   func.call @free(%local_guarded) : (!llvm.ptr) -> ()
// CHECK-NEXT:   func.return
// CHECK:      func.func private @aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK:      func.func private @free(!llvm.ptr) -> ()
