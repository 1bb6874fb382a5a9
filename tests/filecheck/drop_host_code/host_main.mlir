// RUN: xmux-opt %s -p drop-host-code | filecheck %s

// The kernels and what they reach stay (@helper, the global it reads); host code (@main, the
// printMemref declaration, the global only @main uses) goes.

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" @host_only : memref<4xf32> = dense<0.0>

func.func @helper(%i: index) -> f32 {
  %t = memref.get_global @table : memref<4xf32>
  %v = memref.load %t[%i] : memref<4xf32>
  func.return %v : f32
}

func.func @k(%a: memref<4xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = func.call @helper(%i) : (index) -> f32
  memref.store %v, %a[%i] : memref<4xf32>
  func.return
}

func.func @main() {
  %h = memref.get_global @host_only : memref<4xf32>
  %u = memref.cast %h : memref<4xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  func.return
}

func.func private @printMemrefF32(memref<*xf32>)

// CHECK:      builtin.module {
// CHECK-NEXT:   memref.global {{.*}}@table :
// CHECK-NEXT:   func.func @helper(
// CHECK:        func.func @k(
// CHECK-NOT:    @host_only
// CHECK-NOT:    @main
// CHECK-NOT:    @printMemrefF32
