"""Execution modes of ``convert-acc-to-oacc``: neutering of single-mode code and broadcast of
the values it defines at each fork (GCC's "in the non-forked region we neuter all but one
thread at the appropriate level" and its worker spill buffer / vector broadcast).

Runs on an outlined kernel after its loops are partitioned: an op lies in a partitioned
region at level L between an ``oacc.fork L`` and its ``oacc.join L`` (same block, nested
regions included). At each op the *single levels* are worker and vector minus the forked ones
(levels of constant size 1 are left out: one position is always 0).

* **Neutering**: an op in single mode (some single level) that writes memory other than
  private memory (``memref.store``/``memref.copy`` into anything but a kernel-local
  ``memref.alloca``/``alloc`` and its views), or whose effects are unknown (calls,
  atomics, other dialects), runs under ``scf.if`` on ``oacc.dim_pos L == 0`` for every single
  level L (its results: zero elsewhere); so does a division whose operand may be such a zero
  where the op does not run (it would trap). Pure ops, reads and private stores stay redundant:
  every work-item computes them, so private copies of gang/worker-level variables stay equal.
* **Broadcast**: values that may differ between the work-items sharing a single mode (results
  of neutered ops, ``oacc.dim_pos`` of an inner level, what is computed or loaded from
  private memory from them, and single-mode reads of shared memory that a neutered op of
  those levels writes — on a GPU the other positions run concurrently with position 0, so
  they may read before its write: *varying* values) and are used in a partitioned region are
  broadcast at its fork: before ``oacc.fork L`` the work-item at position 0 of the single
  levels stores them to a work-group local buffer (``memref.global`` in memory space 3, one
  per kernel and element type; a vector fork inside worker-partitioned code has a row per
  worker), after the fork (a barrier on the CPU) every work-item loads them and the region
  uses the loaded copies; the region's join orders the loads before the buffer's next
  writes. A varying rank-0 private variable used in the region is broadcast the same way
  (its content is stored back after the fork). Control operands of ops that hold forks
  (``scf.if`` / ``scf.for`` / ``scf.while`` / ``scf.index_switch``) that are varying are
  broadcast through an empty ``oacc.fork L`` / ``oacc.join L`` pair before the op.

Gang- and worker-private variables that finer partitioned code writes are work-group local
memory by now (``private_storage.py``): shared memory here, their single-mode stores neutered.
An op marked ``oacc.single_init`` (such a first-private variable's initialisation, already
guarded and followed by a barrier) is left out of the analysis.

``oacc`` builtins are left alone: their expansion already runs a level's fini only at the
inner levels' position 0 and gives every work-item the same setup/teardown value.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import acc, arith, complex, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ComplexType,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i1,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator, MemoryEffectKind, get_effects

from xmux.dialects import oacc
from xmux.dialects.oacc import Level
from xmux.transforms.openacc.acc_common import Builder, unsupported

LOCAL_SPACE = 3
#: rows of a per-worker broadcast buffer when the worker count is only known at run time
MAX_WORKERS = 1024
BCAST_BUFFER = "__oacc_bcast_"
#: an op that already runs on the right work-items (a first-private variable's initialisation
#: in local memory, ``private_storage.py``): no mode analysis, no neutering
SINGLE_INIT = "oacc.single_init"

_CONTROL = (scf.ForOp, scf.IfOp, scf.WhileOp, scf.IndexSwitchOp, scf.ExecuteRegionOp,
            memref.AllocaScopeOp)
_VIEWS = (memref.SubviewOp, memref.CastOp, memref.ReinterpretCastOp, memref.ViewOp,
          memref.ExpandShapeOp, memref.CollapseShapeOp, memref.MemorySpaceCastOp)
_LOCAL_QUERIES = ("mux.get_local_id", "mux.get_global_id", "mux.get_local_linear_id",
                  "mux.get_global_linear_id", "mux.get_sub_group_local_id",
                  "mux.get_sub_group_id")

Levels = frozenset[Level]

#: dialects whose ops touch no memory (xDSL leaves some arith ops, such as divisions,
#: without a memory-effect trait; their traps are handled apart, see ``_TRAPPING``)
_NO_MEMORY = ("oacc", "arith", "math", "index", "complex")
#: ops that trap on some operands: in single mode they are neutered when an operand may be
#: a neutered op's zero on the positions that do not run it
_TRAPPING = (arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp, arith.CeilDivSIOp,
             arith.CeilDivUIOp, arith.FloorDivSIOp)


def private_root(v: SSAValue, kernel: func.FuncOp) -> SSAValue | None:
    """The kernel-local allocation a memref value views, or None (shared memory)."""
    for _ in range(32):
        o = v.owner
        if isinstance(o, memref.AllocaOp | memref.AllocOp):
            return v if kernel.is_ancestor(o) else None
        if isinstance(o, _VIEWS):
            v = o.operands[0]
            continue
        return None
    return None


def shared_root(v: SSAValue) -> SSAValue:
    """The memref a view of shared memory views (a kernel argument, a global, ...)."""
    for _ in range(32):
        o = v.owner
        if not isinstance(o, _VIEWS):
            return v
        v = o.operands[0]
    return v


def _written_root(op: Operation) -> SSAValue | None:
    """The shared memref a neutered op writes; None where it may write any."""
    if isinstance(op, memref.StoreOp):
        return shared_root(op.memref)
    if isinstance(op, memref.CopyOp):
        return shared_root(op.destination)
    if isinstance(op, acc.AtomicUpdateOp | acc.AtomicWriteOp):
        return shared_root(op.x)
    return None


def _writes_shared(op: Operation, kernel: func.FuncOp) -> bool:
    """Whether ``op`` must be neutered in single mode: it writes memory that is not private,
    or its effects are unknown."""
    if op.dialect_name() in _NO_MEMORY or op.has_trait(IsTerminator) or isinstance(
            op, memref.AllocaOp | memref.AllocOp | memref.DeallocOp):
        return False
    if isinstance(op, memref.StoreOp):
        return private_root(op.memref, kernel) is None
    if isinstance(op, memref.CopyOp):
        return private_root(op.destination, kernel) is None
    # xDSL gives update and capture RecursiveMemoryEffect: their regions' ops have no effects
    if isinstance(op, acc.AtomicUpdateOp | acc.AtomicWriteOp):
        return private_root(op.x, kernel) is None
    if isinstance(op, acc.AtomicReadOp):
        return private_root(op.v, kernel) is None
    if isinstance(op, acc.AtomicCaptureOp):
        return True  # it updates or writes its shared x
    effects = get_effects(op)
    if effects is None:
        return True
    return any(e.kind == MemoryEffectKind.WRITE for e in effects)


def _zero(b: Builder, t: Attribute, op: Operation) -> SSAValue:
    if isinstance(t, IntegerType | IndexType):
        return b.v(arith.ConstantOp(IntegerAttr(0, t)))
    if isinstance(t, AnyFloat):
        return b.v(arith.ConstantOp(FloatAttr(0.0, t)))
    if isinstance(t, ComplexType):
        z = _zero(b, t.element_type, op)
        return b.v(complex.CreateOp(z, z, t))
    raise unsupported(f"'{op.name}' producing {t} in worker- or vector-single mode")


def _storage(t: Attribute) -> list[Attribute] | None:
    """How a value of type ``t`` is kept in broadcast buffers (None: it cannot be)."""
    if t == i1:
        return [i8]
    if isinstance(t, IndexType):
        return [i64]
    if isinstance(t, IntegerType | AnyFloat):
        return [t]
    if isinstance(t, ComplexType) and isinstance(t.element_type, AnyFloat):
        return [t.element_type, t.element_type]
    return None


def _to_parts(b: Builder, v: SSAValue) -> list[SSAValue]:
    t = v.type
    if t == i1:
        return [b.v(arith.ExtUIOp(v, i8))]
    if isinstance(t, IndexType):
        return [b.v(arith.IndexCastOp(v, i64))]
    if isinstance(t, ComplexType):
        return [b.v(complex.ReOp(v)), b.v(complex.ImOp(v))]
    return [v]


def _from_parts(b: Builder, ps: list[SSAValue], t: Attribute) -> SSAValue:
    if t == i1:
        return b.v(arith.TruncIOp(ps[0], i1))
    if isinstance(t, IndexType):
        return b.v(arith.IndexCastOp(ps[0], IndexType()))
    if isinstance(t, ComplexType):
        return b.v(complex.CreateOp(ps[0], ps[1], t))
    return ps[0]


class ModeAnalysis:
    """Modes of one kernel's ops, the ops to neuter, the fork sites, and which values vary
    between the work-items sharing a single mode (module docstring)."""

    def __init__(self, module: ModuleOp, kernel: func.FuncOp, nw: int | None, vl: int | None,
                 where: str) -> None:
        self.module = module
        self.kernel = kernel
        self.where = where
        self.nw = nw
        rel: set[Level] = set()
        if nw != 1:
            rel.add(Level.WORKER)
        if vl != 1:
            rel.add(Level.VECTOR)
        self.relevant: Levels = frozenset(rel)
        self.single: dict[Operation, Levels] = {}
        self.neuter: list[Operation] = []
        self.trapping: list[Operation] = []
        self.sites: list[tuple[oacc.ForkOp, Levels]] = []  # fork, levels forked before it
        self.control: list[tuple[Operation, Levels]] = []  # ops holding forks, forked set
        self.vary: dict[SSAValue, Levels] = {}
        self.priv_vary: dict[SSAValue, Levels] = {}
        #: shared memref (None: any) -> single levels of the neutered ops that write it
        self.racy: dict[SSAValue | None, Levels] = {}
        self.slots: dict[str, int] = {}  # buffer name -> slots used
        self.buffer_types: dict[str, MemRefType] = {}

    # -- analysis ----------------------------------------------------------------------

    def _walk(self, block: Block, forked: Levels) -> bool:
        """Record modes, neutering candidates and fork sites; whether ``block`` forks."""
        has_fork = False
        for op in list(block.ops):
            if isinstance(op, oacc.ForkOp):
                has_fork = True
                lvl = op.level_value
                if lvl != Level.GANG:
                    if self.relevant - forked:
                        self.sites.append((op, forked))
                    forked = forked | {lvl}
                continue
            if isinstance(op, oacc.JoinOp):
                forked = forked - {op.level_value}
                continue
            if SINGLE_INIT in op.attributes:
                continue
            single = self.relevant - forked
            self.single[op] = single
            if isinstance(op, _CONTROL) or (op.regions and not _writes_shared(op, self.kernel)):
                inner = False
                for r in op.regions:
                    for b in r.blocks:
                        inner = self._walk(b, forked) or inner
                if inner:
                    has_fork = True
                    if single:
                        self.control.append((op, forked))
                continue
            if single and _writes_shared(op, self.kernel):
                self.neuter.append(op)
            elif single and isinstance(op, _TRAPPING):
                self.trapping.append(op)
        return has_fork

    def _v(self, v: SSAValue) -> Levels:
        return self.vary.get(v, frozenset())

    def _set(self, vs: Iterable[SSAValue], lv: Levels) -> bool:
        changed = False
        for v in vs:
            old = self._v(v)
            if not lv <= old:
                self.vary[v] = old | lv
                changed = True
        return changed

    def _vary_pass(self) -> bool:
        changed = False
        neutered = set(self.neuter)
        for op in self.kernel.walk():
            ins: Levels = frozenset().union(*(self._v(v) for v in op.operands))
            if op in neutered:
                changed |= self._set(op.results, ins | self.single[op])
                # what it may write of a private variable (a call's argument, an atomic
                # read's or capture's destination) differs between the copies likewise
                for root in self._private_operands(op):
                    old = self.priv_vary.get(root, frozenset())
                    if not self.single[op] <= old:
                        self.priv_vary[root] = old | self.single[op]
                        changed = True
            elif isinstance(op, oacc.DimPosOp):
                lv = op.level_value
                changed |= self._set(op.results,
                                     frozenset({lv}) & self.relevant)
            elif op.name in _LOCAL_QUERIES:
                changed |= self._set(op.results, self.relevant)
            elif isinstance(op, oacc.ReductionBuiltinOp):
                continue  # uniform by the expansion's design
            elif isinstance(op, memref.LoadOp):
                root = private_root(op.memref, self.kernel)
                pv = (self.priv_vary.get(root, frozenset()) if root is not None
                      else self._racy(op, op.memref))
                idx = frozenset().union(*(self._v(v) for v in op.indices))
                changed |= self._set(op.results, pv | idx)
            elif isinstance(op, memref.StoreOp | memref.CopyOp):
                dst = op.memref if isinstance(op, memref.StoreOp) else op.destination
                root = private_root(dst, self.kernel)
                if root is not None:
                    # per-position values stored in partitioned code are that position's
                    # own state; only single-mode stores make private copies differ
                    src: Levels = ins & self.single.get(op, frozenset())
                    if isinstance(op, memref.CopyOp):
                        r2 = private_root(op.source, self.kernel)
                        pv = (self.priv_vary.get(r2, frozenset()) if r2 is not None
                              else self._racy(op, op.source))
                        src = src | (pv & self.single.get(op, frozenset()))
                    old = self.priv_vary.get(root, frozenset())
                    if not src <= old:
                        self.priv_vary[root] = old | src
                        changed = True
            elif op.regions:
                # block arguments and results: the operands and everything yielded
                lv = ins
                for r in op.regions:
                    for b in r.blocks:
                        t = b.last_op
                        if t is not None and t.has_trait(IsTerminator):
                            lv = lv | frozenset().union(*(self._v(v) for v in t.operands))
                changed |= self._set(op.results, lv)
                for r in op.regions:
                    for b in r.blocks:
                        changed |= self._set(b.args, lv)
            else:
                changed |= self._set(op.results, ins)
        return changed

    def _private_operands(self, op: Operation) -> set[SSAValue]:
        roots: set[SSAValue] = set()
        for inner in op.walk():
            for v in inner.operands:
                if isinstance(v.type, MemRefType):
                    root = private_root(v, self.kernel)
                    if root is not None:
                        roots.add(root)
        return roots

    def _racy(self, op: Operation, m: SSAValue) -> Levels:
        """The single levels at which a read of shared ``m`` by ``op`` may differ between
        the positions: a neutered op of those levels writes ``m`` (or anything), and the
        other positions run concurrently with position 0 on a GPU (no barrier orders the
        write and the read inside a single-mode region)."""
        lv = self.racy.get(None, frozenset()) | self.racy.get(shared_root(m), frozenset())
        return lv & self.single.get(op, frozenset())

    def analyse(self) -> None:
        self._walk(self.kernel.body.block, frozenset())
        for op in self.neuter:
            key = _written_root(op)
            self.racy[key] = self.racy.get(key, frozenset()) | self.single[op]
        for _ in range(8):
            if not self._vary_pass():
                break
        for op in self.trapping:
            if any(self._v(v) & self.single[op] for v in op.operands):
                self.neuter.append(op)


class ModeLowering(ModeAnalysis):
    """Neuters the single-mode code of one kernel and broadcasts what its partitioned
    regions need (module docstring)."""

    def run(self) -> None:
        if not self.relevant:
            return
        self.analyse()
        for fork, forked in self.sites:
            self._broadcast_at_fork(fork, forked)
        for op, forked in self.control:
            self._broadcast_control(op, forked)
        for op in self.neuter:
            self._neuter(op)
        self._declare()

    def _cond(self, b: Builder, levels: Iterable[Level]) -> SSAValue:
        c: SSAValue | None = None
        for lvl in sorted(levels, key=lambda x: x.value):
            p = b.v(oacc.DimPosOp(lvl))
            z = b.v(arith.CmpiOp(p, b.const(0), "eq"))
            c = z if c is None else b.v(arith.AndIOp(c, z))
        assert c is not None
        return c

    def _neuter(self, op: Operation) -> None:
        b = Builder(InsertPoint.before(op))
        cond = self._cond(b, self.single[op])
        then = Block()
        other = None
        if op.results:
            other = Block()
            ob = Builder(InsertPoint.at_end(other))
            zs = [_zero(ob, r.type, op) for r in op.results]
            other.add_op(scf.YieldOp(*zs))
        guard = scf.IfOp(cond, [r.type for r in op.results], Region(then),
                         Region(other) if other else None)
        b.op(guard)
        op.detach()
        then.add_op(op)
        then.add_op(scf.YieldOp(*op.results))
        for r, nr in zip(op.results, guard.results, strict=True):
            r.replace_uses_with_if(nr, lambda u, g=guard: not g.is_ancestor(u.operation))

    def _region_after(self, fork: oacc.ForkOp) -> list[Operation]:
        """The ops of the partitioned region that ``fork`` opens (up to its join)."""
        out: list[Operation] = []
        depth = 0
        o = fork.next_op
        lvl = fork.level_value
        while o is not None:
            if isinstance(o, oacc.ForkOp) and o.level_value == lvl:
                depth += 1
            if isinstance(o, oacc.JoinOp) and o.level_value == lvl:
                if depth == 0:
                    return out
                depth -= 1
            out.append(o)
            o = o.next_op
        return out

    def _used_from_outside(self, ops: list[Operation]) -> list[SSAValue]:
        inside: set[Operation] = set()
        for o in ops:
            inside.update(o.walk())
        seen: list[SSAValue] = []
        for o in ops:
            for n in o.walk():
                for v in n.operands:
                    if v in seen:
                        continue
                    owner = v.owner
                    if isinstance(owner, Block):
                        p = owner.parent_op()
                        if p is not None and p in inside:
                            continue
                    elif owner in inside:
                        continue
                    seen.append(v)
        return seen

    def _buffer(self, t: Attribute) -> str:
        name = f"{BCAST_BUFFER}{self.kernel.sym_name.data}_{t}"
        self.slots.setdefault(name, 0)
        self.buffer_types[name] = t  # type: ignore[assignment]
        return name

    def _take(self, t: Attribute, n: int) -> tuple[str, int]:
        name = self._buffer(t)
        off = self.slots[name]
        self.slots[name] = off + n
        return name, off

    def _broadcast(self, before: Operation, after_ip: InsertPoint, forked: Levels,
                   values: list[SSAValue], privs: list[SSAValue]) -> list[SSAValue]:
        """Position 0 of the single levels stores ``values`` (and the content of the rank-0
        private memrefs ``privs``) before ``before``; every work-item loads them at
        ``after_ip`` (restoring ``privs``). Returns the loaded values."""
        single = self.relevant - forked
        rows = 1
        per_worker = Level.WORKER in forked and Level.WORKER in self.relevant
        if per_worker:
            rows = self.nw if self.nw is not None else MAX_WORKERS
        # slots: one per part of each value, a row per worker when workers are forked
        items: list[tuple[SSAValue, bool]] = [(v, False) for v in values]
        items += [(p, True) for p in privs]
        places: list[list[tuple[str, int, Attribute]]] = []
        for v, is_priv in items:
            t = v.type.element_type if is_priv else v.type  # type: ignore[attr-defined]
            parts = _storage(t)
            assert parts is not None
            ps = []
            for pt in parts:
                name, off = self._take(pt, rows)
                ps.append((name, off, pt))
            places.append(ps)
        b = Builder(InsertPoint.before(before))
        wrow = b.v(oacc.DimPosOp(Level.WORKER)) if per_worker else None
        cond = self._cond(b, single)
        then = Block()
        tb = Builder(InsertPoint.at_end(then))
        for (v, is_priv), ps in zip(items, places, strict=True):
            val = tb.v(memref.LoadOp.get(v, [])) if is_priv else v
            for part, (name, off, _pt) in zip(_to_parts(tb, val), ps, strict=True):
                g = tb.v(memref.GetGlobalOp(name, self._mtype(name)))
                idx = tb.const(off) if wrow is None else tb.add(tb.const(off), wrow)
                tb.op(memref.StoreOp.get(part, g, [idx]))
        then.add_op(scf.YieldOp())
        b.op(scf.IfOp(cond, [], Region(then)))
        a = Builder(after_ip)
        wrow2 = a.v(oacc.DimPosOp(Level.WORKER)) if per_worker else None
        out: list[SSAValue] = []
        for (v, is_priv), ps in zip(items, places, strict=True):
            loaded = []
            for name, off, _pt in ps:
                g = a.v(memref.GetGlobalOp(name, self._mtype(name)))
                idx = a.const(off) if wrow2 is None else a.add(a.const(off), wrow2)
                loaded.append(a.v(memref.LoadOp.get(g, [idx])))
            t = v.type.element_type if is_priv else v.type  # type: ignore[attr-defined]
            nv = _from_parts(a, loaded, t)
            if is_priv:
                a.op(memref.StoreOp.get(nv, v, []))
            else:
                out.append(nv)
        return out

    def _mtype(self, name: str) -> MemRefType:
        # a placeholder shape: _declare sizes the buffer and re-creates the get_globals
        return MemRefType(self.buffer_types[name], [1],
                          memory_space=IntegerAttr(LOCAL_SPACE, 64))

    def _candidates(self, used: list[SSAValue], single: Levels,
                    ) -> tuple[list[SSAValue], list[SSAValue]]:
        vals: list[SSAValue] = []
        privs: list[SSAValue] = []
        for v in used:
            t = v.type
            if isinstance(t, MemRefType):
                root = private_root(v, self.kernel)
                if root is None or not (self.priv_vary.get(root, frozenset()) & single):
                    continue
                if v is not root or t.get_shape() != () or _storage(t.element_type) is None:
                    raise unsupported(
                        f"{self.where}: private variable of type {t} written in worker- or "
                        "vector-single mode from a value that differs between work-items "
                        "(a call or atomic result) and used in a partitioned loop")
                privs.append(v)
            elif self._v(v) & single:
                if _storage(t) is None:
                    raise unsupported(f"{self.where}: broadcasting a value of type {t} to a "
                                       "partitioned loop")
                vals.append(v)
        return vals, privs

    def _broadcast_at_fork(self, fork: oacc.ForkOp, forked: Levels) -> None:
        ops = self._region_after(fork)
        single = self.relevant - forked
        vals, privs = self._candidates(self._used_from_outside(ops), single)
        if not vals and not privs:
            return
        inside: set[Operation] = set()
        for o in ops:
            inside.update(o.walk())
        new = self._broadcast(fork, InsertPoint.after(fork), forked, vals, privs)
        for v, nv in zip(vals, new, strict=True):
            v.replace_uses_with_if(nv, lambda u: u.operation in inside)

    def _broadcast_control(self, op: Operation, forked: Levels) -> None:
        """Varying control operands of an op holding forks: broadcast through an empty
        fork/join pair at the outermost single level."""
        single = self.relevant - forked
        if isinstance(op, scf.WhileOp):
            cond_op = op.before_region.block.last_op
            assert cond_op is not None
            if self._v(cond_op.operands[0]) & single:
                raise unsupported(f"{self.where}: an scf.while holding partitioned loops whose "
                                   "condition differs between the work-items of a single mode")
            return
        ctrl = [v for v in op.operands if not isinstance(op, scf.ForOp) or v in
                (op.lb, op.ub, op.step)]
        vals, _ = self._candidates(ctrl, single)
        if not vals:
            return
        lvl = Level.WORKER if Level.WORKER in single else Level.VECTOR
        f = oacc.ForkOp(lvl)
        j = oacc.JoinOp(lvl)
        Rewriter.insert_op([f, j], InsertPoint.before(op))
        new = self._broadcast(f, InsertPoint.before(j), forked, vals, [])
        for v, nv in zip(vals, new, strict=True):
            v.replace_uses_with_if(nv, lambda u: u.operation is op)

    def _declare(self) -> None:
        if not self.slots:
            return
        new = []
        for name, n in self.slots.items():
            t = MemRefType(self.buffer_types[name], [max(n, 1)],
                           memory_space=IntegerAttr(LOCAL_SPACE, 64))
            new.append(memref.GlobalOp.get(StringAttr(name), t, UnitAttr(), alignment=64))
            for o in list(self.kernel.walk()):
                if isinstance(o, memref.GetGlobalOp) and o.name_.root_reference.data == name:
                    Rewriter.replace_op(o, memref.GetGlobalOp(name, t))
        Rewriter.insert_op(new, InsertPoint.before(self.kernel))

