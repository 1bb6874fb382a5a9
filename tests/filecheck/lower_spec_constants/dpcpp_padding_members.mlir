// RUN: xmux-opt %s -p 'lower-spec-constants{mode=native}' | filecheck %s
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=emulated}' | filecheck %s --check-prefix=EMU
// RUN: xmux-opt %s -p 'lower-spec-constants{mode=native},convert-spec-to-llvm' | filecheck %s --check-prefix=LLVM

// Ported from sycl-post-link's struct-with-padding-in-the-middle.ll: SYCL-CTS's
// user_defined_type { float a; char d; int b; char c; } = (3.14, 'a', 42, 8), which clang
// lowers with explicit padding members <{ float, i8, [3 x i8], i32, i8, [3 x i8] }> whose
// defaults are undef. Each padding member takes an id (2 and 5) but no descriptor and no
// __spirv_SpecConstant (an undef element of the composite); the trailing one becomes the tail
// padding descriptor (-1, 13, 3); the blob has zeros there. Then vec<bool, 3> (a byte per
// element) after it.

spec.specialization_id @spec_id = [3.14 : f32, 97 : i8, #spec.undef, 42 : i32, 8 : i8, #spec.undef] : !llvm.struct<(f32, i8, array<3 x i8>, i32, i8, array<3 x i8>)>
spec.specialization_id @vb = [true, false, true] : vector<3xi1>

// CHECK:      spec.property "uidc5885cee0b80ad9d____ZL7spec_id" : !llvm.struct<(f32, i8, !llvm.array<3 x i8>, i32, i8, !llvm.array<3 x i8>)> = [(0, 0, 4), (1, 4, 1), (3, 8, 4), (4, 12, 1), (padding, 13, 3)]
// CHECK-NEXT: spec.property "vb" : vector<3xi1> = [(6, 0, 1), (7, 1, 1), (8, 2, 1)]
// CHECK-NEXT: spec.default_values "0xC3F54840610000002A00000008000000010001"
// CHECK-LABEL: func.func @k
// CHECK-NEXT:    %[[A:.*]] = spec.constant spec_id(0) = 3.140000e+00 : f32
// CHECK-NEXT:    %[[D:.*]] = spec.constant spec_id(1) = 97 : i8
// CHECK-NEXT:    %[[P1:.*]] = llvm.mlir.undef : !llvm.array<3 x i8>
// CHECK-NEXT:    %[[B:.*]] = spec.constant spec_id(3) = 42 : i32
// CHECK-NEXT:    %[[C:.*]] = spec.constant spec_id(4) = 8 : i8
// CHECK-NEXT:    %[[P2:.*]] = llvm.mlir.undef : !llvm.array<3 x i8>
// CHECK-NEXT:    %v = spec.constant_composite %[[A]], %[[D]], %[[P1]], %[[B]], %[[C]], %[[P2]]
// CHECK-NEXT:    spec.constant spec_id(6) = true
// CHECK-NEXT:    spec.constant spec_id(7) = false
// CHECK-NEXT:    spec.constant spec_id(8) = true
// CHECK-NEXT:    %b = spec.constant_composite {{.*}} : vector<3xi1>

// Emulated: the same records (padding before vb: none, 16 is 4-aligned); the struct is one
// load; vec<bool, 3> is loaded as bytes and truncated.
// EMU:      spec.default_values "0xC3F54840610000002A00000008000000010001"
// EMU:      llvm.getelementptr %spec_buffer[0]
// EMU-NEXT: %v = llvm.load %{{.*}} {spec.buffer_load, alignment = 4 : i64} : !llvm.ptr -> !llvm.struct<(f32, i8, !llvm.array<3 x i8>, i32, i8, !llvm.array<3 x i8>)>
// EMU-NEXT: llvm.getelementptr %spec_buffer[16]
// EMU-NEXT: %[[BYTES:.*]] = llvm.load %{{.*}} {spec.buffer_load, alignment = 4 : i64} : !llvm.ptr -> vector<3xi8>
// EMU-NEXT: %b = llvm.trunc %[[BYTES]] : vector<3xi8> to vector<3xi1>

// The undef members stay undef: no insertvalue at indices 2 and 5, no leaf globals 2 and 5.
// LLVM-NOT:   @xmux.spec_constant.2
// LLVM-NOT:   @xmux.spec_constant.5
// LLVM:       %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(f32, i8, !llvm.array<3 x i8>, i32, i8, !llvm.array<3 x i8>)>
// LLVM-NEXT:  %[[I0:.*]] = llvm.insertvalue %{{.*}}, %[[U]][0]
// LLVM-NEXT:  %[[I1:.*]] = llvm.insertvalue %{{.*}}, %[[I0]][1]
// LLVM-NEXT:  %[[I3:.*]] = llvm.insertvalue %{{.*}}, %[[I1]][3]
// LLVM-NEXT:  %v = llvm.insertvalue %{{.*}}, %[[I3]][4]
// LLVM-NOT:   llvm.mlir.undef : !llvm.array<3 x i8>
func.func @k() -> (!llvm.struct<(f32, i8, array<3 x i8>, i32, i8, array<3 x i8>)>, vector<3xi1>) attributes {mux.kernel = "entry_point"} {
  %v = spec.get_composite "uidc5885cee0b80ad9d____ZL7spec_id", @spec_id : !llvm.struct<(f32, i8, array<3 x i8>, i32, i8, array<3 x i8>)>
  %b = spec.get_composite "vb", @vb : vector<3xi1>
  func.return %v, %b : !llvm.struct<(f32, i8, array<3 x i8>, i32, i8, array<3 x i8>)>, vector<3xi1>
}
