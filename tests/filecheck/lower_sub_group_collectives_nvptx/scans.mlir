// RUN: xmux-opt %s -p lower-sub-group-collectives-nvptx | filecheck %s

// Scans: Kogge-Stone with shfl.sync.up over the live lanes (offsets 1 .. 16; lane i takes
// lane i - off when i >= off, the lower lane on the left). An exclusive scan moves the
// inclusive one up a lane; lane 0 gets the identity. A logical kind's values are made 0 or 1
// once, then folded with the bitwise op.

func.func @incl(%x: f32) -> f32 {
  %a = mux.sub_group_scan_inclusive fmax %x : f32
  func.return %a : f32
}

// CHECK-LABEL: func.func @incl(%x: f32) -> f32 {
// CHECK:         %mask = arith.select
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[Y1:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.f32"(%mask, %x, %[[ONE:.*]], %[[ZERO]]) : (i32, f32, i32, i32) -> f32
// CHECK-NEXT:    %[[OK1:.*]] = arith.cmpi uge, %lane, %[[ONE]] : i32
// CHECK-NEXT:    %[[M1:.*]] = arith.maxnumf %[[Y1]], %x : f32
// CHECK-NEXT:    %[[S1:.*]] = arith.select %[[OK1]], %[[M1]], %x : f32
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-NEXT:    %[[Y2:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.f32"(%mask, %[[S1]], %[[TWO]], %[[ZERO]])
// CHECK-NEXT:    %[[OK2:.*]] = arith.cmpi uge, %lane, %[[TWO]] : i32
// CHECK-NEXT:    %[[M2:.*]] = arith.maxnumf %[[Y2]], %[[S1]] : f32
// CHECK-NEXT:    %{{.*}} = arith.select %[[OK2]], %[[M2]], %[[S1]] : f32
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.f32"(%mask,
// CHECK:         %a = arith.select
// CHECK-NEXT:    func.return %a : f32

func.func @excl(%y: i16) -> i16 {
  %b = mux.sub_group_scan_exclusive logical_or %y : i16
  func.return %b : i16
}

// CHECK-LABEL: func.func @excl(%y: i16) -> i16 {
// CHECK:         %mask = arith.select
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : i16
// CHECK-NEXT:    %[[NZ:.*]] = arith.cmpi ne, %y, %[[Z]] : i16
// CHECK-NEXT:    %[[T:.*]] = arith.constant 1 : i16
// CHECK-NEXT:    %[[F:.*]] = arith.constant 0 : i16
// CHECK-NEXT:    %[[B:.*]] = arith.select %[[NZ]], %[[T]], %[[F]] : i16
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:    %[[W:.*]] = arith.extui %[[B]] : i16 to i32
// CHECK-NEXT:    %[[Y1:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.i32"(%mask, %[[W]], %[[ONE:.*]], %[[ZERO]]) : (i32, i32, i32, i32) -> i32
// CHECK-NEXT:    %[[N1:.*]] = arith.trunci %[[Y1]] : i32 to i16
// CHECK-NEXT:    %[[OK1:.*]] = arith.cmpi uge, %lane, %[[ONE]] : i32
// CHECK-NEXT:    %[[O1:.*]] = arith.ori %[[N1]], %[[B]] : i16
// CHECK-NEXT:    %{{.*}} = arith.select %[[OK1]], %[[O1]], %[[B]] : i16
// CHECK-COUNT-4: llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.i32"(%mask,
// CHECK:         %[[INCL:.*]] = arith.select %{{.*}} : i16
// CHECK-NEXT:    %[[WI:.*]] = arith.extui %[[INCL]] : i16 to i32
// CHECK-NEXT:    %[[UP:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.up.i32"(%mask, %[[WI]], %[[ONE]], %[[ZERO]])
// CHECK-NEXT:    %[[PREV:.*]] = arith.trunci %[[UP]] : i32 to i16
// CHECK-NEXT:    %[[FIRST:.*]] = arith.cmpi eq, %lane, %[[ZERO]] : i32
// CHECK-NEXT:    %[[ID:.*]] = arith.constant 0 : i16
// CHECK-NEXT:    %b = arith.select %[[FIRST]], %[[ID]], %[[PREV]] : i16
// CHECK-NEXT:    func.return %b : i16
