"""func → llvm: functions (signature conversion, linkage), calls and returns.

Memref arguments and results are passed as descriptor structs by value. Several results are
packed into a struct. Defined functions other than ``main``, entry points (``mux.kernel =
"entry_point"``), entry hooks (``*.mux-entry-hook``), NVPTX entries (``nvvm.kernel``) and
``llvm.emit_c_interface`` functions get ``internal`` linkage so LLVM inlines and drops them;
declarations stay external. Discardable attributes (``mux.*``) are kept on the ``llvm.func``;
a ``passthrough`` array (LLVM function attributes, as upstream's func-to-llvm) becomes the
``llvm.func``'s property.
"""

from __future__ import annotations

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    MemRefType,
    UnrankedMemRefType,
    i64,
)
from xdsl.ir import Attribute, Operation, Region

from xmux.dialects import attrs
from xmux.dialects.llvmx import NVVM_KERNEL
from xmux.lowering.to_llvm.core import FunctionLowerer, Handler, ModuleLowerer
from xmux.lowering.to_llvm.types import convert_types, function_type

ENTRY_HOOK_SUFFIX = ".mux-entry-hook"
C_INTERFACE = "llvm.emit_c_interface"
PASSTHROUGH = "passthrough"


def keeps_external_linkage(f: Operation, name: str) -> bool:
    return (
        name == "main"
        or name.endswith(ENTRY_HOOK_SUFFIX)
        or attrs.is_entry_point(f)
        or C_INTERFACE in f.attributes
        or NVVM_KERNEL in f.attributes
    )


def _arg_attrs(f: func.FuncOp) -> ArrayAttr[DictionaryAttr] | None:
    """Argument attributes that still apply: dropped on memrefs (now descriptor structs)."""
    if f.arg_attrs is None:
        return None
    kept = [
        d if not isinstance(t, (MemRefType, UnrankedMemRefType)) else DictionaryAttr({})
        for d, t in zip(f.arg_attrs.data, f.function_type.inputs.data, strict=True)
    ]
    if all(not d.data for d in kept):
        return None
    return ArrayAttr(kept)


def lower_function(mod: ModuleLowerer, f: func.FuncOp) -> llvm.FuncOp:
    name = f.sym_name.data
    inputs = convert_types(f.function_type.inputs.data)
    outputs = convert_types(f.function_type.outputs.data)
    declaration = not f.body.blocks
    linkage = "external" if declaration or keeps_external_linkage(f, name) else "internal"
    props: dict[str, Attribute | None] = {}
    if (arg_attrs := _arg_attrs(f)) is not None:
        props["arg_attrs"] = arg_attrs
    extra = dict(f.attributes)
    if isinstance(extra.get(PASSTHROUGH), ArrayAttr):
        props[PASSTHROUGH] = extra.pop(PASSTHROUGH)
    new = llvm.FuncOp(
        name,
        function_type(inputs, outputs),
        linkage=llvm.LinkageAttr(linkage),
        body=Region(),
        other_props=props,
        extra_attrs=extra,
    )
    if not declaration:
        FunctionLowerer(mod, name, new.body).lower_function_body(f.body, inputs)
    return new


def lower_llvm_function(mod: ModuleLowerer, f: llvm.FuncOp) -> llvm.FuncOp:
    """An llvm.func built by an earlier pass may still hold arith/scf/memref ops."""
    if not f.body.blocks:
        return f
    new = f.clone_without_regions()
    lw = FunctionLowerer(mod, f.sym_name.data, new.body)
    lw.lower_function_body(f.body, list(f.function_type.inputs.data))
    return new


def _pack(lw: FunctionLowerer, values: list, struct: Attribute):
    d = lw.emit_value(llvm.UndefOp(struct))
    for i, v in enumerate(values):
        d = lw.emit_value(llvm.InsertValueOp(DenseArrayBase.from_list(i64, [i]), d, v))
    return d


def lower_return(lw: FunctionLowerer, op: Operation) -> None:
    values = lw.get_all(op.operands)
    if not values:
        lw.emit(llvm.ReturnOp())
    elif len(values) == 1:
        lw.emit(llvm.ReturnOp(values[0]))
    else:
        struct = llvm.LLVMStructType.from_type_list([v.type for v in values])
        lw.emit(llvm.ReturnOp(_pack(lw, values, struct)))


def lower_call(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, func.CallOp)
    args = lw.get_all(op.arguments)
    outs = convert_types([r.type for r in op.res])
    ret = function_type([a.type for a in args], outs).output
    call = llvm.CallOp(
        op.callee, *args, return_type=None if isinstance(ret, llvm.LLVMVoidType) else ret
    )
    lw.emit(call)
    if len(outs) == 1:
        assert call.returned is not None
        lw.set(op.res[0], call.returned)
    elif outs:
        assert call.returned is not None
        for i, (r, t) in enumerate(zip(op.res, outs, strict=True)):
            lw.set(
                r,
                lw.emit_value(
                    llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [i]), call.returned, t)
                ),
            )


HANDLERS: dict[str, Handler] = {
    "func.return": lower_return,
    "func.call": lower_call,
}
