"""Inspection from Python (issue 32): ``xmux.compile(..., print_ir_after=, pass_callback=,
timing=)``, ``xmux.parse`` and ``xmux-opt --time-passes`` (docs/architecture.md, "Inspecting
a compile")."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

import xmux
from xmux.errors import XmuxError
from xmux.options import CompileOptions
from xmux.targets import CpuTarget, NvptxTarget

ROOT = Path(__file__).resolve().parent.parent
VECADD = ROOT / "examples" / "vecadd.mlir"


def _pass_names(target: object) -> list[str]:
    return [p.name for p in CompileOptions().passes(target)]  # type: ignore[arg-type]


def test_the_callback_sees_every_pass_in_order_with_a_module_that_verifies() -> None:
    seen: list[str] = []

    def callback(p: ModulePass, module: ModuleOp) -> None:
        assert isinstance(module, ModuleOp)
        module.verify()
        seen.append(p.name)

    xmux.compile(VECADD, cache=False, pass_callback=callback)
    assert seen == _pass_names(CpuTarget())
    assert "work-item-loops" in seen and "convert-to-llvm" in seen


def test_inspection_runs_the_passes_even_when_the_code_is_cached() -> None:
    xmux.compile(VECADD)  # now on disk and in memory
    seen: list[str] = []
    prog = xmux.compile(VECADD, pass_callback=lambda p, m: seen.append(p.name))
    assert seen == _pass_names(CpuTarget())
    a, b = [xmux.zeros(37, "float32") + i for i in (1.0, 2.0)]
    c = xmux.zeros(37, "float32")
    prog.kernel("vecadd")(a, b, c, global_size=(37,), local_size=(1,))
    assert (c == 3.0).all()


def test_inspection_changes_neither_the_code_nor_the_cache_key() -> None:
    target, text = CpuTarget(), VECADD.read_text()
    plain = CompileOptions()
    inspected = plain.replace(timing=True, print_ir_after=True, print_ir_stream=io.StringIO(),
                              pass_callback=lambda p, m: None)
    assert target.cache_key(plain, text) == target.cache_key(inspected, text)
    assert not plain.inspects and inspected.inspects
    base = xmux.compile(VECADD, cache=False)
    timed = xmux.compile(VECADD, options=inspected.replace(cache=False))
    assert timed.llvm_ir == base.llvm_ir


def test_an_inspected_compile_does_not_fill_the_cache() -> None:
    from xmux.runtime import jit

    text = VECADD.read_text() + "\n// only this test compiles this text\n"
    key = CpuTarget().cache_key(CompileOptions(), text)
    assert key is not None
    xmux.compile(text, timing=True, pass_callback=lambda p, m: None)
    assert jit.load_cached(key) is None
    xmux.compile(text)
    assert jit.load_cached(key) is not None


def test_print_ir_after_prints_the_named_pass_only() -> None:
    out = io.StringIO()
    xmux.compile(VECADD, cache=False, print_ir_after="work-item-loops", print_ir_stream=out)
    text = out.getvalue()
    assert text.count("// -----// IR Dump After") == 1
    assert text.startswith("// -----// IR Dump After work-item-loops //----- //\n")
    assert "builtin.module" in text and "llvm.func" not in text  # before convert-to-llvm


def test_print_ir_after_takes_a_list_or_true_and_defaults_to_stderr(capsys) -> None:
    out = io.StringIO()
    names = ["convert-to-llvm", "work-item-loops"]
    xmux.compile(VECADD, cache=False, print_ir_after=names, print_ir_stream=out)
    headers = [ln for ln in out.getvalue().splitlines() if ln.startswith("// -----//")]
    assert headers == [f"// -----// IR Dump After {n} //----- //" for n in reversed(names)]
    xmux.compile(VECADD, cache=False, print_ir_after=True)
    err = capsys.readouterr().err
    assert err.count("// -----// IR Dump After") == len(_pass_names(CpuTarget()))


def test_print_ir_after_a_pass_not_in_the_pipeline_is_an_error() -> None:
    with pytest.raises(XmuxError, match="print_ir_after names 'work-item-loop', which is not"):
        xmux.compile(VECADD, cache=False, print_ir_after="work-item-loop")


def test_timing_has_one_row_per_pass_and_a_table() -> None:
    prog = xmux.compile(VECADD, timing=True)
    timings = prog.pass_timings
    assert [name for name, _ in timings] == _pass_names(CpuTarget())
    assert all(t >= 0 for _, t in timings) and timings.verify_seconds >= 0
    assert timings.total == pytest.approx(sum(t for _, t in timings))
    table = str(timings)
    assert table.startswith("===- Pass execution timing report -===")
    for name, _ in timings:
        assert f"  {name}" in table
    assert xmux.compile(VECADD).pass_timings is None  # a cache hit: no pass ran
    assert xmux.compile(VECADD, cache=False).pass_timings is None  # not asked for


def test_the_nvptx_pipeline_honours_the_inspection_options() -> None:
    seen: list[str] = []
    out = io.StringIO()
    prog = xmux.compile(VECADD, target="nvptx", cache=False, timing=True,
                        pass_callback=lambda p, m: seen.append(p.name),
                        print_ir_after="add-kernel-wrapper-nvptx", print_ir_stream=out)
    names = _pass_names(NvptxTarget())
    assert seen == names and [n for n, _ in prog.pass_timings] == names
    assert out.getvalue().count("// -----// IR Dump After add-kernel-wrapper-nvptx") == 1
    assert ".entry vecadd" in prog.ptx


def test_inspection_options_are_checked() -> None:
    with pytest.raises(XmuxError, match="print_ir_after must be a pass name"):
        xmux.compile(VECADD, print_ir_after=3)  # type: ignore[arg-type]
    with pytest.raises(XmuxError, match="pass_callback must be a callable"):
        xmux.compile(VECADD, pass_callback="print")  # type: ignore[arg-type]
    with pytest.raises(XmuxError, match="print_ir_stream must be a text stream"):
        xmux.compile(VECADD, print_ir_stream=3)  # type: ignore[arg-type]
    with pytest.raises(XmuxError, match="timing must be True or False"):
        xmux.compile(VECADD, timing="yes")  # type: ignore[arg-type]
    with pytest.raises(XmuxError, match="either as keywords or as options="):
        xmux.compile(VECADD, timing=True, options=CompileOptions())
    assert CompileOptions(print_ir_after=False).print_ir_after is None
    assert CompileOptions(print_ir_after=["a", "b"]).print_ir_after == ("a", "b")


def test_parse_takes_text_or_a_path() -> None:
    module = xmux.parse(VECADD)
    assert isinstance(module, ModuleOp)
    assert any(op.name == "mux.get_global_id" for op in module.walk())
    assert isinstance(xmux.parse(str(VECADD)), ModuleOp)
    assert str(xmux.parse(VECADD.read_text())) == str(module)


def test_parse_errors_carry_file_line_and_column(tmp_path: Path) -> None:
    bad = "func.func @f() {\n  func.return\n  %x = foo.bar\n}\n"
    with pytest.raises(XmuxError, match=r"k\.mlir:3:\d+"):
        xmux.parse(bad, "k.mlir")
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @f() {\n  %c = arith.constant 9223372036854775807 : i32\n}\n")
    with pytest.raises(XmuxError, match=rf"{path}:2:\d+"):
        xmux.parse(path)
    with pytest.raises(XmuxError, match="no such file"):
        xmux.parse(tmp_path / "missing.mlir")
    with pytest.raises(XmuxError, match="expects MLIR text or a path"):
        xmux.parse(b"module {}")  # type: ignore[arg-type]


@pytest.mark.parametrize("flag", ["--time-passes", "--timing"])
def test_xmux_opt_time_passes_lists_the_passes(flag: str, capsys) -> None:
    from xmux.cli import opt_main

    passes = ["transfer-kernel-metadata", "work-item-loops", "canonicalize"]
    assert opt_main([str(VECADD), "-p", ",".join(passes), flag]) == 0
    captured = capsys.readouterr()
    assert "builtin.module" in captured.out and "Pass execution timing" not in captured.out
    report = captured.err.splitlines()
    assert report[0] == "===- Pass execution timing report -==="
    rows = [line.split() for line in report[2:]]
    assert [row[-1] for row in rows] == passes
    assert all(float(row[0]) >= 0 and row[1] == "ms" for row in rows)
