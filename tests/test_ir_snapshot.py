"""xmux.ir_snapshot: verify-after-each-pass verifies again exactly the top-level ops a pass
changed, and the ones that refer to a symbol it changed."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from xdsl.dialects import arith, builtin
from xdsl.ir import Block
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

import xmux
from xmux.api import parse, run_pipeline
from xmux.ir_snapshot import Snapshot

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
func.func @helper(%x: f32) -> f32 {
  func.return %x : f32
}
func.func @caller(%x: f32) -> f32 {
  %y = func.call @helper(%x) : (f32) -> f32
  func.return %y : f32
}
func.func @other(%x: f32) -> f32 {
  func.return %x : f32
}
"""


def module():
    return parse(SRC)


def ops(m, name: str) -> list:
    return [op for op in m.walk() if op.name == name]


def names(tops) -> list[str]:
    return [op.sym_name.data for op in tops]


def test_an_unchanged_module_needs_nothing_verified():
    m = module()
    before = Snapshot(m)
    assert Snapshot(m).to_verify(before) == []
    assert names(Snapshot(m).to_verify(None)) == ["k", "helper", "caller", "other"]


@pytest.mark.parametrize("change", ["attribute", "operand", "result type", "erase", "move",
                                    "block argument type", "new block"])
def test_every_kind_of_change_is_seen(change: str):
    m = module()
    before = Snapshot(m)
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
    assert names(Snapshot(m).to_verify(before)) == ["k"]


def test_a_replaced_constant_of_equal_value_is_a_change():
    """Identity, not printed text: a new op object is a change even where the text is the same."""
    m = module()
    before = Snapshot(m)
    old = ops(m, "arith.constant")[0]
    old.parent.insert_op_before(new := arith.ConstantOp(old.value, old.result.type), old)
    old.result.replace_all_uses_with(new.result)
    old.detach()
    assert names(Snapshot(m).to_verify(before)) == ["k"]


def test_a_changed_callee_verifies_its_callers_again():
    """func.call's verifier reads the callee's type: a pass that changes @helper alone must
    have @caller verified again (here: it no longer verifies)."""
    m = module()
    before = Snapshot(m)
    helper = [f for f in ops(m, "func.func") if f.sym_name.data == "helper"][0]
    helper.attributes["tag"] = builtin.UnitAttr()
    assert names(Snapshot(m).to_verify(before)) == ["helper", "caller"]
    before = Snapshot(m)
    helper.detach()
    assert names(Snapshot(m).to_verify(before)) == ["caller"]


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


@dataclass(frozen=True)
class DropHelper(ModulePass):
    name = "test-drop-helper"

    def apply(self, ctx, op) -> None:  # @caller's call now refers to nothing
        [f for f in ops(op, "func.func") if f.sym_name.data == "helper"][0].detach()


@pytest.mark.parametrize("broken", [Break(), DropHelper()], ids=lambda p: p.name)
def test_the_pass_that_breaks_the_ir_is_still_named_after_no_op_passes(broken):
    with pytest.raises(xmux.XmuxError, match=f"pass '{broken.name}' failed"):
        run_pipeline(module(), [NoOp(), NoOp(), broken, NoOp()], verify_each=True)
