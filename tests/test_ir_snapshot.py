"""xmux.ir_snapshot: verify-after-each-pass skips only passes that left the module as it was."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.dialects import arith, builtin
from xdsl.ir import Block
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

import xmux
from xmux.api import parse, run_pipeline
from xmux.ir_snapshot import snapshot

SRC = """
func.func @k(%a: memref<?xf32>, %n: index) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %s = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %x = memref.load %a[%j] : memref<?xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }
  memref.store %s, %a[%i] : memref<?xf32>
  func.return
}
"""


def module():
    return parse(SRC)


def ops(m, name: str) -> list:
    return [op for op in m.walk() if op.name == name]


def test_the_same_module_gives_equal_snapshots():
    m = module()
    assert snapshot(m) == snapshot(m)


@pytest.mark.parametrize("change", ["attribute", "operand", "result type", "erase", "move",
                                    "block argument type", "new block"])
def test_every_kind_of_change_is_seen(change: str):
    m = module()
    before = snapshot(m)
    addf = ops(m, "arith.addf")[0]
    consts = ops(m, "arith.constant")
    if change == "attribute":
        consts[0].attributes["tag"] = builtin.UnitAttr()
    elif change == "operand":
        addf.operands = [addf.operands[1], addf.operands[0]]
    elif change == "result type":
        Rewriter.replace_value_with_new_type(consts[0].results[0], builtin.i64)
    elif change == "erase":
        ops(m, "memref.store")[0].detach()
    elif change == "move":  # the load out of the loop body, to the function's start
        load = ops(m, "memref.load")[0]
        load.detach()
        fn = ops(m, "func.func")[0]
        fn.body.block.insert_op_before(load, fn.body.block.first_op)
    elif change == "block argument type":
        Rewriter.replace_value_with_new_type(ops(m, "scf.for")[0].body.block.args[1],
                                             builtin.f64)
    elif change == "new block":
        ops(m, "scf.for")[0].body.add_block(Block())
    assert snapshot(m) != before


def test_a_replaced_constant_of_equal_value_is_a_change():
    """Identity, not printed text: a new op object is a change even where the text is the same."""
    m = module()
    before = snapshot(m)
    old = ops(m, "arith.constant")[0]
    old.parent.insert_op_before(new := arith.ConstantOp(old.value, old.result.type), old)
    old.result.replace_all_uses_with(new.result)
    old.detach()
    assert snapshot(m) != before


@dataclass(frozen=True)
class NoOp(ModulePass):
    name = "test-no-op"

    def apply(self, ctx, op) -> None:
        pass


@dataclass(frozen=True)
class Break(ModulePass):
    name = "test-break"

    def apply(self, ctx, op) -> None:  # an addf of an index and an f32: does not verify
        addf = ops(op, "arith.addf")[0]
        addf.operands = [ops(op, "mux.get_global_id")[0].results[0], addf.operands[1]]


def test_the_pass_that_breaks_the_ir_is_still_named_after_no_op_passes():
    with pytest.raises(xmux.XmuxError, match="pass 'test-break' failed"):
        run_pipeline(module(), [NoOp(), NoOp(), Break(), NoOp()], verify_each=True)
