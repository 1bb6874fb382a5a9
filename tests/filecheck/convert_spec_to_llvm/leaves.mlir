// RUN: xmux-opt %s -p 'convert-spec-to-llvm' | filecheck %s
// RUN: xmux-opt %s -p 'convert-spec-to-llvm{values="0=7,2=-0.5,3=false"}' | filecheck %s --check-prefix=VALUES
// RUN: xmux-opt %s -p 'convert-spec-to-llvm{declare-leaves=true}' | filecheck %s --check-prefix=DECLARED

// The host's native form: one internal constant global per leaf id holding its value (the
// default, or the values option), read with llvm.load; composites become undef +
// insertvalue (structs, arrays) or insertelement (vectors); a repeated leaf reuses the value
// of its first read in the function (%x2 is %x); the records are dropped.

spec.property "id_int" : i32 = [(0, 0, 4)]
spec.default_values "0x2A000000"

// CHECK-NOT:  spec.
// CHECK:      llvm.mlir.global internal constant @xmux.spec_constant.0(42 : i32) {addr_space = 0 : i32} : i32
// CHECK-NEXT: llvm.mlir.global internal constant @xmux.spec_constant.1(1.000000e+00 : f32) {addr_space = 0 : i32} : f32
// CHECK-NEXT: llvm.mlir.global internal constant @xmux.spec_constant.2(2.000000e+00 : f64) {addr_space = 0 : i32} : f64
// CHECK-NEXT: llvm.mlir.global internal constant @xmux.spec_constant.3(true) {addr_space = 0 : i32} : i1
// VALUES:      llvm.mlir.global internal constant @xmux.spec_constant.0(7 : i32) {addr_space = 0 : i32} : i32
// VALUES-NEXT: llvm.mlir.global internal constant @xmux.spec_constant.1(1.000000e+00 : f32) {addr_space = 0 : i32} : f32
// VALUES-NEXT: llvm.mlir.global internal constant @xmux.spec_constant.2(-5.000000e-01 : f64) {addr_space = 0 : i32} : f64
// VALUES-NEXT: llvm.mlir.global internal constant @xmux.spec_constant.3(false) {addr_space = 0 : i32} : i1
// With declare-leaves (xmux.compile's native mode) the leaves are declarations: the runtime
// links a module defining them with a value set's values; the reads are the same.
// DECLARED:      llvm.mlir.global external constant @xmux.spec_constant.0() {addr_space = 0 : i32} : i32
// DECLARED-NEXT: llvm.mlir.global external constant @xmux.spec_constant.1() {addr_space = 0 : i32} : f32
// DECLARED-NEXT: llvm.mlir.global external constant @xmux.spec_constant.2() {addr_space = 0 : i32} : f64
// DECLARED-NEXT: llvm.mlir.global external constant @xmux.spec_constant.3() {addr_space = 0 : i32} : i1
// DECLARED-LABEL: func.func @k
// DECLARED-NEXT:    %0 = llvm.mlir.addressof @xmux.spec_constant.0 : !llvm.ptr
// DECLARED-NEXT:    %x = llvm.load %0 : !llvm.ptr -> i32

// CHECK-LABEL: func.func @k
// CHECK-NEXT:    %0 = llvm.mlir.addressof @xmux.spec_constant.0 : !llvm.ptr
// CHECK-NEXT:    %x = llvm.load %0 : !llvm.ptr -> i32
// CHECK-NEXT:    %1 = llvm.mlir.addressof @xmux.spec_constant.1 : !llvm.ptr
// CHECK-NEXT:    %a = llvm.load %1 : !llvm.ptr -> f32
// CHECK-NEXT:    %2 = llvm.mlir.addressof @xmux.spec_constant.2 : !llvm.ptr
// CHECK-NEXT:    %b = llvm.load %2 : !llvm.ptr -> f64
// CHECK-NEXT:    %3 = llvm.mlir.undef : !llvm.struct<(f32, f64)>
// CHECK-NEXT:    %4 = llvm.insertvalue %a, %3[0] : !llvm.struct<(f32, f64)>
// CHECK-NEXT:    %s = llvm.insertvalue %b, %4[1] : !llvm.struct<(f32, f64)>
// CHECK-NEXT:    %5 = llvm.mlir.undef : !llvm.array<2 x !llvm.struct<(f32, f64)>>
// CHECK-NEXT:    %6 = llvm.insertvalue %s, %5[0] : !llvm.array<2 x !llvm.struct<(f32, f64)>>
// CHECK-NEXT:    %arr = llvm.insertvalue %s, %6[1] : !llvm.array<2 x !llvm.struct<(f32, f64)>>
// CHECK-NEXT:    %7 = llvm.mlir.undef : vector<2xi32>
// CHECK-NEXT:    %8 = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %9 = llvm.insertelement %x, %7[%8 : i32] : vector<2xi32>
// CHECK-NEXT:    %10 = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %v = llvm.insertelement %x, %9[%10 : i32] : vector<2xi32>
// CHECK-NEXT:    %11 = llvm.mlir.addressof @xmux.spec_constant.3 : !llvm.ptr
// CHECK-NEXT:    %f = llvm.load %11 : !llvm.ptr -> i1
// CHECK-NEXT:    func.return
func.func @k() {
  %x = spec.constant spec_id(0) = 42 : i32
  %a = spec.constant spec_id(1) = 1.0 : f32
  %b = spec.constant spec_id(2) = 2.0 : f64
  %s = spec.constant_composite %a, %b : !llvm.struct<(f32, f64)>
  %arr = spec.constant_composite %s, %s : !llvm.array<2 x struct<(f32, f64)>>
  %v = spec.constant_composite %x, %x : vector<2xi32>
  %x2 = spec.constant spec_id(0) = 42 : i32
  %f = spec.constant spec_id(3) = true
  func.return
}
