// OpenACC: maxima over a 2-D loop nest (upstream MLIR's acc dialect as input).
//   #pragma acc parallel num_gangs(8) vector_length(32) copy(m) copyout(rowmax)
//   #pragma acc loop gang reduction(max:m) private(r)
//   for (i = 0; i < 64; i++) {
//     r = -inf;
//     #pragma acc loop vector reduction(max:r)
//     for (j = 0; j < 100; j++) r = fmax(r, a[i][j]);
//     rowmax[i] = r;  m = fmax(m, r);
//   }
// The vector reduction's RESULT is the gang-private r (no RES_PTR, no dummy gang level); the
// gang reduction's RESULT is the copy object m. a[i][j] = ((37 i + 11 j) mod 101) - 50 +
// i / 4 (so the row maxima differ); rowmax is printed with m appended.
module {
  acc.reduction.recipe @max_f32 : memref<f32> reduction_operator <max> init {
  ^bb0(%arg0: memref<f32>):
    %lo = arith.constant 0xFF800000 : f32
    %p = memref.alloc() : memref<f32>
    memref.store %lo, %p[] : memref<f32>
    acc.yield %p : memref<f32>
  } combiner {
  ^bb0(%a: memref<f32>, %b: memref<f32>):
    %0 = memref.load %a[] : memref<f32>
    %1 = memref.load %b[] : memref<f32>
    %2 = arith.maximumf %0, %1 : f32
    memref.store %2, %a[] : memref<f32>
    acc.yield %a : memref<f32>
  }
  acc.private.recipe @priv_f32 : memref<f32> init {
  ^bb0(%arg0: memref<f32>):
    %p = memref.alloc() : memref<f32>
    acc.yield %p : memref<f32>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c11 = arith.constant 11 : index
    %c37 = arith.constant 37 : index
    %c50 = arith.constant 50 : index
    %c101 = arith.constant 101 : index
    %rows = arith.constant 64 : index
    %cols = arith.constant 100 : index
    %ng = arith.constant 8 : i32
    %vl = arith.constant 32 : i32
    %lowest = arith.constant 0xFF800000 : f32
    %a = memref.alloc() : memref<64x100xf32>
    %out = memref.alloc() : memref<65xf32>
    %m = memref.alloc() : memref<f32>
    %r = memref.alloca() : memref<f32>
    memref.store %lowest, %m[] : memref<f32>
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %t1 = arith.muli %i, %c37 : index
        %t2 = arith.muli %j, %c11 : index
        %t3 = arith.addi %t1, %t2 : index
        %t4 = arith.remui %t3, %c101 : index
        %t5 = arith.divui %i, %c4 : index
        %t6 = arith.addi %t4, %t5 : index
        %t7 = arith.subi %t6, %c50 : index
        %t8 = arith.index_cast %t7 : index to i64
        %f = arith.sitofp %t8 : i64 to f32
        memref.store %f, %a[%i, %j] : memref<64x100xf32>
      }
    }
    %ain = acc.copyin varPtr(%a : memref<64x100xf32>) -> memref<64x100xf32> {name = "a"}
    %oc = acc.create varPtr(%out : memref<65xf32>) -> memref<65xf32> {dataClause = #acc<data_clause acc_copyout>, name = "rowmax"}
    %mc = acc.copyin varPtr(%m : memref<f32>) -> memref<f32> {dataClause = #acc<data_clause acc_copy>, name = "m"}
    %mred = acc.reduction varPtr(%mc : memref<f32>) recipe(@max_f32) -> memref<f32> {name = "m"}
    %rp = acc.private varPtr(%r : memref<f32>) recipe(@priv_f32) -> memref<f32> {name = "r"}
    acc.parallel dataOperands(%ain, %oc, %mc : memref<64x100xf32>, memref<65xf32>, memref<f32>) num_gangs({%ng : i32}) vector_length(%vl : i32) {
      acc.loop gang private(%rp : memref<f32>) reduction(%mred : memref<f32>) control(%i : index) = (%c0 : index) to (%rows : index) step (%c1 : index) {
        memref.store %lowest, %rp[] : memref<f32>
        %rred = acc.reduction varPtr(%rp : memref<f32>) recipe(@max_f32) -> memref<f32> {name = "r"}
        acc.loop vector reduction(%rred : memref<f32>) control(%j : index) = (%c0 : index) to (%cols : index) step (%c1 : index) {
          %v = memref.load %ain[%i, %j] : memref<64x100xf32>
          %cur = memref.load %rred[] : memref<f32>
          %nxt = arith.maximumf %cur, %v : f32
          memref.store %nxt, %rred[] : memref<f32>
          acc.yield
        } attributes {independent = [#acc.device_type<none>]}
        %rv = memref.load %rp[] : memref<f32>
        memref.store %rv, %oc[%i] : memref<65xf32>
        %m0 = memref.load %mred[] : memref<f32>
        %m1 = arith.maximumf %m0, %rv : f32
        memref.store %m1, %mred[] : memref<f32>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }
    acc.copyout accPtr(%oc : memref<65xf32>) to varPtr(%out : memref<65xf32>) {name = "rowmax"}
    acc.copyout accPtr(%mc : memref<f32>) to varPtr(%m : memref<f32>) {dataClause = #acc<data_clause acc_copy>, name = "m"}
    %mv = memref.load %m[] : memref<f32>
    memref.store %mv, %out[%rows] : memref<65xf32>
    %u = "memref.cast"(%out) : (memref<65xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %a : memref<64x100xf32>
    memref.dealloc %out : memref<65xf32>
    memref.dealloc %m : memref<f32>
    func.return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
