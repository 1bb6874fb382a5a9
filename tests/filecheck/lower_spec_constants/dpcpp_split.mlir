// RUN: xmux-opt %s -p 'lower-spec-constants' | filecheck %s

// Ported from sycl-post-link's spec_const_and_split.ll (-split=kernel): each kernel records
// what it reads, in order of first use among the functions it reaches, in module order (its
// own module's order when split): KERNEL_AAA reads S (through @helper, defined first), then
// SpecConst and SpecConst2; KERNEL_BBB SpecConst; KERNEL_CCC nothing (no attribute). @unrelated, which no
// kernel calls, reads SpecConst2 first in the whole module, so it gets id 0 there, but no
// kernel's order changes. Program.kernel_property_sets renumbers per kernel from this.

// CHECK:      spec.property "SpecConst2" : i1 = [(0, 0, 1)]
// CHECK-NEXT: spec.property "S" : !llvm.struct<(f32, i8)> = [(1, 0, 4), (2, 4, 1), (padding, 5, 3)]
// CHECK-NEXT: spec.property "SpecConst" : i32 = [(3, 0, 4)]
// CHECK: func.func @KERNEL_AAA({{.*}}spec.used_constants = ["S", "SpecConst", "SpecConst2"]
// CHECK: func.func @KERNEL_BBB({{.*}}spec.used_constants = ["SpecConst"]
// CHECK: func.func @KERNEL_CCC(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {

spec.specialization_id @d1 = 7 : i32
spec.specialization_id @d2 = true
spec.specialization_id @d3 = [1.5 : f32, 2 : i8] : !llvm.struct<(f32, i8)>
func.func @unrelated() -> i1 {
  %b = spec.get_scalar "SpecConst2", @d2 : i1
  func.return %b : i1
}
func.func @helper() -> !llvm.struct<(f32, i8)> {
  %s = spec.get_composite "S", @d3 : !llvm.struct<(f32, i8)>
  func.return %s : !llvm.struct<(f32, i8)>
}
func.func @KERNEL_AAA(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = spec.get_scalar "SpecConst", @d1 : i32
  %b = spec.get_scalar "SpecConst2", @d2 : i1
  %s = func.call @helper() : () -> !llvm.struct<(f32, i8)>
  %f = llvm.extractvalue %s[0] : !llvm.struct<(f32, i8)>
  %fi = arith.fptosi %f : f32 to i32
  %bi = arith.extui %b : i1 to i32
  memref.store %a, %out[%c0] : memref<?xi32>
  memref.store %bi, %out[%c1] : memref<?xi32>
  memref.store %fi, %out[%c2] : memref<?xi32>
  func.return
}
func.func @KERNEL_BBB(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %a = spec.get_scalar "SpecConst", @d1 : i32
  memref.store %a, %out[%c0] : memref<?xi32>
  func.return
}
func.func @KERNEL_CCC(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  func.return
}
