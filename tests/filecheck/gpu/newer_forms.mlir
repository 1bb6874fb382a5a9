// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s | xmux-opt | filecheck %s
// Forms of LLVM 20 and newer (subgroup_reduce clusters, printf's comma, launch's
// module/function names) and LLVM 19's printf without the comma, which xmux prints in the
// newer form. A `%r = ...` after an argument-less printf is the next op, not an argument.

func.func @launch(%n: index) {
  gpu.launch blocks(%a0, %a1, %a2) in (%a3 = %n, %a4 = %n, %a5 = %n)
      threads(%a6, %a7, %a8) in (%a9 = %n, %a10 = %n, %a11 = %n) module(@m) function(@f) {
    gpu.terminator
  }
  return
}
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in ({{.*}}) module(@m) function(@f) {

gpu.module @k {
  gpu.func @f(%i: i32, %v: f32) kernel {
    %e = gpu.subgroup_reduce add %i uniform cluster(size = 4) : (i32) -> i32
    %f = gpu.subgroup_reduce mul %v cluster(size = 8, stride = 2) : (f32) -> f32
    gpu.printf "new %d %f\n", %i, %v : i32, f32
    gpu.printf "old %d\n" %i : i32
    gpu.printf "]"
    %a = arith.addi %i, %i : i32
    gpu.return
  }
}
// CHECK:      gpu.subgroup_reduce add %{{.*}} uniform cluster(size = 4) : (i32) -> i32
// CHECK-NEXT: gpu.subgroup_reduce mul %{{.*}} cluster(size = 8, stride = 2) : (f32) -> f32
// CHECK-NEXT: gpu.printf "new %d %f\0A", %{{.*}}, %{{.*}} : i32, f32
// CHECK-NEXT: gpu.printf "old %d\0A", %{{.*}} : i32
// CHECK-NEXT: gpu.printf "]"
// CHECK-NEXT: %{{.*}} = arith.addi
