"""OpenACC reductions follow their recipe: the identity from the init region, the combine from
the combiner region (whatever the operator says), element-wise for arrays; end-to-end with
xmux-run on the cpu and host targets at several vector lengths and worker counts, exact
against a numpy model."""

from __future__ import annotations

import numpy as np
import pytest

N = 1000
NG = 3

I32_MAX, I32_MIN = 2147483647, -2147483648


def _scalar_recipe(name: str, t: str, opk: str, ident: str, combine: list[str]) -> str:
    """A memref-form recipe; ``combine`` computes %r from %x, %y."""
    body = "\n    ".join(combine)
    return f"""
  acc.reduction.recipe @{name} : memref<{t}> reduction_operator <{opk}> init {{
  ^bb0(%arg0: memref<{t}>):
    %id = arith.constant {ident} : {t}
    %p = memref.alloca() : memref<{t}>
    memref.store %id, %p[] : memref<{t}>
    acc.yield %p : memref<{t}>
  }} combiner {{
  ^bb0(%a: memref<{t}>, %b: memref<{t}>):
    %x = memref.load %a[] : memref<{t}>
    %y = memref.load %b[] : memref<{t}>
    {body}
    memref.store %r, %a[] : memref<{t}>
    acc.yield %a : memref<{t}>
  }}"""


def _array_recipe(name: str, n: int, t: str, opk: str, ident: str, combine: list[str]) -> str:
    """An array recipe as upstream's tests write one: loops over the elements."""
    body = "\n      ".join(combine)
    m = f"memref<{n}x{t}>"
    return f"""
  acc.reduction.recipe @{name} : {m} reduction_operator <{opk}> init {{
  ^bb0(%arg0: {m}):
    %id = arith.constant {ident} : {t}
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %size = memref.dim %arg0, %c0 : {m}
    %p = memref.alloca() : {m}
    scf.for %i = %c0 to %size step %c1 {{
      memref.store %id, %p[%i] : {m}
    }}
    acc.yield %p : {m}
  }} combiner {{
  ^bb0(%a: {m}, %b: {m}):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %size = memref.dim %a, %c0 : {m}
    scf.for %i = %c0 to %size step %c1 {{
      %x = memref.load %a[%i] : {m}
      %y = memref.load %b[%i] : {m}
      {body}
      memref.store %r, %a[%i] : {m}
    }}
    acc.yield %a : {m}
  }}"""


# name, type, shape, recipe, start values, body (updates %acc from %cur with %v/%vf, %k index
# of the element), numpy model(x, start) -> result
def _cases() -> list[dict]:
    return [
        # the operator says add, the recipe multiplies: the product (odd values: never 0)
        dict(name="prod", t="i32", shape=(), start=[3],
             recipe=_scalar_recipe("prod", "i32", "add", "1", ["%r = arith.muli %x, %y : i32"]),
             body=["%o = arith.ori %v, %c1_i32 : i32", "%new = arith.muli %cur, %o : i32"],
             model=lambda x, s: [_wrap32(s[0], x | 1)]),
        # the operator says max, the recipe takes the minimum
        dict(name="min", t="i32", shape=(), start=[1000],
             recipe=_scalar_recipe("min", "i32", "max", str(I32_MAX),
                                   ["%r = arith.minsi %x, %y : i32"]),
             body=["%new = arith.minsi %cur, %v : i32"],
             model=lambda x, s: [min(int(x.min()), s[0])]),
        # a max written as compare + select: no atomicrmw, the gang lock path
        dict(name="maxsel", t="i32", shape=(), start=[-1000],
             recipe=_scalar_recipe("maxsel", "i32", "max", str(I32_MIN),
                                   ["%g = arith.cmpi sgt, %x, %y : i32",
                                    "%r = arith.select %g, %x, %y : i32"]),
             body=["%new = arith.maxsi %cur, %v : i32"],
             model=lambda x, s: [max(int(x.max()), s[0])]),
        # maximumf (NaN-propagating) is not the standard maxnumf: cloned from the recipe
        dict(name="fmax", t="f32", shape=(), start=[-1e30],
             recipe=_scalar_recipe("fmax", "f32", "max", "0xFF800000",
                                   ["%r = arith.maximumf %x, %y : f32"]),
             body=["%new = arith.maximumf %cur, %vf : f32"],
             model=lambda x, s: [max(float(x.max()), s[0])]),
        # i8 (promoted to i32 in the buffers): the operator says iand, the recipe ors
        dict(name="or8", t="i8", shape=(), start=[64],
             recipe=_scalar_recipe("or8", "i8", "iand", "0", ["%r = arith.ori %x, %y : i8"]),
             body=["%v8 = arith.trunci %v : i32 to i8", "%m = arith.andi %v8, %c7_i8 : i8",
                   "%new = arith.ori %cur, %m : i8"],
             model=lambda x, s: [int(np.bitwise_or.reduce(x & 7)) | s[0]]),
        # a sum whose identity is -0.0 (not the standard 0.0): the recipe's init is used
        dict(name="dsum", t="f64", shape=(), start=[0.5],
             recipe=_scalar_recipe("dsum", "f64", "add", "-0.0", ["%r = arith.addf %x, %y : f64"]),
             body=["%vd = arith.extf %vf : f32 to f64", "%new = arith.addf %cur, %vd : f64"],
             model=lambda x, s: [float(x.sum()) + s[0]]),
        # arrays: the standard element-wise add ...
        dict(name="asum", t="i32", shape=(4,), start=[0, 10, 20, 30],
             recipe=_array_recipe("asum", 4, "i32", "add", "0", ["%r = arith.addi %x, %y : i32"]),
             body=["%k1 = arith.addi %ki, %c1_i32 : i32", "%w = arith.muli %v, %k1 : i32",
                   "%new = arith.addi %cur, %w : i32"],
             model=lambda x, s: [int(x.sum()) * (k + 1) + s[k] for k in range(4)]),
        # ... the standard element-wise maxnumf ...
        dict(name="amax", t="f32", shape=(3,), start=[-1e30, 5.0, 1e30],
             recipe=_array_recipe("amax", 3, "f32", "max", "0xFF800000",
                                  ["%r = arith.maxnumf %x, %y : f32"]),
             body=["%kf = arith.sitofp %ki : i32 to f32", "%w = arith.addf %vf, %kf : f32",
                   "%new = arith.maxnumf %cur, %w : f32"],
             model=lambda x, s: [max(float(x.max()) + k, s[k]) for k in range(3)]),
        # ... and a custom one: the operator says add, the recipe takes the minimum
        dict(name="amin", t="i64", shape=(2,), start=[7, -7],
             recipe=_array_recipe("amin", 2, "i64", "add", str(2**63 - 1),
                                  ["%r = arith.minsi %x, %y : i64"]),
             body=["%v64 = arith.extsi %v : i32 to i64", "%k64 = arith.extsi %ki : i32 to i64",
                   "%w = arith.muli %v64, %k64 : i64", "%new = arith.minsi %cur, %w : i64"],
             model=lambda x, s: [min(int(x.min()) * 0, s[0]), min(int(x.min()), s[1])]),
    ]


def _wrap32(start: int, factors: np.ndarray) -> int:
    """The product modulo 2**32, read as a signed i32."""
    p = start
    for f in factors.tolist():
        p = (p * f) % (1 << 32)
    return p - (1 << 32) if p >= 1 << 31 else p


_PRINT = {"i32": "I32", "f32": "F32", "f64": "F64", "i64": "I64"}


def _program(nw: int, vl: int) -> tuple[str, list[dict]]:
    cases = _cases()
    recipes = "".join(c["recipe"] for c in cases)
    lines: list[str] = []
    copies: list[tuple[str, str]] = []
    reds: list[tuple[str, str]] = []
    for c in cases:
        t, shape, name = c["t"], c["shape"], c["name"]
        m = f"memref<{'x'.join(map(str, shape))}x{t}>" if shape else f"memref<{t}>"
        lines.append(f"%{name} = memref.alloc() : {m}")
        for k, s in enumerate(c["start"]):
            cst = f"{float(s):e}" if t.startswith("f") else str(int(s))
            idx = f"%c{k}" if shape else ""
            lines.append(f"%s_{name}_{k} = arith.constant {cst} : {t}")
            lines.append(f"memref.store %s_{name}_{k}, %{name}[{idx}] : {m}")
        lines.append(f"%cp_{name} = acc.copyin varPtr(%{name} : {m}) -> {m} "
                     f"{{dataClause = #acc<data_clause acc_copy>, name = \"{name}\"}}")
        lines.append(f"%rd_{name} = acc.reduction varPtr(%cp_{name} : {m}) recipe(@{name}) "
                     f"-> {m} {{name = \"{name}\"}}")
        copies.append((f"%cp_{name}", m))
        reds.append((f"%rd_{name}", m))
        c["m"] = m
    body: list[str] = []
    for c in cases:
        t, m, name = c["t"], c["m"], c["name"]
        elems = range(c["shape"][0]) if c["shape"] else [None]
        for k in elems:
            idx = f"%c{k}" if k is not None else ""
            sub = [s.replace("%cur", f"%cur_{name}_{k}").replace("%new", f"%new_{name}_{k}")
                   .replace("%ki", f"%ki{k if k is not None else 0}") for s in c["body"]]
            sub = [_rename(s, f"{name}_{k}") for s in sub]
            body.append(f"%cur_{name}_{k} = memref.load %rd_{name}[{idx}] : {m}")
            body += sub
            body.append(f"memref.store %new_{name}_{k}, %rd_{name}[{idx}] : {m}")
    prints: list[str] = []
    for c in cases:
        t, m, name = c["t"], c["m"], c["name"]
        pt = t
        src = f"%{name}"
        if t == "i8":  # printed as i32
            prints += [f"%l8 = memref.load %{name}[] : {m}",
                       "%l32 = arith.extsi %l8 : i8 to i32",
                       "%p8 = memref.alloc() : memref<i32>",
                       "memref.store %l32, %p8[] : memref<i32>"]
            src, m, pt = "%p8", "memref<i32>", "i32"
        prints.append(f'%u_{name} = "memref.cast"({src}) : ({m}) -> memref<*x{pt}>')
        prints.append(f"func.call @printMemref{_PRINT[pt]}(%u_{name}) : (memref<*x{pt}>) -> ()")
    ops = ", ".join(v for v, _ in copies)
    types = ", ".join(m for _, m in copies)
    rops = ", ".join(v for v, _ in reds)
    rtypes = ", ".join(m for _, m in reds)
    decls = "\n".join(f"  func.func private @printMemref{p}(memref<*x{t}>)"
                      for t, p in _PRINT.items())
    nl = "\n    "
    text = f"""module {{{recipes}
{decls}
  func.func @main() {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %n = arith.constant {N} : index
    %c37 = arith.constant 37 : index
    %c101 = arith.constant 101 : index
    %c50 = arith.constant 50 : i32
    %x = memref.alloc() : memref<{N}xi32>
    %xf = memref.alloc() : memref<{N}xf32>
    scf.for %i = %c0 to %n step %c1 {{
      %a = arith.muli %i, %c37 : index
      %b = arith.remui %a, %c101 : index
      %bi = arith.index_cast %b : index to i32
      %v = arith.subi %bi, %c50 : i32
      %vf = arith.sitofp %v : i32 to f32
      memref.store %v, %x[%i] : memref<{N}xi32>
      memref.store %vf, %xf[%i] : memref<{N}xf32>
    }}
    {nl.join(lines)}
    %ng = arith.constant {NG} : i32
    %nw = arith.constant {nw} : i32
    %vl = arith.constant {vl} : i32
    acc.parallel dataOperands({ops} : {types}) num_gangs({{%ng : i32}})
        num_workers(%nw : i32) vector_length(%vl : i32) {{
      acc.loop gang worker vector reduction({rops} : {rtypes}) control(%i : index) =
          (%c0 : index) to (%n : index) step (%c1 : index) {{
        %c1_i32 = arith.constant 1 : i32
        %c7_i8 = arith.constant 7 : i8
        %ki0 = arith.constant 0 : i32
        %ki1 = arith.constant 1 : i32
        %ki2 = arith.constant 2 : i32
        %ki3 = arith.constant 3 : i32
        %v = memref.load %x[%i] : memref<{N}xi32>
        %vf = memref.load %xf[%i] : memref<{N}xf32>
        {(nl + "    ").join(body)}
        acc.yield
      }} attributes {{independent = [#acc.device_type<none>]}}
      acc.yield
    }}
    {nl.join(prints)}
    func.return
  }}
}}
"""
    return text, cases


def _rename(s: str, suffix: str) -> str:
    """Give the body's temporaries (%o, %m, %w, ...) a per-element name."""
    import re

    keep = {"%v", "%vf", "%c1_i32", "%c7_i8"}

    def sub(mt: re.Match) -> str:
        name = mt.group(0)
        if name in keep or name.startswith(("%cur_", "%new_", "%ki")):
            return name
        return f"{name}_{suffix}"

    return re.sub(r"%[A-Za-z_][A-Za-z0-9_]*", sub, s)


def _values() -> np.ndarray:
    i = np.arange(N, dtype=np.int64)
    return ((i * 37) % 101 - 50).astype(np.int32)


def _parse(out: str) -> list[list[float]]:
    rows = []
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("["):
            rows.append([float(t) for t in line.strip("[]").replace(" ", "").split(",")])
    return rows


@pytest.mark.parametrize("target", ["cpu", "host"])
@pytest.mark.parametrize("nw", [1, 4])
@pytest.mark.parametrize("vl", [1, 8, 32, 128])
def test_reductions_follow_their_recipes(tmp_path, capsys, target, nw, vl):
    _check(tmp_path, capsys, [f"--oacc-target={target}"], nw, vl)


def test_reductions_follow_their_recipes_in_the_interpreter(tmp_path, capsys):
    """The reference interpreter (xmux-run --interpret) runs the same expansion."""
    _check(tmp_path, capsys, ["--interpret"], 4, 8)


def _check(tmp_path, capsys, flags: list[str], nw: int, vl: int) -> None:
    from xmux.cli import run_main

    text, cases = _program(nw, vl)
    path = tmp_path / "recipes.mlir"
    path.write_text(text)
    assert run_main([*flags, str(path)]) == 0
    got = _parse(capsys.readouterr().out)
    x = _values()
    assert len(got) == len(cases)
    for c, row in zip(cases, got, strict=True):
        want = c["model"](x.astype(np.float32) if c["t"].startswith("f") else x, c["start"])
        if c["t"] == "f32":
            want = [float(np.float32(w)) for w in want]
            row = [float(np.float32(r)) for r in row]
        assert row == want, c["name"]


# A reduction on the construct of an array, continued by a gang/worker/vector loop (its
# worker and vector levels reduce into the construct's private copy), a value-form recipe
# (type i32, not memref<i32>) and a complex recipe that disagrees with its operator.
NESTED = """module {
  acc.reduction.recipe @arr : memref<3xi32> reduction_operator <add> init {
  ^bb0(%arg0: memref<3xi32>):
    %z = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %p = memref.alloca() : memref<3xi32>
    scf.for %i = %c0 to %c3 step %c1 {
      memref.store %z, %p[%i] : memref<3xi32>
    }
    acc.yield %p : memref<3xi32>
  } combiner {
  ^bb0(%a: memref<3xi32>, %b: memref<3xi32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    scf.for %i = %c0 to %c3 step %c1 {
      %x = memref.load %a[%i] : memref<3xi32>
      %y = memref.load %b[%i] : memref<3xi32>
      %s = arith.addi %y, %x : i32
      memref.store %s, %a[%i] : memref<3xi32>
    }
    acc.yield %a : memref<3xi32>
  }
  acc.reduction.recipe @vmin : i32 reduction_operator <max> init {
  ^bb0(%arg0: i32):
    %big = arith.constant 2147483647 : i32
    acc.yield %big : i32
  } combiner {
  ^bb0(%x: i32, %y: i32):
    %m = arith.minsi %x, %y : i32
    acc.yield %m : i32
  }
  acc.reduction.recipe @csum : memref<complex<f32>> reduction_operator <mul> init {
  ^bb0(%arg0: memref<complex<f32>>):
    %z = complex.constant [0.0 : f32, 0.0 : f32] : complex<f32>
    %p = memref.alloca() : memref<complex<f32>>
    memref.store %z, %p[] : memref<complex<f32>>
    acc.yield %p : memref<complex<f32>>
  } combiner {
  ^bb0(%a: memref<complex<f32>>, %b: memref<complex<f32>>):
    %x = memref.load %a[] : memref<complex<f32>>
    %y = memref.load %b[] : memref<complex<f32>>
    %s = complex.add %x, %y : complex<f32>
    memref.store %s, %a[] : memref<complex<f32>>
    acc.yield %a : memref<complex<f32>>
  }
  func.func private @printMemrefI32(memref<*xi32>)
  func.func private @printMemrefF32(memref<*xf32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %n = arith.constant 999 : index
    %c37 = arith.constant 37 : index
    %c101 = arith.constant 101 : index
    %c50 = arith.constant 50 : i32
    %x = memref.alloc() : memref<999xi32>
    scf.for %i = %c0 to %n step %c1 {
      %a = arith.muli %i, %c37 : index
      %b = arith.remui %a, %c101 : index
      %bi = arith.index_cast %b : index to i32
      %v = arith.subi %bi, %c50 : i32
      memref.store %v, %x[%i] : memref<999xi32>
    }
    %arr = memref.alloc() : memref<3xi32>
    %s0 = arith.constant 100 : i32
    %s1 = arith.constant 200 : i32
    %s2 = arith.constant 300 : i32
    memref.store %s0, %arr[%c0] : memref<3xi32>
    memref.store %s1, %arr[%c1] : memref<3xi32>
    memref.store %s2, %arr[%c2] : memref<3xi32>
    %mn = memref.alloc() : memref<i32>
    %s3 = arith.constant 7 : i32
    memref.store %s3, %mn[] : memref<i32>
    %cs = memref.alloc() : memref<complex<f32>>
    %s4 = complex.constant [0.5 : f32, -0.5 : f32] : complex<f32>
    memref.store %s4, %cs[] : memref<complex<f32>>
    %ca = acc.copyin varPtr(%arr : memref<3xi32>) -> memref<3xi32>
        {dataClause = #acc<data_clause acc_copy>, name = "arr"}
    %cm = acc.copyin varPtr(%mn : memref<i32>) -> memref<i32>
        {dataClause = #acc<data_clause acc_copy>, name = "mn"}
    %cc = acc.copyin varPtr(%cs : memref<complex<f32>>) -> memref<complex<f32>>
        {dataClause = #acc<data_clause acc_copy>, name = "cs"}
    %ra = acc.reduction varPtr(%ca : memref<3xi32>) recipe(@arr) -> memref<3xi32> {name = "arr"}
    %rm = acc.reduction varPtr(%cm : memref<i32>) recipe(@vmin) -> memref<i32> {name = "mn"}
    %rc = acc.reduction varPtr(%cc : memref<complex<f32>>) recipe(@csum)
        -> memref<complex<f32>> {name = "cs"}
    %ng = arith.constant 3 : i32
    %nw = arith.constant NW : i32
    %vl = arith.constant VL : i32
    acc.parallel dataOperands(%ca, %cm, %cc : memref<3xi32>, memref<i32>, memref<complex<f32>>)
        num_gangs({%ng : i32}) num_workers(%nw : i32) vector_length(%vl : i32)
        reduction(%ra : memref<3xi32>) {
      %one = arith.constant 1 : i32
      %e = memref.load %ra[%c0] : memref<3xi32>
      %e1 = arith.addi %e, %one : i32
      memref.store %e1, %ra[%c0] : memref<3xi32>
      acc.loop gang worker vector reduction(%ra, %rm, %rc : memref<3xi32>, memref<i32>,
          memref<complex<f32>>) control(%i : index) = (%c0 : index) to (%n : index)
          step (%c1 : index) {
        %v = memref.load %x[%i] : memref<999xi32>
        %a1 = memref.load %ra[%c1] : memref<3xi32>
        %b1 = arith.addi %a1, %v : i32
        memref.store %b1, %ra[%c1] : memref<3xi32>
        %a2 = memref.load %ra[%c2] : memref<3xi32>
        %v2 = arith.muli %v, %v : i32
        %b2 = arith.addi %a2, %v2 : i32
        memref.store %b2, %ra[%c2] : memref<3xi32>
        %m = memref.load %rm[] : memref<i32>
        %m1 = arith.minsi %m, %v : i32
        memref.store %m1, %rm[] : memref<i32>
        %vf = arith.sitofp %v : i32 to f32
        %two = arith.constant 2.0 : f32
        %vf2 = arith.mulf %vf, %two : f32
        %z = complex.create %vf, %vf2 : complex<f32>
        %c = memref.load %rc[] : memref<complex<f32>>
        %c1s = complex.add %c, %z : complex<f32>
        memref.store %c1s, %rc[] : memref<complex<f32>>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }
    %u1 = "memref.cast"(%arr) : (memref<3xi32>) -> memref<*xi32>
    func.call @printMemrefI32(%u1) : (memref<*xi32>) -> ()
    %u2 = "memref.cast"(%mn) : (memref<i32>) -> memref<*xi32>
    func.call @printMemrefI32(%u2) : (memref<*xi32>) -> ()
    %re = complex.re %s4 : complex<f32>
    %cv = memref.load %cs[] : memref<complex<f32>>
    %cre = complex.re %cv : complex<f32>
    %cim = complex.im %cv : complex<f32>
    %pr = memref.alloc() : memref<2xf32>
    memref.store %cre, %pr[%c0] : memref<2xf32>
    memref.store %cim, %pr[%c1] : memref<2xf32>
    %u3 = "memref.cast"(%pr) : (memref<2xf32>) -> memref<*xf32>
    func.call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
    func.return
  }
}
"""


@pytest.mark.parametrize("target", ["cpu", "host"])
@pytest.mark.parametrize("nw,vl", [(1, 1), (4, 8), (1, 32), (4, 128)])
def test_construct_array_reduction_and_recipe_forms(tmp_path, capsys, target, nw, vl):
    from xmux.cli import run_main

    path = tmp_path / "nested.mlir"
    path.write_text(NESTED.replace("NW", str(nw)).replace("VL", str(vl)))
    assert run_main([f"--oacc-target={target}", str(path)]) == 0
    arr, mn, cs = _parse(capsys.readouterr().out)
    i = np.arange(999)
    x = (i * 37) % 101 - 50
    # the construct's body runs once per gang (host: one gang)
    gangs = NG if target == "cpu" else 1
    assert arr == [100 + gangs, 200 + int(x.sum()), 300 + int((x * x).sum())]
    assert mn == [min(7, int(x.min()))]
    assert cs == [0.5 + float(x.sum()), -0.5 + 2.0 * float(x.sum())]


HISTOGRAM = """module {
  acc.reduction.recipe @hist : memref<16xi32> reduction_operator <add> init {
  ^bb0(%arg0: memref<16xi32>):
    %z = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %arg0, %c0 : memref<16xi32>
    %p = memref.alloca() : memref<16xi32>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %z, %p[%i] : memref<16xi32>
    }
    acc.yield %p : memref<16xi32>
  } combiner {
  ^bb0(%a: memref<16xi32>, %b: memref<16xi32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %a, %c0 : memref<16xi32>
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %a[%i] : memref<16xi32>
      %y = memref.load %b[%i] : memref<16xi32>
      %s = arith.addi %x, %y : i32
      memref.store %s, %a[%i] : memref<16xi32>
    }
    acc.yield %a : memref<16xi32>
  }
  func.func private @printMemrefI32(memref<*xi32>)
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %n = arith.constant 5000 : index
    %c37 = arith.constant 37 : index
    %c101 = arith.constant 101 : index
    %zero = arith.constant 0 : i32
    %h = memref.alloc() : memref<16xi32>
    scf.for %i = %c0 to %c16 step %c1 {
      memref.store %zero, %h[%i] : memref<16xi32>
    }
    %ch = acc.copyin varPtr(%h : memref<16xi32>) -> memref<16xi32>
        {dataClause = #acc<data_clause acc_copy>, name = "h"}
    %rh = acc.reduction varPtr(%ch : memref<16xi32>) recipe(@hist) -> memref<16xi32> {name = "h"}
    %ng = arith.constant 5 : i32
    %nw = arith.constant NW : i32
    %vl = arith.constant VL : i32
    acc.parallel dataOperands(%ch : memref<16xi32>) num_gangs({%ng : i32})
        num_workers(%nw : i32) vector_length(%vl : i32) {
      acc.loop gang worker vector reduction(%rh : memref<16xi32>) control(%i : index) =
          (%c0 : index) to (%n : index) step (%c1 : index) {
        %a = arith.muli %i, %c37 : index
        %b = arith.remui %a, %c101 : index
        %k = arith.remui %b, %c16 : index
        %one = arith.constant 1 : i32
        %cur = memref.load %rh[%k] : memref<16xi32>
        %new = arith.addi %cur, %one : i32
        memref.store %new, %rh[%k] : memref<16xi32>
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }
    %u = "memref.cast"(%h) : (memref<16xi32>) -> memref<*xi32>
    func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    func.return
  }
}
"""


@pytest.mark.parametrize("target", ["cpu", "host"])
@pytest.mark.parametrize("nw,vl", [(1, 1), (4, 8), (1, 32), (4, 128)])
def test_histogram_as_an_array_reduction(tmp_path, capsys, target, nw, vl):
    """The loop indexes the array with a computed bin: each work-item counts into its own
    LOCAL array, the arrays are combined element-wise at every level."""
    from xmux.cli import run_main

    path = tmp_path / "hist.mlir"
    path.write_text(HISTOGRAM.replace("NW", str(nw)).replace("VL", str(vl)))
    assert run_main([f"--oacc-target={target}", str(path)]) == 0
    (got,) = _parse(capsys.readouterr().out)
    bins = ((np.arange(5000) * 37) % 101) % 16
    assert got == np.bincount(bins, minlength=16).tolist()


def _two_dimensional(text: str) -> str:
    """HISTOGRAM on a memref<4x4xi32>: nested element loops in the recipe, bin k at
    (k / 4, k % 4)."""
    s = text.replace("memref<16xi32>", "memref<4x4xi32>")
    for name in ("%p", "%h"):
        s = s.replace(f"memref.store %z, {name}[%i] : memref<4x4xi32>",
                      f"scf.for %j = %c0 to %c4 step %c1 {{\n"
                      f"      memref.store %z, {name}[%i, %j] : memref<4x4xi32>\n    }}")
    s = s.replace("memref.store %zero, %h[%i] : memref<4x4xi32>",
                  "scf.for %j = %c0 to %c4 step %c1 {\n"
                  "      memref.store %zero, %h[%i, %j] : memref<4x4xi32>\n    }")
    s = s.replace("scf.for %i = %c0 to %c16 step %c1", "scf.for %i = %c0 to %c4 step %c1")
    s = s.replace("    %n = memref.dim %arg0, %c0 : memref<4x4xi32>",
                  "    %n = memref.dim %arg0, %c0 : memref<4x4xi32>\n"
                  "    %c4 = memref.dim %arg0, %c1 : memref<4x4xi32>")
    s = s.replace("    %n = memref.dim %a, %c0 : memref<4x4xi32>",
                  "    %n = memref.dim %a, %c0 : memref<4x4xi32>\n"
                  "    %c4 = memref.dim %a, %c1 : memref<4x4xi32>")
    s = s.replace('''      %x = memref.load %a[%i] : memref<4x4xi32>
      %y = memref.load %b[%i] : memref<4x4xi32>
      %s = arith.addi %x, %y : i32
      memref.store %s, %a[%i] : memref<4x4xi32>''', '''      scf.for %j = %c0 to %c4 step %c1 {
        %x = memref.load %a[%i, %j] : memref<4x4xi32>
        %y = memref.load %b[%i, %j] : memref<4x4xi32>
        %s = arith.addi %x, %y : i32
        memref.store %s, %a[%i, %j] : memref<4x4xi32>
      }''')
    s = s.replace("    %c16 = arith.constant 16 : index",
                  "    %c16 = arith.constant 16 : index\n    %c4 = arith.constant 4 : index")
    return s.replace('''        %cur = memref.load %rh[%k] : memref<4x4xi32>
        %new = arith.addi %cur, %one : i32
        memref.store %new, %rh[%k] : memref<4x4xi32>''', '''        %r = arith.divui %k, %c4 : index
        %q = arith.remui %k, %c4 : index
        %cur = memref.load %rh[%r, %q] : memref<4x4xi32>
        %new = arith.addi %cur, %one : i32
        memref.store %new, %rh[%r, %q] : memref<4x4xi32>''')


@pytest.mark.parametrize("target", ["cpu", "host"])
@pytest.mark.parametrize("nw,vl", [(1, 1), (4, 32)])
def test_two_dimensional_array_reduction(tmp_path, capsys, target, nw, vl):
    import re

    from xmux.cli import run_main

    text = _two_dimensional(HISTOGRAM)
    assert "memref<16xi32>" not in text
    path = tmp_path / "hist2.mlir"
    path.write_text(text.replace("NW", str(nw)).replace("VL", str(vl)))
    assert run_main([f"--oacc-target={target}", str(path)]) == 0
    out = capsys.readouterr().out
    data = out[out.index("data =") + len("data ="):]
    got = [int(v) for v in re.findall(r"-?\d+", data)]
    bins = ((np.arange(5000) * 37) % 101) % 16
    assert got == np.bincount(bins, minlength=16).tolist()
