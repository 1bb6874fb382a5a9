"""Pictures (issue 32, item 4): the work-item-loops plan as a Graphviz graph
(``dump-plan=dot``, ``xmux-opt --view-plan``) and the bench's roofline (``--plot``)."""

from __future__ import annotations

import builtins
import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

from tests.inprocess_cli import xmux_opt
from xmux import pipelines
from xmux.transforms.wi_loops import plan_graph
from xmux.transforms.work_item_loops import WorkItemLoopsPass

ROOT = Path(__file__).resolve().parent.parent
FILECHECK = ROOT / "tests" / "filecheck" / "work_item_loops"
LOOP = FILECHECK / "plan_dot_barrier_in_for.mlir"
DISPATCH = FILECHECK / "plan_dot_dispatch.mlir"


def _roofline():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("bench_roofline",
                                                      ROOT / "bench" / "roofline.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["bench_roofline"] = mod  # its dataclass looks its module up
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return mod


@pytest.mark.parametrize("text, value", [("true", True), ("text", "text"), ("dot", "dot"),
                                         ("false", False)])
def test_dump_plan_option_values(text, value):
    (p,) = pipelines.parse(f"work-item-loops{{dump-plan={text}}}")
    assert isinstance(p, WorkItemLoopsPass) and p.dump_plan == value
    assert pipelines.parse(pipelines.spec([p])) == [p]  # the spec reads back


def test_dot_leaves_the_ir_as_it_was():
    plain = xmux_opt([str(LOOP), "-p", "work-item-loops"])
    dot = xmux_opt([str(LOOP), "-p", "work-item-loops{dump-plan=dot}"])
    assert plain.returncode == dot.returncode == 0
    assert dot.stdout == plain.stdout
    assert dot.stderr.startswith('digraph "work-item-loops plan" {')
    assert '"k.L1S0" -> "k.L1S1" [label="%v: array #1 f32"' in dot.stderr


def test_capture_keeps_the_graph_off_stderr():
    with plan_graph.capture() as graphs:
        r = xmux_opt([str(DISPATCH), "-p", "work-item-loops{dump-plan=dot}"])
    assert r.returncode == 0 and r.stderr == ""
    (g,) = graphs
    assert "region dispatch" in g and '"k.R0" -> "k.R1" [label="barrier 1"' in g


def test_no_barrier_kernel_gives_a_graph_saying_so(tmp_path):
    src = tmp_path / "k.mlir"
    src.write_text('func.func @k() attributes {mux.kernel = "entry_point"} {\n'
                   "  func.return\n}\n")
    r = xmux_opt([str(src), "-p", "work-item-loops{dump-plan=dot}"])
    assert "no kernel with barriers" in r.stderr


def test_view_plan_writes_dot_and_svg(tmp_path):
    out = tmp_path / "plan.svg"
    r = xmux_opt([str(ROOT / "examples" / "matmul_tiled.mlir"), "--view-plan", str(out)])
    assert r.returncode == 0, r.stderr
    dot = (tmp_path / "plan.dot").read_text()
    assert "@matmul_tiled: structured fission" in dot and "barrier" in dot
    assert "func.func" not in r.stdout  # the paths, not the IR
    if shutil.which("dot"):
        assert out.read_text().lstrip().startswith("<?xml")
        assert f"wrote {tmp_path / 'plan.dot'}, {out}" in r.stdout
    else:
        assert not out.exists() and "Graphviz's `dot` not found" in r.stdout


def test_view_plan_without_graphviz(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    out = tmp_path / "plan.svg"
    r = xmux_opt([str(LOOP), "-p", "work-item-loops", "--view-plan", str(out)])
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "plan.dot").exists() and not out.exists()
    assert "Graphviz's `dot` not found" in r.stdout


def test_view_plan_needs_work_item_loops(tmp_path):
    r = xmux_opt([str(LOOP), "-p", "canonicalize", "--view-plan", str(tmp_path / "p.svg")])
    assert r.returncode == 1 and "no work-item-loops pass" in r.stderr


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz not installed")
def test_graphviz_reads_both_kinds_of_graph(tmp_path):
    for src in (LOOP, DISPATCH):
        with plan_graph.capture() as graphs:
            xmux_opt([str(src), "-p", "work-item-loops{dump-plan=dot}"])
        written = plan_graph.render(graphs[0], tmp_path / f"{src.stem}.svg")
        assert [p.suffix for p in written] == [".dot", ".svg"]


def test_roofline_from_stored_numbers():
    rl = _roofline()
    r = rl.from_results_md()
    assert "stored numbers of bench/RESULTS.md" in r.source
    assert r.triad_gbs > 0 and r.fma512 > 0 and r.fma256 > 0
    names = [p[0] for p in r.points]
    assert "vecadd" in names and "matmul_tiled" in names


def test_roofline_without_matplotlib_writes_csv(tmp_path, monkeypatch, capsys):
    rl = _roofline()
    real = builtins.__import__

    def no_mpl(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_mpl)
    assert rl.main(["--plot", str(tmp_path / "roofline.png")]) == 0
    assert not (tmp_path / "roofline.png").exists()
    rows = (tmp_path / "roofline.csv").read_text().splitlines()
    assert rows[0].startswith("kernel,flop_per_byte") and len(rows) > 2
    assert "matplotlib not installed" in capsys.readouterr().out
    # an .svg is drawn by hand: the roofs and one point per kernel
    assert rl.main(["--plot", str(tmp_path / "roofline.svg")]) == 0
    svg = (tmp_path / "roofline.svg").read_text()
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    assert len(root.findall(f"{ns}polyline")) == 3
    titles = [t.text for t in root.iter(f"{ns}title")]
    assert titles == [p[0] for p in rl.from_results_md().points] and len(titles) > 2
    assert "drawn without matplotlib" in capsys.readouterr().out


def test_roofline_picture(tmp_path):
    pytest.importorskip("matplotlib")
    rl = _roofline()
    assert rl.main(["--plot", str(tmp_path / "roofline.svg")]) == 0
    assert "<svg" in (tmp_path / "roofline.svg").read_text()
