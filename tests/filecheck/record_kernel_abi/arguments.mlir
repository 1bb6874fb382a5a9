// RUN: xmux-opt %s -p record-kernel-abi | filecheck %s
// RUN: xmux-opt %s -p record-kernel-abi,record-kernel-abi | filecheck %s

// Each entry kernel records its name and arguments as the launcher sees them: memrefs with
// their shape (-1: dynamic), layout and whether the kernel may write them (through a callee
// too), scalars with their numpy dtype, local memory (space 3). Helpers are not recorded; a
// second run keeps the first record.

func.func @store(%m: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  memref.store %v, %m[%c0] : memref<?xf32>
  func.return
}

func.func @k(%in: memref<?x4xf32>, %out: memref<?xf32>, %s: memref<8xi32, strided<[2]>>,
             %tile: memref<?xf32, 3>, %n: index, %flag: i1, %x: f16)
    attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %v = memref.load %in[%c0, %c0] : memref<?x4xf32>
  func.call @store(%out, %v) : (memref<?xf32>, f32) -> ()
  func.return
}

// CHECK:      func.func @store(%m: memref<?xf32>, %v: f32) {
// CHECK:      func.func @k({{.*}}) attributes {mux.kernel = "entry_point", mux.kernel_abi = {name = "k", args = [
// CHECK-SAME: {name = "in", kind = "memref", dtype = "float32", shape = array<i64: -1, 4>, strided = false, written = false},
// CHECK-SAME: {name = "out", kind = "memref", dtype = "float32", shape = array<i64: -1>, strided = false, written = true},
// CHECK-SAME: {name = "s", kind = "memref", dtype = "int32", shape = array<i64: 8>, strided = true, written = false, static_strides = array<i64: 2>},
// CHECK-SAME: {name = "tile", kind = "local", dtype = "float32", shape = array<i64: -1>, strided = false, written = true},
// CHECK-SAME: {name = "n", kind = "scalar", dtype = "int64", strided = false, written = true},
// CHECK-SAME: {name = "flag", kind = "scalar", dtype = "bool", strided = false, written = true},
// CHECK-SAME: {name = "x", kind = "scalar", dtype = "float16", strided = false, written = true}]}} {
