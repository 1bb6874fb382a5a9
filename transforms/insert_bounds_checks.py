"""insert-bounds-checks: the checking mode's run-time checks in kernel and host code.

Run by the checking mode (``xmux.compile(..., checks=True)``, ``XMUX_CHECKS=1``,
``xmux-run --checks``) right after ``prepare-barriers``, on every entry point and every
function the entry points call:

* every ``memref.load`` / ``memref.store`` / ``memref.atomic_rmw`` runs only when each index
  is below its dimension's size (an unsigned compare, so a negative index fails too);
  otherwise the access is skipped (a load gives 0) and the failure is reported;
* every integer ``divsi``/``divui``/``remsi``/``remui``/``ceildivsi``/``floordivsi``/
  ``ceildivui`` whose divisor is 0, or (signed) that divides INT_MIN by -1, is reported (the
  lowering's guarded divisor gives it a value, so nothing traps).

A failure calls ``xmux_check_failed(message, rank, i0, i1, i2, s0, s1, s2, lid0, lid1,
lid2, group0, group1, group2)`` (``runtime/checks.py``): the message is a constant string
naming the kernel, the function and the op (``llvm.mlir.global`` + ``addressof``), then the
indices and sizes of the access (-1 where the rank ends; for a division the dividend and
divisor), the work-item's local id and its group id. The runtime keeps the first failure of
a launch and the launch call raises it as a ``LaunchError``; work-items go on, so the
launch ends normally (without the faulty access).

Host code (defined functions the kernels do not reach: xmux-run's @main and its callees) is
checked the same way, but a failure calls ``xmux_host_check_failed(message, rank, i0, i1, i2,
s0, s1, s2)``: no work-item to name, and the runtime stops the host function there
(``runtime/host_symbols.py``) rather than going on, since a wild host index is often a
wild loop bound too (a loop of 2^32 failing iterations).

Local-memory arguments are checked like any memref (their sizes come from the
``LocalMemory`` byte count), so a kernel indexing past a too-small ``LocalMemory`` is caught.

Before::

    memref.store %v, %a[%i] : memref<?xf32>

After::

    %d = memref.dim %a, %c0 : memref<?xf32>
    %ok = arith.cmpi ult, %i, %d : index
    scf.if %ok {
      memref.store %v, %a[%i] : memref<?xf32>
    } else {
      %msg = llvm.mlir.addressof @"xmux.check.0" : !llvm.ptr
      ... local and group ids ...
      func.call @xmux_check_failed(%msg, %c1, %i, ...) : (...) -> ()
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import attrs, mux
from xmux.transforms.add_kernel_wrapper import PTR
from xmux.transforms.local_memory_facts import ACCESSES, local_id_offset, origin
from xmux.transforms.replace_local_module_scope_variables import is_local_memref

CHECK_FN = "xmux_check_failed"
HOST_CHECK_FN = "xmux_host_check_failed"
_SIGNED_DIVS = (arith.DivSIOp, arith.RemSIOp, arith.CeilDivSIOp, arith.FloorDivSIOp)
_DIVS = (*_SIGNED_DIVS, arith.DivUIOp, arith.RemUIOp, arith.CeilDivUIOp)


class Sites:
    """The failure messages of a module: one constant string global each."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module
        self.count = 0
        self.taken = {
            o.sym_name.data for o in module.ops if isinstance(o, llvm.GlobalOp)
        }

    def message(self, text: str) -> str:
        n = len(self.taken)
        while f"xmux.check.{n}" in self.taken:
            n += 1
        name = f"xmux.check.{n}"
        self.taken.add(name)
        self.count += 1
        data = text + "\0"
        self.module.body.block.add_op(
            llvm.GlobalOp(
                llvm.LLVMArrayType(len(data.encode()), IntegerType(8)),
                name,
                "internal",
                constant=True,
                value=StringAttr(data),
            )
        )
        return name


def declare_check_fn(module: ModuleOp, name: str = CHECK_FN, count: int = 13) -> None:
    """``func.func private @xmux_check_failed(...)`` (or the host one), once."""
    if not any(isinstance(g, func.FuncOp) and g.sym_name.data == name for g in module.ops):
        module.body.block.add_op(func.FuncOp.external(name, [PTR] + [i64] * count, []))


def _index(b: list[Operation], v: SSAValue) -> SSAValue:
    """``v`` as i64 for the report."""
    if isinstance(v.type, IndexType):
        op: Operation = arith.IndexCastOp(v, i64)
    elif isinstance(v.type, IntegerType) and v.type.width.data < 64:
        op = arith.ExtSIOp(v, i64)
    elif isinstance(v.type, IntegerType) and v.type.width.data > 64:
        op = arith.TruncIOp(v, i64)
    else:
        return v
    b.append(op)
    return op.results[0]


def _const(b: list[Operation], value: int, t=i64) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(value, t))
    b.append(op)
    return op.result


def report_ops(
    site: str, values: list[SSAValue], sizes: list[SSAValue], host: bool = False
) -> list[Operation]:
    """The ops of the failure branch: the call with the site's message and the ids (host
    code: ``xmux_host_check_failed``, without ids)."""
    b: list[Operation] = []
    msg = llvm.AddressOfOp(site, PTR)
    b.append(msg)
    rank = _const(b, len(values))
    vals = [_index(b, v) for v in values[:3]] + [_const(b, -1)] * (3 - min(3, len(values)))
    szs = [_index(b, v) for v in sizes[:3]] + [_const(b, -1)] * (3 - min(3, len(sizes)))
    if host:
        b.append(func.CallOp(HOST_CHECK_FN, [msg.result, rank, *vals, *szs], []))
        return b
    ids: list[SSAValue] = []
    for query in (mux.GetLocalIdOp, mux.GetGroupIdOp):
        for d in range(3):
            q = query(d, IndexType())
            b.append(q)
            ids.append(_index(b, q.results[0]))
    b.append(func.CallOp(CHECK_FN, [msg.result, rank, *vals, *szs, *ids], []))
    return b


def _guard(op: Operation, ok: SSAValue, report: list[Operation]) -> None:
    """Run ``op`` under ``scf.if %ok``; report (and give 0) otherwise."""
    results = [r.type for r in op.results]
    then_block = Block()
    else_block = Block()
    Rewriter.insert_op(scf.IfOp(ok, results, Region(then_block), Region(else_block)),
                       InsertPoint.before(op))
    new_if = op.prev_op
    assert isinstance(new_if, scf.IfOp)
    zeros: list[Operation] = []
    for t in results:
        if isinstance(t, IntegerType | IndexType):
            zeros.append(arith.ConstantOp(IntegerAttr(0, t)))
        else:
            zeros.append(arith.ConstantOp(FloatAttr(0.0, t)))  # type: ignore[arg-type]
    op.detach()
    then_block.add_ops([op, scf.YieldOp(*op.results)])
    else_block.add_ops([*report, *zeros, scf.YieldOp(*[z.results[0] for z in zeros])])
    for old, new in zip(op.results, new_if.results, strict=True):
        for use in list(old.uses):
            if use.operation is not then_block.last_op:
                use.operation.operands[use.index] = new


def _check_access(op: Operation, where: str, sites: Sites, host: bool = False) -> None:
    target = op.memref  # type: ignore[attr-defined]
    t = target.type
    assert isinstance(t, MemRefType)
    indices = list(op.indices)  # type: ignore[attr-defined]
    if not indices:
        return
    pre: list[Operation] = []
    sizes: list[SSAValue] = []
    conds: list[SSAValue] = []
    for d, idx in enumerate(indices):
        if t.get_shape()[d] >= 0:
            size = _const(pre, t.get_shape()[d], IndexType())
        else:
            dim = memref.DimOp(target, _const(pre, d, IndexType()))
            pre.append(dim)
            size = dim.result
        sizes.append(size)
        cmp = arith.CmpiOp(idx, size, "ult")
        pre.append(cmp)
        conds.append(cmp.result)
    ok = conds[0]
    for c in conds[1:]:
        both = arith.AndIOp(ok, c)
        pre.append(both)
        ok = both.result
    Rewriter.insert_op(pre, InsertPoint.before(op))
    site = sites.message(
        # origin() speaks of kernel memory (private/local/argument): not for host code
        f"{where}: '{op.name}' out of bounds of {t}"
        + ("" if host else f"{origin(target)}{_local_cause(op)}")
    )
    _guard(op, ok, report_ops(site, indices, sizes, host))



def _local_cause(op: Operation) -> str:
    """For a static work-group local array indexed by the local id: which local size it was
    written for (a launch with a larger one overflows it), the likely cause of the report."""
    target = op.memref  # type: ignore[attr-defined]
    t = target.type
    if not (isinstance(t, MemRefType) and is_local_memref(t)):
        return ""
    causes = []
    for k, index in enumerate(op.indices):  # type: ignore[attr-defined]
        found = local_id_offset(index)
        size = t.get_shape()[k]
        if found is not None and size >= 0:
            d, c = found
            causes.append(f"a local size above {size - c} in dimension {d}")
    if not causes:
        return ""
    return (f"; it is indexed by the local id, so {' or '.join(causes)} overflows it "
            "(is the launch's local size larger than the kernel's local memory was written "
            "for?)")


def _check_division(op: Operation, where: str, sites: Sites, host: bool = False) -> None:
    a, b = op.operands[0], op.operands[1]
    t = b.type
    if not isinstance(t, IntegerType | IndexType):
        return  # vectors: the guarded divisor keeps them from trapping
    pre: list[Operation] = []
    zero = _const(pre, 0, t)
    bad = arith.CmpiOp(b, zero, "eq")
    pre.append(bad)
    cond = bad.result
    if isinstance(op, _SIGNED_DIVS):
        width = 64 if isinstance(t, IndexType) else t.width.data
        low = _const(pre, -(1 << (width - 1)), t)
        minus_one = _const(pre, -1, t)
        a_low = arith.CmpiOp(a, low, "eq")
        b_m1 = arith.CmpiOp(b, minus_one, "eq")
        over = arith.AndIOp(a_low, b_m1)
        either = arith.OrIOp(cond, over.result)
        pre += [a_low, b_m1, over, either]
        cond = either.result
    Rewriter.insert_op(pre, InsertPoint.before(op))
    site = sites.message(
        f"{where}: '{op.name}' by zero or INT_MIN / -1 (dividend, divisor)"
    )
    then_block = Block()
    then_block.add_ops([*report_ops(site, [a, b], [], host), scf.YieldOp()])
    Rewriter.insert_op(scf.IfOp(cond, [], Region(then_block)), InsertPoint.before(op))


def reached(module: ModuleOp) -> list[func.FuncOp]:
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    seen: dict[str, func.FuncOp] = {}
    stack = list(attrs.entry_points(module))
    while stack:
        f = stack.pop()
        if f.sym_name.data in seen or not f.body.blocks:
            continue
        seen[f.sym_name.data] = f
        for c in f.walk():
            if isinstance(c, func.CallOp) and c.callee.string_value() in funcs:
                stack.append(funcs[c.callee.string_value()])
    return list(seen.values())


@dataclass(frozen=True)
class InsertBoundsChecks(ModulePass):
    """Insert the checking mode's bounds and division checks into kernel and host code."""

    name = "insert-bounds-checks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = reached(op)
        kernel_side = {f.sym_name.data for f in functions}
        host = [f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks
                and f.sym_name.data not in kernel_side]
        sites = Sites(op)
        for f in functions:
            kernel = f.sym_name.data
            where = f"kernel @{kernel}" if attrs.is_entry_point(f) else f"@{kernel}"
            for inner in list(f.walk()):
                if isinstance(inner, ACCESSES):
                    _check_access(inner, where, sites)
                elif isinstance(inner, _DIVS):
                    _check_division(inner, where, sites)
        kernel_sites = sites.count
        for f in host:
            where = f"host function @{f.sym_name.data}"
            for inner in list(f.walk()):
                if isinstance(inner, ACCESSES):
                    _check_access(inner, where, sites, host=True)
                elif isinstance(inner, _DIVS):
                    _check_division(inner, where, sites, host=True)
        if kernel_sites:
            declare_check_fn(op)
        if sites.count > kernel_sites:
            declare_check_fn(op, HOST_CHECK_FN, 7)
