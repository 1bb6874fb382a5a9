// RUN: xmux-opt %s -p lower-sub-group-collectives-nvptx | filecheck %s

// any / all: vote.sync over the live lanes of the warp.

func.func @k(%p: i1) -> (i1, i1) {
  %a = mux.sub_group_any %p : i1
  %l = mux.sub_group_all %p : i1
  func.return %a, %l : i1, i1
}

// CHECK:      %mask = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %a = llvm.call_intrinsic "llvm.nvvm.vote.any.sync"(%mask, %p) : (i32, i1) -> i1
// CHECK:      %mask_1 = arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: %l = llvm.call_intrinsic "llvm.nvvm.vote.all.sync"(%mask_1, %p) : (i32, i1) -> i1
// CHECK-NEXT: func.return %a, %l : i1, i1
