"""OpenACC data clauses and host-only constructs beyond copyin/copyout/present (issue 31,
docs/coverage.md): ``firstprivate`` (a private copy initialised from the original),
``deviceptr``/``nocreate``/``attach``/``detach`` (present data on a shared-memory host),
``host_data``/``use_device``, ``declare``/``declare_enter``/``declare_exit``, ``acc.set``,
a ``seq`` ``acc.routine`` called in a construct and ``acc.get_extent`` of ``acc.bounds``.

One program, run on the CPU, by the interpreter and (skipped without CuPy/GPU) on the GPU;
each prints the same arrays, whose values follow from OpenACC 3.3's rules (comments below).
And ``vector.contract`` (1-D dot products) against numpy's sequential sums.
"""

from __future__ import annotations

import numpy as np
import pytest

import xmux
from xmux.runtime import cuda

PROGRAM = """
acc.firstprivate.recipe @fp : memref<4xf32> init {
^bb0(%a: memref<4xf32>):
  %m = memref.alloc() : memref<4xf32>
  acc.yield %m : memref<4xf32>
} copy {
^bb0(%a: memref<4xf32>, %b: memref<4xf32>):
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  acc.terminator
}
acc.routine @twice_r func(@twice) seq
func.func @twice(%a: f32) -> f32 attributes {acc.routine_info = #acc.routine_info<[@twice_r]>} {
  %r = arith.addf %a, %a : f32
  return %r : f32
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c8 = arith.constant 8 : index
  %v = arith.constant 2.5 : f32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<4xf32>
  %o = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %one, %x[%i] : memref<4xf32>
  }
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %o[%i] : memref<8xf32>
  }
  %dn = arith.constant 0 : i32
  acc.set device_num(%dn : i32)
  %od = acc.copyin varPtr(%o : memref<8xf32>) -> memref<8xf32>
    {dataClause = #acc<data_clause acc_copy>}
  // o[0] = the private x[1] (1) + 2.5; x itself stays ones
  %f = acc.firstprivate varPtr(%x : memref<4xf32>) -> memref<4xf32>
  acc.parallel dataOperands(%od : memref<8xf32>) firstprivate(@fp -> %f : memref<4xf32>) {
    %t = memref.load %f[%c1] : memref<4xf32>
    %n = arith.addf %t, %v : f32
    memref.store %n, %f[%c1] : memref<4xf32>
    %w = memref.load %f[%c1] : memref<4xf32>
    memref.store %w, %od[%c0] : memref<8xf32>
    acc.yield
  }
  // o[1] = twice(x[2]) (the routine), o[3] = x[1] (1: the firstprivate did not write x)
  %d = acc.deviceptr varPtr(%x : memref<4xf32>) -> memref<4xf32>
  acc.serial dataOperands(%d, %od : memref<4xf32>, memref<8xf32>) {
    %a = memref.load %d[%c1] : memref<4xf32>
    memref.store %a, %od[%c3] : memref<8xf32>
    %b = memref.load %d[%c2] : memref<4xf32>
    %t = func.call @twice(%b) : (f32) -> f32
    memref.store %t, %od[%c1] : memref<8xf32>
    acc.yield
  }
  // o[2] = x[0] + 2.5 through attach / nocreate of present data
  %at = acc.attach varPtr(%x : memref<4xf32>) -> memref<4xf32>
  %nc = acc.nocreate varPtr(%o : memref<8xf32>) -> memref<8xf32>
  acc.serial dataOperands(%at, %nc : memref<4xf32>, memref<8xf32>) {
    %e = memref.load %at[%c0] : memref<4xf32>
    %s = arith.addf %e, %v : f32
    memref.store %s, %nc[%c2] : memref<8xf32>
    acc.yield
  }
  acc.detach accPtr(%at : memref<4xf32>)
  // o[5] = 2.5 written to and read back from a declared array
  %y = memref.alloc() {acc.declare = #acc.declare<dataClause = acc_create>} : memref<4xf32>
  %yd = acc.create varPtr(%y : memref<4xf32>) -> memref<4xf32>
  acc.declare dataOperands(%yd : memref<4xf32>) {
    %tok = acc.declare_enter dataOperands(%yd : memref<4xf32>)
    %yp = acc.present varPtr(%y : memref<4xf32>) -> memref<4xf32>
    acc.serial dataOperands(%yp, %od : memref<4xf32>, memref<8xf32>) {
      memref.store %v, %yp[%c0] : memref<4xf32>
      %e = memref.load %yp[%c0] : memref<4xf32>
      memref.store %e, %od[%c5] : memref<8xf32>
      acc.yield
    }
    acc.declare_exit token(%tok) dataOperands(%yd : memref<4xf32>)
    acc.terminator
  }
  acc.copyout accPtr(%od : memref<8xf32>) to varPtr(%o : memref<8xf32>)
    {dataClause = #acc<data_clause acc_copy>}
  // o[4] = the extent of x[1:2] (2); x[3] = 2.5 stored on the host through use_device
  %bd = acc.bounds lowerbound(%c1 : index) upperbound(%c2 : index)
  %ext = acc.get_extent %bd : (!acc.data_bounds_ty) -> index
  %ei = arith.index_cast %ext : index to i32
  %ef = arith.sitofp %ei : i32 to f32
  memref.store %ef, %o[%c4] : memref<8xf32>
  %u = acc.use_device varPtr(%x : memref<4xf32>) -> memref<4xf32>
  acc.host_data dataOperands(%u : memref<4xf32>) {
    memref.store %v, %u[%c3] : memref<4xf32>
    acc.terminator
  }
  %po = memref.cast %o : memref<8xf32> to memref<*xf32>
  func.call @printMemrefF32(%po) : (memref<*xf32>) -> ()
  %px = memref.cast %x : memref<4xf32> to memref<*xf32>
  func.call @printMemrefF32(%px) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
"""
EXPECTED = ([3.5, 2, 3.5, 1, 2, 2.5, 0, 0], [1, 1, 1, 2.5])


def _printed(out: str) -> tuple[list[float], ...]:
    rows = [ln for ln in out.splitlines() if ln.startswith("[")]
    return tuple([float(x) for x in ln.strip("[]").split(",")] for ln in rows)


def test_data_clauses_on_the_cpu(capfd: pytest.CaptureFixture[str]) -> None:
    from xmux.runner import HostProgram

    HostProgram(PROGRAM).run_main()
    assert _printed(capfd.readouterr().out) == EXPECTED


def test_data_clauses_in_the_interpreter(capfd: pytest.CaptureFixture[str]) -> None:
    from xmux.interpret import run_host

    run_host(PROGRAM)
    assert _printed(capfd.readouterr().out) == EXPECTED


def test_data_clauses_build_for_nvptx() -> None:
    from xmux.runner import HostProgram

    HostProgram(PROGRAM, target="nvptx")  # kernels to PTX, no GPU needed


@pytest.mark.skipif(not cuda.available(), reason="no CUDA device (CuPy)")
def test_data_clauses_on_the_gpu(capfd: pytest.CaptureFixture[str]) -> None:
    from xmux.runner import HostProgram

    HostProgram(PROGRAM, target="nvptx").run_main()
    assert _printed(capfd.readouterr().out) == EXPECTED


# ---------------------------------------------------------------------------------------
# vector.contract
# ---------------------------------------------------------------------------------------

DOT = """gpu.module @m {{
  gpu.func @k(%a: memref<8x{t}>, %b: memref<8x{t}>, %o: memref<1x{t}>) kernel {{
    %c0 = arith.constant 0 : index
    %x = vector.load %a[%c0] : memref<8x{t}>, vector<8x{t}>
    %y = vector.load %b[%c0] : memref<8x{t}>, vector<8x{t}>
    %acc = memref.load %o[%c0] : memref<1x{t}>
    %r = vector.contract {{indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
      affine_map<(i) -> ()>], iterator_types = ["reduction"], kind = #vector.kind<{kind}>}}
      %x, %y, %acc : vector<8x{t}>, vector<8x{t}> into {t}
    memref.store %r, %o[%c0] : memref<1x{t}>
    gpu.return
  }}
}}
"""


@pytest.mark.parametrize(("t", "kind"), [("f32", "add"), ("i32", "maxsi")])
def test_vector_contract_dot(t: str, kind: str) -> None:
    rng = np.random.default_rng(31)
    dt = np.float32 if t == "f32" else np.int32
    a = rng.uniform(-2, 2, 8).astype(dt) if t == "f32" else rng.integers(-9, 9, 8, dtype=dt)
    b = rng.uniform(-2, 2, 8).astype(dt) if t == "f32" else rng.integers(-9, 9, 8, dtype=dt)
    acc = dt(0.375) if t == "f32" else dt(-100)
    want = acc
    for p in a * b:  # lane order from the accumulator, as llvm.vector.reduce.fadd
        want = dt(want + p) if kind == "add" else max(want, p)
    text = DOT.format(t=t, kind=kind)
    prog = xmux.compile(text, cache=False)
    for run in (lambda o: prog.kernel("k")(a, b, o, global_size=(1,), local_size=(1,)),
                lambda o: xmux.interpret(text, "k", a, b, o, global_size=(1,),
                                         local_size=(1,))):
        o = np.array([acc], dt)
        run(o)
        assert o[0] == want
