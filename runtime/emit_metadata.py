"""LLVM IR metadata for ``runtime/emit.py``: access groups and ``!llvm.loop`` nodes from
upstream's ``access_groups`` / ``#llvm.loop_annotation`` attributes, as
``mlir-translate --mlir-to-llvmir`` makes them."""

from __future__ import annotations

from collections.abc import Sequence

import llvmlite.ir as ir
from llvmlite.ir import instructions
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr
from xdsl.dialects.builtin import i1 as builtin_i1
from xdsl.ir import Attribute, Operation

from xmux.dialects import attrs
from xmux.dialects import llvm as llvm_ext

__all__ = ["Metadata"]


# ---------------------------------------------------------------------------------------
# Metadata
# ---------------------------------------------------------------------------------------


class _DistinctNode(ir.values.MDValue):
    """``distinct !{...}``: llvmlite only makes uniqued nodes, and loop ids must be distinct
    (and refer to themselves), as must access groups."""

    def __init__(self, module: ir.Module, operands: Sequence[ir.Value] = ()) -> None:
        super().__init__(module, operands, name=str(len(module.metadata)))

    def descr(self, buf: list[str]) -> None:
        buf.append("distinct ")
        super().descr(buf)

    # llvmlite's MDValue compares by operands, so add_metadata would merge nodes that refer
    # to different (empty) access groups: a distinct node is only equal to itself
    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


class Metadata:
    """The access-group and loop nodes of one LLVM module."""

    def __init__(self, module: ir.Module) -> None:
        self.module = module
        self.groups: dict[int, _DistinctNode] = {}

    def access_group(self, gid: int) -> _DistinctNode:
        if gid not in self.groups:
            self.groups[gid] = _DistinctNode(self.module)
        return self.groups[gid]

    def attach_access_groups(self, op: Operation, instrs: Sequence[ir.Instruction]) -> None:
        """``access_groups`` of ``op`` on the memory-touching instructions it became
        (loads, stores, atomics and calls: the inliner hands a call's groups on)."""
        gids = attrs.get_access_groups(op)
        if not gids:
            return
        nodes = [self.access_group(g) for g in gids]
        node = nodes[0] if len(nodes) == 1 else self.module.add_metadata(nodes)
        for instr in instrs:
            if isinstance(instr, _MEMORY_INSTRUCTIONS):
                instr.set_metadata("llvm.access.group", node)

    def loop_id(self, annotation: llvm_ext.LoopAnnotationAttr) -> _DistinctNode:
        """The ``!llvm.loop`` node of a latch's ``#llvm.loop_annotation`` (the parameters
        xmux writes; ``attrs.set_loop_annotation`` says why these)."""
        i1, i32 = ir.IntType(1), ir.IntType(32)
        props: list[ir.Value] = []

        def prop(key: str, value: Attribute | None, typ: ir.IntType) -> None:
            if isinstance(value, IntegerAttr):
                props.append(self.module.add_metadata([key, ir.Constant(typ, value.value.data)]))

        groups = annotation.get("parallelAccesses")
        if isinstance(groups, ArrayAttr) and groups.data:
            nodes = [self.access_group(g.id.data) for g in groups.data]
            props.append(self.module.add_metadata(["llvm.loop.parallel_accesses", *nodes]))
        if _true(annotation.get("mustProgress")):
            props.append(self.module.add_metadata(["llvm.loop.mustprogress"]))
        vectorize = annotation.get("vectorize")
        if isinstance(vectorize, llvm_ext.LoopVectorizeAttr):
            prop("llvm.loop.vectorize.width", vectorize.get("width"), i32)
            disable = vectorize.get("disable")
            if disable is not None:  # upstream: enable = !disable
                enable = IntegerAttr(0 if _true(disable) else 1, builtin_i1)
                prop("llvm.loop.vectorize.enable", enable, i1)
        interleave = annotation.get("interleave")
        if isinstance(interleave, llvm_ext.LoopInterleaveAttr):
            prop("llvm.loop.interleave.count", interleave.get("count"), i32)
        unroll = annotation.get("unroll")
        if isinstance(unroll, llvm_ext.LoopUnrollAttr) and _true(unroll.get("disable")):
            props.append(self.module.add_metadata(["llvm.loop.unroll.disable"]))
        node = _DistinctNode(self.module)
        node.operands = (node, *props)
        return node


def _true(attr: Attribute | None) -> bool:
    """A ``true`` bool parameter (xDSL reads ``true`` as i1 -1 or 1)."""
    return isinstance(attr, IntegerAttr) and attr.value.data != 0


_MEMORY_INSTRUCTIONS = (
    instructions.LoadInstr,
    instructions.StoreInstr,
    instructions.LoadAtomicInstr,
    instructions.StoreAtomicInstr,
    instructions.AtomicRMW,
    instructions.CmpXchg,
    instructions.CallInstr,
)
