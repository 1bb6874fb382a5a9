// RUN: not xmux-opt %s 2>&1 | filecheck %s
// An op of a newer upstream gpu dialect than xmux knows gets an error naming it.

gpu.module @k {
  gpu.func @f(%v: f32) kernel {
    %r, %ok = gpu.rotate %v, 3, 16 : f32
    gpu.return
  }
}
// CHECK: Operation gpu.rotate is not registered
