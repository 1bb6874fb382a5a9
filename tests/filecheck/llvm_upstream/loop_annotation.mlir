// RUN: xmux-opt %s | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Upstream's loop metadata: access groups on memory ops, a loop annotation on the latch
// (aliases as mlir-opt prints them; xmux prints the attributes inline).
#g1 = #llvm.access_group<id = distinct[1]<>>
#g2 = #llvm.access_group<id = distinct[2]<>>
llvm.func @helper()
llvm.func @loop(%p: !llvm.ptr, %n: i64) {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  llvm.br ^header(%c0 : i64)
^header(%i: i64):
  %c = llvm.icmp "slt" %i, %n : i64
  llvm.cond_br %c, ^body, ^exit
^body:
  %x = llvm.load %p {access_groups = [#g1]} : !llvm.ptr -> f32
  llvm.store %x, %p {access_groups = [#g1, #g2]} : f32, !llvm.ptr
  llvm.call @helper() {access_groups = [#g2]} : () -> ()
  %one = llvm.mlir.constant(1 : i64) : i64
  %next = llvm.add %i, %one : i64
  llvm.br ^header(%next : i64) {loop_annotation = #llvm.loop_annotation<vectorize = #llvm.loop_vectorize<disable = true, width = 1 : i32>, interleave = #llvm.loop_interleave<count = 1 : i32>, unroll = #llvm.loop_unroll<disable = true>, mustProgress = true, parallelAccesses = #g1, #g2>}
^exit:
  llvm.return
}

// CHECK-LABEL: llvm.func @loop
// CHECK:         llvm.load %{{.*}} {access_groups = [#llvm.access_group<id = distinct[1]<>>]} : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.store %{{.*}} {access_groups = [#llvm.access_group<id = distinct[1]<>>, #llvm.access_group<id = distinct[2]<>>]} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.call @helper() {access_groups = [#llvm.access_group<id = distinct[2]<>>]}
// CHECK:         llvm.br ^{{.*}}(%{{.*}} : i64) {loop_annotation = #llvm.loop_annotation<vectorize = #llvm.loop_vectorize<disable = true, width = 1 : i32>, interleave = #llvm.loop_interleave<count = 1 : i32>, unroll = #llvm.loop_unroll<disable = true>, mustProgress = true, parallelAccesses = #llvm.access_group<id = distinct[1]<>>, #llvm.access_group<id = distinct[2]<>>>}

// GENERIC:      "llvm.load"(%{{.*}}) <{ordering = 0 : i64}> {access_groups = [#llvm.access_group<id = distinct[1]<>>]}
// GENERIC:      "llvm.br"(%{{.*}}) [^{{.*}}] {loop_annotation = #llvm.loop_annotation<vectorize = #llvm.loop_vectorize<disable = true, width = 1 : i32>,
