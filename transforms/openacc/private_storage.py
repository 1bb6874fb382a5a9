"""Storage of gang- and worker-private variables for ``convert-acc-to-oacc`` (GCC's
gang-private variables in ``.shared`` memory on PTX, ``oacc_privatization_scan_*`` /
``goacc.adjust_private_decl``).

OpenACC gives a variable ``private`` (or ``firstprivate``) to a ``parallel`` construct or a
``gang`` loop, or declared in the region outside any worker/vector loop, one copy per *gang*,
shared by the gang's workers and vector lanes; one ``private`` to a ``worker`` loop (or
declared in its body outside vector loops) one copy per *worker*, shared by its lanes; one
private to a ``vector`` loop one copy per lane. The outliner makes each of them a
per-work-item ``memref.alloca``. That is right as long as only redundant (single-mode) code
writes the variable: every work-item of the gang (worker) performs the same writes, so the
copies stay equal (``modes.py`` broadcasts what would not). A write in code partitioned at a
finer level (a ``worker`` loop storing its part of a gang-private array) updates only the
writing work-item's copy, and the gang's single-mode code after the loop reads a copy that
lacks the other work-items' parts.

So such a variable moves to work-group local memory (a ``memref.global`` in memory space 3,
one per variable): the variable itself for a gang-level one, a row per worker (``memref.view``
of a byte buffer at ``worker * row bytes``) for a worker-level one. Its accesses then follow
the rules of shared memory in ``modes.py``: single-mode stores are neutered (position 0 of the
single levels writes), partitioned code writes directly, the fork/join barriers order the
two. A ``firstprivate`` variable moved so is initialised by the first work-item of the gang
(worker: its first lane) followed by a barrier (an empty ``oacc.fork``/``oacc.join`` pair)
before any use; the guard carries ``oacc.single_init``, which ``modes.py`` leaves alone.

Scalars (rank-0 memrefs) stay per-work-item, as GCC keeps its non-addressable gang-private
scalars in registers (only addressable ones go to ``.shared``): a scalar private of the
construct used as a per-iteration temporary in a partitioned loop (an atomic capture's
``v``) is a race under the strict reading but works as GCC runs it; the arrays and
aggregates, which a partitioned loop fills part by part, are what must be shared.

Levels: a clause variable takes the finest level of the construct that lists it (the
parallel construct: gang; a loop: its own and its enclosing loops' levels, gang if none); a
``memref.alloca`` of the region takes the partitioned levels forked at its position.
Variables only read in finer partitioned code keep their per-work-item copies.

``mark`` / ``mark_region_allocas`` run before the loops are lowered (they tag the
allocations with ``oacc.private_level``); ``PrivateStorage`` expects the loops lowered (forks
and joins placed) and the modes not yet (``ModeLowering`` runs next); it guarantees that no
tag is left and that every use of a moved variable (views included) is retyped to memory
space 3; a call, ``return`` or region yield of one is an error (NotSupportedError).

Before (``acc.parallel num_workers(2) private(c)``, after loop lowering)::

    %c = memref.alloca() {oacc.private_level = "gang"} : memref<4xf64>
    oacc.fork worker
    scf.for ... { memref.store %v, %c[%y] : memref<4xf64> }
    oacc.join worker
    %s = memref.load %c[%k] : memref<4xf64>

After::

    memref.global "private" @__oacc_private_k_c : memref<4xf64, 3> = uninitialized
    %c = memref.get_global @__oacc_private_k_c : memref<4xf64, 3>
    oacc.fork worker
    scf.for ... { memref.store %v, %c[%y] : memref<4xf64, 3> }
    oacc.join worker
    %s = memref.load %c[%k] : memref<4xf64, 3>
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from xdsl.dialects import acc, arith, func, memref, scf
from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i8,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import oacc
from xmux.dialects.oacc import Level
from xmux.transforms.openacc.acc_common import IDENTITY_ENTRY, Builder, unsupported, var_name
from xmux.transforms.openacc.modes import LOCAL_SPACE, MAX_WORKERS, SINGLE_INIT

#: temporary attribute of private allocations: their level, or "region" (from the position)
PRIVATE_LEVEL = "oacc.private_level"
REGION = "region"
PRIVATE_BUFFER = "__oacc_private_"
#: row alignment of per-worker buffers, in bytes
ROW_ALIGN = 16

_ORDER = {Level.GANG: 0, Level.WORKER: 1, Level.VECTOR: 2}
_VIEWS = (memref.SubviewOp, memref.CastOp, memref.ReinterpretCastOp, memref.ViewOp,
          memref.ExpandShapeOp, memref.CollapseShapeOp)


def _root(v: SSAValue) -> SSAValue:
    while isinstance(v.owner, IDENTITY_ENTRY):
        v = v.owner.var
    return v


def clause_levels(par: Operation, loop_levels: Callable[[acc.LoopOp], list[Level]],
                  ) -> dict[SSAValue, Level]:
    """The level of each ``acc.private``/``acc.firstprivate`` value that a clause of ``par``
    or of its loops lists (the coarsest where several do)."""
    out: dict[SSAValue, Level] = {}

    def note(vs: Iterable[SSAValue], lvl: Level) -> None:
        for v in vs:
            r = _root(v)
            if r not in out or _ORDER[lvl] < _ORDER[out[r]]:
                out[r] = lvl

    note([*par.private_operands, *par.firstprivate_operands], Level.GANG)  # type: ignore[attr-defined]
    for lp in par.walk():
        if not isinstance(lp, acc.LoopOp):
            continue
        levels = list(loop_levels(lp))
        p = lp.parent_op()
        while p is not None and p is not par:
            if isinstance(p, acc.LoopOp):
                levels += loop_levels(p)
            p = p.parent_op()
        lvl = max(levels, key=lambda x: _ORDER[x], default=Level.GANG)
        note([*lp.private_operands, *lp.firstprivate_operands], lvl)
    return out


def mark_region_allocas(par: Operation) -> None:
    """Tag the region's own allocations: their level is where they end up (``forked``)."""
    for o in par.walk():
        if isinstance(o, memref.AllocaOp) and PRIVATE_LEVEL not in o.attributes:
            o.attributes[PRIVATE_LEVEL] = StringAttr(REGION)


def mark(alloca: memref.AllocaOp, level: Level | None) -> None:
    """Tag a clause variable's allocation with its level (None: from its position)."""
    alloca.attributes[PRIVATE_LEVEL] = StringAttr(REGION if level is None else level.value)


def forked_levels(kernel: func.FuncOp) -> dict[Operation, frozenset[Level]]:
    """The worker/vector levels forked at each op of ``kernel`` (between an ``oacc.fork``
    and its ``oacc.join`` in one block, nested regions included)."""
    out: dict[Operation, frozenset[Level]] = {}

    def walk(block: Block, forked: frozenset[Level]) -> None:
        for op in block.ops:
            if isinstance(op, oacc.ForkOp):
                if op.level_value != Level.GANG:
                    forked = forked | {op.level_value}
                continue
            if isinstance(op, oacc.JoinOp):
                forked = forked - {op.level_value}
                continue
            out[op] = forked
            for r in op.regions:
                for b in r.blocks:
                    walk(b, forked)

    walk(kernel.body.block, frozenset())
    return out


def _writers(v: SSAValue) -> list[Operation]:
    """Ops that may write the memory of ``v`` (through its views): all uses but loads,
    copies out of it and views."""
    out: list[Operation] = []
    for u in list(v.uses):
        o = u.operation
        if isinstance(o, memref.LoadOp):
            continue
        if isinstance(o, memref.CopyOp) and u.index == 0:
            continue
        if isinstance(o, _VIEWS) and u.index == 0:
            out += _writers(o.results[0])
            continue
        out.append(o)
    return out


def _in_space(t: Attribute, where: str) -> MemRefType:
    if not isinstance(t, MemRefType):
        raise unsupported(f"{where}: a view of type {t} of a gang- or worker-private variable")
    return MemRefType(t.element_type, t.get_shape(), t.layout,
                      IntegerAttr(LOCAL_SPACE, 64))


def _elem_bytes(t: MemRefType) -> int | None:
    from xmux.transforms.wi_loops.nests import byte_size

    return byte_size(t)


class PrivateStorage:
    """Moves one kernel's gang- and worker-private variables that finer partitioned code
    writes to work-group local memory (module docstring)."""

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
        self.relevant = frozenset(rel)
        self.names: set[str] = {o.sym_name.data for o in module.ops
                                if isinstance(o, memref.GlobalOp)}

    def run(self, inits: dict[SSAValue, list[Operation]]) -> None:
        """``inits``: the initialising ops (a copy, or a load and a store) of each
        first-private allocation."""
        forked = forked_levels(self.kernel)
        todo: list[tuple[memref.AllocaOp, Level]] = []
        for o in list(self.kernel.walk()):
            if not isinstance(o, memref.AllocaOp) or PRIVATE_LEVEL not in o.attributes:
                continue
            tag = o.attributes.pop(PRIVATE_LEVEL)
            assert isinstance(tag, StringAttr)
            if tag.data == REGION:
                here = forked.get(o, frozenset())
                lvl = (Level.VECTOR if Level.VECTOR in here else
                       Level.WORKER if Level.WORKER in here else Level.GANG)
            else:
                lvl = Level(tag.data)
            finer = {x for x in self.relevant if _ORDER[x] > _ORDER[lvl]}
            scalar = o.memref.type.get_shape() == ()  # type: ignore[attr-defined]
            if finer and not scalar and any(forked.get(w, frozenset()) & finer
                                            for w in _writers(o.memref)):
                todo.append((o, lvl))
        for o, lvl in todo:
            init = inits.get(o.memref, [])
            self._move(o, lvl)
            if init:
                self._guard_init(init, lvl)

    def _name(self, v: SSAValue) -> str:
        hint = "".join(c if c.isalnum() or c == "_" else "_"
                       for c in var_name(v).lstrip("%")) or "v"
        base = f"{PRIVATE_BUFFER}{self.kernel.sym_name.data}_{hint}"
        name, n = base, 0
        while name in self.names:
            n += 1
            name = f"{base}_{n}"
        self.names.add(name)
        return name

    def _move(self, alloca: memref.AllocaOp, lvl: Level) -> None:
        t = alloca.memref.type
        assert isinstance(t, MemRefType)
        name = self._name(alloca.memref)
        b = Builder(InsertPoint.before(alloca))
        if lvl == Level.GANG:
            gt = _in_space(t, self.where)
            glob = memref.GlobalOp.get(StringAttr(name), gt, UnitAttr(), alignment=64)
            new = b.v(memref.GetGlobalOp(name, gt))
        else:
            size = _elem_bytes(t)
            if size is None:
                raise unsupported(f"{self.where}: a worker-private variable of type {t} written "
                                  "in vector-partitioned code")
            row = -(-max(size, 1) // ROW_ALIGN) * ROW_ALIGN
            rows = self.nw if self.nw is not None else MAX_WORKERS
            bt = MemRefType(i8, [rows * row], memory_space=IntegerAttr(LOCAL_SPACE, 64))
            glob = memref.GlobalOp.get(StringAttr(name), bt, UnitAttr(), alignment=64)
            g = b.v(memref.GetGlobalOp(name, bt))
            w = (b.v(oacc.DimPosOp(Level.WORKER)) if Level.WORKER in self.relevant
                 else b.const(0))
            new = b.v(memref.ViewOp(g, b.mul(w, b.const(row)), [], _in_space(t, self.where)))
        if alloca.memref.name_hint:
            new.name_hint = alloca.memref.name_hint
        Rewriter.insert_op(glob, InsertPoint.before(self.kernel))
        self._retype_uses(alloca.memref, new)
        alloca.detach()
        alloca.erase()

    def _guard_init(self, init: list[Operation], lvl: Level) -> None:
        """A first-private copy: run by the first work-item of the gang (worker), then a
        barrier (an empty fork/join pair) before any use; ``modes.py`` leaves it alone."""
        finer = sorted((x for x in self.relevant if _ORDER[x] > _ORDER[lvl]),
                       key=lambda x: _ORDER[x])
        b = Builder(InsertPoint.before(init[0]))
        cond: SSAValue | None = None
        for x in finer:
            z = b.v(arith.CmpiOp(b.v(oacc.DimPosOp(x)), b.const(0), "eq"))
            cond = z if cond is None else b.v(arith.AndIOp(cond, z))
        assert cond is not None
        then = Block()
        guard = scf.IfOp(cond, [], Region(then))
        guard.attributes[SINGLE_INIT] = UnitAttr()
        b.op(guard)
        for o in init:
            o.detach()
            then.add_op(o)
        then.add_op(scf.YieldOp())
        Rewriter.insert_op([oacc.ForkOp(finer[0]), oacc.JoinOp(finer[0])],
                           InsertPoint.after(guard))

    def _retype_uses(self, old: SSAValue, new: SSAValue) -> None:
        """Uses of ``old`` take ``new`` (memory space 3); views are rebuilt in that space."""
        for u in list(old.uses):
            o = u.operation
            if isinstance(o, _VIEWS) and u.index == 0:
                res = o.results[0]
                nt = _in_space(res.type, self.where)
                no = type(o).create(operands=[new if v is old else v for v in o.operands],
                                    result_types=[nt], properties=dict(o.properties),
                                    attributes=dict(o.attributes))
                Rewriter.insert_op(no, InsertPoint.before(o))
                if res.name_hint:
                    no.results[0].name_hint = res.name_hint
                self._retype_uses(res, no.results[0])
                o.detach()
                o.erase()
            elif isinstance(o, func.CallOp | func.ReturnOp | scf.YieldOp | scf.ForOp
                            | scf.WhileOp | scf.IfOp | scf.ExecuteRegionOp):
                raise unsupported(
                    f"{self.where}: private variable '{var_name(old)}' shared by the work-items "
                    f"of a gang or worker (written in partitioned code) used by '{o.name}'")
            else:
                o.operands[u.index] = new
