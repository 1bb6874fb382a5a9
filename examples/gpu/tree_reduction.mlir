// RUN: xmux-run %s | filecheck %s
// RUN: xmux-run --interpret %s | filecheck %s
// A shared-memory tree reduction: each block of 16 threads copies 16 values into a
// workgroup attribution, then halves the active range in an scf.while loop with a
// gpu.barrier after every step; thread 0 writes the block's sum. x[i] = i mod 7 over
// 64 elements (4 blocks): sums 43, 47, 51, 48 (numpy: x.reshape(4, 16).sum(1)).

// CHECK: [43,  47,  51,  48]
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : i32
  %c16 = arith.constant 16 : index
  %n = arith.constant 64 : index
  %x = memref.alloc(%n) : memref<?xf32>
  %sums = memref.alloc(%c4) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %ii = arith.index_cast %i : index to i32
    %m = arith.remsi %ii, %c7 : i32
    %f = arith.sitofp %m : i32 to f32
    memref.store %f, %x[%i] : memref<?xf32>
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1)
             workgroup(%buf : memref<16xf32, #gpu.address_space<workgroup>>) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %v, %buf[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %two = arith.constant 2 : index
    %half0 = arith.divui %sx, %two : index
    %last = scf.while (%h = %half0) : (index) -> index {
      %more = arith.cmpi ugt, %h, %c0 : index
      scf.condition(%more) %h : index
    } do {
    ^bb0(%h: index):
      %active = arith.cmpi ult, %tx, %h : index
      scf.if %active {
        %j = arith.addi %tx, %h : index
        %a = memref.load %buf[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
        %b = memref.load %buf[%j] : memref<16xf32, #gpu.address_space<workgroup>>
        %s = arith.addf %a, %b : f32
        memref.store %s, %buf[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %next = arith.divui %h, %two : index
      scf.yield %next : index
    }
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      %total = memref.load %buf[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      memref.store %total, %sums[%bx] : memref<?xf32>
    }
    gpu.terminator
  }
  %u = memref.cast %sums : memref<?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
