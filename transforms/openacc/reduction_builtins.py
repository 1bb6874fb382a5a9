"""Reductions of ``convert-acc-to-oacc``: the ``acc.reduction`` clauses and their recipes
checked, and the ``oacc`` reduction builtins placed around partitioned loops."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import acc, arith, func, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from xmux.dialects import oacc
from xmux.dialects.oacc import Level, ReductionKind
from xmux.transforms.openacc.acc_common import Builder, err, unsupported, var_name

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
    acc.ReductionOpKind.EQV: ReductionKind.EQV,
    acc.ReductionOpKind.NEQV: ReductionKind.NEQV,
}


@dataclass
class Red:
    """A reduction clause: operator, element type, names for errors."""

    kind: ReductionKind
    type: Attribute
    name: str
    recipe: str


@dataclass
class _Item:
    """One reduction of a loop being lowered: its builtins' levels and current value."""

    rid: int
    red: Red
    res: SSAValue  # the RESULT object
    levels: list[Level]  # levels with builtins (outermost first)
    dummy: bool = False  # surrounded by a dummy gang reduction
    local: SSAValue | None = None  # the LOCAL object
    val: SSAValue | None = None  # the value flowing through the builtins


def reduction_info(red: SSAValue, module_recipes: dict[str, Operation], where: str) -> Red:
    """Check the ``acc.reduction`` producing ``red`` and its recipe; the clause's kind/type."""
    op = red.owner
    if not isinstance(op, acc.ReductionOp):
        raise err(f"{where}: reduction operand is not produced by acc.reduction")
    name = var_name(red)
    vt = op.var.type
    if not isinstance(vt, MemRefType) or vt.get_shape() != ():
        raise unsupported(
            f"{where}: reduction of '{name}' of type {vt} (only scalars, rank-0 memrefs,"
            " can be reduced)"
        )
    elem = vt.element_type
    if op.recipe is None:
        raise err(f"{where}: reduction of variable '{name}' has no recipe (recipe(@...))")
    rname = op.recipe.string_value()
    recipe = module_recipes.get(rname)
    if not isinstance(recipe, acc.ReductionRecipeOp):
        raise err(f"{where}: reduction of '{name}': no acc.reduction.recipe @{rname}")
    rt = recipe.var_type
    if rt not in (vt, elem):
        raise err(
            f"acc.reduction.recipe @{rname} is for type {rt} but variable '{name}' has type "
            f"{vt}"
        )
    _check_recipe_regions(recipe, rname)
    opk = recipe.reduction_operator.data
    if opk not in _KINDS:
        raise err(f"acc.reduction.recipe @{rname}: reduction operator '{opk.value}' is invalid")
    kind = _unsigned(_KINDS[opk], recipe)
    try:
        oacc.check_reduction_type(
            kind, elem, f"reduction of '{name}' (acc.reduction.recipe @{rname}, {opk.value})"
        )
    except VerifyException as e:
        raise err(str(e)) from None
    return Red(kind, elem, name, rname)


def _unsigned(kind: ReductionKind, recipe: acc.ReductionRecipeOp) -> ReductionKind:
    """An integer max/min whose recipe combines with ``arith.maxui`` / ``arith.minui``
    reduces the unsigned values (upstream's operator enum has one ``max`` for both; the
    combiner says which)."""
    combiner = {type(o) for o in recipe.combiner_region.walk()}
    if kind == ReductionKind.MAX and arith.MaxUIOp in combiner:
        return ReductionKind.UMAX
    if kind == ReductionKind.MIN and arith.MinUIOp in combiner:
        return ReductionKind.UMIN
    return kind


def _check_recipe_regions(recipe: acc.ReductionRecipeOp, rname: str) -> None:
    """Init takes/yields the recipe type; combiner takes two and yields one of it."""
    t = recipe.var_type
    where = f"acc.reduction.recipe @{rname} (type {t})"
    for region, what, nargs in ((recipe.init_region, "init", 1), (recipe.combiner_region,
                                                                   "combiner", 2)):
        if not region.blocks:
            raise err(f"{where}: empty {what} region")
        args = region.block.args
        if len(args) < nargs or any(a.type != t for a in args[:nargs]):
            got = ", ".join(str(a.type) for a in args)
            raise err(f"{where}: {what} region arguments ({got}) do not match the recipe type")
        for y in region.walk():
            if isinstance(y, acc.YieldOp) and [a.type for a in y.arguments] != [t]:
                got = ", ".join(str(a.type) for a in y.arguments)
                raise err(f"{where}: {what} region yields ({got}), expected ({t})")


class ReductionBuiltins:
    """Places one kernel's ``oacc`` reduction builtins: around each partitioned loop, per
    level (``enter_loop``/``exit_loop``), and around the whole body for a reduction on the
    construct (``null_gang_loop``); numbers the loops with builtins (lid)."""

    def __init__(self) -> None:
        self.lid = 0

    def _is_copy(self, kernel: func.FuncOp, v: SSAValue) -> bool:
        """A copy RESULT object: host memory, i.e. a kernel argument."""
        return isinstance(v, BlockArgument) and v.owner is kernel.body.block

    def _local(self, kernel: func.FuncOp, red: Red) -> SSAValue:
        """The LOCAL object of a reduction: private to each work-item."""
        a = memref.AllocaOp.get(red.type, shape=())
        Rewriter.insert_op(a, InsertPoint.at_start(kernel.body.block))
        hint = "".join(c if c.isalnum() or c == "_" else "_" for c in red.name.lstrip("%"))
        a.memref.name_hint = f"{hint}_local" if hint and not hint[0].isdigit() else "local"
        return a.memref

    def null_gang_loop(self, kernel: func.FuncOp, reds: list[Red], kres: list[SSAValue],
                       first: Operation) -> None:
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
        items = [_Item(rid, red, res, [Level.GANG])
                 for rid, (red, res) in enumerate(zip(reds, kres, strict=True))]
        lid = self.lid
        self.lid += 1
        b = Builder(InsertPoint.before(first))
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
        e = Builder(InsertPoint.before(ret))
        for it in items:
            it.val = e.v(memref.LoadOp.get(it.local, []))
        self._close(e, Level.GANG, items, lid, join=False)

    def _open(self, b: Builder, lvl: Level, items: list[_Item], lid: int, fork: bool) -> None:
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

    def _close(self, b: Builder, lvl: Level, items: list[_Item], lid: int, join: bool) -> None:
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

    def enter_loop(self, kernel: func.FuncOp, levels: list[Level], reds: list[Red],
                   results: list[SSAValue], body_region: Region, b: Builder,
                   ) -> tuple[list[_Item], int]:
        """Before a loop partitioned over ``levels`` (at ``b``): per level from the outermost,
        setup, fork, init; uses of a RESULT in ``body_region`` become its LOCAL object."""
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
        return items, lid

    def exit_loop(self, kernel: func.FuncOp, levels: list[Level], items: list[_Item], lid: int,
                  b: Builder) -> None:
        """After the loop: per level from the innermost, lock, fini, unlock, join, teardown."""
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


def _top_op(o: Operation, block: Block) -> Operation | None:
    while o.parent_block() is not block:
        p = o.parent_op()
        if p is None:
            return None
        o = p
    return o
