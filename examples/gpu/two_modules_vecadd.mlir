// RUN: xmux-run %s | filecheck %s
// Two gpu.modules launched with gpu.launch_func on device buffers: @fill writes
// a[i] = i and b[i] = 2 i; @vecadd writes c = a + b = 3 i, for 10 elements in 3 blocks
// of 4 threads (the last two threads are past the end and do nothing). Host buffers move
// with gpu.alloc / gpu.memcpy / gpu.dealloc, and the launches are ordered with async tokens.

// CHECK: [0,  3,  6,  9,  12,  15,  18,  21,  24,  27]
module attributes {gpu.container_module} {
  gpu.module @init {
    gpu.func @fill(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) kernel {
      %i = gpu.global_id x
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %ii = arith.index_cast %i : index to i32
        %f = arith.sitofp %ii : i32 to f32
        %g = arith.addf %f, %f : f32
        memref.store %f, %a[%i] : memref<?xf32>
        memref.store %g, %b[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
  gpu.module @math {
    gpu.func @vecadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: index)
        kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %x = memref.load %a[%i] : memref<?xf32>
        %y = memref.load %b[%i] : memref<?xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %n = arith.constant 10 : index
    %t0 = gpu.wait async
    %a, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %b, %t2 = gpu.alloc async [%t1] (%n) : memref<?xf32>
    %c, %t3 = gpu.alloc async [%t2] (%n) : memref<?xf32>
    %t4 = gpu.launch_func async [%t3] @init::@fill blocks in (%c3, %c1, %c1)
        threads in (%c4, %c1, %c1) args(%a : memref<?xf32>, %b : memref<?xf32>, %n : index)
    %t5 = gpu.launch_func async [%t4] @math::@vecadd blocks in (%c3, %c1, %c1)
        threads in (%c4, %c1, %c1)
        args(%a : memref<?xf32>, %b : memref<?xf32>, %c : memref<?xf32>, %n : index)
    %host = memref.alloc(%n) : memref<?xf32>
    %t6 = gpu.memcpy async [%t5] %host, %c : memref<?xf32>, memref<?xf32>
    gpu.wait [%t6]
    gpu.dealloc %a : memref<?xf32>
    gpu.dealloc %b : memref<?xf32>
    gpu.dealloc %c : memref<?xf32>
    %u = memref.cast %host : memref<?xf32> to memref<*xf32>
    call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
