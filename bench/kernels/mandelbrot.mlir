// Mandelbrot escape-time count per pixel (kernels/transforms.cl: mandelbrot): an scf.while
// whose trip count is data (0 .. maxit per work-item). c = (x0 + x*dx, y0 + y*dy) in f32;
// z = z^2 + c while |z|^2 <= 4 and k < maxit; out[y][x] = k. No fused multiply-adds (the
// OpenCL twin turns FP_CONTRACT off), so the counts are exact against numpy's f32 loop.
func.func @mandelbrot(%x0: f32, %dx: f32, %y0: f32, %dy: f32, %maxit: i32,
                      %out: memref<?x?xi32>)
    attributes {mux.kernel = "entry_point"} {
  %x = mux.get_global_id 0 : index
  %y = mux.get_global_id 1 : index
  %xi = arith.index_cast %x : index to i32
  %yi = arith.index_cast %y : index to i32
  %xf = arith.sitofp %xi : i32 to f32
  %yf = arith.sitofp %yi : i32 to f32
  %xs = arith.mulf %xf, %dx : f32
  %cx = arith.addf %x0, %xs : f32
  %ys = arith.mulf %yf, %dy : f32
  %cy = arith.addf %y0, %ys : f32
  %zero = arith.constant 0.000000e+00 : f32
  %four = arith.constant 4.000000e+00 : f32
  %k0 = arith.constant 0 : i32
  %k1 = arith.constant 1 : i32
  %r:3 = scf.while (%zx = %zero, %zy = %zero, %k = %k0) : (f32, f32, i32) -> (f32, f32, i32) {
    %xx = arith.mulf %zx, %zx : f32
    %yy = arith.mulf %zy, %zy : f32
    %m = arith.addf %xx, %yy : f32
    %inside = arith.cmpf ole, %m, %four : f32
    %more = arith.cmpi slt, %k, %maxit : i32
    %go = arith.andi %inside, %more : i1
    scf.condition(%go) %zx, %zy, %k : f32, f32, i32
  } do {
  ^bb0(%zx: f32, %zy: f32, %k: i32):
    %xx = arith.mulf %zx, %zx : f32
    %yy = arith.mulf %zy, %zy : f32
    %d = arith.subf %xx, %yy : f32
    %nx = arith.addf %d, %cx : f32
    %xy = arith.mulf %zx, %zy : f32
    %xy2 = arith.addf %xy, %xy : f32
    %ny = arith.addf %xy2, %cy : f32
    %kn = arith.addi %k, %k1 : i32
    scf.yield %nx, %ny, %kn : f32, f32, i32
  }
  memref.store %r#2, %out[%y, %x] : memref<?x?xi32>
  func.return
}
