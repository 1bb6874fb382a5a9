"""lower-vector-transfers: what linalg vectorization leaves, as ops the 1-D vector lowering
and the interpreter know (upstream's ``-lower-vector-transfers`` / ``-convert-vector-to-scf``
for 1-D vectors).

- ``vector.transfer_read`` / ``transfer_write`` on memrefs, 1-D vectors, permutation maps
  that are a minor identity, pick another dimension, or broadcast (constant 0):
  - the vector runs along the memref's last, unit-stride dimension: ``vector.load`` /
    ``vector.store`` when in bounds and unmasked, else ``vector.maskedload`` (pass-through:
    the padding value) / ``vector.maskedstore`` whose mask is ``lane < dim - index`` (and the
    op's mask);
  - along another dimension (or a non-unit / unknown stride): one scalar access per lane, each
    guarded by its bounds check and mask lane (``scf.if``), padding for the lanes not read;
  - broadcast (read only): one ``memref.load`` at the indices, ``vector.broadcast`` (upstream:
    a broadcast dimension is in bounds).
- ``vector.splat`` -> ``vector.broadcast``; ``vector.step`` -> ``arith.constant``;
  ``vector.outerproduct`` -> per row ``broadcast`` + ``arith`` (``vector.fma`` for a float add
  with an accumulator, as upstream's lowering); a 2-D one read only by ``vector.shape_cast``
  to 1-D is built flat (rows joined by ``vector.shuffle``); ``vector.shape_cast`` 1-D -> 1-D
  is its operand.

Expects: memref sources (tensors are bufferized before); 1-D vectors.
Guarantees: none of the ops above left; anything else is a ``NotSupportedError`` naming the
op and its location. A module without them is unchanged.

Before::

    %v = vector.transfer_read %m[%i, %j], %pad : memref<?x?xf32>, vector<8xf32>

After::

    %d = memref.dim %m, %c1 : memref<?x?xf32>
    %n = arith.subi %d, %j : index
    %k = vector.create_mask %n : vector<8xi1>
    %p = vector.broadcast %pad : f32 to vector<8xf32>
    %v = vector.maskedload %m[%i, %j], %k, %p : memref<?x?xf32>, vector<8xi1>, vector<8xf32>
      into vector<8xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    VectorType,
    i1,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError
from xmux.dialects.vector_ops import OuterProductOp, ShapeCastOp, SplatOp, StepOp

_OPS = (vector.TransferReadOp, vector.TransferWriteOp, SplatOp, StepOp, OuterProductOp,
        ShapeCastOp)


def _where(op: Operation) -> str:
    loc = op.location
    text = str(loc) if loc is not None else ""
    where = f" at {text}" if text and "unknown" not in text else ""
    f = op.parent_op()
    while f is not None and not isinstance(getattr(f, "sym_name", None), StringAttr):
        f = f.parent_op()
    return where + (f" in @{f.sym_name.data}" if f is not None else "")  # type: ignore[attr-defined]


def _err(op: Operation, why: str) -> NotSupportedError:
    return NotSupportedError(f"lower-vector-transfers: '{op.name}'{_where(op)}: {why}")


class _B:
    """Ops inserted before ``anchor`` (or at the end of a block), with its location."""

    def __init__(self, anchor: Operation, point: InsertPoint | None = None) -> None:
        self.anchor = anchor
        self.point = point or InsertPoint.before(anchor)

    def __call__(self, op: Operation) -> SSAValue:
        op.location = self.anchor.location
        Rewriter.insert_op(op, self.point)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def index(self, v: int) -> SSAValue:
        return self(arith.ConstantOp(IntegerAttr(v, IndexType())))


def _unit_stride_last(t: MemRefType) -> bool:
    layout = t.layout
    if isinstance(layout, NoneAttr):
        return True
    if isinstance(layout, StridedLayoutAttr):
        return layout.get_strides()[-1] == 1
    return False


def _vector_dim(op: Operation) -> int | None:
    """The memref dimension the 1-D vector runs along; None for a broadcast."""
    m = op.permutation_map.data  # type: ignore[attr-defined]
    if len(m.results) != 1:
        raise _err(op, f"only 1-D vectors are supported (permutation map {m})")
    r = m.results[0]
    if isinstance(r, AffineDimExpr):
        return r.position
    if isinstance(r, AffineConstantExpr) and r.value == 0:
        return None
    raise _err(op, f"unsupported permutation map {m}")


def _in_bounds(op: Operation) -> bool:
    attr = op.properties.get("in_bounds") or op.attributes.get("in_bounds")
    return attr is not None and all(bool(b.value.data) for b in attr.data)  # type: ignore[attr-defined]


def _check(op: Operation, ref: SSAValue, vt: object) -> tuple[MemRefType, VectorType]:
    if not isinstance(ref.type, MemRefType):
        raise _err(op, f"only memref sources are supported (bufferize first), got {ref.type}")
    if not isinstance(vt, VectorType) or vt.get_num_dims() != 1 or vt.get_num_scalable_dims():
        raise _err(op, f"only 1-D fixed vectors are supported, got {vt}")
    return ref.type, vt


def _lane_mask(b: _B, op: Operation, ref: SSAValue, idx: SSAValue, d: int, n: int,
               user: SSAValue | None) -> SSAValue:
    """``lane < dim(ref, d) - idx`` (and the op's mask)."""
    size = b(memref.DimOp(ref, b.index(d)))
    mask = b(vector.CreateMaskOp([b(arith.SubiOp(size, idx))], VectorType(i1, [n])))
    return mask if user is None else b(arith.AndIOp(mask, user))


def _lane_ok(b: _B, idx: SSAValue, size: SSAValue | None, user: SSAValue | None,
             k: int) -> SSAValue | None:
    """Whether lane ``k`` (at ``idx`` of a dimension of ``size``; None: in bounds) is
    accessed."""
    conds = []
    if size is not None:
        conds.append(b(arith.CmpiOp(idx, size, "slt")))
    if user is not None:
        conds.append(b(vector.ExtractOp(user, [k], i1)))
    ok = conds[0] if conds else None
    for c in conds[1:]:
        ok = b(arith.AndIOp(ok, c))
    return ok


def _read(op: vector.TransferReadOp) -> None:
    mt, vt = _check(op, op.source, op.result.type)
    n = vt.get_shape()[0]
    b = _B(op)
    d = _vector_dim(op)
    idx = list(op.indices)
    if d is None:
        if op.mask is not None:
            raise _err(op, "a mask on a broadcast read is not supported")
        x = b(memref.LoadOp.get(op.source, idx))
        res = b(vector.BroadcastOp(x, vt))
    elif d == mt.get_num_dims() - 1 and _unit_stride_last(mt):
        if _in_bounds(op) and op.mask is None:
            res = b(vector.LoadOp(op.source, idx, vt))
        else:
            mask = _lane_mask(b, op, op.source, idx[d], d, n, op.mask)
            pad = b(vector.BroadcastOp(op.padding, vt))
            res = b(vector.MaskedLoadOp(op.source, idx, mask, pad, vt))
    else:
        res = b(vector.BroadcastOp(op.padding, vt))
        size = None if _in_bounds(op) else \
            b(memref.DimOp(op.source, b.index(d)))
        for k in range(n):
            at = list(idx)
            at[d] = b(arith.AddiOp(idx[d], b.index(k))) if k else idx[d]
            ok = _lane_ok(b, at[d], size, op.mask, k)
            if ok is None:
                x = b(memref.LoadOp.get(op.source, at))
            else:
                if_ = scf.IfOp(ok, [vt.element_type], Region(Block()), Region(Block()))
                b(if_)
                then, other = _B(op, InsertPoint.at_end(if_.true_region.block)), \
                    _B(op, InsertPoint.at_end(if_.false_region.block))
                then(scf.YieldOp(then(memref.LoadOp.get(op.source, at))))
                other(scf.YieldOp(op.padding))
                x = if_.results[0]
            res = b(vector.InsertOp(x, res, [k]))
    op.result.replace_all_uses_with(res)
    Rewriter.erase_op(op)


def _write(op: vector.TransferWriteOp) -> None:
    mt, vt = _check(op, op.source, op.vector.type)
    n = vt.get_shape()[0]
    b = _B(op)
    d = _vector_dim(op)
    idx = list(op.indices)
    if d is None:
        raise _err(op, "a broadcast permutation map is not valid for a write")
    if d == mt.get_num_dims() - 1 and _unit_stride_last(mt):
        if _in_bounds(op) and op.mask is None:
            b(vector.StoreOp(op.vector, op.source, idx))
        else:
            mask = _lane_mask(b, op, op.source, idx[d], d, n, op.mask)
            b(vector.MaskedStoreOp(op.source, idx, mask, op.vector))
    else:
        size = None if _in_bounds(op) else \
            b(memref.DimOp(op.source, b.index(d)))
        for k in range(n):
            at = list(idx)
            at[d] = b(arith.AddiOp(idx[d], b.index(k))) if k else idx[d]
            x = b(vector.ExtractOp(op.vector, [k], vt.element_type))
            ok = _lane_ok(b, at[d], size, op.mask, k)
            if ok is None:
                b(memref.StoreOp.get(x, op.source, at))
            else:
                if_ = scf.IfOp(ok, [], Region(Block()))
                b(if_)
                then = _B(op, InsertPoint.at_end(if_.true_region.block))
                then(memref.StoreOp.get(x, op.source, at))
                then(scf.YieldOp())
    Rewriter.erase_op(op)


_FLOAT_KIND = {"add": arith.AddfOp, "mul": arith.MulfOp, "maxnumf": arith.MaxnumfOp,
               "minnumf": arith.MinnumfOp, "maximumf": arith.MaximumfOp,
               "minimumf": arith.MinimumfOp}
_INT_KIND = {"add": arith.AddiOp, "mul": arith.MuliOp, "and": arith.AndIOp, "or": arith.OrIOp,
             "xor": arith.XOrIOp, "minsi": arith.MinSIOp, "maxsi": arith.MaxSIOp,
             "minui": arith.MinUIOp, "maxui": arith.MaxUIOp}


def _axpy(b: _B, op: OuterProductOp, a: SSAValue, x: SSAValue, acc: SSAValue | None,
          vt: VectorType) -> SSAValue:
    """``a * broadcast(x)`` combined with ``acc`` by the op's kind."""
    xs = b(vector.BroadcastOp(x, vt))
    is_float = isinstance(vt.element_type, AnyFloat)
    kind = op.combining_kind()
    if acc is not None and is_float and kind == "add":
        return b(vector.FMAOp(a, xs, acc))  # upstream: fused
    prod = b(arith.MulfOp(a, xs) if is_float else arith.MuliOp(a, xs))
    if acc is None:
        return prod
    combine = (_FLOAT_KIND if is_float else _INT_KIND).get(kind)
    if combine is None:
        raise _err(op, f"combining kind {kind} of {vt}")
    return b(combine(prod, acc))


def _shuffle(a: SSAValue, b: SSAValue, mask: list[int], t: VectorType) -> Operation:
    return vector.ShuffleOp(a, b, DenseArrayBase.from_list(i64, mask), result_type=t)


def _flat(v: SSAValue) -> bool:
    return isinstance(v.type, VectorType) and v.type.get_num_dims() == 1


def _outerproduct(op: OuterProductOp, done: set[Operation]) -> None:
    b = _B(op)
    lt = op.lhs.type
    assert isinstance(lt, VectorType)
    if not isinstance(op.rhs.type, VectorType):
        op.result.replace_all_uses_with(_axpy(b, op, op.lhs, op.rhs, op.acc, lt))
        Rewriter.erase_op(op)
        return
    # 2-D: no n-D vector reaches a lowering; flattened when only shape_casts to 1-D read it
    # (and its accumulator is a shape_cast of a 1-D vector), row i at [i * cols, ...)
    casts = [u.operation for u in op.result.uses]
    acc_cast = op.acc.owner if op.acc is not None else None
    if not all(isinstance(c, ShapeCastOp) and _flat(c.result) for c in casts) or (
            acc_cast is not None
            and not (isinstance(acc_cast, ShapeCastOp) and _flat(acc_cast.source))):
        raise _err(op, "a 2-D outer product is supported only flattened (read by "
                   "vector.shape_cast to 1-D, accumulator a vector.shape_cast of 1-D)")
    rt = op.rhs.type
    rows, cols = lt.get_shape()[0], rt.get_shape()[0]
    flat_t = VectorType(lt.element_type, [rows * cols])
    zero = 0.0 if isinstance(lt.element_type, AnyFloat) else 0
    res = b(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(flat_t, [zero] * rows * cols)))
    flat_acc = acc_cast.source if isinstance(acc_cast, ShapeCastOp) else None
    for i in range(rows):
        a = b(vector.ExtractOp(op.lhs, [i], lt.element_type))
        acc = None
        if flat_acc is not None:
            acc = b(_shuffle(flat_acc, flat_acc, [i * cols + j for j in range(cols)], rt))
        row = _axpy(b, op, op.rhs, a, acc, rt)
        wide = b(_shuffle(row, row, [j % cols for j in range(rows * cols)], flat_t))
        mask = [rows * cols + j - i * cols if i * cols <= j < (i + 1) * cols else j
                for j in range(rows * cols)]
        res = b(_shuffle(res, wide, mask, flat_t))
    for c in casts:
        c.results[0].replace_all_uses_with(res)
        Rewriter.erase_op(c)
        done.add(c)
    Rewriter.erase_op(op)
    if acc_cast is not None and not acc_cast.results[0].uses:
        Rewriter.erase_op(acc_cast)
        done.add(acc_cast)


def _simple(op: Operation) -> None:
    b = _B(op)
    t = op.results[0].type
    assert isinstance(t, VectorType)
    if isinstance(op, SplatOp):
        res = b(vector.BroadcastOp(op.input, t))
    else:
        res = b(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(
            t, list(range(t.get_shape()[0])))))
    op.results[0].replace_all_uses_with(res)
    Rewriter.erase_op(op)


@dataclass(frozen=True)
class LowerVectorTransfers(ModulePass):
    """Lower vector.transfer_read/write, splat, step and outerproduct (1-D vectors)."""

    name = "lower-vector-transfers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        done: set[Operation] = set()
        for o in [o for o in op.walk() if isinstance(o, _OPS)]:
            if o in done:
                continue
            if isinstance(o, ShapeCastOp):
                if _flat(o.source) and _flat(o.result):  # 1-D to 1-D: the same vector
                    o.result.replace_all_uses_with(o.source)
                    Rewriter.erase_op(o)
            elif isinstance(o, vector.TransferReadOp):
                _read(o)
            elif isinstance(o, vector.TransferWriteOp):
                if o.result is not None:
                    raise _err(o, "only memref destinations are supported (bufferize first)")
                _write(o)
            elif isinstance(o, OuterProductOp):
                _outerproduct(o, done)
            else:
                _simple(o)
