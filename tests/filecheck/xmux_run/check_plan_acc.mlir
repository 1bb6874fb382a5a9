// REQUIRES: host-runs-target
// XMUX_CHECK_PLAN=1 checks the barrier plan of work-item loops alone: xmux-run must resolve the
// check callback it calls (acc fuzz seed 5021 on the device, 2026-11-27: MissingSymbolError
// for xmux_check_failed; 177 of 600 programs). The value is the fuzz model's.
// RUN: env XMUX_CHECK_PLAN=1 xmux-run %s | filecheck %s
// RUN: xmux-run %s | filecheck %s
// CHECK: sizes = [1] strides = [1] data =
// CHECK-NEXT: [3992]

"memref.global"() <{sym_name = "g0", sym_visibility = "private", type = memref<245xi64>, initial_value = dense<[-2937, -3416, -362, 3389, -1461, -3530, 3567, 1276, 3579, 910, -3217, -3850, 2094, -1086, 2945, -878, -1543, 2082, -787, -3061, -776, -1743, -883, -2692, -359, -97, 2492, 1631, -3694, -141, 128, -1246, 2366, -1630, 505, 1991, 1061, -3608, 2355, 2932, -433, -3839, 774, -2430, 557, -1746, 600, 2974, -1806, 73, 3729, -1930, 2548, 3025, -2434, -2172, 131, -3426, -3003, -3499, -2413, -1526, -1810, 1505, 2744, -1375, -409, 584, -1404, 2243, 3495, -3651, 2715, -1771, 1108, -2200, 1328, 1965, 1847, -682, 2371, 1131, 387, -3563, 2273, -2956, 1250, 1265, -2454, 1277, -3245, -3936, 827, 3792, -3307, -1261, 450, -3787, -1614, -130, -3380, 534, -2728, -2051, -2585, 3373, -3144, -2543, -1736, 3394, -1113, -2975, -2721, 1169, 272, -1528, -3248, 3351, 614, 212, -3790, -494, 1832, -3478, 2005, 3532, 321, -669, 2332, -2025, 1760, -1300, -2583, -438, -3218, -3145, 3861, -318, -3499, 2714, -3689, 1280, -3635, 1831, 2478, 3876, -726, -417, -1925, -3315, 2786, 3992, 1763, 884, 2002, -267, 3617, 1062, -150, -2200, -2402, 2704, -3114, -1781, -3380, -570, 3553, 1473, -2955, 2572, 365, 1723, -2519, 2212, -3821, 470, 450, 3813, -680, 935, 2851, 305, -463, -3989, 2814, -98, -3431, 3348, -1831, -666, 1939, 1341, 2129, -2089, 452, -2956, 2420, 3205, -3146, 919, 2326, 3861, -2812, -3876, -3696, 3152, 2688, 3224, 2769, 1127, -3381, -3852, -371, 1517, 3932, -1302, 1322, -145, -2482, -3491, 2576, 408, -1796, -3298, 3177, -581, 603, -2912, 39, 310, -3208, -1658, -2475, -3917, 3281, -3121, 1961, 2423, -2175, -2917, -584, 1883, 2857, -2876, -242]> : tensor<245xi64>, constant}> : () -> ()
acc.reduction.recipe @red_max_i64 : memref<i64> reduction_operator <max> init {
^bb0(%arg0: memref<i64>):
  %id = arith.constant -9223372036854775808 : i64
  %p = memref.alloca() : memref<i64>
  memref.store %id, %p[] : memref<i64>
  acc.yield %p : memref<i64>
} combiner {
^bb0(%x: memref<i64>, %y: memref<i64>):
  %a = memref.load %x[] : memref<i64>
  %b = memref.load %y[] : memref<i64>
  %c = arith.maxsi %a, %b : i64
  memref.store %c, %x[] : memref<i64>
  acc.yield %x : memref<i64>
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c245 = arith.constant 245 : index
  %c1 = arith.constant 1 : index
  %c35 = arith.constant 35 : index
  %c7 = arith.constant 7 : index
  %c5 = arith.constant 5 : index
  %w1 = arith.constant 1 : i32
  %w16 = arith.constant 16 : i32
  %out = memref.alloc() : memref<1xi64>
  %a1 = memref.alloc() : memref<245xi64>
  %g2 = memref.get_global @g0 : memref<245xi64>
  scf.for %k3 = %c0 to %c245 step %c1 {
    %k3_0 = memref.load %g2[%k3] : memref<245xi64>
    memref.store %k3_0, %a1[%k3] : memref<245xi64>
  }
  %s4 = memref.alloc() : memref<i64>
  %s4_i = arith.constant -5000 : i64
  memref.store %s4_i, %s4[] : memref<i64>
  %cp5 = acc.copyin varPtr(%s4 : memref<i64>) -> memref<i64> {dataClause = #acc<data_clause acc_copy>, name = "c0"}
  %red6 = acc.reduction varPtr(%cp5 : memref<i64>) recipe(@red_max_i64) -> memref<i64> {name = "c0"}
  acc.parallel num_gangs({%w1 : i32}) num_workers(%w1 : i32) vector_length(%w16 : i32) {
    acc.loop gang reduction(%red6 : memref<i64>) control(%g : index) = (%c0 : index) to (%c7 : index) step (%c1 : index) {
      acc.loop worker reduction(%red6 : memref<i64>) control(%w : index) = (%c0 : index) to (%c5 : index) step (%c1 : index) {
        acc.loop vector reduction(%red6 : memref<i64>) control(%v : index) = (%c0 : index) to (%c7 : index) step (%c1 : index) {
          %ga = arith.muli %g, %c35 : index
          %wa = arith.muli %w, %c7 : index
          %gw = arith.addi %ga, %wa : index
          %ix = arith.addi %gw, %v : index
          %xv = memref.load %a1[%ix] : memref<245xi64>
          %o0 = memref.load %red6[] : memref<i64>
          %n0_c = arith.cmpi sgt, %o0, %xv : i64
          %n0 = arith.select %n0_c, %o0, %xv : i64
          memref.store %n0, %red6[] : memref<i64>
          acc.yield
        } attributes {independent = [#acc.device_type<none>]}
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  %v7 = memref.load %s4[] : memref<i64>
  memref.store %v7, %out[%c0] : memref<1xi64>
  %u = "memref.cast"(%out) : (memref<1xi64>) -> memref<*xi64>
  func.call @printMemrefI64(%u) : (memref<*xi64>) -> ()
  func.return
}
func.func private @printMemrefI64(memref<*xi64>)
