// RUN: xmux-opt %s -p replace-local-module-scope-variables | filecheck %s

// Helpers that use a local global directly (@leaf, recursive @rec) or through calls (@mid)
// get the struct pointer as a trailing argument; every call passes it on. @pure uses no local
// memory and keeps its signature.

"memref.global"() <{sym_name = "buf", sym_visibility = "private", type = memref<64xf32, 3>, initial_value}> : () -> ()

func.func private @leaf(%i: index) -> f32 {
  %b = memref.get_global @buf : memref<64xf32, 3>
  %x = memref.load %b[%i] : memref<64xf32, 3>
  func.return %x : f32
}
func.func private @mid(%i: index) -> f32 {
  %x = func.call @leaf(%i) : (index) -> f32
  %y = func.call @pure(%x) : (f32) -> f32
  func.return %y : f32
}
func.func private @pure(%x: f32) -> f32 {
  func.return %x : f32
}
func.func private @rec(%i: index) {
  %b = memref.get_global @buf : memref<64xf32, 3>
  %c0 = arith.constant 0 : index
  %z = arith.cmpi eq, %i, %c0 : index
  scf.if %z {
    func.call @rec(%c0) : (index) -> ()
  }
  func.return
}
func.func @k(%out: memref<?xf32>, %i: index) attributes {mux.kernel = "entry_point"} {
  %y = func.call @mid(%i) : (index) -> f32
  func.call @rec(%i) : (index) -> ()
  memref.store %y, %out[%i] : memref<?xf32>
  func.return
}

// CHECK:      func.func private @leaf(%i: index, %local_mem: !llvm.ptr) -> f32 {
// CHECK-NEXT:   %0 = llvm.getelementptr inbounds %local_mem[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(!llvm.array<64 x f32>)>
// CHECK:        %buf = builtin.unrealized_conversion_cast %{{.*}} to memref<64xf32, 3 : i64>
// CHECK-NEXT:   %x = memref.load %buf[%i] : memref<64xf32, 3 : i64>
// CHECK-NEXT:   func.return %x : f32
// CHECK:      func.func private @mid(%i: index, %local_mem: !llvm.ptr) -> f32 {
// CHECK-NEXT:   %x = func.call @leaf(%i, %local_mem) : (index, !llvm.ptr) -> f32
// CHECK-NEXT:   %y = func.call @pure(%x) : (f32) -> f32
// CHECK:      func.func private @pure(%x: f32) -> f32 {
// CHECK:      func.func private @rec(%i: index, %local_mem: !llvm.ptr) {
// CHECK:          func.call @rec(%c0, %local_mem) : (index, !llvm.ptr) -> ()
// CHECK:      func.func @k(%out: memref<?xf32>, %i: index) attributes {mux.kernel = "entry_point", mux.local_mem_usage = 256 : i64} {
// CHECK-NEXT:   %0 = arith.constant 1 : i64
// CHECK-NEXT:   %local_guarded = llvm.alloca %0 x !llvm.array<768 x i8> {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK-NEXT: %local_mem = llvm.getelementptr inbounds %local_guarded[256] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK-NEXT:   %y = func.call @mid(%i, %local_mem) : (index, !llvm.ptr) -> f32
// CHECK-NEXT:   func.call @rec(%i, %local_mem) : (index, !llvm.ptr) -> ()
// CHECK-NEXT:   memref.store %y, %out[%i] : memref<?xf32>
// CHECK-NEXT:   func.return
