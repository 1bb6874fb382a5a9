// RUN: xmux-opt %s -p define-mux-builtins | filecheck %s
// RUN: xmux-opt %s -p define-mux-builtins,define-mux-builtins | filecheck %s

// Mutually recursive helpers, one using a query: both get the parameters once. Running the
// pass twice changes nothing more; a function already written with the parameters is left
// as it is, and its callers pass theirs on.

func.func @even(%n: i32) -> i32 {
  %w = mux.get_work_dim : i32
  %r = func.call @odd(%n) : (i32) -> i32
  func.return %r : i32
}

func.func @odd(%n: i32) -> i32 {
  %r = func.call @even(%n) : (i32) -> i32
  func.return %r : i32
}

func.func @manual(%x: i32, %wi: !llvm.ptr, %wg: !llvm.ptr, %s: !llvm.ptr) -> i32 attributes {mux.scheduling_params} {
  func.return %x : i32
}

func.func @user(%x: i32, %a: !llvm.ptr) -> i32 {
  %r = func.call @manual(%x, %a, %a, %a) : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
  func.return %r : i32
}

// CHECK-LABEL: func.func @even(%n: i32, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) -> i32 attributes {mux.scheduling_params} {
// CHECK:         %r = func.call @odd(%n, %wi_info, %wg_info, %sched_info) : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-LABEL: func.func @odd(%n: i32, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) -> i32 attributes {mux.scheduling_params} {
// CHECK-NEXT:    %r = func.call @even(%n, %wi_info, %wg_info, %sched_info) : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-LABEL: func.func @manual(%x: i32, %wi: !llvm.ptr, %wg: !llvm.ptr, %s: !llvm.ptr) -> i32 attributes {mux.scheduling_params} {
// CHECK-LABEL: func.func @user(%x: i32, %a: !llvm.ptr, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) -> i32 attributes {mux.scheduling_params} {
// CHECK-NEXT:    %r = func.call @manual(%x, %a, %a, %a) : (i32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
