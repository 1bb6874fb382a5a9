// RUN: xmux-run %s | filecheck %s
// Dynamic workgroup memory: each block of 8 threads views gpu.dynamic_shared_memory as two
// f32 arrays (at byte offsets 0 and 32), writes its thread id and its square, synchronizes,
// and writes out the reversed pair sums: out[b*8 + t] = (7-t) + (7-t)^2 + 100*b.

// CHECK: [56,  42,  30,  20,  12,  6,  2,  0,  156,  142,  130,  120,  112,  106,  102,  100]
func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %bytes = arith.constant 64 : i32
  %out = memref.alloc() : memref<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %bytes {
    %shmem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %ids = memref.view %shmem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
        to memref<8xf32, #gpu.address_space<workgroup>>
    %sqs = memref.view %shmem[%c32][] : memref<?xi8, #gpu.address_space<workgroup>>
        to memref<8xf32, #gpu.address_space<workgroup>>
    %t = arith.index_cast %tx : index to i32
    %f = arith.sitofp %t : i32 to f32
    %f2 = arith.mulf %f, %f : f32
    memref.store %f, %ids[%tx] : memref<8xf32, #gpu.address_space<workgroup>>
    memref.store %f2, %sqs[%tx] : memref<8xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c7 = arith.constant 7 : index
    %r = arith.subi %c7, %tx : index
    %a = memref.load %ids[%r] : memref<8xf32, #gpu.address_space<workgroup>>
    %b = memref.load %sqs[%r] : memref<8xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %a, %b : f32
    %bi = arith.index_cast %bx : index to i32
    %bf = arith.sitofp %bi : i32 to f32
    %hundred = arith.constant 100.0 : f32
    %off = arith.mulf %bf, %hundred : f32
    %v = arith.addf %s, %off : f32
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    memref.store %v, %out[%i] : memref<16xf32>
    gpu.terminator
  }
  %u = memref.cast %out : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
