"""Reductions of ``convert-acc-to-oacc``: the ``acc.reduction`` clauses and their recipes
checked, and the ``oacc`` reduction builtins placed around partitioned loops."""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import acc, arith, func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from xmux.dialects import oacc
from xmux.dialects.oacc import Level, ReductionKind
from xmux.transforms.openacc.acc_common import Builder, err, unsupported, var_name
from xmux.transforms.openacc.recipe_form import is_standard, scalar_recipe

#: Array reductions are expanded element by element: at most this many elements.
MAX_ARRAY_ELEMENTS = 1024

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
    type: Attribute  # the element type
    name: str
    recipe: str
    #: the oacc.reduction_recipe giving identity and combine (None: the kind's standard ones)
    custom: str | None = None
    #: the array's shape (element-wise reduction); () for a scalar
    shape: tuple[int, ...] = ()

    def elements(self) -> list[list[int]]:
        """The element indices, row-major ([[]] for a scalar)."""
        out: list[list[int]] = [[]]
        for n in self.shape:
            out = [i + [j] for i in out for j in range(n)]
        return out


@dataclass
class _Item:
    """One reduction of a loop being lowered (one element of an array reduction): its
    builtins' levels and current value."""

    rid: int
    red: Red
    res: SSAValue  # the RESULT object
    levels: list[Level]  # levels with builtins (outermost first)
    dummy: bool = False  # surrounded by a dummy gang reduction
    local: SSAValue | None = None  # the LOCAL object
    val: SSAValue | None = None  # the value flowing through the builtins
    idx: list[int] | None = None  # the element of an array reduction
    res_elem: SSAValue | None = None  # a rank-0 view of that element of RESULT


def reduction_info(red: SSAValue, module_recipes: dict[str, Operation], where: str) -> Red:
    """Check the ``acc.reduction`` producing ``red`` and its recipe; the clause's kind/type."""
    op = red.owner
    if not isinstance(op, acc.ReductionOp):
        raise err(f"{where}: reduction operand is not produced by acc.reduction")
    name = var_name(red)
    vt = op.var.type
    if not isinstance(vt, MemRefType) or any(d < 0 for d in vt.get_shape()):
        raise unsupported(
            f"{where}: reduction of '{name}' of type {vt} (only scalars, rank-0 memrefs, and "
            "statically shaped arrays can be reduced)"
        )
    shape = tuple(vt.get_shape())
    if math.prod(shape) > MAX_ARRAY_ELEMENTS:
        raise unsupported(f"{where}: reduction of '{name}' of type {vt}: an array reduction of "
                          f"more than {MAX_ARRAY_ELEMENTS} elements")
    elem = vt.element_type
    if op.recipe is None:
        raise err(f"{where}: reduction of variable '{name}' has no recipe (recipe(@...))")
    rname = op.recipe.string_value()
    recipe = module_recipes.get(rname)
    if not isinstance(recipe, acc.ReductionRecipeOp):
        raise err(f"{where}: reduction of '{name}': no acc.reduction.recipe @{rname}")
    rt = recipe.var_type
    if not _recipe_type_fits(rt, vt):
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
    sr = scalar_recipe(recipe, rname, elem)
    custom = None
    if not is_standard(kind, sr):
        custom = _module_recipe(recipe, rname, sr.elem, sr.init, sr.combiner)
    return Red(kind, elem, name, rname, custom, shape)


def _recipe_type_fits(rt: Attribute, vt: MemRefType) -> bool:
    """The recipe's type is the variable's (``memref<...>``), its element type (scalars), or
    an array of the same element type and rank whose sizes may be dynamic."""
    if rt == vt or (vt.get_shape() == () and rt == vt.element_type):
        return True
    return (isinstance(rt, MemRefType) and rt.element_type == vt.element_type
            and len(rt.get_shape()) == len(vt.get_shape())
            and all(r < 0 or r == v for r, v in zip(rt.get_shape(), vt.get_shape(),
                                                    strict=True)))


def _module_recipe(recipe: acc.ReductionRecipeOp, rname: str, elem: Attribute, init: Region,
                   combiner: Region) -> str:
    """The ``oacc.reduction_recipe`` @rname of the module (created once), next to ``recipe``
    (which the pass erases at its end)."""
    module = recipe.parent_op()
    assert isinstance(module, ModuleOp)
    exists = any(isinstance(o, oacc.ReductionRecipeOp) and o.sym_name.data == rname
                 for o in module.ops)
    if not exists:
        new = oacc.ReductionRecipeOp(rname, elem, init, combiner)
        block = recipe.parent_block()
        assert block is not None
        block.insert_op_before(new, recipe)
    return rname


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
        a = memref.AllocaOp.get(red.type, shape=red.shape)
        Rewriter.insert_op(a, InsertPoint.at_start(kernel.body.block))
        hint = "".join(c if c.isalnum() or c == "_" else "_" for c in red.name.lstrip("%"))
        a.memref.name_hint = f"{hint}_local" if hint and not hint[0].isdigit() else "local"
        return a.memref

    def _items(self, reds: list[Red], results: list[SSAValue], levels: list[Level],
               kernel: func.FuncOp | None) -> list[_Item]:
        """One item per reduction (per element of an array reduction), rids in order; with
        ``kernel``, only the ones with builtins at some level (see ``enter_loop``)."""
        items: list[_Item] = []
        rid = 0
        for red, res in zip(reds, results, strict=True):
            lv, dummy = levels, False
            if kernel is not None:
                copy = self._is_copy(kernel, res)
                # a gang reduction into a private RESULT (the parallel's LOCAL, a gang-private
                # variable) is a NOP: no gang builtins
                lv = [x for x in levels if copy or x != Level.GANG]
                # worker/vector reductions of a copy object: a dummy gang level around them
                dummy = copy and Level.GANG not in levels
            if not lv:
                continue
            for idx in red.elements():
                items.append(_Item(rid, red, res, lv, dummy, idx=idx))
                rid += 1
        return items

    def _load_results(self, kernel: func.FuncOp, items: list[_Item], b: Builder) -> None:
        """A LOCAL object per reduction; each item's value starts as its RESULT element."""
        locals_: dict[tuple[int, int], SSAValue] = {}
        for it in items:
            key = (id(it.red), id(it.res))
            if key not in locals_:
                locals_[key] = self._local(kernel, it.red)
            it.local = locals_[key]
            it.val = b.v(memref.LoadOp.get(it.res, self._indices(b, it)))
            it.res_elem = it.res
            if it.red.shape:  # a rank-0 view of the element: the gang builtins' RES_PTR
                t = it.res.type
                assert isinstance(t, MemRefType)
                it.res_elem = b.v(memref.SubviewOp.from_static_parameters(
                    it.res, t, it.idx or [], [1] * len(t.get_shape()), [1] * len(t.get_shape()),
                    reduce_rank=True))

    def _indices(self, b: Builder, it: _Item) -> list[SSAValue]:
        return [b.const(i) for i in it.idx or []]

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
        items = self._items(reds, kres, [Level.GANG], None)
        lid = self.lid
        self.lid += 1
        b = Builder(InsertPoint.before(first))
        self._load_results(kernel, items, b)
        self._open(b, Level.GANG, items, lid, fork=False)
        for it in items:
            assert it.local is not None and it.val is not None
            b.op(memref.StoreOp.get(it.val, it.local, self._indices(b, it)))
            # every use of the variable in the region is now the LOCAL object
            it.res.replace_uses_with_if(
                it.local, lambda u: _top_op(u.operation, block) in body_ops
            )
        e = Builder(InsertPoint.before(ret))
        for it in items:
            assert it.local is not None
            it.val = e.v(memref.LoadOp.get(it.local, self._indices(e, it)))
        self._close(e, Level.GANG, items, lid, join=False)

    def _builtin(self, cls: type[oacc.ReductionBuiltinOp], it: _Item, lvl: Level,
                 lid: int) -> oacc.ReductionBuiltinOp:
        assert it.val is not None
        res = it.res_elem if lvl == Level.GANG else None
        return cls(it.val, lvl, it.red.kind, lid, it.rid, res, it.red.custom)

    def _open(self, b: Builder, lvl: Level, items: list[_Item], lid: int, fork: bool) -> None:
        """Before a partitioned region at ``lvl``: setup (each reduction), fork, init."""
        for it in items:
            it.val = b.v(self._builtin(oacc.ReductionSetupOp, it, lvl, lid))
        if fork:
            b.op(oacc.ForkOp(lvl))
        for it in items:
            it.val = b.v(self._builtin(oacc.ReductionInitOp, it, lvl, lid))

    def _close(self, b: Builder, lvl: Level, items: list[_Item], lid: int, join: bool) -> None:
        """After it: lock, fini (each reduction), unlock (no lock at vector level), join,
        teardown."""
        lock = bool(items) and lvl != Level.VECTOR
        if lock:
            b.op(oacc.LockOp(lvl, lid))
        for it in items:
            it.val = b.v(self._builtin(oacc.ReductionFiniOp, it, lvl, lid))
        if lock:
            b.op(oacc.UnlockOp(lvl, lid))
        if join:
            b.op(oacc.JoinOp(lvl))
        for it in items:
            it.val = b.v(self._builtin(oacc.ReductionTeardownOp, it, lvl, lid))

    def enter_loop(self, kernel: func.FuncOp, levels: list[Level], reds: list[Red],
                   results: list[SSAValue], body_region: Region, b: Builder,
                   ) -> tuple[list[_Item], int]:
        """Before a loop partitioned over ``levels`` (at ``b``): per level from the outermost,
        setup, fork, init; uses of a RESULT in ``body_region`` become its LOCAL object. (A
        sequential loop updates the RESULT directly: no builtins.)"""
        items = self._items(reds, results, levels, kernel) if levels else []
        lid = -1
        if items:
            lid = self.lid
            self.lid += 1
        self._load_results(kernel, items, b)
        self._open(b, Level.GANG, [it for it in items if it.dummy], lid, fork=False)
        for lvl in levels:
            self._open(b, lvl, [it for it in items if lvl in it.levels], lid, fork=True)
        for it in items:
            assert it.local is not None and it.val is not None
            b.op(memref.StoreOp.get(it.val, it.local, self._indices(b, it)))
            it.res.replace_uses_with_if(
                it.local, lambda u: body_region.is_ancestor(u.operation)
            )
        return items, lid

    def exit_loop(self, kernel: func.FuncOp, levels: list[Level], items: list[_Item], lid: int,
                  b: Builder) -> None:
        """After the loop: per level from the innermost, lock, fini, unlock, join, teardown."""
        for it in items:
            assert it.local is not None
            it.val = b.v(memref.LoadOp.get(it.local, self._indices(b, it)))
        for lvl in reversed(levels):
            self._close(b, lvl, [it for it in items if lvl in it.levels], lid, join=True)
        self._close(b, Level.GANG, [it for it in items if it.dummy], lid, join=False)
        for it in items:
            if not self._is_copy(kernel, it.res):
                assert it.val is not None  # a private RESULT's new value
                b.op(memref.StoreOp.get(it.val, it.res, self._indices(b, it)))


def _top_op(o: Operation, block: Block) -> Operation | None:
    while o.parent_block() is not block:
        p = o.parent_op()
        if p is None:
            return None
        o = p
    return o
