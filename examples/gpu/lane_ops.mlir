// RUN: xmux-run %s | filecheck %s
// RUN: xmux-run --interpret %s | filecheck %s
// The newer lane ops in one block of two warps (64 threads), thread t holding t:
// - gpu.rotate %t, 3, 16: lanes 0..15 read lane (lane + 3) mod 16 of their warp (valid),
//   the others get `valid` false and store -1;
// - gpu.subgroup_broadcast: specific_lane 5 + 100 * first_active_lane = 32w + 5 + 3200w;
// - gpu.warp_execute_on_lane_0: lane l passes <2t, 2t + 1>; lane 0 sees the warp's
//   vector<64xf32> (element k = 64w + k) and its sum S = 4096w + 2016, yields S (uniform)
//   and element k + 1000k + S (distributed back: lane l gets elements 2l and 2l + 1).

// CHECK:      [3,  4,  5,  6,  7,  8,  9,  10,  11,  12,  13,  14,  15,  0,  1,  2,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  35,  36,  37,  38,  39,  40,  41,  42,  43,  44,  45,  46,  47,  32,  33,  34,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1,  -1]
// CHECK:      [5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  5,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237,  3237]
// CHECK:      [2016,  3017,  4018,  5019,  6020,  7021,  8022,  9023,  10024,  11025,  12026,  13027,  14028,  15029,  16030,  17031,  18032,  19033,  20034,  21035,  22036,  23037,  24038,  25039,  26040,  27041,  28042,  29043,  30044,  31045,  32046,  33047,  34048,  35049,  36050,  37051,  38052,  39053,  40054,  41055,  42056,  43057,  44058,  45059,  46060,  47061,  48062,  49063,  50064,  51065,  52066,  53067,  54068,  55069,  56070,  57071,  58072,  59073,  60074,  61075,  62076,  63077,  64078,  65079,  6176,  7177,  8178,  9179,  10180,  11181,  12182,  13183,  14184,  15185,  16186,  17187,  18188,  19189,  20190,  21191,  22192,  23193,  24194,  25195,  26196,  27197,  28198,  29199,  30200,  31201,  32202,  33203,  34204,  35205,  36206,  37207,  38208,  39209,  40210,  41211,  42212,  43213,  44214,  45215,  46216,  47217,  48218,  49219,  50220,  51221,  52222,  53223,  54224,  55225,  56226,  57227,  58228,  59229,  60230,  61231,  62232,  63233,  64234,  65235,  66236,  67237,  68238,  69239]
// CHECK:      [2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  2016,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112,  6112]
func.func @main() {
  %rot = memref.alloc() : memref<64xi32>
  %bc = memref.alloc() : memref<64xi32>
  %rev = memref.alloc() : memref<128xi32>
  %sum = memref.alloc() : memref<64xi32>
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %t = arith.index_cast %tx : index to i32
    %r, %ok = gpu.rotate %t, 3, 16 : i32
    %m1 = arith.constant -1 : i32
    %rv = arith.select %ok, %r, %m1 : i32
    memref.store %rv, %rot[%tx] : memref<64xi32>

    %l5 = arith.constant 5 : i32
    %b5 = gpu.subgroup_broadcast %t, specific_lane %l5 : i32
    %b0 = gpu.subgroup_broadcast %t, first_active_lane : i32
    %c100 = arith.constant 100 : i32
    %b0h = arith.muli %b0, %c100 : i32
    %bsum = arith.addi %b5, %b0h : i32
    memref.store %bsum, %bc[%tx] : memref<64xi32>

    %c2 = arith.constant 2 : i32
    %t2 = arith.muli %t, %c2 : i32
    %one = arith.constant 1 : i32
    %t21 = arith.addi %t2, %one : i32
    %f0 = arith.sitofp %t2 : i32 to f32
    %f1 = arith.sitofp %t21 : i32 to f32
    %z = arith.constant dense<0.0> : vector<2xf32>
    %v0 = vector.insert %f0, %z [0] : f32 into vector<2xf32>
    %v = vector.insert %f1, %v0 [1] : f32 into vector<2xf32>
    %lane = gpu.lane_id
    %mine, %total = gpu.warp_execute_on_lane_0(%lane)[32] args(%v : vector<2xf32>) -> (vector<2xf32>, f32) {
    ^bb0(%all: vector<64xf32>):
      %iota = arith.constant dense<[0.0, 1000.0, 2000.0, 3000.0, 4000.0, 5000.0, 6000.0, 7000.0, 8000.0, 9000.0, 10000.0, 11000.0, 12000.0, 13000.0, 14000.0, 15000.0, 16000.0, 17000.0, 18000.0, 19000.0, 20000.0, 21000.0, 22000.0, 23000.0, 24000.0, 25000.0, 26000.0, 27000.0, 28000.0, 29000.0, 30000.0, 31000.0, 32000.0, 33000.0, 34000.0, 35000.0, 36000.0, 37000.0, 38000.0, 39000.0, 40000.0, 41000.0, 42000.0, 43000.0, 44000.0, 45000.0, 46000.0, 47000.0, 48000.0, 49000.0, 50000.0, 51000.0, 52000.0, 53000.0, 54000.0, 55000.0, 56000.0, 57000.0, 58000.0, 59000.0, 60000.0, 61000.0, 62000.0, 63000.0]> : vector<64xf32>
      %s = vector.reduction <add>, %all : vector<64xf32> into f32
      %splat = vector.broadcast %s : f32 to vector<64xf32>
      %moved = arith.addf %all, %iota : vector<64xf32>
      %back = arith.addf %moved, %splat : vector<64xf32>
      gpu.yield %back, %s : vector<64xf32>, f32
    }
    %e0 = vector.extract %mine[0] : f32 from vector<2xf32>
    %e1 = vector.extract %mine[1] : f32 from vector<2xf32>
    %i0 = arith.fptosi %e0 : f32 to i32
    %i1 = arith.fptosi %e1 : f32 to i32
    %c2i = arith.constant 2 : index
    %p0 = arith.muli %tx, %c2i : index
    %p1 = arith.addi %p0, %c1 : index
    memref.store %i0, %rev[%p0] : memref<128xi32>
    memref.store %i1, %rev[%p1] : memref<128xi32>
    %si = arith.fptosi %total : f32 to i32
    memref.store %si, %sum[%tx] : memref<64xi32>
    gpu.terminator
  }
  %p = memref.cast %rot : memref<64xi32> to memref<*xi32>
  call @printMemrefI32(%p) : (memref<*xi32>) -> ()
  %q = memref.cast %bc : memref<64xi32> to memref<*xi32>
  call @printMemrefI32(%q) : (memref<*xi32>) -> ()
  %u = memref.cast %rev : memref<128xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  %w = memref.cast %sum : memref<64xi32> to memref<*xi32>
  call @printMemrefI32(%w) : (memref<*xi32>) -> ()
  return
}

func.func private @printMemrefI32(memref<*xi32>)
