// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated}' | filecheck %s

// Emulated mode threads the buffer like the reference's kernel_handler argument: a helper that
// reads a constant gets a trailing !llvm.ptr, so do its callers (call sites pass theirs on);
// an entry point records the argument's index in spec.buffer_arg. A marker with an explicit
// buffer operand uses it. An i1 constant is loaded as its byte and truncated. A kernel that
// reads no constant keeps its signature.

// CHECK:      spec.property "scale" : f32 = [(0, 0, 4)]
// CHECK-NEXT: spec.property "flag" : i1 = [(1, 0, 1)]
// CHECK-NEXT: spec.default_values "0x0000204001"

spec.specialization_id @flag = true
spec.specialization_id @scale = 2.5 : f32

// CHECK:      func.func @leaf(%x: f32, %spec_buffer: !llvm.ptr) -> f32 {
// CHECK-NEXT:   %0 = llvm.getelementptr %spec_buffer[0] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:   %s = llvm.load %0 {spec.buffer_load, alignment = 4 : i64} : !llvm.ptr -> f32
func.func @leaf(%x: f32) -> f32 {
  %s = spec.get_scalar "scale", @scale : f32
  %r = arith.mulf %x, %s : f32
  func.return %r : f32
}

// CHECK:      func.func @middle(%x: f32, %spec_buffer: !llvm.ptr) -> f32 {
// CHECK-NEXT:   %r = func.call @leaf(%x, %spec_buffer) : (f32, !llvm.ptr) -> f32
func.func @middle(%x: f32) -> f32 {
  %r = func.call @leaf(%x) : (f32) -> f32
  func.return %r : f32
}

// CHECK:      func.func @explicit(%p: !llvm.ptr) -> i1 {
// CHECK-NEXT:   %0 = llvm.getelementptr %p[4] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:   %1 = llvm.load %0 {spec.buffer_load, alignment = 1 : i64} : !llvm.ptr -> i8
// CHECK-NEXT:   %f = arith.trunci %1 : i8 to i1
func.func @explicit(%p: !llvm.ptr) -> i1 {
  %f = spec.get_scalar "flag", @flag, %p : i1
  func.return %f : i1
}

// CHECK:      func.func @k(%a: memref<?xf32>, %spec_buffer: !llvm.ptr) attributes {mux.kernel = "entry_point", spec.used_constants = ["scale", "flag"], spec.buffer_arg = 1 : i64} {
// CHECK:        %{{.*}} = func.call @middle(%{{.*}}, %spec_buffer) : (f32, !llvm.ptr) -> f32
// CHECK:        %{{.*}} = llvm.getelementptr %spec_buffer[4] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK:        %{{.*}} = func.call @explicit(%p) : (!llvm.ptr) -> i1
func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xf32>
  %w = func.call @middle(%v) : (f32) -> f32
  %p = llvm.mlir.zero : !llvm.ptr
  %f = spec.get_scalar "flag", @flag : i1
  %g = func.call @explicit(%p) : (!llvm.ptr) -> i1
  memref.store %w, %a[%c0] : memref<?xf32>
  func.return
}

// CHECK:      func.func @plain(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
func.func @plain(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  func.return
}
