// RUN: xmux-opt %s -p record-kernel-abi | filecheck %s

// A strided layout's static offset and strides are recorded (the launcher passes an array
// so that its element 0 is the memref's, and refuses one whose strides differ from the fixed
// ones); a dynamic offset or stride is not (-2^63 marks a dynamic stride among static ones).
// Static local arrays that every work-item indexes by its local id record the local sizes
// they were written for (mux.local_size_limits: the smallest per dimension); accesses under
// a condition, or in a loop that may not run, do not count.

"memref.global"() <{sym_name = "tile", type = memref<16x8xf32, 3>, sym_visibility = "private", initial_value}> : () -> ()
"memref.global"() <{sym_name = "row", type = memref<32xf32, 3>, sym_visibility = "private", initial_value}> : () -> ()

// CHECK-LABEL: func.func @layouts(
// CHECK-SAME: {name = "w", kind = "memref", dtype = "float32", shape = array<i64: 32>, strided = true, written = false, offset = 2 : i64, static_strides = array<i64: 1>}
// CHECK-SAME: {name = "d", kind = "memref", dtype = "float32", shape = array<i64: 4, 4>, strided = true, written = false, static_strides = array<i64: -9223372036854775808, 1>}
// CHECK-SAME: {name = "any", kind = "memref", dtype = "float32", shape = array<i64: -1>, strided = true, written = true}
// CHECK-NOT: mux.local_size_limits
func.func @layouts(%w: memref<32xf32, strided<[1], offset: 2>>,
                   %d: memref<4x4xf32, strided<[?, 1], offset: ?>>,
                   %any: memref<?xf32, strided<[?], offset: ?>>)
    attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %v = memref.load %w[%c0] : memref<32xf32, strided<[1], offset: 2>>
  %u = memref.load %d[%c0, %c0] : memref<4x4xf32, strided<[?, 1], offset: ?>>
  memref.store %v, %any[%c0] : memref<?xf32, strided<[?], offset: ?>>
  func.return
}

// CHECK-LABEL: func.func @tiled(
// CHECK-SAME: mux.local_size_limits = [{dim = 0 : i64, max = 7 : i64, memory = "global @tile"}, {dim = 1 : i64, max = 16 : i64, memory = "global @tile"}]
func.func @tiled(%n: index) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %f = arith.constant 1.0 : f32
  %lx = mux.get_local_id 0 : index
  %ly = mux.get_local_id 1 : index
  %t = memref.get_global @tile : memref<16x8xf32, 3>
  memref.store %f, %t[%ly, %lx] : memref<16x8xf32, 3>
  scf.for %i = %c0 to %c2 step %c1 {
    %lx1 = arith.addi %lx, %c1 : index
    memref.store %f, %t[%ly, %lx1] : memref<16x8xf32, 3>
  }
  // may not run, and under a condition: no limit from these
  %r = memref.get_global @row : memref<32xf32, 3>
  scf.for %i = %c0 to %n step %c1 {
    %lx3 = arith.addi %lx, %c3 : index
    memref.store %f, %t[%ly, %lx3] : memref<16x8xf32, 3>
  }
  %small = arith.cmpi ult, %lx, %c2 : index
  scf.if %small {
    memref.store %f, %r[%lx] : memref<32xf32, 3>
    %lx2 = arith.addi %lx, %c3 : index
    memref.store %f, %t[%ly, %lx2] : memref<16x8xf32, 3>
  }
  func.return
}
