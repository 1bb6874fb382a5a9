// The specialization constants of the reference's id-assignment and default-value examples:
//   constexpr specialization_id<int> id_int(42);
//   struct Nested { float a, b; };  struct A { int x; Nested n; };
//   constexpr specialization_id<A> id_A(1, 2.0, 3.0);   // A's constructor: {1, {3.0, 4.0}}
// plus a vector constant (sycl::vec<float, 4>). The kernel copies every scalar leaf out:
// ints = [id_int, id_A.x], floats = [id_A.n.a, id_A.n.b, vec[0..3]].
//   prog = xmux.compile("examples/spec_constants.mlir")
//   prog.set_spec_constant("id_A", (7, (0.5, 0.25)))
//   prog["read_constants"](ints, floats, global_size=1, spec_constants={"id_int": -3})
module {
  spec.specialization_id @id_int = 42 : i32
  spec.specialization_id @id_A = [1 : i32, [3.0 : f32, 4.0 : f32]]
      : !llvm.struct<(i32, struct<(f32, f32)>)>
  spec.specialization_id @id_vec = dense<[5.0, 6.0, 7.0, 8.0]> : vector<4xf32>

  func.func @read_constants(%ints: memref<2xi32>, %floats: memref<6xf32>)
      attributes {mux.kernel = "entry_point"} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %i = spec.get_scalar "id_int", @id_int : i32
    %a = spec.get_composite "id_A", @id_A : !llvm.struct<(i32, struct<(f32, f32)>)>
    %v = spec.get_composite "id_vec", @id_vec : vector<4xf32>
    %ax = llvm.extractvalue %a[0] : !llvm.struct<(i32, struct<(f32, f32)>)>
    %na = llvm.extractvalue %a[1, 0] : !llvm.struct<(i32, struct<(f32, f32)>)>
    %nb = llvm.extractvalue %a[1, 1] : !llvm.struct<(i32, struct<(f32, f32)>)>
    memref.store %i, %ints[%c0] : memref<2xi32>
    memref.store %ax, %ints[%c1] : memref<2xi32>
    memref.store %na, %floats[%c0] : memref<6xf32>
    memref.store %nb, %floats[%c1] : memref<6xf32>
    %v4 = vector.extract %v[0] : f32 from vector<4xf32>
    %v5 = vector.extract %v[1] : f32 from vector<4xf32>
    %v6 = vector.extract %v[2] : f32 from vector<4xf32>
    %v7 = vector.extract %v[3] : f32 from vector<4xf32>
    memref.store %v4, %floats[%c2] : memref<6xf32>
    memref.store %v5, %floats[%c3] : memref<6xf32>
    memref.store %v6, %floats[%c4] : memref<6xf32>
    memref.store %v7, %floats[%c5] : memref<6xf32>
    func.return
  }

  // Prints the floats with the default values: [3, 4, 5, 6, 7, 8].
  func.func @main() {
    %c1 = arith.constant 1 : index
    %ints = memref.alloc() : memref<2xi32>
    %floats = memref.alloc() : memref<6xf32>
    mux.launch @read_constants(%ints, %floats) global_size(%c1) local_size(%c1)
        : (memref<2xi32>, memref<6xf32>)
    %u = "memref.cast"(%floats) : (memref<6xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    memref.dealloc %ints : memref<2xi32>
    memref.dealloc %floats : memref<6xf32>
    func.return
  }

  func.func private @printMemrefF32(memref<*xf32>)
}
