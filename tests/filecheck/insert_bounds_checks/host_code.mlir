// RUN: xmux-opt %s -p insert-bounds-checks | filecheck %s
// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s --check-prefix=PLAIN

// Host code (@main and what it calls, not reached from a kernel) is checked too: a failure
// calls xmux_host_check_failed (message, rank, indices, sizes; no work-item ids), which stops
// the host function (runtime/host_symbols.py). Kernels keep xmux_check_failed with the ids.
// Mutation fuzzer: a host store at index 2^32 (or a loop with step -2^31-1) segfaulted
// xmux-run --checks.

func.func @k(%a: memref<?xf32>, %i: index) attributes {mux.kernel = "entry_point"} {
  %v = memref.load %a[%i] : memref<?xf32>
  func.return
}

func.func @fill(%w: memref<9xf32>, %j: index) {
  %f = arith.constant 1.0 : f32
  memref.store %f, %w[%j] : memref<9xf32>
  func.return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %big = arith.constant 4294967296 : index
  %w = memref.alloc() : memref<9xf32>
  func.call @fill(%w, %big) : (memref<9xf32>, index) -> ()
  %v = memref.load %w[%c0] : memref<9xf32>
  func.return
}

// CHECK:      func.func @k(
// CHECK:        func.call @xmux_check_failed(
// CHECK:      func.func @fill(%w: memref<9xf32>, %j: index) {
// CHECK-NEXT:   %f = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   %[[S:.*]] = arith.constant 9 : index
// CHECK-NEXT:   %[[OK:.*]] = arith.cmpi ult, %j, %[[S]] : index
// CHECK-NEXT:   scf.if %[[OK]] {
// CHECK-NEXT:     memref.store %f, %w[%j] : memref<9xf32>
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %[[MSG:.*]] = llvm.mlir.addressof @xmux.check.{{[0-9]+}} : !llvm.ptr
// CHECK-NEXT:     %[[RANK:.*]] = arith.constant 1 : i64
// CHECK-NEXT:     %[[J:.*]] = arith.index_cast %j : index to i64
// CHECK-NEXT:     %[[NO:.*]] = arith.constant -1 : i64
// CHECK-NEXT:     %[[SZ:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK-NEXT:     %[[NO2:.*]] = arith.constant -1 : i64
// CHECK-NEXT:     func.call @xmux_host_check_failed(%[[MSG]], %[[RANK]], %[[J]], %[[NO]], %[[NO]], %[[SZ]], %[[NO2]], %[[NO2]]) : (!llvm.ptr, i64, i64, i64, i64, i64, i64, i64) -> ()
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
// CHECK:      func.func @main() {
// CHECK-NOT:    mux.get_local_id
// CHECK:        scf.if
// CHECK:          memref.load %w[%c0] : memref<9xf32>
// CHECK:          func.call @xmux_host_check_failed(
// CHECK-DAG:  @xmux.check.{{[0-9]+}}("host function @fill: 'memref.store' out of bounds of memref<9xf32>\00")
// CHECK-DAG:  @xmux.check.{{[0-9]+}}("host function @main: 'memref.load' out of bounds of memref<9xf32>\00")
// CHECK-DAG:  func.func private @xmux_check_failed(!llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-DAG:  func.func private @xmux_host_check_failed(!llvm.ptr, i64, i64, i64, i64, i64, i64, i64)

// Without the checking mode host accesses stay plain (out of bounds is undefined there):
// the store of @fill is one GEP and a store, nothing compared.
// PLAIN:      llvm.func internal @fill(
// PLAIN-NOT:    llvm.icmp
// PLAIN-NOT:    xmux_host_check_failed
// PLAIN:        llvm.getelementptr inbounds
// PLAIN-NEXT:   llvm.store
// PLAIN-NEXT:   llvm.return
