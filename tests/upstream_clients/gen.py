"""Upstream clients' programs through mlir-opt-19's GPU pipelines, run by xmux and by upstream.

Writes linalg programs (matmul, convolutions, pooling, softmax with ``math.exp``, reductions,
transposes, broadcasts) and ``scf.parallel`` programs (with and without ``scf.reduce``) as MLIR
with a host ``@main`` that fills the inputs deterministically (host ``scf.for`` loops: the data
does not depend on the pipeline under test) and prints the results with ``printMemrefF32``.
Each program goes through every pipeline of ``VARIANTS`` (mlir-opt-19, as a client would run
it), then

- ``xmux-run`` (``--target cpu`` or ``nvptx``) and ``xmux-run --interpret`` run the result
  (``--target ptx``: only ``xmux-run --target nvptx --emit ptx``, every kernel a PTX entry);
- the reference: the *original* program lowered by upstream's CPU pipeline (``REFERENCE``) and
  run by ``mlir-cpu-runner-19`` with ``libmlir_runner_utils`` / ``libmlir_c_runner_utils``;
- the printed outputs must be equal (addresses aside), number for number.

``python -m tests.upstream_clients.gen --target cpu|nvptx --out DIR [--only NAME ...]
[--variants V ...] [--jobs N]`` writes ``DIR/<program>.<variant>.mlir``,
``DIR/<program>.reference.out``, ``DIR/results.json`` and prints one line per program/variant:
``pass``, ``fail: <what differs>``, ``error: <stage>: <message>`` or ``upstream-bug: <why>``
(``UPSTREAM_BUGS``). Exit status 1 if any fails or errs (``--keep-going``: 0). ``--from DIR``
runs what an earlier run left in DIR, on a machine without mlir-opt-19 (the GPU machine:
``--target nvptx --from DIR``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MLIR_OPT = shutil.which("mlir-opt-19")
MLIR_RUNNER = shutil.which("mlir-cpu-runner-19")
LIB_DIRS = (Path("/usr/lib/llvm-19/lib"),)
TIMEOUT_S = 300

GPU = ("--convert-linalg-to-parallel-loops", "--gpu-map-parallel-loops",
       "--convert-parallel-loops-to-gpu")

#: variant → mlir-opt-19 arguments (the clients' pipelines of issue 31)
VARIANTS: dict[str, tuple[str, ...]] = {
    "gpu": (*GPU, "--gpu-kernel-outlining"),
    "gpu-lower-affine": (*GPU, "--gpu-kernel-outlining", "--lower-affine"),
    "gpu-launch": GPU,  # gpu.launch left in the host code, not outlined
    "gpu-async": (*GPU, "--gpu-kernel-outlining", "--gpu-async-region"),
    "gpu-debuginfo": (*GPU, "--gpu-kernel-outlining", "--mlir-print-debuginfo"),
    "host-parallel": ("--convert-linalg-to-parallel-loops",),
    "host-parallel-lower-affine": ("--convert-linalg-to-parallel-loops", "--lower-affine"),
    # blocks of 4x4 threads: thread ids, bounds guarded by scf.if, more affine.apply
    "gpu-tiled": ("--convert-linalg-to-parallel-loops",
                  "--scf-parallel-loop-tiling=parallel-loop-tile-sizes=4,4 "
                  "no-min-max-bounds=true", *GPU[1:], "--gpu-kernel-outlining"),
    # kernels as unstructured control flow, after the usual clean-up, in the generic form
    "gpu-cf-generic": (*GPU, "--lower-affine", "--convert-scf-to-cf", "--gpu-kernel-outlining",
                       "--canonicalize", "--cse", "--mlir-print-op-generic"),
    "affine-loops": ("--convert-linalg-to-affine-loops",),
    "affine-parallel": ("--convert-linalg-to-affine-loops", "--affine-parallelize"),
}

#: (program, variant) whose mlir-opt-19 output computes something else than the program: the
#: row says "upstream-bug" when xmux prints what upstream's CPU lowering of that same output
#: prints (checked by hand), instead of failing
UPSTREAM_BUGS = {
    ("parallel_scale", "gpu-tiled"): "LLVM 19's scf-parallel-loop-tiling no-min-max-bounds "
    "guards the tiles of a step-2 loop with the step applied twice (j = 5, 7 skipped)",
}

#: upstream's own CPU lowering of the original program, for mlir-cpu-runner-19
REFERENCE = ("--convert-linalg-to-loops", "--lower-affine", "--convert-scf-to-cf",
             "--expand-strided-metadata", "--finalize-memref-to-llvm", "--convert-math-to-llvm",
             "--convert-math-to-libm",
             "--convert-to-llvm", "--reconcile-unrealized-casts")

PRINT_DECL = "func.func private @printMemrefF32(memref<*xf32>)"
NEG_INF = "0xFF800000"


# ------------------------------------------------------------------------- program text


class Main:
    """The lines of a host ``@main``: buffers, fills, the computation, prints."""

    def __init__(self, et: str = "f32") -> None:
        self.et = et  # the element type of every buffer: f32 or i32
        self.lines: list[str] = []
        self.consts: set[str] = set()
        self._n = 0

    def fresh(self, stem: str) -> str:
        self._n += 1
        return f"%{stem}{self._n}"

    def index(self, k: int) -> str:
        name = f"%c{k}"
        if name not in self.consts:
            self.consts.add(name)
        return name

    def alloc(self, name: str, shape: tuple[int, ...]) -> str:
        self.lines.append(f"%{name} = memref.alloc() : {memref(shape, self.et)}")
        return f"%{name}"

    def fill(self, buf: str, shape: tuple[int, ...], seed: int) -> None:
        """buf[i...] = ((seed + sum(i_k * p_k)) mod 13 - 6) / 4 (i32: without the / 4): small,
        exact, not uniform."""
        primes = (7, 5, 3, 11)
        ivs = [self.fresh("i") for _ in shape]
        indent = ""
        for iv, n in zip(ivs, shape, strict=True):
            self.lines.append(f"{indent}scf.for {iv} = %c0 to {self.index(n)} step %c1 {{")
            indent += "  "
        acc = self.fresh("s")
        self.lines.append(f"{indent}{acc} = arith.constant {seed} : index")
        for k, iv in enumerate(ivs):
            t, u = self.fresh("t"), self.fresh("u")
            self.lines.append(f"{indent}{t} = arith.muli {iv}, {self.index(primes[k % 4])} : "
                              "index")
            self.lines.append(f"{indent}{u} = arith.addi {acc}, {t} : index")
            acc = u
        m, i, f, g = (self.fresh(x) for x in "mifg")
        self.lines += [
            f"{indent}{m} = arith.remui {acc}, {self.index(13)} : index",
            f"{indent}{i} = arith.index_cast {m} : index to i32",
        ]
        if self.et == "i32":
            self.lines.append(f"{indent}{g}q = arith.subi {i}, %six_i : i32")
        else:
            self.lines += [
                f"{indent}{f} = arith.sitofp {i} : i32 to f32",
                f"{indent}{g} = arith.subf {f}, %six : f32",
                f"{indent}{g}q = arith.mulf {g}, %quarter : f32",
            ]
        self.lines.append(
            f"{indent}memref.store {g}q, {buf}[{', '.join(ivs)}] : {memref(shape, self.et)}")
        for _ in shape:
            indent = indent[:-2]
            self.lines.append(f"{indent}}}")

    def const_fill(self, buf: str, shape: tuple[int, ...], value: str) -> None:
        v = self.fresh("v")
        self.lines.append(f"{v} = arith.constant {value} : {self.et}")
        self.lines.append(f"linalg.fill ins({v} : {self.et}) outs({buf} : "
                          f"{memref(shape, self.et)})")

    def print(self, buf: str, shape: tuple[int, ...]) -> None:
        u = self.fresh("p")
        et, fn = self.et, "printMemref" + self.et.upper()
        self.lines.append(f"{u} = memref.cast {buf} : {memref(shape, et)} to memref<*x{et}>")
        self.lines.append(f"func.call @{fn}({u}) : (memref<*x{et}>) -> ()")

    def text(self, extra: str = "") -> str:
        consts = {"%c0", "%c1"} | self.consts
        head = [f"{c} = arith.constant {c[2:]} : index" for c in sorted(consts)]
        head += ["%six = arith.constant 6.0 : f32", "%quarter = arith.constant 0.25 : f32",
                 "%six_i = arith.constant 6 : i32"]
        body = "\n".join("  " + ln for ln in head + self.lines)
        decl = PRINT_DECL.replace("F32", self.et.upper()).replace("xf32", f"x{self.et}")
        return f"{extra}func.func @main() {{\n{body}\n  return\n}}\n{decl}\n"


def memref(shape: tuple[int, ...], et: str = "f32") -> str:
    return f"memref<{'x'.join(map(str, shape))}x{et}>"


def _inputs(m: Main, shapes: dict[str, tuple[int, ...]]) -> None:
    for seed, (name, shape) in enumerate(shapes.items()):
        m.alloc(name, shape)
        m.fill(f"%{name}", shape, seed + 1)


def matmul() -> str:
    m = Main()
    _inputs(m, {"a": (6, 5), "b": (5, 7)})
    m.alloc("c", (6, 7))
    m.const_fill("%c", (6, 7), "0.0")
    m.lines.append("linalg.matmul ins(%a, %b : memref<6x5xf32>, memref<5x7xf32>) "
                   "outs(%c : memref<6x7xf32>)")
    m.print("%c", (6, 7))
    return m.text()


def matmul_dynamic() -> str:
    """memref<?x?xf32> operands: launch sizes from memref.dim."""
    m = Main()
    _inputs(m, {"a": (6, 5), "b": (5, 7)})
    m.alloc("c", (6, 7))
    m.const_fill("%c", (6, 7), "0.0")
    for n, shape in (("a", "6x5"), ("b", "5x7"), ("c", "6x7")):
        m.lines.append(f"%{n}d = memref.cast %{n} : memref<{shape}xf32> to memref<?x?xf32>")
    m.lines.append("linalg.matmul ins(%ad, %bd : memref<?x?xf32>, memref<?x?xf32>) "
                   "outs(%cd : memref<?x?xf32>)")
    m.print("%c", (6, 7))
    return m.text()


def matmul_i32() -> str:
    m = Main("i32")
    _inputs(m, {"a": (6, 5), "b": (5, 7)})
    m.alloc("c", (6, 7))
    m.const_fill("%c", (6, 7), "0")
    m.lines.append("linalg.matmul ins(%a, %b : memref<6x5xi32>, memref<5x7xi32>) "
                   "outs(%c : memref<6x7xi32>)")
    m.print("%c", (6, 7))
    return m.text()


def conv_2d_nhwc_hwcf() -> str:
    m = Main()
    _inputs(m, {"x": (1, 6, 7, 2), "w": (3, 3, 2, 3)})
    m.alloc("y", (1, 4, 5, 3))
    m.const_fill("%y", (1, 4, 5, 3), "0.0")
    m.lines.append(
        "linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : "
        "tensor<2xi64>} ins(%x, %w : memref<1x6x7x2xf32>, memref<3x3x2x3xf32>) "
        "outs(%y : memref<1x4x5x3xf32>)")
    m.print("%y", (1, 4, 5, 3))
    return m.text()


def conv_2d() -> str:
    m = Main()
    _inputs(m, {"x": (8, 9), "w": (3, 2)})
    m.alloc("y", (6, 8))
    m.const_fill("%y", (6, 8), "0.5")
    m.lines.append("linalg.conv_2d ins(%x, %w : memref<8x9xf32>, memref<3x2xf32>) "
                   "outs(%y : memref<6x8xf32>)")
    m.print("%y", (6, 8))
    return m.text()


def _pool(kind: str, init: str) -> str:
    m = Main()
    _inputs(m, {"x": (1, 6, 7, 2)})
    m.alloc("win", (3, 2))
    m.alloc("y", (1, 2, 3, 2))
    m.const_fill("%y", (1, 2, 3, 2), init)
    m.lines.append(
        f"linalg.pooling_nhwc_{kind} {{dilations = dense<1> : tensor<2xi64>, strides = "
        "dense<2> : tensor<2xi64>} ins(%x, %win : memref<1x6x7x2xf32>, memref<3x2xf32>) "
        "outs(%y : memref<1x2x3x2xf32>)")
    m.print("%y", (1, 2, 3, 2))
    return m.text()


def pooling_max() -> str:
    return _pool("max", NEG_INF)


def pooling_sum() -> str:
    return _pool("sum", "0.0")


ID2 = "affine_map<(d0, d1) -> (d0, d1)>"
ROW = "affine_map<(d0, d1) -> (d0)>"
COL = "affine_map<(d0, d1) -> (d1)>"


def _generic(ins: list[tuple[str, str, tuple[int, ...]]], out: tuple[str, str, tuple[int, ...]],
             iterators: str, body: list[str]) -> list[str]:
    maps = ", ".join(mp for _, mp, _ in [*ins, out])
    names = ", ".join(n for n, _, _ in ins)
    types = ", ".join(memref(s) for _, _, s in ins)
    args = ", ".join(f"%e{k}: f32" for k in range(len(ins) + 1))
    return [
        f"linalg.generic {{indexing_maps = [{maps}], iterator_types = [{iterators}]}}",
        f"    ins({names} : {types}) outs({out[0]} : {memref(out[2])}) {{",
        f"^bb0({args}):",
        *("  " + b for b in body),
        "}",
    ]


def softmax() -> str:
    """Rows of x: max, exp(x - max), sum, divide; four linalg.generic ops, math.exp."""
    r, c = 5, 9
    m = Main()
    _inputs(m, {"x": (r, c)})
    for name, shape in (("mx", (r,)), ("e", (r, c)), ("sm", (r,)), ("y", (r, c))):
        m.alloc(name, shape)
    m.const_fill("%mx", (r,), NEG_INF)
    m.const_fill("%sm", (r,), "0.0")
    red = '"parallel", "reduction"'
    par = '"parallel", "parallel"'
    m.lines += _generic([("%x", ID2, (r, c))], ("%mx", ROW, (r,)), red,
                        ["%m = arith.maximumf %e0, %e1 : f32", "linalg.yield %m : f32"])
    m.lines += _generic([("%x", ID2, (r, c)), ("%mx", ROW, (r,))], ("%e", ID2, (r, c)), par,
                        ["%d = arith.subf %e0, %e1 : f32", "%ex = math.exp %d : f32",
                         "linalg.yield %ex : f32"])
    m.lines += _generic([("%e", ID2, (r, c))], ("%sm", ROW, (r,)), red,
                        ["%a = arith.addf %e0, %e1 : f32", "linalg.yield %a : f32"])
    m.lines += _generic([("%e", ID2, (r, c)), ("%sm", ROW, (r,))], ("%y", ID2, (r, c)), par,
                        ["%q = arith.divf %e0, %e1 : f32", "linalg.yield %q : f32"])
    m.print("%y", (r, c))
    return m.text()


def tanh_gelu() -> str:
    """Elementwise math beyond exp: tanh, erf and sqrt in one linalg.generic."""
    m = Main()
    _inputs(m, {"x": (4, 6)})
    m.alloc("y", (4, 6))
    m.lines += _generic([("%x", ID2, (4, 6))], ("%y", ID2, (4, 6)), '"parallel", "parallel"', [
        "%t = math.tanh %e0 : f32", "%r = math.erf %e0 : f32", "%a = math.absf %e0 : f32",
        "%s = math.sqrt %a : f32", "%u = arith.addf %t, %r : f32", "%v = arith.addf %u, %s : f32",
        "linalg.yield %v : f32"])
    m.print("%y", (4, 6))
    return m.text()


def reduce_rows() -> str:
    m = Main()
    _inputs(m, {"x": (5, 7)})
    m.alloc("r", (5,))
    m.const_fill("%r", (5,), "0.0")
    m.lines += [
        "linalg.reduce ins(%x : memref<5x7xf32>) outs(%r : memref<5xf32>) dimensions = [1]",
        "  (%in: f32, %acc: f32) {",
        "    %s = arith.addf %in, %acc : f32",
        "    linalg.yield %s : f32",
        "  }",
    ]
    m.print("%r", (5,))
    return m.text()


def reduce_cols_max() -> str:
    m = Main()
    _inputs(m, {"x": (5, 7)})
    m.alloc("r", (7,))
    m.const_fill("%r", (7,), NEG_INF)
    m.lines += _generic([("%x", ID2, (5, 7))], ("%r", COL, (7,)), '"reduction", "parallel"',
                        ["%m = arith.maximumf %e0, %e1 : f32", "linalg.yield %m : f32"])
    m.print("%r", (7,))
    return m.text()


def transpose() -> str:
    m = Main()
    _inputs(m, {"x": (5, 7)})
    m.alloc("y", (7, 5))
    m.lines.append("linalg.transpose ins(%x : memref<5x7xf32>) outs(%y : memref<7x5xf32>) "
                   "permutation = [1, 0]")
    m.print("%y", (7, 5))
    return m.text()


def transpose_3d() -> str:
    m = Main()
    _inputs(m, {"x": (2, 3, 4)})
    m.alloc("y", (4, 2, 3))
    m.lines.append("linalg.transpose ins(%x : memref<2x3x4xf32>) outs(%y : memref<4x2x3xf32>) "
                   "permutation = [2, 0, 1]")
    m.print("%y", (4, 2, 3))
    return m.text()


def broadcast() -> str:
    m = Main()
    _inputs(m, {"v": (7,)})
    m.alloc("y", (5, 7))
    m.lines.append("linalg.broadcast ins(%v : memref<7xf32>) outs(%y : memref<5x7xf32>) "
                   "dimensions = [0]")
    m.print("%y", (5, 7))
    return m.text()


def bias_add() -> str:
    """A broadcast inside a generic: y[i, j] = x[i, j] + b[j]."""
    m = Main()
    _inputs(m, {"x": (5, 7), "b": (7,)})
    m.alloc("y", (5, 7))
    m.lines += _generic([("%x", ID2, (5, 7)), ("%b", COL, (7,))], ("%y", ID2, (5, 7)),
                        '"parallel", "parallel"',
                        ["%a = arith.addf %e0, %e1 : f32", "linalg.yield %a : f32"])
    m.print("%y", (5, 7))
    return m.text()


def parallel_scale() -> str:
    """scf.parallel without reductions, as a client writes it (2-D, step 2 in one dim)."""
    m = Main()
    _inputs(m, {"x": (6, 8)})
    m.lines += [
        "%two = arith.constant 2.5 : f32",
        f"scf.parallel (%i, %j) = (%c0, %c1) to ({m.index(6)}, {m.index(8)}) "
        f"step (%c1, {m.index(2)}) {{",
        "  %v = memref.load %x[%i, %j] : memref<6x8xf32>",
        "  %w = arith.mulf %v, %two : f32",
        "  memref.store %w, %x[%i, %j] : memref<6x8xf32>",
        "  scf.reduce",
        "}",
    ]
    m.print("%x", (6, 8))
    return m.text()


def parallel_reduce() -> str:
    """scf.parallel with two scf.reduce results (sum, max) stored after the loop."""
    m = Main()
    _inputs(m, {"x": (6, 8)})
    m.alloc("out", (2,))
    m.lines += [
        "%zero = arith.constant 0.0 : f32",
        f"%ninf = arith.constant {NEG_INF} : f32",
        f"%s, %mx = scf.parallel (%i, %j) = (%c0, %c0) to ({m.index(6)}, {m.index(8)}) "
        "step (%c1, %c1) init (%zero, %ninf) -> (f32, f32) {",
        "  %v = memref.load %x[%i, %j] : memref<6x8xf32>",
        "  scf.reduce(%v, %v : f32, f32) {",
        "  ^bb0(%a: f32, %b: f32):",
        "    %t = arith.addf %a, %b : f32",
        "    scf.reduce.return %t : f32",
        "  }, {",
        "  ^bb0(%a: f32, %b: f32):",
        "    %t = arith.maximumf %a, %b : f32",
        "    scf.reduce.return %t : f32",
        "  }",
        "}",
        "memref.store %s, %out[%c0] : memref<2xf32>",
        "memref.store %mx, %out[%c1] : memref<2xf32>",
    ]
    m.print("%out", (2,))
    return m.text()


PROGRAMS: dict[str, Callable[[], str]] = {f.__name__: f for f in (
    matmul, matmul_dynamic, matmul_i32, conv_2d_nhwc_hwcf, conv_2d, pooling_max, pooling_sum,
    softmax, tanh_gelu,
    reduce_rows, reduce_cols_max, transpose, transpose_3d, broadcast, bias_add,
    parallel_scale, parallel_reduce,
)}


# ------------------------------------------------------------------------- running


@dataclass
class Result:
    program: str
    variant: str
    status: str  # "pass", "fail", "error", "upstream-bug" (UPSTREAM_BUGS)
    detail: str = ""

    def line(self) -> str:
        tail = f": {self.detail}" if self.detail else ""
        return f"{self.program:20} {self.variant:28} {self.status}{tail}"


def _one_line(text: str, limit: int = 160) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    pick = next((ln for ln in lines if re.search(r"error|not supported|no lowering|"
                                                 r"Traceback|Error:", ln)), lines[-1] if lines
                else "")
    if any(ln.startswith("Traceback") for ln in lines):
        pick = "Python traceback: " + lines[-1]
    return pick if len(pick) <= limit else pick[: limit - 1] + "…"


def _run(cmd: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                              timeout=TIMEOUT_S, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 124, "", f"error: timed out after {TIMEOUT_S} s")


def runner_libs() -> list[str]:
    """libmlir_c_runner_utils / libmlir_runner_utils of libmlir-19 (``dpkg -L libmlir-19``)."""
    found = []
    for name in ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so"):
        for d in LIB_DIRS:
            hits = sorted(d.glob(name + "*"))
            if hits:
                found.append(str(hits[0]))
                break
    return found


def xmux_run() -> list[str]:
    exe = Path(sys.executable).with_name("xmux-run")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "import sys; from xmux.cli import run_main; "
            "sys.exit(run_main())"]


def numbers(printed: str) -> list[str]:
    """The printed values, in order (the header's address and shape left out)."""
    body = re.sub(r"Unranked Memref base@[^\n]*data =", "", printed)
    return re.findall(r"-?(?:nan|inf|[0-9][0-9.e+-]*)", body)


def compare(got: str, want: str) -> str | None:
    """None if equal, else what differs (one line)."""
    g, w = numbers(got), numbers(want)
    shape = re.compile(r"rank = .*? data =")
    if shape.findall(got) != shape.findall(want):
        return f"shapes printed {shape.findall(got)}, the reference's {shape.findall(want)}"
    if g == w:
        return None
    if len(g) != len(w):
        return f"{len(g)} numbers printed, the reference prints {len(w)}"
    diffs = [(k, a, b) for k, (a, b) in enumerate(zip(g, w, strict=True)) if a != b]
    k, a, b = diffs[0]
    return f"{len(diffs)} of {len(w)} values differ; first at #{k}: {a} vs {b}"


def reference(name: str, text: str, out: Path) -> tuple[str | None, str]:
    """(output, "") of upstream's CPU lowering of the original program, or (None, error)."""
    if MLIR_OPT is None or MLIR_RUNNER is None:
        return None, "mlir-opt-19 / mlir-cpu-runner-19 not installed"
    low = _run([MLIR_OPT, *REFERENCE], text)
    if low.returncode:
        return None, "reference mlir-opt-19: " + _one_line(low.stderr)
    (out / f"{name}.reference.mlir").write_text(low.stdout)
    libs = runner_libs()
    run = _run([MLIR_RUNNER, "-e", "main", "-entry-point-result=void",
                f"-shared-libs={','.join(libs)}"], low.stdout)
    if run.returncode:
        return None, "mlir-cpu-runner-19: " + _one_line(run.stderr)
    (out / f"{name}.reference.out").write_text(run.stdout)
    return run.stdout, ""


def run_one(name: str, variant: str, text: str | None, want: str | None, why: str, target: str,
            out: Path, interpret: bool = True) -> list[Result]:
    """``text``: the program, lowered here by mlir-opt-19; None: ``out`` already holds the
    lowered program (``--from``)."""
    path = out / f"{name}.{variant}.mlir"
    if text is not None:
        opt = _run([MLIR_OPT, *VARIANTS[variant]], text)
        if opt.returncode:
            return [Result(name, variant, "error", "mlir-opt-19: " + _one_line(opt.stderr))]
        path.write_text(opt.stdout)
    if target == "ptx":  # PTX only (no GPU): every kernel an entry of the module's PTX
        kernels = len(re.findall(  # custom and generic forms
            r"gpu\.func @\w+\([^)]*\)[^{]*kernel|\bgpu\.kernel\b|\bgpu\.launch[ \"]",
            path.read_text()))
        if not kernels:
            return [Result(name, variant, "pass", "no kernels (host code only)")]
        p = _run([*xmux_run(), "--target", "nvptx", "--emit", "ptx", str(path)])
        if p.returncode:
            return [Result(name, variant, "error", f"xmux-run --emit ptx: {_one_line(p.stderr)}")]
        entries = p.stdout.count(".entry ")
        ok = entries >= max(kernels, 1)
        return [Result(name, variant, "pass" if ok else "fail",
                       "" if ok else f"{entries} PTX entries for {kernels} kernels")]
    results = []
    runs = [("xmux-run" + ("" if target == "cpu" else " --target nvptx"),
             [*xmux_run(), *(["--target", "nvptx"] if target != "cpu" else []), str(path)])]
    if interpret:
        runs.append(("xmux-run --interpret", [*xmux_run(), "--interpret", str(path)]))
    for label, cmd in runs:
        v = variant if label == runs[0][0] else f"{variant} (interpret)"
        p = _run(cmd)
        if p.returncode:
            results.append(Result(name, v, "error", f"{label}: {_one_line(p.stderr)}"))
        elif want is None:
            results.append(Result(name, v, "error", f"no reference: {why}"))
        else:
            diff = compare(p.stdout, want)
            if diff is None:
                results.append(Result(name, v, "pass"))
            elif (name, variant) in UPSTREAM_BUGS:
                results.append(Result(name, v, "upstream-bug", UPSTREAM_BUGS[name, variant]))
            else:
                results.append(Result(name, v, "fail", diff))
    return results


def generate(out: Path, names: list[str] | None = None) -> dict[str, str]:
    """Write every program's source; name → text."""
    out.mkdir(parents=True, exist_ok=True)
    texts = {}
    for name, make in PROGRAMS.items():
        if names and name not in names:
            continue
        texts[name] = make()
        (out / f"{name}.mlir").write_text(texts[name])
    return texts


def _collect(futures: list) -> list[Result]:
    """The results in submission order, each line printed (stderr) as soon as it is known."""
    for f in as_completed(futures):
        for r in f.result():
            print(r.line(), file=sys.stderr, flush=True)
    return [r for f in futures for r in f.result()]


def run_all(out: Path, target: str = "cpu", names: list[str] | None = None,
            variants: list[str] | None = None, jobs: int = 2,
            interpret: bool = True) -> list[Result]:
    texts = generate(out, names)
    variants = variants or list(VARIANTS)
    with ThreadPoolExecutor(jobs) as pool:
        refs = dict(zip(texts, pool.map(lambda n: reference(n, texts[n], out), texts),
                        strict=True))
        futures = [pool.submit(run_one, n, v, texts[n], refs[n][0], refs[n][1], target, out,
                               interpret)
                   for n in texts for v in variants]
        results = _collect(futures)
    (out / "results.json").write_text(json.dumps([r.__dict__ for r in results], indent=1))
    return results


def run_from(src: Path, target: str, jobs: int, interpret: bool) -> list[Result]:
    """Run the lowered programs and references a run with ``--out src`` left (for a machine
    without mlir-opt-19, such as the GPU machine)."""
    cases = []
    for path in sorted(src.glob("*.*.mlir")):
        name, variant = path.name[: -len(".mlir")].split(".", 1)
        if variant == "reference" or variant not in VARIANTS:
            continue
        ref = src / f"{name}.reference.out"
        want = ref.read_text() if ref.exists() else None
        cases.append((name, variant, want))
    with ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(run_one, n, v, None, w, "no reference output", target, src,
                               interpret) for n, v, w in cases]
        return _collect(futures)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.upstream_clients.gen",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--target", choices=("cpu", "nvptx", "ptx"), default="cpu",
                    help="ptx: build the kernels' PTX only (no GPU, no run)")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "upstream_clients")
    ap.add_argument("--only", nargs="*", choices=list(PROGRAMS), metavar="PROGRAM")
    ap.add_argument("--variants", nargs="*", choices=list(VARIANTS), metavar="VARIANT")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-interpret", action="store_true", help="skip xmux-run --interpret")
    ap.add_argument("--keep-going", action="store_true", help="exit 0 even if some fail")
    ap.add_argument("--from", dest="src", type=Path, metavar="DIR",
                    help="run the programs a run with --out DIR lowered (no mlir-opt-19 needed)")
    args = ap.parse_args(argv)
    if args.src is not None:
        results = run_from(args.src, args.target, args.jobs, not args.no_interpret)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "results.json").write_text(json.dumps([r.__dict__ for r in results],
                                                          indent=1))
    elif MLIR_OPT is None:
        print("mlir-opt-19 not found (apt-get install mlir-19-tools)", file=sys.stderr)
        return 2
    else:
        results = run_all(args.out, args.target, args.only, args.variants, args.jobs,
                          not args.no_interpret)
    for r in results:
        print(r.line())
    kinds = ("pass", "fail", "error", "upstream-bug")
    counts = {s: sum(r.status == s for r in results) for s in kinds}
    print(f"{len(results)} runs: " + ", ".join(f"{n} {s}" for s, n in counts.items())
          + f" (outputs in {args.out})")
    ok = counts["fail"] + counts["error"] == 0
    return 0 if args.keep_going or ok else 1


if __name__ == "__main__":
    sys.exit(main())
