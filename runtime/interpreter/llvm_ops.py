"""The ``llvm`` dialect's value, control-flow and intrinsic ops, for modules clients hand over
partly lowered (kernels or helpers already in the llvm dialect).

The semantics are LLVM's and each rule is arith's or math's (``arith.py``, ``math.py``), so
an ``llvm.add`` computes exactly what the ``arith.addi`` it was lowered from computes: integers
wrap at their width (``nsw``/``nuw`` poison is not modelled), division by zero and shifts by
the width or more raise ``UndefinedBehaviorError``; ``icmp``/``fcmp`` share arith's predicate
numbering (all 16 fcmp predicates, unordered ones included); the ``llvm.intr.*`` math calls
the C library as the compiled code does. Aggregates are tuples (``llvm.mlir.undef`` and
``llvm.mlir.zero`` are zero-filled), vectors numpy arrays, pointers fake addresses
(``memory.py``: ``ptrtoint``/``addrspacecast`` keep them). Control flow: ``llvm.br``,
``cond_br``, ``switch``, ``return``, ``unreachable`` (UB when reached) and ``llvm.call`` of an
``llvm.func`` (a fresh frame) or of an external function the host program provides. The
pointer ops (load/store/GEP/alloca/atomics) live in ``misc.py``.

Not supported (``NotSupportedError`` naming the op): indirect ``llvm.call``,
``llvm.call_intrinsic``, ``llvm.inline_asm``, a barrier inside an ``llvm.func`` (the
work-group scheduler follows ``func.call`` only). (``llvm.intr.masked.store``: ``misc.py``.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import llvm
from xdsl.dialects.builtin import VectorType
from xdsl.interpreter import (
    InterpreterFunctions,
    ReturnedValues,
    Successor,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation

from xmux.abi.errors import NotSupportedError
from xmux.dialects import llvm as xllvm
from xmux.dialects import llvmx, mux
from xmux.runtime.interpreter import arith as ar
from xmux.runtime.interpreter import control
from xmux.runtime.interpreter import math as mt
from xmux.runtime.interpreter.errors import UndefinedBehaviorError
from xmux.runtime.interpreter.values import (
    elem_type,
    int_width,
    to_signed,
    vector_dtype,
    zero_of,
)

_INT: dict[type[Operation], Callable[[int, int, int, Any], int]] = {
    llvm.AddOp: lambda a, b, w, i: (a + b) & ((1 << w) - 1),
    llvm.SubOp: lambda a, b, w, i: (a - b) & ((1 << w) - 1),
    llvm.MulOp: lambda a, b, w, i: (a * b) & ((1 << w) - 1),
    llvm.UDivOp: ar._divui,
    llvm.SDivOp: ar._divsi,
    llvm.URemOp: ar._remui,
    llvm.SRemOp: ar._remsi,
    llvm.AndOp: lambda a, b, w, i: a & b,
    llvm.OrOp: lambda a, b, w, i: a | b,
    llvm.XOrOp: lambda a, b, w, i: a ^ b,
    llvm.ShlOp: ar._shli,
    llvm.LShrOp: ar._shrui,
    llvm.AShrOp: ar._shrsi,
    # the classes xmux registers in place of xDSL's (upstream's overflow-flags attribute)
    xllvm.AddOp: lambda a, b, w, i: (a + b) & ((1 << w) - 1),
    xllvm.SubOp: lambda a, b, w, i: (a - b) & ((1 << w) - 1),
    xllvm.MulOp: lambda a, b, w, i: (a * b) & ((1 << w) - 1),
    xllvm.ShlOp: ar._shli,
}
_FLOAT: dict[type[Operation], Callable[[Any, Any], Any]] = {
    llvm.FAddOp: lambda a, b: a + b,
    llvm.FSubOp: lambda a, b: a - b,
    llvm.FMulOp: lambda a, b: a * b,
    llvm.FDivOp: lambda a, b: a / b,
    llvm.FRemOp: np.fmod,  # C fmod, as LLVM's frem
    llvm.VectorFMaxOp: ar.maxnumf,
    llvm.VectorFMinOp: ar.minnumf,
}
_CASTS: dict[type[Operation], Callable[[Any, Operation, Any], Any]] = {
    llvm.SExtOp: ar._extsi,
    llvm.ZExtOp: ar._extui,
    llvm.TruncOp: ar._trunci,
    xllvm.TruncOp: ar._trunci,
    llvm.FPExtOp: ar._extf,
    llvm.FPTruncOp: ar._truncf,
    llvm.SIToFPOp: ar._sitofp,
    llvmx.UIToFPOp: ar._uitofp,
    llvmx.FPToSIOp: ar._fptosi,
    llvmx.FPToUIOp: ar._fptoui,
}
#: llvm.intr.* → the math op's rule (libm through ctypes for the transcendental ones)
_MATH_UNARY: dict[type[Operation], Callable[[Any], Any]] = {
    llvm.FAbsOp: np.abs,
    llvm.FCeilOp: np.ceil,
    llvm.FFloorOp: np.floor,
    llvm.FSqrtOp: np.sqrt,
    llvm.FExpOp: mt._UNARY[mt.math.ExpOp],
    llvm.FExp2Op: mt._UNARY[mt.math.Exp2Op],
    llvm.FLogOp: mt._UNARY[mt.math.LogOp],
    llvm.FLog2Op: mt._UNARY[mt.math.Log2Op],
    llvm.FSinOp: mt._UNARY[mt.math.SinOp],
    llvm.FCosOp: mt._UNARY[mt.math.CosOp],
}
_MATH_BINARY: dict[type[Operation], Callable[[Any, Any], Any]] = {
    llvm.FPowOp: mt._BINARY[mt.math.PowFOp],
    llvm.FCopySignOp: np.copysign,
}


def _zero(t: Attribute) -> Any:
    """The zero value of ``t`` (``llvm.mlir.zero``; also what ``llvm.mlir.undef`` yields)."""
    if isinstance(t, llvm.LLVMStructType):
        return tuple(_zero(ft) for ft in t.types.data)
    if isinstance(t, llvm.LLVMArrayType):
        return tuple(_zero(t.type) for _ in range(t.size.data))
    if isinstance(t, llvm.LLVMPointerType):
        return 0
    return zero_of(t)


def _lane(v: Any) -> Any:
    """A numpy integer lane as a canonical Python int (floats unchanged)."""
    return int(v) if isinstance(v, np.integer | np.bool_) else v


class LlvmFunctions(InterpreterFunctions):
    """llvm.* value, control-flow and intrinsic ops (tables above; ``register_impls`` below)."""

    @impl(llvm.UndefOp)
    def run_undef(self, interp, op, args):
        return (_zero(op.res.type),)

    @impl(llvm.ZeroOp)
    def run_zero(self, interp, op, args):
        return (_zero(op.res.type),)

    @impl(llvm.FNegOp)
    def run_fneg(self, interp, op, args):
        return (-args[0],)

    @impl(llvm.SelectOp)
    def run_select(self, interp, op, args):
        c, a, b = args
        if isinstance(c, np.ndarray):
            return (np.where(c, a, b).astype(a.dtype),)
        return (a if c else b,)

    @impl(llvm.ICmpOp)
    def run_icmp(self, interp, op, args):
        fn = ar.CMPI[op.predicate.value.data]  # LLVM's numbering is arith.cmpi's
        w = ar.width_of(op)
        if isinstance(args[0], np.ndarray):
            return (ar._lanes(lambda x, y: int(fn(x, y, w)), args, op.res.type),)
        return (int(fn(*args, w)),)

    @impl(llvm.FCmpOp)
    def run_fcmp(self, interp, op, args):
        fn = ar.CMPF[op.predicate.value.data]  # LLVM's numbering is arith.cmpf's
        if isinstance(args[0], np.ndarray):
            return (ar._lanes(lambda x, y: int(fn(x, y)), args, op.res.type),)
        return (int(fn(*args)),)

    @impl(llvm.BitcastOp)
    def run_bitcast(self, interp, op, args):
        src, dst = op.arg.type, op.result.type
        if isinstance(src, llvm.LLVMPointerType) or isinstance(dst, llvm.LLVMPointerType):
            return (args[0],)
        if isinstance(src, VectorType) or isinstance(dst, VectorType):
            raw = np.asarray(args[0], dtype=vector_dtype(elem_type(src)))
            if int_width(elem_type(src)) == 1 or int_width(elem_type(dst)) == 1:
                raise NotSupportedError(f"llvm.bitcast of i1 vectors at {interp.where()}")
            out = raw.reshape(-1).view(vector_dtype(elem_type(dst)))
            if isinstance(dst, VectorType):
                return (out.reshape(dst.get_shape()).copy(),)
            return (_lane(out[0]),)
        return (ar._bitcast(args[0], op, interp),)

    @impl(llvm.PtrToIntOp)
    def run_ptrtoint(self, interp, op, args):
        return (args[0] & ((1 << int_width(op.results[0].type)) - 1),)  # type: ignore[operator]

    @impl(llvmx.AddrSpaceCastOp)
    def run_addrspacecast(self, interp, op, args):
        return (args[0],)

    # -- vectors ---------------------------------------------------------------------------
    @impl(llvmx.ExtractElementOp)
    def run_extractelement(self, interp, op, args):
        vec, i = args
        return (_lane(vec[self._index(interp, op, i, op.position.type, len(vec))]),)

    @impl(llvm.InsertElementOp)
    def run_insertelement(self, interp, op, args):
        vec, value, i = args
        out = vec.copy()
        out[self._index(interp, op, i, op.index.type, len(vec))] = value
        return (out,)

    @staticmethod
    def _index(interp, op, i: int, t: Attribute, n: int) -> int:
        if i >= n:  # the index is unsigned in LLVM; out of range: poison
            raise UndefinedBehaviorError(
                f"undefined behaviour: lane {to_signed(i, int_width(t) or 64)} of a "
                f"{n}-lane vector (poison) at {interp.where()}"
            )
        return i

    @impl(llvm.ShuffleVectorOp)
    def run_shufflevector(self, interp, op, args):
        a, b = args
        both = np.concatenate([a, b])
        lanes = []
        for m in op.mask.get_values():
            if m < 0:  # an undefined lane (-1 in the mask): zero
                lanes.append(np.zeros((), dtype=both.dtype)[()])
            else:
                lanes.append(both[m])
        return (np.array(lanes, dtype=both.dtype),)

    @impl(llvm.VectorReduceFAddOp)
    def run_reduce_fadd(self, interp, op, args):
        acc, vec = args
        for x in vec:  # in lane order, as LLVM without reassoc
            acc = acc + x
        return (acc,)

    @impl(llvm.VectorReduceFMulOp)
    def run_reduce_fmul(self, interp, op, args):
        acc, vec = args
        for x in vec:
            acc = acc * x
        return (acc,)

    # -- intrinsics --------------------------------------------------------------------------
    @impl(llvm.FMAOp)
    def run_fma(self, interp, op, args):
        if isinstance(args[0], np.ndarray):
            return (ar._lanes(mt.fma, args, op.res.type),)
        return (mt.fma(*args),)

    @impl(llvm.StackSaveOp)
    def run_stacksave(self, interp, op, args):
        return (0,)  # allocas live as long as the work-item: nothing to restore

    @impl(llvm.StackRestoreOp)
    def run_stackrestore(self, interp, op, args):
        return ()

    # -- control flow ------------------------------------------------------------------------
    @impl_terminator(llvm.BrOp)
    def run_br(self, interp, op, args):
        return Successor(op.successor, args), ()

    @impl_terminator(llvm.CondBrOp)
    def run_cond_br(self, interp, op, args):
        if args[0]:
            return Successor(op.then_block, interp.get_values(op.then_arguments)), ()
        return Successor(op.else_block, interp.get_values(op.else_arguments)), ()

    @impl_terminator(llvmx.SwitchOp)
    def run_switch(self, interp, op, args):
        flag = args[0]
        w = ar.width_of(op)
        cases = ([int(v) & ((1 << w) - 1) for v in op.case_values.get_values()]
                 if op.case_values is not None else [])
        if flag in cases:
            k = cases.index(flag)
            segments = op.case_operand_segments.get_values()
            start = sum(segments[:k])
            operands = op.caseOperands[start : start + segments[k]]
            return Successor(op.caseDestinations[k], interp.get_values(operands)), ()
        return Successor(op.defaultDestination, interp.get_values(op.defaultOperands)), ()

    @impl_terminator(llvm.ReturnOp)
    def run_return(self, interp, op, args):
        return ReturnedValues(args), ()

    @impl_terminator(llvm.UnreachableOp)
    def run_unreachable(self, interp, op, args):
        raise UndefinedBehaviorError(f"undefined behaviour: llvm.unreachable reached at "
                                     f"{interp.where()}")

    @impl(llvm.CallOp)
    def run_call(self, interp, op, args):
        if op.callee is None:
            raise NotSupportedError(f"interpreter: indirect llvm.call at {interp.where()}")
        callee = interp.shared.callees.get(op)
        if callee is None:
            callee = interp.shared.callees[op] = _llvm_callee(interp, op)
        return control.call(interp, op, callee, args, not callee.body.blocks)


def _llvm_callee(interp, op: llvm.CallOp) -> llvm.FuncOp:
    """The ``llvm.func`` an ``llvm.call`` calls (checked once per call op)."""
    name = op.callee.string_value()  # type: ignore[union-attr]
    callee = interp.shared.symbol(name)
    if not isinstance(callee, llvm.FuncOp):
        raise NotSupportedError(f"interpreter: llvm.call of @{name}, which is not an "
                                f"llvm.func, at {interp.where()}")
    # the work-group scheduler follows func.call only (coroutines.py)
    if any(mux.is_barrier_like(o) for o in callee.walk()):
        raise NotSupportedError(f"interpreter: a barrier inside the llvm.func @{name} at "
                                f"{interp.where()}")
    return callee


def _unary(fn: Callable[[Any], Any]):
    def run(self, interp, op, args):
        (x,) = args
        if isinstance(x, np.ndarray):  # the C functions go lane by lane themselves
            return (np.asarray(fn(x)).astype(x.dtype),)
        return (x.dtype.type(fn(x)),)

    return run


def _binary(fn: Callable[[Any, Any], Any]):
    def run(self, interp, op, args):
        a, b = args
        if isinstance(a, np.ndarray):
            return (np.asarray(fn(a, b)).astype(a.dtype),)
        return (a.dtype.type(fn(a, b)),)

    return run


def _attach(cls: type[Operation], run: Callable[..., Any]) -> None:
    # by module and class: xmux's llvm.add replaces xDSL's under the same op name
    setattr(LlvmFunctions, f"run_{cls.__module__.replace('.', '_')}_{cls.__name__}", run)


for _cls, _ifn in _INT.items():
    _attach(_cls, ar._int_impl(_cls, _ifn))
for _cls, _ffn in _FLOAT.items():
    _attach(_cls, ar._float_impl(_cls, _ffn))
for _cls, _cfn in _CASTS.items():
    _attach(_cls, ar._cast_impl(_cls, _cfn))
for _cls, _ufn in _MATH_UNARY.items():
    _attach(_cls, impl(_cls)(_unary(_ufn)))
for _cls, _bfn in _MATH_BINARY.items():
    _attach(_cls, impl(_cls)(_binary(_bfn)))
register_impls(LlvmFunctions)
