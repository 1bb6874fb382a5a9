"""acc.atomic.update / read / write / capture inside compute regions (they were rejected with
a wrong "outside acc.parallel" error): lowered to llvm atomics (atomicrmw where LLVM has the
operation, a cmpxchg loop otherwise), end-to-end on the cpu and host targets against numpy."""

from __future__ import annotations

import numpy as np
import pytest

N = 1000
NG = 3
BINS = 16

PROGRAM = """module {
  acc.private.recipe @priv_i32 : memref<i32> init {
  ^bb0(%arg0: memref<i32>):
    %0 = memref.alloca() : memref<i32>
    acc.yield %0 : memref<i32>
  }
  func.func private @printMemrefI32(memref<*xi32>)
  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant N : index
    %c37 = arith.constant 37 : index
    %c101 = arith.constant 101 : index
    %c16 = arith.constant 16 : index
    %c50 = arith.constant 50 : i32
    %zero = arith.constant 0 : i32
    %minus1 = arith.constant -1 : i32
    %start = arith.constant 3 : i32
    %low = arith.constant -1000 : i32
    %fzero = arith.constant 0.0 : f32
    %x = memref.alloc() : memref<Nxi32>
    %bin = memref.alloc() : memref<Nxindex>
    %hist = memref.alloc() : memref<16xi32>
    %fhist = memref.alloc() : memref<16xf32>
    %olds = memref.alloc() : memref<Nxi32>
    %news = memref.alloc() : memref<Nxi32>
    %swapped = memref.alloc() : memref<Nxi32>
    %cells = memref.alloc() : memref<8xi32>
    scf.for %i = %c0 to %n step %c1 {
      %a = arith.muli %i, %c37 : index
      %b = arith.remui %a, %c101 : index
      %bi = arith.index_cast %b : index to i32
      %v = arith.subi %bi, %c50 : i32
      %k = arith.remui %b, %c16 : index
      memref.store %v, %x[%i] : memref<Nxi32>
      memref.store %k, %bin[%i] : memref<Nxindex>
    }
    scf.for %i = %c0 to %c16 step %c1 {
      memref.store %zero, %hist[%i] : memref<16xi32>
      memref.store %fzero, %fhist[%i] : memref<16xf32>
    }
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    // cells: 0 old-capture counter, 1 new-capture counter, 2 product, 3 max, 4 exchanged
    // slot, 5 atomic read, 6 atomic write, 7 positive values (an update with if)
    memref.store %zero, %cells[%c0] : memref<8xi32>
    memref.store %zero, %cells[%c1] : memref<8xi32>
    memref.store %start, %cells[%c2] : memref<8xi32>
    memref.store %low, %cells[%c3] : memref<8xi32>
    memref.store %minus1, %cells[%c4] : memref<8xi32>
    memref.store %zero, %cells[%c5] : memref<8xi32>
    memref.store %zero, %cells[%c6] : memref<8xi32>
    %c7 = arith.constant 7 : index
    memref.store %zero, %cells[%c7] : memref<8xi32>
    %ctr = memref.subview %cells[0] [1] [1] : memref<8xi32> to memref<i32, strided<[]>>
    %ctr2 = memref.subview %cells[1] [1] [1] : memref<8xi32> to memref<i32, strided<[], offset: 1>>
    %prod = memref.subview %cells[2] [1] [1] : memref<8xi32> to memref<i32, strided<[], offset: 2>>
    %mx = memref.subview %cells[3] [1] [1] : memref<8xi32> to memref<i32, strided<[], offset: 3>>
    %slot = memref.subview %cells[4] [1] [1] : memref<8xi32> to memref<i32, strided<[], offset: 4>>
    %rd = memref.subview %cells[5] [1] [1] : memref<8xi32> to memref<i32, strided<[], offset: 5>>
    %wr = memref.subview %cells[6] [1] [1] : memref<8xi32> to memref<i32, strided<[], offset: 6>>
    %pos = memref.subview %cells[7] [1] [1] : memref<8xi32> to memref<i32, strided<[], offset: 7>>
    %tmp = memref.alloc() : memref<i32>
    %pv = acc.private varPtr(%tmp : memref<i32>) recipe(@priv_i32) -> memref<i32> {name = "v"}
    %ng = arith.constant NG : i32
    %nw = arith.constant NW : i32
    %vl = arith.constant VL : i32
    acc.parallel num_gangs({%ng : i32}) num_workers(%nw : i32) private(%pv : memref<i32>)
        vector_length(%vl : i32) {
      acc.loop gang worker vector control(%i : index) = (%c0 : index) to (%n : index)
          step (%c1 : index) {
        %one = arith.constant 1 : i32
        %v = memref.load %x[%i] : memref<Nxi32>
        %vf = arith.sitofp %v : i32 to f32
        %k = memref.load %bin[%i] : memref<Nxindex>
        %h = memref.subview %hist[%k] [1] [1]
            : memref<16xi32> to memref<i32, strided<[], offset: ?>>
        acc.atomic.update %h : memref<i32, strided<[], offset: ?>> {
        ^bb0(%cur: i32):
          %new = arith.addi %cur, %one : i32
          acc.yield %new : i32
        }
        %fh = memref.subview %fhist[%k] [1] [1]
            : memref<16xf32> to memref<f32, strided<[], offset: ?>>
        acc.atomic.update %fh : memref<f32, strided<[], offset: ?>> {
        ^bb0(%cur: f32):
          %new = arith.addf %vf, %cur : f32
          acc.yield %new : f32
        }
        %positive = arith.cmpi sgt, %v, %zero : i32
        acc.atomic.update if(%positive) %pos : memref<i32, strided<[], offset: 7>> {
        ^bb0(%cur: i32):
          %new = arith.addi %cur, %one : i32
          acc.yield %new : i32
        }
        %odd = arith.ori %v, %one : i32
        acc.atomic.update %prod : memref<i32, strided<[], offset: 2>> {
        ^bb0(%cur: i32):
          %new = arith.muli %cur, %odd : i32
          acc.yield %new : i32
        }
        acc.atomic.update %mx : memref<i32, strided<[], offset: 3>> {
        ^bb0(%cur: i32):
          %gt = arith.cmpi sgt, %v, %cur : i32
          %new = arith.select %gt, %v, %cur : i32
          acc.yield %new : i32
        }
        acc.atomic.capture {
          acc.atomic.read %pv = %ctr : memref<i32>, memref<i32, strided<[]>>, i32
          acc.atomic.update %ctr : memref<i32, strided<[]>> {
          ^bb0(%cur: i32):
            %new = arith.addi %cur, %one : i32
            acc.yield %new : i32
          }
          acc.terminator
        }
        %old = memref.load %pv[] : memref<i32>
        memref.store %old, %olds[%i] : memref<Nxi32>
        acc.atomic.capture {
          acc.atomic.update %ctr2 : memref<i32, strided<[], offset: 1>> {
          ^bb0(%cur: i32):
            %new = arith.addi %one, %cur : i32
            acc.yield %new : i32
          }
          acc.atomic.read %pv = %ctr2 : memref<i32>, memref<i32, strided<[], offset: 1>>, i32
          acc.terminator
        }
        %nv = memref.load %pv[] : memref<i32>
        memref.store %nv, %news[%i] : memref<Nxi32>
        %ii = arith.index_cast %i : index to i32
        acc.atomic.capture {
          acc.atomic.read %pv = %slot : memref<i32>, memref<i32, strided<[], offset: 4>>, i32
          acc.atomic.write %slot = %ii : memref<i32, strided<[], offset: 4>>, i32
          acc.terminator
        }
        %sw = memref.load %pv[] : memref<i32>
        memref.store %sw, %swapped[%i] : memref<Nxi32>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }
    %c42 = arith.constant 42 : i32
    acc.serial {
      acc.atomic.read %rd = %ctr
          : memref<i32, strided<[], offset: 5>>, memref<i32, strided<[]>>, i32
      acc.atomic.write %wr = %c42 : memref<i32, strided<[], offset: 6>>, i32
      acc.yield
    }
    %u1 = "memref.cast"(%hist) : (memref<16xi32>) -> memref<*xi32>
    func.call @printMemrefI32(%u1) : (memref<*xi32>) -> ()
    %u2 = "memref.cast"(%fhist) : (memref<16xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
    %u3 = "memref.cast"(%cells) : (memref<8xi32>) -> memref<*xi32>
    func.call @printMemrefI32(%u3) : (memref<*xi32>) -> ()
    %u4 = "memref.cast"(%olds) : (memref<Nxi32>) -> memref<*xi32>
    func.call @printMemrefI32(%u4) : (memref<*xi32>) -> ()
    %u5 = "memref.cast"(%news) : (memref<Nxi32>) -> memref<*xi32>
    func.call @printMemrefI32(%u5) : (memref<*xi32>) -> ()
    %u6 = "memref.cast"(%swapped) : (memref<Nxi32>) -> memref<*xi32>
    func.call @printMemrefI32(%u6) : (memref<*xi32>) -> ()
    func.return
  }
}
"""


def _parse(out: str) -> list[list[float]]:
    rows = []
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("["):
            rows.append([float(t) for t in line.strip("[]").replace(" ", "").split(",")])
    return rows


def _wrap32(start: int, factors: list[int]) -> int:
    p = start
    for f in factors:
        p = (p * f) % (1 << 32)
    return p - (1 << 32) if p >= 1 << 31 else p


_CONFIGS = [
    *((f"--oacc-target={t}", nw, vl) for t in ("cpu", "host")
      for nw, vl in ((1, 1), (4, 8), (1, 32), (4, 128))),
    # the reference interpreter (xmux-run --interpret) on the same expansion
    ("--interpret", 1, 1),
    ("--interpret", 4, 8),
]


@pytest.mark.parametrize("flag,nw,vl", _CONFIGS)
def test_atomics_in_compute_regions(tmp_path, capsys, flag, nw, vl):
    from xmux.cli import run_main

    text = (PROGRAM.replace("NG", str(NG)).replace("NW", str(nw)).replace("VL", str(vl))
            .replace("Nx", f"{N}x").replace("arith.constant N :", f"arith.constant {N} :"))
    path = tmp_path / "atomics.mlir"
    path.write_text(text)
    assert run_main([flag, str(path)]) == 0
    hist, fhist, cells, olds, news, swapped = _parse(capsys.readouterr().out)
    i = np.arange(N)
    b = (i * 37) % 101
    x = b - 50
    bins = b % BINS
    assert hist == np.bincount(bins, minlength=BINS).tolist()
    assert fhist == [float(x[bins == k].sum()) for k in range(BINS)]
    prod = _wrap32(3, [int(v) | 1 for v in x])
    assert cells == [N, N, prod, max(int(x.max()), -1000), cells[4], N, 42, int((x > 0).sum())]
    # each update captured once: the old values 0..N-1, the new ones 1..N
    assert sorted(olds) == list(range(N))
    assert sorted(news) == list(range(1, N + 1))
    # the exchange chain: every value written once, read once (the initial -1 included)
    assert sorted(swapped + [cells[4]]) == [-1, *range(N)]


def test_atomic_on_an_array_is_an_error():
    """The atomic's variable is one element: an array operand is refused, naming the op."""
    from xmux import api
    from xmux.errors import XmuxError
    from xmux.transforms.convert_acc_to_oacc import ConvertAccToOacc

    src = """
func.func @h(%a: memref<4xi32>) {
  acc.serial {
    acc.atomic.update %a : memref<4xi32> {
    ^bb0(%cur: i32):
      acc.yield %cur : i32
    }
    acc.yield
  }
  return
}
"""
    module = api.parse(src, "atomic.mlir")
    with pytest.raises(XmuxError, match=r"'acc.atomic.update' in @h_acc_serial_0: an atomic on "
                                        r"memref<4xi32> \(a rank-0 memref is needed"):
        ConvertAccToOacc().apply(None, module)  # type: ignore[arg-type]


# ---- atomics in single mode: once per gang iteration, not once per worker and lane

SINGLE = """module {
  acc.private.recipe @priv_i32 : memref<i32> init {
  ^bb0(%arg0: memref<i32>):
    %0 = memref.alloca() : memref<i32>
    acc.yield %0 : memref<i32>
  }
  func.func private @printMemrefI32(memref<*xi32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %rows = arith.constant 10 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %out = memref.alloc() : memref<83xi32>
    %ctr = memref.subview %out[80] [1] [1] : memref<83xi32> to memref<i32, strided<[], offset: 80>>
    %ctr2 = memref.subview %out[81] [1] [1] : memref<83xi32> to memref<i32, strided<[], offset: 81>>
    %rd = memref.subview %out[82] [1] [1] : memref<83xi32> to memref<i32, strided<[], offset: 82>>
    memref.store %zero, %ctr[] : memref<i32, strided<[], offset: 80>>
    memref.store %zero, %ctr2[] : memref<i32, strided<[], offset: 81>>
    memref.store %zero, %rd[] : memref<i32, strided<[], offset: 82>>
    %tmp = memref.alloc() : memref<i32>
    %pv = acc.private varPtr(%tmp : memref<i32>) recipe(@priv_i32) -> memref<i32> {name = "v"}
    %ng = arith.constant 3 : i32
    %nw = arith.constant NW : i32
    %vl = arith.constant VL : i32
    acc.parallel num_gangs({%ng : i32}) num_workers(%nw : i32) vector_length(%vl : i32) {
      acc.loop gang private(%pv : memref<i32>) control(%i : index) = (%c0 : index)
          to (%rows : index) step (%c1 : index) {
        acc.atomic.update %ctr2 : memref<i32, strided<[], offset: 81>> {
        ^bb0(%cur: i32):
          %new = arith.addi %cur, %one : i32
          acc.yield %new : i32
        }
        acc.atomic.capture {
          acc.atomic.read %pv = %ctr : memref<i32>, memref<i32, strided<[], offset: 80>>, i32
          acc.atomic.update %ctr : memref<i32, strided<[], offset: 80>> {
          ^bb0(%cur: i32):
            %new = arith.addi %cur, %one : i32
            acc.yield %new : i32
          }
          acc.terminator
        }
        acc.atomic.write %rd = %one : memref<i32, strided<[], offset: 82>>, i32
        acc.loop vector control(%j : index) = (%c0 : index) to (%c8 : index) step (%c1 : index) {
          %old = memref.load %pv[] : memref<i32>
          %r8 = arith.muli %i, %c8 : index
          %at = arith.addi %r8, %j : index
          memref.store %old, %out[%at] : memref<83xi32>
          acc.yield
        } attributes {independent = [#acc.device_type<none>]}
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }
    %u = "memref.cast"(%out) : (memref<83xi32>) -> memref<*xi32>
    func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    func.return
  }
}
"""


@pytest.mark.parametrize(("flag", "nw", "vl"), [
    ("--oacc-target=cpu", 1, 1), ("--oacc-target=cpu", 4, 8), ("--oacc-target=cpu", 1, 32),
    ("--oacc-target=cpu", 8, 32), ("--oacc-target=host", 4, 8), ("--interpret", 4, 8),
])
def test_atomics_in_single_mode_run_once_per_gang_iteration(tmp_path, capsys, flag, nw, vl):
    """An atomic in the body of a gang loop runs worker- and vector-single (GCC's execution
    modes): once per iteration (xDSL gives acc.atomic.update / capture no memory effect of
    their own, so they were not neutered: 10 iterations counted 320 at 4 workers x 8 lanes);
    the captured old value reaches the vector loop through the broadcast."""
    from xmux.cli import run_main

    path = tmp_path / "single.mlir"
    path.write_text(SINGLE.replace("NW", str(nw)).replace("VL", str(vl)))
    assert run_main([flag, str(path)]) == 0
    got = [int(v) for v in _parse(capsys.readouterr().out)[0]]
    rows = np.array(got[:80]).reshape(10, 8)
    assert (rows == rows[:, :1]).all(), rows  # one captured value per iteration, every lane
    assert sorted(rows[:, 0]) == list(range(10))  # each old value once
    assert got[80:] == [10, 10, 1]
