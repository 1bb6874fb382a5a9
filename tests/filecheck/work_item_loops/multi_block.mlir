// RUN: xmux-opt %s -p work-item-loops | filecheck %s
// RUN: xmux-opt %s -p work-item-loops | xmux-opt | filecheck %s

// A CFG body (cf branches, several returns) is outlined into a private function with the
// kernel's arguments, called from the innermost work-item loop.

func.func @guarded(%a: memref<?xi32>, %n: index) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %in = arith.cmpi ult, %i, %n : index
  cf.cond_br %in, ^store, ^done
^store:
  %one = arith.constant 1 : i32
  memref.store %one, %a[%i] : memref<?xi32>
  func.return
^done:
  func.return
}

// CHECK-LABEL: func.func @guarded(%a: memref<?xi32>, %n: index) attributes {mux.kernel = "entry_point"} {
// CHECK:             scf.for %x = {{.*}} {
// CHECK-NEXT:          mux.set_local_id 0, %x : index
// CHECK-NEXT:          func.call @"guarded.mux-wi-body"(%a, %n) : (memref<?xi32>, index) -> ()
// CHECK-NEXT:        } {mux.work_item_loop}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// CHECK-NEXT:  func.func private @"guarded.mux-wi-body"(%a: memref<?xi32>, %n: index) {
// CHECK-NEXT:    %i = mux.get_global_id 0 : index
// CHECK-NEXT:    %in = arith.cmpi ult, %i, %n : index
// CHECK-NEXT:    cf.cond_br %in, ^[[STORE:.*]], ^[[DONE:.*]]
// CHECK-NEXT:  ^[[STORE]]:
// CHECK-NEXT:    %one = arith.constant 1 : i32
// CHECK-NEXT:    memref.store %one, %a[%i] : memref<?xi32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  ^[[DONE]]:
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
