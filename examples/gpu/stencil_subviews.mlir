// RUN: xmux-run %s | filecheck %s
// A host loop of 6 steps around two kernels, as upstream mlir-opt's linalg -> parallel
// loops -> gpu path makes them: a 3-point stencil whose three inputs are memref.subview
// windows (static offsets 0, 1, 2) of one 34-element buffer, then a copy of its result back
// into the buffer's interior window. On the GPU the windows of one buffer share one device
// copy, every launch sees the host's latest bytes and the host every launch's writes; a
// window with a static offset has its element 0 at the window's start, as on the CPU
// (issue 36, item 4: wrong numbers on nvptx).
// b = arange(34); 6 times: b[1:33] = b[0:32] + 2 b[1:33] + 3 b[2:34]

// CHECK: [0,  121204,  183440,  232854,  279896,  326590,  373248,  419904,  466560,  513216,  559872,  606528,  653184,  699840,  746496,  793152,  839808,  886464,  933120,  979776,  1026432,  1073088,  1119744,  1166400,  1213056,  1259712,  1306368,  1353024,  1359099,  1242621,  955800,  565047,  212322,  33]
module attributes {gpu.container_module} {
  gpu.module @steps {
    gpu.func @stencil(%l: memref<32xi32, strided<[1]>>,
                      %c: memref<32xi32, strided<[1], offset: 1>>,
                      %r: memref<32xi32, strided<[1], offset: 2>>,
                      %o: memref<32xi32>) kernel {
      %i = gpu.global_id x
      %a = memref.load %l[%i] : memref<32xi32, strided<[1]>>
      %b = memref.load %c[%i] : memref<32xi32, strided<[1], offset: 1>>
      %d = memref.load %r[%i] : memref<32xi32, strided<[1], offset: 2>>
      %b2 = arith.addi %b, %b : i32
      %d2 = arith.addi %d, %d : i32
      %d3 = arith.addi %d2, %d : i32
      %s0 = arith.addi %a, %b2 : i32
      %s = arith.addi %s0, %d3 : i32
      memref.store %s, %o[%i] : memref<32xi32>
      gpu.return
    }
    gpu.func @copy(%o: memref<32xi32>, %dst: memref<32xi32, strided<[1], offset: 1>>) kernel {
      %i = gpu.global_id x
      %v = memref.load %o[%i] : memref<32xi32>
      memref.store %v, %dst[%i] : memref<32xi32, strided<[1], offset: 1>>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %c8 = arith.constant 8 : index
    %c34 = arith.constant 34 : index
    %buf = memref.alloc() : memref<34xi32>
    %tmp = memref.alloc() : memref<32xi32>
    scf.for %i = %c0 to %c34 step %c1 {
      %v = arith.index_cast %i : index to i32
      memref.store %v, %buf[%i] : memref<34xi32>
    }
    %left = memref.subview %buf[0] [32] [1] : memref<34xi32> to memref<32xi32, strided<[1]>>
    %mid = memref.subview %buf[1] [32] [1]
        : memref<34xi32> to memref<32xi32, strided<[1], offset: 1>>
    %right = memref.subview %buf[2] [32] [1]
        : memref<34xi32> to memref<32xi32, strided<[1], offset: 2>>
    scf.for %step = %c0 to %c6 step %c1 {
      gpu.launch_func @steps::@stencil blocks in (%c4, %c1, %c1) threads in (%c8, %c1, %c1)
          args(%left : memref<32xi32, strided<[1]>>,
               %mid : memref<32xi32, strided<[1], offset: 1>>,
               %right : memref<32xi32, strided<[1], offset: 2>>, %tmp : memref<32xi32>)
      gpu.launch_func @steps::@copy blocks in (%c4, %c1, %c1) threads in (%c8, %c1, %c1)
          args(%tmp : memref<32xi32>, %mid : memref<32xi32, strided<[1], offset: 1>>)
    }
    %u = memref.cast %buf : memref<34xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    memref.dealloc %buf : memref<34xi32>
    memref.dealloc %tmp : memref<32xi32>
    return
  }

  func.func private @printMemrefI32(memref<*xi32>)
}
