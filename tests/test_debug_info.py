"""Debug builds (``xmux.compile(..., debug=True)``): MLIR locations → DWARF, gdb through
MCJIT's JIT registration, and perf's map of JIT code (``XMUX_PERF_MAP=1``)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.runtime import perf_map

#: a barrier inside a loop: %acc lives across both barriers (line numbers matter below)
KERNEL = """\
func.func @k(%a: memref<?xf32>, %t: memref<8xf32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v) -> (f32) {
    memref.store %acc, %t[%l] : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %w = memref.load %t[%k] : memref<8xf32, 3>
    %acc2 = arith.addf %acc, %w : f32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.yield %acc2 : f32
  }
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}
"""


@pytest.fixture
def kernel_file(tmp_path: Path) -> Path:
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    return path


def _run(prog: object) -> np.ndarray:
    a = np.arange(16, dtype=np.float32) + 100
    prog.kernel("k")(a, xmux.LocalMemory(32), 3, global_size=(16,), local_size=(8,))  # type: ignore[attr-defined]
    return a


def test_debug_false_has_no_debug_info() -> None:
    prog = xmux.compile(KERNEL, cache=False)
    assert "!dbg" not in prog.llvm_ir and "llvm.dbg" not in prog.llvm_ir


def test_debug_build_describes_the_kernel(kernel_file: Path) -> None:
    prog = xmux.compile(kernel_file, debug=True, cache=False)
    ir = prog.llvm_ir
    assert f'!DIFile(directory: "{kernel_file.parent}", filename: "k.mlir")' in ir
    for fn in ("k", "k.mux-kernel-wrapper", "k.mux-entry-hook"):
        assert re.search(rf'DISubprogram\([^)]*name: "{re.escape(fn)}"', ir), fn
    for i, arg in enumerate(("a", "t", "n"), start=1):
        assert re.search(rf'DILocalVariable\(arg: {i}, [^)]*name: "{arg}"', ir), arg
    for name in ("i", "v", "w", "acc2"):
        assert re.search(rf'DILocalVariable\([^)]*name: "{name}"', ir), name
    lines = {int(m) for m in re.findall(r"DILocation\([^)]*line: (\d+)", ir)}
    # each op's own line, also of those work-item-loops rebuilds (the scf.for, the barriers
    # and the scf.yield: the loop's latch)
    assert set(range(3, 15)) | {16, 17} <= lines
    # instructions of the kernel all carry a location
    body = ir.split('define internal void @"k"', 1)[1].split("\n}\n", 1)[0]
    for line in body.splitlines()[1:]:
        if line.startswith("  ") and "phi " not in line:
            assert "!dbg" in line, line
    assert np.array_equal(_run(prog), _run(xmux.compile(KERNEL, cache=False)))


def test_text_source_gets_a_file_for_the_debugger() -> None:
    prog = xmux.compile(KERNEL, debug=True, cache=False)
    m = re.search(r'!DIFile\(directory: "([^"]+)", filename: "([^"]+)"\)', prog.llvm_ir)
    assert m is not None
    assert (Path(m.group(1)) / m.group(2)).read_text() == KERNEL


def test_parse_with_locations() -> None:
    from xdsl.dialects.builtin import FileLineColLoc

    from xmux.stages import parse

    module = parse(KERNEL, "k.mlir", locations=True)
    ops = [op for op in module.walk() if op is not module]
    assert all(isinstance(op.location, FileLineColLoc) for op in ops)
    barrier = next(op for op in ops if op.name == "mux.work_group_barrier")
    assert (barrier.location.line.data, barrier.location.column.data) == (10, 5)  # type: ignore[attr-defined]


def test_debug_option_is_checked() -> None:
    with pytest.raises(xmux.XmuxError, match="debug must be True or False"):
        xmux.compile(KERNEL, debug="yes")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# gdb (batch mode, on a Python process running the kernel)
# ---------------------------------------------------------------------------------------

_SCRIPT = """\
import numpy as np, xmux
prog = xmux.compile({path!r}, debug=True, cache=False)
a = np.arange(16, dtype=np.float32) + 100
prog.kernel("k")(a, xmux.LocalMemory(32), 3, global_size=(16,), local_size=(8,), threads=1)
print("done", a[0])
"""


def _gdb(tmp_path: Path, kernel_file: Path, commands: str, opt_level: str) -> str:
    if shutil.which("gdb") is None:
        pytest.skip("gdb is not installed")
    script = tmp_path / "run.py"
    script.write_text(_SCRIPT.format(path=str(kernel_file)))
    cmds = tmp_path / "cmds.gdb"
    cmds.write_text("set breakpoint pending on\nset pagination off\n"
                    + textwrap.dedent(commands))
    env = dict(os.environ, XMUX_OPT_LEVEL=opt_level, XMUX_CACHE="0")
    done = subprocess.run(
        ["gdb", "-batch", "-nx", "-x", str(cmds), "--args", sys.executable, str(script)],
        capture_output=True, text=True, timeout=300, env=env)
    return done.stdout + done.stderr


def test_gdb_breaks_at_a_mlir_line_at_O0(tmp_path: Path, kernel_file: Path) -> None:
    out = _gdb(tmp_path, kernel_file, """\
        break k.mlir:12
        run
        bt
        print n
        print w
        print a.sizes[0]
        print ((float*)a.aligned)[3]
        next
        info line
        """, "0")
    assert "Breakpoint 1, k (" in out and "at k.mlir:12" in out, out
    assert re.search(r"#1 .* in k\.mux-kernel-wrapper", out), out
    assert re.search(r"#2 .* in k\.mux-entry-hook", out), out
    values = re.findall(r"^\$\d+ = (.*)$", out, re.M)
    # n; w = t[0] at k = 0, which work-item 0 stored before the barrier (its a[0]); a's
    # size; a[3]
    assert values[:4] == ["3", "100", "16", "103"], out


#: a value kept per work-item across barriers (%acc), printed at a line after the barrier
#: that does not use it (19): the region reads it for the work-item running at its top
NEIGHBOURS = """\
func.func @k(%a: memref<?xf32>, %t: memref<8xf32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v) -> (f32) {
    memref.store %acc, %t[%l] : memref<8xf32, 3>
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    %nb = arith.xori %l, %c1 : index
    %w = memref.load %t[%nb] : memref<8xf32, 3>
    %acc2 = arith.addf %acc, %w : f32
    mux.work_group_barrier work_group, <acq_rel, work_group_memory>
    scf.yield %acc2 : f32
  }
  memref.store %r, %a[%i] : memref<?xf32>
  func.return
}
"""

#: the same with a CFG body: region dispatch (a function per barrier region); %v is kept
#: per work-item across the barrier, line 12 does not use it
NEIGHBOURS_CFG = """\
func.func @k(%a: memref<?xf32>, %t: memref<8xf32, 3>, %n: index)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %l = mux.get_local_id 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %a[%i] : memref<?xf32>
  cf.br ^bb1
^bb1:
  memref.store %v, %t[%l] : memref<8xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %nb = arith.xori %l, %c1 : index
  %w = memref.load %t[%nb] : memref<8xf32, 3>
  %s = arith.addf %v, %w : f32
  memref.store %s, %a[%i] : memref<?xf32>
  func.return
}
"""


@pytest.mark.parametrize("source", [NEIGHBOURS, NEIGHBOURS_CFG], ids=["fission", "dispatch"])
def test_debug_build_runs_as_the_normal_one(source: str) -> None:
    runs = [_run(xmux.compile(source, debug=d, cache=False)) for d in (False, True)]
    assert np.array_equal(*runs)


def test_gdb_prints_a_value_kept_across_a_barrier(tmp_path: Path) -> None:
    kernel_file = tmp_path / "k.mlir"
    kernel_file.write_text(NEIGHBOURS)
    # work-item 5 of group 1 (x: the work-item loop's index), second iteration: acc is
    # a[13] + a[12] (its neighbour's value before the first barrier)
    out = _gdb(tmp_path, kernel_file, """\
        break k.mlir:11 if i == 13 && k == 1
        run
        print k
        print x
        print i
        print acc
        print r
        """, "0")
    assert "Breakpoint 1, k (" in out and "at k.mlir:11" in out, out
    values = re.findall(r"^\$\d+ = (.*)$", out, re.M)
    assert values[:4] == ["1", "5", "13", "225"], out


def test_gdb_prints_a_value_kept_across_a_barrier_by_region_dispatch(tmp_path: Path) -> None:
    kernel_file = tmp_path / "k.mlir"
    kernel_file.write_text(NEIGHBOURS_CFG)
    out = _gdb(tmp_path, kernel_file, """\
        break k.mlir:11 if i == 13
        run
        print v
        print lin
        """, "0")
    assert "Breakpoint 1, k.mux-region-1 (" in out and "at k.mlir:11" in out, out
    values = re.findall(r"^\$\d+ = (.*)$", out, re.M)
    assert values[:2] == ["113", "5"], out


def test_gdb_at_default_optimisation(tmp_path: Path, kernel_file: Path) -> None:
    out = _gdb(tmp_path, kernel_file, """\
        break k.mlir:16
        run
        bt
        """, "3")
    # k is inlined into its entry hook: gdb shows the inlined frames by name
    assert "Breakpoint 1, k () at k.mlir:16" in out, out
    assert re.search(r"#\d+ +k\.mux-entry-hook \(", out), out


# ---------------------------------------------------------------------------------------
# perf
# ---------------------------------------------------------------------------------------


def test_function_symbols_of_an_object() -> None:
    prog = xmux.compile(KERNEL, cache=False)
    names = {name for name, *_ in perf_map.function_symbols(prog.jit.object_code)}
    assert "k.mux-entry-hook" in names


def test_perf_map_names_the_kernel(tmp_path: Path, kernel_file: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""\
        import os, xmux
        prog = xmux.compile({str(kernel_file)!r}, cache=False)
        print(hex(prog.jit.address("k.mux-entry-hook"))[2:])
        print(open(f"/tmp/perf-{{os.getpid()}}.map").read())
        os.remove(f"/tmp/perf-{{os.getpid()}}.map")
        """))
    env = dict(os.environ, XMUX_PERF_MAP="1", XMUX_CACHE="0")
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, cwd=root, timeout=300, check=True)
    addr, *rows = done.stdout.splitlines()
    entries = {r.split()[2]: r.split()[:2] for r in rows if r}
    assert entries["k.mux-entry-hook"][0] == addr
    assert int(entries["k.mux-entry-hook"][1], 16) > 0


def test_perf_report_names_the_kernel(tmp_path: Path, kernel_file: Path) -> None:
    if shutil.which("perf") is None:
        pytest.skip("perf is not installed")
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""\
        import os, numpy as np, xmux
        prog = xmux.compile({str(kernel_file)!r}, cache=False, specialize=False)
        a = np.arange(1 << 16, dtype=np.float32)
        for _ in range(20):
            prog.kernel("k")(a, xmux.LocalMemory(32), 1000, global_size=(1 << 16,),
                             local_size=(8,))
        print(os.getpid())
        """))
    data = tmp_path / "perf.data"
    env = dict(os.environ, XMUX_PERF_MAP="1", XMUX_CACHE="0")
    root = Path(__file__).resolve().parent.parent
    rec = subprocess.run(["perf", "record", "-o", str(data), "-F", "999", sys.executable,
                          str(script)], capture_output=True, text=True, env=env, cwd=root,
                         timeout=300)
    if rec.returncode != 0 or not data.exists():
        pytest.skip(f"perf record cannot run here: {rec.stderr.strip()[-200:]}")
    report = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--sort", "sym"],
                            capture_output=True, text=True, timeout=300)
    Path(f"/tmp/perf-{rec.stdout.split()[-1]}.map").unlink(missing_ok=True)
    assert "k.mux-entry-hook" in report.stdout, report.stdout[-2000:]
