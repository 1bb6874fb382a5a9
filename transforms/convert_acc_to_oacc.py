"""``convert-acc-to-oacc``: outline OpenACC compute regions into NDRange kernels (omp-expand).

Input: upstream MLIR's ``acc`` dialect as xDSL parses it. Each ``acc.parallel`` in a host
function ``@h`` becomes a kernel ``@h_acc_parallel_<n>`` launched with ``mux.launch``; its
partitioned ``acc.loop``\\ s become uniform-trip-count ``scf.for`` loops over
``oacc.dim_pos``/``oacc.dim_size``, and reductions get the ``oacc`` builtins of the
reference (``openacc-reductions-gcc.txt``, "Examples"). ``expand-oacc-reductions`` then
expands the builtins for a target.

**Outlining.** Every value the region captures becomes a kernel argument (memrefs and
int/float/index scalars; constants are re-materialized instead). Data clauses are identity on
the CPU (the host shares memory): ``acc.copyin``/``create``/``present``/... results are their
host memref, exit ops (``acc.copyout``, ``acc.delete``, ...) vanish. ``acc.private`` becomes a
per-work-item ``memref.alloca`` at the kernel entry, ``acc.firstprivate`` the same plus a copy
of the original. The kernel gets ``mux.kernel = "entry_point"``, ``oacc.dims = (num_gangs,
num_workers, vector_length)`` (-1 where only known at run time), ``oacc.level_dims`` when the
mapping is not the default one and ``mux.reqd_work_group_size`` when all sizes are constants.
The launch is ``global_size(ng*vl, nw) local_size(vl, nw)`` with the default mapping
(gang -> work-group dimension ``gang-dim``, worker -> local dimension ``worker-dim``, vector
-> local dimension ``vector-dim``); absent clauses take ``num-gangs``/``num-workers``/
``vector-length`` (OpenACC's default 1).

``acc.serial`` is outlined the same way as ``acc.parallel num_gangs(1) num_workers(1)
vector_length(1)`` (kernel ``@h_acc_serial_<n>``).

**Execution model.** Every work-item runs the region (redundant mode); only partitioned loops
split work. A gang-partitioned loop gives each gang a contiguous chunk of ``ceil(ntrip/ng)``
iterations (``start = gang*chunk``, ``n = min(chunk, ntrip - min(start, ntrip))``): on the CPU
a gang is a work-group on one thread, so it streams through its own part of the data instead
of touching every ``ng``-th block (measured on bench/acc_sum.py: 2.65x -> 1.60x gcc's time
for the f32 sum). Inside the gang's chunk (or the whole range without gang) of ``m``
iterations, workers likewise take contiguous chunks of ``ceil(m / (nw*vl))`` whole vector
rounds (``vl`` = 1 without vector): a worker is a row of the work-group's work-item nest, run
by one thread, so it streams through its part (bench/acc_sum.py, f32: 1.38x -> 0.94x gcc's
time); work-item-loop-interchange still vectorizes across the lanes, as the per-worker trip
count is uniform in each x loop. Inside that, the vector level uses ``pos = lane`` and
``size = vl`` in uniform-trip-count form: ``scf.for %r = 0 to n/size`` with iteration
``start + r*size + pos`` (adjacent lanes take adjacent iterations: the work-item loop over x
vectorizes), then one remainder round guarded by ``scf.if r*size + pos < n``. When a
worker/vector loop's body holds partitioned loops (which synchronize the work-group, so every
worker must run the same number of rounds), workers do not take chunks: ``pos = worker*vl +
vector`` and ``size = nw*vl`` over the levels present, and every work-item runs the remainder
round: its nested loops get no iteration where the round is invalid and its other effects run
under ``scf.if`` (masked round). ``acc.loop`` with ``seq`` or no
level is a plain ``scf.for``. Forks/joins surround every partitioned loop. Several control
variables (collapse) are linearized.

**Reductions.** Inside a reducing loop the variable is a per-work-item ``memref.alloca`` (the
LOCAL object; the copy object is not rewritten there). Around the loop, per level from the
outermost: setup (all reductions), fork, init; after it, from the innermost: lock, fini,
unlock (no lock at vector level), join, teardown. ``res(...)`` (the copy RESULT object) is
passed at gang level only; a worker/vector reduction of a copy object is surrounded by a dummy
gang reduction with the same lid/rid (setup, init ... lock, fini, unlock, teardown, no
fork/join); a reduction on ``acc.parallel`` is a null outermost gang loop around the whole
body, and gang-loop reductions whose RESULT is private (such as the parallel's LOCAL) get no
builtins. A private RESULT receives the teardown value. lid: one per loop with builtins,
counted per kernel; rid: the reduction's index in its loop.

Before::

    %c = acc.copyin varPtr(%a : memref<f32>) -> memref<f32>
        {dataClause = #acc<data_clause acc_copy>}
    %r = acc.reduction varPtr(%c : memref<f32>) recipe(@add_f32) -> memref<f32>
    acc.parallel dataOperands(%c : memref<f32>) num_workers(%c4 : i32) {
      acc.loop worker reduction(%r : memref<f32>) control(%i : index) = (%c0 : index)
          to (%n : index) step (%c1 : index) {
        ... memref.load %r[] ... memref.store %s, %r[] ...
        acc.yield
      } attributes {independent = [#acc.device_type<none>]}
      acc.yield
    }

After (kernel; the host calls ``mux.launch @h_acc_parallel_0(%a, %n) global_size(%c1, %c4)
local_size(%c1, %c4)``)::

    func.func @h_acc_parallel_0(%a: memref<f32>, %n: index) attributes {mux.kernel = ...} {
      %local = memref.alloca() : memref<f32>
      %0 = memref.load %a[] : memref<f32>
      %1 = oacc.reduction_setup gang add %0 res(%a : memref<f32>) lid 0 rid 0 : f32
      %2 = oacc.reduction_init gang add %1 res(%a : memref<f32>) lid 0 rid 0 : f32
      %3 = oacc.reduction_setup worker add %2 lid 0 rid 0 : f32
      oacc.fork worker
      %4 = oacc.reduction_init worker add %3 lid 0 rid 0 : f32
      memref.store %4, %local[] : memref<f32>
      ... scf.for over worker rounds + guarded remainder, using %local ...
      %5 = memref.load %local[] : memref<f32>
      oacc.lock worker lid 0
      %6 = oacc.reduction_fini worker add %5 lid 0 rid 0 : f32
      oacc.unlock worker lid 0
      oacc.join worker
      %7 = oacc.reduction_teardown worker add %6 lid 0 rid 0 : f32
      oacc.lock gang lid 0
      %8 = oacc.reduction_fini gang add %7 res(%a : memref<f32>) lid 0 rid 0 : f32
      oacc.unlock gang lid 0
      %9 = oacc.reduction_teardown gang add %8 res(%a : memref<f32>) lid 0 rid 0 : f32
      func.return
    }

Recipes: ``acc.reduction.recipe``'s operator gives the kind (iand -> and, ior -> or, xor,
land, lor, add, mul, max, min); its type is the variable's ``memref<T>`` or ``T``; the
identity is recomputed by the expansion (the init region is type-checked only). Errors name
the op, recipe or variable: no recipe, operator invalid for the type, mismatched recipe
types, eqv/neqv, ``acc.kernels``, unsupported clauses. Modules without ``acc``
ops are left unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import acc, arith, complex, func, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    ComplexType,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free
from xdsl.utils.exceptions import VerifyException

from xmux.dialects import attrs, oacc
from xmux.dialects.oacc import Level, ReductionKind
from xmux.errors import NotSupportedError, XmuxError

PASS = "convert-acc-to-oacc"

_KINDS: dict[acc.ReductionOpKind, ReductionKind] = {
    acc.ReductionOpKind.ADD: ReductionKind.ADD,
    acc.ReductionOpKind.MUL: ReductionKind.MUL,
    acc.ReductionOpKind.MAX: ReductionKind.MAX,
    acc.ReductionOpKind.MIN: ReductionKind.MIN,
    acc.ReductionOpKind.IAND: ReductionKind.AND,
    acc.ReductionOpKind.IOR: ReductionKind.OR,
    acc.ReductionOpKind.XOR: ReductionKind.XOR,
    acc.ReductionOpKind.LAND: ReductionKind.LAND,
    acc.ReductionOpKind.LOR: ReductionKind.LOR,
}

#: Data-entry ops whose result is the host object itself on the CPU (shared memory).
_IDENTITY_ENTRY = (
    acc.CopyinOp,
    acc.CreateOp,
    acc.PresentOp,
    acc.NoCreateOp,
    acc.AttachOp,
    acc.DevicePtrOp,
    acc.GetDevicePtrOp,
    acc.ReductionOp,
)
#: Host-side ops that only move data between host and device: nothing to do on the CPU.
_DATA_ONLY = (
    acc.CopyoutOp,
    acc.DeleteOp,
    acc.DetachOp,
    acc.UpdateHostOp,
    acc.UpdateDeviceOp,
    acc.EnterDataOp,
    acc.ExitDataOp,
    acc.UpdateOp,
    acc.WaitOp,
)
_RECIPES = (acc.ReductionRecipeOp, acc.PrivateRecipeOp, acc.FirstprivateRecipeOp)
_LEVELS = (Level.GANG, Level.WORKER, Level.VECTOR)


def _err(msg: str) -> XmuxError:
    return XmuxError(f"{PASS}: {msg}")


def _unsupported(what: str) -> NotSupportedError:
    return NotSupportedError(f"{PASS}: {what} is not supported by this pipeline yet")


def _var_name(v: SSAValue) -> str:
    """The user's name of an OpenACC variable: the data op's ``name``, else its SSA name."""
    seen = 0
    while seen < 8 and isinstance(v.owner, acc._DataEntryOperation):
        if v.owner.var_name is not None:
            return v.owner.var_name.data
        v = v.owner.var
        seen += 1
    return f"%{v.name_hint}" if v.name_hint else "<unnamed>"


@dataclass
class _Red:
    """A reduction clause: operator, element type, names for errors."""

    kind: ReductionKind
    type: Attribute
    name: str
    recipe: str


@dataclass
class _Item:
    """One reduction of a loop being lowered: its builtins' levels and current value."""

    rid: int
    red: _Red
    res: SSAValue  # the RESULT object
    levels: list[Level]  # levels with builtins (outermost first)
    dummy: bool = False  # surrounded by a dummy gang reduction
    local: SSAValue | None = None  # the LOCAL object
    val: SSAValue | None = None  # the value flowing through the builtins


def _device_none(a: ArrayAttr | None) -> bool:
    """A clause attribute present for the default device type (``#acc.device_type<none>``)."""
    return a is not None and any(d.data == acc.DeviceType.NONE for d in a.data)


def _const_int(v: SSAValue) -> int | None:
    if isinstance(v.owner, arith.ConstantOp) and isinstance(v.owner.value, IntegerAttr):
        return v.owner.value.value.data
    return None


class _Builder:
    """Inserts ops at a fixed insertion point and returns their (single) results."""

    def __init__(self, ip: InsertPoint) -> None:
        self.ip = ip
        self._consts: dict[int, SSAValue] = {}
        self._casts: dict[SSAValue, SSAValue] = {}

    def op(self, o: Operation) -> Operation:
        Rewriter.insert_op(o, self.ip)
        return o

    def v(self, o: Operation) -> SSAValue:
        return self.op(o).results[0]

    def const(self, n: int) -> SSAValue:
        if n not in self._consts:
            self._consts[n] = self.v(arith.ConstantOp(IntegerAttr(n, IndexType())))
        return self._consts[n]

    def index(self, v: SSAValue) -> SSAValue:
        if isinstance(v.type, IndexType):
            return v
        c = _const_int(v)
        if c is not None:
            return self.const(c)
        if v not in self._casts:
            self._casts[v] = self.v(arith.IndexCastOp(v, IndexType()))
        return self._casts[v]

    def cast(self, v: SSAValue, t: Attribute) -> SSAValue:
        return v if v.type == t else self.v(arith.IndexCastOp(v, t))

    # index arithmetic, folded where an operand is a constant (keeps the IR readable)
    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = _const_int(a), _const_int(b)
        if ca is not None and cb is not None:
            return self.const(ca + cb)
        if ca == 0:
            return b
        if cb == 0:
            return a
        return self.v(arith.AddiOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = _const_int(a), _const_int(b)
        if ca is not None and cb is not None:
            return self.const(ca - cb)
        if cb == 0:
            return a
        return self.v(arith.SubiOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = _const_int(a), _const_int(b)
        if ca is not None and cb is not None:
            return self.const(ca * cb)
        if ca == 1:
            return b
        if cb == 1:
            return a
        return self.v(arith.MuliOp(a, b))

    def ceildiv_pos(self, n: SSAValue, d: SSAValue) -> SSAValue:
        """max(0, ceil(n / d)) for d > 0."""
        cn, cd = _const_int(n), _const_int(d)
        if cn is not None and cd is not None:
            return self.const(max(0, -(-cn // cd)))
        t = n if cd == 1 else self.v(arith.DivSIOp(self.add(n, self.sub(d, self.const(1))), d))
        if cn is not None:
            return t
        c0 = self.const(0)
        return self.v(arith.SelectOp(self.v(arith.CmpiOp(n, c0, "sgt")), t, c0))


# ----------------------------------------------------------------------------------------
# recipes


def _reduction_info(red: SSAValue, module_recipes: dict[str, Operation], where: str) -> _Red:
    """Check the ``acc.reduction`` producing ``red`` and its recipe; the clause's kind/type."""
    op = red.owner
    if not isinstance(op, acc.ReductionOp):
        raise _err(f"{where}: reduction operand is not produced by acc.reduction")
    name = _var_name(red)
    vt = op.var.type
    if not isinstance(vt, MemRefType) or vt.get_shape() != ():
        raise _unsupported(
            f"{where}: reduction of '{name}' of type {vt} (only scalars, rank-0 memrefs,"
            " can be reduced)"
        )
    elem = vt.element_type
    if op.recipe is None:
        raise _err(f"{where}: reduction of variable '{name}' has no recipe (recipe(@...))")
    rname = op.recipe.string_value()
    recipe = module_recipes.get(rname)
    if not isinstance(recipe, acc.ReductionRecipeOp):
        raise _err(f"{where}: reduction of '{name}': no acc.reduction.recipe @{rname}")
    rt = recipe.var_type
    if rt not in (vt, elem):
        raise _err(
            f"acc.reduction.recipe @{rname} is for type {rt} but variable '{name}' has type "
            f"{vt}"
        )
    _check_recipe_regions(recipe, rname)
    opk = recipe.reduction_operator.data
    if opk in (acc.ReductionOpKind.EQV, acc.ReductionOpKind.NEQV):
        raise _unsupported(f"reduction operator '{opk.value}' (acc.reduction.recipe @{rname})")
    if opk not in _KINDS:
        raise _err(f"acc.reduction.recipe @{rname}: reduction operator '{opk.value}' is invalid")
    kind = _KINDS[opk]
    try:
        oacc.check_reduction_type(
            kind, elem, f"reduction of '{name}' (acc.reduction.recipe @{rname}, {opk.value})"
        )
    except VerifyException as e:
        raise _err(str(e)) from None
    return _Red(kind, elem, name, rname)


def _check_recipe_regions(recipe: acc.ReductionRecipeOp, rname: str) -> None:
    """Init takes/yields the recipe type; combiner takes two and yields one of it."""
    t = recipe.var_type
    where = f"acc.reduction.recipe @{rname} (type {t})"
    for region, what, nargs in ((recipe.init_region, "init", 1), (recipe.combiner_region,
                                                                   "combiner", 2)):
        if not region.blocks:
            raise _err(f"{where}: empty {what} region")
        args = region.block.args
        if len(args) < nargs or any(a.type != t for a in args[:nargs]):
            got = ", ".join(str(a.type) for a in args)
            raise _err(f"{where}: {what} region arguments ({got}) do not match the recipe type")
        for y in region.walk():
            if isinstance(y, acc.YieldOp) and [a.type for a in y.arguments] != [t]:
                got = ", ".join(str(a.type) for a in y.arguments)
                raise _err(f"{where}: {what} region yields ({got}), expected ({t})")


# ----------------------------------------------------------------------------------------
# the pass


@dataclass(frozen=True)
class ConvertAccToOacc(ModulePass):
    """OpenACC ``acc.parallel`` regions -> NDRange kernels with ``oacc`` builtins."""

    name = "convert-acc-to-oacc"

    gang_dim: int = 0
    worker_dim: int = 1
    vector_dim: int = 0
    num_gangs: int = 1
    num_workers: int = 1
    vector_length: int = 1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not any(o.dialect_name() == "acc" for o in op.walk()):
            return
        self._check_options()
        for o in op.walk():
            if isinstance(o, acc.KernelsOp):
                raise _unsupported("acc.kernels (use acc.parallel)")
        recipes = {o.sym_name.data: o for o in op.ops if isinstance(o, _RECIPES)}
        for f in [o for o in op.ops if isinstance(o, func.FuncOp)]:
            pars = [o for o in f.walk() if isinstance(o, _COMPUTE)]
            for n, par in enumerate(pars):
                if _inside(par, _COMPUTE):
                    raise _err(f"@{f.sym_name.data}: nested '{par.name}'")
                _Outliner(self, op, f, par, n, recipes).run()
            _cleanup_host(f)
        for o in list(op.ops):
            if isinstance(o, _RECIPES):
                op.body.block.erase_op(o)
        left = next((o for o in op.walk() if o.dialect_name() == "acc"), None)
        if left is not None:
            raise _unsupported(f"'{left.name}' outside acc.parallel")

    def _check_options(self) -> None:
        dims = {"gang-dim": self.gang_dim, "worker-dim": self.worker_dim,
                "vector-dim": self.vector_dim}
        for k, d in dims.items():
            if not 0 <= d <= 2:
                raise _err(f"option {k} must be 0, 1 or 2, got {d}")
        if self.worker_dim == self.vector_dim:
            raise _err(
                f"options worker-dim and vector-dim must differ (both {self.worker_dim})"
            )
        for k, n in (("num-gangs", self.num_gangs), ("num-workers", self.num_workers),
                     ("vector-length", self.vector_length)):
            if n < 1:
                raise _err(f"option {k} must be at least 1, got {n}")

    @property
    def level_dims(self) -> tuple[int, int, int]:
        return (self.gang_dim, self.worker_dim, self.vector_dim)


#: Compute constructs outlined into kernels (acc.serial: one gang of one worker, vector 1).
_COMPUTE = (acc.ParallelOp, acc.SerialOp)


def _inside(op: Operation, cls: type[Operation] | tuple[type[Operation], ...]) -> bool:
    p = op.parent_op()
    while p is not None:
        if isinstance(p, cls):
            return True
        p = p.parent_op()
    return False


def _cleanup_host(f: func.FuncOp) -> None:
    """Host-side data clauses are identity (shared memory): forward results, drop the ops."""
    for o in reversed(list(f.walk())):
        if isinstance(o, _DATA_ONLY):
            o.detach()
            o.erase()
        elif isinstance(o, (*_IDENTITY_ENTRY, acc.PrivateOp, acc.FirstprivateOp)):
            if isinstance(o, (acc.PrivateOp, acc.FirstprivateOp)) and o.acc_var.uses:
                raise _unsupported(f"'{o.name}' of '{_var_name(o.acc_var)}' outside a construct")
            o.acc_var.replace_all_uses_with(o.var)
            o.detach()
            o.erase()
        elif isinstance(o, acc.DataOp):
            if o.if_cond is not None:
                raise _unsupported("acc.data with an if clause")
            block = o.region.block
            term = block.last_op
            if isinstance(term, (acc.TerminatorOp, acc.YieldOp)):
                block.erase_op(term)
            parent = o.parent_block()
            assert parent is not None
            for inner in list(block.ops):
                inner.detach()
                parent.insert_op_before(inner, o)
            o.detach()
            o.erase()


class _Outliner:
    """Outlines one ``acc.parallel`` into a kernel and launches it."""

    def __init__(
        self,
        opts: ConvertAccToOacc,
        module: ModuleOp,
        host: func.FuncOp,
        par: acc.ParallelOp | acc.SerialOp,
        n: int,
        recipes: dict[str, Operation],
    ) -> None:
        self.opts = opts
        self.module = module
        self.host = host
        self.par = par
        self.recipes = recipes
        hname = host.sym_name.data
        names = {o.sym_name.data for o in module.ops if isinstance(o, func.FuncOp)}
        self.serial = isinstance(par, acc.SerialOp)
        name = f"{hname}_acc_{'serial' if self.serial else 'parallel'}_{n}"
        while name in names:
            name += "_"
        self.name = name
        self.where = f"{par.name} in @{hname} (kernel @{name})"
        self.lid = 0
        self.loop_reds: dict[acc.LoopOp, list[_Red]] = {}
        #: acc.loops inside a masked remainder round -> the round's validity
        self.loop_valid: dict[acc.LoopOp, SSAValue] = {}

    # ---- clauses and sizes

    def _check_clauses(self) -> None:
        par = self.par
        if par.if_cond is not None:
            raise _unsupported(f"{self.where}: the if clause")
        if par.self_cond is not None or par.self_attr is not None:
            raise _unsupported(f"{self.where}: the self clause")
        if isinstance(par, acc.SerialOp):
            return
        if len(par.num_gangs) > 1:
            raise _unsupported(f"{self.where}: num_gangs with {len(par.num_gangs)} dimensions")
        for attr, what in ((par.num_gangs_device_type, "num_gangs"),
                           (par.num_workers_device_type, "num_workers"),
                           (par.vector_length_device_type, "vector_length")):
            if attr is not None and any(d.data != acc.DeviceType.NONE for d in attr.data):
                raise _unsupported(f"{self.where}: device_type-specific {what}")

    def _sizes(self) -> list[tuple[SSAValue | None, int | None]]:
        """(host value or None, constant or None) of num_gangs, num_workers, vector_length."""
        par = self.par
        if isinstance(par, acc.SerialOp):
            return [(None, 1)] * 3
        defaults = (self.opts.num_gangs, self.opts.num_workers, self.opts.vector_length)
        out: list[tuple[SSAValue | None, int | None]] = []
        for vals, d, what in ((par.num_gangs, defaults[0], "num_gangs"),
                              (par.num_workers, defaults[1], "num_workers"),
                              (par.vector_length, defaults[2], "vector_length")):
            if not vals:
                out.append((None, d))
                continue
            c = _const_int(vals[0])
            if c is not None and c < 1:
                raise _err(f"{self.where}: {what}({c}) must be at least 1")
            out.append((vals[0], c))
        return out

    # ---- main

    def run(self) -> None:
        self._check_clauses()
        par = self.par
        par_reds = [
            _reduction_info(r, self.recipes, f"{self.where}: reduction clause")
            for r in par.reduction_operands
        ]
        for lp in par.walk():
            if isinstance(lp, acc.LoopOp):
                self.loop_reds[lp] = [
                    _reduction_info(r, self.recipes, f"acc.loop in {self.where}")
                    for r in lp.reduction_operands
                ]
        sizes = self._sizes()
        kernel, args = self._outline()
        self.args = args
        entry = kernel.body.block
        self.entry_ip = InsertPoint.at_start(entry)
        self.alloca_ip = InsertPoint.at_start(entry)
        self._lower_data_ops(kernel)
        # reduction on the parallel construct: a null outermost gang "loop"
        first_body_op = self._first_non_alloca(entry)
        if par_reds:
            self._null_gang_loop(kernel, list(par_reds), first_body_op)
        self._lower_loops(kernel)
        self._attributes(kernel, sizes)
        self._launch(kernel, args, sizes)

    def _first_non_alloca(self, block: Block) -> Operation:
        for o in block.ops:
            if not isinstance(o, (memref.AllocaOp, arith.ConstantOp)):
                return o
        raise AssertionError("kernel without terminator")

    def _outline(self) -> tuple[func.FuncOp, list[SSAValue]]:
        """Move the region into a new kernel; captured values become its arguments."""
        par = self.par
        region_ops = [o for o in par.walk() if o is not par]
        inside = set(region_ops)
        captured: list[SSAValue] = []
        seen: set[SSAValue] = set()
        for o in region_ops:
            for v in o.operands:
                if v in seen:
                    continue
                owner = v.owner
                defined_inside = (
                    owner in inside
                    if isinstance(owner, Operation)
                    else (owner.parent_op() in inside or owner.parent_op() is par)
                )
                if not defined_inside:
                    seen.add(v)
                    captured.append(v)
        # kernel arguments in the order the host defines the values (its arguments first)
        order = {o: i for i, o in enumerate(self.host.walk())}

        def defined_at(v: SSAValue) -> tuple[int, int]:
            if isinstance(v, BlockArgument):
                return (0 if v.owner is self.host.body.block else 1, v.index)
            return (2, order.get(v.owner, 0))

        def source(v: SSAValue) -> SSAValue:
            r = _root(v)
            return _root(r.owner.var) if isinstance(r.owner, acc.FirstprivateOp) else r

        captured.sort(key=lambda v: defined_at(source(v)))
        # what each captured value becomes in the kernel
        block = Block()
        args: list[SSAValue] = []  # host values passed to the launch
        arg_of: dict[SSAValue, BlockArgument] = {}
        mapping: dict[SSAValue, SSAValue] = {}
        consts: list[Operation] = []
        privates: list[tuple[SSAValue, acc._DataEntryOperation]] = []

        def host_arg(v: SSAValue) -> BlockArgument:
            if v not in arg_of:
                t = v.type
                ok = isinstance(t, (MemRefType, IndexType, AnyFloat)) or (
                    isinstance(t, IntegerType)
                )
                if not ok:
                    raise _unsupported(
                        f"{self.where}: captured value {_var_name(v)} of type {t}"
                    )
                arg_of[v] = block.insert_arg(t, len(block.args))
                if v.name_hint:
                    arg_of[v].name_hint = v.name_hint
                args.append(v)
            return arg_of[v]

        for v in captured:
            root = _root(v)
            owner = root.owner
            if isinstance(owner, (acc.PrivateOp, acc.FirstprivateOp)):
                privates.append((v, owner))
                if isinstance(owner, acc.FirstprivateOp):
                    host_arg(source(v))
            elif isinstance(owner, arith.ConstantOp):
                c = owner.clone()
                consts.append(c)
                mapping[v] = c.results[0]
            else:
                mapping[v] = host_arg(root)
        kernel = func.FuncOp(self.name, ([a.type for a in block.args], []), Region(block))
        self.module.body.block.insert_op_before(kernel, self.host)
        for c in consts:
            block.add_op(c)
        # move the body
        body = par.region.block
        for o in list(body.ops):
            o.detach()
            if isinstance(o, (acc.YieldOp, acc.TerminatorOp)):
                o.erase()
                continue
            block.add_op(o)
        block.add_op(func.ReturnOp())
        for v, nv in mapping.items():
            v.replace_uses_with_if(nv, lambda u: kernel.is_ancestor(u.operation))
        # captured private copies: allocated (and first-private ones copied) at entry
        for v, owner in privates:
            src = None
            if isinstance(owner, acc.FirstprivateOp):
                src = host_arg(_root(owner.var))
            kernel.function_type = func.FunctionType.from_lists(
                [a.type for a in block.args], []
            )
            priv = self._private_alloca(block, owner, None, src)
            v.replace_uses_with_if(priv, lambda u: kernel.is_ancestor(u.operation))
        kernel.function_type = func.FunctionType.from_lists([a.type for a in block.args], [])
        return kernel, args

    def _private_alloca(
        self, block: Block, owner: acc._DataEntryOperation, copy_ip: InsertPoint | None,
        src: SSAValue | None,
    ) -> SSAValue:
        """A per-work-item copy at the kernel entry; first-private ones copy ``src`` at
        ``copy_ip`` (None: right after the allocation)."""
        t = owner.acc_var.type
        name = _var_name(owner.acc_var)
        if not isinstance(t, MemRefType) or any(d < 0 for d in t.get_shape()):
            raise _unsupported(f"{self.where}: '{owner.name}' of '{name}' of type {t}"
                               " (only statically shaped memrefs)")
        a = memref.AllocaOp.get(t.element_type, shape=t.get_shape())
        Rewriter.insert_op(a, InsertPoint.at_start(block))
        if copy_ip is None:
            copy_ip = InsertPoint.after(a)
        if src is not None:
            if t.get_shape() == ():
                ld = memref.LoadOp.get(src, [])
                Rewriter.insert_op([ld, memref.StoreOp.get(ld.res, a.memref, [])], copy_ip)
            else:
                Rewriter.insert_op(memref.CopyOp(src, a.memref), copy_ip)
        return a.memref

    def _lower_data_ops(self, kernel: func.FuncOp) -> None:
        """Data clauses inside the region: identity, private allocas, exits vanish."""
        entry = kernel.body.block
        for o in list(kernel.walk()):
            if isinstance(o, _DATA_ONLY):
                o.detach()
                o.erase()
            elif isinstance(o, _IDENTITY_ENTRY):
                o.acc_var.replace_all_uses_with(o.var)
                o.detach()
                o.erase()
            elif isinstance(o, (acc.PrivateOp, acc.FirstprivateOp)):
                src = o.var if isinstance(o, acc.FirstprivateOp) else None
                priv = self._private_alloca(entry, o, InsertPoint.before(o), src)
                o.acc_var.replace_all_uses_with(priv)
                o.detach()
                o.erase()
            elif isinstance(o, (acc.ParallelOp, acc.KernelsOp, acc.SerialOp)):
                raise _err(f"{self.where}: nested '{o.name}'")

    # ---- reductions

    def _is_copy(self, kernel: func.FuncOp, v: SSAValue) -> bool:
        """A copy RESULT object: host memory, i.e. a kernel argument."""
        return isinstance(v, BlockArgument) and v.owner is kernel.body.block

    def _local(self, kernel: func.FuncOp, red: _Red) -> SSAValue:
        """The LOCAL object of a reduction: private to each work-item."""
        a = memref.AllocaOp.get(red.type, shape=())
        Rewriter.insert_op(a, InsertPoint.at_start(kernel.body.block))
        hint = "".join(c if c.isalnum() or c == "_" else "_" for c in red.name.lstrip("%"))
        a.memref.name_hint = f"{hint}_local" if hint and not hint[0].isdigit() else "local"
        return a.memref

    def _null_gang_loop(self, kernel: func.FuncOp, reds: list[_Red], first: Operation) -> None:
        """Reduction on acc.parallel: setup/init at the start, lock/fini/unlock/teardown at the
        end of the whole body (gang-redundant mode), the variable private in between."""
        block = kernel.body.block
        ret = block.last_op
        assert ret is not None
        # the region's own ops (before any prologue/epilogue is added)
        body_ops: set[Operation] = set()
        o: Operation | None = first
        while o is not None and o is not ret:
            body_ops.add(o)
            o = o.next_op
        kres = [self._kernel_value(kernel, r) for r in self.par.reduction_operands]
        items = [_Item(rid, red, res, [Level.GANG])
                 for rid, (red, res) in enumerate(zip(reds, kres, strict=True))]
        lid = self.lid
        self.lid += 1
        b = _Builder(InsertPoint.before(first))
        for it in items:
            it.local = self._local(kernel, it.red)
            it.val = b.v(memref.LoadOp.get(it.res, []))
        self._open(b, Level.GANG, items, lid, fork=False)
        for it in items:
            b.op(memref.StoreOp.get(it.val, it.local, []))
            # every use of the variable in the region is now the LOCAL object
            it.res.replace_uses_with_if(
                it.local, lambda u: _top_op(u.operation, block) in body_ops
            )
        e = _Builder(InsertPoint.before(ret))
        for it in items:
            it.val = e.v(memref.LoadOp.get(it.local, []))
        self._close(e, Level.GANG, items, lid, join=False)

    def _kernel_value(self, kernel: func.FuncOp, host_value: SSAValue) -> SSAValue:
        """The kernel argument standing for a host value the construct refers to."""
        root = _root(host_value)
        for a, hv in zip(kernel.body.block.args, self.args, strict=True):
            if hv is root:
                return a
        raise _err(f"{self.where}: reduction variable '{_var_name(host_value)}' is not a host"
                   " object (reduction on acc.parallel needs a copy object)")

    def _open(self, b: _Builder, lvl: Level, items: list[_Item], lid: int, fork: bool) -> None:
        """Before a partitioned region at ``lvl``: setup (each reduction), fork, init."""
        res = lvl == Level.GANG
        for it in items:
            it.val = b.v(oacc.ReductionSetupOp(it.val, lvl, it.red.kind, lid, it.rid,
                                               it.res if res else None))
        if fork:
            b.op(oacc.ForkOp(lvl))
        for it in items:
            it.val = b.v(oacc.ReductionInitOp(it.val, lvl, it.red.kind, lid, it.rid,
                                              it.res if res else None))

    def _close(self, b: _Builder, lvl: Level, items: list[_Item], lid: int, join: bool) -> None:
        """After it: lock, fini (each reduction), unlock (no lock at vector level), join,
        teardown."""
        res = lvl == Level.GANG
        lock = bool(items) and lvl != Level.VECTOR
        if lock:
            b.op(oacc.LockOp(lvl, lid))
        for it in items:
            it.val = b.v(oacc.ReductionFiniOp(it.val, lvl, it.red.kind, lid, it.rid,
                                              it.res if res else None))
        if lock:
            b.op(oacc.UnlockOp(lvl, lid))
        if join:
            b.op(oacc.JoinOp(lvl))
        for it in items:
            it.val = b.v(oacc.ReductionTeardownOp(it.val, lvl, it.red.kind, lid, it.rid,
                                                  it.res if res else None))

    # ---- loops

    def _lower_loops(self, kernel: func.FuncOp) -> None:
        while True:
            lp = next((o for o in kernel.walk() if isinstance(o, acc.LoopOp)), None)
            if lp is None:
                return
            self._lower_loop(kernel, lp)

    def _loop_levels(self, lp: acc.LoopOp) -> list[Level]:
        where = f"acc.loop in {self.where}"
        for vals, what in ((lp.gang_operands, "gang(num/dim/static)"),
                           (lp.worker_num_operands, "worker(num)"),
                           (lp.vector_operands, "vector(length)"),
                           (lp.tile_operands, "tile"), (lp.cache_operands, "cache")):
            if vals:
                raise _unsupported(f"{where}: the {what} clause")
        if lp.results_:
            raise _unsupported(f"{where}: loop results")
        if lp.unstructured is not None or not lp.lowerbound:
            raise _unsupported(f"{where}: a loop without control(...) (container-like)")
        if len(lp.region.blocks) != 1:
            raise _unsupported(f"{where}: a multi-block loop body")
        for a, what in ((lp.gang, "gang"), (lp.worker, "worker"), (lp.vector, "vector"),
                        (lp.seq, "seq"), (lp.independent, "independent"), (lp.auto_, "auto")):
            if a is not None and not _device_none(a):
                raise _unsupported(f"{where}: device_type-specific {what}")
        present = (lp.gang, lp.worker, lp.vector)
        levels = [lvl for lvl, a in zip(_LEVELS, present, strict=True) if a]
        if lp.seq is not None and levels:
            raise _err(f"{where}: seq together with {'/'.join(x.value for x in levels)}")
        return levels

    def _lower_loop(self, kernel: func.FuncOp, lp: acc.LoopOp) -> None:
        levels = self._loop_levels(lp)
        reds = self.loop_reds.pop(lp)
        results = list(lp.reduction_operands)
        body_region = lp.region
        b = _Builder(InsertPoint.before(lp))
        # the levels at which each reduction gets builtins
        items: list[_Item] = []
        for rid, (red, res) in enumerate(zip(reds, results, strict=True)):
            copy = self._is_copy(kernel, res)
            if not levels:
                continue  # a sequential loop updates the RESULT directly
            # a gang reduction into a private RESULT (the parallel's LOCAL, a gang-private
            # variable) is a NOP: no gang builtins
            lv = [x for x in levels if copy or x != Level.GANG]
            if lv:
                # worker/vector reductions of a copy object: a dummy gang level around them
                items.append(_Item(rid, red, res, lv, copy and Level.GANG not in levels))
        lid = -1
        if items:
            lid = self.lid
            self.lid += 1
        for it in items:
            it.local = self._local(kernel, it.red)
            it.val = b.v(memref.LoadOp.get(it.res, []))
        self._open(b, Level.GANG, [it for it in items if it.dummy], lid, fork=False)
        for lvl in levels:
            self._open(b, lvl, [it for it in items if lvl in it.levels], lid, fork=True)
        for it in items:
            assert it.local is not None and it.val is not None
            b.op(memref.StoreOp.get(it.val, it.local, []))
            it.res.replace_uses_with_if(
                it.local, lambda u: body_region.is_ancestor(u.operation)
            )
        self._partition(kernel, lp, levels, b)
        # _partition inserted the loops before `lp`; the epilogue goes there too
        for it in items:
            assert it.local is not None
            it.val = b.v(memref.LoadOp.get(it.local, []))
        for lvl in reversed(levels):
            self._close(b, lvl, [it for it in items if lvl in it.levels], lid, join=True)
        self._close(b, Level.GANG, [it for it in items if it.dummy], lid, join=False)
        for it in items:
            if not self._is_copy(kernel, it.res):
                assert it.val is not None
                b.op(memref.StoreOp.get(it.val, it.res, []))  # a private RESULT's new value
        lp.detach()
        lp.erase()

    def _partition(self, kernel: func.FuncOp, lp: acc.LoopOp, levels: list[Level],
                   b: _Builder) -> None:
        """Emit the (partitioned) loop nest for ``lp`` at ``b``'s insertion point."""
        ivs = list(lp.region.block.args)
        lbs = [b.index(v) for v in lp.lowerbound]
        ubs = [b.index(v) for v in lp.upperbound]
        steps = [b.index(v) for v in lp.step]
        incl = lp.inclusive_upperbound
        inclusive = [bool(x) for x in incl.get_values()] if incl is not None else []
        inclusive += [False] * (len(ivs) - len(inclusive))
        c0 = b.const(0)
        c1 = b.const(1)
        ntrips = [self._trip_count(b, lb, ub, st, inc)
                  for lb, ub, st, inc in zip(lbs, ubs, steps, inclusive, strict=True)]
        ntrip = ntrips[0]
        for t in ntrips[1:]:
            ntrip = b.mul(ntrip, t)
        valid = self.loop_valid.pop(lp, None)
        if valid is not None:
            # inside a masked remainder round: no iteration for the masked positions
            ntrip = b.v(arith.SelectOp(valid, ntrip, c0))

        # max(n, 1): a masked remainder round computes (unused) indices even when n = 0
        divisors = [
            b.const(max(c, 1)) if (c := _const_int(n)) is not None else b.v(arith.MaxUIOp(n, c1))
            for n in ntrips[1:]
        ]
        divisors.insert(0, c1)

        def ivs_of(bb: _Builder, k: SSAValue) -> list[SSAValue]:
            """Control-variable values of linear iteration ``k`` (last variable fastest)."""
            out: list[SSAValue] = [c0] * len(ivs)
            rest = k
            for j in reversed(range(len(ivs))):
                if j == 0:
                    idx = rest
                else:
                    idx = bb.v(arith.RemUIOp(rest, divisors[j]))
                    rest = bb.v(arith.DivUIOp(rest, divisors[j]))
                val = bb.add(lbs[j], bb.mul(idx, steps[j]))
                out[j] = bb.cast(val, ivs[j].type)
            return out

        if not levels:
            body = Block(arg_types=[IndexType()])
            bb = _Builder(InsertPoint.at_end(body))
            self._inline_body(self._clone_body(lp), body, ivs_of(bb, body.args[0]), bb)
            body.add_op(scf.YieldOp())
            b.op(scf.ForOp(c0, ntrip, c1, [], body))
            return
        gstart: SSAValue | None = None
        if levels[0] == Level.GANG:
            # gangs take contiguous chunks (a CPU work-group streams through its own part)
            gp = b.v(oacc.DimPosOp(Level.GANG))
            gs = b.v(oacc.DimSizeOp(Level.GANG))
            chunk = b.ceildiv_pos(ntrip, gs)
            gstart = b.mul(gp, chunk)
            # this gang's iterations: min(chunk, n - min(start, n)) (0 past the end)
            rest = b.v(arith.SubiOp(ntrip, b.v(arith.MinUIOp(gstart, ntrip))))
            ntrip = b.v(arith.MinUIOp(rest, chunk))
            levels = levels[1:]
        if Level.WORKER in levels and not _has_partitioned(lp.region):
            # workers take contiguous chunks of whole vector rounds: a worker is a row of the
            # work-group's work-item nest, so it streams through its part (its trip count may
            # differ from the other workers': nothing in the body synchronizes them)
            unit = b.v(oacc.DimSizeOp(Level.VECTOR)) if Level.VECTOR in levels else c1
            ws = b.v(oacc.DimSizeOp(Level.WORKER))
            chunk = b.mul(b.ceildiv_pos(ntrip, b.mul(ws, unit)), unit)
            wstart = b.mul(b.v(oacc.DimPosOp(Level.WORKER)), chunk)
            rest = b.v(arith.SubiOp(ntrip, b.v(arith.MinUIOp(wstart, ntrip))))
            ntrip = b.v(arith.MinUIOp(rest, chunk))
            gstart = wstart if gstart is None else b.add(gstart, wstart)
            levels = [lvl for lvl in levels if lvl != Level.WORKER]
        if not levels:
            assert gstart is not None
            body = Block(arg_types=[IndexType()])
            bb = _Builder(InsertPoint.at_end(body))
            k = bb.add(gstart, body.args[0])
            self._inline_body(self._clone_body(lp), body, ivs_of(bb, k), bb)
            body.add_op(scf.YieldOp())
            b.op(scf.ForOp(c0, ntrip, c1, [], body))
            return
        pos: SSAValue | None = None
        size: SSAValue | None = None
        for lvl in levels:
            p = b.v(oacc.DimPosOp(lvl))
            s = b.v(oacc.DimSizeOp(lvl))
            pos = p if pos is None else b.add(b.mul(pos, s), p)
            size = s if size is None else b.mul(size, s)
        assert pos is not None and size is not None
        full = b.v(arith.DivUIOp(ntrip, size))
        # full rounds: every position has an iteration
        body = Block(arg_types=[IndexType()])
        bb = _Builder(InsertPoint.at_end(body))
        k = bb.add(bb.mul(body.args[0], size), pos)
        if gstart is not None:
            k = bb.add(gstart, k)
        self._inline_body(self._clone_body(lp), body, ivs_of(bb, k), bb)
        body.add_op(scf.YieldOp())
        b.op(scf.ForOp(c0, full, c1, [], body))
        # remainder round, guarded
        k = b.add(b.mul(full, size), pos)
        ok = b.v(arith.CmpiOp(k, ntrip, "ult"))
        if gstart is not None:
            k = b.add(gstart, k)
        region = self._clone_body(lp)
        if (Level.WORKER in levels or Level.VECTOR in levels) and _has_partitioned(region):
            # Nested partitioned loops synchronize the work-group (fork/join, reductions), so
            # every work-item runs the round; the masked positions run no iteration of them
            # and skip the other side effects (see _masked).
            self._masked(region, b, ivs_of(b, k), ok)
            return
        then = Block()
        tb = _Builder(InsertPoint.at_end(then))
        self._inline_body(region, then, ivs_of(tb, k), tb)
        then.add_op(scf.YieldOp())
        b.op(scf.IfOp(ok, [], Region(then)))

    def _trip_count(self, b: _Builder, lb: SSAValue, ub: SSAValue, st: SSAValue, inclusive: bool,
                    ) -> SSAValue:
        """max(0, ceil((ub - lb) / step)); the sign of a non-constant step is taken as +."""
        cst = _const_int(st)
        if cst == 0:
            raise _err(f"acc.loop in {self.where}: step 0")
        clb, cub = _const_int(lb), _const_int(ub)
        if cst is not None and clb is not None and cub is not None:
            cub += cst if inclusive else 0
            n = (cub - clb) if cst > 0 else (clb - cub)
            return b.const(max(0, -(-n // abs(cst))))
        if inclusive:
            ub = b.add(ub, st)
        if cst is not None and cst < 0:
            return b.ceildiv_pos(b.sub(lb, ub), b.const(-cst))
        return b.ceildiv_pos(b.sub(ub, lb), st)

    def _inline_body(self, region: Region, into: Block, ivs: list[SSAValue], b: _Builder) -> None:
        src = region.block
        for a, v in zip(src.args, ivs, strict=True):
            a.replace_all_uses_with(v)
        for o in list(src.ops):
            o.detach()
            if isinstance(o, (acc.YieldOp, acc.TerminatorOp)):
                if isinstance(o, acc.YieldOp) and o.arguments:
                    raise _unsupported(f"acc.loop in {self.where}: acc.yield with values")
                o.erase()
                continue
            into.add_op(o)

    def _clone_body(self, lp: acc.LoopOp) -> Region:
        """A copy of the loop's body; its nested acc.loops get the originals' clauses."""
        region = lp.region.clone()
        originals = [o for o in lp.region.walk() if isinstance(o, acc.LoopOp)]
        clones = [o for o in region.walk() if isinstance(o, acc.LoopOp)]
        assert len(originals) == len(clones)
        for o, c in zip(originals, clones, strict=True):
            self.loop_reds[c] = self.loop_reds[o]
            if o in self.loop_valid:
                self.loop_valid[c] = self.loop_valid[o]
        return region

    def _masked(self, region: Region, b: _Builder, ivs: list[SSAValue], valid: SSAValue,
                ) -> None:
        """Inline a remainder round that every work-item runs: nested acc.loops get no
        iteration where ``valid`` is false; other ops with effects (or that may trap) run
        under ``scf.if valid`` (results: zero where masked); pure ops run unguarded."""
        src = region.block
        for a, v in zip(src.args, ivs, strict=True):
            a.replace_all_uses_with(v)
        where = f"acc.loop in {self.where}"
        for o in list(src.ops):
            o.detach()
            if isinstance(o, (acc.YieldOp, acc.TerminatorOp)):
                o.erase()
                continue
            if isinstance(o, acc.LoopOp):
                if not self._loop_levels(o) and _has_partitioned(o.region):
                    raise _unsupported(f"{where}: a seq loop around a partitioned loop inside a "
                                       "worker/vector loop whose trip count is not a multiple of"
                                       " its size")
                self.loop_valid[o] = valid
                b.op(o)
                continue
            if any(_has_partitioned(r) for r in o.regions):
                raise _unsupported(f"{where}: '{o.name}' around a partitioned loop inside a "
                                   "worker/vector loop whose trip count is not a multiple of its"
                                   " size")
            if not o.regions and is_side_effect_free(o) and not isinstance(o, _TRAPPING):
                b.op(o)
                continue
            then = Block()
            then.add_op(o)
            then.add_op(scf.YieldOp(*o.results))
            zeros = [_zero(r.type, where, o) for r in o.results]
            other = Block([*zeros, scf.YieldOp(*[z.results[0] for z in zeros])])
            guard = scf.IfOp(valid, [r.type for r in o.results], Region(then),
                             Region(other) if o.results else None)
            b.op(guard)
            for r, nr in zip(o.results, guard.results, strict=True):
                r.replace_uses_with_if(nr, lambda u, g=guard: not g.is_ancestor(u.operation))

    # ---- kernel attributes and launch

    def _attributes(self, kernel: func.FuncOp, sizes: list[tuple[SSAValue | None, int | None]],
                    ) -> None:
        attrs.set_kernel(kernel)
        consts = [c for _, c in sizes]
        attrs.set_oacc_dims(kernel, consts)
        attrs.set_oacc_level_dims(kernel, self.opts.level_dims)
        if all(c is not None for c in consts):
            local = [1, 1, 1]
            local[self.opts.worker_dim] = consts[1]  # type: ignore[assignment]
            local[self.opts.vector_dim] = consts[2]  # type: ignore[assignment]
            attrs.set_reqd_work_group_size(kernel, local)

    def _launch(self, kernel: func.FuncOp, args: list[SSAValue],
                sizes: list[tuple[SSAValue | None, int | None]]) -> None:
        b = _Builder(InsertPoint.before(self.par))
        vals = []
        for v, c in sizes:
            vals.append(b.const(c) if v is None else b.index(v))
        ng, nw, vl = vals
        gd, wd, vd = self.opts.level_dims
        ndim = max(gd, wd, vd) + 1
        local: list[SSAValue | None] = [None] * ndim
        local[wd] = nw
        local[vd] = vl
        glob = list(local)
        glob[gd] = ng if local[gd] is None else b.mul(local[gd], ng)
        local = [b.const(1) if v is None else v for v in local]
        glob = [b.const(1) if v is None else v for v in glob]
        b.op(mux_launch(kernel.sym_name.data, args, glob, local))
        self.par.detach()
        self.par.erase()


def mux_launch(name: str, args: Sequence[SSAValue], glob: Sequence[SSAValue],
               local: Sequence[SSAValue]) -> Operation:
    from xmux.dialects import mux

    return mux.LaunchOp(name, args, glob, local)


_TRAPPING = (arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp, arith.CeilDivSIOp,
             arith.CeilDivUIOp, arith.FloorDivSIOp)


def _has_partitioned(region: Region) -> bool:
    """Whether ``region`` holds an acc.loop partitioned over some level."""
    return any(
        isinstance(o, acc.LoopOp) and (o.gang or o.worker or o.vector) for o in region.walk()
    )


def _zero(t: Attribute, where: str, op: Operation) -> Operation:
    if isinstance(t, IntegerType | IndexType):
        return arith.ConstantOp(IntegerAttr(0, t))
    if isinstance(t, AnyFloat):
        return arith.ConstantOp(FloatAttr(0.0, t))
    if isinstance(t, ComplexType):
        el = t.element_type
        return complex.ConstantOp(ArrayAttr([FloatAttr(0.0, el), FloatAttr(0.0, el)]), t)
    raise _unsupported(f"{where}: '{op.name}' producing {t} in a masked remainder round")


def _root(v: SSAValue) -> SSAValue:
    """The object an OpenACC data-clause value stands for (identity clauses followed)."""
    while isinstance(v.owner, _IDENTITY_ENTRY):
        v = v.owner.var
    return v


def _top_op(o: Operation, block: Block) -> Operation | None:
    while o.parent_block() is not block:
        p = o.parent_op()
        if p is None:
            return None
        o = p
    return o

