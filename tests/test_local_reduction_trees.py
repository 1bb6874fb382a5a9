"""vectorize-local-reduction-trees end to end: halving trees over work-group local memory, in
the loop forms kernels write them, compute exactly what the same tree computes in numpy
(bit for bit: the pass keeps the tree's order), for several element types, combining ops and
required work-group sizes; the buffer's final contents (every slot, read back by its work-item)
are the tree's too. Each case also checks whether the pass rewrote the loop."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xmux
from xmux.api import parse
from xmux.pipelines import make_pass
from xmux.registry import make_context

TYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64,
         "f16": np.float16, "i8": np.int8, "i16": np.int16}

# (float op, int op) bodies: %a = buf[lid], %b = buf[lid + s] -> %t
OPS = {
    "add": ("%t = arith.addf %a, %b : {T}", "%t = arith.addi %a, %b : {T}"),
    "mul": ("%t = arith.mulf %a, %b : {T}", "%t = arith.muli %a, %b : {T}"),
    "min": ("%t = arith.minimumf %a, %b : {T}", "%t = arith.minsi %a, %b : {T}"),
    "max": ("%t = arith.maximumf %a, %b : {T}", "%t = arith.maxsi %a, %b : {T}"),
    # b > a ? b : a, through a comparison and a select
    "selmax": ("%gt = arith.cmpf ogt, %b, %a : {T}\n%t = arith.select %gt, %b, %a : {T}",
               "%gt = arith.cmpi sgt, %b, %a : {T}\n%t = arith.select %gt, %b, %a : {T}"),
    # a + 2*b: any elementwise function of the two slots, constants splatted
    "axpy": ("%two = arith.constant 2.0 : {T}\n%m = arith.mulf %b, %two : {T}\n"
             "%t = arith.addf %a, %m : {T}",
             "%two = arith.constant 2 : {T}\n%m = arith.muli %b, %two : {T}\n"
             "%t = arith.addi %a, %m : {T}"),
}

NP_OPS = {
    "add": lambda a, b: a + b, "mul": lambda a, b: a * b,
    "min": np.minimum, "max": np.maximum, "selmax": lambda a, b: np.where(b > a, b, a),
    "axpy": lambda a, b: a + b * a.dtype.type(2),
}

BARRIER = "mux.work_group_barrier work_group, <acq_rel, work_group_memory>"

STEP = """
      %o = arith.addi %lid, %s : index
      %a = memref.load %buf[%lid] : memref<{L}x{T}, 3>
      %b = memref.load %buf[%o] : memref<{L}x{T}, 3>
      {OP}
      memref.store %t, %buf[%lid] : memref<{L}x{T}, 3>
"""

# the loop forms: s = H >> j over an scf.for; an scf.while halving s with shrui; the same in
# i32 arithmetic from get_local_size with divsi and `s > lid`; the barrier before the step
LOOPS = {
    "for_shift": """
    %cK = arith.constant {K} : index
    scf.for %j = %c0 to %cK step %c1 {{
      %s = arith.shrui %cH, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {{{STEP}      }}
      {BARRIER}
    }}
""",
    "while_shift": """
    %end = scf.while (%s0 = %cH) : (index) -> index {{
      %go = arith.cmpi ugt, %s0, %c0 : index
      scf.condition(%go) %s0 : index
    }} do {{
    ^bb0(%s: index):
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {{{STEP}      }}
      {BARRIER}
      %next = arith.shrui %s, %c1 : index
      scf.yield %next : index
    }}
""",
    "while_div_i32": """
    %ls = mux.get_local_size 0 : index
    %ls32 = arith.index_cast %ls : index to i32
    %two32 = arith.constant 2 : i32
    %zero32 = arith.constant 0 : i32
    %h32 = arith.divsi %ls32, %two32 : i32
    %lid32 = arith.index_cast %lid : index to i32
    %end = scf.while (%s0 = %h32) : (i32) -> i32 {{
      %go = arith.cmpi sgt, %s0, %zero32 : i32
      scf.condition(%go) %s0 : i32
    }} do {{
    ^bb0(%s32: i32):
      %active = arith.cmpi sgt, %s32, %lid32 : i32
      scf.if %active {{
        %o32 = arith.addi %lid32, %s32 : i32
        %s = arith.index_cast %s32 : i32 to index
{STEP}      }}
      {BARRIER}
      %next = arith.divsi %s32, %two32 : i32
      scf.yield %next : i32
    }}
""",
    "barrier_first": """
    %cK = arith.constant {K} : index
    scf.for %j = %c0 to %cK step %c1 {{
      {BARRIER}
      %s = arith.shrui %cH, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {{{STEP}      }}
    }}
    {BARRIER}
""",
}

KERNEL = """
module {{
  memref.global "private" @buf : memref<{L}x{T}, 3> = uninitialized
  func.func @tree(%x: memref<?x{T}>, %out: memref<?x{T}>, %all: memref<?x{T}>)
      attributes {{mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: {L}, 1, 1>}} {{
    %i = mux.get_global_id 0 : index
    %lid = mux.get_local_id 0 : index
    %g = mux.get_group_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cH = arith.constant {H} : index
    %buf = memref.get_global @buf : memref<{L}x{T}, 3>
    %v = memref.load %x[%i] : memref<?x{T}>
    memref.store %v, %buf[%lid] : memref<{L}x{T}, 3>
    {BARRIER}
{LOOP}
    %mine = memref.load %buf[%lid] : memref<{L}x{T}, 3>
    memref.store %mine, %all[%i] : memref<?x{T}>
    %first = arith.cmpi eq, %lid, %c0 : index
    scf.if %first {{
      %r = memref.load %buf[%c0] : memref<{L}x{T}, 3>
      memref.store %r, %out[%g] : memref<?x{T}>
    }}
    func.return
  }}
}}
"""


def kernel_text(form: str, t: str, op: str, local: int) -> str:
    body = OPS[op][0 if t.startswith("f") else 1].format(T=t)
    step = STEP.format(L=local, T=t, OP=body.replace("\n", "\n      "))
    if form == "while_div_i32":
        step = step.replace("%o = arith.addi %lid, %s : index",
                            "%o = arith.index_cast %o32 : i32 to index")
    half = local // 2
    rounds = half.bit_length()
    if form in STRAIGHT:
        looped = max(0, rounds - 3) if form == "loop_then_unrolled" else 0
        loop = LOOPS["for_shift"].format(K=looped, STEP=step, BARRIER=BARRIER)
        loop += "".join(unrolled_round(step, half >> j, j) for j in range(looped, rounds))
    else:
        loop = LOOPS[form].format(K=rounds, STEP=step, BARRIER=BARRIER)
    return KERNEL.format(L=local, T=t, H=half, LOOP=loop, BARRIER=BARRIER)


#: rounds written out one after the other: all of them, or the last three after a loop
STRAIGHT = ("unrolled", "loop_then_unrolled")


def unrolled_round(step: str, s: int, j: int) -> str:
    step = re.sub(r"%s\b", f"%s{j}", step)
    return (f"    %s{j} = arith.constant {s} : index\n"
            f"    %active{j} = arith.cmpi ult, %lid, %s{j} : index\n"
            f"    scf.if %active{j} {{{step}    }}\n    {BARRIER}\n")


def tree_reference(x: np.ndarray, local: int, op: str) -> np.ndarray:
    """The buffer of every group after the rounds s = local/2, local/4, ..., 1."""
    buf = x.reshape(-1, local).copy()
    s = local // 2
    with np.errstate(over="ignore"):
        while s > 0:
            c = min(s, local)
            buf[:, :c] = NP_OPS[op](buf[:, :c], buf[:, s:s + c])
            s //= 2
    return buf


def rewritten(text: str) -> bool:
    """Whether vectorize-local-reduction-trees replaced the kernel's tree loop."""
    module = parse(text)
    for name in ("prepare-barriers", "vectorize-local-reduction-trees"):
        make_pass(name).apply(make_context(), module)
    return any(o.name == "vector.shuffle" for o in module.walk())


def inputs(t: str, op: str, n: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    dt = TYPES[t]
    if t.startswith("f"):
        lo, hi = (0.9, 1.1) if op == "mul" else (-4.0, 4.0)
        return rng.uniform(lo, hi, n).astype(dt)
    return rng.integers(-1000, 1000, n).astype(dt)


def run(text: str, t: str, local: int, groups: int, op: str) -> None:
    n = local * groups
    x = inputs(t, op, n)
    out = np.zeros(groups, TYPES[t])
    every = np.zeros(n, TYPES[t])
    xmux.compile(text, cache=False)["tree"](x, out, every, global_size=n, local_size=local)
    ref = tree_reference(x, local, op)
    np.testing.assert_array_equal(out, ref[:, 0])
    np.testing.assert_array_equal(every, ref.reshape(-1))


@pytest.mark.parametrize("form", sorted(LOOPS) + list(STRAIGHT))
@pytest.mark.parametrize("t,op", [("f32", "add"), ("f64", "max"), ("i32", "add"),
                                  ("i64", "min"), ("f32", "selmax"), ("i32", "selmax")])
def test_loop_forms_types_and_ops(form: str, t: str, op: str) -> None:
    """A comparison and a select is not rewritten (xDSL's arith comparisons are scalar
    only): work-item-loops runs it, with the same results."""
    text = kernel_text(form, t, op, 64)
    assert rewritten(text) == (op != "selmax")
    run(text, t, 64, 37, op)


@pytest.mark.parametrize("t,op", [("f16", "add"), ("i8", "add"), ("i16", "max")])
def test_narrow_types(t: str, op: str) -> None:
    text = kernel_text("for_shift", t, op, 128)
    assert rewritten(text)
    run(text, t, 128, 7, op)


@pytest.mark.parametrize("local", [1, 2, 8, 96, 128, 256, 1024])
@pytest.mark.parametrize("t,op", [("f32", "add"), ("i32", "mul"), ("f64", "axpy")])
def test_local_sizes(local: int, t: str, op: str) -> None:
    """Power-of-two sizes, 96 (the halving tree then skips slots: rounds 48, 24, 12, 6, 3, 1)
    and sizes beyond the pass's 4 KiB limit (1024 f64: left to work-item-loops)."""
    text = kernel_text("for_shift", t, op, local)
    fits = local * np.dtype(TYPES[t]).itemsize <= 4096 and local > 1
    assert rewritten(text) == fits
    run(text, t, local, 5, op)


def test_reqd_size_of_the_local_size_variant() -> None:
    """Without a required size the tree stays as it is; the launcher's local-size variant
    (compiled with the launch's size as the required one) gets the vector step."""
    text = kernel_text("while_div_i32", "f32", "add", 128).replace(
        ", mux.reqd_work_group_size = array<i64: 128, 1, 1>", "")
    text = text.replace("memref<128xf32, 3>", "memref<1024xf32, 3>")
    assert not rewritten(text)
    k = xmux.compile(text, cache=False)["tree"]
    x = inputs("f32", "add", 128 * 6)
    out = np.zeros(6, np.float32)
    every = np.zeros_like(x)
    ref = tree_reference(x, 128, "add")
    for _ in range(3):  # the generic kernel, then the variant
        out[:] = np.nan
        k(x, out, every, global_size=x.size, local_size=128)
        np.testing.assert_array_equal(out, ref[:, 0])


# Rounds that are not a halving tree: s = 2, 3, 4 in a 4-item group over 8 slots (every round
# reads slots [s, s + c) the previous ones did not write: the vector cannot shrink, rounds
# blend), and slots written at lid + 4 from lid + 4 and lid (a write offset that is not 0).
IRREGULAR = """
module {
  memref.global "private" @buf : memref<8xf32, 3> = uninitialized
  func.func @tree(%x: memref<?xf32>, %out: memref<?xf32>, %all: memref<?xf32>)
      attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 4, 1, 1>} {
    %i = mux.get_global_id 0 : index
    %lid = mux.get_local_id 0 : index
    %g = mux.get_group_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %buf = memref.get_global @buf : memref<8xf32, 3>
    %i2 = arith.muli %i, %c2 : index
    %l2 = arith.muli %lid, %c2 : index
    scf.for %k = %c0 to %c2 step %c1 {
      %src = arith.addi %i2, %k : index
      %dst = arith.addi %l2, %k : index
      %v = memref.load %x[%src] : memref<?xf32>
      memref.store %v, %buf[%dst] : memref<8xf32, 3>
    }
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.for %j = %c0 to %c3 step %c1 {
      %s = arith.addi %c2, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.subf %a, %b : f32
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    scf.for %j = %c0 to %c3 step %c1 {
      %s = arith.shrui %c4, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %w = arith.addi %lid, %c4 : index
        %a = memref.load %buf[%w] : memref<8xf32, 3>
        %b = memref.load %buf[%lid] : memref<8xf32, 3>
        %t = arith.mulf %a, %b : f32
        %u = arith.addf %t, %b : f32
        memref.store %u, %buf[%w] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }
    scf.for %k = %c0 to %c2 step %c1 {
      %src = arith.addi %l2, %k : index
      %dst = arith.addi %i2, %k : index
      %v = memref.load %buf[%src] : memref<8xf32, 3>
      memref.store %v, %all[%dst] : memref<?xf32>
    }
    func.return
  }
}
"""


def test_irregular_rounds() -> None:
    module_rewrites = parse(IRREGULAR)
    make_pass("prepare-barriers").apply(make_context(), module_rewrites)
    make_pass("vectorize-local-reduction-trees").apply(make_context(), module_rewrites)
    assert not any(o.name == "scf.for" and any(p.name == "mux.work_group_barrier"
                                               for p in o.walk())
                   for o in module_rewrites.walk())
    groups = 9
    x = np.random.default_rng(5).uniform(-2, 2, 8 * groups).astype(np.float32)
    every = np.zeros_like(x)
    k = xmux.compile(IRREGULAR, cache=False)["tree"]
    k(x, np.zeros(groups, np.float32), every, global_size=4 * groups, local_size=4)
    buf = x.reshape(groups, 8).copy()
    for s in (2, 3, 4):
        c = min(s, 4)
        buf[:, :c] = buf[:, :c] - buf[:, s:s + c]
    for s in (4, 2, 1):
        buf[:, 4:4 + s] = buf[:, 4:4 + s] * buf[:, :s] + buf[:, :s]
    np.testing.assert_array_equal(every, buf.reshape(-1))


# ---------------------------------------------------------------------------------------
# Random trees: the pass against work-item-loops alone (bit for bit)
# ---------------------------------------------------------------------------------------

RANDOM_OPS = {"f": ["addf", "mulf", "subf", "minimumf", "maxnumf"],
              "i": ["addi", "muli", "subi", "xori", "maxui", "minsi"]}


def random_tree(rng: np.random.Generator) -> tuple[str, str, int, int]:
    """A random tree kernel: (text, element type, local size, buffer length). Rounds follow
    s = H >> j, s = H - d*j, a while loop halving / dividing / subtracting, or are written out
    one after the other (s = H, H/2, ...: at most k of them); the guard is
    `lid < s` or `lid <= s` in either operand order, signed or unsigned; the step writes
    buf[lid + w] from buf[lid + w] and buf[lid + w + s (+1 for <=)]."""
    local = int(rng.integers(1, 48))
    t = str(rng.choice(["f32", "f64", "i32", "i64"]))
    op = str(rng.choice(RANDOM_OPS[t[0]]))
    h = int(rng.integers(1, 40))
    w = int(rng.integers(0, 3))
    le = bool(rng.integers(0, 2))
    pred = ("ule" if le else "ult") if rng.integers(0, 2) else ("sle" if le else "slt")
    swapped = {"ult": "ugt", "ule": "uge", "slt": "sgt", "sle": "sge"}[pred]
    guard = (f"arith.cmpi {pred}, %lid, %s : index" if rng.integers(0, 2)
             else f"arith.cmpi {swapped}, %s, %lid : index")
    form = str(rng.choice(["shift", "linear", "while_shift", "while_div", "while_sub",
                           "straight"]))
    d = int(rng.integers(1, 4))
    k = int(rng.integers(1, 7))
    sizes = {"shift": [h >> j for j in range(k)], "linear": [h - d * j for j in range(k)]}
    s, seq = h, []
    while s > 0 and len(seq) < 64:
        seq.append(s)
        s = s // 2 if form != "while_sub" else s - d
    sizes.update(while_shift=seq, while_div=seq, while_sub=seq, straight=seq[:k])
    counts = [max(0, min(s + le, local)) for s in sizes[form]]
    length = max([w + s + le + c for s, c in zip(sizes[form], counts, strict=True)] + [local])
    length += int(rng.integers(0, 4))
    step = (f"%o = arith.addi %lid, %s : index\n        %ow = arith.addi %o, %cR : index\n"
            f"        %w = arith.addi %lid, %cW : index\n"
            f"        %a = memref.load %buf[%w] : memref<{length}x{t}, 3>\n"
            f"        %b = memref.load %buf[%ow] : memref<{length}x{t}, 3>\n"
            f"        %t = arith.{op} %a, %b : {t}\n"
            f"        memref.store %t, %buf[%w] : memref<{length}x{t}, 3>")
    body = (f"%active = {guard}\n      scf.if %active {{\n        {step}\n      }}\n"
            f"      {BARRIER}")
    if form == "straight":  # the rounds written out, s a constant in each
        loop = "\n    ".join(
            re.sub(r"%s\b", f"%s{j}", f"%s = arith.constant {sj} : index\n      {body}")
            .replace("%active", f"%active{j}") for j, sj in enumerate(sizes[form]))
    elif form in ("shift", "linear"):
        s_op = ("arith.shrui %cH, %j : index" if form == "shift" else
                "arith.muli %cD, %j : index\n      %s = arith.subi %cH, %dj : index")
        s_def = f"%s = {s_op}" if form == "shift" else f"%dj = {s_op}"
        loop = (f"scf.for %j = %c0 to %cK step %c1 {{\n      {s_def}\n      {body}\n    }}")
    else:
        nxt = {"while_shift": "arith.shrui %s, %c1 : index",
               "while_div": "arith.divui %s, %c2 : index",
               "while_sub": "arith.subi %s, %cD : index"}[form]
        cond = "sgt" if form == "while_sub" else "ugt"
        loop = (f"%end = scf.while (%s0 = %cH) : (index) -> index {{\n"
                f"      %go = arith.cmpi {cond}, %s0, %c0 : index\n"
                f"      scf.condition(%go) %s0 : index\n    }} do {{\n    ^bb0(%s: index):\n"
                f"      {body}\n      %next = {nxt}\n      scf.yield %next : index\n    }}")
    lid = "mux.get_local_id 0" if rng.integers(0, 2) else "mux.get_local_linear_id"
    text = f"""
module {{
  memref.global "private" @buf : memref<{length}x{t}, 3> = uninitialized
  func.func @tree(%x: memref<?x{t}>, %all: memref<?x{t}>) attributes {{mux.kernel = "entry_point",
      mux.reqd_work_group_size = array<i64: {local}, 1, 1>}} {{
    %lid = {lid} : index
    %g = mux.get_group_id 0 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %cD = arith.constant {d} : index
    %cH = arith.constant {h} : index
    %cK = arith.constant {k} : index
    %cW = arith.constant {w} : index
    %cR = arith.constant {w + int(le)} : index
    %cL = arith.constant {local} : index
    %cN = arith.constant {length} : index
    %base = arith.muli %g, %cN : index
    %buf = memref.get_global @buf : memref<{length}x{t}, 3>
    scf.for %q = %lid to %cN step %cL {{
      %src = arith.addi %base, %q : index
      %v = memref.load %x[%src] : memref<?x{t}>
      memref.store %v, %buf[%q] : memref<{length}x{t}, 3>
    }}
    {BARRIER}
    {loop}
    {BARRIER}
    scf.for %q = %lid to %cN step %cL {{
      %dst = arith.addi %base, %q : index
      %v = memref.load %buf[%q] : memref<{length}x{t}, 3>
      memref.store %v, %all[%dst] : memref<?x{t}>
    }}
    func.return
  }}
}}
"""
    return text, t, local, length


def test_random_trees_match_work_item_loops() -> None:
    without = [p for p in xmux.pipelines.cpu() if p.name != "vectorize-local-reduction-trees"]
    matched = 0
    cases = 24
    for seed in range(cases):
        rng = np.random.default_rng(1000 + seed)
        text, t, local, length = random_tree(rng)
        matched += rewritten(text)
        groups = 3
        x = inputs(t, "add", length * groups)
        outs = []
        for pipeline in (None, without):
            every = np.zeros_like(x)
            prog = xmux.compile(text, cache=False, pipeline=pipeline)
            prog["tree"](x, every, global_size=local * groups, local_size=local)
            outs.append(every)
        np.testing.assert_array_equal(outs[0], outs[1], err_msg=f"seed {1000 + seed}:\n{text}")
    assert matched >= cases * 3 // 4  # the generator makes mostly trees the pass takes


def test_static_integer_arithmetic_follows_arith() -> None:
    """The evaluator behind the pass computes arith's integer semantics (round values come
    from it): signed division rounds towards zero, shifts and casts wrap at the type's
    width."""
    from xmux.transforms.vectorize_local_reduction_trees import _binary, _signed

    assert _binary("arith.divsi", -7, 2, 32) == -3
    assert _binary("arith.remsi", -7, 2, 32) == -1
    assert _binary("arith.divsi", 2**62 + 1, 3, 64) == (2**62 + 1) // 3
    assert _binary("arith.divui", -8, 2, 8) == 124  # 248 / 2
    assert _binary("arith.shrsi", -8, 1, 32) == -4
    assert _binary("arith.shrui", -8, 1, 8) == 124
    assert _binary("arith.shli", 1, 31, 32) == -(2**31)
    assert _binary("arith.addi", 2**31 - 1, 1, 32) == -(2**31)
    assert _binary("arith.divsi", -(2**31), -1, 32) == -(2**31)  # wraps, as lowered
    assert _signed(255, 8) == -1
