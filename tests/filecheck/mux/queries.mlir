// RUN: xmux-opt %s | filecheck %s
// RUN: xmux-opt %s --print-op-generic | xmux-opt | filecheck %s
// RUN: xmux-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Every work-item query, with each allowed result type, and mux.set_local_id.

// CHECK-LABEL: func.func @dim_queries
// CHECK-NEXT:    %{{.*}} = mux.get_global_id 0 : index
// CHECK-NEXT:    %{{.*}} = mux.get_local_id 1 : i32
// CHECK-NEXT:    %{{.*}} = mux.get_global_size 2 : i64
// CHECK-NEXT:    %{{.*}} = mux.get_local_size 0 : index
// CHECK-NEXT:    %{{.*}} = mux.get_enqueued_local_size 1 : index
// CHECK-NEXT:    %{{.*}} = mux.get_global_offset 2 : i32
// CHECK-NEXT:    %{{.*}} = mux.get_num_groups 0 : i64
// CHECK-NEXT:    %{{.*}} = mux.get_group_id 1 : index
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "dim_queries"
// GENERIC:      "mux.get_global_id"() <{dim = 0 : i32}> : () -> index
// GENERIC-NEXT: "mux.get_local_id"() <{dim = 1 : i32}> : () -> i32
func.func @dim_queries() {
  %0 = mux.get_global_id 0 : index
  %1 = mux.get_local_id 1 : i32
  %2 = mux.get_global_size 2 : i64
  %3 = mux.get_local_size 0 : index
  %4 = mux.get_enqueued_local_size 1 : index
  %5 = mux.get_global_offset 2 : i32
  %6 = mux.get_num_groups 0 : i64
  %7 = mux.get_group_id 1 : index
  func.return
}

// CHECK-LABEL: func.func @queries
// CHECK-NEXT:    %{{.*}} = mux.get_work_dim : i32
// CHECK-NEXT:    %{{.*}} = mux.get_global_linear_id : index
// CHECK-NEXT:    %{{.*}} = mux.get_local_linear_id : i64
// CHECK-NEXT:    %{{.*}} = mux.get_sub_group_id : i32
// CHECK-NEXT:    %{{.*}} = mux.get_sub_group_local_id : i32
// CHECK-NEXT:    %{{.*}} = mux.get_sub_group_size : i32
// CHECK-NEXT:    %{{.*}} = mux.get_max_sub_group_size : i32
// CHECK-NEXT:    %{{.*}} = mux.get_num_sub_groups : index
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "queries"
// GENERIC:      "mux.get_work_dim"() : () -> i32
func.func @queries() {
  %0 = mux.get_work_dim : i32
  %1 = mux.get_global_linear_id : index
  %2 = mux.get_local_linear_id : i64
  %3 = mux.get_sub_group_id : i32
  %4 = mux.get_sub_group_local_id : i32
  %5 = mux.get_sub_group_size : i32
  %6 = mux.get_max_sub_group_size : i32
  %7 = mux.get_num_sub_groups : index
  func.return
}

// CHECK-LABEL: func.func @set_local_id
// CHECK-SAME:    (%[[IV:.*]]: index, %[[J:.*]]: i64)
// CHECK-NEXT:    mux.set_local_id 0, %[[IV]] : index
// CHECK-NEXT:    mux.set_local_id 2, %[[J]] : i64
// GENERIC-LABEL: "func.func"() <{sym_name = "set_local_id"
// GENERIC:      "mux.set_local_id"(%{{.*}}) <{dim = 0 : i32}> : (index) -> ()
func.func @set_local_id(%iv: index, %j: i64) {
  mux.set_local_id 0, %iv : index
  mux.set_local_id 2, %j : i64
  func.return
}
