// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// memref.alloc never hands on a bad pointer (mutation fuzzer: memref.alloc(%n), %n = 2^62,
// segfaulted xmux-run): a NULL from malloc branches to a block that calls xmux_alloc_failed
// and returns from the function; the descriptor is built on the other edge.

// A static shape: no size checks, only the NULL test (malloc(32) cannot be empty).
func.func @static() {
  %s = memref.alloc() : memref<8xf32>
  return
}
// CHECK-LABEL: llvm.func internal @static()
// CHECK-NEXT:    %[[N:.*]] = llvm.mlir.constant(32) : i64
// CHECK-NEXT:    %[[P:.*]] = llvm.call @malloc(%[[N]]) : (i64) -> !llvm.ptr
// CHECK-NEXT:    %[[A:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr to i64
// CHECK-NEXT:    %[[Z:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %[[NULL:.*]] = llvm.icmp "eq" %[[A]], %[[Z]] : i64
// CHECK-NEXT:    llvm.cond_br %[[NULL]], ^[[FAIL:.*]], ^[[OK:.*]]
// CHECK-NEXT:  ^[[FAIL]]:
// CHECK-NEXT:    %[[MSG:.*]] = llvm.mlir.addressof @[[STR:.*]] : !llvm.ptr
// CHECK-NEXT:    %[[NO:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:    %[[S0:.*]] = llvm.mlir.constant(8) : i64
// CHECK-NEXT:    %[[NONE:.*]] = llvm.mlir.constant(-1) : i64
// CHECK-NEXT:    %[[RANK:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:    llvm.call @xmux_alloc_failed(%[[MSG]], %[[N]], %[[NO]], %[[RANK]], %[[S0]], %[[NONE]], %[[NONE]])
// CHECK-NEXT:    llvm.return
// CHECK-NEXT:  ^[[OK]]:
// CHECK-NEXT:    llvm.mlir.undef
// CHECK-NEXT:    llvm.insertvalue %[[P]]

// Two dynamic sizes and an alignment: sizes not negative, n·k checked by a division,
// the byte count and its alignment padding below 2^63; any of them asks for SIZE_MAX.
// The aligned pointer is computed on the success edge only. A function with a result
// returns zero on the failure edge.
func.func @dynamic(%n: index, %k: index) -> memref<?x?xf32> {
  %m = memref.alloc(%n, %k) {alignment = 64} : memref<?x?xf32>
  return %m : memref<?x?xf32>
}
// CHECK:       llvm.func internal @dynamic(%[[N:[^:]+]]: i64, %[[K:[^:]+]]: i64)
// CHECK:         llvm.icmp "slt" %[[N]]
// CHECK:         llvm.icmp "slt" %[[K]]
// CHECK:         %[[KNZ:.*]] = llvm.icmp "ne" %[[K]]
// CHECK:         %[[DIV:.*]] = llvm.select %[[KNZ]], %[[K]]
// CHECK:         %[[BOUND:.*]] = llvm.udiv %{{.*}}, %[[DIV]] : i64
// CHECK-NEXT:    llvm.icmp "ugt" %[[N]], %[[BOUND]] : i64
// CHECK:         %[[NK:.*]] = llvm.mul %[[N]], %[[K]] overflow<nsw> : i64
// CHECK:         %[[BYTES:.*]] = llvm.mul %[[NK]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    llvm.mlir.constant(9223372036854775744) : i64
// CHECK-NEXT:    llvm.icmp "ugt" %[[BYTES]]
// CHECK:         %[[BAD:.*]] = llvm.select
// CHECK-NEXT:    llvm.mlir.constant(63) : i64
// CHECK-NEXT:    %[[PADDED:.*]] = llvm.add %[[BYTES]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[MAX:.*]] = llvm.mlir.constant(-1) : i64
// CHECK-NEXT:    %[[REQ:.*]] = llvm.select %[[BAD]], %[[MAX]], %[[PADDED]] : i1, i64
// CHECK-NEXT:    %[[P:.*]] = llvm.call @malloc(%[[REQ]])
// CHECK:         %[[NULL:.*]] = llvm.icmp "eq"
// malloc(0) may give NULL: only a non-empty request failed
// CHECK:         %[[NONEMPTY:.*]] = llvm.icmp "ne" %[[REQ]]
// CHECK-NEXT:    %[[FAILED:.*]] = llvm.and %[[NULL]], %[[NONEMPTY]] : i1
// CHECK-NEXT:    llvm.cond_br %[[FAILED]], ^[[FAIL:.*]], ^[[OK:.*]]
// CHECK-NEXT:  ^[[FAIL]]:
// CHECK:         %[[OVF:.*]] = llvm.zext %[[BAD]] : i1 to i64
// CHECK:         llvm.call @xmux_alloc_failed(%{{.*}}, %[[REQ]], %[[OVF]], %{{.*}}, %[[N]], %[[K]], %{{.*}})
// CHECK-NEXT:    %[[ZERO:.*]] = llvm.mlir.zero : !llvm.struct
// CHECK-NEXT:    llvm.return %[[ZERO]]
// CHECK-NEXT:  ^[[OK]]:
// CHECK-NEXT:    llvm.ptrtoint %[[P]]

// The message names the op, its result, the function and (when the source has one) the
// location.
func.func @located(%n: index) {
  %buf = memref.alloc(%n) : memref<?xf64> loc("prog.mlir":12:10)
  return
}
// CHECK:      llvm.func @xmux_alloc_failed(!llvm.ptr, i64, i64, i64, i64, i64, i64)
// CHECK-DAG:  @{{.*}}("'memref.alloc' of %s in @static: memref<8xf32>\00")
// CHECK-DAG:  @{{.*}}("'memref.alloc' of %m in @dynamic: memref<?x?xf32>\00")
// CHECK-DAG:  @{{.*}}("'memref.alloc' of %buf in @located at prog.mlir:12:10: memref<?xf64>\00")

