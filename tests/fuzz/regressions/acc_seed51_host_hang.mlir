// acc fuzz seed 51, minimised by hand: xmux-run --oacc-target=host never finishes (LLVM O3 pass manager)
// c0: nest3 parallel ng=1 nw=1 vl=1 levels='' n=8 m=8 k=5 [min:f32]
"memref.global"() <{sym_name = "g0", sym_visibility = "private", type = memref<320xf32>, initial_value = dense<[-887.0, -688.25, -122.0, 702.25, -955.25, -496.0, -385.75, 722.5, -940.0, 181.25, 637.25, 306.25, -838.25, -877.5, 106.75, -683.25, 937.25, -932.0, -59.0, -760.0, -379.5, -280.75, 713.0, 603.75, 479.0, -793.25, -725.0, 474.0, -137.75, 667.0, -286.75, -796.25, 607.5, -540.25, -18.75, -805.0, -160.5, -44.5, -159.75, 897.75, 445.5, 174.0, 949.5, -145.5, 273.0, 191.5, -148.5, -131.25, 238.0, -869.75, 997.25, 348.75, 800.75, -714.75, -812.5, -699.5, -516.75, -626.0, 87.25, 984.0, -45.25, 995.75, -144.0, -405.25, -344.75, 958.5, 651.25, 877.5, 45.75, -362.25, -906.5, -957.0, 147.25, -288.5, 970.5, -180.75, -252.0, 81.75, -236.25, 585.75, 692.75, -327.5, 182.5, -594.75, 67.25, 482.0, -629.0, -561.75, 113.25, -565.75, -674.5, 793.5, 139.25, 122.0, 561.5, 725.5, -841.0, -965.5, 532.75, -460.25, 634.75, -609.0, -842.5, 42.75, 659.25, -483.0, -887.25, 70.25, 878.5, -526.75, -344.25, 5.75, -319.0, 899.25, -265.0, -811.0, -432.0, 932.75, -824.25, -723.25, 133.0, 351.0, -831.5, 301.25, -205.75, 674.5, -723.0, -211.5, 243.0, -818.0, -522.5, -161.25, -828.75, -287.75, -966.25, 339.0, 629.75, -119.0, -338.0, 307.5, 646.75, -201.25, 803.0, -68.25, -896.25, 57.5, -671.75, 985.0, -807.5, 106.5, -654.0, 952.5, -493.75, -737.0, -601.0, 242.25, -665.0, 539.0, 675.5, 128.5, 791.5, 487.5, 613.25, -240.5, 750.25, 962.5, 44.0, 511.75, -728.5, 124.75, -720.5, -720.75, -273.75, 412.0, -897.5, -340.5, -242.25, -5.25, -301.5, -860.0, -395.75, -133.75, -231.25, 491.25, 866.25, 752.75, -895.75, 171.25, 176.25, -142.0, 647.25, -6.75, 705.0, -763.0, -498.75, -334.5, -220.25, 398.0, 585.25, 461.5, 686.25, -204.25, -454.25, -336.0, 24.25, -503.25, -810.25, 395.5, 827.5, -599.5, 449.0, -314.0, 647.5, -945.75, -486.0, 357.25, -994.0, -807.75, -495.5, 790.75, 136.75, 781.0, -237.5, -657.0, -702.25, -874.5, -186.25, -742.0, -6.75, -648.0, -874.5, -479.75, 752.0, 415.25, 648.5, -991.75, 514.75, 932.0, -628.0, -780.0, 926.75, -909.5, -753.25, -3.0, -124.75, 604.25, 56.5, -44.25, -571.75, -341.5, -309.0, 311.25, 859.75, -114.75, 396.75, 987.0, -819.75, 873.5, 797.5, 28.0, -432.5, 821.25, -210.25, -337.5, 181.25, -162.75, -915.0, 73.0, -917.75, 391.25, -643.75, 921.0, 242.5, -840.5, -120.0, -968.0, 277.75, 320.5, -498.25, 275.5, -86.75, 926.25, -867.25, -973.0, 789.25, 641.0, -159.0, 260.0, -225.75, 277.5, 722.5, 515.5, -827.5, -590.25, -24.75, 434.0, 525.75, -906.0, -321.25, -484.25, 964.25, 529.75, 945.5, 275.0, -24.0, 82.75, 653.25, 232.5, 257.5, 114.25, -255.0, 711.0, 138.75, -317.0, -958.0, 429.5, -144.75, 446.25, -224.5, -574.5]> : tensor<320xf32>, constant}> : () -> ()
acc.reduction.recipe @red_min_f32 : memref<f32> reduction_operator <min> init {
^bb0(%arg0: memref<f32>):
  %id = arith.constant 0x7f800000 : f32
  %p = memref.alloca() : memref<f32>
  memref.store %id, %p[] : memref<f32>
  acc.yield %p : memref<f32>
} combiner {
^bb0(%x: memref<f32>, %y: memref<f32>):
  %a = memref.load %x[] : memref<f32>
  %b = memref.load %y[] : memref<f32>
  %c = arith.minimumf %a, %b : f32
  memref.store %c, %x[] : memref<f32>
  acc.yield %x : memref<f32>
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c320 = arith.constant 320 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %w1 = arith.constant 1 : i32
  %out = memref.alloc() : memref<1xi64>
  %a1 = memref.alloc() : memref<320xf32>
  %g2 = memref.get_global @g0 : memref<320xf32>
  scf.for %k3 = %c0 to %c320 step %c1 {
    %k3_0 = memref.load %g2[%k3] : memref<320xf32>
    memref.store %k3_0, %a1[%k3] : memref<320xf32>
  }
  %s4 = memref.alloc() : memref<f32>
  %s4_i = arith.constant 5.0 : f32
  memref.store %s4_i, %s4[] : memref<f32>
  %cp5 = acc.copyin varPtr(%s4 : memref<f32>) -> memref<f32> {dataClause = #acc<data_clause acc_copy>, name = "c0"}
  %red6 = acc.reduction varPtr(%cp5 : memref<f32>) recipe(@red_min_f32) -> memref<f32> {name = "c0"}
  acc.parallel num_gangs({%w1 : i32}) num_workers(%w1 : i32) vector_length(%w1 : i32) {
    acc.loop gang reduction(%red6 : memref<f32>) control(%g : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
      acc.loop worker reduction(%red6 : memref<f32>) control(%w : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
        acc.loop vector reduction(%red6 : memref<f32>) control(%v : index) = (%c0 : index) to (%c5 : index) step (%c1 : index) {
          %ga = arith.muli %g, %c40 : index
          %wa = arith.muli %w, %c5 : index
          %gw = arith.addi %ga, %wa : index
          %ix = arith.addi %gw, %v : index
          %xv = memref.load %a1[%ix] : memref<320xf32>
          %o0 = memref.load %red6[] : memref<f32>
          %n0_c = arith.cmpf olt, %o0, %xv : f32
          %n0 = arith.select %n0_c, %o0, %xv : f32
          memref.store %n0, %red6[] : memref<f32>
          acc.yield
        } attributes {independent = [#acc.device_type<none>]}
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    } attributes {independent = [#acc.device_type<none>]}
    acc.yield
  }
  %v7 = memref.load %s4[] : memref<f32>
  %b8_a = arith.bitcast %v7 : f32 to i32
  %b8 = arith.extui %b8_a : i32 to i64
  memref.store %b8, %out[%c0] : memref<1xi64>
  %u = "memref.cast"(%out) : (memref<1xi64>) -> memref<*xi64>
  func.call @printMemrefI64(%u) : (memref<*xi64>) -> ()
  func.return
}
func.func private @printMemrefI64(memref<*xi64>)
