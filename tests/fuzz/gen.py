"""Random legal barrier kernels for differential testing of work-item-loops.

A kernel is a small structured AST (``Kernel``: a list of statements, each one MLIR op or a
structured ``scf`` construct) made from a seed by ``generate(seed)``. The same AST is

- printed as MLIR text in the ``mux`` dialect (``Kernel.mlir()``), and
- executed by a numpy model of one work-group at a time (``run_model``), lanes = work-items
  in local linear order, barrier-free divergent control flow through masks. The model is the
  judge of legality on each launch configuration: it raises ``Illegal`` on a barrier or
  collective not reached by the whole group, a data race on local memory between two
  barriers, a read of uninitialised or out-of-range local memory, a loop that runs away.

Legality by construction (the model re-checks every launch): barriers and collectives only
under uniform control (kernel arguments, constants, uniform queries, ivs of uniform loops,
collective results, values loaded from one local slot after a barrier); local memory is
``@tile_<k> : memref<ROWS x CAP x i32, 3>``, written only at the work-item's own slot
(``[row, lid]``), read at any slot ``< n`` (own, neighbour, reversed, fixed, data-dependent)
once the row was written by the whole group and a barrier passed; a read of another slot and
a write of a row never meet between two barriers (the generator inserts a barrier where they
would); global writes only to ``out[gid * SLOTS + s]``.

Statements define SSA values with unique names, so the shrinker (``tests/fuzz/shrink.py``)
can replace any statement by constants for its results (``Op(dst, ty, "const")``) without
renaming anything.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field

import numpy as np

CAP = 128  # local slots per row: launches use at most CAP work-items per group
ROWS = 3
SLOTS = 2  # output slots per work-item
INT_KINDS = ["add", "mul", "smin", "smax", "umin", "umax", "and", "or", "xor"]
BIN = ["add", "sub", "mul", "xor", "and", "or", "maxs", "mins"]
PREDS = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ugt"]
MLIR_BIN = {
    "add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli", "xor": "arith.xori",
    "and": "arith.andi", "or": "arith.ori", "maxs": "arith.maxsi", "mins": "arith.minsi",
    "shl": "arith.shli", "shrs": "arith.shrsi",
}
QUERIES_U = [  # uniform within a group, index
    "get_local_size", "get_group_id", "get_num_groups", "get_enqueued_local_size",
]
QUERIES_V = ["get_local_id", "get_global_id"]


class Illegal(Exception):
    """The kernel is not a legal OpenCL kernel on this launch (the model's verdict)."""


# ---------------------------------------------------------------------------------------
# The AST
# ---------------------------------------------------------------------------------------


@dataclass
class Op:
    """One pure op. ``op``: const (imm), bin name (args a b), shl/shrs (imm shift), remu
    (imm divisor), cmp (imm predicate, i1), select (c a b), small (i32 & imm -> index),
    toi32 (index -> i32), ext (i32 -> i64), trunc (i64 -> i32), q (query: imm (name, dim)),
    copy (a)."""

    dst: str
    ty: str
    op: str
    args: list[str] = field(default_factory=list)
    imm: object = None
    cty: str = "i32"  # cmp: the operand type


@dataclass
class LStore:
    row: int
    val: str  # i32, stored at [row, lid]


@dataclass
class LLoad:
    dst: str
    row: int
    kind: str  # own | next | rev | fix | dyn
    p: object = 0  # next: offset; fix: slot; dyn: the name of an index value


@dataclass
class OStore:
    slot: int
    val: str


@dataclass
class Barrier:
    scope: str = "wg"  # wg | sg (a sub-group barrier: a fence at sub-group size 1)


@dataclass
class If:
    cond: str
    then: list
    else_: list
    then_y: list[str]
    else_y: list[str]
    dsts: list[str]
    tys: list[str]


@dataclass
class For:
    dsts: list[str]
    tys: list[str]
    lb: str
    ub: str
    step: str
    iv: str
    iters: list[str]
    inits: list[str]
    body: list
    yields: list[str]


@dataclass
class While:
    """``scf.while``; the condition is ``cond`` over the before block; the before block
    forwards its arguments (``bargs``) unchanged to the after block (``aargs``)."""

    dsts: list[str]
    tys: list[str]
    inits: list[str]
    bargs: list[str]
    before: list
    cond: str
    aargs: list[str]
    after: list
    yields: list[str]


@dataclass
class Coll:
    """A collective: ``scope`` wg | sg, ``op`` reduce | scan_inclusive | scan_exclusive |
    broadcast | any | all."""

    dst: str
    ty: str
    scope: str
    op: str
    kind: str | None
    val: str
    ids: list[str] = field(default_factory=list)  # wg broadcast: x y z (index)


@dataclass
class Kernel:
    name: str
    body: list
    reqd: tuple[int, int, int] | None = None
    order: tuple[int, int, int] | None = None
    seed: int = 0
    # index arguments %k0, %k1 (small trip counts), i32 arguments %p0, %p1
    arg_types = (("a", "memref<?xi32>"), ("out", "memref<?xi32>"), ("p0", "i32"),
                 ("p1", "i32"), ("k0", "index"), ("k1", "index"))

    def uses_sub_groups(self) -> bool:
        return any(isinstance(s, Coll) and s.scope == "sg" for s in walk(self.body))

    def mlir(self, name: str | None = None, cfg_body: bool = False) -> str:
        return emit_kernel(self, name or self.name, cfg_body)

    def size(self) -> int:
        return sum(1 for _ in walk(self.body))


def children(s) -> list[list]:
    if isinstance(s, If):
        return [s.then, s.else_]
    if isinstance(s, For):
        return [s.body]
    if isinstance(s, While):
        return [s.before, s.after]
    return []


def walk(body):
    for s in body:
        yield s
        for b in children(s):
            yield from walk(b)


def has_sync(body) -> bool:
    """A work-group barrier or collective: what region dispatch schedules (a kernel without
    one has no dispatch twin; see ``harness.compile_module``)."""
    return any(isinstance(s, (Barrier, Coll)) and s.scope == "wg" for s in walk(body))


# ---------------------------------------------------------------------------------------
# MLIR text
# ---------------------------------------------------------------------------------------

BARRIER_TEXT = {
    "wg": "mux.work_group_barrier work_group, <acq_rel, work_group_memory>",
    "sg": "mux.sub_group_barrier sub_group, <acq_rel, sub_group_memory>",
}


def _tile(k: str) -> str:
    return f"memref<{ROWS}x{CAP}xi32, 3>"


def emit_kernel(k: Kernel, name: str, cfg_body: bool = False) -> str:
    attrs = ['mux.kernel = "entry_point"']
    if k.reqd:
        attrs.append(f"mux.reqd_work_group_size = array<i64: {k.reqd[0]}, {k.reqd[1]}, "
                     f"{k.reqd[2]}>")
    if k.order:
        attrs.append(f"mux.work_item_order = array<i64: {k.order[0]}, {k.order[1]}, "
                     f"{k.order[2]}>")
    args = ", ".join(f"%{n}: {t}" for n, t in k.arg_types)
    tt = _tile(name)
    lines = [
        f'"memref.global"() <{{sym_name = "tile_{name}", type = {tt}, '
        'sym_visibility = "private", initial_value}> : () -> ()',
        f"func.func @{name}({args}) attributes {{{', '.join(attrs)}}} {{",
    ]
    if cfg_body:  # a multi-block body: the same kernel, scheduled by region dispatch
        lines += ["  cf.br ^entry", "^entry:"]
    lines += [
        "  %gid = mux.get_global_linear_id : index",
        "  %lid = mux.get_local_linear_id : index",
        "  %ls0 = mux.get_local_size 0 : index",
        "  %ls1 = mux.get_local_size 1 : index",
        "  %ls2 = mux.get_local_size 2 : index",
        "  %n01 = arith.muli %ls0, %ls1 : index",
        "  %n = arith.muli %n01, %ls2 : index",
        f"  %t = memref.get_global @tile_{name} : {tt}",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        f"  %cS = arith.constant {SLOTS} : index",
        "  %obase = arith.muli %gid, %cS : index",
        "  %v = memref.load %a[%gid] : memref<?xi32>",
        "  %lidi = arith.index_cast %lid : index to i32",
    ]
    lines += [f"  %row{r} = arith.constant {r} : index" for r in range(ROWS)]
    for sl in range(SLOTS):
        lines += [f"  %os{sl} = arith.constant {sl} : index",
                  f"  %oi{sl} = arith.addi %obase, %os{sl} : index"]
    _emit_body(k.body, lines, "  ", tt)
    lines += ["  func.return", "}"]
    return "\n".join(lines) + "\n"


def _emit_body(body, out: list[str], ind: str, tt: str) -> None:
    for s in body:
        _emit(s, out, ind, tt)


def _types(tys):
    return ", ".join(tys)


def _emit(s, out: list[str], ind: str, tt: str) -> None:  # noqa: C901 - one case per class
    w = out.append
    if isinstance(s, Op):
        d, ty, a = s.dst, s.ty, s.args
        if s.op == "const":
            if ty == "i1":
                w(f"{ind}{d} = arith.constant {'true' if s.imm else 'false'}")
            else:
                w(f"{ind}{d} = arith.constant {s.imm} : {ty}")
        elif s.op in MLIR_BIN and s.op not in ("shl", "shrs"):
            w(f"{ind}{d} = {MLIR_BIN[s.op]} {a[0]}, {a[1]} : {ty}")
        elif s.op in ("shl", "shrs", "remu"):
            w(f"{ind}{d}_c = arith.constant {s.imm} : {ty}")
            mn = {"shl": "arith.shli", "shrs": "arith.shrsi", "remu": "arith.remui"}[s.op]
            w(f"{ind}{d} = {mn} {a[0]}, {d}_c : {ty}")
        elif s.op == "cmp":
            w(f"{ind}{d} = arith.cmpi {s.imm}, {a[0]}, {a[1]} : {s.cty}")
        elif s.op == "select":
            w(f"{ind}{d} = arith.select {a[0]}, {a[1]}, {a[2]} : {ty}")
        elif s.op == "small":
            w(f"{ind}{d}_c = arith.constant {s.imm} : i32")
            w(f"{ind}{d}_m = arith.andi {a[0]}, {d}_c : i32")
            w(f"{ind}{d} = arith.index_cast {d}_m : i32 to index")
        elif s.op == "toi32":
            w(f"{ind}{d} = arith.index_cast {a[0]} : index to i32")
        elif s.op == "ext":
            w(f"{ind}{d} = arith.extsi {a[0]} : i32 to i64")
        elif s.op == "trunc":
            w(f"{ind}{d} = arith.trunci {a[0]} : i64 to i32")
        elif s.op == "q":
            q, dim = s.imm
            w(f"{ind}{d} = mux.{q} {dim} : index")
        elif s.op == "copy":
            z = {"i1": "false", "i32": "0 : i32", "i64": "0 : i64", "index": "0 : index"}[ty]
            w(f"{ind}{d}_z = arith.constant {z}")
            w(f"{ind}{d} = arith.ori {a[0]}, {d}_z : {ty}")
        else:
            raise AssertionError(s.op)
    elif isinstance(s, LStore):
        w(f"{ind}memref.store {s.val}, %t[%row{s.row}, %lid] : {tt}")
    elif isinstance(s, LLoad):
        d = s.dst
        if s.kind == "own":
            ix = "%lid"
        elif s.kind == "next":
            w(f"{ind}{d}_o = arith.constant {s.p} : index")
            w(f"{ind}{d}_s = arith.addi %lid, {d}_o : index")
            w(f"{ind}{d}_i = arith.remui {d}_s, %n : index")
            ix = f"{d}_i"
        elif s.kind == "rev":
            w(f"{ind}{d}_m = arith.subi %n, %c1 : index")
            w(f"{ind}{d}_i = arith.subi {d}_m, %lid : index")
            ix = f"{d}_i"
        elif s.kind == "fix":
            w(f"{ind}{d}_o = arith.constant {s.p} : index")
            w(f"{ind}{d}_i = arith.remui {d}_o, %n : index")
            ix = f"{d}_i"
        elif s.kind == "dyn":
            w(f"{ind}{d}_i = arith.remui {s.p}, %n : index")
            ix = f"{d}_i"
        else:
            raise AssertionError(s.kind)
        w(f"{ind}{d} = memref.load %t[%row{s.row}, {ix}] : {tt}")
    elif isinstance(s, OStore):
        w(f"{ind}memref.store {s.val}, %out[%oi{s.slot}] : memref<?xi32>")
    elif isinstance(s, Barrier):
        w(ind + BARRIER_TEXT[s.scope])
    elif isinstance(s, If):
        res = f"{', '.join(s.dsts)} = " if s.dsts else ""
        rt = f" -> ({_types(s.tys)})" if s.dsts else ""
        w(f"{ind}{res}scf.if {s.cond}{rt} {{")
        _emit_body(s.then, out, ind + "  ", tt)
        if s.dsts:
            w(f"{ind}  scf.yield {', '.join(s.then_y)} : {_types(s.tys)}")
        if s.else_ or s.dsts:
            w(f"{ind}}} else {{")
            _emit_body(s.else_, out, ind + "  ", tt)
            if s.dsts:
                w(f"{ind}  scf.yield {', '.join(s.else_y)} : {_types(s.tys)}")
        w(f"{ind}}}")
    elif isinstance(s, For):
        res = f"{', '.join(s.dsts)} = " if s.dsts else ""
        it = ""
        if s.dsts:
            pairs = ", ".join(f"{i} = {v}" for i, v in zip(s.iters, s.inits, strict=True))
            it = f" iter_args({pairs}) -> ({_types(s.tys)})"
        w(f"{ind}{res}scf.for {s.iv} = {s.lb} to {s.ub} step {s.step}{it} {{")
        _emit_body(s.body, out, ind + "  ", tt)
        if s.dsts:
            w(f"{ind}  scf.yield {', '.join(s.yields)} : {_types(s.tys)}")
        w(f"{ind}}}")
    elif isinstance(s, While):
        tys = _types(s.tys)
        pairs = ", ".join(f"{b} = {v}" for b, v in zip(s.bargs, s.inits, strict=True))
        w(f"{ind}{', '.join(s.dsts)} = scf.while ({pairs}) : ({tys}) -> ({tys}) {{")
        _emit_body(s.before, out, ind + "  ", tt)
        w(f"{ind}  scf.condition({s.cond}) {', '.join(s.bargs)} : {tys}")
        w(f"{ind}}} do {{")
        aa = ", ".join(f"{a}: {t}" for a, t in zip(s.aargs, s.tys, strict=True))
        w(f"{ind}^bb0({aa}):")
        _emit_body(s.after, out, ind + "  ", tt)
        w(f"{ind}  scf.yield {', '.join(s.yields)} : {tys}")
        w(f"{ind}}}")
    elif isinstance(s, Coll):
        pre = f"mux.{'work_group' if s.scope == 'wg' else 'sub_group'}_{s.op}"
        if s.op in ("reduce", "scan_inclusive", "scan_exclusive"):
            w(f"{ind}{s.dst} = {pre} {s.kind} {s.val} : {s.ty}")
        elif s.op in ("any", "all"):
            w(f"{ind}{s.dst} = {pre} {s.val} : i1")
        elif s.op == "broadcast" and s.scope == "wg":
            w(f"{ind}{s.dst} = {pre} {s.val}, {', '.join(s.ids)} : {s.ty}")
        elif s.op == "broadcast":
            w(f"{ind}{s.dst}_l = arith.constant 0 : i32")
            w(f"{ind}{s.dst} = {pre} {s.val}, {s.dst}_l : {s.ty}")
        else:
            raise AssertionError(s.op)
    else:
        raise AssertionError(type(s))


def cmp(dst: str, pred: str, a: str, b: str, ty: str) -> Op:
    return Op(dst, "i1", "cmp", [a, b], pred, ty)


# ---------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------


@dataclass
class Val:
    name: str
    ty: str
    uni: str  # "u" provably uniform, "d" uniform by data (a load), "v" varying


@dataclass
class _State:
    """Static local-memory discipline on the current path: per row, ``init`` (0 none, 1
    written by all since the last barrier, 2 readable) and the accesses ``modes`` ('W' own
    write, 'R' read of any slot) since the last barrier."""

    init: list[int]
    modes: list[set]

    def copy(self) -> _State:
        return _State(list(self.init), [set(m) for m in self.modes])

    def barrier(self) -> None:
        self.init = [2 if i else 0 for i in self.init]
        self.modes = [set() for _ in self.modes]

    def join(self, other: _State) -> _State:
        return _State(
            [min(a, b) for a, b in zip(self.init, other.init, strict=True)],
            [a | b for a, b in zip(self.modes, other.modes, strict=True)],
        )


class Gen:
    def __init__(self, seed: int, name: str, feature_bias: dict | None = None):
        self.r = random.Random(seed)
        self.seed = seed
        self.name = name
        self.n = 0
        self.budget = self.r.randint(12, 40)
        self.max_depth = self.r.choice([2, 3, 3, 4])
        self.bias = feature_bias or {}

    def fresh(self, p: str = "x") -> str:
        self.n += 1
        return f"%{p}_{self.n}"

    # values ------------------------------------------------------------------------------
    def pick(self, scope: list[Val], ty: str, uni: str | None = None) -> Val | None:
        c = [v for v in scope if v.ty == ty and (uni is None or v.uni in uni)]
        if not c:
            return None
        # prefer recent values: more data flow through the program
        if self.r.random() < 0.6:
            c = c[-6:]
        return self.r.choice(c)

    def const(self, body, scope, ty: str, value: int | None = None) -> Val:
        d = self.fresh("k")
        if value is None:
            value = self.r.choice([0, 1, 2, 3, 5, 7, -1, -3, 100, 12345, -7777])
        body.append(Op(d, ty, "const", imm=value))
        v = Val(d, ty, "u")
        scope.append(v)
        return v

    def i32(self, body, scope, uni: str | None = None) -> Val:
        v = self.pick(scope, "i32", uni)
        if v is None or self.r.random() < 0.1:
            return self.const(body, scope, "i32")
        return v

    def uniform_index(self, body, scope, lo: int = 0, hi: int = 3) -> Val:
        """A small uniform trip count / bound."""
        r = self.r.random()
        if r < 0.35:
            return Val(self.r.choice(["%k0", "%k1"]), "index", "u")
        if r < 0.6:
            return self.const(body, scope, "index", self.r.randint(lo, hi))
        if r < 0.8:
            u = self.pick(scope, "i32", "u")
            if u is not None:
                d = self.fresh("b")
                body.append(Op(d, "index", "small", [u.name], 3))
                return Val(d, "index", "u")
        if r < 0.9:  # a query: local size or group id, both small here
            d0 = self.fresh("q")
            body.append(Op(d0, "index", "q", [], (self.r.choice(["get_group_id", "get_num_groups"]),
                                                   self.r.randint(0, 2))))
            d = self.fresh("b")
            body.append(Op(d, "index", "remu", [d0], 3))
            return Val(d, "index", "u")
        d = self.uniform_data_index(body, scope)
        return d if d is not None else self.const(body, scope, "index", 2)

    def uniform_data_index(self, body, scope) -> Val | None:
        u = self.pick(scope, "i32", "d")
        if u is None:
            return None
        d = self.fresh("b")
        body.append(Op(d, "index", "small", [u.name], 3))
        return Val(d, "index", "d")

    # statements --------------------------------------------------------------------------
    def gen_kernel(self) -> Kernel:
        scope = [
            Val("%v", "i32", "v"), Val("%lidi", "i32", "v"), Val("%p0", "i32", "u"),
            Val("%p1", "i32", "u"),
        ]
        st = _State([0] * ROWS, [set() for _ in range(ROWS)])
        body: list = []
        if self.seed % 10 == 9:  # one kernel in ten starts with the nested-loop template
            self.nested_template(body, scope, st)
        while self.budget > 0:
            scope = self.block(body, scope, st, uniform=True, depth=0)
        # observe: fold the live i32 values into the output
        vals = [v for v in scope if v.ty == "i32"][-5:]
        acc = vals[0].name
        for v in vals[1:]:
            d = self.fresh("f")
            body.append(Op(d, "i32", self.r.choice(["add", "xor", "sub"]), [acc, v.name]))
            acc = d
        body.append(OStore(0, acc))
        k = Kernel(self.name, body, seed=self.seed)
        r = self.r.random()
        if r < 0.15:
            k.reqd = self.r.choice([(4, 1, 1), (3, 1, 1), (8, 1, 1), (2, 3, 1), (4, 2, 2),
                                    (1, 1, 1), (5, 2, 1), (16, 1, 1)])
        if self.r.random() < 0.15:
            k.order = tuple(self.r.sample([0, 1, 2], 3))
        return k

    def nested_template(self, body, scope, st: _State):
        """Two nested ``scf.for`` with trip counts from kernel arguments and a loop-carried
        accumulator; the inner body has two barriers, each under an ``scf.if`` on a kernel
        argument (random code around them); a third conditional barrier after the loops."""
        r = self.r

        def arg_if(blk, bscope, bst, depth):
            c = self.fresh("c")
            blk.append(cmp(c, r.choice(PREDS), r.choice(["%p0", "%p1"]),
                           self.const(blk, bscope, "i32", r.choice([0, 1, -1, 3])).name, "i32"))
            s1 = bst.copy()
            then = [Barrier("wg")]
            s1.barrier()
            sc = self.block(then, bscope, s1, True, depth + 1, n=r.randint(0, 2))
            res = [self.fresh("r")]
            ty = self._yield(then, sc, "i32")
            s2 = bst.copy()
            sc2 = self.block(els := [], bscope, s2, True, depth + 1, n=r.randint(0, 1))
            ey = self._yield(els, sc2, "i32")
            blk.append(If(c, then, els, [ty], [ey], res, ["i32"]))
            j = s1.join(s2)
            bst.init, bst.modes = j.init, j.modes
            bscope.append(Val(res[0], "i32", "v"))
            return res[0]

        entry = st.copy()
        oiv, oacc, iiv, iacc = (self.fresh("i"), self.fresh("a"), self.fresh("i"),
                                self.fresh("a"))
        oscope = list(scope) + [Val(oiv, "index", "u"), Val(oacc, "i32", "v")]
        ost = st.copy()
        obody: list = []
        iscope = list(oscope) + [Val(iiv, "index", "u"), Val(iacc, "i32", "v")]
        ist = ost.copy()
        ibody: list = []
        self.block(ibody, iscope, ist, True, 2, n=r.randint(0, 2))
        arg_if(ibody, iscope, ist, 2)
        self.block(ibody, iscope, ist, True, 2, n=r.randint(0, 2))
        y2 = arg_if(ibody, iscope, ist, 2)
        nxt = self.fresh()
        ibody.append(Op(nxt, "i32", r.choice(["add", "xor"]), [iacc, y2]))
        self._back_edge(ibody, ost, ist, True)
        ires = self.fresh("r")
        obody.append(For([ires], ["i32"], "%c0", "%k1", "%c1", iiv, [iacc], [oacc], ibody,
                         [nxt if r.random() < 0.5 else y2]))
        j = ost.join(ist)
        ost.init, ost.modes = j.init, j.modes
        self._back_edge(obody, entry, ost, True)
        ores = self.fresh("r")
        body.append(For([ores], ["i32"], "%c0", "%k0", "%c1", oiv, [oacc], ["%v"], obody,
                        [ires]))
        j = entry.join(ost)
        st.init, st.modes = j.init, j.modes
        scope.append(Val(ores, "i32", "v"))
        arg_if(body, scope, st, 0)

    def block(self, body, scope, st: _State, uniform: bool, depth: int, n: int | None = None):
        scope = list(scope)  # values defined here die at the end of the block
        n = n if n is not None else self.r.randint(2, 6)
        for _ in range(n):
            if self.budget <= 0:
                break
            self.budget -= 1
            self.stmt(body, scope, st, uniform, depth)
        return scope

    def stmt(self, body, scope, st: _State, uniform: bool, depth: int):  # noqa: C901
        r = self.r
        choices = [("op", 5), ("lstore", 3), ("lload", 4), ("ostore", 1)]
        if uniform:
            choices += [("barrier", 4), ("wgcoll", 1.5), ("sgcoll", 1)]
        if depth < self.max_depth:
            choices += [("if", 2), ("for", 2), ("while", 1.2)]
        kinds, weights = zip(*choices, strict=True)
        k = r.choices(kinds, weights)[0]
        if k == "op":
            self.op(body, scope)
        elif k == "lstore":
            row = r.randrange(ROWS)
            if "R" in st.modes[row]:
                if not uniform:
                    return
                self.barrier(body, st)
            body.append(LStore(row, self.i32(body, scope).name))
            st.modes[row].add("W")
            if uniform and st.init[row] == 0:
                st.init[row] = 1
        elif k == "lload":
            self.lload(body, scope, st, uniform)
        elif k == "ostore":
            body.append(OStore(r.randrange(SLOTS), self.i32(body, scope).name))
        elif k == "barrier":
            self.barrier(body, st, "sg" if r.random() < 0.08 else "wg")
        elif k == "wgcoll":
            self.coll(body, scope, "wg")
        elif k == "sgcoll":
            self.coll(body, scope, "sg")
        elif k == "if":
            self.if_(body, scope, st, uniform, depth)
        elif k == "for":
            self.for_(body, scope, st, uniform, depth)
        elif k == "while":
            self.while_(body, scope, st, uniform, depth)

    def barrier(self, body, st: _State, scope: str = "wg"):
        body.append(Barrier(scope))
        if scope == "wg":
            st.barrier()

    def op(self, body, scope):
        r = self.r
        x = r.random()
        d = self.fresh()
        if x < 0.55:
            a, b = self.i32(body, scope), self.i32(body, scope)
            o = r.choice(BIN)
            body.append(Op(d, "i32", o, [a.name, b.name]))
            scope.append(Val(d, "i32", _uni(a, b)))
        elif x < 0.65:
            a = self.i32(body, scope)
            o = r.choice(["shl", "shrs", "remu"])
            imm = r.randint(1, 7) if o != "remu" else r.choice([3, 7, 1000])
            body.append(Op(d, "i32", o, [a.name], imm))
            scope.append(Val(d, "i32", a.uni))
        elif x < 0.8:
            a, b = self.i32(body, scope), self.i32(body, scope)
            c = self.fresh("c")
            body.append(cmp(c, r.choice(PREDS), a.name, b.name, "i32"))
            cv = Val(c, "i1", _uni(a, b))
            scope.append(cv)
            e, f = self.i32(body, scope), self.i32(body, scope)
            body.append(Op(d, "i32", "select", [c, e.name, f.name]))
            scope.append(Val(d, "i32", _uni(cv, e, f)))
        elif x < 0.88:  # through i64
            a, b = self.i32(body, scope), self.i32(body, scope)
            e1, e2, m = self.fresh(), self.fresh(), self.fresh()
            body.append(Op(e1, "i64", "ext", [a.name]))
            body.append(Op(e2, "i64", "ext", [b.name]))
            body.append(Op(m, "i64", r.choice(["mul", "add", "sub"]), [e1, e2]))
            body.append(Op(d, "i32", "trunc", [m]))
            scope.append(Val(d, "i32", _uni(a, b)))
        else:  # a query
            if r.random() < 0.5:
                q, u = r.choice(QUERIES_U), "u"
            else:
                q, u = r.choice(QUERIES_V), "v"
            qd = self.fresh("q")
            body.append(Op(qd, "index", "q", [], (q, r.randint(0, 2))))
            body.append(Op(d, "i32", "toi32", [qd]))
            scope.append(Val(d, "i32", u))

    def lload(self, body, scope, st: _State, uniform: bool):
        r = self.r
        ready = [i for i in range(ROWS) if st.init[i] == 2]
        own = [i for i in range(ROWS) if st.init[i] >= 1]
        if ready and r.random() < 0.75:
            row = r.choice(ready)
            kind = r.choice(["next", "rev", "fix", "fix", "dyn", "own"])
            if kind != "own" and "W" in st.modes[row]:
                if not uniform:
                    return
                self.barrier(body, st)
        elif own:
            row, kind = r.choice(own), "own"
        else:
            return
        p = 0
        if kind == "next":
            p = r.randint(1, 5)
        elif kind == "fix":
            p = r.choice([0, 0, 1, 2, 5])
        elif kind == "dyn":
            a = self.i32(body, scope)
            ix = self.fresh("b")
            body.append(Op(ix, "index", "small", [a.name], 127))
            p = ix
        d = self.fresh("l")
        body.append(LLoad(d, row, kind, p))
        if kind != "own":
            st.modes[row].add("R")
        uni = "d" if kind == "fix" else "v"
        scope.append(Val(d, "i32", uni))

    def coll(self, body, scope, where: str):
        r = self.r
        d = self.fresh("g")
        op = r.choice(["reduce", "scan_inclusive", "scan_exclusive", "broadcast", "any",
                       "all"])
        if op in ("any", "all"):
            a, b = self.i32(body, scope), self.i32(body, scope)
            c = self.fresh("c")
            body.append(cmp(c, r.choice(PREDS), a.name, b.name, "i32"))
            body.append(Coll(d, "i1", where, op, None, c))
            scope.append(Val(d, "i1", "u" if where == "wg" else "v"))
            return
        a = self.i32(body, scope)
        ids = []
        if op == "broadcast" and where == "wg":
            for dim in range(3):
                if dim == 0 and r.random() < 0.5:
                    q = self.fresh("q")
                    body.append(Op(q, "index", "q", [], ("get_local_size", 0)))
                    i = self.fresh("b")
                    body.append(Op(i, "index", "sub", [q, "%c1"]))
                    ids.append(i)
                else:
                    ids.append("%c0")
        kind = r.choice(INT_KINDS) if op != "broadcast" else None
        body.append(Coll(d, "i32", where, op, kind, a.name, ids))
        uni = "u" if where == "wg" and op in ("reduce", "broadcast") else "v"
        scope.append(Val(d, "i32", uni))

    def _results(self, scope, n):
        return [self.fresh("r") for _ in range(n)]

    def if_(self, body, scope, st: _State, uniform: bool, depth: int):
        r = self.r
        # the condition
        sync_ok = uniform and r.random() < 0.7
        if sync_ok:
            cands = [v for v in scope if v.ty == "i1" and v.uni in "ud"]
            if cands and r.random() < 0.5:
                c = r.choice(cands)
            else:
                a = self.i32(body, scope, "ud")
                b = self.i32(body, scope, "u")
                c = Val(self.fresh("c"), "i1", _uni(a, b))
                body.append(cmp(c.name, r.choice(PREDS), a.name, b.name, "i32"))
        else:
            a = self.i32(body, scope, "v") if r.random() < 0.8 else self.i32(body, scope)
            b = self.i32(body, scope)
            c = Val(self.fresh("c"), "i1", _uni(a, b))
            body.append(cmp(c.name, r.choice(PREDS), a.name, b.name, "i32"))
        inner_uniform = uniform and c.uni in "ud"
        nres = r.choice([0, 1, 1, 2])
        s1 = st.copy()
        sc1 = self.block(then := [], scope, s1, inner_uniform, depth + 1)
        s2 = st.copy()
        sc2 = self.block(else_ := [], scope, s2, inner_uniform, depth + 1,
                         n=r.choice([0, 1, 2, 3]))
        ty = [self._res_ty() for _ in range(nres)]
        ty_ = [t for t in ty]
        ty_y = [self._yield(then, sc1, t) for t in ty_]
        el_y = [self._yield(else_, sc2, t) for t in ty_]
        dsts = self._results(scope, nres)
        body.append(If(c.name, then, else_, ty_y, el_y, dsts, ty_))
        merged = s1.join(s2)
        st.init, st.modes = merged.init, merged.modes
        uni = "u" if c.uni == "u" else ("d" if c.uni == "d" else "v")
        for d, t, a, b in zip(dsts, ty_, ty_y, el_y, strict=True):
            ua = _lookup(sc1, a)
            ub = _lookup(sc2, b)
            scope.append(Val(d, t, _uni(Val("", t, uni), ua, ub)))

    def _res_ty(self):
        return self.r.choice(["i32", "i32", "i32", "index", "i64"])

    def _yield(self, body, scope, ty: str) -> str:
        """A value of ``ty`` for a yield; often the result of the block's last construct
        (the `scf.yield` of a lifted op's result, no op in between)."""
        last = body[-1] if body else None
        if isinstance(last, (If, For, While)) and self.r.random() < 0.8:
            for d, t in zip(last.dsts, last.tys, strict=True):
                if t == ty:
                    return d
        v = self.pick(scope, ty)
        if v is not None:
            return v.name
        return self.const(body, scope, ty, self.r.randint(0, 3)).name

    def for_(self, body, scope, st: _State, uniform: bool, depth: int):
        r = self.r
        sync = uniform and r.random() < 0.75
        if sync:
            lb = self.const(body, scope, "index", r.choice([0, 0, 1])) if r.random() < 0.7 \
                else Val("%c0", "index", "u")
            ub = self.uniform_index(body, scope, 0, 3)
            if lb.name != "%c0" and r.random() < 0.5:
                d = self.fresh("b")
                body.append(Op(d, "index", "add", [ub.name, lb.name]))
                ub = Val(d, "index", ub.uni)
            step = Val("%c1", "index", "u") if r.random() < 0.8 else \
                self.const(body, scope, "index", 2)
            uni = "u" if ub.uni == "u" else "d"
        else:
            lb = Val("%c0", "index", "u")
            a = self.i32(body, scope)
            d = self.fresh("b")
            body.append(Op(d, "index", "small", [a.name], 3))
            ub = Val(d, "index", a.uni)
            step = Val("%c1", "index", "u")
            uni = a.uni
        inner_uniform = uniform and uni in "ud"
        nres = r.choice([0, 1, 1, 2, 2])
        tys = [self._res_ty() for _ in range(nres)]
        inits = [self._init(body, scope, t) for t in tys]
        iv = self.fresh("i")
        iters = [self.fresh("a") for _ in tys]
        # an iteration value stays uniform when its init and every next value are
        iunis = []
        for i in inits:
            u = _uni(_lookup(scope, i), Val("", "", uni))
            iunis.append(u if u in "ud" and r.random() < 0.4 else "v")
        inner = list(scope) + [Val(iv, "index", uni)]
        inner += [Val(n, t, u) for n, t, u in zip(iters, tys, iunis, strict=True)]
        loop_body: list = []
        entry = st.copy()
        s = st.copy()
        sc = self.block(loop_body, inner, s, inner_uniform, depth + 1)
        yields = [self._yield_iter(loop_body, sc, t, it, "uvd" if u == "v" else u)
                  for t, it, u in zip(tys, iters, iunis, strict=True)]
        self._back_edge(loop_body, entry, s, inner_uniform)
        dsts = self._results(scope, nres)
        body.append(For(dsts, tys, lb.name, ub.name, step.name, iv, iters, inits, loop_body,
                        yields))
        after = entry.join(s)
        st.init, st.modes = after.init, after.modes
        for d, t, u in zip(dsts, tys, iunis, strict=True):
            scope.append(Val(d, t, u))

    def _init(self, body, scope, ty: str) -> str:
        v = self.pick(scope, ty)
        if v is not None and self.r.random() < 0.7:
            return v.name
        return self.const(body, scope, ty, self.r.randint(0, 9)).name

    def _yield_iter(self, body, scope, ty, it, ok: str = "uvd") -> str:
        """A next value for an iteration argument (of uniformity ``ok`` at least): the
        result of the body's last construct when it fits, else it combined with something."""
        last = body[-1] if body else None
        if isinstance(last, (If, For, While)) and self.r.random() < 0.8:
            for d, t in zip(last.dsts, last.tys, strict=True):
                if t == ty and _lookup(scope, d).uni in ok:
                    return d
        if ty == "i32":
            b = self.pick(scope, "i32", ok) or self.const(body, scope, "i32")
            d = self.fresh()
            body.append(Op(d, "i32", self.r.choice(["add", "xor", "sub", "mul"]), [it, b.name]))
            return d
        if ty in ("i64", "index"):
            c = self.const(body, scope, ty, self.r.randint(1, 3))
            d = self.fresh()
            body.append(Op(d, ty, "add", [it, c.name]))
            return d
        return it

    def _back_edge(self, loop_body, entry: _State, end: _State, uniform: bool):
        """Accesses of the first barrier interval of a loop body meet those at its end (the
        back edge): a barrier at the top of the body when a write and a read of another slot
        of one row would meet, or when a row's first interval reads what is not ready on
        the first iteration."""
        first = _first_interval_modes(loop_body)
        bad = any(("W" in end.modes[i] and "R" in first[i]) or
                  ("R" in end.modes[i] and "W" in first[i]) for i in range(ROWS))
        if bad and uniform:
            loop_body.insert(0, Barrier("wg"))
            first = [set() for _ in range(ROWS)]

    def while_(self, body, scope, st: _State, uniform: bool, depth: int):
        r = self.r
        sync = uniform and r.random() < 0.75
        # the counter and its bound
        bound = self.uniform_index(body, scope, 0, 3) if sync else None
        if not sync:
            a = self.i32(body, scope)
            d = self.fresh("b")
            body.append(Op(d, "index", "small", [a.name], 3))
            bound = Val(d, "index", a.uni)
        uni = bound.uni if sync else ("v" if bound.uni == "v" else bound.uni)
        tys = ["index"] + [self._res_ty() for _ in range(r.choice([0, 1, 1, 2]))]
        inits = ["%c0"] + [self._init(body, scope, t) for t in tys[1:]]
        bargs = [self.fresh("w") for _ in tys]
        aargs = [self.fresh("w") for _ in tys]
        before: list = []
        bst = st.copy()
        bscope = list(scope) + [Val(bargs[0], "index", uni)] + [
            Val(n, t, "v") for n, t in zip(bargs[1:], tys[1:], strict=True)]
        go = self.fresh("c")
        before.append(cmp(go, "ult", bargs[0], bound.name, "index"))
        cond = go
        cuni = uni
        # a flag read from one slot of local memory: uniform for every work-item once the
        # barrier before has passed
        if sync and r.random() < 0.5:
            ready = [i for i in range(ROWS) if st.init[i] == 2 and "W" not in st.modes[i]]
            if ready:
                row = r.choice(ready)
                ld = self.fresh("l")
                before.append(LLoad(ld, row, "fix", r.choice([0, 0, 1])))
                bst.modes[row].add("R")
                f = self.fresh("c")
                k = self.const(before, bscope, "i32", r.choice([0, 1, 5, -3]))
                before.append(cmp(f, r.choice(PREDS), ld, k.name, "i32"))
                c2 = self.fresh("c")
                before.append(Op(c2, "i1", "and", [go, f]))
                cond = c2
                cuni = "d"
        inner_uniform = uniform and cuni in "ud" and sync
        after_st = bst.copy()
        ascope = list(scope) + [Val(aargs[0], "index", uni)] + [
            Val(n, t, "v") for n, t in zip(aargs[1:], tys[1:], strict=True)]
        after: list = []
        sc = self.block(after, ascope, after_st, inner_uniform, depth + 1)
        nxt = self.fresh("b")
        ys = [self._yield_iter(after, sc, t, a) for t, a in zip(tys[1:], aargs[1:],
                                                                   strict=True)]
        after.append(Op(nxt, "index", "add", [aargs[0], "%c1"]))
        yields = [nxt] + ys
        # the back edge: the next before block reads the flag row
        flag_rows = [s.row for s in before if isinstance(s, LLoad)]
        if any("W" in after_st.modes[i] for i in flag_rows) and inner_uniform:
            after.append(Barrier("wg"))
            after_st.barrier()
        self._back_edge(after, bst, after_st, inner_uniform)
        dsts = self._results(scope, len(tys))
        body.append(While(dsts, tys, inits, bargs, before, cond, aargs, after, yields))
        j = bst.join(after_st)
        for i in flag_rows:
            j.modes[i].add("R")
        st.init, st.modes = [min(a, b) for a, b in zip(st.init, j.init, strict=True)], j.modes
        for d, t in zip(dsts, tys, strict=True):
            scope.append(Val(d, t, "v" if not inner_uniform else "d"))


def _first_interval_modes(body) -> list[set]:
    modes = [set() for _ in range(ROWS)]
    for s in body:
        if isinstance(s, Barrier) and s.scope == "wg":
            break
        for x in walk([s]):
            if isinstance(x, LStore):
                modes[x.row].add("W")
            elif isinstance(x, LLoad) and x.kind != "own":
                modes[x.row].add("R")
    return modes


def _lookup(scope, name) -> Val:
    for v in reversed(scope):
        if v.name == name:
            return v
    return Val(name, "?", "v")


def _uni(*vals) -> str:
    us = [v.uni for v in vals]
    if "v" in us:
        return "v"
    if "d" in us:
        return "d"
    return "u"


def generate(seed: int, name: str | None = None) -> Kernel:
    return Gen(seed, name or f"k{seed}").gen_kernel()


def clone(k: Kernel) -> Kernel:
    import copy

    return copy.deepcopy(k)


__all__ = [
    "Barrier", "Coll", "For", "If", "Illegal", "Kernel", "LLoad", "LStore", "Op", "OStore",
    "While", "generate", "clone", "walk", "children", "dataclasses", "np",
]
