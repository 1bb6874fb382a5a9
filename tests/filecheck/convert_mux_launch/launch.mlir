// RUN: xmux-opt %s -p convert-mux-launch | filecheck %s

// Each launch packs its arguments into the kernel's packed-argument struct, writes the three
// size arrays (unused dimensions: size 1, offset 0) and calls xmux_launch with the kernel's
// index in the module's kernel table.

// CHECK:      builtin.module attributes {xmux.kernel_table = ["scale", "fill"]} {
func.func @scale(%f: f32, %b: i1, %a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  func.return
}
func.func @fill(%a: memref<4x4xi32>) attributes {mux.kernel = "entry_point"} {
  func.return
}

// CHECK-LABEL: func.func @main
func.func @main(%a: memref<?xf32>, %m: memref<4x4xi32>, %n: index, %f: f32, %b: i1) {
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  // CHECK:      %[[P:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(f32, i8, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>)> {alignment = {{[0-9]+}} : i64} : (i64) -> !llvm.ptr
  // CHECK:      llvm.store %f, %{{.*}} : f32, !llvm.ptr
  // CHECK:      %[[B:.*]] = arith.extui %b : i1 to i8
  // CHECK:      llvm.store %[[B]], %{{.*}} : i8, !llvm.ptr
  // CHECK:      %[[D:.*]] = builtin.unrealized_conversion_cast %a : memref<?xf32> to !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
  // CHECK:      llvm.store %[[D]], %{{.*}}
  // CHECK:      func.call @xmux_launch(%{{.*}}, %[[P]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
  mux.launch @scale(%f, %b, %a) global_size(%n) local_size(%c4) : (f32, i1, memref<?xf32>)
  // CHECK:      llvm.alloca %{{.*}} x !llvm.struct<(!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>)>
  // CHECK:      func.call @xmux_launch(
  mux.launch @fill(%m) global_size(%c4, %c4) local_size(%c2, %c2) global_offset(%c2, %c2) : (memref<4x4xi32>)
  // CHECK:      func.call @xmux_launch(
  mux.launch @scale(%f, %b, %a) global_size(%n) local_size(%c4) : (f32, i1, memref<?xf32>)
  func.return
}
// CHECK: func.func private @xmux_launch(i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
