// RUN: xmux-opt %s | filecheck %s
// gpu.module targets and offloading handlers of other dialects (nvvm, rocdl) are kept as
// they are: the CPU compiles for none of them.

gpu.module @m [#nvvm.target, #rocdl.target<chip = "gfx90a">] {
  gpu.func @k() kernel {
    gpu.return
  }
}
gpu.module @n <#gpu.select_object<0>> [#nvvm.target<chip = "sm_90">] {
}
// CHECK:      gpu.module @m [#nvvm.target, #rocdl.target<chip = "gfx90a">] {
// CHECK-NEXT:   gpu.func @k() kernel {
// CHECK:      gpu.module @n <#gpu.select_object<0>> [#nvvm.target<chip = "sm_90">] {
