"""vectorize-local-reduction-trees: a halving tree over local memory runs in vector registers.

The classic work-group reduction stages values in work-group local memory and folds them in
rounds, a barrier after each (``for (s = n/2; s > 0; s >>= 1) { if (lid < s) buf[lid] +=
buf[lid + s]; barrier; }``). After work-item-loops every round is a work-item loop that
loads what the previous one just stored: the rounds form a chain through memory (store,
store-to-load forwarding, add, store ...) of about ten cycles a round, and the chain, not
the arithmetic, bounds the kernel (bench reduce_local on the bench VM, 2^18 floats in
cache, one thread: 31 ns of tree per 256-item group against 5 ns for everything else; the
whole kernel 2.3x gcc's block sums at 2^24, 0.94x with this pass).

The rounds' values are known once the loop's trip count and each round's ``s`` are: with a
required work-group size they usually are compile-time constants. This pass evaluates such a
loop statically and, when every round is a *parallel elementwise round* over one local
buffer, replaces the loop by one step that work-item 0 runs between two barriers: the
touched prefix of the buffer is loaded as one vector, every round becomes shuffles (its
active slots, the slots it reads) and the round's own arithmetic on vectors, and the final
vector is stored back. Every element is computed by the same operations on the same operands
in the same order as in the tree (no reassociation: floating-point results are bit for bit
the tree's), and the buffer ends in the state the tree leaves it in.

A loop matches when (everything checked, nothing assumed from names or shapes of the bench):

* it is an ``scf.for`` (static bounds, iteration values allowed) or an ``scf.while`` in an
  entry point with ``mux.reqd_work_group_size``; every round's values follow statically
  from constants, the required local sizes and the loop's own iteration values (at most
  64 active rounds in 256 iterations, at least one active);
* its body holds pure integer arithmetic, exactly one ``mux.work_group_barrier`` (not a
  sub-group barrier) and exactly one ``scf.if`` without else, in either order; the
  ``scf.if`` condition compares the work-item's id with a round value (``lid < B``,
  ``lid <= B``, ``B > lid`` ..., signed or unsigned); the id is ``mux.get_local_linear_id``,
  or ``mux.get_local_id 0`` when the required size is 1 in y and z (casts allowed); the
  active work-items of a round are then ``[0, c)``, ``c`` = B clamped to the group size;
* the ``scf.if`` body reads only ``buf[lid + o]`` (any number of loads, constant offsets
  per round), computes the value with elementwise ``arith`` ops of those loads and
  constants (arithmetic, min/max, bitwise; not comparisons or selects, which xDSL's
  ``arith`` has for scalars only), and ends with one ``memref.store`` to ``buf[lid + w]``;
  ``buf`` is one rank-1 memref of static size in memory space 3 (work-group local, so no
  other work-group sees it: a module global or a kernel argument) with an integer or float
  element type; a load reads either the slot the work-item writes or slots no work-item of
  the round writes (else the round races and is left alone); every access is in bounds;
* the touched prefix fits ``max-bytes`` (default 4096: 1024 f32).

Rounds written out one after the other match too (CUDA-style code unrolls a tree's last
rounds): two or more such ``scf.if`` steps in one block of such a kernel, each followed by a
barrier, only pure integer ops between, every round value a constant; the steps and all
their barriers but the last are replaced.

Anything else (a guard on another value, a store to global memory in a round, a dynamic
group size, a loop without a barrier, a bigger buffer; in the checking mode the bounds checks
insert-bounds-checks puts in the step) is left to work-item-loops. Runs after
lower-work-group-collectives and before work-item-loops; barriers are renumbered as
prepare-barriers numbers them.

Guarantees: the same results as the tree for race-free kernels (extra barriers around the
step are valid: every work-item reaches the loop, which runs a barrier; none is added where
one is already there with only pure integer ops between). The step is an
``scf.if`` on local linear id 0 marked ``mux.single_work_item`` (work-item-loops runs it
once per group).

Before (required size 8)::

    scf.for %j = %c0 to %c3 step %c1 {
      %s = arith.shrui %c4, %j : index
      %active = arith.cmpi ult, %lid, %s : index
      scf.if %active {
        %o = arith.addi %lid, %s : index
        %a = memref.load %buf[%lid] : memref<8xf32, 3>
        %b = memref.load %buf[%o] : memref<8xf32, 3>
        %t = arith.addf %a, %b : f32
        memref.store %t, %buf[%lid] : memref<8xf32, 3>
      }
      mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    }

After::

    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %l = mux.get_local_linear_id : index
    %first = arith.cmpi eq, %l, %c0 : index
    scf.if %first {
      %v = vector.load %buf[%c0] : memref<8xf32, 3>, vector<8xf32>
      %a = vector.shuffle %v, %v [0, 1, 2, 3] : vector<8xf32>, vector<8xf32>
      %b = vector.shuffle %v, %v [4, 5, 6, 7] : vector<8xf32>, vector<8xf32>
      %t = arith.addf %a, %b : vector<4xf32>
      %w = vector.shuffle %t, %t [0, 1, 2, 3, 0, 1, 2, 3] : vector<4xf32>, vector<4xf32>
      %v1 = vector.shuffle %w, %v [0, 1, 2, 3, 12, 13, 14, 15] : vector<8xf32>, vector<8xf32>
      ... (the rounds of 2 and 1 alike)
      vector.store %v3, %buf[%c0] : memref<8xf32, 3>, vector<8xf32>
    } {mux.single_work_item}
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs, mux
from xmux.transforms.lower_work_group_collectives import renumber_barriers

MAX_ROUNDS = 64  # active rounds of a tree
MAX_ITERATIONS = 256  # loop iterations evaluated (inactive rounds too) before giving up
LOCAL_SPACE = 3

#: elementwise ops a round may compute its value with (all defined on vectors alike)
ELEMENTWISE = frozenset({
    "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "arith.negf",
    "arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf",
    "arith.addi", "arith.subi", "arith.muli", "arith.andi", "arith.ori", "arith.xori",
    "arith.maxsi", "arith.maxui", "arith.minsi", "arith.minui",
})  # (not cmpf / cmpi / select: xDSL's arith comparisons are scalar only)


class NoMatch(Exception):
    """The loop is not a tree this pass can prove; it stays as it is."""


@dataclass(frozen=True)
class Lid:
    """The work-item's id plus a constant."""

    offset: int = 0


Value = int | Lid


def _width(t: Attribute) -> int:
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    raise NoMatch(f"not an integer type: {t}")


def _signed(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) else v


def _unsigned(v: int, w: int) -> int:
    return v & ((1 << w) - 1)


_CMP = {  # arith.cmpi predicate numbers
    0: lambda a, b, w: a == b, 1: lambda a, b, w: a != b,
    2: lambda a, b, w: _signed(a, w) < _signed(b, w),
    3: lambda a, b, w: _signed(a, w) <= _signed(b, w),
    4: lambda a, b, w: _signed(a, w) > _signed(b, w),
    5: lambda a, b, w: _signed(a, w) >= _signed(b, w),
    6: lambda a, b, w: _unsigned(a, w) < _unsigned(b, w),
    7: lambda a, b, w: _unsigned(a, w) <= _unsigned(b, w),
    8: lambda a, b, w: _unsigned(a, w) > _unsigned(b, w),
    9: lambda a, b, w: _unsigned(a, w) >= _unsigned(b, w),
}


def _trunc_div(a: int, b: int) -> int:
    """Signed division rounding towards zero (exact for any width, unlike ``int(a / b)``)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _binary(name: str, a: int, b: int, w: int) -> int:
    sa, sb, ua, ub = _signed(a, w), _signed(b, w), _unsigned(a, w), _unsigned(b, w)
    if name in ("arith.shli", "arith.shrui", "arith.shrsi") and not 0 <= ub < w:
        raise NoMatch("shift out of range")
    if name in ("arith.divui", "arith.divsi", "arith.remui", "arith.remsi") and b == 0:
        raise NoMatch("division by zero")
    ops = {
        "arith.addi": lambda: a + b, "arith.subi": lambda: a - b, "arith.muli": lambda: a * b,
        "arith.andi": lambda: ua & ub, "arith.ori": lambda: ua | ub, "arith.xori": lambda: ua ^ ub,
        "arith.shli": lambda: ua << ub, "arith.shrui": lambda: ua >> ub,
        "arith.shrsi": lambda: sa >> ub, "arith.divui": lambda: ua // ub,
        "arith.divsi": lambda: _trunc_div(sa, sb), "arith.remui": lambda: ua % ub,
        "arith.remsi": lambda: sa - _trunc_div(sa, sb) * sb,
        "arith.maxui": lambda: max(ua, ub), "arith.minui": lambda: min(ua, ub),
        "arith.maxsi": lambda: max(sa, sb), "arith.minsi": lambda: min(sa, sb),
    }
    if name not in ops:
        raise NoMatch(f"'{name}' is not evaluated")
    return _signed(ops[name](), w)


EVALUATED = frozenset({
    "arith.constant", "arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi",
    "arith.trunci", "arith.cmpi", "arith.select", "arith.addi", "arith.subi", "arith.muli",
    "arith.andi", "arith.ori", "arith.xori", "arith.shli", "arith.shrui", "arith.shrsi",
    "arith.divui", "arith.divsi", "arith.remui", "arith.remsi", "arith.maxui", "arith.minui",
    "arith.maxsi", "arith.minsi", "mux.get_local_size", "mux.get_enqueued_local_size",
    "mux.get_local_linear_id", "mux.get_local_id",
})


@dataclass
class Evaluator:
    """Static values of integer SSA values: constants, the required local sizes, bound
    block arguments, and the work-item id (as ``Lid``) through casts and ``+ constant``."""

    reqd: tuple[int, int, int]
    env: dict[SSAValue, int] = field(default_factory=dict)

    def lid(self, offset: int, t: Attribute, unsigned: bool = False) -> Lid:
        """``lid + offset`` as a value of type ``t``: every work-item's value must fit
        without wrapping (and be non-negative where an unsigned cast reads it)."""
        half = 1 << (_width(t) - 1)
        if offset < -half or offset + math.prod(self.reqd) > half or (unsigned and offset < 0):
            raise NoMatch("the work-item id may wrap")
        return Lid(offset)

    def __call__(self, v: SSAValue) -> Value:
        if v in self.env:
            return self.env[v]
        op = v.owner
        if not isinstance(op, Operation) or op.name not in EVALUATED:
            raise NoMatch(f"{v} has no static value")
        if isinstance(op, arith.ConstantOp):
            if not isinstance(op.value, IntegerAttr):
                raise NoMatch("not an integer constant")
            return _signed(op.value.value.data, _width(v.type))
        if isinstance(op, mux.GetLocalSizeOp | mux.GetEnqueuedLocalSizeOp):
            return self.reqd[op.dim.value.data]
        if isinstance(op, mux.GetLocalLinearIdOp):
            return self.lid(0, v.type)
        if isinstance(op, mux.GetLocalIdOp):
            if op.dim.value.data != 0 or self.reqd[1:] != (1, 1):
                raise NoMatch("a local id that is not the linear id")
            return self.lid(0, v.type)
        w = _width(v.type)
        args = [self(x) for x in op.operands]
        if op.name in ("arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi",
                       "arith.trunci"):
            (a,) = args
            if isinstance(a, Lid):
                return self.lid(a.offset, v.type, op.name in ("arith.extui",
                                                              "arith.index_castui"))
            src = _width(op.operands[0].type)
            signed = op.name in ("arith.index_cast", "arith.extsi")
            return _signed(_signed(a, src) if signed else _unsigned(a, src), w)
        if op.name == "arith.select":
            c, a, b = args
            if isinstance(c, Lid):
                raise NoMatch("a condition on the work-item id")
            return a if c else b
        a, b = args
        if op.name == "arith.cmpi":
            if isinstance(a, Lid) or isinstance(b, Lid):
                raise NoMatch("a comparison of the work-item id")
            assert isinstance(op, arith.CmpiOp)
            return int(_CMP[op.predicate.value.data](a, b, _width(op.lhs.type)))
        if isinstance(a, Lid) or isinstance(b, Lid):
            if op.name == "arith.addi" and isinstance(a, Lid) and isinstance(b, int):
                return self.lid(a.offset + b, v.type)
            if op.name == "arith.addi" and isinstance(b, Lid) and isinstance(a, int):
                return self.lid(b.offset + a, v.type)
            if op.name == "arith.subi" and isinstance(a, Lid) and isinstance(b, int):
                return self.lid(a.offset - b, v.type)
            raise NoMatch(f"'{op.name}' of the work-item id")
        return _binary(op.name, a, b, w)

    def int(self, v: SSAValue) -> int:
        r = self(v)
        if isinstance(r, Lid):
            raise NoMatch("a value that differs between work-items")
        return r


@dataclass
class Step:
    """A guarded step: ``if (lid < B) buf[lid + w] = f(buf[lid + o]...)``."""

    guard: scf.IfOp
    buf: SSAValue
    loads: list[memref.LoadOp]
    compute: list[Operation]
    store: memref.StoreOp


@dataclass
class Round:
    """One active round: slots ``[w, w + count)`` get f(buf[i + o] for o in offsets)."""

    count: int
    write: int
    reads: list[int]
    step: Step


def _loop_body(block: Block) -> tuple[Step, mux.WorkGroupBarrierOp]:
    """A loop body that is one round: pure round values, one guarded step, one barrier."""
    ops = list(block.ops)[:-1]
    ifs = [o for o in ops if isinstance(o, scf.IfOp)]
    bars = [o for o in ops if isinstance(o, mux.WorkGroupBarrierOp)]
    if len(ifs) != 1 or len(bars) != 1 or not _is_barrier(bars[0]):
        raise NoMatch("a round is one guarded step and one work-group barrier")
    if any(o not in (ifs[0], bars[0]) and o.name not in EVALUATED for o in ops):
        raise NoMatch("a round computes more than round values")
    return _step(ifs[0]), bars[0]


def _step(guard: scf.IfOp) -> Step:
    if guard.results:
        raise NoMatch("a guarded step with results")
    if guard.false_region.blocks and len(guard.false_region.block.ops) > 1:
        raise NoMatch("a guarded step with an else branch")
    inner = list(guard.true_region.block.ops)[:-1]
    if not inner or not isinstance(inner[-1], memref.StoreOp):
        raise NoMatch("the guarded step does not end with a store")
    store = inner[-1]
    buf = store.memref
    t = buf.type
    if (
        not isinstance(t, MemRefType)
        or len(t.shape) != 1
        or t.shape.data[0].data < 0
        or not isinstance(t.memory_space, IntegerAttr)
        or t.memory_space.value.data != LOCAL_SPACE
        or not isinstance(t.element_type, IntegerType | AnyFloat)
    ):
        raise NoMatch("not a static rank-1 local buffer of numbers")
    if not isinstance(buf.owner, memref.GetGlobalOp | Block):
        raise NoMatch("local memory that is not a module global or a kernel argument")
    loads: list[memref.LoadOp] = []
    compute: list[Operation] = []
    known: set[SSAValue] = set()  # loaded values and what is computed from them
    for o in inner[:-1]:
        if isinstance(o, memref.LoadOp):
            if o.memref is not buf:
                raise NoMatch("a load from another buffer")
            loads.append(o)
        elif o.name in ELEMENTWISE and any(x in known for x in o.operands):
            compute.append(o)
        elif o.name not in EVALUATED:  # index arithmetic, evaluated where it is used
            raise NoMatch(f"'{o.name}' in the guarded step")
        else:
            continue
        known.update(o.results)
    for o in [*compute, store]:
        data = o.operands[:1] if isinstance(o, memref.StoreOp) else o.operands
        for x in data:
            if x not in known and not isinstance(x.owner, arith.ConstantOp):
                raise NoMatch("the stored value depends on more than the loads and constants")
    return Step(guard, buf, loads, compute, store)


def _active(ev: Evaluator, cond: SSAValue, size: int) -> int:
    """How many work-items ``[0, c)`` the guard lets in."""
    op = cond.owner
    if not isinstance(op, arith.CmpiOp):
        raise NoMatch("the guard is not a comparison")
    a, b = ev(op.lhs), ev(op.rhs)
    pred = op.predicate.value.data
    if isinstance(b, Lid) and isinstance(a, int):
        a, b, pred = b, a, {2: 4, 3: 5, 4: 2, 5: 3, 6: 8, 7: 9, 8: 6, 9: 7}.get(pred, pred)
    if not isinstance(a, Lid) or a.offset != 0 or not isinstance(b, int):
        raise NoMatch("the guard is not `lid < bound`")
    w = _width(op.lhs.type)
    if pred in (2, 3):
        bound = _signed(b, w) + (pred == 3)
    elif pred in (6, 7):
        bound = _unsigned(b, w) + (pred == 7)
    else:
        raise NoMatch("the guard is not `lid < bound`")
    return max(0, min(bound, size))


def _round(ev: Evaluator, step: Step, size: int) -> Round | None:
    count = _active(ev, step.guard.cond, size)
    if count == 0:
        return None
    t = step.buf.type
    assert isinstance(t, MemRefType)
    length = t.shape.data[0].data
    (w_idx,) = step.store.indices
    write = ev(w_idx)
    reads = []
    for ld in step.loads:
        (idx,) = ld.indices
        reads.append(ev(idx))
    if not isinstance(write, Lid) or not all(isinstance(r, Lid) for r in reads):
        raise NoMatch("an access that is not `buf[lid + constant]`")
    w = write.offset
    offs = [r.offset for r in reads]  # type: ignore[union-attr]
    for o in offs:
        if o != w and not (o + count <= w or o >= w + count):
            raise NoMatch("a round reads slots another work-item of it writes")
    if min([w, *offs]) < 0 or max([w, *offs]) + count > length:
        raise NoMatch("an access out of the buffer's bounds")
    return Round(count, w, offs, step)


def _bind(ev: Evaluator, block: Block, values: list[int]) -> None:
    for arg, v in zip(block.args, values, strict=True):
        ev.env[arg] = v


def _loop_rounds(loop: Operation, ev: Evaluator, size: int
                 ) -> tuple[mux.WorkGroupBarrierOp, list[Round], list[int]]:
    """The loop's barrier, its active rounds and its results' final values."""
    body_block = loop.body.block if isinstance(loop, scf.ForOp) else loop.after_region.block
    step, barrier = _loop_body(body_block)
    rounds: list[Round] = []
    iterations = [0]

    def one_round(args: list[int]) -> list[int]:
        iterations[0] += 1
        if len(rounds) >= MAX_ROUNDS or iterations[0] > MAX_ITERATIONS:
            raise NoMatch("too many rounds")
        _bind(ev, body_block, args)
        r = _round(ev, step, size)
        if r:
            rounds.append(r)
        return [ev.int(v) for v in body_block.last_op.operands]  # type: ignore[union-attr]

    if isinstance(loop, scf.ForOp):
        i, ub, inc = ev.int(loop.lb), ev.int(loop.ub), ev.int(loop.step)
        carried = [ev.int(v) for v in loop.iter_args]
        if inc <= 0:
            raise NoMatch("a loop step that is not positive")
        while i < ub:
            carried = one_round([i, *carried])
            i += inc
        return barrier, rounds, carried
    assert isinstance(loop, scf.WhileOp)
    before = loop.before_region.block
    if any(o.name not in EVALUATED for o in list(before.ops)[:-1]):
        raise NoMatch("the loop condition computes more than round values")
    carried = [ev.int(v) for v in loop.arguments]
    while True:
        _bind(ev, before, carried)
        cond = before.last_op
        assert isinstance(cond, scf.ConditionOp)
        forwarded = [ev.int(v) for v in cond.args]
        if not ev.int(cond.condition):
            return barrier, rounds, forwarded
        carried = one_round(forwarded)


def _straight_runs(block: Block, ev: Evaluator, size: int
                   ) -> list[tuple[list[tuple[scf.IfOp, mux.WorkGroupBarrierOp]], list[Round]]]:
    """Runs of two or more rounds written out one after the other (``if (lid < 128) ...;
    barrier; if (lid < 64) ...; barrier; ...``, round values and pure integer ops between)."""
    runs = []
    pairs: list[tuple[scf.IfOp, mux.WorkGroupBarrierOp]] = []
    rounds: list[Round] = []
    pending: tuple[scf.IfOp, Round | None] | None = None

    def close() -> None:
        nonlocal pairs, rounds
        if len(pairs) >= 2 and rounds:
            runs.append((pairs, rounds))
        pairs, rounds = [], []

    for op in block.ops:
        if isinstance(op, scf.IfOp):
            try:
                step = _step(op)
                r = _round(ev, step, size)
            except NoMatch:
                pending = None
                close()
                continue
            if pending is not None:  # a step not followed by a barrier ends the run
                close()
            pending = (op, r)
        elif _is_barrier(op) and pending is not None:
            pairs.append((pending[0], op))  # type: ignore[arg-type]
            if pending[1]:
                rounds.append(pending[1])
            pending = None
        elif op.name not in EVALUATED:
            pending = None
            close()
    close()
    return [(p, rs) for p, rs in runs if len({r.step.buf for r in rs}) == 1]


def _extent(r: Round) -> int:
    """One past the last slot round ``r`` touches."""
    return max([r.write, *r.reads]) + r.count


class _Builder:
    """Builds the single-work-item step. The vector ``v`` holds slots ``[0, cur)``; after
    each round the slots no later round touches are final: they are stored and dropped from
    ``v`` (a halving tree's vector halves every round, and no round blends two vectors)."""

    def __init__(self, buf: SSAValue) -> None:
        t = buf.type
        assert isinstance(t, MemRefType)
        self.buf, self.elem = buf, t.element_type
        self.ops: list[Operation] = []
        self.consts: dict[int, SSAValue] = {}
        self.slices: dict[tuple[SSAValue, int, int], SSAValue] = {}
        self.written: set[int] = set()  # slots some round wrote (the others hold their value)

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def index(self, value: int) -> SSAValue:
        if value not in self.consts:
            self.consts[value] = self.add(arith.ConstantOp(IntegerAttr(value, IndexType())))
        return self.consts[value]

    def shuffle(self, a: SSAValue, b: SSAValue, mask: list[int]) -> SSAValue:
        t = VectorType(self.elem, [len(mask)])
        return self.add(vector.ShuffleOp(a, b, DenseArrayBase.from_list(i64, mask),
                                         result_type=t))

    def lanes(self, v: SSAValue, start: int, n: int) -> SSAValue:
        """Lanes ``[start, start + n)`` of ``v``."""
        assert isinstance(v.type, VectorType)
        if start == 0 and n == v.type.get_shape()[0]:
            return v
        key = (v, start, n)
        if key not in self.slices:
            self.slices[key] = self.shuffle(v, v, list(range(start, start + n)))
        return self.slices[key]

    def store(self, v: SSAValue, start: int, lo: int, hi: int) -> None:
        """Store the written slots of ``[lo, hi)`` from ``v`` (slots from ``start`` on)."""
        i = lo
        while i < hi:
            if i not in self.written:
                i += 1
                continue
            j = i
            while j < hi and j in self.written:
                j += 1
            self.ops.append(vector.StoreOp(self.lanes(v, i - start, j - i), self.buf,
                                           [self.index(i)]))
            i = j

    def build(self, rounds: list[Round]) -> list[Operation]:
        keep = [max(map(_extent, rounds[k:])) for k in range(len(rounds))] + [0]
        cur = keep[0]
        v = self.add(vector.LoadOp(self.buf, [self.index(0)],
                                   VectorType(self.elem, [cur])))
        for r, nxt in zip(rounds, keep[1:], strict=True):
            res = self.round(v, r)
            w, n = r.write, r.count
            self.written.update(range(w, w + n))
            # slots [nxt, cur) are final: from the round where it wrote them, else from v
            self.store(v, 0, nxt, min(cur, w))
            self.store(res, w, max(nxt, w), min(cur, w + n))
            self.store(v, 0, max(nxt, w + n), cur)
            if nxt:
                v = self.kept(v, res, r, nxt)
            cur = nxt
        return self.ops

    def kept(self, v: SSAValue, res: SSAValue, r: Round, nxt: int) -> SSAValue:
        """Slots ``[0, nxt)`` after round ``r`` (``res``: its slots ``[w, w + n)``)."""
        w, n = r.write, r.count
        if nxt <= w:
            return self.lanes(v, 0, nxt)
        if w == 0 and nxt <= n:
            return self.lanes(res, 0, nxt)
        # a blend; LLVM's shufflevector takes operands of one type: widen ``res`` first
        assert isinstance(v.type, VectorType)
        cur = v.type.get_shape()[0]
        wide = self.shuffle(res, res, [i % n for i in range(cur)])
        mask = [cur + i for i in range(nxt)]
        mask[w:min(nxt, w + n)] = range(min(nxt, w + n) - w)
        return self.shuffle(wide, v, mask)

    def round(self, v: SSAValue, r: Round) -> SSAValue:
        """The round's new values of slots ``[w, w + n)`` (a vector of ``n``)."""
        n, step = r.count, r.step
        mapped: dict[SSAValue, SSAValue] = {}
        for ld, o in zip(step.loads, r.reads, strict=True):
            mapped[ld.res] = self.lanes(v, o, n)
        for op in step.compute:
            new = type(op).create(
                operands=[self.operand(mapped, x, n) for x in op.operands],
                result_types=[VectorType(x.type, [n]) for x in op.results],
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            )
            mapped[op.results[0]] = self.add(new)
        return self.operand(mapped, step.store.value, n)

    def operand(self, mapped: dict[SSAValue, SSAValue], x: SSAValue, n: int) -> SSAValue:
        if x not in mapped:  # a scalar constant: splat it
            const = x.owner
            assert isinstance(const, arith.ConstantOp)
            c = self.add(const.clone())
            mapped[x] = self.add(vector.BroadcastOp(c, VectorType(x.type, [n])))
        return mapped[x]


def _is_barrier(op: Operation | None) -> bool:
    return isinstance(op, mux.WorkGroupBarrierOp) and not attrs.is_sub_group_scope(op)


def _barrier_next_to(op: Operation, before: bool) -> bool:
    """A barrier right before (after) ``op``, only pure integer ops between."""
    cur = op.prev_op if before else op.next_op
    while cur is not None and not _is_barrier(cur) and cur.name in EVALUATED:
        cur = cur.prev_op if before else cur.next_op
    return _is_barrier(cur)


def _barrier_like(bar: mux.WorkGroupBarrierOp) -> mux.WorkGroupBarrierOp:
    return mux.WorkGroupBarrierOp(bar.scope.data, bar.semantics_value())


def _single_step(rounds: list[Round]) -> list[Operation]:
    """``if (local linear id == 0) {the rounds on vectors}``, marked single work-item."""
    first_id = mux.GetLocalLinearIdOp(IndexType())
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    is_first = arith.CmpiOp(first_id, zero, "eq")
    step = scf.IfOp(is_first, [], [*_Builder(rounds[0].step.buf).build(rounds), scf.YieldOp()])
    attrs.mark_single_work_item(step)
    return [first_id, zero, is_first, step]


def _rewrite_loop(loop: Operation, bar: mux.WorkGroupBarrierOp, rounds: list[Round],
                  results: list[int]) -> None:
    ops = _single_step(rounds)
    # a barrier on each side (none where the kernel already has one there: only pure
    # integer ops between)
    if not _barrier_next_to(loop, before=True):
        ops.insert(0, _barrier_like(bar))
    if not _barrier_next_to(loop, before=False):
        ops.append(_barrier_like(bar))
    for res, value in zip(loop.results, results, strict=True):
        c = arith.ConstantOp(IntegerAttr(value, res.type))
        ops.append(c)
        res.replace_all_uses_with(c.result)
    Rewriter.insert_op(ops, InsertPoint.before(loop))
    Rewriter.erase_op(loop)


def _rewrite_run(pairs: list[tuple[scf.IfOp, mux.WorkGroupBarrierOp]],
                 rounds: list[Round]) -> None:
    """The steps go, and the barriers but the last; the single step stands where the first
    step stood, after a barrier (the run's round values stay where they are: pure)."""
    first = pairs[0][0]
    ops = _single_step(rounds)
    if not _barrier_next_to(first, before=True):
        ops.insert(0, _barrier_like(pairs[0][1]))
    Rewriter.insert_op(ops, InsertPoint.before(first))
    for i, (guard, bar) in enumerate(pairs):
        Rewriter.erase_op(guard)
        if i + 1 < len(pairs):
            Rewriter.erase_op(bar)


def _fits(rounds: list[Round], max_bytes: int) -> bool:
    t = rounds[0].step.buf.type
    assert isinstance(t, MemRefType)
    bits = t.element_type.bitwidth  # type: ignore[union-attr]
    return max(map(_extent, rounds)) * max(bits, 8) <= 8 * max_bytes


def vectorize_trees(kernel: Operation, max_bytes: int) -> int:
    """Rewrite the trees of one entry point; return how many."""
    reqd = attrs.get_reqd_work_group_size(kernel)
    if reqd is None:
        return 0
    size = math.prod(reqd)
    done = 0
    loops = [o for o in kernel.walk() if isinstance(o, scf.ForOp | scf.WhileOp)]
    for loop in loops:
        try:
            bar, rounds, results = _loop_rounds(loop, Evaluator(reqd), size)
        except NoMatch:
            continue
        if rounds and _fits(rounds, max_bytes) and _dominates_loop(rounds[0].step.buf, loop):
            _rewrite_loop(loop, bar, rounds, results)
            done += 1
    blocks = [b for o in kernel.walk() for r in o.regions for b in r.blocks]
    for block in blocks:
        for pairs, rounds in _straight_runs(block, Evaluator(reqd), size):
            if _fits(rounds, max_bytes) and all(
                _dominates_loop(rounds[0].step.buf, guard) for guard, _ in pairs
            ):
                _rewrite_run(pairs, rounds)
                done += 1
    if done:
        renumber_barriers(kernel)  # type: ignore[arg-type]
    return done


def _dominates_loop(v: SSAValue, loop: Operation) -> bool:
    """``v`` is defined outside ``loop`` (so usable where the loop stood)."""
    owner = v.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    while op is not None:
        if op is loop:
            return False
        op = op.parent_op()
    return True


@dataclass(frozen=True)
class VectorizeLocalReductionTrees(ModulePass):
    """Run the statically known rounds of a local-memory reduction tree as vector steps."""

    name = "vectorize-local-reduction-trees"

    max_bytes: int = 4096

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in attrs.entry_points(op):
            vectorize_trees(kernel, self.max_bytes)
