func.func @main() {
  %c = arith.constant 3 : index
  %r = affine.apply affine_map<(d0) -> (d0 mod -2)>(%c)
  return
}
