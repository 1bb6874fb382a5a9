"""The mux dialect from Python: enum values, builders, helpers, and the metadata passes' API."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    IndexType,
    MemRefType,
    ModuleOp,
    VectorType,
    f32,
    f64,
    i1,
    i8,
    i32,
)
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

from xmux.dialects import attrs, mux
from xmux.errors import XmuxError
from xmux.registry import make_context
from xmux.transforms.encode_kernel_metadata import EncodeKernelMetadataPass
from xmux.transforms.transfer_kernel_metadata import TransferKernelMetadataPass

# ---------------------------------------------------------------------------------------
# Enums
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("semantics", "ordering"),
    [
        (0x0, None),
        (0x100, None),  # memory flags alone are relaxed
        (0x2, "acquire"),
        (0x4 | 0x80, "release"),
        (0x8 | 0x100, "acq_rel"),
        (0x10 | 0x80 | 0x100 | 0x200, "seq_cst"),
    ],
)
def test_llvm_ordering(semantics: int, ordering: str | None) -> None:
    assert mux.llvm_ordering(semantics) == ordering


def test_llvm_ordering_rejects_two_orderings() -> None:
    with pytest.raises(ValueError, match="more than one ordering"):
        mux.llvm_ordering(0x2 | 0x4)


def test_scope_values_match_reference() -> None:
    expected = {"cross_device": 0, "device": 1, "work_group": 2, "sub_group": 3, "work_item": 4}
    for name, value in expected.items():
        assert mux.MemBarrierOp(name, 0).scope_value() == value
        assert mux.MemBarrierOp(value, 0).scope.data.value == name


def test_semantics_values_match_reference() -> None:
    op = mux.WorkGroupBarrierOp("work_group", ["acq_rel", "work_group_memory"])
    assert op.semantics_value() == 0x108
    assert op.scope_value() == 2
    assert mux.MemBarrierOp("device", "relaxed").semantics_value() == 0
    # every combination of one ordering and memory flags survives int → attr → int
    for ordering in (0, 0x2, 0x4, 0x8, 0x10):
        for memory in (0, 0x80, 0x100, 0x200, 0x380):
            v = ordering | memory
            assert mux.MemSemanticsAttr.from_int(v).value == v
            assert mux.MemBarrierOp("device", v).semantics_value() == v


def test_semantics_rejects_unknown_bits() -> None:
    with pytest.raises(ValueError, match="unknown memory semantics bits 0x1"):
        mux.MemSemanticsAttr.from_int(0x1)


def test_kind_classes_partition_all_kinds() -> None:
    kinds = set(mux.GroupOpKind)
    assert len(kinds) == 16
    assert mux.FLOAT_KINDS | mux.LOGICAL_KINDS | mux.INTEGER_KINDS == kinds
    assert not (mux.FLOAT_KINDS & mux.INTEGER_KINDS)
    assert not (mux.LOGICAL_KINDS & mux.INTEGER_KINDS)


# ---------------------------------------------------------------------------------------
# Builders and verifiers
# ---------------------------------------------------------------------------------------


def _values(*types):
    """Block arguments of the given types, to use as operands."""
    return Block(arg_types=types).args


def test_query_builders_default_to_index() -> None:
    for cls in mux.DIM_QUERIES:
        op = cls(2)
        op.verify()
        assert op.dim.value.data == 2
        assert isinstance(op.result.type, IndexType)
        assert isinstance(op, mux.DimQueryOp) and isinstance(op, mux.WorkItemQuery)
    for cls in mux.NON_DIM_QUERIES:
        op = cls(i32)
        op.verify()
        assert op.result.type == i32
        assert isinstance(op, mux.QueryOp) and isinstance(op, mux.WorkItemQuery)
    assert len(mux.DIM_QUERIES) == 8 and len(mux.NON_DIM_QUERIES) == 8


@pytest.mark.parametrize("dim", [-1, 3, 100])
def test_query_dim_out_of_range(dim: int) -> None:
    with pytest.raises(VerifyException, match=f"dimension must be 0, 1 or 2, got {dim}"):
        mux.GetLocalSizeOp(dim).verify()


def test_query_bad_result_type() -> None:
    with pytest.raises(VerifyException, match="result must be index, i32 or i64, got i8"):
        mux.GetWorkDimOp(i8).verify()


def test_set_local_id_builder() -> None:
    (iv,) = _values(IndexType())
    op = mux.SetLocalIdOp(1, iv)
    op.verify()
    assert op.dim.value.data == 1 and op.value is iv
    assert not isinstance(op, mux.WorkItemQuery)


def test_barrier_builders_and_ids() -> None:
    b = mux.WorkGroupBarrierOp()
    b.verify()
    assert b.barrier_id == 0 and b.scope_value() == 2 and b.semantics_value() == 0x108
    s = mux.SubGroupBarrierOp("sub_group", ["acquire", "sub_group_memory"], id=5)
    s.verify()
    assert s.barrier_id == 5 and s.semantics_value() == 0x82
    with pytest.raises(VerifyException, match="one ordering only, got acquire, seq_cst"):
        mux.MemBarrierOp("device", 0x2 | 0x10).verify()


def test_collective_builders_infer_result_types() -> None:
    i, f, b, x, v, vb, d = _values(
        i32, f32, i1, IndexType(), VectorType(i32, [4]), VectorType(i1, [4]), f64
    )
    ops = [
        mux.WorkGroupReduceOp("add", i, id=3),
        mux.WorkGroupScanInclusiveOp("fmul", f),
        mux.WorkGroupScanExclusiveOp("smax", x),
        mux.WorkGroupBroadcastOp(f, [x, x, x], id=1),
        mux.WorkGroupAnyOp(b, id=0),
        mux.WorkGroupAllOp(b),
        mux.SubGroupReduceOp("logical_xor", b),
        mux.SubGroupScanInclusiveOp("umin", i),
        mux.SubGroupScanExclusiveOp("fadd", d),
        mux.SubGroupBroadcastOp(d, i),
        mux.SubGroupAnyOp(b),
        mux.SubGroupAllOp(b),
        mux.VecGroupReduceOp("add", v),
        mux.VecGroupScanInclusiveOp("mul", v),
        mux.VecGroupScanExclusiveOp("fmax", f),
        mux.VecGroupBroadcastOp(v, i),
        mux.VecGroupAnyOp(vb),
        mux.VecGroupAllOp(b),
        mux.SubGroupShuffleOp(f, i),
        mux.SubGroupShuffleUpOp(d, d, i),
        mux.SubGroupShuffleDownOp(i, i, i),
        mux.SubGroupShuffleXorOp(x, i),
    ]
    assert {type(o) for o in ops} == set(mux.COLLECTIVE_OPS)
    for op in ops:
        op.verify()
    assert ops[0].result.type == i32 and ops[0].barrier_id == 3
    assert ops[0].kind_value == mux.GroupOpKind.ADD
    assert ops[3].result.type == f32 and ops[3].barrier_id == 1
    assert ops[4].result.type == i1
    assert ops[12].result.type == i32  # vec-group reduce: element type
    assert ops[13].result.type == VectorType(i32, [4])  # vec-group scan: same type
    assert ops[15].result.type == i32  # vec-group broadcast: element type
    assert ops[19].result.type == f64


def test_group_scope_and_collective_names() -> None:
    for cls in mux.COLLECTIVE_OPS:
        scope, _, rest = cls.name.removeprefix("mux.").partition("_group_")
        assert cls.GROUP_SCOPE == f"{scope}_group", cls.name
        assert cls.COLLECTIVE == rest, cls.name


def test_reduction_kind_type_errors() -> None:
    i, f = _values(i32, f32)
    with pytest.raises(
        VerifyException, match="kind smax needs an integer value, got f32 \\(use fmax"
    ):
        mux.SubGroupReduceOp("smax", f).verify()
    with pytest.raises(VerifyException, match="kind fmin needs a float value, got i32"):
        mux.WorkGroupReduceOp("fmin", i).verify()
    with pytest.raises(VerifyException, match="kind logical_and needs an i1 or integer value"):
        mux.VecGroupScanInclusiveOp("logical_and", f).verify()


def test_is_barrier_like() -> None:
    i, f, v = _values(i32, f32, VectorType(f32, [8]))
    assert mux.is_barrier_like(mux.WorkGroupBarrierOp())
    assert mux.is_barrier_like(mux.SubGroupBarrierOp())
    assert mux.is_barrier_like(mux.WorkGroupReduceOp("fadd", f))
    assert mux.is_barrier_like(mux.SubGroupShuffleXorOp(f, i))
    assert mux.is_barrier_like(mux.SubGroupBroadcastOp(f, i))
    # a fence, work-item state, and a vec-group op (within one invocation) are not
    assert not mux.is_barrier_like(mux.MemBarrierOp("work_group", 0x108))
    assert not mux.is_barrier_like(mux.GetLocalIdOp(0))
    assert not mux.is_barrier_like(mux.VecGroupReduceOp("fadd", v))


def test_dma_builders() -> None:
    local = MemRefType(f32, [64], memory_space=None)
    (dst, src, w) = _values(local, MemRefType(f32, [-1]), IndexType())
    e0 = mux.DmaRead1DOp(dst, src, w)
    e1 = mux.DmaWrite2DOp(src, dst, w, w, w, w, event=e0)
    e2 = mux.DmaRead3DOp(dst, src, w, w, w, w, w, w, w)
    wait = mux.DmaWaitOp([e0, e1, e2])
    for op in (e0, e1, e2, wait):
        op.verify()
    assert e0.event is None and e1.event is e0.result
    assert isinstance(e2.result.type, mux.EventType)
    assert (e0.RANK, e0.IS_READ, e1.RANK, e1.IS_READ, e2.RANK) == (1, True, 2, False, 3)
    assert e1.dst is src and e1.src is dst and e1.height is w
    assert len(wait.events) == 3


def test_launch_builder() -> None:
    a, n = _values(MemRefType(f32, [-1]), IndexType())
    op = mux.LaunchOp("k", [a], [n, n], [n, n])
    op.verify()
    assert op.kernel.string_value() == "k" and op.work_dim == 2 and len(op.global_offset) == 0
    with pytest.raises(VerifyException, match="local_size has 1 dimensions, global_size has 2"):
        mux.LaunchOp("k", [a], [n, n], [n]).verify()


def test_every_op_is_documented_and_registered() -> None:
    ops = list(mux.Mux.operations)
    names = [op.name for op in ops]
    assert len(names) == len(set(names))
    assert len(ops) == 16 + 1 + 3 + 22 + 7 + 1
    for op in ops:
        assert op.__doc__ and op.__doc__.strip(), op.name
        assert op.name.startswith("mux.")
    assert {a.name for a in mux.Mux.attributes} == {
        "mux.scope",
        "mux.semantics",
        "mux.kind",
        "mux.event",
    }


# ---------------------------------------------------------------------------------------
# Metadata passes from Python
# ---------------------------------------------------------------------------------------


def _module(*names: str) -> ModuleOp:
    fns = []
    for n in names:
        body = Region(Block())
        body.block.add_op(func.ReturnOp())
        fns.append(func.FuncOp(n, ((), ()), body))
    return ModuleOp(fns)


def test_encode_pass_from_python() -> None:
    m = _module("a", "b")
    EncodeKernelMetadataPass(kernel_name="b", local_sizes=(4,), work_item_order="zyx").apply(
        make_context(), m
    )
    a, b = list(m.ops)
    assert not attrs.is_kernel(a)
    assert attrs.is_entry_point(b)
    assert attrs.get_reqd_work_group_size(b) == (4, 1, 1)
    assert attrs.get_work_item_order(b) == (0, 1, 2)
    assert attrs.get_base_name(b) == "b"
    assert attrs.get_max_work_dim(b) is None


def test_encode_pass_unknown_kernel_lists_functions() -> None:
    with pytest.raises(
        XmuxError, match=r"no function named @c in the module \(functions: @a, @b\)"
    ):
        EncodeKernelMetadataPass(kernel_name="c").apply(make_context(), _module("a", "b"))


def test_transfer_pass_marks_all_uncalled_public_functions() -> None:
    m = _module("a", "b")
    TransferKernelMetadataPass(max_work_dim=1).apply(make_context(), m)
    for f in m.ops:
        assert attrs.is_entry_point(f)
        assert attrs.get_work_item_order(f) == attrs.DEFAULT_WORK_ITEM_ORDER
        assert attrs.WORK_ITEM_ORDER in f.attributes  # stored explicitly
        assert attrs.get_max_work_dim(f) == 1


def test_is_work_group_barrier_like() -> None:
    i, f, x = _values(i32, f32, IndexType())
    assert mux.is_work_group_barrier_like(mux.WorkGroupBarrierOp())
    assert mux.is_work_group_barrier_like(mux.WorkGroupBroadcastOp(f, [x, x, x]))
    assert not mux.is_work_group_barrier_like(mux.SubGroupBarrierOp())
    assert not mux.is_work_group_barrier_like(mux.SubGroupReduceOp("add", i))
    assert not mux.is_work_group_barrier_like(mux.MemBarrierOp("work_group", 0x108))


def test_docs_cover_every_op() -> None:
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "dialects.md").read_text()
    for op in mux.Mux.operations:
        assert f"### `{op.name}`" in text, f"{op.name} missing from docs/dialects.md"
