"""What the passes know of a kernel's memory accesses: where the memory comes from, and the
local sizes its static local arrays were written for.

Not a pass: the analyses insert-bounds-checks (its messages name the argument or global an
access is out of bounds of, and the likely local-size cause) and record-kernel-abi
(``mux.local_size_limits``) share.

``local_size_limits`` (issue 36, item 3): a kernel whose every work-item stores to
``tile[lid(0) + c]`` of a ``memref<16xf32, 3>`` was written for local sizes up to 16 - c in
dimension 0; a launch with a larger one writes outside the tile in every group (undefined:
wrong results, or a crash on the worker's stack), so the launcher refuses it before it runs,
naming the array::

    "memref.global"() <{sym_name = "tile", type = memref<16x16xf32, 3>, ...}> : () -> ()
    func.func @k(...) attributes {mux.kernel = "entry_point"} {
      %lx = mux.get_local_id 0 : index
      %ly = mux.get_local_id 1 : index
      %t = memref.get_global @tile : memref<16x16xf32, 3>
      memref.store %v, %t[%ly, %lx] : memref<16x16xf32, 3>
    // ==> mux.local_size_limits = [{dim = 0, max = 16, memory = "global @tile"},
    //                              {dim = 1, max = 16, memory = "global @tile"}]

Only accesses every work-item makes count (the kernel's entry block, or loops there with
constant bounds that run): ``if (lid < 16) tile[lid] = ...`` is legal at any local size.
"""

from __future__ import annotations

from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Block, Operation, SSAValue

from xmux.dialects import attrs, mux
from xmux.transforms.replace_local_module_scope_variables import is_local_memref

__all__ = ["ACCESSES", "local_id_offset", "local_size_limits", "origin"]

ACCESSES = (memref.LoadOp, memref.StoreOp, memref.AtomicRMWOp)
#: ops whose result is a view of their first operand's memory
_VIEWS = (
    memref.SubviewOp, memref.CastOp, memref.ReinterpretCastOp, memref.CollapseShapeOp,
    memref.ExpandShapeOp, memref.MemorySpaceCastOp,
)


def local_id_offset(index: SSAValue) -> tuple[int, int] | None:
    """(d, c) when ``index`` is ``get_local_id d`` plus a constant ``c``, else None."""
    op = index.owner
    if isinstance(op, mux.GetLocalIdOp):
        return op.dim.value.data, 0
    if isinstance(op, arith.AddiOp):
        for a, b in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            inner = local_id_offset(a)
            if inner is not None and isinstance(b.owner, arith.ConstantOp):
                value = b.owner.value
                if isinstance(value, IntegerAttr):
                    return inner[0], inner[1] + value.value.data
    return None




def _always_runs(op: Operation, f: func.FuncOp) -> bool:
    """Whether every work-item that runs ``f`` runs ``op``: it sits in ``f``'s entry block,
    or in the bodies of ``scf.for`` loops there with constant bounds that run at least once."""
    while True:
        block = op.parent_block()
        if block is None:
            return False
        if block is f.body.blocks.first:
            return True
        loop = block.parent_op()
        if not isinstance(loop, scf.ForOp) or not _runs_once(loop):
            return False
        op = loop


def _runs_once(loop: scf.ForOp) -> bool:
    bounds = []
    for v in (loop.lb, loop.ub):
        c = v.owner
        if not (isinstance(c, arith.ConstantOp) and isinstance(c.value, IntegerAttr)):
            return False
        bounds.append(c.value.value.data)
    return bounds[0] < bounds[1]


def local_size_limits(f: func.FuncOp) -> list[tuple[int, int, str]]:
    """The local sizes ``f``'s static local arrays were written for: for an access every
    work-item makes (``_always_runs``) at ``lid(d) + c`` of a dimension of static size N, the
    local size in ``d`` can be at most N - c (``mux.local_size_limits``, checked at launch)."""
    most: dict[int, tuple[int, str]] = {}
    for op in f.walk():
        if not isinstance(op, ACCESSES):
            continue
        t = op.memref.type
        if not (isinstance(t, MemRefType) and is_local_memref(t)) or not _always_runs(op, f):
            continue
        for k, index in enumerate(op.indices):
            found = local_id_offset(index)
            size = t.get_shape()[k]
            if found is None or size < 0 or found[1] < 0:
                continue
            d, c = found
            if d not in most or size - c < most[d][0]:
                what = origin(op.memref).strip(" ()") or f"local memory {t}"
                most[d] = (size - c, what)
    return [(d, m, w) for d, (m, w) in sorted(most.items())]


def origin(value: SSAValue) -> str:
    """Where the accessed memory comes from, as the interpreter names it: `` (argument 1
    ('y'))``, `` (global @tile)``, `` (a private array)``; empty when unknown."""
    while isinstance(value.owner, _VIEWS):
        value = value.owner.operands[0]
    owner = value.owner
    if isinstance(owner, Block):
        fn = owner.parent_op()
        if isinstance(fn, func.FuncOp) and owner is fn.body.blocks.first:
            index = value.index  # type: ignore[attr-defined]
            name = f" ('{value.name_hint}')" if value.name_hint else ""
            of = "" if attrs.is_entry_point(fn) else f" of @{fn.sym_name.data}"
            return f" (argument {index}{name}{of})"
        return ""
    if isinstance(owner, memref.GetGlobalOp):
        return f" (global @{owner.name_.root_reference.data})"
    if isinstance(owner, (memref.AllocaOp, memref.AllocOp)):
        return " (a private array)"
    return ""
