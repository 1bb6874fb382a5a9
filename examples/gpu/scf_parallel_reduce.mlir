// RUN: xmux-run %s | filecheck %s
// scf.parallel with scf.reduce inside a kernel (sequential per work-item, as upstream's
// lowering makes it) and on the host. A is 6x5, a[i][j] = (3 i + 2 j) mod 7 - 3. Each of
// 6 work-items (2 blocks of 3) reduces its row i: the sum and the maximum (f32, i32) in
// one 1-D loop with two reductions, and sum over (j, k) of a[i][j] * a[i][k] in a 2-D
// loop (f64, step 2 in k: even k only). The host then sums the row sums in an
// scf.parallel with one reduction. @rounds has barriers inside an scf.parallel with a
// reduction: in round j each work-item writes g + j to local memory and adds its right
// neighbour's value (within its block of 3), so out[g] = sum over j < 4 of (g' + j) =
// 4 g' + 6, g' the neighbour's global id.

// CHECK:      [-2,  -1,  0,  1,  2,  -4]
// CHECK:      [3,  2,  3,  3,  3,  2]
// CHECK:      [8,  2,  0,  2,  8,  4]
// CHECK:      [-4]
// CHECK:      [10,  14,  6,  22,  26,  18]
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @rows(%a: memref<6x5xf32>, %sum: memref<6xf32>, %mx: memref<6xi32>,
                   %dot: memref<6xf64>) kernel {
      %i = gpu.global_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %z = arith.constant 0.0 : f32
      %lo = arith.constant -1000 : i32
      %zd = arith.constant 0.0 : f64
      %r:2 = scf.parallel (%j) = (%c0) to (%c5) step (%c1) init (%z, %lo) -> (f32, i32) {
        %x = memref.load %a[%i, %j] : memref<6x5xf32>
        %xi = arith.fptosi %x : f32 to i32
        scf.reduce(%x, %xi : f32, i32) {
        ^bb0(%l: f32, %e: f32):
          %s = arith.addf %l, %e : f32
          scf.reduce.return %s : f32
        }, {
        ^bb0(%l: i32, %e: i32):
          %s = arith.maxsi %l, %e : i32
          scf.reduce.return %s : i32
        }
      }
      %d = scf.parallel (%j, %k) = (%c0, %c0) to (%c5, %c5) step (%c1, %c2) init (%zd) -> f64 {
        %x = memref.load %a[%i, %j] : memref<6x5xf32>
        %y = memref.load %a[%i, %k] : memref<6x5xf32>
        %p = arith.mulf %x, %y : f32
        %pd = arith.extf %p : f32 to f64
        scf.reduce(%pd : f64) {
        ^bb0(%l: f64, %e: f64):
          %s = arith.addf %l, %e : f64
          scf.reduce.return %s : f64
        }
      }
      memref.store %r#0, %sum[%i] : memref<6xf32>
      memref.store %r#1, %mx[%i] : memref<6xi32>
      memref.store %d, %dot[%i] : memref<6xf64>
      gpu.return
    }
    gpu.func @rounds(%out: memref<6xf32>)
        workgroup(%buf : memref<3xf32, #gpu.address_space<workgroup>>) kernel {
      %g = gpu.global_id x
      %t = gpu.thread_id x
      %n = gpu.block_dim x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %z = arith.constant 0.0 : f32
      %r = scf.parallel (%j) = (%c0) to (%c4) step (%c1) init (%z) -> f32 {
        %gj = arith.addi %g, %j : index
        %gi = arith.index_cast %gj : index to i32
        %v = arith.sitofp %gi : i32 to f32
        memref.store %v, %buf[%t] : memref<3xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        %t1 = arith.addi %t, %c1 : index
        %nb = arith.remui %t1, %n : index
        %w = memref.load %buf[%nb] : memref<3xf32, #gpu.address_space<workgroup>>
        gpu.barrier
        scf.reduce(%w : f32) {
        ^bb0(%l: f32, %e: f32):
          %s = arith.addf %l, %e : f32
          scf.reduce.return %s : f32
        }
      }
      memref.store %r, %out[%g] : memref<6xf32>
      gpu.return
    }
  }

  func.func private @printMemrefF32(memref<*xf32>)
  func.func private @printMemrefI32(memref<*xi32>)
  func.func private @printMemrefF64(memref<*xf64>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %three = arith.constant 3 : i32
    %a = memref.alloc() : memref<6x5xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c5) step (%c1, %c1) {
      %p = arith.muli %i, %c3 : index
      %q = arith.muli %j, %c2 : index
      %s = arith.addi %p, %q : index
      %m = arith.remui %s, %c7 : index
      %mi = arith.index_cast %m : index to i32
      %v = arith.subi %mi, %three : i32
      %f = arith.sitofp %v : i32 to f32
      memref.store %f, %a[%i, %j] : memref<6x5xf32>
      scf.reduce
    }
    %sum = memref.alloc() : memref<6xf32>
    %mx = memref.alloc() : memref<6xi32>
    %dot = memref.alloc() : memref<6xf64>
    gpu.launch_func @k::@rows blocks in (%c2, %c1, %c1) threads in (%c3, %c1, %c1)
        args(%a : memref<6x5xf32>, %sum : memref<6xf32>, %mx : memref<6xi32>,
             %dot : memref<6xf64>)
    %z = arith.constant 0.0 : f32
    %t = scf.parallel (%i) = (%c0) to (%c6) step (%c1) init (%z) -> f32 {
      %x = memref.load %sum[%i] : memref<6xf32>
      scf.reduce(%x : f32) {
      ^bb0(%l: f32, %e: f32):
        %s = arith.addf %l, %e : f32
        scf.reduce.return %s : f32
      }
    }
    %tot = memref.alloc() : memref<1xf32>
    memref.store %t, %tot[%c0] : memref<1xf32>
    %u0 = memref.cast %sum : memref<6xf32> to memref<*xf32>
    call @printMemrefF32(%u0) : (memref<*xf32>) -> ()
    %u1 = memref.cast %mx : memref<6xi32> to memref<*xi32>
    call @printMemrefI32(%u1) : (memref<*xi32>) -> ()
    %u2 = memref.cast %dot : memref<6xf64> to memref<*xf64>
    call @printMemrefF64(%u2) : (memref<*xf64>) -> ()
    %u3 = memref.cast %tot : memref<1xf32> to memref<*xf32>
    call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
    %ro = memref.alloc() : memref<6xf32>
    gpu.launch_func @k::@rounds blocks in (%c2, %c1, %c1) threads in (%c3, %c1, %c1)
        args(%ro : memref<6xf32>)
    %u4 = memref.cast %ro : memref<6xf32> to memref<*xf32>
    call @printMemrefF32(%u4) : (memref<*xf32>) -> ()
    return
  }
}
