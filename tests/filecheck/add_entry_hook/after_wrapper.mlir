// RUN: xmux-opt %s -p add-kernel-wrapper,add-entry-hook | filecheck %s
// RUN: xmux-opt %s -p add-kernel-wrapper,add-entry-hook,add-entry-hook | filecheck %s --check-prefix=TWICE

// The chain kernel <- wrapper <- hook: only the hook stays an entry point (exported), all three
// know the base name; two kernels each get their own hook, named after the kernel's symbol
// (what the launcher looks up) even when the base name differs.

func.func @k1(%a: memref<?xf32>, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.scheduling_params} {
  func.return
}
func.func @k2(%n: i32, %wi: !llvm.ptr, %wg: !llvm.ptr, %sc: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.scheduling_params, mux.base_name = "user_name"} {
  func.return
}

// CHECK:      func.func @k1({{.*}}) attributes {mux.kernel = "sub_kernel", mux.scheduling_params} {
// CHECK:      func.func @"k1.mux-kernel-wrapper"({{.*}}) attributes {mux.kernel = "sub_kernel", mux.base_name = "k1", mux.orig_fn = @k1, mux.scheduling_params} {
// CHECK:      func.func @"k1.mux-entry-hook"(%packed: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "k1", mux.orig_fn = @k1} {
// CHECK:          func.call @"k1.mux-kernel-wrapper"(%packed, %wi_info, %wg_info, %sched_info)
// CHECK:      func.func @k2({{.*}}) attributes {mux.kernel = "sub_kernel", mux.scheduling_params, mux.base_name = "user_name"} {
// CHECK:      func.func @"k2.mux-kernel-wrapper"({{.*}}) attributes {mux.kernel = "sub_kernel", mux.base_name = "user_name", mux.orig_fn = @k2, mux.scheduling_params} {
// CHECK:      func.func @"k2.mux-entry-hook"(%packed: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.base_name = "user_name", mux.orig_fn = @k2} {
// CHECK:          func.call @"k2.mux-kernel-wrapper"(%packed, %wi_info, %wg_info, %sched_info)

// TWICE-COUNT-2: mux.kernel = "entry_point"
// TWICE-NOT:     mux.kernel = "entry_point"
