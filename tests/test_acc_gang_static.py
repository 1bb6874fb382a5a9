"""gang(static:N) as GCC runs it (libgomp's gang-static tests): iteration i runs on gang
(i / N) % num_gangs, each gang taking its chunks in order; static:* is the default
distribution (contiguous chunks of ceil(n / num_gangs)). End-to-end on the cpu and host
targets."""

from __future__ import annotations

import numpy as np
import pytest

N = 100
NG = 10

# Each gang (one work-item: no worker or vector level) numbers the iterations it runs: a[i]
# is i's position in its gang's sequence, which tells the distribution apart.
ORDINALS = """module {
  acc.private.recipe @priv_i32 : memref<i32> init {
  ^bb0(%arg0: memref<i32>):
    %0 = memref.alloca() : memref<i32>
    acc.yield %0 : memref<i32>
  }
  func.func private @printMemrefI32(memref<*xi32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 100 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %a = memref.alloc() : memref<100xi32>
    %sizes = memref.alloc() : memref<1xi64>
    %given = arith.constant SIZE : i64
    memref.store %given, %sizes[%c0] : memref<1xi64>
    %chunk = SOURCE
    %t = memref.alloc() : memref<i32>
    %pc = acc.private varPtr(%t : memref<i32>) recipe(@priv_i32) -> memref<i32> {name = "c"}
    %ng = arith.constant 10 : i32
    acc.parallel num_gangs({%ng : i32}) private(%pc : memref<i32>) {
      memref.store %zero, %pc[] : memref<i32>
      acc.loop gang({static=%chunk : i64}) control(%i : index) = (%c0 : index) to (%n : index)
          step (%c1 : index) {
        %c = memref.load %pc[] : memref<i32>
        memref.store %c, %a[%i] : memref<100xi32>
        %d = arith.addi %c, %one : i32
        memref.store %d, %pc[] : memref<i32>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }
    %u = "memref.cast"(%a) : (memref<100xi32>) -> memref<*xi32>
    func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    func.return
  }
}
"""


def _ordinals(size: int, ng: int) -> list[int]:
    i = np.arange(N)
    if size < 1:  # static:*: contiguous chunks of ceil(N / ng)
        chunk = -(-N // ng)
        return (i % chunk).tolist()
    return ((i // (size * ng)) * size + i % size).tolist()


def _run(tmp_path, capsys, target: str, text: str) -> list[int]:
    from xmux import runner

    path = tmp_path / "static.mlir"
    path.write_text(text)
    assert runner.main([f"--oacc-target={target}", str(path)]) == 0
    line = [x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("[")][-1]
    return [int(t) for t in line.strip().strip("[]").split(",")]


@pytest.mark.parametrize("target", ["cpu", "host"])
@pytest.mark.parametrize("size", [1, 2, 5, 7, 20, -1])
@pytest.mark.parametrize("dynamic", [False, True])
def test_gang_static_distribution(tmp_path, capsys, target, size, dynamic):
    source = ("memref.load %sizes[%c0] : memref<1xi64>" if dynamic
              else f"arith.constant {size} : i64")
    text = ORDINALS.replace("SIZE", str(size)).replace("SOURCE", source)
    got = _run(tmp_path, capsys, target, text)
    # the host target runs one gang
    assert got == _ordinals(size, NG if target == "cpu" else 1)


SUM = """module {
  acc.reduction.recipe @add_i64 : memref<i64> reduction_operator <add> init {
  ^bb0(%arg0: memref<i64>):
    %z = arith.constant 0 : i64
    %p = memref.alloca() : memref<i64>
    memref.store %z, %p[] : memref<i64>
    acc.yield %p : memref<i64>
  } combiner {
  ^bb0(%a: memref<i64>, %b: memref<i64>):
    %x = memref.load %a[] : memref<i64>
    %y = memref.load %b[] : memref<i64>
    %r = arith.addi %x, %y : i64
    memref.store %r, %a[] : memref<i64>
    acc.yield %a : memref<i64>
  }
  func.func private @printMemrefI64(memref<*xi64>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 1001 : index
    %zero = arith.constant 0 : i64
    %s = memref.alloc() : memref<i64>
    memref.store %zero, %s[] : memref<i64>
    %cnt = memref.alloc() : memref<1001xi64>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %zero, %cnt[%i] : memref<1001xi64>
    }
    %chunk = arith.constant 3 : i64
    %ng = arith.constant 4 : i32
    %nw = arith.constant NW : i32
    %vl = arith.constant VL : i32
    %sc = acc.copyin varPtr(%s : memref<i64>) -> memref<i64>
        {dataClause = #acc<data_clause acc_copy>, name = "s"}
    %red = acc.reduction varPtr(%sc : memref<i64>) recipe(@add_i64) -> memref<i64> {name = "s"}
    acc.parallel dataOperands(%sc : memref<i64>) num_gangs({%ng : i32}) num_workers(%nw : i32)
        vector_length(%vl : i32) {
      acc.loop gang({static=%chunk : i64}) worker vector reduction(%red : memref<i64>)
          control(%i : index) = (%c0 : index) to (%n : index) step (%c1 : index) {
        %v = arith.index_cast %i : index to i64
        %acc = memref.load %red[] : memref<i64>
        %t = arith.addi %acc, %v : i64
        memref.store %t, %red[] : memref<i64>
        %k = memref.load %cnt[%i] : memref<1001xi64>
        %one = arith.constant 1 : i64
        %k1 = arith.addi %k, %one : i64
        memref.store %k1, %cnt[%i] : memref<1001xi64>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }
    acc.copyout accPtr(%sc : memref<i64>) to varPtr(%s : memref<i64>)
        {dataClause = #acc<data_clause acc_copy>, name = "s"}
    %u = "memref.cast"(%s) : (memref<i64>) -> memref<*xi64>
    func.call @printMemrefI64(%u) : (memref<*xi64>) -> ()
    %w = "memref.cast"(%cnt) : (memref<1001xi64>) -> memref<*xi64>
    func.call @printMemrefI64(%w) : (memref<*xi64>) -> ()
    func.return
  }
}
"""


@pytest.mark.parametrize("target", ["cpu", "host"])
@pytest.mark.parametrize("nw,vl", [(1, 1), (4, 8), (1, 32), (4, 128)])
def test_gang_static_with_worker_vector_reduction(tmp_path, capsys, target, nw, vl):
    """Chunks of 3 iterations dealt to 4 gangs, split over workers and lanes inside each
    chunk: every iteration runs once, the reduction is exact."""
    from xmux import runner

    path = tmp_path / "sum.mlir"
    path.write_text(SUM.replace("NW", str(nw)).replace("VL", str(vl)))
    assert runner.main([f"--oacc-target={target}", str(path)]) == 0
    rows = [x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("[")]
    total = int(rows[0].strip().strip("[]"))
    counts = [int(t) for t in rows[1].strip().strip("[]").split(",")]
    assert total == 1001 * 1000 // 2
    assert counts == [1] * 1001


def test_gang_static_zero_is_an_error():
    from xmux import api
    from xmux.errors import XmuxError
    from xmux.transforms.convert_acc_to_oacc import ConvertAccToOacc

    text = ORDINALS.replace("SIZE", "0").replace("SOURCE", "arith.constant 0 : i64")
    module = api.parse(text, "static.mlir")
    with pytest.raises(XmuxError, match=r"gang\(static:0\) must be at least 1"):
        ConvertAccToOacc().apply(None, module)  # type: ignore[arg-type]
