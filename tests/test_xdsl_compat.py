"""dialects/xdsl_compat.py: each patch of xDSL works, and xDSL without it still needs it.

The ``needs`` tests run with the patch undone (``unpatched``): they fail once an xDSL upgrade
reads (or prints, or accepts) the upstream form itself, and then the patch can be dropped.
"""

from __future__ import annotations

import ast
import importlib.metadata
import io
from pathlib import Path
from types import SimpleNamespace

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.universe import XDSL_UNIVERSE, Universe
from xdsl.utils.exceptions import ParseError, VerifyException

import xmux.universe  # noqa: F401 - the universe patch, as xdsl-opt's plugin loading does
from xmux.dialects import acc_syntax, xdsl_compat
from xmux.registry import make_context

ROOT = Path(__file__).resolve().parent.parent

xdsl_compat.apply()
xdsl_compat.apply_acc()


def _parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def _print(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def _func(args: str, *body: str) -> str:
    lines = "".join(f"  {b}\n" for b in body)
    return f"func.func @f({args}) {{\n{lines}  func.return\n}}\n"


_RECIPE_TERMINATOR = """acc.private.recipe @p : memref<i32> init {
^bb0(%a: memref<i32>):
  %m = memref.alloc() : memref<i32>
  acc.yield %m : memref<i32>
} destroy {
^bb0(%a: memref<i32>, %b: memref<i32>):
  memref.dealloc %b : memref<i32>
  acc.terminator
}
"""

_REDUCTION = """acc.reduction.recipe @add : f32 reduction_operator <add> init {
^bb0(%a: f32):
  %z = arith.constant 0.0 : f32
  acc.yield %z : f32
} combiner {
^bb0(%a: f32, %b: f32):
  %s = arith.addf %a, %b : f32
  acc.yield %s : f32
}
""" + _func(
    "%x: memref<f32>",
    "%r = acc.reduction varPtr(%x : memref<f32>) -> memref<f32>",
    "acc.serial reduction(@add -> %r : memref<f32>) {",
    "  acc.yield",
    "}",
)

#: patch -> (upstream text, what the patched print shows, xDSL's error without the patch)
PARSE_CASES: dict[str, tuple[str, str, str]] = {
    "memref_copy_syntax": (
        _func("%a: memref<4xf32>, %b: memref<4xf32>",
              "memref.copy %a, %b : memref<4xf32> to memref<4xf32>"),
        "memref.copy %a, %b : memref<4xf32> to memref<4xf32>",
        "memref.copy does not have a custom format"),
    "memref_extract_aligned_pointer_syntax": (
        _func("%a: memref<4xf32>",
              "%p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index"),
        "%p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index",
        "memref.extract_aligned_pointer_as_index does not have a custom format"),
    "memref_cast_syntax": (
        _func("%a: memref<4xf32>", "%d = memref.cast %a : memref<4xf32> to memref<?xf32>"),
        "%d = memref.cast %a : memref<4xf32> to memref<?xf32>",
        "memref.cast does not have a custom format"),
    "memref_atomic_rmw_syntax": (
        _func("%v: f32, %m: memref<10xf32>, %i: index",
              "%o = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<10xf32>) -> f32"),
        "%o = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<10xf32>) -> f32",
        "memref.atomic_rmw does not have a custom format"),
    "memref_global_syntax": (
        'memref.global "private" constant @c : memref<2xi32> = dense<[1, 4]> '
        "{alignment = 64 : i64}\n",
        'memref.global "private" constant @c : memref<2xi32> = dense<[1, 4]> '
        "{alignment = 64 : i64}",
        "memref.global does not have a custom format"),
    "memref_generic_atomic_rmw": (
        _func("%m: memref<10xi32>, %i: index, %c: i32",
              "%old = memref.generic_atomic_rmw %m[%i] : memref<10xi32> {",
              "^bb0(%cur: i32):",
              "  %new = arith.addi %cur, %c : i32",
              "  memref.atomic_yield %new : i32",
              "}"),
        "%old = memref.generic_atomic_rmw %m[%i] : memref<10xi32> {",
        "memref.generic_atomic_rmw is not registered"),
    "scf_while_without_operands": (
        _func("%c: i1", "scf.while : () -> () {", "  scf.condition(%c)", "} do {",
              "  scf.yield", "}"),
        "scf.while () : () -> () {",
        "'\\(' expected"),
    "scf_index_switch_empty_regions": (
        _func("%i: index", "scf.index_switch %i", "case 0 {", "  scf.yield", "}",
              "default {", "}"),
        "default {\n      scf.yield\n    }",
        "expected a single block, but got 0 blocks"),
    "scf_parallel_syntax": (
        _func("%n: index, %z: f32", "%c0 = arith.constant 0 : index",
              "%r = scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%n, %n) init (%z) "
              "-> f32 {",
              "  scf.reduce(%z : f32) {", "  ^bb0(%l: f32, %e: f32):",
              "    scf.reduce.return %l : f32", "  }", "} {mapping = []}"),
        "%r = scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%n, %n) init (%z) -> f32 {",
        "scf.parallel does not have a custom format"),
    "scf_reduce_regions": (
        _func("%n: index, %z: f32, %y: i32",
              "%r:2 = scf.parallel (%i) = (%n) to (%n) step (%n) init (%z, %y) -> (f32, i32) {",
              "  scf.reduce(%z, %y : f32, i32) {", "  ^bb0(%l: f32, %e: f32):",
              "    scf.reduce.return %l : f32", "  }, {", "  ^bb0(%l: i32, %e: i32):",
              "    scf.reduce.return %e : i32", "  }", "}"),
        "}, {\n      ^bb0(%l_1: i32, %e_1: i32):",
        "in block definition"),
    "vector_print_syntax": (
        _func("%x: i32", "vector.print %x : i32"),
        "vector.print %x : i32",
        "vector.print does not have a custom format"),
    "affine_semi_affine_exprs": (
        _func("%i: index, %s: index",
              "%r = affine.apply affine_map<(d0)[s0] -> ((d0 - s0) ceildiv s0)>(%i)[%s]"),
        "(((d0 + (s0 * -1)) ceildiv s0))",
        "semi-affine"),
    "affine_symbol_operands": (
        _func("%a: memref<8xf32>, %n: index", "%v = affine.load %a[symbol(%n) + 1] : "
              "memref<8xf32>"),
        "affine.load %a[%n + 1] : memref<8xf32>",
        "Expected primary expression"),
    "affine_max_op": (
        _func("%i: index", "%m = affine.max affine_map<(d0) -> (d0, 4)>(%i)"),
        "%m = affine.max affine_map<(d0) -> (d0, 4)> (%i)",
        "affine.max"),
    "affine_if_syntax": (
        _func("%i: index", "%r = affine.if affine_set<(d0) : (d0 - 2 >= 0)>(%i) -> index {",
              "  affine.yield %i : index", "} else {", "  affine.yield %i : index", "}"),
        "%r = affine.if affine_set<(d0) : ((d0 + -2) >= 0)> (%i) -> (index) {",
        "affine.if does not have a custom format"),
    "affine_parallel_syntax": (
        _func("%a: memref<8xf32>, %n: index",
              "%r = affine.parallel (%i) = (max(0, symbol(%n) - 8)) to (8) step (2) "
              'reduce ("addf") -> (f32) {',
              "  %v = affine.load %a[%i] : memref<8xf32>", "  affine.yield %v : f32", "}"),
        'affine.parallel (%i) = (max(0, %n + -8)) to (8) step (2) reduce ("addf") -> (f32) {',
        "affine.parallel does not have a custom format"),
    "vector_newer_ops": (
        _func("%x: f32, %v: vector<4xf32>",
              "%s = vector.splat %x : vector<4xf32>",
              "%o = vector.outerproduct %v, %s : vector<4xf32>, vector<4xf32>",
              "%f = vector.shape_cast %o : vector<4x4xf32> to vector<16xf32>",
              "%i = vector.step : vector<4xindex>"),
        "%o = vector.outerproduct %v, %s : vector<4xf32>, vector<4xf32>",
        "vector.splat is not registered"),
    "scf_forall_op": (
        _func("%m: memref<8xf32>, %n: index, %x: f32",
              "scf.forall (%i, %j) = (0, %n) to (8, %n) step (2, 1) {",
              "  memref.store %x, %m[%i] : memref<8xf32>", "}"),
        "scf.forall (%i, %j) = (0, %n) to (8, %n) step (2, 1) {",
        "scf.forall is not registered"),
    "memref_rank_cast_scope_syntax": (
        _func("%m: memref<?xf32>, %x: f32",
              "%r = memref.rank %m : memref<?xf32>",
              "%g = memref.memory_space_cast %m : memref<?xf32> to memref<?xf32, 1>",
              "%z = memref.alloca_scope -> (f32) {", "  memref.alloca_scope.return %x : f32",
              "}"),
        "%z = memref.alloca_scope -> (f32) {\n      memref.alloca_scope.return %x : f32",
        "memref.rank does not have a custom format"),
    "memref_assume_alignment_llvm19": (  # mlir-opt-19's generic form: no result
        _func("%m: memref<8xf32>", '"memref.assume_alignment"(%m) <{alignment = 16 : i32}> : '
              "(memref<8xf32>) -> ()"),
        "    memref.assume_alignment %m, 16 : memref<8xf32>",
        "Expected 1 result, but got 0"),
    "acc_terminator_in_recipes": (
        _RECIPE_TERMINATOR,
        "acc.terminator",
        "'acc.terminator' expects parent op to be one of"),
    "acc_terminator_in_declare": (
        _func("%x: memref<4xf32>", "%d = acc.create varPtr(%x : memref<4xf32>) -> memref<4xf32>",
              "acc.declare dataOperands(%d : memref<4xf32>) {", "  acc.terminator", "}"),
        "acc.terminator",
        "'acc.terminator' expects parent op to be one of"),
    "acc_clauses_in_any_order": (
        _func("%x: memref<16xf32>, %c: i1",
              "%d = acc.copyin varPtr(%x : memref<16xf32>) -> memref<16xf32>",
              "acc.serial if(%c) dataOperands(%d : memref<16xf32>) {", "  acc.yield", "}"),
        "acc.serial dataOperands(%d : memref<16xf32>) if(%c) {",
        "Expected region"),
    "acc_atomic_read_llvm19": (
        _func("%x: memref<f32>, %v: memref<f32>", "acc.atomic.read %v = %x : memref<f32>, f32"),
        "acc.atomic.read %v = %x : memref<f32>, memref<f32>, f32",
        "Expected ','"),
}


@pytest.mark.parametrize("name", sorted(PARSE_CASES))
def test_patch_reads_and_prints_the_upstream_form(name: str) -> None:
    text, printed, _ = PARSE_CASES[name]
    out = _print(_parse(text))
    assert printed in out, out
    assert _print(_parse(out)) == out  # what it prints reads back


@pytest.mark.parametrize("name", sorted(PARSE_CASES))
def test_xdsl_still_needs_the_patch(name: str) -> None:
    text, _, error = PARSE_CASES[name]
    # NotImplementedError: xDSL's refusal of semi-affine expressions (affine_semi_affine_exprs)
    with xdsl_compat.unpatched(name), pytest.raises(
            (ParseError, VerifyException, NotImplementedError), match=error):
        _parse(text)


def test_clauses_in_any_order_read_the_llvm19_recipe_form() -> None:
    out = _print(_parse(_REDUCTION))
    assert "%r = acc.reduction varPtr(%x : memref<f32>) recipe(@add) -> memref<f32>" in out, out
    with xdsl_compat.unpatched("acc_clauses_in_any_order"), pytest.raises(ParseError):
        _parse(_REDUCTION)


def test_llvm19_output_prints_recipes_in_the_clause() -> None:
    module = _parse(_REDUCTION)
    with acc_syntax.llvm19_output():
        out = _print(module)
        with xdsl_compat.unpatched("acc_llvm19_output"):
            plain = _print(module)
    assert "acc.serial reduction(@add -> %r : memref<f32>)" in out, out
    # xDSL prints the newer form only
    assert "acc.serial reduction(%r : memref<f32>)" in plain, plain
    assert "recipe(@add)" in plain and "recipe(@add)" not in out


def test_universe_has_xmux_dialects_of_xdsl_names() -> None:
    from xmux.dialects.gpu import GPU
    from xmux.dialects.llvm import LLVM

    assert XDSL_UNIVERSE.all_dialects["gpu"]() is GPU
    assert XDSL_UNIVERSE.all_dialects["llvm"]() is LLVM
    acc = XDSL_UNIVERSE.all_dialects["acc"]()
    assert acc.name == "acc" and xdsl_compat.PATCHES["acc_terminator_in_recipes"].applied


def test_xdsl_still_refuses_a_second_dialect_of_one_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why ``replace_universe_dialects`` edits xDSL's own universe: a plugin universe may not
    define ``gpu`` again."""

    def plugin(name: str, universe: Universe) -> SimpleNamespace:
        return SimpleNamespace(name=name, load=lambda: universe)

    def entry_points(group: str) -> list[SimpleNamespace]:
        assert group == "xdsl.universe"
        return [plugin("xdsl", Universe(all_dialects={"gpu": lambda: None})),
                plugin("xmux", Universe(all_dialects={"gpu": lambda: None}))]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    with pytest.raises(ValueError, match="Duplicate definition of gpu"):
        Universe.get_multiverse()


def test_every_patch_is_tested() -> None:
    special = {"acc_llvm19_output", "replace_universe_dialects",
               "block_insertions_keep_locations",
               # speed only (tests/test_xdsl_fast.py: the same IR and errors as xDSL's own)
               "irdl_fast_paths", "irdl_constraint_cache", "builtin_type_cache",
               "mlir_lexer_fast_tokens", "lazy_op_formats"}
    assert set(xdsl_compat.PATCHES) == set(PARSE_CASES) | special


def _insert_before_a_located_op() -> object:
    """An op inserted (as a pattern does) before an op with a location, in a debug pipeline:
    the location the new op ends up with."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
    from xdsl.ir import Block
    from xdsl.rewriter import InsertPoint, Rewriter

    old = arith.ConstantOp.from_int_and_width(1, 32)
    old.location = FileLineColLoc(StringAttr("k.mlir"), IntAttr(7), IntAttr(3))
    Block([old])
    new = arith.ConstantOp.from_int_and_width(2, 32)
    with xdsl_compat.located_pipeline():
        Rewriter.insert_op(new, InsertPoint.before(old))
    return new.location


def test_ops_inserted_in_a_debug_pipeline_keep_the_location() -> None:
    from xdsl.dialects.builtin import FileLineColLoc

    loc = _insert_before_a_located_op()
    assert isinstance(loc, FileLineColLoc) and loc.line.data == 7


def test_xdsl_still_drops_locations_of_inserted_ops() -> None:
    from xdsl.dialects.builtin import UnknownLoc

    xdsl_compat.block_insertions_keep_locations()
    with xdsl_compat.unpatched("block_insertions_keep_locations"):
        assert isinstance(_insert_before_a_located_op(), UnknownLoc)


def test_applying_again_changes_nothing() -> None:
    from xdsl.dialects import memref

    before = {n: list(p.changes) for n, p in xdsl_compat.PATCHES.items()}
    parse = memref.CastOp.__dict__["parse"]
    xdsl_compat.apply()
    xdsl_compat.apply_acc()
    xdsl_compat.replace_universe_dialects({})
    assert {n: list(p.changes) for n, p in xdsl_compat.PATCHES.items()} == before
    assert memref.CastOp.__dict__["parse"] is parse


def test_unpatched_restores_the_patch_after() -> None:
    from xdsl.dialects import memref

    patched = memref.CastOp.__dict__["parse"]
    with xdsl_compat.unpatched("memref_cast_syntax"):
        assert memref.CastOp.__dict__.get("parse") is not patched
    assert memref.CastOp.__dict__["parse"] is patched


def _xdsl_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("xdsl"):
            names |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names
                      if a.name.startswith("xdsl")}
    return names


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node


#: attributes by which xDSL classes are patched, whatever the object is called
_HOOKS = {"parse", "print", "_traits", "_operations", "all_dialects"}


def test_no_other_module_changes_xdsl() -> None:
    """No assignment to (or setattr on) something imported from xDSL, or to an op's parse /
    print or a dialect's op list, outside xdsl_compat."""
    found = []
    for folder in ("xmux", "abi", "dialects", "transforms", "lowering", "runtime"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "xdsl_compat.py":
                continue
            tree = ast.parse(path.read_text())
            xdsl = _xdsl_names(tree)
            for node in ast.walk(tree):
                targets: list[ast.expr] = []
                if isinstance(node, ast.Assign):
                    targets = node.targets
                elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                    targets = [node.target]
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                      and node.func.id in ("setattr", "delattr") and node.args):
                    targets = [ast.Attribute(node.args[0], "?")]
                for t in targets:
                    root = _root(t)
                    hook = isinstance(t, ast.Attribute) and t.attr in _HOOKS
                    if hook or (isinstance(t, ast.Attribute | ast.Subscript)
                                and isinstance(root, ast.Name) and root.id in xdsl):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"xDSL changed outside dialects/xdsl_compat.py: {found}"
