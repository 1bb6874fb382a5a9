// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// D = !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>

// Static strides/offset of the layout are constants, dynamic ones come from the descriptor:
// aligned + 3 + i * stride0 + j * 2, one inbounds GEP.
func.func @load_strided(%a: memref<?x8xf32, strided<[?, 2], offset: 3>>, %i: index, %j: index) -> f32 {
  %x = memref.load %a[%i, %j] : memref<?x8xf32, strided<[?, 2], offset: 3>>
  return %x : f32
}
// CHECK:      llvm.func internal @load_strided(%[[A:.*]]: !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>, %[[I:.*]]: i64, %[[J:.*]]: i64) -> f32 {
// CHECK-NEXT:   %[[S0:.*]] = llvm.extractvalue %[[A]][4, 0]
// CHECK-NEXT:   %[[T0:.*]] = llvm.mul %[[I]], %[[S0]] overflow<nsw> : i64
// CHECK-NEXT:   %[[OFF:.*]] = llvm.mlir.constant(3) : i64
// CHECK-NEXT:   %[[L0:.*]] = llvm.add %[[OFF]], %[[T0]] overflow<nsw> : i64
// CHECK-NEXT:   %[[S1:.*]] = llvm.mlir.constant(2) : i64
// CHECK-NEXT:   %[[T1:.*]] = llvm.mul %[[J]], %[[S1]] overflow<nsw> : i64
// CHECK-NEXT:   %[[L1:.*]] = llvm.add %[[L0]], %[[T1]] overflow<nsw> : i64
// CHECK-NEXT:   %[[BASE:.*]] = llvm.extractvalue %[[A]][1]
// CHECK-NEXT:   %[[P:.*]] = llvm.getelementptr inbounds %[[BASE]][%[[L1]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   %[[X:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK-NEXT:   llvm.return %[[X]] : f32

// alloc: malloc(n * 4 * sizeof(i16)), descriptor with row-major strides [4, 1]. A negative
// size or a byte count above 2^63-1 (checked on the operands: 2^63-1 / 4 and / 8) asks for
// SIZE_MAX; a NULL result calls xmux_alloc_failed and returns (alloc_checks.mlir).
func.func @alloc(%n: index) -> memref<?x4xi16> {
  %m = memref.alloc(%n) : memref<?x4xi16>
  return %m : memref<?x4xi16>
}
// CHECK:      llvm.func internal @alloc(%[[N:.*]]: i64)
// CHECK:        %[[NEG:.*]] = llvm.icmp "slt" %[[N]], %{{.*}} : i64
// CHECK-NEXT:   %[[MAXN:.*]] = llvm.mlir.constant(2305843009213693951) : i64
// CHECK-NEXT:   %[[BIGN:.*]] = llvm.icmp "ugt" %[[N]], %[[MAXN]] : i64
// CHECK:        %[[BAD0:.*]] = llvm.select %[[NEG]], %{{.*}}, %[[BIGN]] : i1, i1
// CHECK-NEXT:   %[[C4:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:   %[[NUM:.*]] = llvm.mul %[[N]], %[[C4]] overflow<nsw> : i64
// CHECK-NEXT:   %[[MAXB:.*]] = llvm.mlir.constant(4611686018427387903) : i64
// CHECK-NEXT:   %[[BIGB:.*]] = llvm.icmp "ugt" %[[NUM]], %[[MAXB]] : i64
// CHECK:        %[[BAD:.*]] = llvm.select %[[BAD0]], %{{.*}}, %[[BIGB]] : i1, i1
// CHECK-NEXT:   %[[C2:.*]] = llvm.mlir.constant(2) : i64
// CHECK-NEXT:   %[[BYTES:.*]] = llvm.mul %[[NUM]], %[[C2]] overflow<nsw> : i64
// CHECK-NEXT:   %[[ALL:.*]] = llvm.mlir.constant(-1) : i64
// CHECK-NEXT:   %[[REQ:.*]] = llvm.select %[[BAD]], %[[ALL]], %[[BYTES]] : i1, i64
// CHECK-NEXT:   %[[P:.*]] = llvm.call @malloc(%[[REQ]]) : (i64) -> !llvm.ptr
// CHECK:        llvm.cond_br %{{.*}}, ^[[FAIL:.*]], ^[[OK:.*]]
// CHECK-NEXT: ^[[FAIL]]:
// CHECK:        llvm.call @xmux_alloc_failed(
// CHECK:        llvm.return %{{.*}}
// CHECK-NEXT: ^[[OK]]:
// CHECK-NEXT:   %[[D0:.*]] = llvm.mlir.undef
// CHECK-NEXT:   %[[D1:.*]] = llvm.insertvalue %[[P]], %[[D0]][0]
// CHECK-NEXT:   %[[D2:.*]] = llvm.insertvalue %[[P]], %[[D1]][1]
// CHECK-NEXT:   %[[Z:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %[[D3:.*]] = llvm.insertvalue %[[Z]], %[[D2]][2]
// CHECK-NEXT:   %[[D4:.*]] = llvm.insertvalue %[[N]], %[[D3]][3, 0]
// CHECK-NEXT:   %[[SZ1:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:   %[[D5:.*]] = llvm.insertvalue %[[SZ1]], %[[D4]][3, 1]
// CHECK-NEXT:   %[[ST0:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:   %[[D6:.*]] = llvm.insertvalue %[[ST0]], %[[D5]][4, 0]
// CHECK-NEXT:   %[[ST1:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:   %[[D7:.*]] = llvm.insertvalue %[[ST1]], %[[D6]][4, 1]
// CHECK-NEXT:   llvm.return %[[D7]]

// Static allocas go to the top of the entry block (where SROA and mem2reg see them).
func.func @alloca_is_hoisted(%v: f32, %c: i1) {
  scf.if %c {
    %p = memref.alloca() : memref<3xf32>
    %c0 = arith.constant 0 : index
    memref.store %v, %p[%c0] : memref<3xf32>
  }
  return
}
// CHECK:      llvm.func internal @alloca_is_hoisted(%{{.*}}: f32, %[[C:.*]]: i1) {
// CHECK-NEXT:   %[[THREE:.*]] = llvm.mlir.constant(3) : i64
// CHECK-NEXT:   %{{.*}} = llvm.alloca %[[THREE]] x f32 {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT:   llvm.cond_br %[[C]], ^bb1, ^bb2

// Rank-reducing dynamic subview: offset = o * stride0 + 4, size %s, stride 3 (static in the
// result type).
func.func @subview(%a: memref<?x?xf32>, %o: index, %s: index) -> memref<?xf32, strided<[3], offset: ?>> {
  %v = memref.subview %a[%o, 4] [1, %s] [1, 3] : memref<?x?xf32> to memref<?xf32, strided<[3], offset: ?>>
  return %v : memref<?xf32, strided<[3], offset: ?>>
}
// CHECK:      llvm.func internal @subview(%[[A:.*]]: !llvm.struct<{{.*}}>, %[[O:.*]]: i64, %[[S:.*]]: i64)
// CHECK-NEXT:   %[[ST0:.*]] = llvm.extractvalue %[[A]][4, 0]
// CHECK-NEXT:   %[[T:.*]] = llvm.mul %[[O]], %[[ST0]] overflow<nsw> : i64
// CHECK-NEXT:   %[[FOUR:.*]] = llvm.mlir.constant(4) : i64
// CHECK-NEXT:   %[[OFF:.*]] = llvm.add %[[T]], %[[FOUR]] overflow<nsw> : i64
// CHECK-NEXT:   %[[AL:.*]] = llvm.extractvalue %[[A]][0]
// CHECK-NEXT:   %[[AG:.*]] = llvm.extractvalue %[[A]][1]
// CHECK-NEXT:   %[[D0:.*]] = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
// CHECK-NEXT:   %[[D1:.*]] = llvm.insertvalue %[[AL]], %[[D0]][0]
// CHECK-NEXT:   %[[D2:.*]] = llvm.insertvalue %[[AG]], %[[D1]][1]
// CHECK-NEXT:   %[[D3:.*]] = llvm.insertvalue %[[OFF]], %[[D2]][2]
// CHECK-NEXT:   %[[D4:.*]] = llvm.insertvalue %[[S]], %[[D3]][3, 0]
// CHECK-NEXT:   %[[THREE:.*]] = llvm.mlir.constant(3) : i64
// CHECK-NEXT:   %[[D5:.*]] = llvm.insertvalue %[[THREE]], %[[D4]][4, 0]
// CHECK-NEXT:   llvm.return %[[D5]]

// Cast to unranked: (rank, pointer to a stack copy of the descriptor), as the runner utils take.
func.func @unranked(%a: memref<2x3xf64>) {
  %u = "memref.cast"(%a) : (memref<2x3xf64>) -> memref<*xf64>
  func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()
  return
}
func.func private @printMemrefF64(memref<*xf64>)
// CHECK:      llvm.func internal @unranked(%[[A:.*]]: !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>) {
// CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:   %[[SLOT:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT:   llvm.store %[[A]], %[[SLOT]]
// CHECK-NEXT:   %[[U0:.*]] = llvm.mlir.undef : !llvm.struct<(i64, !llvm.ptr)>
// CHECK-NEXT:   %[[RANK:.*]] = llvm.mlir.constant(2) : i64
// CHECK-NEXT:   %[[U1:.*]] = llvm.insertvalue %[[RANK]], %[[U0]][0] : !llvm.struct<(i64, !llvm.ptr)>
// CHECK-NEXT:   %[[U2:.*]] = llvm.insertvalue %[[SLOT]], %[[U1]][1] : !llvm.struct<(i64, !llvm.ptr)>
// CHECK-NEXT:   llvm.call @printMemrefF64(%[[U2]]) : (!llvm.struct<(i64, !llvm.ptr)>) -> ()

// Globals become flat arrays; get_global builds a static descriptor around the address.
"memref.global"() <{sym_name = "lut", sym_visibility = "private", type = memref<2x2xf32>,
    initial_value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>, constant}> : () -> ()
func.func @read_lut(%i: index) -> f32 {
  %g = memref.get_global @lut : memref<2x2xf32>
  %x = memref.load %g[%i, %i] : memref<2x2xf32>
  return %x : f32
}
// CHECK:      llvm.mlir.global internal constant @lut(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>) {addr_space = 0 : i32} : !llvm.array<4 x f32>
// CHECK:      llvm.func internal @read_lut(%{{.*}}: i64) -> f32 {
// CHECK-NEXT:   %[[G:.*]] = llvm.mlir.addressof @lut : !llvm.ptr
// CHECK-NEXT:   llvm.mlir.undef
// CHECK-NEXT:   llvm.insertvalue %[[G]], %{{.*}}[0]
// CHECK-NEXT:   llvm.insertvalue %[[G]], %{{.*}}[1]

// Atomic read-modify-write: a relaxed llvm.atomicrmw, or a relaxed cmpxchg loop where LLVM has none
// (its first read an atomic load). tests/filecheck/convert_to_llvm/atomics.mlir has the rest.
func.func @atomics(%m: memref<?xf32>, %i: index, %v: f32) -> f32 {
  %a = "memref.atomic_rmw"(%v, %m, %i) <{kind = 0 : i64}> : (f32, memref<?xf32>, index) -> f32
  %b = "memref.atomic_rmw"(%v, %m, %i) <{kind = 9 : i64}> : (f32, memref<?xf32>, index) -> f32
  return %b : f32
}
// CHECK:      llvm.func internal @atomics(
// CHECK:        %[[P:.*]] = llvm.getelementptr inbounds
// CHECK-NEXT:   %{{.*}} = llvm.atomicrmw fadd %[[P]], %[[V:.*]] monotonic : !llvm.ptr, f32
// CHECK:        %[[P2:.*]] = llvm.getelementptr inbounds
// CHECK-NEXT:   %[[INIT:.*]] = llvm.load %[[P2]] atomic monotonic {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT:   llvm.br ^bb1(%[[INIT]] : f32)
// CHECK-NEXT: ^bb1(%[[OLD:.*]]: f32):
// CHECK-NEXT:   %[[NEW:.*]] = llvm.fmul %[[OLD]], %[[V]] : f32
// CHECK-NEXT:   %[[OLDI:.*]] = llvm.bitcast %[[OLD]] : f32 to i32
// CHECK-NEXT:   %[[NEWI:.*]] = llvm.bitcast %[[NEW]] : f32 to i32
// CHECK-NEXT:   %[[PAIR:.*]] = llvm.cmpxchg %[[P2]], %[[OLDI]], %[[NEWI]] monotonic monotonic : !llvm.ptr, i32
// CHECK-NEXT:   %[[SEENI:.*]] = llvm.extractvalue %[[PAIR]][0] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:   %[[OK:.*]] = llvm.extractvalue %[[PAIR]][1] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:   %[[SEEN:.*]] = llvm.bitcast %[[SEENI]] : i32 to f32
// CHECK-NEXT:   llvm.cond_br %[[OK]], ^bb2, ^bb1(%[[SEEN]] : f32)
// CHECK-NEXT: ^bb2:
// CHECK-NEXT:   llvm.return %[[OLD]] : f32

// Descriptors built by earlier passes and cast to memrefs: the cast folds away.
func.func @from_descriptor(%d: !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>) -> f32 {
  %m = builtin.unrealized_conversion_cast %d : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)> to memref<4xf32, 3>
  %c1 = arith.constant 1 : index
  %x = memref.load %m[%c1] : memref<4xf32, 3>
  return %x : f32
}
// CHECK:      llvm.func internal @from_descriptor(%[[D:.*]]: !llvm.struct<{{.*}}>) -> f32 {
// CHECK-NEXT:   %[[C1:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT:   %[[B:.*]] = llvm.extractvalue %[[D]][1]
// CHECK-NEXT:   llvm.getelementptr inbounds %[[B]][%[[C1]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NOT:  unrealized_conversion_cast

// malloc is declared once, at the end.
// CHECK:      llvm.func @malloc(i64) -> !llvm.ptr
