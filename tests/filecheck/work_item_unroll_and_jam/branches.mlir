// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam' | filecheck %s
// RUN: xmux-opt %s -p 'work-item-loops,work-item-loop-interchange,work-item-unroll-and-jam{factor=2}' | filecheck %s --check-prefix=TWO

// Control flow that differs between the replicas (here the image-edge test of a bounds-checked
// 3x3 convolution, inside the tap loops, depends on the row) keeps the cost model from
// jamming rows: each replica would keep its own scf.if, and LLVM, which if-converts one to
// vectorize the work-item loop, does not vectorize R of them (1.7x slower on an AVX2 host).
// A given factor still jams.

// CHECK-LABEL: func.func @conv3x3_bounds
// CHECK-COUNT-1: mux.get_global_id 1
// CHECK-NOT:     mux.get_global_id 1
// CHECK-NOT:     xmux.loop_vectorize_width = 1 : i64
// TWO-LABEL: func.func @conv3x3_bounds
// TWO-COUNT-2:   mux.get_global_id 1
// TWO:           } {xmux.loop_vectorize_width = 1 : i64}
func.func @conv3x3_bounds(%in: memref<?x?xf32>, %out: memref<?x?xf32>, %w: memref<9xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 64, 4, 1>} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %h = memref.dim %in, %c0 : memref<?x?xf32>
  %wd = memref.dim %in, %c1 : memref<?x?xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %acc = scf.for %j = %c0 to %c3 step %c1 iter_args(%a = %zero) -> (f32) {
    %yj = arith.addi %y, %j : index
    %ylo = arith.cmpi uge, %yj, %c1 : index
    %yhi = arith.cmpi ule, %yj, %h : index
    %yin = arith.andi %ylo, %yhi : i1
    %j3 = arith.muli %j, %c3 : index
    %a2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%b = %a) -> (f32) {
      %xi = arith.addi %x, %i : index
      %xlo = arith.cmpi uge, %xi, %c1 : index
      %xhi = arith.cmpi ule, %xi, %wd : index
      %xin = arith.andi %xlo, %xhi : i1
      %inside = arith.andi %yin, %xin : i1
      %r = scf.if %inside -> (f32) {
        %yy = arith.subi %yj, %c1 : index
        %xx = arith.subi %xi, %c1 : index
        %k = arith.addi %j3, %i : index
        %wk = memref.load %w[%k] : memref<9xf32>
        %p = memref.load %in[%yy, %xx] : memref<?x?xf32>
        %t = arith.mulf %wk, %p : f32
        %s = arith.addf %b, %t : f32
        scf.yield %s : f32
      } else {
        scf.yield %b : f32
      }
      scf.yield %r : f32
    }
    scf.yield %a2 : f32
  }
  memref.store %acc, %out[%y, %x] : memref<?x?xf32>
  func.return
}
