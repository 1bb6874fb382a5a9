// RUN: xmux-opt %s -p lower-work-group-collectives-nvptx | filecheck %s

// Shapes that keep the broadcast (two barriers, every work-item loads slot 32): the value
// may be read by other work-items than 0, or a collective may follow that reuses the slots.

// CHECK-LABEL: func.func @everyone(
// CHECK-COUNT-2: mux.work_group_barrier
// CHECK:         %s = memref.load %scratch
func.func @everyone(%x: memref<?xf32>, %o: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  memref.store %s, %o[%i] : memref<?xf32>
  func.return
}

// a use in the else region; a condition on local id 1; on the group id
// CHECK-LABEL: func.func @else_use(
// CHECK-COUNT-2: mux.work_group_barrier
// CHECK:         %s = memref.load %scratch
func.func @else_use(%x: memref<?xf32>, %o: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  %lid = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.if %first {
  } else {
    memref.store %s, %o[%i] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @lid_one(
// CHECK-COUNT-2: mux.work_group_barrier
// CHECK:         %s = memref.load %scratch
func.func @lid_one(%x: memref<?xf32>, %o: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  %lid = mux.get_local_id 0 : index
  %c1 = arith.constant 1 : index
  %second = arith.cmpi eq, %lid, %c1 : index
  scf.if %second {
    memref.store %s, %o[%i] : memref<?xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @group_zero(
// CHECK-COUNT-2: mux.work_group_barrier
// CHECK:         %s = memref.load %scratch
func.func @group_zero(%x: memref<?xf32>, %o: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  %g = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %g, %c0 : index
  scf.if %first {
    memref.store %s, %o[%i] : memref<?xf32>
  }
  func.return
}

// a division outside the region (UB on another work-item's value); the value in the
// condition of the region
// CHECK-LABEL: func.func @divides(
// CHECK-COUNT-2: mux.work_group_barrier
// CHECK:         %s = memref.load %scratch
func.func @divides(%x: memref<?xi32>, %o: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %s = mux.work_group_reduce add %v : i32
  %c7 = arith.constant 7 : i32
  %q = arith.divsi %c7, %s : i32
  %lid = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.if %first {
    memref.store %q, %o[%i] : memref<?xi32>
  }
  func.return
}

// CHECK-LABEL: func.func @in_condition(
// CHECK-COUNT-2: mux.work_group_barrier
// CHECK:         %s = memref.load %scratch
func.func @in_condition(%x: memref<?xi32>, %o: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %s = mux.work_group_reduce add %v : i32
  %c0_i32 = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %s, %c0_i32 : i32
  %lid = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lid, %c0 : index
  %both = arith.andi %first, %pos : i1
  scf.if %both {
    memref.store %s, %o[%i] : memref<?xi32>
  }
  func.return
}

// a later collective with storage: the first reduce keeps its broadcast (the second, the
// last one, does not); in a loop; before a call of a function with a collective
// CHECK-LABEL: func.func @later_collective(
// CHECK-COUNT-2: mux.work_group_barrier
// CHECK:         %s = memref.load %scratch
// CHECK:         mux.work_group_barrier
// CHECK:         mux.get_local_size 1
// CHECK:         %t = scf.if
func.func @later_collective(%x: memref<?xi32>, %o: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %s = mux.work_group_reduce add %v : i32
  %t = mux.work_group_reduce umax %v : i32
  %lid = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.if %first {
    %st = arith.addi %s, %t : i32
    memref.store %st, %o[%i] : memref<?xi32>
  }
  func.return
}

// CHECK-LABEL: func.func @in_loop(
// CHECK-COUNT-2: mux.work_group_barrier
// CHECK:         %s = memref.load %scratch
func.func @in_loop(%x: memref<?xi32>, %o: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lid = mux.get_local_id 0 : index
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.for %k = %c0 to %c2 step %c1 {
    %s = mux.work_group_reduce add %v : i32
    scf.if %first {
      memref.store %s, %o[%k] : memref<?xi32>
    }
  }
  func.return
}

func.func @helper(%v: f32) -> f32 {
  %r = mux.work_group_scan_inclusive fadd %v : f32
  func.return %r : f32
}

// CHECK-LABEL: func.func @before_call(
// CHECK-COUNT-2: mux.work_group_barrier
// CHECK:         %s = memref.load %scratch
func.func @before_call(%x: memref<?xf32>, %o: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %x[%i] : memref<?xf32>
  %s = mux.work_group_reduce fadd %v : f32
  %h = func.call @helper(%v) : (f32) -> f32
  memref.store %h, %o[%i] : memref<?xf32>
  %lid = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lid, %c0 : index
  scf.if %first {
    memref.store %s, %o[%i] : memref<?xf32>
  }
  func.return
}
