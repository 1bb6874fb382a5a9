// RUN: xmux-opt %s -p 'lower-spec-constants,convert-spec-to-llvm' | filecheck %s
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated},convert-spec-to-llvm' | filecheck %s --check-prefix=EMU

// Reads are invariant: they are materialized at the top of the function's entry block, out of
// loops (an un-annotated load inside a work-item loop would make LLVM vectorize it with
// run-time alias checks), once per leaf and function. Emulated buffer loads (spec.buffer_load,
// GEP from an entry-block argument) move there too and lose the mark.

spec.specialization_id @s = 2.0 : f32

// CHECK-LABEL: func.func @native(%a: memref<?xf32>, %n: index) {
// CHECK-NEXT:    %0 = llvm.mlir.addressof @xmux.spec_constant.0 : !llvm.ptr
// CHECK-NEXT:    %k = llvm.load %0 : !llvm.ptr -> f32
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK:         scf.for
// CHECK-NOT:       llvm.load
// CHECK:           arith.mulf %{{.*}}, %k : f32
// CHECK-NOT:       llvm.load
// CHECK:           arith.addf %{{.*}}, %k : f32
func.func @native(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf32>
    %k = spec.constant spec_id(0) = 2.0 : f32
    %m = arith.mulf %v, %k : f32
    %k2 = spec.constant spec_id(0) = 2.0 : f32
    %r = arith.addf %m, %k2 : f32
    memref.store %r, %a[%i] : memref<?xf32>
  }
  func.return
}

// EMU-LABEL: func.func @emulated(%a: memref<?xf32>, %n: index, %spec_buffer: !llvm.ptr)
// EMU-NEXT:    %0 = llvm.getelementptr %spec_buffer[0] : (!llvm.ptr) -> !llvm.ptr, i8
// EMU-NEXT:    %k = llvm.load %0 {alignment = 4 : i64} : !llvm.ptr -> f32
// EMU-NEXT:    %c0 = arith.constant 0 : index
// EMU:         scf.for
// EMU-NOT:       llvm.load
// EMU:           arith.mulf %{{.*}}, %k : f32
// EMU-NOT:     spec.buffer_load
func.func @emulated(%a: memref<?xf32>, %n: index) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<?xf32>
    %k = spec.get_scalar "s", @s : f32
    %m = arith.mulf %v, %k : f32
    memref.store %m, %a[%i] : memref<?xf32>
  }
  func.return
}
