// RUN: xmux-opt %s -p 'prepare-barriers,vectorize-local-reduction-trees' | filecheck %s

// The tree as OpenCL C writes it: `for (s = get_local_size(0) / 2; s > 0; s /= 2)` in i32
// (an scf.while), the guard `s > lid`, the barrier first in the body and once more after
// the loop, a signed maximum over a 4-item group's local linear ids. The step gets a barrier
// in front (the loop's first round had one), the one after the loop is kept and no second
// one added; the loop's result, 0, becomes a constant.

module {
  "memref.global"() <{sym_name = "buf", sym_visibility = "private", type = memref<4xi32, 3>, initial_value}> : () -> ()
  func.func @tree(%x: memref<?xi32>, %out: memref<?xi32>)
      attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 2, 2, 1>} {
    %i = mux.get_global_linear_id : index
    %lid = mux.get_local_linear_id : index
    %c0 = arith.constant 0 : index
    %buf = memref.get_global @buf : memref<4xi32, 3>
    %v = memref.load %x[%i] : memref<?xi32>
    memref.store %v, %buf[%lid] : memref<4xi32, 3>
    %lx = mux.get_local_size 0 : index
    %ly = mux.get_local_size 1 : index
    %ls = arith.muli %lx, %ly : index
    %ls32 = arith.index_cast %ls : index to i32
    %two = arith.constant 2 : i32
    %zero = arith.constant 0 : i32
    %h = arith.divsi %ls32, %two : i32
    %lid32 = arith.index_cast %lid : index to i32
    %end = scf.while (%s0 = %h) : (i32) -> i32 {
      %go = arith.cmpi sgt, %s0, %zero : i32
      scf.condition(%go) %s0 : i32
    } do {
    ^bb0(%s: i32):
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
      %active = arith.cmpi sgt, %s, %lid32 : i32
      scf.if %active {
        %o32 = arith.addi %lid32, %s : i32
        %o = arith.index_cast %o32 : i32 to index
        %a = memref.load %buf[%lid] : memref<4xi32, 3>
        %b = memref.load %buf[%o] : memref<4xi32, 3>
        %t = arith.maxsi %a, %b : i32
        memref.store %t, %buf[%lid] : memref<4xi32, 3>
      }
      %next = arith.divsi %s, %two : i32
      scf.yield %next : i32
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %first = arith.cmpi eq, %lid, %c0 : index
    scf.if %first {
      %r = memref.load %buf[%c0] : memref<4xi32, 3>
      %g = mux.get_group_id 0 : index
      memref.store %r, %out[%g] : memref<?xi32>
    }
    %e = arith.index_cast %end : i32 to index
    memref.store %end, %x[%e] : memref<?xi32>
    func.return
  }
}

// CHECK:      %lid32 = arith.index_cast %lid : index to i32
// CHECK-NEXT: mux.work_group_barrier id 1, work_group, <acq_rel, work_group_memory>
// CHECK-NEXT: %{{.*}} = mux.get_local_linear_id : index
// CHECK-NEXT: %{{.*}} = arith.constant 0 : index
// CHECK-NEXT: %{{.*}} = arith.cmpi eq
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %[[V:.*]] = vector.load %buf[%[[C0]]] : memref<4xi32, 3 : i64>, vector<4xi32>
// CHECK-NEXT:   %[[A:.*]] = vector.shuffle %[[V]], %[[V]] [0, 1] : vector<4xi32>, vector<4xi32>
// CHECK-NEXT:   %[[B:.*]] = vector.shuffle %[[V]], %[[V]] [2, 3] : vector<4xi32>, vector<4xi32>
// CHECK-NEXT:   %{{.*}} = arith.maxsi %[[A]], %[[B]] : vector<2xi32>
// CHECK:        %[[M:.*]] = arith.maxsi %{{.*}}, %[[B1:.*]] : vector<1xi32>
// CHECK-NEXT:   vector.store %[[M]], %buf[%[[C0]]] : memref<4xi32, 3 : i64>, vector<1xi32>
// CHECK-NEXT:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:   vector.store %[[B1]], %buf[%[[C1]]] : memref<4xi32, 3 : i64>, vector<1xi32>
// CHECK-NEXT: }{mux.single_work_item}
// CHECK-NEXT: %[[END:.*]] = arith.constant 0 : i32
// CHECK-NEXT: mux.work_group_barrier id 2, work_group, <acq_rel, work_group_memory>
// CHECK-NOT:  mux.work_group_barrier
// CHECK:      %e = arith.index_cast %[[END]] : i32 to index
// CHECK-NEXT: memref.store %[[END]], %x[%e] : memref<?xi32>
