// RUN: not xmux-opt %s 2>&1 | filecheck %s
// An op of a newer upstream gpu dialect than xmux knows gets an error naming it.

gpu.module @k {
  gpu.func @f(%v: f32) kernel {
    %r = gpu.ballot %v : f32
    gpu.return
  }
}
// CHECK: Operation gpu.ballot is not registered
