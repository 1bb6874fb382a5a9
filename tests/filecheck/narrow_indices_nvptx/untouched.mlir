// RUN: xmux-opt %s -p record-kernel-abi,add-kernel-wrapper-nvptx,narrow-indices-nvptx | filecheck %s

// No twin where no loop would run on i32: no loop at all (a work-item id is not narrowed:
// no gain); a step of 16 up to an i32 bound (t + 16 may pass 2^31 - 1: unproven); a loop
// bounded by an index argument (no range); a loop over local memory only (its accesses are
// not the launch's arrays); loops of a few constant iterations (below).

func.func @vecadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?xf32>
  %y = memref.load %b[%i] : memref<?xf32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %c[%i] : memref<?xf32>
  func.return
}

func.func @steps(%n: i32, %a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %nk = arith.index_cast %n : i32 to index
  %one = arith.constant 1.0 : f32
  scf.for %t = %c0 to %nk step %c16 {
    memref.store %one, %a[%t] : memref<?xf32>
  }
  func.return
}

func.func @wide(%n: index, %a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %t = %c0 to %n step %c1 {
    memref.store %one, %a[%t] : memref<?xf32>
  }
  func.return
}

func.func @local(%l: memref<64xf32, 3>, %a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  scf.for %t = %c0 to %c64 step %c1 {
    memref.store %one, %l[%t] : memref<64xf32, 3>
  }
  func.return
}

// The 3 x 3 taps of a convolution: loops of constant, small trip counts (LLVM unrolls them,
// and 64-bit indices fold into the addresses).

func.func @taps(%in: memref<?x?xf32>, %w: memref<9xf32>, %out: memref<?x?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %acc = scf.for %j = %c0 to %c3 step %c1 iter_args(%a = %zero) -> (f32) {
    %j3 = arith.muli %j, %c3 : index
    %yj = arith.addi %y, %j : index
    %a2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%b = %a) -> (f32) {
      %k = arith.addi %j3, %i : index
      %xi = arith.addi %x, %i : index
      %wk = memref.load %w[%k] : memref<9xf32>
      %p = memref.load %in[%yj, %xi] : memref<?x?xf32>
      %t = arith.mulf %wk, %p : f32
      %s = arith.addf %b, %t : f32
      scf.yield %s : f32
    }
    scf.yield %a2 : f32
  }
  memref.store %acc, %out[%y, %x] : memref<?x?xf32>
  func.return
}

// CHECK-NOT: .i32"
// CHECK-NOT: __xmux_i32
// CHECK-NOT: reinterpret_cast
