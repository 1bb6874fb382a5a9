"""convert-spec-to-llvm: the host's "native" specialization constants — values the JIT can see.

The SPIR-V translator of the reference turns ``__spirv_SpecConstant`` into ``OpSpecConstant``
that the driver specializes; on the host the JIT is the driver. Every scalar leaf
``spec.constant spec_id(N) = d : T`` becomes a load from an internal constant global
``@"xmux.spec_constant.N"`` whose initializer is the leaf's value (``values`` option, else the
default ``d``); ``spec.constant_composite`` becomes ``llvm.mlir.undef`` + ``llvm.insertvalue``
(structs, arrays) or ``llvm.insertelement`` (vectors). LLVM folds a load from a constant global
with a definitive initializer, so after the JIT's first instcombine the values are literals.
With ``declare-leaves=true`` (what ``xmux.compile``'s native mode runs) the globals are
external *declarations* instead: one lowering then serves every value set, the runtime
(``runtime/spec_constants.py``) linking a small module that defines them with a value set's
values (``SpecTable.values_module``) into the optimized template and JIT-compiling that,
instead of re-running the xDSL pipeline; nothing edits the printed IR. The module-level
records (``spec.property``, ``spec.default_values``) have no LLVM form and are dropped here
(``xmux.compile`` reads them before this pass).

Runs late (just before ``convert-to-llvm``) so the scheduling passes see pure ``spec.*`` ops
(hoisted and re-computed freely) rather than loads. The values are materialized at the top of
each function's entry block (once per leaf and function): the reads are invariant, and outside
the work-item loops they do not spoil the loops' parallel-access annotation (an un-annotated
load inside makes LLVM vectorize with run-time alias checks). For the same reason the emulated
buffer loads (``spec.buffer_load``, GEP from an entry-block argument) are hoisted there too.
Expects: ``lower-spec-constants`` has run (a marker left is an error). Guarantees: no
``spec.*`` ops and no ``spec.buffer_load`` marks left.

Option ``values="N=v,M=w"`` sets leaves by numeric id (``true``/``false`` for ``i1``);
``declare-leaves=true`` declares the leaf globals (no initializer, external linkage):
``llvm.mlir.global external constant @"xmux.spec_constant.0"() {addr_space = 0 : i32} : i32``.

Before::

    spec.property "id_int" : i32 = [(0, 0, 4)]
    spec.default_values "0x2A000000"
    func.func @k() {
      %x = spec.constant spec_id(0) = 42 : i32
      ...

After (``values="0=7"``)::

    llvm.mlir.global internal constant @"xmux.spec_constant.0"(7 : i32) {addr_space = 0 : i32} : i32
    func.func @k() {
      %0 = llvm.mlir.addressof @"xmux.spec_constant.0" : !llvm.ptr
      %x = llvm.load %0 : !llvm.ptr -> i32        // at the top of the entry block
      ...
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import XmuxError
from xmux.abi.spec_types import GLOBAL_PREFIX
from xmux.dialects import attrs, spec

PTR = llvm.LLVMPointerType()


def parse_values(text: str) -> dict[int, str]:
    """``"0=7,3=2.5"`` → {0: "7", 3: "2.5"}."""
    out: dict[int, str] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, sep, val = item.partition("=")
        if not sep or not key.strip().isdigit() or not val.strip():
            raise XmuxError(
                f"convert-spec-to-llvm: bad values entry {item!r} (expected numeric-id=value)"
            )
        out[int(key)] = val.strip()
    return out


def _literal(op: spec.SpecConstantOp, text: str) -> IntegerAttr | FloatAttr:
    t = op.result.type
    try:
        if isinstance(op.default_value, FloatAttr):
            return FloatAttr(float(text), t)  # type: ignore[arg-type]
        if t == IntegerAttr(1, 1).type:
            if text not in ("true", "false", "0", "1"):
                raise ValueError
            return IntegerAttr(int(text in ("true", "1")), t)  # type: ignore[arg-type]
        return IntegerAttr(int(text, 0), t)  # type: ignore[arg-type]
    except ValueError:
        raise XmuxError(
            f"convert-spec-to-llvm: value {text!r} for spec_id({op.id}) is not a {t}"
        ) from None


def _global_name(spec_id: int) -> str:
    return f"{GLOBAL_PREFIX}{spec_id}"


@dataclass(frozen=True)
class ConvertSpecToLLVM(ModulePass):
    """Lower ``spec.constant`` to loads of per-leaf constant globals and insertvalue chains."""

    name = "convert-spec-to-llvm"

    values: str = ""
    declare_leaves: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        given = parse_values(self.values)
        leaves: dict[int, IntegerAttr | FloatAttr] = {}
        hoist = _Hoister()
        for o in list(op.walk()):
            if isinstance(o, spec.GetSpecConstantOp):
                raise XmuxError(
                    f"convert-spec-to-llvm: {o.name} \"{o.symbolic_id.data}\" is not lowered; "
                    "run lower-spec-constants first"
                )
            if isinstance(o, spec.SpecConstantOp):
                value = _literal(o, given[o.id]) if o.id in given else o.default_value
                if o.id in leaves and leaves[o.id] != value:
                    raise XmuxError(
                        f"convert-spec-to-llvm: spec_id({o.id}) has two values "
                        f"({leaves[o.id]} and {value})"
                    )
                leaves[o.id] = value  # type: ignore[assignment]
                hoist.leaf(o)
            elif isinstance(o, spec.ConstantCompositeOp):
                hoist.composite(o, self._composite(o))
            elif isinstance(o, llvm.LoadOp) and attrs.is_spec_buffer_load(o):
                attrs.set_spec_buffer_load(o, False)
                hoist.buffer_load(o)
            elif isinstance(o, (spec.PropertyOp, spec.DefaultValuesOp)):
                o.detach()
                o.erase()
        unknown = sorted(set(given) - set(leaves))
        if unknown:
            raise XmuxError(
                f"convert-spec-to-llvm: no spec.constant with spec_id {unknown[0]} in the module"
            )
        globals_: list[Operation] = [
            llvm.GlobalOp(v.type, _global_name(i), "external", constant=True)
            if self.declare_leaves
            else llvm.GlobalOp(v.type, _global_name(i), "internal", constant=True, value=v)
            for i, v in sorted(leaves.items())
        ]
        if globals_:
            block = op.body.blocks[0]
            if block.first_op is None:
                block.add_ops(globals_)
            else:
                Rewriter.insert_op(globals_, InsertPoint.before(block.first_op))

    @staticmethod
    def _composite(o: spec.ConstantCompositeOp) -> list[Operation]:
        t: Attribute = o.result.type
        ops: list[Operation] = [llvm.UndefOp(t)]
        for i, e in enumerate(o.elements):
            if isinstance(e.owner, llvm.UndefOp):
                continue  # an undef member (explicit padding) stays undef
            agg = ops[-1].results[0]
            if isinstance(t, VectorType):
                idx = llvm.ConstantOp(IntegerAttr(i, i32), i32)
                ops += [idx, llvm.InsertElementOp(agg, e, idx.result)]
            else:
                ops.append(llvm.InsertValueOp(DenseArrayBase.from_list(i64, [i]), agg, e))
        return ops


def _entry_block(op: Operation) -> Block | None:
    fn = op.parent_op()
    while fn is not None and not isinstance(fn, (func.FuncOp, llvm.FuncOp)):
        fn = fn.parent_op()
    return fn.body.blocks[0] if fn is not None and fn.body.blocks else None


class _Hoister:
    """Materializes values at the top of their function's entry block, in program order."""

    def __init__(self) -> None:
        self._anchor: dict[Block, Operation | None] = {}  # last op hoisted into each block
        self._leaves: dict[tuple[Block, int], SSAValue] = {}

    def _insert(self, block: Block, ops: list[Operation]) -> None:
        last = self._anchor.get(block)
        if last is None:
            first = block.first_op
            if first is None:
                block.add_ops(ops)
            else:
                Rewriter.insert_op(ops, InsertPoint.before(first))
        else:
            Rewriter.insert_op(ops, InsertPoint.after(last))
        self._anchor[block] = ops[-1]

    @staticmethod
    def _replace(o: Operation, value: SSAValue) -> None:
        if value.name_hint is None:
            value.name_hint = o.results[0].name_hint
        o.results[0].replace_all_uses_with(value)
        o.detach()
        o.erase()

    def leaf(self, o: spec.SpecConstantOp) -> None:
        block = _entry_block(o)
        if block is None:  # not in a function: materialize in place
            addr = llvm.AddressOfOp(_global_name(o.id), PTR)
            load = llvm.LoadOp(addr, o.result.type)
            Rewriter.insert_op([addr, load], InsertPoint.before(o))
            self._replace(o, load.dereferenced_value)
            return
        value = self._leaves.get((block, o.id))
        if value is None:
            addr = llvm.AddressOfOp(_global_name(o.id), PTR)
            load = llvm.LoadOp(addr, o.result.type)
            self._insert(block, [addr, load])
            value = self._leaves[(block, o.id)] = load.dereferenced_value
        self._replace(o, value)

    def composite(self, o: spec.ConstantCompositeOp, ops: list[Operation]) -> None:
        block = _entry_block(o)
        if block is None:
            Rewriter.insert_op(ops, InsertPoint.before(o))
        else:
            self._insert(block, ops)  # its elements are hoisted already (program order)
        undefs = [e.owner for e in o.elements if isinstance(e.owner, llvm.UndefOp)]
        self._replace(o, ops[-1].results[0])
        for u in undefs:
            if u.parent is not None and not any(True for _ in u.results[0].uses):
                u.detach()
                u.erase()

    def buffer_load(self, load: llvm.LoadOp) -> None:
        gep = load.ptr.owner
        block = _entry_block(load)
        if (
            block is None
            or not isinstance(gep, llvm.GEPOp)
            or sum(1 for _ in gep.results[0].uses) != 1
            or not isinstance(gep.ptr, BlockArgument)
            or gep.ptr.block is not block
        ):
            return  # the buffer is not an argument of this function: leave the load be
        gep.detach()
        load.detach()
        self._insert(block, [gep, load])
