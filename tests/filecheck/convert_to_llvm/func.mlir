// RUN: xmux-opt %s -p convert-to-llvm | filecheck %s

// Helpers become internal (LLVM inlines and drops them); memrefs travel as descriptor structs.
func.func @helper(%a: memref<?xf32>, %i: index) -> f32 {
  %x = memref.load %a[%i] : memref<?xf32>
  return %x : f32
}
// CHECK:      llvm.func internal @helper(%[[A:.*]]: !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>, %[[I:.*]]: i64) -> f32 {
// CHECK-NEXT:   %[[BASE:.*]] = llvm.extractvalue %[[A]][1]
// CHECK-NEXT:   %[[P:.*]] = llvm.getelementptr inbounds %[[BASE]][%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:   %[[X:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK-NEXT:   llvm.return %[[X]] : f32
// CHECK-NEXT: }

// Entry points, entry hooks, main and C-interface functions stay external; attributes stay.
func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point", mux.base_name = "k"} {
  %c0 = arith.constant 0 : index
  %x = func.call @helper(%a, %c0) : (memref<?xf32>, index) -> f32
  return
}
// CHECK:      llvm.func @k(%[[A:.*]]: !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>) attributes {mux.kernel = "entry_point", mux.base_name = "k"} {
// CHECK-NEXT:   %[[C0:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT:   %{{.*}} = llvm.call @helper(%[[A]], %[[C0]]) : (!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>, i64) -> f32
// CHECK-NEXT:   llvm.return
// CHECK-NEXT: }

func.func @"k.mux-entry-hook"(%p: !llvm.ptr, %s: !llvm.ptr) {
  return
}
// CHECK: llvm.func @"k.mux-entry-hook"(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) {

func.func @main() {
  return
}
// CHECK: llvm.func @main() {

func.func @c_api(%x: i32) -> i32 attributes {llvm.emit_c_interface} {
  return %x : i32
}
// CHECK: llvm.func @c_api(%{{.*}}: i32) -> i32 attributes {llvm.emit_c_interface} {

// Several results are packed into a struct and unpacked at the call.
func.func @two(%x: i32, %y: f64) -> (i32, f64) {
  return %x, %y : i32, f64
}
// CHECK:      llvm.func internal @two(%[[X:.*]]: i32, %[[Y:.*]]: f64) -> !llvm.struct<(i32, f64)> {
// CHECK-NEXT:   %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(i32, f64)>
// CHECK-NEXT:   %[[S0:.*]] = llvm.insertvalue %[[X]], %[[U]][0] : !llvm.struct<(i32, f64)>
// CHECK-NEXT:   %[[S1:.*]] = llvm.insertvalue %[[Y]], %[[S0]][1] : !llvm.struct<(i32, f64)>
// CHECK-NEXT:   llvm.return %[[S1]] : !llvm.struct<(i32, f64)>

func.func @call_two(%x: i32, %y: f64) -> f64 {
  %a, %b = func.call @two(%x, %y) : (i32, f64) -> (i32, f64)
  return %b : f64
}
// CHECK:      %[[R:.*]] = llvm.call @two(%{{.*}}, %{{.*}}) : (i32, f64) -> !llvm.struct<(i32, f64)>
// CHECK-NEXT: %{{.*}} = llvm.extractvalue %[[R]][0] : !llvm.struct<(i32, f64)>
// CHECK-NEXT: %[[B:.*]] = llvm.extractvalue %[[R]][1] : !llvm.struct<(i32, f64)>
// CHECK-NEXT: llvm.return %[[B]] : f64

// Declarations stay external declarations; unranked memrefs are (rank, descriptor pointer).
func.func private @printMemrefF32(memref<*xf32>)
// CHECK: llvm.func @printMemrefF32(!llvm.struct<(i64, !llvm.ptr)>)
