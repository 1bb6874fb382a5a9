"""Translate a module in the ``llvm`` dialect (``dialects/llvm.py``) to LLVM IR via llvmlite.

Everything xDSL's translator already handles goes through
``xdsl.backend.llvm.convert_op.convert_op`` / ``convert_type`` / ``create_constant``. This module
adds what xmux needs on top:

- the ops xDSL's ``llvm`` dialect lacks (``dialects/llvmx.py``: atomics, fence, switch,
  uitofp/fptosi/fptoui, extractelement, addrspacecast) and ``llvm.add``/``sub``/``mul``/
  ``shl`` with upstream's ``#llvm.overflow`` flags;
- ``llvm.load`` / ``llvm.store`` with a non-zero ``ordering`` become atomic (xDSL drops it),
  volatile and nontemporal stores;
- ``llvm.call_intrinsic "llvm.smin"`` etc.: overloaded intrinsic names are mangled with their
  types (``llvm.smin.i32``), as MLIR's translation does, and fast-math flags are kept;
- loop metadata, as ``mlir-translate --mlir-to-llvmir`` makes it: a latch ``llvm.br`` /
  ``llvm.cond_br`` with ``loop_annotation = #llvm.loop_annotation<...>`` gets its
  ``!llvm.loop`` node (``parallelAccesses`` → ``llvm.loop.parallel_accesses``,
  ``mustProgress``, ``vectorize`` width/disable, ``interleave`` count, ``unroll`` disable),
  and a memory access (load, store, atomic, call) with ``access_groups = [...]`` gets
  ``!llvm.access.group``, so LLVM's loop vectorizer treats a parallel loop as free of
  cross-iteration dependences;
- function linkage (``internal`` helpers get inlined and dropped), ``llvm.mlir.global`` with
  initializer values or regions, alignment and linkage;
- errors: anything that cannot be translated raises ``NotSupportedError`` naming the op and the
  function.

Example: ``emit_text`` of::

    llvm.func internal @f(%p: !llvm.ptr, %v: i32) -> i32 {
      %0 = llvm.atomicrmw add %p, %v monotonic : !llvm.ptr, i32
      %1 = llvm.call_intrinsic "llvm.smin"(%0, %v) : (i32, i32) -> i32
      llvm.return %1 : i32
    }

is (after the triple and data layout lines)::

    define internal i32 @"f"(ptr %".1", i32 %".2")
    {
    .4:
      %".5" = atomicrmw add ptr %".1", i32 %".2" monotonic
      %".6" = call i32 @"llvm.smin.i32"(i32 %".5", i32 %".2")
      ret i32 %".6"
    }

    declare i32 @"llvm.smin.i32"(i32 %".1", i32 %".2")
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import llvmlite.ir as ir
from llvmlite.ir import instructions
from xdsl.backend.llvm.convert import _declare_func  # private, but it maps the arg attrs
from xdsl.backend.llvm.convert_op import CastInstrWithFlags, convert_op, create_constant
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import LLVMTranslationException

from xmux.abi.errors import NotSupportedError, XmuxError
from xmux.dialects import attrs, llvmx
from xmux.dialects import llvm as llvm_ext
from xmux.dialects.llvmx import NVVM_KERNEL
from xmux.lowering.locations import is_debug
from xmux.runtime.debug_info import DebugEmitter, FunctionDebug
from xmux.runtime.emit_metadata import Metadata

__all__ = ["emit_module", "emit_text"]

ValMap = dict[SSAValue, ir.Value]
BlockMap = dict[Block, ir.Block]


_OVERFLOW_BUILDERS = {"llvm.add": "add", "llvm.sub": "sub", "llvm.mul": "mul", "llvm.shl": "shl"}


# ---------------------------------------------------------------------------------------
# Instructions llvmlite cannot print as we need them
# ---------------------------------------------------------------------------------------


def _scope(syncscope: StringAttr | None) -> str:
    return f' syncscope("{syncscope.data}")' if syncscope is not None and syncscope.data else ""


def _align(alignment: IntegerAttr | None) -> str:
    return f", align {alignment.value.data}" if alignment is not None else ""


class _AtomicRMW(instructions.AtomicRMW):
    def __init__(self, parent: ir.Block, op: llvmx.AtomicRMWOp, ptr: ir.Value, val: ir.Value):
        super().__init__(parent, op.bin_op_name, ptr, val, llvmx.ordering_name(op.ordering), "")
        self.volatile = op.volatile_ is not None
        self.scope = _scope(op.syncscope)
        self.align_text = _align(op.alignment)

    def descr(self, buf: list[str]) -> None:
        ptr, val = self.operands
        buf.append(
            f"atomicrmw{' volatile' if self.volatile else ''} {self.operation} "
            f"{ptr.type} {ptr.get_reference()}, {val.type} {val.get_reference()}"
            f"{self.scope} {self.ordering}{self.align_text}"
            f"{self._stringify_metadata(leading_comma=True)}\n"
        )


class _CmpXchg(instructions.CmpXchg):
    def __init__(
        self,
        parent: ir.Block,
        op: llvmx.AtomicCmpXchgOp,
        ptr: ir.Value,
        cmp: ir.Value,
        new: ir.Value,
    ) -> None:
        super().__init__(
            parent,
            ptr,
            cmp,
            new,
            llvmx.ordering_name(op.success_ordering),
            llvmx.ordering_name(op.failure_ordering),
            "",
        )
        self.prefix = ("weak " if op.weak else "") + ("volatile " if op.volatile_ else "")
        self.scope = _scope(op.syncscope)
        self.align_text = _align(op.alignment)

    def descr(self, buf: list[str]) -> None:
        ptr, cmp, new = self.operands
        buf.append(
            f"cmpxchg {self.prefix}{ptr.type} {ptr.get_reference()}, "
            f"{cmp.type} {cmp.get_reference()}, {new.type} {new.get_reference()}"
            f"{self.scope} {self.ordering} {self.failordering}{self.align_text}"
            f"{self._stringify_metadata(leading_comma=True)}\n"
        )


class _Store(instructions.StoreInstr):
    """A store that can be atomic and/or volatile (llvmlite's StoreAtomicInstr checks the
    pointee type, which opaque pointers do not have, and has no volatile)."""

    def __init__(
        self,
        parent: ir.Block,
        val: ir.Value,
        ptr: ir.Value,
        ordering: str | None,
        align: int | None,
        volatile: bool,
    ) -> None:
        super().__init__(parent, val, ptr)
        self.ordering = ordering
        self.align = align
        self.volatile = volatile

    def descr(self, buf: list[str]) -> None:
        val, ptr = self.operands
        atomic = " atomic" if self.ordering else ""
        volatile = " volatile" if self.volatile else ""
        order = f" {self.ordering}" if self.ordering else ""
        align = f", align {self.align}" if self.align is not None else ""
        buf.append(
            f"store{atomic}{volatile} {val.type} {val.get_reference()}, "
            f"{ptr.type} {ptr.get_reference()}{order}{align}"
            f"{self._stringify_metadata(leading_comma=True)}\n"
        )


class _Fence(instructions.Fence):
    """A fence that prints its metadata (llvmlite's drops it: a debug build's ``!dbg``)."""

    def descr(self, buf: list[str]) -> None:
        scope = f'syncscope("{self.targetscope}") ' if self.targetscope is not None else ""
        buf.append(f"fence {scope}{self.ordering}{self._stringify_metadata(leading_comma=True)}\n")


def _natural_alignment(t: ir.Type) -> int:
    """ABI alignment of the scalar/vector types atomics use (x86-64 / AArch64 layouts)."""
    if isinstance(t, ir.IntType):
        size = max(1, (t.width + 7) // 8)
        return 1 << (size - 1).bit_length()
    if isinstance(t, ir.HalfType):
        return 2
    if isinstance(t, ir.FloatType):
        return 4
    if isinstance(t, (ir.DoubleType, ir.PointerType)):
        return 8
    if isinstance(t, ir.VectorType):
        return _natural_alignment(t.element) * t.count
    raise NotSupportedError(f"no natural alignment known for atomic access of type {t}")


# ---------------------------------------------------------------------------------------
# Op handlers (tried before xDSL's convert_op)
# ---------------------------------------------------------------------------------------


class _FunctionEmitter:
    def __init__(self, md: Metadata, fn_name: str, dbg: FunctionDebug | None = None) -> None:
        self.md = md
        self.fn_name = fn_name
        self.dbg = dbg  # debug builds: the function's subprogram, locations, variables
        self.val_map: ValMap = {}
        self.block_map: BlockMap = {}

    def v(self, value: SSAValue) -> ir.Value:
        return self.val_map[value]

    def add_incoming(self, dest: Block, operands: Sequence[SSAValue], pred: ir.Block) -> None:
        for arg, val in zip(dest.args, operands, strict=True):
            phi = self.val_map[arg]
            assert isinstance(phi, instructions.PhiInstr)
            phi.add_incoming(self.v(val), pred)

    def overflow_op(self, op: llvm_ext.AddOp, b: ir.IRBuilder) -> None:
        build = getattr(b, _OVERFLOW_BUILDERS[op.name])
        self.val_map[op.res] = build(self.v(op.lhs), self.v(op.rhs), flags=op.flags)

    def trunc(self, op: llvm_ext.TruncOp, b: ir.IRBuilder) -> None:
        instr = CastInstrWithFlags(
            b.block, "trunc", self.v(op.arg), convert_type(op.res.type), flags=op.flags
        )
        b._insert(instr)
        self.val_map[op.res] = instr

    # -- ops xDSL lacks (dialects/llvmx.py) ---------------------------------------------

    def atomicrmw(self, op: llvmx.AtomicRMWOp, b: ir.IRBuilder) -> None:
        instr = _AtomicRMW(b.block, op, self.v(op.ptr), self.v(op.val))
        b._insert(instr)
        self.val_map[op.res] = instr

    def cmpxchg(self, op: llvmx.AtomicCmpXchgOp, b: ir.IRBuilder) -> None:
        instr = _CmpXchg(b.block, op, self.v(op.ptr), self.v(op.val), self.v(op.new))
        b._insert(instr)
        self.val_map[op.res] = instr

    def fence(self, op: llvmx.FenceOp, b: ir.IRBuilder) -> None:
        scope = op.syncscope.data if op.syncscope is not None and op.syncscope.data else None
        b._insert(_Fence(b.block, llvmx.ordering_name(op.ordering), scope))

    def edge(
        self,
        dest: Block,
        operands: Sequence[SSAValue],
        b: ir.IRBuilder,
        taken: dict[Block, tuple[SSAValue, ...]],
    ) -> ir.Block:
        """The LLVM block one edge of a multi-way branch jumps to. A phi has one entry per
        edge and edges from one block to one block must agree on their values, so an edge
        that passes other operands than an earlier one goes through a trampoline block."""
        ops = tuple(operands)
        if taken.setdefault(dest, ops) == ops:
            self.add_incoming(dest, operands, b.block)
            return self.block_map[dest]
        trampoline = b.function.append_basic_block(name=f"{self.block_map[dest].name}.edge")
        self.add_incoming(dest, operands, trampoline)
        ir.IRBuilder(trampoline).branch(self.block_map[dest])
        return trampoline

    def switch(self, op: llvmx.SwitchOp, b: ir.IRBuilder) -> None:
        taken: dict[Block, tuple[SSAValue, ...]] = {}
        default = self.edge(op.defaultDestination, op.defaultOperands, b, taken)
        targets = [(value, self.edge(dest, ops, b, taken)) for value, dest, ops in op.cases()]
        sw = b.switch(self.v(op.value), default)
        for value, target in targets:
            sw.add_case(ir.Constant(sw.value.type, value), target)

    def uitofp(self, op: llvmx.UIToFPOp, b: ir.IRBuilder) -> None:
        flags = ["nneg"] if op.non_neg is not None else []
        instr = CastInstrWithFlags(
            b.block, "uitofp", self.v(op.arg), convert_type(op.res.type), flags=flags
        )
        b._insert(instr)
        self.val_map[op.res] = instr

    def fptosi(self, op: llvmx.FPToSIOp, b: ir.IRBuilder) -> None:
        self.val_map[op.res] = b.fptosi(self.v(op.arg), convert_type(op.res.type))

    def fptoui(self, op: llvmx.FPToUIOp, b: ir.IRBuilder) -> None:
        self.val_map[op.res] = b.fptoui(self.v(op.arg), convert_type(op.res.type))

    def addrspacecast(self, op: llvmx.AddrSpaceCastOp, b: ir.IRBuilder) -> None:
        self.val_map[op.res] = b.addrspacecast(self.v(op.arg), convert_type(op.res.type))

    def extractelement(self, op: llvmx.ExtractElementOp, b: ir.IRBuilder) -> None:
        self.val_map[op.res] = b.extract_element(self.v(op.vector), self.v(op.position))

    # -- llvm ops xDSL translates incompletely -------------------------------------------

    def load(self, op: llvm.LoadOp, b: ir.IRBuilder) -> None:
        ordering = op.ordering.value.data
        if ordering == 0:
            convert_op(op, b, self.val_map, self.block_map)
            return
        typ = convert_type(op.dereferenced_value.type)
        align = op.alignment.value.data if op.alignment else _natural_alignment(typ)
        instr = instructions.LoadAtomicInstr(
            b.block, self.v(op.ptr), llvmx.ATOMIC_ORDERINGS[ordering], align, typ=typ
        )
        b._insert(instr)
        self.val_map[op.dereferenced_value] = instr

    def store(self, op: llvm.StoreOp, b: ir.IRBuilder) -> None:
        ordering = op.ordering.value.data if op.ordering is not None else 0
        val = self.v(op.value)
        align = op.alignment.value.data if op.alignment else None
        if ordering and align is None:
            align = _natural_alignment(val.type)
        instr = _Store(
            b.block,
            val,
            self.v(op.ptr),
            llvmx.ATOMIC_ORDERINGS[ordering] if ordering else None,
            align,
            op.volatile_ is not None,
        )
        b._insert(instr)
        if op.nontemporal is not None:
            one = ir.Constant(ir.IntType(32), 1)
            instr.set_metadata("nontemporal", b.module.add_metadata([one]))

    def call_intrinsic(self, op: llvm.CallIntrinsicOp, b: ir.IRBuilder) -> None:
        if op.op_bundle_operands:
            raise NotSupportedError(
                f"llvm.call_intrinsic {op.intrin.data} in @{self.fn_name}: operand bundles"
            )
        args = [self.v(a) for a in op.args]
        ret = convert_type(op.ress.type) if op.ress is not None else ir.VoidType()
        name = mangle_intrinsic(op.intrin.data, ret, [a.type for a in args])
        fn = _intrinsic(b.module, name, ret, [a.type for a in args])
        flags = [f.value for f in op.fastmathFlags.data]
        result = b.call(fn, args, fastmath=flags if _is_fp(ret) else ())
        if op.ress is not None:
            self.val_map[op.ress] = result

    def branch(self, op: llvm.BrOp | llvm.CondBrOp, b: ir.IRBuilder) -> None:
        if (
            isinstance(op, llvm.CondBrOp)
            and op.then_block is op.else_block
            and tuple(op.then_arguments) != tuple(op.else_arguments)
        ):  # xDSL would give the phi two different values for one predecessor
            taken: dict[Block, tuple[SSAValue, ...]] = {}
            then = self.edge(op.then_block, op.then_arguments, b, taken)
            other = self.edge(op.else_block, op.else_arguments, b, taken)
            b.cbranch(self.v(op.cond), then, other)
        else:
            convert_op(op, b, self.val_map, self.block_map)
        annotation = attrs.get_loop_annotation(op)
        if annotation is not None:
            term = b.block.terminator
            assert term is not None
            term.set_metadata("llvm.loop", self.md.loop_id(annotation))

    def stacksave(self, op: llvm.StackSaveOp, b: ir.IRBuilder) -> None:
        ptr = convert_type(op.res.type)
        fn = _intrinsic(b.module, mangle_intrinsic("llvm.stacksave", ptr, []), ptr, [])
        self.val_map[op.res] = b.call(fn, [])

    def stackrestore(self, op: llvm.StackRestoreOp, b: ir.IRBuilder) -> None:
        ptr = self.v(op.operands[0])
        name = mangle_intrinsic("llvm.stackrestore", ir.VoidType(), [ptr.type])
        b.call(_intrinsic(b.module, name, ir.VoidType(), [ptr.type]), [ptr])

    def constant(self, op: llvm.ConstantOp, b: ir.IRBuilder) -> None:
        self.val_map[op.result] = constant(op.result.type, op.value)


def _intrinsic(module: ir.Module, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
    fnty = ir.FunctionType(ret, args)
    fn = module.globals.get(name)
    if fn is None:
        return ir.Function(module, fnty, name=name)
    if not isinstance(fn, ir.Function) or fn.function_type != fnty:
        raise NotSupportedError(f"{name} is used with two signatures ({fn.type} and {fnty})")
    return fn


def _is_fp(t: ir.Type) -> bool:
    if isinstance(t, ir.VectorType):
        t = t.element
    return isinstance(t, (ir.HalfType, ir.FloatType, ir.DoubleType))


_HANDLERS: dict[type[Operation], Callable[[_FunctionEmitter, Any, ir.IRBuilder], None]] = {
    **{cls: _FunctionEmitter.overflow_op for cls in llvm_ext.OVERFLOW_OPS.values()},
    llvm_ext.TruncOp: _FunctionEmitter.trunc,
    llvmx.AtomicRMWOp: _FunctionEmitter.atomicrmw,
    llvmx.AtomicCmpXchgOp: _FunctionEmitter.cmpxchg,
    llvmx.FenceOp: _FunctionEmitter.fence,
    llvmx.SwitchOp: _FunctionEmitter.switch,
    llvmx.UIToFPOp: _FunctionEmitter.uitofp,
    llvmx.FPToSIOp: _FunctionEmitter.fptosi,
    llvmx.FPToUIOp: _FunctionEmitter.fptoui,
    llvmx.ExtractElementOp: _FunctionEmitter.extractelement,
    llvmx.AddrSpaceCastOp: _FunctionEmitter.addrspacecast,
    llvm.LoadOp: _FunctionEmitter.load,
    llvm.StoreOp: _FunctionEmitter.store,
    llvm.CallIntrinsicOp: _FunctionEmitter.call_intrinsic,
    llvm.BrOp: _FunctionEmitter.branch,
    llvm.CondBrOp: _FunctionEmitter.branch,
    llvm.ConstantOp: _FunctionEmitter.constant,
    llvm.StackSaveOp: _FunctionEmitter.stacksave,
    llvm.StackRestoreOp: _FunctionEmitter.stackrestore,
}


# ---------------------------------------------------------------------------------------
# Intrinsic name mangling
# ---------------------------------------------------------------------------------------

_RET = -1
_BY_RESULT = (_RET,)
#: overloaded intrinsic → where its overloaded types come from (result = -1, or arg index)
_OVERLOADED: dict[str, tuple[int, ...]] = {
    **{
        f"llvm.{n}": _BY_RESULT
        for n in (
            "smin smax umin umax abs fma fmuladd minnum maxnum minimum maximum sqrt fabs "
            "floor ceil trunc round roundeven rint nearbyint copysign pow exp exp2 exp10 log "
            "log2 log10 sin cos tan ctpop ctlz cttz bitreverse bswap fshl fshr sadd.sat "
            "uadd.sat ssub.sat usub.sat sshl.sat ushl.sat canonicalize stacksave"
        ).split()
    },
    **{f"llvm.{n}.with.overflow": (0,) for n in ("sadd", "uadd", "ssub", "usub", "smul", "umul")},
    **{
        f"llvm.vector.reduce.{n}": (0,)
        for n in "add mul and or xor smax smin umax umin fmax fmin fmaximum fminimum".split()
    },
    "llvm.vector.reduce.fadd": (1,),
    "llvm.vector.reduce.fmul": (1,),
    "llvm.powi": (_RET, 1),
    "llvm.fptosi.sat": (_RET, 0),
    "llvm.fptoui.sat": (_RET, 0),
    "llvm.lrint": (_RET, 0),
    "llvm.llrint": (_RET, 0),
    "llvm.lround": (_RET, 0),
    "llvm.llround": (_RET, 0),
    "llvm.is.fpclass": (0,),
    "llvm.memcpy": (0, 1, 2),
    "llvm.memmove": (0, 1, 2),
    "llvm.memset": (0, 2),
    "llvm.masked.load": (_RET, 0),
    "llvm.masked.store": (0, 1),
    "llvm.masked.gather": (_RET, 0),
    "llvm.masked.scatter": (0, 1),
    "llvm.prefetch": (0,),
    "llvm.stackrestore": (0,),
}


def _type_suffix(t: ir.Type) -> str:
    if isinstance(t, ir.IntType):
        return f"i{t.width}"
    if isinstance(t, ir.HalfType):
        return "f16"
    if isinstance(t, ir.FloatType):
        return "f32"
    if isinstance(t, ir.DoubleType):
        return "f64"
    if isinstance(t, ir.PointerType):
        return f"p{t.addrspace}"
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{_type_suffix(t.element)}"
    if isinstance(t, ir.ArrayType):
        return f"a{t.count}{_type_suffix(t.element)}"
    raise NotSupportedError(f"cannot mangle an intrinsic name for type {t}")


def mangle_intrinsic(name: str, ret: ir.Type, args: Sequence[ir.Type]) -> str:
    """``llvm.smin`` with i32 → ``llvm.smin.i32``; names not known to be overloaded (or
    already mangled) are returned unchanged."""
    sources = _OVERLOADED.get(name)
    if sources is None:
        return name
    parts = [name]
    for s in sources:
        if s == _RET:
            parts.append(_type_suffix(ret))
        elif s < len(args):
            parts.append(_type_suffix(args[s]))
        else:
            raise NotSupportedError(f"{name}: expected at least {s + 1} arguments, got {len(args)}")
    return ".".join(parts)


# ---------------------------------------------------------------------------------------
# Constants and globals
# ---------------------------------------------------------------------------------------


def constant(type_attr: Attribute, value: Attribute) -> ir.Constant:
    """``create_constant`` plus splats and nested (multi-dimensional) arrays."""
    ty = convert_type(type_attr)
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(
        ty, (ir.ArrayType, ir.VectorType)
    ):
        flat = list(value.get_values())
        leaves = _leaf_count(ty)
        if len(flat) == 1 and leaves > 1:
            flat = flat * leaves
        if len(flat) != leaves:
            raise NotSupportedError(
                f"constant {value} has {len(flat)} elements, type {ty} needs {leaves}"
            )
        return _nest(ty, iter(flat))
    if isinstance(value, (IntegerAttr, FloatAttr, DenseIntOrFPElementsAttr)):
        return create_constant(type_attr, value)
    raise NotSupportedError(f"unsupported constant value {value} of type {type_attr}")


def _leaf_count(ty: ir.Type) -> int:
    if isinstance(ty, (ir.ArrayType, ir.VectorType)):
        return ty.count * _leaf_count(ty.element)
    return 1


def _nest(ty: ir.Type, flat: Any) -> ir.Constant:
    if isinstance(ty, ir.ArrayType):
        return ir.Constant(ty, [_nest(ty.element, flat) for _ in range(ty.count)])
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ty, [next(flat) for _ in range(ty.count)])
    return ir.Constant(ty, next(flat))


_AGGREGATES = (ir.ArrayType, ir.LiteralStructType)


def _element_types(ty: ir.Type) -> list[ir.Type]:
    if isinstance(ty, ir.ArrayType):
        return [ty.element] * ty.count
    assert isinstance(ty, ir.LiteralStructType)
    return list(ty.elements)


def _expand(c: ir.Value) -> Any:
    """A constant as nested lists of leaves, so insertvalue can replace one leaf."""
    if isinstance(c, ir.Constant) and isinstance(c.type, _AGGREGATES):
        fill = c.constant
        if isinstance(fill, list):
            return [_expand(e) for e in fill]
        return [_expand(ir.Constant(t, fill)) for t in _element_types(c.type)]
    return c


def _rebuild(ty: ir.Type, v: Any) -> ir.Constant:
    if isinstance(v, list):
        return ir.Constant(ty, [_rebuild(t, e) for t, e in zip(_element_types(ty), v, strict=True)])
    return v


def _eval_initializer(op: llvm.GlobalOp, module: ir.Module) -> ir.Constant:
    """Evaluate a global's initializer region (constants, zero, undef, insertvalue,
    addressof) to an llvmlite constant."""
    vals: dict[SSAValue, Any] = {}
    name = op.sym_name.data
    for inner in op.body.ops:
        match inner:
            case llvm.ConstantOp():
                vals[inner.result] = constant(inner.result.type, inner.value)
            case llvm.ZeroOp():
                vals[inner.res] = ir.Constant(convert_type(inner.res.type), None)
            case llvm.UndefOp():
                vals[inner.res] = ir.Constant(convert_type(inner.res.type), ir.Undefined)
            case llvm.AddressOfOp():
                vals[inner.result] = module.get_global(inner.global_name.root_reference.data)
            case llvm.InsertValueOp():
                agg = _expand(vals[inner.container])
                pos = list(inner.position.iter_values())
                slot = agg
                for i in pos[:-1]:
                    slot = slot[i]
                slot[pos[-1]] = _expand(vals[inner.value])
                vals[inner.res] = _rebuild(convert_type(inner.res.type), agg)
            case llvm.ReturnOp():
                return _rebuild(convert_type(op.global_type), _expand(vals[inner.operands[0]]))
            case _:
                raise NotSupportedError(
                    f"llvm.mlir.global @{name}: '{inner.name}' in the initializer region is "
                    "not supported (constants, zero, undef, insertvalue, addressof only)"
                )
    raise NotSupportedError(f"llvm.mlir.global @{name}: initializer region has no llvm.return")


def _declare_global(op: llvm.GlobalOp, module: ir.Module) -> ir.GlobalVariable:
    gvar = ir.GlobalVariable(
        module,
        convert_type(op.global_type),
        name=op.sym_name.data,
        addrspace=op.addr_space.value.data,
    )
    linkage = op.linkage.linkage.data
    gvar.linkage = "" if linkage == "external" else linkage
    gvar.global_constant = op.constant is not None
    if op.alignment is not None:
        gvar.align = op.alignment.value.data
    if op.thread_local_ is not None:
        gvar.storage_class = "thread_local"
    if op.unnamed_addr is not None and op.unnamed_addr.value.data == 2:
        gvar.unnamed_addr = True
    if op.section is not None:
        gvar.section = op.section.data
    return gvar


def _define_global(op: llvm.GlobalOp, gvar: ir.GlobalVariable, module: ir.Module) -> None:
    name = op.sym_name.data
    try:
        if isinstance(op.value, StringAttr):
            raw = op.value.data.encode("utf-8")
            init = ir.Constant(ir.ArrayType(ir.IntType(8), len(raw)), bytearray(raw))
            if init.type != gvar.value_type:
                raise NotSupportedError(
                    f"llvm.mlir.global @{name}: string of {len(raw)} bytes for type "
                    f"{gvar.value_type}"
                )
        elif op.value is not None:
            init = constant(op.global_type, op.value)
        elif op.body.blocks:
            init = _eval_initializer(op, module)
        elif op.linkage.linkage.data in ("external", "extern_weak"):
            return  # a declaration
        elif op.addr_space.value.data == 3:  # GPU shared memory has no initial value
            init = ir.Constant(gvar.value_type, ir.Undefined)
        else:
            init = ir.Constant(gvar.value_type, None)  # zero rather than undef: predictable
    except (LLVMTranslationException, KeyError, TypeError, ValueError) as e:
        raise NotSupportedError(f"llvm.mlir.global @{name}: cannot translate: {e}") from e
    gvar.initializer = init


# ---------------------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------------------

_FUNC_FLAGS = {"no_inline": "noinline", "no_unwind": "nounwind", "optimize_none": "optnone"}


def _declare_function(op: llvm.FuncOp, module: ir.Module) -> ir.Function:
    try:
        _declare_func(op, module)
    except LLVMTranslationException as e:
        raise NotSupportedError(f"llvm.func @{op.sym_name.data}: {e}") from e
    fn = module.get_global(op.sym_name.data)
    linkage = op.linkage.linkage.data
    if not op.body.blocks:
        # A declaration's linkage can only be external (or extern_weak); llvm.func's Python
        # constructor defaults to internal, which would make invalid IR.
        fn.linkage = "extern_weak" if linkage == "extern_weak" else ""
    else:
        fn.linkage = "" if linkage == "external" else linkage
    for prop, flag in _FUNC_FLAGS.items():
        if op.properties.get(prop) is not None:
            fn.attributes.add(flag)
    if op.optimize_none is not None:
        fn.attributes.add("noinline")
    if NVVM_KERNEL in op.attributes:  # upstream's marker of an NVPTX kernel entry
        fn.calling_convention = "ptx_kernel"
    if op.passthrough is not None:
        for entry in op.passthrough.data:
            if isinstance(entry, StringAttr):
                fn.attributes.add(entry.data)
    return fn


def _reverse_post_order(blocks: Sequence[Block]) -> list[Block]:
    """Blocks with every definition before its uses (region order need not be)."""
    seen: set[Block] = set()
    order: list[Block] = []
    stack: list[tuple[Block, int]] = [(blocks[0], 0)]
    seen.add(blocks[0])
    while stack:
        block, i = stack.pop()
        term = block.last_op
        succs = term.successors if term is not None else ()
        if i < len(succs):
            stack.append((block, i + 1))
            nxt = succs[i]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, 0))
        else:
            order.append(block)
    order.reverse()
    return order + [b for b in blocks if b not in seen]


def _define_function(op: llvm.FuncOp, fn: ir.Function, md: Metadata,
                     debug: DebugEmitter | None = None) -> None:
    # This replicates the small block/phi loop of xdsl.backend.llvm.convert._convert_func:
    # that function hard-wires convert_op for every op, so our handlers (added ops, atomics,
    # metadata, intrinsic mangling) could not run first. It also walks blocks in dominance
    # order instead of region order, so a use never precedes its definition.
    name = op.sym_name.data
    em = _FunctionEmitter(md, name, debug.function(op, fn) if debug is not None else None)
    blocks = list(op.body.blocks)
    for i, block in enumerate(blocks):
        em.block_map[block] = fn.append_basic_block(name=block.name_hint or "")
        if i == 0:
            for arg, llvm_arg in zip(block.args, fn.args, strict=True):
                em.val_map[arg] = llvm_arg
    for block in blocks[1:]:
        builder = ir.IRBuilder(em.block_map[block])
        for arg in block.args:
            em.val_map[arg] = builder.phi(convert_type(arg.type))
    for block in _reverse_post_order(blocks):
        builder = ir.IRBuilder(em.block_map[block])
        if em.dbg is not None:
            if block is blocks[0]:
                em.dbg.describe_arguments(builder, block.args)
            else:
                em.dbg.describe_block(builder, block, em.val_map)
        for inner in block.ops:
            _emit_op(inner, builder, em)
    if em.dbg is not None:
        em.dbg.finish()


def _emit_op(op: Operation, builder: ir.IRBuilder, em: _FunctionEmitter) -> None:
    handler = _HANDLERS.get(type(op))
    block = builder.block
    first_new = len(block.instructions)
    try:
        if handler is not None:
            handler(em, op, builder)
        else:
            convert_op(op, builder, em.val_map, em.block_map)
        em.md.attach_access_groups(op, block.instructions[first_new:])
        if em.dbg is not None:
            em.dbg.attach(op, block.instructions[first_new:])
            em.dbg.describe_values(builder, op.results, em.val_map)
    except XmuxError:
        raise
    except NotImplementedError as e:
        raise NotSupportedError(
            f"cannot translate '{op.name}' in @{em.fn_name} to LLVM IR: {str(e) or 'not supported'}"
        ) from e
    except (LLVMTranslationException, KeyError, TypeError, ValueError, AssertionError) as e:
        raise NotSupportedError(
            f"cannot translate '{op.name}' in @{em.fn_name} to LLVM IR: {type(e).__name__}: {e}"
        ) from e


# ---------------------------------------------------------------------------------------
# Module
# ---------------------------------------------------------------------------------------


def emit_module(module: ModuleOp, *, triple: str | None = None, data_layout: str = "",
                debug: bool | None = None) -> ir.Module:
    """Translate a module of ``llvm.func`` / ``llvm.mlir.global`` ops to an llvmlite module.

    ``debug`` (default: the module's ``xmux.debug`` attribute, which debug builds set):
    DWARF debug info from the ops' locations (``runtime/debug_info.py``).

    The triple is the module's ``llvm.target_triple`` attribute, else ``triple``, else that
    of its ``#xmux.target`` (``attrs.get_target``: ``DEFAULT_TARGET``'s without one).
    """
    out = ir.Module()
    module_triple = module.attributes.get("llvm.target_triple")
    if isinstance(module_triple, StringAttr):
        out.triple = module_triple.data
    else:
        out.triple = triple if triple is not None else attrs.get_target(module).triple.data
    if data_layout:
        out.data_layout = data_layout

    globals_: list[tuple[llvm.GlobalOp, ir.GlobalVariable]] = []
    funcs: list[tuple[llvm.FuncOp, ir.Function]] = []
    ops = list(module.ops)
    for op in ops:
        if not isinstance(op, (llvm.GlobalOp, llvm.FuncOp)):
            raise NotSupportedError(
                f"cannot translate '{op.name}' at module level to LLVM IR: only llvm.func and "
                "llvm.mlir.global can be translated (was the module lowered to the llvm dialect?)"
            )
    # Declare every symbol first: initializers and bodies may refer to any of them.
    for op in ops:
        if isinstance(op, llvm.GlobalOp):
            globals_.append((op, _declare_global(op, out)))
    for op in ops:
        if isinstance(op, llvm.FuncOp):
            funcs.append((op, _declare_function(op, out)))
    for op, gvar in globals_:
        _define_global(op, gvar, out)
    md = Metadata(out)
    dbg = DebugEmitter(out) if (is_debug(module) if debug is None else debug) else None
    for op, fn in funcs:
        if op.body.blocks:
            _define_function(op, fn, md, dbg)
        if NVVM_KERNEL in op.attributes:
            _annotate_nvvm_kernel(op, fn, out)
    return out


def _annotate_nvvm_kernel(op: llvm.FuncOp, fn: ir.Function, module: ir.Module) -> None:
    """A required work-group size becomes the entry's ``.reqntid`` (``nvvm.annotations``,
    which LLVM reads as the kernel's ``nvvm.reqntid``): ptxas then sizes registers for it.
    A cluster shape becomes ``.reqnctapercluster`` (annotations ``cluster_dim_x/y/z``, read
    as ``nvvm.cluster_dim``): a plain launch then runs clusters of that shape (sm_90)."""
    reqd = attrs.get_reqd_work_group_size(op)
    i32 = ir.IntType(32)
    cluster = attrs.get_cluster_dim(op)
    for axis, size in zip("xyz", cluster or (), strict=False):
        module.add_named_metadata(
            "nvvm.annotations",
            [fn, ir.MetaDataString(module, f"cluster_dim_{axis}"), ir.Constant(i32, size)],
        )
    if reqd is None:
        return
    for axis, size in zip("xyz", reqd, strict=True):
        module.add_named_metadata(
            "nvvm.annotations",
            [fn, ir.MetaDataString(module, f"reqntid{axis}"), ir.Constant(i32, size)],
        )


@contextlib.contextmanager
def _without_gc() -> Iterator[None]:
    """Python's cyclic garbage collector off while the module is translated and printed:
    emission allocates an llvmlite object or two and a few strings per op, which triggers
    collections that each walk the whole xDSL module (``bench/compile_scaling.py`` ``many``
    1000: 0.36-0.50 s of CPU with it, 0.22-0.24 s without). Left as it was found (a caller
    that turned it off keeps it off); what emission made is collected at the next one."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def emit_text(module: ModuleOp, **kwargs: Any) -> str:
    """LLVM IR text of ``module`` (see ``emit_module``)."""
    with _without_gc():
        return str(emit_module(module, **kwargs))
