// RUN: xmux-opt %s -p add-kernel-wrapper-nvptx | filecheck %s
// RUN: xmux-opt %s -p 'add-kernel-wrapper-nvptx{read-only-variants=false}' | filecheck %s --check-prefix=OFF

// Memref arguments a kernel only reads get noalias pointer parameters (ld.global.nc). @add
// writes %c: the generic @add keeps no mark and a second entry @add__xmux_ro_0_1 (not a
// mux.kernel entry point: the runtime picks it by name when the buffers are disjoint) marks
// %a and %b; the body, now called twice, is alwaysinline.

func.func @add(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = arith.constant 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %y = memref.load %b[%i] : memref<?xf32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %c[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @"add.mux-kernel"(
// CHECK-SAME:      mux.kernel = "sub_kernel"
// CHECK-SAME:      passthrough = ["alwaysinline"]
// CHECK-LABEL: func.func @add(%a: !llvm.ptr, %0: i64, %1: i64, %2: i64, %b: !llvm.ptr, %3: i64, %4: i64, %5: i64, %c: !llvm.ptr,
// CHECK-SAME:      mux.kernel = "entry_point"
// CHECK-LABEL: func.func @add__xmux_ro_0_1(%a: !llvm.ptr {llvm.noalias}, %0: i64, %1: i64, %2: i64, %b: !llvm.ptr {llvm.noalias}, %3: i64, %4: i64, %5: i64, %c: !llvm.ptr,
// CHECK-NOT:       mux.kernel =
// CHECK-SAME:      nvvm.kernel
// CHECK:         func.call @"add.mux-kernel"(

// A read-only argument passed to a function that writes it is not read-only; one whose
// address escapes into integer code (extract_aligned_pointer_as_index) is not marked either.

func.func private @bump(%m: memref<?xf32>) {
  %i = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %m[%i] : memref<?xf32>
  func.return
}

func.func @callee_writes(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = arith.constant 0 : index
  func.call @bump(%a) : (memref<?xf32>) -> ()
  %p = memref.extract_aligned_pointer_as_index %b : memref<?xf32> -> index
  %x = memref.load %a[%i] : memref<?xf32>
  memref.store %x, %c[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @callee_writes(%a: !llvm.ptr, %0: i64, %1: i64, %2: i64, %b: !llvm.ptr, %3: i64, %4: i64, %5: i64, %c: !llvm.ptr,
// CHECK-NOT:   func.func @callee_writes__xmux_ro

// A pointer made from an integer may reach any buffer: no marks at all.

func.func @from_int(%a: memref<?xf32>, %addr: i64) attributes {mux.kernel = "entry_point"} {
  %i = arith.constant 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %p = llvm.inttoptr %addr : i64 to !llvm.ptr
  llvm.store %x, %p : f32, !llvm.ptr
  func.return
}

// CHECK-LABEL: func.func @from_int(%a: !llvm.ptr, %0: i64, %1: i64, %2: i64, %addr: i64,
// CHECK-NOT:   func.func @from_int__xmux_ro

// An atomic through a memref's own address (lower-generic-atomic-rmw, the OpenACC
// expansions): %sum's address escapes, so %sum is not marked and the runtime checks that it
// is disjoint from %x; the inttoptr of a memref's address keeps %x's mark.

func.func @sum_to(%x: memref<?xf32>, %sum: memref<f32>) attributes {mux.kernel = "entry_point"} {
  %i = arith.constant 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %a = memref.extract_aligned_pointer_as_index %sum : memref<f32> -> index
  %ai = arith.index_cast %a : index to i64
  %p = llvm.inttoptr %ai : i64 to !llvm.ptr
  %old = llvm.atomicrmw fadd %p, %v monotonic : !llvm.ptr, f32
  func.return
}

// CHECK-LABEL: func.func @sum_to(%x: !llvm.ptr, %0: i64, %1: i64, %2: i64, %sum: !llvm.ptr,
// CHECK-LABEL: func.func @sum_to__xmux_ro_0(%x: !llvm.ptr {llvm.noalias}, %0: i64, %1: i64, %2: i64, %sum: !llvm.ptr,

// Every memref argument only read: the entry itself is marked, no variant, no passthrough.

func.func @reads(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {mux.kernel = "entry_point"} {
  %i = arith.constant 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %w = memref.load %y[%i] : memref<?xf32>
  func.return
}

// CHECK-LABEL: func.func @"reads.mux-kernel"(
// CHECK-NOT:       passthrough
// CHECK-SAME:      {
// CHECK-LABEL: func.func @reads(%x: !llvm.ptr {llvm.noalias}, %0: i64, %1: i64, %2: i64, %y: !llvm.ptr {llvm.noalias}, %3: i64, %4: i64, %5: i64, %n: i64,
// CHECK-NOT:   func.func @reads__xmux_ro

// OFF-NOT: llvm.noalias
// OFF-NOT: __xmux_ro
// OFF-NOT: passthrough
