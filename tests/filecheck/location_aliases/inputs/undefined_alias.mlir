func.func @f() {
  func.return loc(#nowhere)
}
#other = loc("k.mlir":1:1)
