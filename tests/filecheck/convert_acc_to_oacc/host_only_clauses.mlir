// RUN: xmux-opt %s -p convert-acc-to-oacc | filecheck %s
// Host-only OpenACC on a shared-memory target: acc.set, a seq acc.routine, data-only global
// ctor/dtor, acc.declare / declare_enter / declare_exit, acc.host_data + use_device vanish
// (regions inlined); acc.get_* fold to the acc.bounds operands (extent = ub - lb + 1).

memref.global "private" @gx : memref<4xf32> = dense<1.0> {acc.declare = #acc.declare<dataClause = acc_create>}
acc.global_ctor @gx_ctor {
  %g = memref.get_global @gx : memref<4xf32> {acc.declare = #acc.declare<dataClause = acc_create>}
  %d = acc.create varPtr(%g : memref<4xf32>) -> memref<4xf32>
  acc.declare_enter dataOperands(%d : memref<4xf32>)
  acc.terminator
}
acc.routine @twice_r func(@twice) seq
func.func @twice(%a: f32) -> f32 attributes {acc.routine_info = #acc.routine_info<[@twice_r]>} {
  %r = arith.addf %a, %a : f32
  return %r : f32
}
func.func @main(%x: memref<4xf32>, %v: f32, %lo: i32, %hi: index) -> index {
  %n = arith.constant 0 : i32
  acc.set device_num(%n : i32)
  %y = memref.alloc() {acc.declare = #acc.declare<dataClause = acc_create>} : memref<4xf32>
  %yd = acc.create varPtr(%y : memref<4xf32>) -> memref<4xf32>
  acc.declare dataOperands(%yd : memref<4xf32>) {
    %t = acc.declare_enter dataOperands(%yd : memref<4xf32>)
    %u = acc.use_device varPtr(%x : memref<4xf32>) -> memref<4xf32>
    acc.host_data dataOperands(%u : memref<4xf32>) {
      %c1 = arith.constant 1 : index
      memref.store %v, %u[%c1] : memref<4xf32>
      acc.terminator
    }
    acc.declare_exit token(%t) dataOperands(%yd : memref<4xf32>)
    acc.terminator
  }
  %b = acc.bounds lowerbound(%lo : i32) upperbound(%hi : index)
  %e = acc.get_extent %b : (!acc.data_bounds_ty) -> index
  return %e : index
}
// CHECK:       memref.global "private" @gx : memref<4xf32> = dense<1.000000e+00>
// CHECK-NOT:   acc.
// CHECK:       func.func @twice(%a: f32) -> f32 {
// CHECK:       func.func @main(%x: memref<4xf32>, %v: f32, %lo: i32, %hi: index) -> index {
// CHECK-NEXT:    %n = arith.constant 0 : i32
// CHECK-NEXT:    %y = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    memref.store %v, %x[%c1] : memref<4xf32>
// CHECK-NEXT:    %[[LB:.*]] = arith.index_cast %lo : i32 to index
// CHECK-NEXT:    %[[D:.*]] = arith.subi %hi, %[[LB]] : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[E:.*]] = arith.addi %[[D]], %[[ONE]] : index
// CHECK-NEXT:    func.return %[[E]] : index
// CHECK-NOT:   acc.
