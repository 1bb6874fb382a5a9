// RUN: xmux-opt %s -p define-mux-builtins | filecheck %s

// @leaf uses a query; @middle calls it; the kernel calls @middle: all three get the
// scheduling parameters and every call passes its caller's three on. @pure uses none and
// keeps its signature; an entry point always gets them (the kernel ABI).

func.func @leaf(%x: f32) -> f32 {
  %g = mux.get_group_id 0 : index
  func.return %x : f32
}

func.func @middle(%x: f32) -> f32 {
  %y = func.call @leaf(%x) : (f32) -> f32
  %z = func.call @pure(%y) : (f32) -> f32
  func.return %z : f32
}

func.func @pure(%x: f32) -> f32 {
  func.return %x : f32
}

func.func @k(%a: memref<f32>) attributes {mux.kernel = "entry_point"} {
  %v = memref.load %a[] : memref<f32>
  %w = func.call @middle(%v) : (f32) -> f32
  memref.store %w, %a[] : memref<f32>
  func.return
}

func.func @empty_kernel() attributes {mux.kernel = "entry_point"} {
  func.return
}

func.func private @external(f32) -> f32

// CHECK-LABEL: func.func @leaf(%x: f32, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) -> f32 attributes {mux.scheduling_params} {
// CHECK-LABEL: func.func @middle(%x: f32, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) -> f32 attributes {mux.scheduling_params} {
// CHECK-NEXT:    %y = func.call @leaf(%x, %wi_info, %wg_info, %sched_info) : (f32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> f32
// CHECK-NEXT:    %z = func.call @pure(%y) : (f32) -> f32
// CHECK-NEXT:    func.return %z : f32
// CHECK-LABEL: func.func @pure(%x: f32) -> f32 {
// CHECK-LABEL: func.func @k(%a: memref<f32>, %wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.scheduling_params} {
// CHECK-NEXT:    %v = memref.load %a[] : memref<f32>
// CHECK-NEXT:    %w = func.call @middle(%v, %wi_info, %wg_info, %sched_info) : (f32, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> f32
// CHECK-LABEL: func.func @empty_kernel(%wi_info: !llvm.ptr, %wg_info: !llvm.ptr, %sched_info: !llvm.ptr) attributes {mux.kernel = "entry_point", mux.scheduling_params} {
// CHECK-NEXT:    func.return
// CHECK-LABEL: func.func private @external(f32) -> f32
