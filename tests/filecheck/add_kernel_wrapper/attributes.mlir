// RUN: xmux-opt %s -p add-kernel-wrapper | filecheck %s
// RUN: xmux-opt %s -p add-kernel-wrapper,add-kernel-wrapper | filecheck %s --check-prefix=TWICE

// The wrapper takes over the entry point and the launch attributes; the kernel becomes a
// sub_kernel. A kernel without scheduling parameters is called without them. Non-kernels and
// sub_kernels are left alone.

func.func @a(%x: memref<?xf32>, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.scheduling_params, mux.reqd_work_group_size = array<i64: 8, 4, 1>, mux.work_item_order = array<i64: 0, 1, 2>, mux.max_work_dim = 2 : i64, mux.local_mem_usage = 1024 : i64, mux.base_name = "user_a"} {
  func.return
}
func.func @b(%n: i32) attributes {mux.kernel = "entry_point"} {
  func.return
}
func.func @helper(%n: i32) attributes {mux.kernel = "sub_kernel"} {
  func.return
}
func.func @plain(%n: i32) {
  func.return
}

// CHECK:      func.func @a({{.*}}) attributes {mux.kernel = "sub_kernel", mux.scheduling_params, mux.reqd_work_group_size = array<i64: 8, 4, 1>, mux.work_item_order = array<i64: 0, 1, 2>, mux.max_work_dim = 2 : i64, mux.local_mem_usage = 1024 : i64, mux.base_name = "user_a"} {
// CHECK:      func.func @"a.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "user_a", mux.orig_fn = @a, mux.scheduling_params, mux.reqd_work_group_size = array<i64: 8, 4, 1>, mux.max_work_dim = 2 : i64, mux.work_item_order = array<i64: 0, 1, 2>, mux.local_mem_usage = 1024 : i64} {
// CHECK:        func.call @a(%{{.*}}, %wi_info, %wg_info, %sched_info) : (memref<?xf32>, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK:      func.func @b(%n: i32) attributes {mux.kernel = "sub_kernel"} {
// CHECK:      func.func @"b.mux-kernel-wrapper"(%packed: !llvm.ptr, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "b", mux.orig_fn = @b, mux.scheduling_params} {
// CHECK-NEXT:   %0 = llvm.getelementptr inbounds %packed[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i32)>
// CHECK-NEXT:   %1 = llvm.load %0 : !llvm.ptr -> i32
// CHECK-NEXT:   func.call @b(%1) : (i32) -> ()
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
// CHECK-NEXT: func.func @helper(%n: i32) attributes {mux.kernel = "sub_kernel"} {
// CHECK-NOT:  mux-kernel-wrapper
// CHECK:      func.func @plain(%n: i32) {
// CHECK-NOT:  mux-kernel-wrapper

// Running the pass again does not wrap the wrapper.
// TWICE-COUNT-2: mux-kernel-wrapper"(
// TWICE-NOT:     mux-kernel-wrapper.mux-kernel-wrapper
