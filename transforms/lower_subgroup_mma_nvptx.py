"""lower-subgroup-mma-nvptx: ``gpu.subgroup_mma_*`` → WMMA (``wmma.load`` / ``mma`` / ``store``).

The NVPTX form of lower-subgroup-mma, as upstream's ``convert-gpu-to-nvvm`` lowers these ops:
a fragment is the warp-distributed register set of PTX's ``wmma.m16n16k16`` (its element
layout is the hardware's, opaque to the program), carried as one vector of registers:

===========================  ==================================  ==========================
matrix                       registers (LLVM's intrinsics)       fragment value
===========================  ==================================  ==========================
AOp / BOp f16                8 x <2 x half>                      vector<16xf16>
COp f16                      4 x <2 x half>                      vector<8xf16>
COp f32                      8 x float                           vector<8xf32>
===========================  ==================================  ==========================

==================================  ========================================================
subgroup_mma_load_matrix            ``llvm.nvvm.wmma.m16n16k16.load.{a,b,c}.{row,col}.stride.
                                    {f16,f32}.p0`` on the element pointer of ``src[i, j]``
                                    (``transpose``: col), stride = leadDimension; ``.p3``
                                    (shared) for a work-group memref
subgroup_mma_store_matrix           ``llvm.nvvm.wmma.m16n16k16.store.d.{row,col}.stride...``
subgroup_mma_compute                ``llvm.nvvm.wmma.m16n16k16.mma.{row,col}.{row,col}.<D>.<C>``
                                    (``a_transpose`` / ``b_transpose``: col)
subgroup_mma_constant_matrix        ``vector.broadcast`` (every register holds the value)
subgroup_mma_elementwise            the arith op on the register vectors (as on the CPU;
                                    ``extf`` of an f16 accumulator to f32 keeps the element
                                    order, as the two accumulator layouts share it)
==================================  ========================================================

The intrinsics' struct results are unpacked with ``llvm.extractvalue`` into the fragment
vector (LLVM folds the packing away), so fragments cross ``scf.for`` / ``scf.if`` as plain
vectors. PTX: ``wmma.load.sync.aligned``, ``wmma.mma.sync.aligned``,
``wmma.store.sync.aligned`` (sm_70 and newer; every lane of the warp must execute them).

Expects: convert-gpu-to-mux has run; 16x16x16 shapes with f16 A and B and f16 / f32
accumulators. Other shapes and element types: an error naming the op and its function.
Guarantees: no ``gpu.subgroup_mma_*`` op nor ``!gpu.mma_matrix`` value is left.

Before::

    %d = gpu.subgroup_mma_compute %a, %b, %c : !gpu.mma_matrix<16x16xf16, "AOp">,
           !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">

After::

    %s = llvm.call_intrinsic "llvm.nvvm.wmma.m16n16k16.mma.row.row.f32.f32"(%a0, ..., %c7)
           : (vector<2xf16>, ..., f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %s[0] : ...       // and so on into vector<8xf32>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, llvm, vector
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float16Type,
    Float32Type,
    IntAttr,
    MemRefType,
    ModuleOp,
    VectorType,
    f16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.dialects import llvmx
from xmux.dialects.gpu_attrs import is_workgroup_space
from xmux.dialects.gpu_mma import (
    MMAMatrixType,
    SubgroupMmaComputeOp,
    SubgroupMmaConstantMatrixOp,
    SubgroupMmaElementwiseOp,
    SubgroupMmaLoadMatrixOp,
    SubgroupMmaStoreMatrixOp,
)
from xmux.transforms.lower_subgroup_mma import (
    check_shape,
    element_pointer,
    elementwise,
    is_mma_op,
    mma_functions,
    retype_values,
    unsupported,
)
from xmux.transforms.lower_work_group_collectives import Ops

PASS = "lower-subgroup-mma-nvptx"
PREFIX = "llvm.nvvm.wmma.m16n16k16"
HALF2 = VectorType(f16, [2])


def _suffix(t: Attribute) -> str:
    return "f16" if isinstance(t, Float16Type) else "f32"


def _registers(t: MMAMatrixType) -> list[Attribute]:
    """The LLVM registers of a fragment of ``t``."""
    if isinstance(t.element_type, Float32Type):
        return [t.element_type] * 8
    return [HALF2] * (8 if t.kind in ("AOp", "BOp") else 4)


def fragment_type(t: MMAMatrixType) -> VectorType:
    n = 16 if t.kind in ("AOp", "BOp") else 8
    return VectorType(t.element_type, [n])


def _check_types(op: Operation) -> None:
    for v in (*op.operands, *op.results):
        t = v.type
        if not isinstance(t, MMAMatrixType):
            continue
        ok = isinstance(t.element_type, Float16Type) or (
            t.kind == "COp" and isinstance(t.element_type, Float32Type))
        if not ok:
            raise unsupported(PASS, op, f"{t} is not supported on NVPTX (f16 A and B, f16 or "
                                        "f32 accumulators)")


def _unpack(b: Ops, s: SSAValue, t: MMAMatrixType) -> SSAValue:
    """The registers of struct ``s`` as the fragment vector."""
    vt = fragment_type(t)
    regs = _registers(t)
    v = b(arith.ConstantOp(_zero(vt)))
    pos = 0
    for i, r in enumerate(regs):
        x = b(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [i]), s, r))
        if r == HALF2:
            for h in range(2):
                e = b(vector.ExtractOp(x, [h], f16))
                v = b(vector.InsertOp(e, v, [pos]))
                pos += 1
        else:
            v = b(vector.InsertOp(x, v, [pos]))
            pos += 1
    return v


def _pack(b: Ops, v: SSAValue, t: MMAMatrixType) -> list[SSAValue]:
    """The fragment vector ``v`` as its registers."""
    out: list[SSAValue] = []
    pos = 0
    for r in _registers(t):
        if r == HALF2:
            pair = b(arith.ConstantOp(_zero(HALF2)))
            for h in range(2):
                e = b(vector.ExtractOp(v, [pos], f16))
                pair = b(vector.InsertOp(e, pair, [h]))
                pos += 1
            out.append(pair)
        else:
            out.append(b(vector.ExtractOp(v, [pos], r)))
            pos += 1
    return out


def _zero(t: VectorType) -> Attribute:
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    return DenseIntOrFPElementsAttr.from_list(t, [0.0] * t.element_count())


def _struct(t: MMAMatrixType) -> llvm.LLVMStructType:
    return llvm.LLVMStructType.from_type_list(_registers(t))


def _layout(flag: object) -> str:
    return "col" if flag is not None else "row"


def _pointer(b: Ops, ref: SSAValue, indices: tuple[SSAValue, ...]) -> tuple[SSAValue, str]:
    """The element pointer of ``ref[indices]`` and the intrinsic's pointer suffix: a
    work-group (shared) memref's pointer is cast to address space 3 (``.p3``: PTX's
    ``wmma.load...shared``, no generic-address conversion), others stay generic (``.p0``)."""
    ptr = element_pointer(b, ref, indices)
    t = ref.type
    assert isinstance(t, MemRefType)
    if is_workgroup_space(t.memory_space):
        shared = llvm.LLVMPointerType(IntAttr(3))
        return b(llvmx.AddrSpaceCastOp(ptr, shared)), "p3"
    return ptr, "p0"


def _lower(op: Operation, first: Attribute) -> None:
    b = Ops()
    new: SSAValue | None = None
    if isinstance(op, SubgroupMmaLoadMatrixOp):
        t = op.res.type
        assert isinstance(t, MMAMatrixType)
        frag = {"AOp": "a", "BOp": "b", "COp": "c"}[t.kind]
        ptr, space = _pointer(b, op.srcMemref, tuple(op.indices))
        ld = b(arith.ConstantOp.from_int_and_width(op.leadDimension.value.data, i32))
        name = (f"{PREFIX}.load.{frag}.{_layout(op.transpose)}.stride."
                f"{_suffix(t.element_type)}.{space}")
        s = b(llvm.CallIntrinsicOp(name, [ptr, ld], [_struct(t)]))
        new = _unpack(b, s, t)
    elif isinstance(op, SubgroupMmaStoreMatrixOp):
        assert isinstance(first, MMAMatrixType)
        ptr, space = _pointer(b, op.dstMemref, tuple(op.indices))
        ld = b(arith.ConstantOp.from_int_and_width(op.leadDimension.value.data, i32))
        name = (f"{PREFIX}.store.d.{_layout(op.transpose)}.stride."
                f"{_suffix(first.element_type)}.{space}")
        b(llvm.CallIntrinsicOp(name, [ptr, *_pack(b, op.src, first), ld], []))
    elif isinstance(op, SubgroupMmaComputeOp):
        assert isinstance(first, MMAMatrixType)
        tc = op.res.type
        assert isinstance(tc, MMAMatrixType)
        b_type = MMAMatrixType(first.dims, first.element_type, "BOp")
        ctype = _suffix(tc.element_type)
        name = (f"{PREFIX}.mma.{_layout(op.a_transpose)}.{_layout(op.b_transpose)}."
                f"{ctype}.{ctype}")
        args = [*_pack(b, op.opA, first), *_pack(b, op.opB, b_type), *_pack(b, op.opC, tc)]
        s = b(llvm.CallIntrinsicOp(name, args, [_struct(tc)]))
        new = _unpack(b, s, tc)
    elif isinstance(op, SubgroupMmaConstantMatrixOp):
        t = op.res.type
        assert isinstance(t, MMAMatrixType)
        new = b(vector.BroadcastOp(op.value, fragment_type(t)))
    else:
        assert isinstance(op, SubgroupMmaElementwiseOp)
        t = op.res.type
        assert isinstance(t, MMAMatrixType)
        new = elementwise(op, list(op.args), fragment_type(t), b)
    Rewriter.insert_op(b.ops, InsertPoint.before(op))
    if new is not None:
        res = op.results[0]
        if res.name_hint:
            new.name_hint = res.name_hint
        res.replace_all_uses_with(new)
    Rewriter.erase_op(op)


@dataclass(frozen=True)
class LowerSubgroupMmaNvptx(ModulePass):
    """Lower ``gpu.subgroup_mma_*`` to NVVM's WMMA intrinsics (fragments in registers)."""

    name = "lower-subgroup-mma-nvptx"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        users = mma_functions(op)
        if not users:
            return
        mma_ops = [o for f in users for o in f.walk() if is_mma_op(o)]
        for o in mma_ops:
            check_shape(PASS, o)
            _check_types(o)
        first_types = {o: o.operands[0].type for o in mma_ops}  # before retyping
        retype_values(op, fragment_type)
        for o in mma_ops:
            _lower(o, first_types[o])
