"""lower-subgroup-mma: ``gpu.subgroup_mma_*`` emulated exactly by the 32 work-items of a sub-group.

A ``!gpu.mma_matrix<16x16xT, ...>`` (dialects/gpu_mma.py) is held by the sub-group (a warp of
32 consecutive work-items in local linear order): lane ``l`` keeps the eight elements of
row ``l / 2``, columns ``8 * (l % 2) .. + 7`` (for every operand kind; the matrix is the
logical one: a ``transpose`` load reads it column-major). Each fragment value lives in its own
private ``memref<8xT>`` (work-item-loops keeps private allocations per work-item across
barriers, not vectors); ops read and write it with ``vector.load`` / ``vector.store``.
Fragments of ``scf.for`` iter_args and ``scf.if`` results share one buffer with the values
yielded into them (copied at the yield, all read before any is written); those ops lose their
fragment operands and results. Other ops carrying fragments (``scf.while``, calls, branches)
are an error naming the op.

==================================  ========================================================
subgroup_mma_load_matrix            8 scalar loads from the element pointer of
                                    ``src[i, j]`` + ``r * ld + c``
                                    (``transpose``: + ``c * ld + r``), any strided layout
subgroup_mma_store_matrix           the same addresses, stores
subgroup_mma_constant_matrix        ``vector.broadcast``
subgroup_mma_elementwise            the arith op on the vectors (maxf / minf: maximumf /
                                    minimumf, NaN-propagating as upstream's NVVM lowering;
                                    negatef: negf; negates: 0 - x; extf: extf)
subgroup_mma_compute                each lane stores its A and B pieces in work-group local
                                    memory (``@__xmux_mma_scratch_<T> : memref<CAP x 16 x T,
                                    3>``, row = local linear id), a barrier, then computes
                                    its 8 elements of A x B + C, a barrier (before the rows
                                    are written again)
==================================  ========================================================

**Rounding of compute** (defined here; the reference in the tests does the same): for each
output element, ``acc = C[r, c]``, then for k = 0, 1, ..., K-1 in that order
``acc = acc + A[r, k] * B[k, c]`` where the product is computed in f32 (exact for f16
inputs) and the sum in f32, rounded to the accumulator type after every step (f16
accumulators: ``acc = f16(f32(acc) + a * b)``). Tensor cores add in another order with more
internal precision, so the GPU can differ from the CPU in the last bits of a float sum;
sums that are exact in the accumulator type (small integers) agree bit for bit.

``a_transpose`` / ``b_transpose`` are ignored: the fragment already is the logical matrix
(on NVIDIA GPUs they must match how the operand was loaded, as for WMMA).

The barriers are ``mux.work_group_barrier``\\ s marked ``mux.sub_group_scope`` (as
lower-sub-group-collectives makes), so work-item-loops lets a sub-group move barrier by
barrier. The whole sub-group must execute every op (upstream's rule); work-groups whose size
is not a multiple of 32 have a partial last sub-group, for which the results are undefined.
Kernels without ``mux.reqd_work_group_size`` that use compute get ``mux.max_work_group_size``
1024 (the scratch capacity; the launcher enforces it).

Expects: convert-gpu-to-mux has run (kernels are ``func.func``\\ s with
``mux.reqd_sub_group_size`` 32, which it sets for kernels using these ops). 16x16x16 shapes,
A and B of one element type, f16 / f32 / integer elements. Guarantees: no
``gpu.subgroup_mma_*`` op nor ``!gpu.mma_matrix`` value is left (loop-carried fragments
become ``vector<8xT>`` iter_args). Unsupported shapes or sub-group sizes: an error naming the
op and its function.

Before::

    %a = gpu.subgroup_mma_load_matrix %A[%i, %c0] {leadDimension = 32 : index}
           : memref<32x32xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">

After (in outline)::

    %lid = mux.get_local_linear_id : index
    %lane = arith.remui %lid, %c32 : index          // row lane / 2, columns 8 * (lane % 2)
    %p = llvm.getelementptr (element pointer of %A[%i, %c0]) [row * 32 + col0 + e]
    %x = llvm.load %p {alignment = 2 : i64} : !llvm.ptr -> f16     // e = 0 .. 7
    %a = vector.insert %x, %a_prev [e] : f16 into vector<8xf16>   // to the lane's buffer
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    VectorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import NotSupportedError
from xmux.dialects import attrs, mux
from xmux.dialects.gpu_mma import (
    MMAElementwiseOp,
    MMAMatrixType,
    SubgroupMmaComputeOp,
    SubgroupMmaConstantMatrixOp,
    SubgroupMmaElementwiseOp,
    SubgroupMmaLoadMatrixOp,
    SubgroupMmaStoreMatrixOp,
)
from xmux.transforms.lower_work_group_collectives import (
    LOCAL_MEMORY_SPACE,
    Ops,
    capacity,
    record_work_group_limit,
)

PASS = "lower-subgroup-mma"
INDEX = IndexType()
#: Lanes of a sub-group, elements of a 16x16 matrix per lane.
WARP, PER_LANE, TILE = 32, 8, 16
SCRATCH_PREFIX = "__xmux_mma_scratch_"

MMA_OP_TYPES = (SubgroupMmaLoadMatrixOp, SubgroupMmaStoreMatrixOp, SubgroupMmaComputeOp,
                SubgroupMmaConstantMatrixOp, SubgroupMmaElementwiseOp)


def is_mma_op(op: Operation) -> bool:
    return isinstance(op, MMA_OP_TYPES)


def where(op: Operation) -> str:
    f = op.parent_op()
    while f is not None and not isinstance(f, func.FuncOp):
        f = f.parent_op()
    return f" in @{f.sym_name.data}" if f is not None else ""


def unsupported(pass_name: str, op: Operation, why: str) -> NotSupportedError:
    return NotSupportedError(f"{pass_name}: '{op.name}'{where(op)}: {why}")


def element_pointer(b: Ops, ref: SSAValue, indices: tuple[SSAValue, ...]) -> SSAValue:
    """The generic address of ``ref[indices]`` (aligned pointer + offset + sum(index *
    stride), any strided layout), as upstream's ``getStridedElementPtr``."""
    t = ref.type
    assert isinstance(t, MemRefType)
    meta = memref.ExtractStridedMetaDataOp(ref)
    b(meta)
    linear = meta.offset
    for idx, stride in zip(indices, meta.strides, strict=True):
        linear = b(arith.AddiOp(linear, b(arith.MuliOp(idx, stride))))
    base = b(memref.ExtractAlignedPointerAsIndexOp.get(ref))
    ptr = b(llvm.IntToPtrOp(b(arith.IndexCastOp(base, i64))))
    return b(llvm.GEPOp(ptr, [llvm.GEP_USE_SSA_VAL], t.element_type,
                        ssa_indices=[b(arith.IndexCastOp(linear, i64))]))


def offset_pointer(b: Ops, ptr: SSAValue, elem: Attribute, offset: SSAValue) -> SSAValue:
    """``ptr`` + ``offset`` (index) elements of type ``elem``."""
    return b(llvm.GEPOp(ptr, [llvm.GEP_USE_SSA_VAL], elem,
                        ssa_indices=[b(arith.IndexCastOp(offset, i64))]))


def retype_values(module: ModuleOp, convert: Callable[[MMAMatrixType], Attribute]) -> None:
    """Fragments carried by other ops (scf.for iter_args and results, scf.if results, block
    arguments, function signatures) get their lowered type; the mma ops' own results are
    replaced by their lowering."""
    for o in list(module.walk()):
        if not is_mma_op(o):
            for r in o.results:
                if isinstance(r.type, MMAMatrixType):
                    Rewriter.replace_value_with_new_type(r, convert(r.type))
        for reg in o.regions:
            for blk in reg.blocks:
                for a in blk.args:
                    if isinstance(a.type, MMAMatrixType):
                        Rewriter.replace_value_with_new_type(a, convert(a.type))
        if isinstance(o, func.FuncOp):
            def conv(t: Attribute) -> Attribute:
                return convert(t) if isinstance(t, MMAMatrixType) else t
            o.function_type = type(o.function_type).from_lists(
                [conv(t) for t in o.function_type.inputs.data],
                [conv(t) for t in o.function_type.outputs.data])


def mma_functions(module: ModuleOp) -> list[func.FuncOp]:
    return [f for f in module.walk() if isinstance(f, func.FuncOp)
            and any(is_mma_op(o) for o in f.walk())]


def check_shape(pass_name: str, op: Operation) -> None:
    types = [v.type for v in (*op.operands, *op.results) if isinstance(v.type, MMAMatrixType)]
    for t in types:
        if t.dims != (TILE, TILE):
            raise unsupported(pass_name, op, f"only 16x16 matrices are supported, got {t}")


def elementwise(op: SubgroupMmaElementwiseOp, args: list[SSAValue], result: Attribute,
                b: Ops) -> SSAValue:
    """The arith op(s) of ``op`` on lowered fragments ``args`` (of any vector layout)."""
    k = op.opType.data
    binary = {
        MMAElementwiseOp.ADDF: arith.AddfOp, MMAElementwiseOp.MULF: arith.MulfOp,
        MMAElementwiseOp.SUBF: arith.SubfOp, MMAElementwiseOp.DIVF: arith.DivfOp,
        MMAElementwiseOp.MAXF: arith.MaximumfOp, MMAElementwiseOp.MINF: arith.MinimumfOp,
        MMAElementwiseOp.ADDI: arith.AddiOp, MMAElementwiseOp.MULI: arith.MuliOp,
        MMAElementwiseOp.SUBI: arith.SubiOp, MMAElementwiseOp.DIVS: arith.DivSIOp,
        MMAElementwiseOp.DIVU: arith.DivUIOp,
    }
    if k in binary:
        return b(binary[k](args[0], args[1]))
    if k == MMAElementwiseOp.NEGATEF:
        return b(arith.NegfOp(args[0]))
    if k == MMAElementwiseOp.EXTF:
        return b(arith.ExtFOp(args[0], result))
    assert k == MMAElementwiseOp.NEGATES
    t = args[0].type
    assert isinstance(t, VectorType)
    zero = b(arith.ConstantOp(_splat(0, t)))
    return b(arith.SubiOp(zero, args[0]))


def _splat(value: int | float, t: VectorType) -> Attribute:
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    return DenseIntOrFPElementsAttr.from_list(t, [value] * t.element_count())


# ---------------------------------------------------------------------------------------
# The CPU lowering
# ---------------------------------------------------------------------------------------


def fragment_type(t: MMAMatrixType) -> VectorType:
    return VectorType(t.element_type, [PER_LANE])


@dataclass
class _Lane:
    """Per op: the lane's row and first column of its piece (index values)."""

    lid: SSAValue
    lane: SSAValue
    row: SSAValue
    col0: SSAValue

    @staticmethod
    def build(b: Ops) -> _Lane:
        lid = b(mux.GetLocalLinearIdOp(INDEX))
        lane = b(arith.RemUIOp(lid, b.index(WARP)))
        row = b(arith.DivUIOp(lane, b.index(2)))
        col0 = b(arith.MuliOp(b(arith.RemUIOp(lane, b.index(2))), b.index(PER_LANE)))
        return _Lane(lid, lane, row, col0)


def _element_offsets(b: Ops, ln: _Lane, ld: int, transpose: bool) -> list[SSAValue]:
    """Offsets (elements) of the lane's 8 elements from the matrix's first element."""
    out = []
    for e in range(PER_LANE):
        c = b(arith.AddiOp(ln.col0, b.index(e)))
        r = ln.row
        major, minor = (c, r) if transpose else (r, c)
        out.append(b(arith.AddiOp(b(arith.MuliOp(major, b.index(ld))), minor)))
    return out


def _load(op: SubgroupMmaLoadMatrixOp, b: Ops) -> SSAValue:
    t = op.res.type
    assert isinstance(t, MMAMatrixType)
    vt = fragment_type(t)
    ln = _Lane.build(b)
    ptr = element_pointer(b, op.srcMemref, tuple(op.indices))
    ld = op.leadDimension.value.data
    # scalar accesses (the interpreter reads no vector through a pointer; LLVM merges the
    # 8 consecutive ones of a row-major piece), aligned as the element: nothing more is
    # known of the memref's base (a numpy array)
    v = b(arith.ConstantOp(_splat(0, vt)))
    for e, off in enumerate(_element_offsets(b, ln, ld, op.transpose is not None)):
        x = b(llvm.LoadOp(offset_pointer(b, ptr, t.element_type, off), t.element_type,
                          alignment=_bytes(t.element_type)))
        v = b(vector.InsertOp(x, v, [e]))
    return v


def _store(op: SubgroupMmaStoreMatrixOp, t: MMAMatrixType, frag: SSAValue, b: Ops) -> None:
    ln = _Lane.build(b)
    ptr = element_pointer(b, op.dstMemref, tuple(op.indices))
    ld = op.leadDimension.value.data
    for e, off in enumerate(_element_offsets(b, ln, ld, op.transpose is not None)):
        x = b(vector.ExtractOp(frag, [e], t.element_type))
        b(llvm.StoreOp(x, offset_pointer(b, ptr, t.element_type, off),
                       alignment=_bytes(t.element_type)))


def _bytes(t: Attribute) -> int:
    return max(1, t.bitwidth // 8) if isinstance(t, AnyFloat | IntegerType) else 8


def _barrier() -> mux.WorkGroupBarrierOp:
    bar = mux.WorkGroupBarrierOp()
    attrs.mark_sub_group_scope(bar)  # uniform within each sub-group is enough
    return bar


def _to_f32(b: Ops, v: SSAValue) -> SSAValue:
    t = v.type
    elem = t.element_type if isinstance(t, VectorType) else t
    if isinstance(elem, Float32Type):
        return v
    wide = VectorType(f32, t.get_shape()) if isinstance(t, VectorType) else f32
    return b(arith.ExtFOp(v, wide))


def _widen(b: Ops, v: SSAValue, t: Attribute) -> SSAValue:
    return v if v.type == t else b(arith.ExtSIOp(v, t))


class _Buffers:
    """Each fragment value of a function lives in a private ``memref<8xT>`` (work-item-loops
    keeps private allocations per work-item across barriers; vectors it cannot). Loop-carried
    and ``scf.if`` fragments share one buffer with the values yielded into them (copies at
    the yields), so no fragment travels as an SSA value between ops."""

    def __init__(self, f: func.FuncOp) -> None:
        self.entry = f.body.blocks[0]
        self.of: dict[SSAValue, SSAValue] = {}

    def new(self, t: MMAMatrixType) -> SSAValue:
        alloca = memref.AllocaOp.get(t.element_type, shape=[PER_LANE])
        first = self.entry.first_op
        Rewriter.insert_op(alloca, InsertPoint.before(first) if first else
                           InsertPoint.at_end(self.entry))
        return alloca.memref

    def read(self, b: Ops, v: SSAValue) -> SSAValue:
        t = v.type
        assert isinstance(t, MMAMatrixType)
        return b(vector.LoadOp(self.of[v], [b.index(0)], fragment_type(t)))

    def write(self, b: Ops, v: SSAValue, value: SSAValue) -> None:
        b(vector.StoreOp(value, self.of[v], [b.index(0)]))


def _is_frag(v: SSAValue) -> bool:
    return isinstance(v.type, MMAMatrixType)


def _assign_buffers(f: func.FuncOp, bufs: _Buffers) -> None:
    """A buffer per fragment value; copies into the shared buffers of loops and ifs."""
    for o in list(f.walk()):
        if is_mma_op(o):
            for r in o.results:
                bufs.of[r] = bufs.new(r.type)  # type: ignore[arg-type]
        elif isinstance(o, scf.ForOp):
            body = o.body.block
            for i, r in enumerate(o.results):
                if _is_frag(r):
                    buf = bufs.new(r.type)  # type: ignore[arg-type]
                    bufs.of[r] = bufs.of[body.args[i + 1]] = buf
        elif isinstance(o, scf.IfOp):
            for r in o.results:
                if _is_frag(r):
                    bufs.of[r] = bufs.new(r.type)  # type: ignore[arg-type]
        elif any(map(_is_frag, (*o.operands, *o.results))) and not isinstance(o, scf.YieldOp):
            raise unsupported(PASS, o, "carries !gpu.mma_matrix values (only scf.for and "
                                       "scf.if can, on the CPU)")
        for reg in o.regions:
            for blk in reg.blocks:
                if any(map(_is_frag, blk.args)) and not isinstance(o, scf.ForOp):
                    raise unsupported(PASS, o, "has !gpu.mma_matrix block arguments")


def _copies(f: func.FuncOp, bufs: _Buffers) -> None:
    """Loop inits copied into the loop's buffers before it; yielded fragments copied into
    the buffers of the loop / if at the yield (all read first: a parallel copy)."""
    for o in list(f.walk()):
        if isinstance(o, scf.ForOp):
            b = Ops()
            pairs = [(init, r) for init, r in zip(o.iter_args, o.results, strict=True)
                     if _is_frag(r)]
            values = [bufs.read(b, init) for init, _ in pairs]
            for (_, r), v in zip(pairs, values, strict=True):
                bufs.write(b, r, v)
            Rewriter.insert_op(b.ops, InsertPoint.before(o))
        if isinstance(o, scf.YieldOp) and isinstance(o.parent_op(), scf.ForOp | scf.IfOp):
            parent = o.parent_op()
            assert parent is not None
            b = Ops()
            pairs = [(y, r) for y, r in zip(o.operands, parent.results, strict=True)
                     if _is_frag(r)]
            values = [bufs.read(b, y) for y, _ in pairs]
            for (_, r), v in zip(pairs, values, strict=True):
                bufs.write(b, r, v)
            Rewriter.insert_op(b.ops, InsertPoint.before(o))


def _strip(f: func.FuncOp) -> None:
    """Drop the fragment operands, results and block arguments of scf ops (unused now)."""
    for o in reversed(list(f.walk())):
        if isinstance(o, scf.YieldOp) and any(map(_is_frag, o.operands)):
            Rewriter.replace_op(o, scf.YieldOp(*[v for v in o.operands if not _is_frag(v)]))
        elif isinstance(o, scf.ForOp) and any(map(_is_frag, o.results)):
            keep = [i for i, r in enumerate(o.results) if not _is_frag(r)]
            body = o.body.block
            for i in reversed(range(len(o.results))):
                if i not in keep:
                    body.erase_arg(body.args[i + 1])
            new = scf.ForOp(o.lb, o.ub, o.step, [o.iter_args[i] for i in keep],
                            o.detach_region(o.body))
            Rewriter.replace_op(o, new, [new.results[keep.index(i)] if i in keep else None
                                         for i in range(len(o.results))])
        elif isinstance(o, scf.IfOp) and any(map(_is_frag, o.results)):
            keep = [i for i, r in enumerate(o.results) if not _is_frag(r)]
            new = scf.IfOp(o.cond, [o.results[i].type for i in keep],
                           o.detach_region(o.true_region), o.detach_region(o.false_region))
            Rewriter.replace_op(o, new, [new.results[keep.index(i)] if i in keep else None
                                         for i in range(len(o.results))])


def _compute(op: SubgroupMmaComputeOp, bufs: _Buffers, scratch: tuple[str, MemRefType],
             write: Ops, comb: Ops) -> None:
    ta, tc = op.opA.type, op.res.type
    assert isinstance(ta, MMAMatrixType) and isinstance(tc, MMAMatrixType)
    elem = ta.element_type
    ln = _Lane.build(write)
    view = write(memref.GetGlobalOp(*scratch))
    write(vector.StoreOp(bufs.read(write, op.opA), view, [ln.lid, write.index(0)]))
    write(vector.StoreOp(bufs.read(write, op.opB), view, [ln.lid, write.index(PER_LANE)]))
    comb(_barrier())
    # nothing computed before a barrier is used after it
    view = comb(memref.GetGlobalOp(*scratch))
    ln = _Lane.build(comb)
    base = comb(arith.SubiOp(ln.lid, ln.lane))
    half = comb(arith.RemUIOp(ln.lane, comb.index(2)))
    a_row = comb(arith.AddiOp(base, comb(arith.MuliOp(ln.row, comb.index(2)))))
    acc = bufs.read(comb, op.opC)
    vt8 = VectorType(elem, [PER_LANE])
    for k in range(TILE):
        # A[row, k]: lane 2 * row + k / 8, slot k % 8; B[k, col0 ..]: lane 2k + half, slots 8..
        av = comb(memref.LoadOp.get(view, [comb(arith.AddiOp(a_row, comb.index(k // 8))),
                                           comb.index(k % PER_LANE)]))
        b_lane = comb(arith.AddiOp(base, comb(arith.AddiOp(half, comb.index(2 * k)))))
        bv = comb(vector.LoadOp(view, [b_lane, comb.index(PER_LANE)], vt8))
        if isinstance(elem, AnyFloat):
            prod = comb(arith.MulfOp(comb(vector.BroadcastOp(_to_f32(comb, av),
                                                             VectorType(f32, [PER_LANE]))),
                                     _to_f32(comb, bv)))
            if isinstance(tc.element_type, Float32Type):
                acc = comb(arith.AddfOp(acc, prod))
            else:
                acc = comb(arith.TruncFOp(comb(arith.AddfOp(_to_f32(comb, acc), prod)),
                                          fragment_type(tc)))
        else:  # integers: A and B widened (signed) to the accumulator's type, element by
            # element (xDSL's arith.extsi takes no vectors)
            wide = fragment_type(tc)
            a_w = comb(vector.BroadcastOp(_widen(comb, av, tc.element_type), wide))
            b_w = comb(arith.ConstantOp(_splat(0, wide)))
            for e in range(PER_LANE):
                x = comb(vector.ExtractOp(bv, [e], elem))
                b_w = comb(vector.InsertOp(_widen(comb, x, tc.element_type), b_w, [e]))
            acc = comb(arith.AddiOp(acc, comb(arith.MuliOp(a_w, b_w))))
    bufs.write(comb, op.res, acc)
    comb(_barrier())


def _lower(op: Operation, bufs: _Buffers, scratch: dict[str, tuple[str, MemRefType]]) -> None:
    b = Ops()
    if isinstance(op, SubgroupMmaLoadMatrixOp):
        bufs.write(b, op.res, _load(op, b))
    elif isinstance(op, SubgroupMmaStoreMatrixOp):
        t = op.src.type
        assert isinstance(t, MMAMatrixType)
        _store(op, t, bufs.read(b, op.src), b)
    elif isinstance(op, SubgroupMmaConstantMatrixOp):
        t = op.res.type
        assert isinstance(t, MMAMatrixType)
        bufs.write(b, op.res, b(vector.BroadcastOp(op.value, fragment_type(t))))
    elif isinstance(op, SubgroupMmaElementwiseOp):
        t = op.res.type
        assert isinstance(t, MMAMatrixType)
        args = [bufs.read(b, a) for a in op.args]
        bufs.write(b, op.res, elementwise(op, args, fragment_type(t), b))
    else:
        assert isinstance(op, SubgroupMmaComputeOp)
        elem = op.opA.type.element_type  # type: ignore[union-attr]
        comb = Ops()
        _compute(op, bufs, scratch[str(elem)], b, comb)
        b.ops.extend(comb.ops)
    Rewriter.insert_op(b.ops, InsertPoint.before(op))


def _declare_scratch(module: ModuleOp, elem: Attribute, cap: int) -> tuple[str, MemRefType]:
    t = MemRefType(elem, [cap, 2 * PER_LANE], memory_space=IntegerAttr(LOCAL_MEMORY_SPACE, 64))
    taken = {o.properties["sym_name"].data for o in module.ops  # type: ignore[union-attr]
             if isinstance(o.properties.get("sym_name"), StringAttr)}
    name, n = SCRATCH_PREFIX + str(elem), 0
    while name in taken:
        n += 1
        name = f"{SCRATCH_PREFIX}{elem}_{n}"
    g = memref.GlobalOp.get(StringAttr(name), t, UnitAttr(), alignment=64)
    first = module.body.block.first_op
    Rewriter.insert_op(g, InsertPoint.before(first) if first else
                       InsertPoint.at_end(module.body.block))
    return name, t


def _check_sub_group_size(users: list[func.FuncOp]) -> None:
    for f in users:
        size = attrs.get_reqd_sub_group_size(f)
        if size is not None and size != WARP:
            first = next(o for o in f.walk() if is_mma_op(o))
            raise unsupported(PASS, first, f"needs sub-groups of {WARP}, the kernel's is {size}")
        if size is None:
            attrs.set_reqd_sub_group_size(f, WARP)


@dataclass(frozen=True)
class LowerSubgroupMma(ModulePass):
    """Emulate ``gpu.subgroup_mma_*`` with sub-groups of 32 work-items (per-lane pieces in
    private buffers, work-group local scratch and barriers for compute)."""

    name = "lower-subgroup-mma"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        users = mma_functions(op)
        if not users:
            return
        for f in users:
            for o in f.walk():
                if is_mma_op(o):
                    check_shape(PASS, o)
        _check_sub_group_size(users)
        scratch: dict[str, tuple[str, MemRefType]] = {}
        compute_users = [f for f in users
                         if any(isinstance(o, SubgroupMmaComputeOp) for o in f.walk())]
        if compute_users:
            # whole sub-groups: a partial last one reads rows of lanes it lacks
            cap = -(-capacity(op, compute_users) // WARP) * WARP
            record_work_group_limit(op, compute_users)
            for f in compute_users:
                for o in f.walk():
                    if isinstance(o, SubgroupMmaComputeOp):
                        elem = o.opA.type.element_type  # type: ignore[union-attr]
                        if str(elem) not in scratch:
                            scratch[str(elem)] = _declare_scratch(op, elem, cap)
        for f in users:
            bufs = _Buffers(f)
            _assign_buffers(f, bufs)
            _copies(f, bufs)
            mma_ops = [o for o in f.walk() if is_mma_op(o)]
            for o in mma_ops:
                _lower(o, bufs, scratch)
            for o in reversed(mma_ops):  # users first
                Rewriter.erase_op(o, safe_erase=False)
            _strip(f)
