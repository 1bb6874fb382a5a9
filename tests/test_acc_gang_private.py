"""Gang- and worker-private variables shared by the gang's (worker's) work-items (issue 36,
item 1): ``private`` / ``firstprivate`` of ``acc.parallel`` or of a ``gang`` loop, or an
allocation of the region, is one copy per gang; ``private`` of a ``worker`` loop one copy
per worker. Partitioned code writes its part of the copy, the single-mode code after the
loop reads all of it (transforms/openacc/private_storage.py: work-group local memory).

Each program prints the result array and the host copy of the first-private variable; the
cpu and host expansions and the reference interpreter must give the sequential answer (the
GPU too: tests/test_nvptx_openacc.py runs ``CASES`` with a CUDA device).
"""

from __future__ import annotations

import numpy as np
import pytest

INDEP = "attributes {independent = [#acc.device_type<none>]}"
SEQ = "attributes {seq = [#acc.device_type<none>]}"
T = "memref<4xf64>"

HEAD = """module {
  acc.private.recipe @priv_4xf64 : memref<4xf64> init {
  ^bb0(%arg0: memref<4xf64>):
    %0 = memref.alloca() : memref<4xf64>
    acc.yield %0 : memref<4xf64>
  }
  acc.firstprivate.recipe @fpriv_4xf64 : memref<4xf64> init {
  ^bb0(%arg0: memref<4xf64>):
    %0 = memref.alloca() : memref<4xf64>
    acc.yield %0 : memref<4xf64>
  } copy {
  ^bb0(%a: memref<4xf64>, %b: memref<4xf64>):
    memref.copy %a, %b : memref<4xf64> to memref<4xf64>
    acc.terminator
  }
  func.func private @printMemrefF64(memref<*xf64>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %cng = arith.constant NG : index
    %zero = arith.constant 0.0 : f64
    %ng = arith.constant NG : i32
    %nw = arith.constant NW : i32
    %vl = arith.constant VL : i32
    %d = memref.alloc() : memref<OUTxf64>
    %dc = acc.copyin varPtr(%d : memref<OUTxf64>) -> memref<OUTxf64>
        {dataClause = #acc<data_clause acc_copy>, name = "d"}
    %h = memref.alloc() : memref<4xf64>
    scf.for %q = %c0 to %c4 step %c1 {
      %qi = arith.index_cast %q : index to i64
      %qf = arith.sitofp %qi : i64 to f64
      %ten = arith.constant 10.0 : f64
      %q1 = arith.addf %qf, %c1f : f64
      %q10 = arith.mulf %q1, %ten : f64
      memref.store %q10, %h[%q] : memref<4xf64>
    }
"""

TAIL = """    acc.copyout accPtr(%dc : memref<OUTxf64>) to varPtr(%d : memref<OUTxf64>)
        {dataClause = #acc<data_clause acc_copy>, name = "d"}
    %u = "memref.cast"(%d) : (memref<OUTxf64>) -> memref<*xf64>
    func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()
    %uh = "memref.cast"(%h) : (memref<4xf64>) -> memref<*xf64>
    func.call @printMemrefF64(%uh) : (memref<*xf64>) -> ()
    func.return
  }
}
"""


def _loop(levels: str, iv: str, n: str, body: list[str], clauses: str = "") -> list[str]:
    head = "acc.loop" + "".join(f" {lv}" for lv in levels.split()) + clauses
    return [f"{head} control({iv} : index) = (%c0 : index) to ({n} : index) step (%c1 : index) {{",
            *("  " + b for b in body), "  acc.yield", f"}} {INDEP if levels else SEQ}"]


def _fill(var: str, iv: str, extra: str | None) -> list[str]:
    """var[iv] (+)= iv (+ extra): the partitioned loop's part of the variable."""
    lines = [f"{var}_i = arith.index_cast {iv} : index to i64",
             f"{var}_f = arith.sitofp {var}_i : i64 to f64"]
    val = f"{var}_f"
    if extra is not None:
        lines += [f"{var}_e = arith.index_cast {extra} : index to i64",
                  f"{var}_ef = arith.sitofp {var}_e : i64 to f64",
                  f"{var}_s = arith.addf {var}_f, {var}_ef : f64"]
        val = f"{var}_s"
    return [*lines, f"memref.store {val}, {var}[{iv}] : {T}"]


def _accumulate(var: str, iv: str, extra: str | None) -> list[str]:
    """var[iv] += iv (+ extra)."""
    return [f"{var}_o = memref.load {var}[{iv}] : {T}", *[
        ln.replace(f"memref.store {var}_", f"{var}_t = arith.addf {var}_o, {var}_")
          .replace(f", {var}[{iv}] : {T}", " : f64")
        for ln in _fill(var, iv, extra)],
        f"memref.store {var}_t, {var}[{iv}] : {T}"]


def _sum_into(var: str, out_idx: str) -> list[str]:
    """d[out_idx] = sum var[0..3] (a seq loop in the single-mode code)."""
    return [f"memref.store %zero, %dc[{out_idx}] : memref<OUTxf64>",
            *_loop("", "%k", "%c4", [
                f"%sv = memref.load {var}[%k] : {T}",
                f"%so = memref.load %dc[{out_idx}] : memref<OUTxf64>",
                "%sn = arith.addf %so, %sv : f64",
                f"memref.store %sn, %dc[{out_idx}] : memref<OUTxf64>"])]


def program(case: str, levels: str, ng: int, nw: int, vl: int, one_gang: bool = False,
            ) -> tuple[str, np.ndarray]:
    """The program of ``case`` and the d it must print; ``levels``: the partitioned loop
    that writes the variable; ``one_gang``: the host expansion runs every gang iteration on
    one gang (a first-private copy then accumulates over them)."""
    out = ng
    clauses = ""
    g = np.arange(ng, dtype=np.float64)
    if case == "parallel":  # private(c) of the construct (the issue's shape)
        body = _loop("gang", "%g", "%cng", [*_loop(levels, "%y", "%c4", _fill("%pc", "%y", None)),
                                            *_sum_into("%pc", "%g")])
        clauses, want = " private(%pc : memref<4xf64>)", np.full(ng, 6.0)
    elif case == "firstprivate":  # firstprivate(c): host [10, 20, 30, 40] + y
        body = _loop("gang", "%g", "%cng", [
            *_loop(levels, "%y", "%c4", _accumulate("%pc", "%y", None)), *_sum_into("%pc", "%g")])
        clauses = " firstprivate(%pc : memref<4xf64>)"
        want = 100.0 + 6 * (g + 1) if one_gang else np.full(ng, 106.0)
    elif case == "gang_loop":  # private(c) of the gang loop: c[y] = y + g
        body = _loop("gang", "%g", "%cng", [
            *_loop(levels, "%y", "%c4", _fill("%pc", "%y", "%g")), *_sum_into("%pc", "%g")],
            " private(%pc : memref<4xf64>)")
        want = 6.0 + 4 * g
    elif case == "region":  # an allocation of the gang loop's body
        body = _loop("gang", "%g", "%cng", [
            f"%pc = memref.alloca() : {T}",
            *_loop(levels, "%y", "%c4", _fill("%pc", "%y", "%g")), *_sum_into("%pc", "%g")])
        want = 6.0 + 4 * g
    elif case == "worker_loop":  # private(w) of a worker loop over j, written by a vector loop
        out = 4 * ng
        inner = [*_loop("vector", "%y", "%c4", _fill("%pc", "%y", "%j")),
                 "%o4 = arith.muli %g, %c4 : index", "%oj = arith.addi %o4, %j : index",
                 *_sum_into("%pc", "%oj")]
        body = _loop("gang", "%g", "%cng", _loop("worker", "%j", "%c4", inner,
                                                 " private(%pc : memref<4xf64>)"))
        want = np.tile(6.0 + 4 * np.arange(4), ng)
    else:
        raise AssertionError(case)
    if case == "firstprivate":
        decl = ['    %pc = acc.firstprivate varPtr(%h : memref<4xf64>) recipe(@fpriv_4xf64) '
                '-> memref<4xf64> {name = "c"}']
    elif case != "region":
        decl = ["    %t = memref.alloc() : memref<4xf64>",
                '    %pc = acc.private varPtr(%t : memref<4xf64>) recipe(@priv_4xf64) '
                '-> memref<4xf64> {name = "c"}']
    else:
        decl = []
    par_clauses = clauses if case in ("parallel", "firstprivate") else ""
    text = (HEAD.replace("%c1f", "%one").replace("    %zero = arith.constant 0.0 : f64\n",
                                                 "    %zero = arith.constant 0.0 : f64\n"
                                                 "    %one = arith.constant 1.0 : f64\n")
            + "\n".join(decl) + "\n"
            + f"    acc.parallel num_gangs({{%ng : i32}}) num_workers(%nw : i32) "
              f"vector_length(%vl : i32) dataOperands(%dc : memref<OUTxf64>){par_clauses} {{\n"
            + "\n".join("      " + ln for ln in body) + "\n      acc.yield\n    }\n" + TAIL)
    text = (text.replace("OUT", str(out)).replace("NG", str(ng)).replace("NW", str(nw))
            .replace("VL", str(vl)))
    return text, want


def _arrays(out: str) -> list[np.ndarray]:
    rows = [x for x in out.splitlines() if x.strip().startswith("[")]
    return [np.array([float(t) for t in r.strip().strip("[]").split(",")]) for r in rows]


def _run(tmp_path, capsys, how: str, text: str) -> list[np.ndarray]:
    if how == "interpret":
        from xmux.interpret import run_host

        run_host(text)
    else:
        from xmux import runner

        path = tmp_path / "gang_private.mlir"
        path.write_text(text)
        argv = (["--target=nvptx"] if how == "nvptx" else [f"--oacc-target={how}"]) + [str(path)]
        assert runner.main(argv) == 0
    return _arrays(capsys.readouterr().out)


#: (case, levels of the loop that writes the variable, num_gangs, num_workers, vector_length)
CASES = [
    ("parallel", "worker", 2, 2, 1),  # the issue's shape
    ("parallel", "worker", 3, 4, 8),
    ("parallel", "worker", 2, 3, 1),
    ("parallel", "vector", 2, 1, 4),
    ("parallel", "worker vector", 2, 2, 2),
    ("firstprivate", "worker", 2, 2, 1),
    ("firstprivate", "vector", 3, 2, 8),
    ("gang_loop", "worker", 4, 2, 1),
    ("gang_loop", "worker vector", 3, 4, 32),
    ("region", "worker", 4, 4, 1),
    ("region", "vector", 2, 1, 8),
    ("worker_loop", "vector", 2, 2, 4),
    ("worker_loop", "vector", 3, 4, 2),
    ("worker_loop", "vector", 2, 1, 8),
]
IDS = [f"{c}-{lv.replace(' ', '+')}-g{g}w{w}v{v}" for c, lv, g, w, v in CASES]


def _check(got: list[np.ndarray], want: np.ndarray) -> None:
    np.testing.assert_array_equal(got[0], want)
    # the host copy of a first-private variable is not written back
    np.testing.assert_array_equal(got[1], [10.0, 20.0, 30.0, 40.0])


@pytest.mark.parametrize("how", ["cpu", "host", "interpret"])
@pytest.mark.parametrize(("case", "levels", "ng", "nw", "vl"), CASES, ids=IDS)
def test_gang_private_shared_by_the_gang(tmp_path, capsys, how, case, levels, ng, nw, vl):
    text, want = program(case, levels, ng, nw, vl, one_gang=how == "host")
    _check(_run(tmp_path, capsys, how, text), want)

