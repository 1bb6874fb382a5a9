"""The run-time half of the storage check (``work-item-loops{check-plan=true}``).

``check.py`` proves statically that every per-work-item array is written before it is read
on every path; this module makes the compiled kernel check it too, as a checking-mode
guard against anything the static walk does not model. Each per-work-item array read and
written by ``memref.load``/``store`` gets a shadow array of one byte per slot, zeroed when
the work-group function starts (once per group); every store sets its slot's byte, every
load first tests it and, when it is 0, reports through the checking mode's channel
(``xmux_check_failed``: ``runtime/checks.py``) with a message naming the kernel and the
array, and the reading work-item and group. Expects: the kernel right after work-item-loops
emitted it.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, ModuleOp, i8
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs
from xmux.transforms.insert_bounds_checks import Sites, declare_check_fn, report_ops
from xmux.transforms.wi_loops.check import per_work_item_arrays


def add_shadow_checks(kernel: func.FuncOp) -> None:
    arrays = per_work_item_arrays(kernel)
    module = kernel.parent_op()
    if not arrays or not isinstance(module, ModuleOp):
        return
    sites = Sites(module)
    name = kernel.sym_name.data
    for n, arr in enumerate(arrays):
        alloca = arr.owner
        assert isinstance(alloca, memref.AllocaOp)
        size = alloca.dynamic_sizes[0]
        shadow = memref.AllocaOp.get(
            i8, alignment=64, shape=[DYNAMIC_INDEX], dynamic_sizes=[size]
        )
        attrs.mark_per_work_item(shadow)
        _zero_after(shadow, size, InsertPoint.after(alloca))
        site = sites.message(
            f"kernel @{name}: per-work-item array #{n} read before it was written "
            "(work-item-loops storage plan)"
        )
        for use in list(arr.uses):
            op = use.operation
            if isinstance(op, memref.StoreOp):
                one = arith.ConstantOp(IntegerAttr(1, i8))
                mark = memref.StoreOp.get(one.result, shadow.memref, list(op.indices))
                Rewriter.insert_op([one, mark], InsertPoint.after(op))
            elif isinstance(op, memref.LoadOp):
                _check_before(op, shadow.memref, site)
    if sites.count:
        declare_check_fn(module)


def _zero_after(shadow: memref.AllocaOp, size: SSAValue, ip: InsertPoint) -> None:
    """The shadow alloca at ``ip`` and a loop storing 0 in each of its ``size`` slots."""
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    byte = arith.ConstantOp(IntegerAttr(0, i8))
    body = Block(arg_types=[IndexType()])
    body.add_ops([memref.StoreOp.get(byte.result, shadow.memref, [body.args[0]]), scf.YieldOp()])
    loop = scf.ForOp(zero.result, size, one.result, [], body)
    Rewriter.insert_op([shadow, zero, one, byte, loop], ip)


def _check_before(load: memref.LoadOp, shadow: SSAValue, site: str) -> None:
    flag = memref.LoadOp.get(shadow, list(load.indices))
    zero = arith.ConstantOp(IntegerAttr(0, i8))
    unwritten = arith.CmpiOp(flag.res, zero.result, "eq")
    then_block = Block()
    then_block.add_ops([*report_ops(site, list(load.indices), []), scf.YieldOp()])
    Rewriter.insert_op(
        [flag, zero, unwritten, scf.IfOp(unwritten.result, [], Region(then_block))],
        InsertPoint.before(load),
    )
