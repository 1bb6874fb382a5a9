// RUN: xmux-opt %s -p prepare-barriers | filecheck %s

// A single-block callee that reaches a barrier (through another call, inside a loop) is
// inlined wherever it is called; each copy of its barrier gets its own id. The callees are
// gone afterwards (nothing else calls them); a barrier-free helper stays a call.

func.func private @sync(%v: f32) -> f32 {
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %w = arith.addf %v, %v : f32
  func.return %w : f32
}

func.func private @outer(%v: f32) -> f32 {
  %w = func.call @sync(%v) : (f32) -> f32
  %x = func.call @twice(%w) : (f32) -> f32
  func.return %x : f32
}

func.func private @twice(%v: f32) -> f32 {
  %w = arith.mulf %v, %v : f32
  func.return %w : f32
}

func.func @k(%a: memref<?xf32>, %n: index) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%s = %v) -> (f32) {
    %t = func.call @outer(%s) : (f32) -> f32
    scf.yield %t : f32
  }
  %u = func.call @sync(%r) : (f32) -> f32
  memref.store %u, %a[%i] : memref<?xf32>
  func.return
}

// CHECK-NOT:   func.func private @sync
// CHECK-NOT:   func.func private @outer
// CHECK:       func.func private @twice
// CHECK-LABEL: func.func @k
// CHECK:         %r = scf.for %k = %c0 to %n step %c1 iter_args(%s = %v) -> (f32) {
// CHECK-NEXT:      mux.work_group_barrier id 1, work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:      %[[W:.*]] = arith.addf %s, %s : f32
// CHECK-NEXT:      %[[X:.*]] = func.call @twice(%[[W]]) : (f32) -> f32
// CHECK-NEXT:      scf.yield %[[X]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    mux.work_group_barrier id 2, work_group, <acq_rel, work_group_memory>
// CHECK-NEXT:    %[[U:.*]] = arith.addf %r, %r : f32
// CHECK-NEXT:    memref.store %[[U]], %a[%i] : memref<?xf32>
// CHECK-NEXT:    func.return
// CHECK-NOT:   func.func private @sync
