// A data-dependent branch per work-item (kernels/transforms.cl: branch_heavy): on random
// signs half the work-items of every group take each side.
//   x > 0:  y = sqrt(x) * p(x) / (1 + x*x),  p = a degree-8 polynomial (Horner)
//   else:   y = x * 0.5 - 1
func.func @branch_heavy(%x: memref<?xf32>, %y: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %pos = arith.cmpf ogt, %v, %zero : f32
  %r = scf.if %pos -> (f32) {
    %a8 = arith.constant 0.0625 : f32
    %a7 = arith.constant -0.125 : f32
    %a6 = arith.constant 0.1875 : f32
    %a5 = arith.constant -0.25 : f32
    %a4 = arith.constant 0.3125 : f32
    %a3 = arith.constant -0.375 : f32
    %a2 = arith.constant 0.4375 : f32
    %a1 = arith.constant -0.5 : f32
    %m8 = arith.mulf %a8, %v : f32
    %p7 = arith.addf %m8, %a7 : f32
    %m7 = arith.mulf %p7, %v : f32
    %p6 = arith.addf %m7, %a6 : f32
    %m6 = arith.mulf %p6, %v : f32
    %p5 = arith.addf %m6, %a5 : f32
    %m5 = arith.mulf %p5, %v : f32
    %p4 = arith.addf %m5, %a4 : f32
    %m4 = arith.mulf %p4, %v : f32
    %p3 = arith.addf %m4, %a3 : f32
    %m3 = arith.mulf %p3, %v : f32
    %p2 = arith.addf %m3, %a2 : f32
    %m2 = arith.mulf %p2, %v : f32
    %p1 = arith.addf %m2, %a1 : f32
    %m1 = arith.mulf %p1, %v : f32
    %p0 = arith.addf %m1, %one : f32
    %sq = math.sqrt %v : f32
    %num = arith.mulf %sq, %p0 : f32
    %vv = arith.mulf %v, %v : f32
    %den = arith.addf %one, %vv : f32
    %q = arith.divf %num, %den : f32
    scf.yield %q : f32
  } else {
    %half = arith.constant 0.5 : f32
    %h = arith.mulf %v, %half : f32
    %o = arith.subf %h, %one : f32
    scf.yield %o : f32
  }
  memref.store %r, %y[%i] : memref<?xf32>
  func.return
}
