"""scf, cf and func on top of xDSL's implementations.

Reused from xDSL: ``scf.if/while/yield/condition/index_switch``, ``cf.br/cond_br``. Replaced
or added: ``scf.for`` (xDSL's ranges over Python ints; bounds here are unsigned-canonical
and MLIR compares them signed), ``scf.parallel`` with ``scf.reduce`` (iterations in
row-major order, each folding its values into the partial results), ``scf.execute_region``,
``cf.switch``/``cf.assert``, and ``func.call`` (a fresh frame per call, the call recorded
on the work-item's stack so that a barrier reached through different calls is told apart;
bodiless callees go to the host program's external functions such as ``printMemrefF32``).
"""

from __future__ import annotations

from itertools import product
from typing import Any

from xdsl.dialects import cf, func, scf
from xdsl.dialects.builtin import IndexType
from xdsl.interpreter import (
    ReturnedValues,
    Successor,
    impl,
    impl_callable,
    impl_terminator,
    register_impls,
)
from xdsl.interpreters.cf import CfFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Operation

from xmux.abi.errors import NotSupportedError
from xmux.runtime.interpreter.arith import width_of
from xmux.runtime.interpreter.errors import InterpretError, UndefinedBehaviorError
from xmux.runtime.interpreter.values import to_signed


def call(interp: Any, op: Operation, callee: Any, args: tuple, external: bool) -> tuple:
    """A call of ``callee`` from ``op`` (``func.call``, ``llvm.call``): an external function
    the host provides (``external``), else the callee's body in a fresh frame, ``op`` on the
    interpreter's call stack for its messages."""
    if external:
        name = callee.sym_name.data
        if name not in interp._impls._external_funcs_dict:
            raise NotSupportedError(
                f"interpreter: call of the external function @{name} at {interp.where()}"
            )
        return interp.call_external(name, op, args)
    interp.stack.append(op)
    try:
        return interp.call_function(callee, args)
    finally:
        interp.stack.pop()


@register_impls
class ControlFunctions(ScfFunctions, CfFunctions):
    """scf/cf (xDSL's, with the fixes above) and func."""

    @impl(scf.ForOp)
    def run_for(self, interp, op: scf.ForOp, args):
        lb, ub, step, *loop_args = args
        w = width_of(op, op.lb.type)
        if op.properties.get("unsignedCmp") is None:
            lb, ub, step = to_signed(lb, w), to_signed(ub, w), to_signed(step, w)
        if step <= 0:
            raise UndefinedBehaviorError(f"scf.for with step {step} at {interp.where()}")
        vals = tuple(loop_args)
        argkeys, plan = interp.shared.entry(op.body)
        run_block = interp.run_block
        m = (1 << w) - 1
        for i in range(lb, ub, step):
            vals = run_block(argkeys, plan, (i & m, *vals))
            if vals is None:  # a multi-block body (cannot be: scf.for has one block)
                raise NotSupportedError(f"scf.for with a branching body at {interp.where()}")
        return vals

    @impl(scf.ParallelOp)
    def run_parallel(self, interp, op: scf.ParallelOp, args):
        n = len(op.lowerBound)
        w = width_of(op, IndexType())
        lbs, ubs, steps = ([to_signed(v, w) for v in args[k * n:(k + 1) * n]] for k in range(3))
        if any(s <= 0 for s in steps):
            raise UndefinedBehaviorError(f"scf.parallel with steps {steps} at {interp.where()}")
        accs = list(args[3 * n:])
        shared = interp.shared
        argkeys, plan = shared.entry(op.body)
        reduce = op.body.block.last_op
        combines = [shared.entry(r) for r in reduce.reductions]
        run_block = interp.run_block
        m = (1 << w) - 1
        # row-major, sequentially: upstream leaves the order of iterations and combinations open
        for ivs in product(*(range(lb, ub, s) for lb, ub, s in zip(lbs, ubs, steps, strict=True))):
            vals = run_block(argkeys, plan, tuple(i & m for i in ivs))
            for k, (ckeys, cplan) in enumerate(combines):
                accs[k] = run_block(ckeys, cplan, (accs[k], vals[k]))[0]
        return tuple(accs)

    @impl_terminator(scf.ReduceOp)
    def run_reduce(self, interp, op, args):
        return ReturnedValues(args), ()

    @impl_terminator(scf.ReduceReturnOp)
    def run_reduce_return(self, interp, op, args):
        return ReturnedValues(args), ()

    @impl(scf.IndexSwitchOp)
    def run_index_switch(self, interp, op: scf.IndexSwitchOp, args):
        value = to_signed(args[0], 64)  # cases are signed; xDSL compares the raw value
        cases = list(op.cases.get_values())
        region = op.case_regions[cases.index(value)] if value in cases else op.default_region
        return interp.run_ssacfg_region(region, ())

    @impl(scf.ExecuteRegionOp)
    def run_execute_region(self, interp, op, args):
        return interp.run_ssacfg_region(op.region, ())

    @impl_terminator(cf.SwitchOp)
    def run_switch(self, interp, op: cf.SwitchOp, args):
        flag = args[0]
        w = width_of(op)
        cases = [int(v) & ((1 << w) - 1) for v in op.case_values.get_values()] \
            if op.case_values is not None else []
        segments = op.case_operand_segments.get_values()
        if flag in cases:
            k = cases.index(flag)
            start = sum(segments[:k])
            operands = op.case_operands[start : start + segments[k]]
            return Successor(op.case_blocks[k], interp.get_values(operands)), ()
        return Successor(op.default_block, interp.get_values(op.default_operands)), ()

    @impl(cf.AssertOp)
    def run_assert(self, interp, op: cf.AssertOp, args):
        if not args[0]:
            raise InterpretError(f"cf.assert failed: {op.msg.data} at {interp.where()}")
        return ()

    @impl_terminator(func.ReturnOp)
    def run_return(self, interp, op, args):
        return ReturnedValues(args), ()

    @impl(func.CallOp)
    def run_call(self, interp, op: func.CallOp, args):
        callee = interp.callee(op)
        return call(interp, op, callee, args,
                    not callee.body.blocks or not callee.body.blocks.first.ops)

    @impl_callable(func.FuncOp)
    def call_func(self, interp, op: func.FuncOp, args):
        return interp.call_function(op, args)
