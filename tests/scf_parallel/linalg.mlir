// Source of the upstream-generated programs next to it (gen.py runs mlir-opt-19 on it).
// linalg reductions and a matmul on dynamic memrefs; @main fills A (5x7) and B (7x4) with
// small integers ((3 i + 2 j) mod 11 - 5, and (i + 4 j) mod 7 - 3), so every sum is exact,
// and prints: sum(A), the row sums of A, the column maxima of A, A @ B.
#id = affine_map<(i, j) -> (i, j)>
func.func @sum(%a: memref<?x?xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [#id, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<?x?xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func @rowsum(%a: memref<?x?xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func @colmax(%a: memref<?x?xf32>, %out: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<?x?xf32>) outs(%out : memref<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.maximumf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func @matmul(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

func.func private @printMemrefF32(memref<*xf32>)
func.func @fill(%m: memref<?x?xf32>, %p: index, %q: index, %r: index, %off: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n0 = memref.dim %m, %c0 : memref<?x?xf32>
  %n1 = memref.dim %m, %c1 : memref<?x?xf32>
  %offi = arith.index_cast %off : index to i32
  scf.for %i = %c0 to %n0 step %c1 {
    scf.for %j = %c0 to %n1 step %c1 {
      %pi = arith.muli %i, %p : index
      %qj = arith.muli %j, %q : index
      %s = arith.addi %pi, %qj : index
      %m0 = arith.remui %s, %r : index
      %mi = arith.index_cast %m0 : index to i32
      %v = arith.subi %mi, %offi : i32
      %f = arith.sitofp %v : i32 to f32
      memref.store %f, %m[%i, %j] : memref<?x?xf32>
    }
  }
  return
}
func.func @zero(%m: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %zero = arith.constant 0.0 : f32
  %low = arith.constant -1.0e30 : f32
  %a = memref.alloc(%c5, %c7) : memref<?x?xf32>
  %b = memref.alloc(%c7, %c4) : memref<?x?xf32>
  call @fill(%a, %c3, %c2, %c11, %c5) : (memref<?x?xf32>, index, index, index, index) -> ()
  call @fill(%b, %c1, %c4, %c7, %c3) : (memref<?x?xf32>, index, index, index, index) -> ()
  %s = memref.alloc() : memref<f32>
  memref.store %zero, %s[] : memref<f32>
  call @sum(%a, %s) : (memref<?x?xf32>, memref<f32>) -> ()
  %su = memref.cast %s : memref<f32> to memref<*xf32>
  call @printMemrefF32(%su) : (memref<*xf32>) -> ()
  %rs = memref.alloc(%c5) : memref<?xf32>
  call @zero(%rs, %zero) : (memref<?xf32>, f32) -> ()
  call @rowsum(%a, %rs) : (memref<?x?xf32>, memref<?xf32>) -> ()
  %rsu = memref.cast %rs : memref<?xf32> to memref<*xf32>
  call @printMemrefF32(%rsu) : (memref<*xf32>) -> ()
  %cm = memref.alloc(%c7) : memref<?xf32>
  call @zero(%cm, %low) : (memref<?xf32>, f32) -> ()
  call @colmax(%a, %cm) : (memref<?x?xf32>, memref<?xf32>) -> ()
  %cmu = memref.cast %cm : memref<?xf32> to memref<*xf32>
  call @printMemrefF32(%cmu) : (memref<*xf32>) -> ()
  %c = memref.alloc(%c5, %c4) : memref<?x?xf32>
  call @fill(%c, %c1, %c1, %c1, %c0) : (memref<?x?xf32>, index, index, index, index) -> ()
  call @matmul(%a, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %cu = memref.cast %c : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%cu) : (memref<*xf32>) -> ()
  return
}
