// RUN: xmux-opt %s -p 'work-item-loops,replace-local-module-scope-variables' | filecheck %s

// A barrier-free kernel with a CFG body using work-group local memory: work-item-loops
// outlines the body into @k.mux-wi-body (several blocks); the struct pointer becomes its
// trailing argument and the view is built at the top of its entry block.

"memref.global"() <{sym_name = "tile", type = memref<4xi32, 3>, sym_visibility = "private", initial_value}> : () -> ()
func.func @k(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  cf.br ^bb1
^bb1:
  %lid = mux.get_local_linear_id : index
  %gid = mux.get_global_linear_id : index
  %t = memref.get_global @tile : memref<4xi32, 3>
  %x = arith.index_cast %lid : index to i32
  memref.store %x, %t[%lid] : memref<4xi32, 3>
  %y = memref.load %t[%lid] : memref<4xi32, 3>
  memref.store %y, %out[%gid] : memref<?xi32>
  func.return
}

// CHECK:      func.func @k(%out: memref<?xi32>)
// CHECK-NEXT:   %{{.*}} = arith.constant 1 : i64
// CHECK-NEXT:   %local_guarded = llvm.alloca
// CHECK-NEXT:   %local_mem = llvm.getelementptr inbounds %local_guarded[
// CHECK:            func.call @"k.mux-wi-body"(%out, %local_mem) : (memref<?xi32>, !llvm.ptr) -> ()
// CHECK:      func.func private @"k.mux-wi-body"(%out: memref<?xi32>, %local_mem: !llvm.ptr) {
// CHECK-NEXT:   %{{.*}} = llvm.getelementptr inbounds %local_mem[0, 0]
// CHECK:        %tile = builtin.unrealized_conversion_cast
// CHECK-NEXT:   cf.br ^{{.*}}
// CHECK-NEXT: ^{{.*}}:
// CHECK:        memref.store %x, %tile[%lid] : memref<4xi32, 3 : i64>
// CHECK-NOT:    memref.get_global
