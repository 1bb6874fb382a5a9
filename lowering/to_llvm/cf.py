"""cf → llvm: branches map 1:1 (``cf.switch`` → ``llvm.switch``); ``cf.assert`` branches to a
block that prints the message with ``puts`` and calls ``abort`` (as MLIR's cf-to-llvm)."""

from __future__ import annotations

from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation

from xmux.dialects import llvmx
from xmux.lowering.to_llvm.core import FunctionLowerer, Handler
from xmux.lowering.to_llvm.types import PTR


def lower_br(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, cf.BranchOp)
    lw.emit(llvm.BrOp(lw.bmap[op.successor], *lw.get_all(op.arguments)))


def lower_cond_br(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, cf.ConditionalBranchOp)
    lw.emit(
        llvm.CondBrOp(
            lw.get(op.cond),
            lw.bmap[op.then_block],
            lw.get_all(op.then_arguments),
            lw.bmap[op.else_block],
            lw.get_all(op.else_arguments),
        )
    )


def lower_switch(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, cf.SwitchOp)
    values = [] if op.case_values is None else [int(v) for v in op.case_values.get_values()]
    segments = list(op.case_operand_segments.get_values())
    operands = lw.get_all(op.case_operands)
    cases = []
    start = 0
    for value, dest, n in zip(values, op.case_blocks, segments, strict=True):
        cases.append((value, lw.bmap[dest], operands[start : start + n]))
        start += n
    lw.emit(
        llvmx.SwitchOp(
            lw.get(op.flag), lw.bmap[op.default_block], lw.get_all(op.default_operands), cases
        )
    )


def lower_assert(lw: FunctionLowerer, op: Operation) -> None:
    assert isinstance(op, cf.AssertOp)
    ok = lw.new_block()
    fail = lw.new_block()
    lw.emit(llvm.CondBrOp(lw.get(op.arg), ok, [], fail, []))
    lw.start(fail)
    msg = lw.mod.string_global(f"assertion failed in @{lw.func_name}: {op.msg.data}")
    puts = lw.mod.declare("puts", [PTR], IntegerType(32))
    abort = lw.mod.declare("abort", [], None)
    addr = lw.emit_value(llvm.AddressOfOp(msg, PTR))
    with lw.untagged():
        lw.call(puts, [addr], IntegerType(32))
        lw.call(abort, [], None)
    lw.emit(llvm.UnreachableOp())
    lw.start(ok)


HANDLERS: dict[str, Handler] = {
    "cf.br": lower_br,
    "cf.cond_br": lower_cond_br,
    "cf.switch": lower_switch,
    "cf.assert": lower_assert,
}
