"""Kernels from C (runtime/c_api.py, ``xmux-run --emit obj|header``): a C program links a
kernel object through the generated header and runs it, without Python.

Every launch of every example's host ``@main`` is recorded as the JIT runs it (arguments
before and after, the NDRange); a C driver generated for that launch loads the same inputs,
runs the kernel through the header's ``K_run`` (or ``K_run_threads``) and writes the
arrays back, which must equal the JIT's. tests/test_aarch64.py runs the same drivers
cross-compiled for AArch64 under qemu.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from xmux.abi.kernel_layout import KernelInfo
from xmux.cli import run_main
from xmux.runtime import abi, c_api

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
#: the examples with kernels launched from a host @main (the gpu/ ones print from kernels)
EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES.glob("*.mlir"))

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc is not installed")


@dataclass
class Arg:
    kind: str  # "memref", "local" or "scalar"
    value: object = None  # scalar: its value as packed (float16: the bits)
    lead: int = 0  # memref: bytes before element 0 (descriptor offset * itemsize)
    offset: int = 0
    sizes: list[int] = field(default_factory=list)
    strides: list[int] = field(default_factory=list)
    before: bytes = b""  # memref: the bytes of its span before the launch
    after: bytes = b""
    dtype: str = ""


@dataclass
class Launch:
    info: KernelInfo
    work_dim: int
    global_size: list[int]
    local_size: list[int]
    global_offset: list[int]
    args: list[Arg]


def _span(dtype: np.dtype, sizes: list[int], strides: list[int]) -> int:
    if 0 in sizes:
        return 0
    return dtype.itemsize * (1 + sum((n - 1) * s for n, s in zip(sizes, strides, strict=True)))


def _read_args(info: KernelInfo, packed: int) -> list[Arg]:
    fields = abi.packed_args_ctype(abi.layout_of(info)).from_address(packed)
    out = []
    for i, a in enumerate(info.args):
        f = getattr(fields, f"a{i}")
        if a.kind == "scalar":
            out.append(Arg("scalar", f, dtype=a.dtype))
            continue
        rank = len(a.shape or [])
        sizes = [f.sizes[d] for d in range(rank)]
        strides = [f.strides[d] for d in range(rank)]
        if a.kind == "local":
            out.append(Arg("local", sizes=sizes, strides=strides, dtype=a.dtype))
            continue
        dtype = np.dtype(a.dtype)
        start = (f.aligned or 0) + f.offset * dtype.itemsize
        n = _span(dtype, sizes, strides)
        data = ctypes.string_at(start, n) if n else b""
        out.append(Arg("memref", lead=f.offset * dtype.itemsize, offset=f.offset, sizes=sizes,
                       strides=strides, before=data, dtype=a.dtype))
    return out


def record_launches(path: Path) -> list[Launch]:
    """Every launch of ``path``'s ``@main`` as the JIT runs it (on this host)."""
    from xmux.runner import HostProgram

    prog = HostProgram(path.read_text(), str(path))
    launches: list[Launch] = []
    run = prog._launch

    def spy(index: int, packed: int, dim: int, g, loc, off) -> None:
        info = prog.infos[prog.table[index]]
        args = _read_args(info, packed)
        run(index, packed, dim, g, loc, off)
        for a, now in zip(args, _read_args(info, packed), strict=True):
            if a.kind == "memref":
                a.after = now.before
        launches.append(Launch(info, dim, [g[d] for d in range(dim)],
                               [loc[d] for d in range(dim)], [off[d] for d in range(dim)], args))

    prog._launch = spy  # type: ignore[method-assign]
    prog.run_main()
    return launches


def _c_scalar(a: Arg) -> str:
    if a.dtype in ("float32", "float64"):
        v = float(a.value)  # type: ignore[arg-type]
        if np.isnan(v):
            return "(0.0/0.0)"
        if np.isinf(v):
            return "(1.0/0.0)" if v > 0 else "(-1.0/0.0)"
        return f"{v.hex()}{'f' if a.dtype == 'float32' else ''}"
    return f"{int(a.value)}LL" if a.dtype in ("int64", "uint64") else str(int(a.value))  # type: ignore[call-overload]


def driver(launch: Launch, header: str) -> str:
    """A C program running ``launch``: ``prog IN OUT [THREADS]`` reads the memrefs' bytes
    from IN, runs the kernel (on THREADS threads when given) and writes them to OUT."""
    k = c_api._c_name(launch.info.name)
    names = c_api.field_names(launch.info)
    body = []
    for i, (a, name) in enumerate(zip(launch.args, names, strict=True)):
        if a.kind == "scalar":
            body.append(f"args.{name} = {_c_scalar(a)};")
            continue
        for d, (n, s) in enumerate(zip(a.sizes, a.strides, strict=True)):
            body.append(f"args.{name}.sizes[{d}] = {n}; args.{name}.strides[{d}] = {s};")
        if a.kind == "memref":
            body.append(f"buf[{i}] = load(in, {a.lead}, {len(a.before)});")
            body.append(f"args.{name}.allocated = args.{name}.aligned = buf[{i}]; "
                        f"args.{name}.offset = {a.offset};")
    outs = [f"fwrite(buf[{i}] + {a.lead}, 1, {len(a.before)}, out);"
            for i, a in enumerate(launch.args) if a.kind == "memref"]
    dims = ", ".join
    return textwrap.dedent(f"""\
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include "{header}"
        static char *load(FILE *f, size_t lead, size_t n) {{
          char *p = calloc(1, lead + n + 64);
          if (!p || fread(p + lead, 1, n, f) != n) {{ fprintf(stderr, "short input\\n"); exit(3); }}
          return p;
        }}
        int main(int argc, char **argv) {{
          FILE *in = fopen(argv[1], "rb");
          char *buf[{max(len(launch.args), 1)}] = {{0}};
          {k}_args_t args;
          size_t g[3] = {{{dims(map(str, launch.global_size))}}};
          size_t l[3] = {{{dims(map(str, launch.local_size))}}};
          size_t o[3] = {{{dims(map(str, launch.global_offset))}}};
          int status;
          FILE *out;
          if (!in) return 4;
          memset(&args, 0, sizeof args);
          {chr(10).join('  ' + line for line in body).lstrip()}
          status = argc > 3 ? {k}_run_threads(&args, {launch.work_dim}, g, l, o, atoi(argv[3]))
                            : {k}_run(&args, {launch.work_dim}, g, l, o);
          if (status != XMUX_SUCCESS) {{ fprintf(stderr, "status %d\\n", status); return 2; }}
          out = fopen(argv[2], "wb");
          {chr(10).join('  ' + line for line in outs).lstrip()}
          fclose(out);
          (void)buf;
          return 0;
        }}
        """)


def emit(mlir: Path, what: str, out: Path, *target: str) -> None:
    assert run_main([str(mlir), "--emit", what, "-o", str(out), *target]) == 0


def check_outputs(launch: Launch, got: bytes, where: str) -> None:
    pos = 0
    for i, a in enumerate(launch.args):
        if a.kind != "memref":
            continue
        n = len(a.before)
        have, want = got[pos:pos + n], a.after
        pos += n
        dtype = np.dtype(a.dtype if a.dtype != "bool" else "int8")
        h, w = np.frombuffer(have, dtype), np.frombuffer(want, dtype)
        what = f"{where}: @{launch.info.name} argument {i} ({launch.info.args[i].name})"
        if dtype.kind == "f":
            np.testing.assert_allclose(h, w, rtol=1e-5, atol=1e-6, err_msg=what)
        else:
            np.testing.assert_array_equal(h, w, err_msg=what)
    assert pos == len(got), f"{where}: {len(got)} bytes written, expected {pos}"


def build_drivers(name: str, tmp: Path, cc: list[str], target: tuple[str, ...] = ()
                  ) -> tuple[list[Launch], list[Path]]:
    """The launches of example ``name`` and one executable per launch, built with ``cc``
    against the kernels' object and header for ``target`` (xmux-run's options)."""
    mlir = EXAMPLES / f"{name}.mlir"
    launches = record_launches(mlir)
    assert launches, f"{name}: @main launched nothing"
    emit(mlir, "obj", tmp / "k.o", *target)
    emit(mlir, "header", tmp / "k.h", *target)
    exes = []
    for n, launch in enumerate(launches):
        src = tmp / f"launch{n}.c"
        src.write_text(driver(launch, "k.h"))
        exe = tmp / f"launch{n}"
        subprocess.run([*cc, "-std=c99", "-O1", "-Wall", "-Werror", "-o", str(exe), str(src),
                        str(tmp / "k.o"), "-lm", "-pthread"], check=True, cwd=tmp)
        exes.append(exe)
    return launches, exes


def run_launches(launches: list[Launch], exes: list[Path], tmp: Path, prefix: list[str],
                 threads: int | None = None, env: dict | None = None) -> None:
    for n, (launch, exe) in enumerate(zip(launches, exes, strict=True)):
        inp, out = tmp / f"in{n}.bin", tmp / f"out{n}.bin"
        inp.write_bytes(b"".join(a.before for a in launch.args if a.kind == "memref"))
        cmd = [*prefix, str(exe), str(inp), str(out)] + ([str(threads)] if threads else [])
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        assert proc.returncode == 0, f"launch {n} of @{launch.info.name}: {proc.stderr}"
        check_outputs(launch, out.read_bytes(), f"launch {n}")


# ---------------------------------------------------------------------------------------


@needs_gcc
def test_vecadd_from_c(tmp_path):
    """The header's example: a hand-written C program, on the calling thread and on 4."""
    emit(EXAMPLES / "vecadd.mlir", "obj", tmp_path / "vecadd.o")
    emit(EXAMPLES / "vecadd.mlir", "header", tmp_path / "vecadd.h")
    (tmp_path / "main.c").write_text(textwrap.dedent("""\
        #include <stdio.h>
        #include "vecadd.h"
        enum { N = 1001 };
        static float a[N], b[N], c[N];
        int main(void) {
          vecadd_args_t args = { xmux_memref1(a, N), xmux_memref1(b, N), xmux_memref1(c, N) };
          size_t g[1] = {N}, l[1] = {64}, big[1] = {N + 1};
          int i, threads;
          for (i = 0; i < N; ++i) { a[i] = (float)i; b[i] = 0.5f * (float)i; }
          for (threads = 0; threads <= 4; threads += 4) {
            for (i = 0; i < N; ++i) c[i] = -1.0f;
            if ((threads ? vecadd_run_threads(&args, 1, g, l, NULL, threads)
                         : vecadd_run(&args, 1, g, NULL, NULL)) != XMUX_SUCCESS) return 2;
            for (i = 0; i < N; ++i) if (c[i] != a[i] + b[i]) { printf("c[%d]\\n", i); return 1; }
          }
          /* bad ranges are refused before anything runs */
          if (vecadd_run(&args, 1, g, big, NULL) != XMUX_E_LOCAL_SIZE) return 3;
          if (vecadd_run(&args, 4, g, l, NULL) != XMUX_E_WORK_DIM) return 4;
          if (vecadd_run_threads(&args, 1, g, l, NULL, 0) != XMUX_E_THREADS) return 5;
          printf("ok %g\\n", c[N - 1]);
          return 0;
        }
        """))
    subprocess.run([GCC, "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-o", "main",
                    "main.c", "vecadd.o", "-lm", "-pthread"], check=True, cwd=tmp_path)
    proc = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "ok 1500\n"


@needs_gcc
def test_header_compiles_as_cxx(tmp_path):
    """The header is C++ too (extern "C"), with every example's kernels in one unit."""
    includes = []
    for name in ("matmul_tiled", "prefix_sum", "reduce_local", "saxpy"):
        emit(EXAMPLES / f"{name}.mlir", "header", tmp_path / f"{name}.h")
        includes.append(f'#include "{name}.h"')
    (tmp_path / "all.cc").write_text("\n".join(includes) + "\nint main() { return 0; }\n")
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ is not installed")
    subprocess.run([gxx, "-Wall", "-Werror", "-c", "all.cc"], check=True, cwd=tmp_path)


@needs_gcc
def test_calling_thread_only_without_pthreads(tmp_path):
    """``-DXMUX_NO_THREADS``: the header declares no threaded launcher and needs no pthread."""
    emit(EXAMPLES / "saxpy.mlir", "header", tmp_path / "saxpy.h")
    (tmp_path / "t.c").write_text('#include "saxpy.h"\n'
                                  "#ifdef XMUX_C_API_COMMON\nint ok;\n#endif\n")
    subprocess.run([GCC, "-std=c99", "-Wall", "-Werror", "-DXMUX_NO_THREADS", "-E", "-o",
                    "t.i", "t.c"], check=True, cwd=tmp_path)
    text = (tmp_path / "t.i").read_text()
    assert "saxpy_run(" in text and "saxpy_run_threads" not in text and "pthread" not in text


def test_header_declares_the_packed_layout():
    """The struct of a kernel's arguments is runtime/abi.py's, field by field."""
    from xmux.abi.kernel_layout import ArgInfo

    info = KernelInfo("k", "k.mux-entry-hook", [
        ArgInfo("n", "scalar", "int32"), ArgInfo("a", "memref", "float32", [None, 4]),
        ArgInfo("flag", "scalar", "bool"), ArgInfo("t", "local", "float32", [None]),
        ArgInfo("x", "scalar", "float64"), ArgInfo("int", "scalar", "int64"),
    ], reqd_work_group_size=[16, 1, 1])
    text = c_api.header([info])
    assert "  int32_t n; /* int32 */\n  xmux_memref2_t a;" in text
    assert "  int64_t int_; /* int64 */" in text  # a C keyword as a name
    assert "  int8_t flag;" in text and "  xmux_memref1_t t;" in text and "  double x;" in text
    assert "void xmux_k_entry_hook(void *args, int64_t *sched);" in text
    assert "k_reqd_work_group_size[3] = {16, 1, 1}" in text
    assert c_api.args_size(info) == ctypes.sizeof(abi.packed_args_ctype(abi.layout_of(info)))


@needs_gcc
@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_through_c(name, tmp_path):
    """Every launch of every example, run from C on this host (x86-64 in the suite), equals
    the JIT's; on the calling thread and on 3 threads."""
    launches, exes = build_drivers(name, tmp_path, [GCC])
    run_launches(launches, exes, tmp_path, [])
    run_launches(launches, exes, tmp_path, [], threads=3)


def test_emit_errors(tmp_path, capsys):
    src = EXAMPLES / "vecadd.mlir"
    assert run_main([str(src), "--emit", "obj", "--target", "riscv64-linux-gnu",
                     "-o", str(tmp_path / "x.o")]) == 1
    assert "must be cpu or an aarch64 triple" in capsys.readouterr().err
    assert run_main([str(src), "--emit", "obj", "--target", "aarch64-linux-gnu",
                     "--chip", "pentium", "-o", str(tmp_path / "x.o")]) == 1
    assert "neoverse-v2" in capsys.readouterr().err
