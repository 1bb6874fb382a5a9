"""Atomics of ``convert-acc-to-oacc``: ``acc.atomic.read`` / ``write`` / ``update`` /
``capture`` lowered to the target's atomics (``llvm.atomicrmw`` / ``llvm.cmpxchg`` on the
element's address), in compute regions and host code alike.

- read ``v = x``: ``atomicrmw or x, 0`` (the value, as an integer of its width) then a plain
  store to ``v``;
- write ``x = e``: ``atomicrmw xchg``;
- update: one ``atomicrmw`` when the region is one operation LLVM has on ``x`` and a value from
  outside (``x + e``, ``e + x``, ``x - e``, min/max signed and unsigned, and/or/xor, fadd,
  fsub, maxnumf/minnumf), otherwise a ``cmpxchg`` loop around the region's ops;
- capture: ``read; update`` stores the old value, ``update; read`` the new one,
  ``read; write`` the exchanged value;
- ``if(cond)``: all of it under ``scf.if``.

``x`` and ``v`` are rank-0 memrefs of any layout (``memref.subview`` of an array element, as
upstream writes atomics on array elements); i1 values are updated as i8."""

from __future__ import annotations

from xdsl.dialects import acc, arith, llvm, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    i1,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import llvmx
from xmux.transforms.lower_work_group_collectives import Ops
from xmux.transforms.openacc.acc_common import err, unsupported

_ATOMICS = (acc.AtomicReadOp, acc.AtomicWriteOp, acc.AtomicUpdateOp, acc.AtomicCaptureOp)

#: region op -> atomicrmw operation; "commutes": either operand may be x
_RMW: dict[type[Operation], tuple[str, bool]] = {
    arith.AddiOp: ("add", True), arith.SubiOp: ("sub", False), arith.AndIOp: ("and", True),
    arith.OrIOp: ("or", True), arith.XOrIOp: ("xor", True), arith.MaxSIOp: ("max", True),
    arith.MinSIOp: ("min", True), arith.MaxUIOp: ("umax", True), arith.MinUIOp: ("umin", True),
    arith.AddfOp: ("fadd", True), arith.SubfOp: ("fsub", False),
    arith.MaxnumfOp: ("fmax", True), arith.MinnumfOp: ("fmin", True),
}


def _where(op: Operation) -> str:
    fn = op.parent_op()
    while fn is not None and not hasattr(fn, "sym_name"):
        fn = fn.parent_op()
    name = f" in @{fn.sym_name.data}" if fn is not None else ""  # type: ignore[attr-defined]
    return f"'{op.name}'{name}"


def _bits(t: Attribute, where: str) -> IntegerType:
    """The integer type the value travels as in atomics."""
    if t == i1:
        return i8
    if isinstance(t, IntegerType) and t.width.data in (8, 16, 32, 64):
        return t
    if isinstance(t, IndexType):
        return i64
    if isinstance(t, AnyFloat) and t.bitwidth in (16, 32, 64):
        return IntegerType(t.bitwidth)
    raise unsupported(f"{where}: an atomic on {t}")


def _to_bits(b: Ops, v: SSAValue, it: IntegerType) -> SSAValue:
    t = v.type
    if t == it:
        return v
    if t == i1:
        return b(arith.ExtUIOp(v, it))
    if isinstance(t, IndexType):
        return b(arith.IndexCastOp(v, it))
    return b(arith.BitcastOp(v, it))


def _from_bits(b: Ops, v: SSAValue, t: Attribute) -> SSAValue:
    if v.type == t:
        return v
    if t == i1:
        return b(arith.TruncIOp(v, i1))
    if isinstance(t, IndexType):
        return b(arith.IndexCastOp(v, t))
    return b(arith.BitcastOp(v, t))


class _Lowerer:
    def __init__(self, op: Operation) -> None:
        self.where = _where(op)

    def pointer(self, b: Ops, ref: SSAValue) -> tuple[SSAValue, Attribute]:
        """The address of the single element of a rank-0 memref (any layout)."""
        t = ref.type
        if not isinstance(t, MemRefType) or t.get_shape() != ():
            raise unsupported(f"{self.where}: an atomic on {t} (a rank-0 memref is needed: "
                              "take the element with memref.subview)")
        meta = b(memref.ExtractStridedMetaDataOp(ref)).owner
        offset = meta.offset  # type: ignore[attr-defined]
        base = b(memref.ExtractAlignedPointerAsIndexOp.get(ref))
        ptr = b(llvm.IntToPtrOp(b(arith.IndexCastOp(base, i64))))
        elem = t.element_type
        it = _bits(elem, self.where)
        off = b(arith.IndexCastOp(offset, i64))
        ptr = b(llvm.GEPOp(ptr, [llvm.GEP_USE_SSA_VAL], it, ssa_indices=[off]))
        return ptr, elem

    def read(self, b: Ops, x: SSAValue) -> SSAValue:
        ptr, t = self.pointer(b, x)
        it = _bits(t, self.where)
        zero = b(arith.ConstantOp(IntegerAttr(0, it)))
        return _from_bits(b, b(llvmx.AtomicRMWOp("or", ptr, zero, "acq_rel")), t)

    def write(self, b: Ops, x: SSAValue, value: SSAValue) -> SSAValue:
        """Exchange: the old value."""
        ptr, t = self.pointer(b, x)
        it = _bits(t, self.where)
        old = b(llvmx.AtomicRMWOp("xchg", ptr, _to_bits(b, value, it), "acq_rel"))
        return _from_bits(b, old, t)

    def update(self, b: Ops, op: acc.AtomicUpdateOp) -> tuple[SSAValue, SSAValue]:
        """(old, new) of an atomic update."""
        ptr, t = self.pointer(b, op.x)
        region = op.region.block
        arg = region.args[0]
        body = [o for o in region.ops if not isinstance(o, acc.YieldOp)]
        y = region.last_op
        assert isinstance(y, acc.YieldOp)
        if len(y.arguments) != 1:
            raise err(f"{self.where}: the region must yield one value")
        simple = self._rmw(body, arg, y.arguments[0], t)
        if simple is not None:
            name, e = simple
            old = b(llvmx.AtomicRMWOp(name, ptr, e, "acq_rel"))
            new = b(body[0].clone(value_mapper={arg: old}))
            return old, new
        return self._cas_loop(b, ptr, t, region, body, y.arguments[0])

    def _rmw(self, body: list[Operation], arg: SSAValue, result: SSAValue, t: Attribute,
             ) -> tuple[str, SSAValue] | None:
        if len(body) != 1 or body[0].results[0] is not result or len(body[0].operands) != 2:
            return None
        o = body[0]
        entry = _RMW.get(type(o))
        if entry is None or t == i1 or isinstance(t, IndexType) or o.attributes:
            return None
        name, commutes = entry
        a, c = o.operands
        if a is arg and c is not arg:
            return name, c
        if commutes and c is arg and a is not arg:
            return name, a
        return None

    def _cas_loop(self, b: Ops, ptr: SSAValue, t: Attribute, region: Block,
                  body: list[Operation], result: SSAValue, ordering: str = "acq_rel",
                  ) -> tuple[SSAValue, SSAValue]:
        """cmpxchg until no other thread changed ``*ptr`` between the read and the swap;
        ``ordering`` is the swap's on success."""
        it = _bits(t, self.where)
        start = _from_bits(b, b(llvm.LoadOp(ptr, it)), t)
        before = Block(arg_types=[t])
        cur = before.args[0]
        bb = Ops()
        mapper: dict[SSAValue, SSAValue] = {region.args[0]: cur}
        for o in body:
            c = o.clone(value_mapper=mapper)
            bb(c)
            for r, nr in zip(o.results, c.results, strict=True):
                mapper[r] = nr
        new = mapper.get(result, result)
        pair = bb(llvmx.AtomicCmpXchgOp(ptr, _to_bits(bb, cur, it), _to_bits(bb, new, it),
                                        ordering, "monotonic"))
        seen = _from_bits(bb, bb(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [0]), pair,
                                                     it)), t)
        ok = bb(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [1]), pair, i1))
        again = bb(arith.XOrIOp(ok, bb(arith.ConstantOp(IntegerAttr(-1, i1)))))
        bb(scf.ConditionOp(again, seen, new))
        before.add_ops(bb.ops)
        after = Block(arg_types=[t, t])
        after.add_op(scf.YieldOp(after.args[0]))
        loop = scf.WhileOp([start], [t, t], Region(before), Region(after))
        b(loop)
        return loop.results[0], loop.results[1]


def _lower(op: Operation) -> None:
    lw = _Lowerer(op)
    b = Ops()
    if isinstance(op, acc.AtomicReadOp):
        b(memref.StoreOp.get(lw.read(b, op.x), op.v, []))
    elif isinstance(op, acc.AtomicWriteOp):
        lw.write(b, op.x, op.expr)
    elif isinstance(op, acc.AtomicUpdateOp):
        lw.update(b, op)
    else:
        assert isinstance(op, acc.AtomicCaptureOp)
        inner = [o for o in op.region.block.ops if not isinstance(o, acc.TerminatorOp)]
        kinds = [type(o) for o in inner]
        if kinds == [acc.AtomicReadOp, acc.AtomicUpdateOp]:
            rd, up = inner
            old, _ = lw.update(b, up)  # type: ignore[arg-type]
            b(memref.StoreOp.get(old, rd.v, []))  # type: ignore[attr-defined]
        elif kinds == [acc.AtomicUpdateOp, acc.AtomicReadOp]:
            up, rd = inner
            _, new = lw.update(b, up)  # type: ignore[arg-type]
            b(memref.StoreOp.get(new, rd.v, []))  # type: ignore[attr-defined]
        elif kinds == [acc.AtomicReadOp, acc.AtomicWriteOp]:
            rd, wr = inner
            old = lw.write(b, wr.x, wr.expr)  # type: ignore[attr-defined]
            b(memref.StoreOp.get(old, rd.v, []))  # type: ignore[attr-defined]
        else:
            got = ", ".join(o.name for o in inner)
            raise err(f"{lw.where}: the region must hold read + update, update + read or "
                      f"read + write, got ({got})")
        if inner[0].x is not inner[1].x:  # type: ignore[attr-defined]
            raise err(f"{lw.where}: its two operations must be on the same variable")
    cond = op.if_cond  # type: ignore[attr-defined]
    ops = b.ops
    if cond is not None:  # if(cond): the atomic happens only where cond holds
        ops = [scf.IfOp(cond, [], [*ops, scf.YieldOp()])]
    Rewriter.insert_op(ops, InsertPoint.before(op))
    Rewriter.erase_op(op)


def lower_atomics(module: ModuleOp) -> None:
    """Lower every ``acc.atomic.*`` of ``module`` (outermost first: a capture holds two)."""
    for op in [o for o in module.walk() if isinstance(o, _ATOMICS)]:
        if op.parent is not None and not any(
            isinstance(p, acc.AtomicCaptureOp) for p in _ancestors(op)
        ):
            _lower(op)


def _ancestors(op: Operation) -> list[Operation]:
    out = []
    p = op.parent_op()
    while p is not None:
        out.append(p)
        p = p.parent_op()
    return out
