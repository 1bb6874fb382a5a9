// RUN: xmux-run %s | filecheck %s
// RUN: xmux-run --interpret %s | filecheck %s
// Thread-block clusters (sm_90): a grid of 4 x 2 blocks in clusters of 2 x 2 blocks. Each
// block stores cluster_id.x * 1000 + cluster_id.y * 100 + cluster_block_id.x * 10 +
// cluster_block_id.y; block (3, 1) also stores the cluster queries' sizes: cluster_dim
// (clusters in the grid: 2 x 1 x 1), cluster_dim_blocks (blocks per cluster: 2 x 2 x 1), and
// the launch's own cluster ids and sizes (its region arguments).

// CHECK:      [0,  10,  1000,  1010,  1,  11,  1001,  1011]
// CHECK:      [2,  1,  1,  2,  2,  1,  1,  0,  2,  2]
func.func @main() {
  %ids = memref.alloc() : memref<8xi32>
  %dims = memref.alloc() : memref<10xi32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  gpu.launch clusters(%cx, %cy, %cz) in (%sx = %c2, %sy = %c2, %sz = %c1)
             blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c2, %gz = %c1)
             threads(%tx, %ty, %tz) in (%nx = %c2, %ny = %c1, %nz = %c1) {
    %idx = gpu.cluster_id x
    %idy = gpu.cluster_id y
    %bix = gpu.cluster_block_id x
    %biy = gpu.cluster_block_id y
    %c10 = arith.constant 10 : index
    %c100 = arith.constant 100 : index
    %c1000 = arith.constant 1000 : index
    %a = arith.muli %idx, %c1000 : index
    %b = arith.muli %idy, %c100 : index
    %c = arith.muli %bix, %c10 : index
    %ab = arith.addi %a, %b : index
    %abc = arith.addi %ab, %c : index
    %code = arith.addi %abc, %biy : index
    %code32 = arith.index_cast %code : index to i32
    %row = arith.muli %by, %gx : index
    %slot = arith.addi %row, %bx : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      memref.store %code32, %ids[%slot] : memref<8xi32>
    }
    %c3 = arith.constant 3 : index
    %x3 = arith.cmpi eq, %bx, %c3 : index
    %y1 = arith.cmpi eq, %by, %c1 : index
    %b31 = arith.andi %x3, %y1 : i1
    %last = arith.andi %b31, %first : i1
    scf.if %last {
      %v0 = gpu.cluster_dim x
      %v1 = gpu.cluster_dim y
      %v2 = gpu.cluster_dim z
      %v3 = gpu.cluster_dim_blocks x
      %v4 = gpu.cluster_dim_blocks y
      %v5 = gpu.cluster_dim_blocks z
      %all = memref.alloca() : memref<10xindex>
      %i0 = arith.constant 0 : index
      %i1 = arith.constant 1 : index
      %i2 = arith.constant 2 : index
      %i3 = arith.constant 3 : index
      %i4 = arith.constant 4 : index
      %i5 = arith.constant 5 : index
      %i6 = arith.constant 6 : index
      %i7 = arith.constant 7 : index
      %i8 = arith.constant 8 : index
      %i9 = arith.constant 9 : index
      memref.store %v0, %all[%i0] : memref<10xindex>
      memref.store %v1, %all[%i1] : memref<10xindex>
      memref.store %v2, %all[%i2] : memref<10xindex>
      memref.store %v3, %all[%i3] : memref<10xindex>
      memref.store %v4, %all[%i4] : memref<10xindex>
      memref.store %v5, %all[%i5] : memref<10xindex>
      memref.store %cx, %all[%i6] : memref<10xindex>
      memref.store %cy, %all[%i7] : memref<10xindex>
      memref.store %sx, %all[%i8] : memref<10xindex>
      memref.store %sy, %all[%i9] : memref<10xindex>
      scf.for %i = %i0 to %c10 step %i1 {
        %v = memref.load %all[%i] : memref<10xindex>
        %v32 = arith.index_cast %v : index to i32
        memref.store %v32, %dims[%i] : memref<10xi32>
      }
    }
    gpu.terminator
  }
  %p = memref.cast %ids : memref<8xi32> to memref<*xi32>
  call @printMemrefI32(%p) : (memref<*xi32>) -> ()
  %q = memref.cast %dims : memref<10xi32> to memref<*xi32>
  call @printMemrefI32(%q) : (memref<*xi32>) -> ()
  return
}

func.func private @printMemrefI32(memref<*xi32>)
