"""Barriers and work-group collectives on AArch64 through the C path (issue 35): the launches
of tests/test_barriers.py (every shape × every NDRange), tests/test_pocl_workgroup_shapes.py
(barriers in loops, in called functions, in local memory given as an argument, ...) and
tests/test_collectives.py (work-group reduce / scans / any / all / broadcast, in loops and
helpers, required sizes) run under qemu-aarch64 and must give what this host's JIT gave.

Each of those tests runs here as written (its numpy model checks the JIT on this host)
while every kernel launch is recorded: the arguments before and after (as test_c_api reads
them from the packed struct) and the NDRange. Then the kernels of all recorded programs,
their symbols prefixed per program (``s3_one``), are compiled as one module for AArch64
(``compile_for_c`` + ``object_code``: what ``xmux-run --emit obj|header --target
aarch64-linux-gnu`` does), linked with one generated C driver that runs every launch in
order, and run under qemu on the calling thread and on 3 threads. Every array must equal
the host's bit for bit, except the reassociated float folds (work-group reduce fadd/fmul),
whose order depends on the vector width: those within the tolerance their tests allow.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import re
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests import test_barriers as tb
from tests import test_collectives as tc
from tests import test_pocl_workgroup_shapes as tp
from tests.test_aarch64 import CC, ENV, _qemu, needs_cross
from tests.test_c_api import Launch, _c_scalar, _read_args
from xmux.cli import c_target, compile_for_c
from xmux.runtime import c_api, launch
from xmux.targets.cpu import Kernel

TARGET = c_target("aarch64-linux-gnu", "neoverse-n1")


@dataclass
class Recorded:
    source: str  # the MLIR of the program the kernel came from
    launch: Launch


@contextlib.contextmanager
def recording():
    """Record every launch of a kernel of the test modules' programs inside the block."""
    records: list[Recorded] = []
    call = Kernel.__call__

    def spy_call(self, *args, global_size, local_size=None, global_offset=None, **kwargs):  # noqa: ANN001, ANN202
        info = self.info
        packed = launch.PackedArgs(info, args)
        before = _read_args(info, packed.address)
        result = call(self, *args, global_size=global_size, local_size=local_size,
                      global_offset=global_offset, **kwargs)
        repacked = launch.PackedArgs(info, args)  # the arrays now (kept alive while read)
        after = _read_args(info, repacked.address)
        for a, now in zip(before, after, strict=True):
            if a.kind == "memref":
                a.after = now.before
        nd = launch.NDRange.of(info, global_size, local_size, global_offset)
        dim = nd.work_dim
        records.append(Recorded(_source_of(self.program), Launch(
            info, dim, list(nd.global_size[:dim]), list(nd.local_size[:dim]),
            list(nd.global_offset[:dim]), before)))
        return result

    # the test modules' programs for this host, shared with their own tests (compiled by
    # whichever runs first in this process: the compile with its local-size variants is most
    # of a host run)
    targets = tb.TARGET, tp.TARGET
    tb.TARGET = tp.TARGET = "cpu"
    Kernel.__call__ = spy_call  # type: ignore[method-assign]
    try:
        yield records
    finally:
        Kernel.__call__ = call  # type: ignore[method-assign]
        tb.TARGET, tp.TARGET = targets


def _source_of(program: object) -> str:
    """The MLIR text ``program`` was compiled from (which the program keeps for its
    local-size variants)."""
    source = program._source[0]  # type: ignore[attr-defined]
    assert isinstance(source, str), type(source)
    return source


def run_tests(fn) -> None:  # noqa: ANN001
    """Run test function ``fn`` for every combination of its parametrize marks (one that
    needs a fixture is left out)."""
    axes: list[list[dict]] = []
    for mark in getattr(fn, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names = [n.strip() for n in mark.args[0].split(",")] if isinstance(mark.args[0], str) \
            else list(mark.args[0])
        values = [v.values if type(v).__name__ == "ParameterSet" else (v,) if len(names) == 1 else v
                  for v in mark.args[1]]  # a pytest.param's values, else the value(s)
        axes.append([dict(zip(names, v, strict=True)) for v in values])
    given = {n for axis in axes for n in axis[0]} if all(axes) else set()
    if set(inspect.signature(fn).parameters) - given:
        return
    for combo in itertools.product(*axes):
        fn(**{k: v for d in combo for k, v in d.items()})


# ---------------------------------------------------------------------------------------
# One module, one driver
# ---------------------------------------------------------------------------------------

_SYMBOL = re.compile(r'@([A-Za-z_][\w$.]*)|(sym_name = ")([A-Za-z_][\w$.]*)"')


def prefixed(src: str, prefix: str) -> str:
    """``src`` with every symbol (definitions and uses) renamed ``prefix + name``."""
    return _SYMBOL.sub(
        lambda m: f"@{prefix}{m.group(1)}" if m.group(1) else f'{m.group(2)}{prefix}{m.group(3)}"',
        src)


def _case(n: int, launch_: Launch, k: str, names: list[str]) -> str:
    body = []
    for i, (a, name) in enumerate(zip(launch_.args, names, strict=True)):
        if a.kind == "scalar":
            body.append(f"args.{name} = {_c_scalar(a)};")
            continue
        for d, (size, stride) in enumerate(zip(a.sizes, a.strides, strict=True)):
            body.append(f"args.{name}.sizes[{d}] = {size}; args.{name}.strides[{d}] = {stride};")
        if a.kind == "memref":
            body.append(f"buf[{i}] = load(in, {a.lead}, {len(a.before)});")
            body.append(f"args.{name}.allocated = args.{name}.aligned = buf[{i}]; "
                        f"args.{name}.offset = {a.offset};")
    outs = [f"fwrite(buf[{i}] + {a.lead}, 1, {len(a.before)}, out);"
            for i, a in enumerate(launch_.args) if a.kind == "memref"]
    dims = ", ".join
    nl = "\n  "
    return f"""
static int case{n}(FILE *in, FILE *out, unsigned threads) {{
  char *buf[{max(len(launch_.args), 1)}] = {{0}};
  {k}_args_t args;
  size_t g[3] = {{{dims(map(str, launch_.global_size))}}};
  size_t l[3] = {{{dims(map(str, launch_.local_size))}}};
  size_t o[3] = {{{dims(map(str, launch_.global_offset))}}};
  int status, i;
  memset(&args, 0, sizeof args);
  {nl.join(body)}
  status = threads ? {k}_run_threads(&args, {launch_.work_dim}, g, l, o, threads)
                   : {k}_run(&args, {launch_.work_dim}, g, l, o);
  if (status != XMUX_SUCCESS) {{
    fprintf(stderr, "case {n} (@{k}): status %d\\n", status);
    return 2;
  }}
  {nl.join(outs)}
  for (i = 0; i < {max(len(launch_.args), 1)}; ++i) free(buf[i]);
  return 0;
}}
"""


def driver(cases: list[str], header: str) -> str:
    calls = "\n".join(f"  if ((status = case{n}(in, out, threads))) return status;"
                      for n in range(len(cases)))
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
        """) + "".join(cases) + textwrap.dedent(f"""
        int main(int argc, char **argv) {{
          FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
          unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
          int status;
          if (!in || !out) return 4;
        {calls}
          fclose(out);
          return 0;
        }}
        """)


def build(records: list[Recorded], tmp: Path) -> tuple[list[Launch], Path]:
    """The recorded launches (their infos now the AArch64 module's) and the driver running
    them all, cross-compiled."""
    prefixes: dict[str, str] = {}
    for r in records:
        prefixes.setdefault(r.source, f"s{len(prefixes)}_")
    module = "\n".join(prefixed(src, p) for src, p in prefixes.items())
    ir, infos, features = compile_for_c(module, TARGET)
    by_name = {k.name: k for k in infos}
    (tmp / "k.o").write_bytes(c_api.object_code(ir, infos, TARGET.triple, TARGET.chip, features))
    (tmp / "k.h").write_text(c_api.header(infos))
    launches, cases = [], []
    for n, r in enumerate(records):
        info = by_name[prefixes[r.source] + r.launch.info.name]
        assert len(info.args) == len(r.launch.args)
        lch = Launch(info, r.launch.work_dim, r.launch.global_size, r.launch.local_size,
                     r.launch.global_offset, r.launch.args)
        launches.append(lch)
        cases.append(_case(n, lch, c_api._c_name(info.name), c_api.field_names(info)))
    (tmp / "driver.c").write_text(driver(cases, "k.h"))
    subprocess.run([CC, "-std=c99", "-O1", "-Wall", "-Werror", "-o", "driver", "driver.c", "k.o",
                    "-lm", "-pthread"], check=True, cwd=tmp)
    return launches, tmp / "driver"


#: kernels whose float results depend on the order of a reassociated fold (the vector
#: width): (rtol, rows) - the first ``rows`` rows of the output (reduce_float*'s fadd and
#: fmul; None: all of it) compared within rtol as their tests compare them, the rest bit
#: for bit
REASSOCIATED = {"reduce_float32": (1e-5, 2), "reduce_float64": (1e-13, 2), "fixed": (1e-5, None)}


def _close(name: str, a, have: bytes, want: bytes) -> bool:  # noqa: ANN001
    if name not in REASSOCIATED or not a.dtype.startswith("float"):
        return False
    rtol, rows = REASSOCIATED[name]
    h = np.frombuffer(have, a.dtype).reshape(a.sizes)
    w = np.frombuffer(want, a.dtype).reshape(a.sizes)
    if rows is not None and not np.array_equal(h[rows:], w[rows:], equal_nan=True):
        return False
    return bool(np.allclose(h[:rows], w[:rows], rtol=rtol, atol=0.0, equal_nan=True))


def compare(launches: list[Launch], got: bytes, where: str) -> list[str]:
    """The launches whose arrays differ from the host's (empty: all equal)."""
    pos, bad = 0, []
    for n, lch in enumerate(launches):
        for i, a in enumerate(lch.args):
            if a.kind != "memref":
                continue
            have, want = got[pos:pos + len(a.before)], a.after
            pos += len(a.before)
            if have == want or _close(lch.info.name.split("_", 1)[1], a, have, want):
                continue
            dtype = np.dtype(a.dtype if a.dtype != "bool" else "int8")
            h, w = np.frombuffer(have, dtype), np.frombuffer(want, dtype)
            diff = np.flatnonzero(h.view(f"u{dtype.itemsize}") != w.view(f"u{dtype.itemsize}"))
            bad.append(f"{where}: launch {n} @{lch.info.name} {lch.global_size}/{lch.local_size} "
                       f"argument {i}: {len(diff)} elements differ, first at {diff[:5].tolist()}: "
                       f"{h[diff[:5]].tolist()} != {w[diff[:5]].tolist()}")
    assert pos == len(got), f"{where}: {len(got)} bytes written, expected {pos}"
    return bad


def run_under_qemu(records: list[Recorded], tmp: Path) -> None:
    launches, exe = build(records, tmp)
    (tmp / "in.bin").write_bytes(b"".join(a.before for lch in launches for a in lch.args
                                          if a.kind == "memref"))
    bad = []
    for threads in (None, 3):
        cmd = [*_qemu(), str(exe), str(tmp / "in.bin"), str(tmp / "out.bin")]
        proc = subprocess.run(cmd + ([str(threads)] if threads else []), capture_output=True,
                              text=True, env=ENV, check=False)
        assert proc.returncode == 0, proc.stderr
        bad += compare(launches, (tmp / "out.bin").read_bytes(), f"threads={threads}")
    assert not bad, "\n".join(bad[:20])


# ---------------------------------------------------------------------------------------


@needs_cross
def test_barrier_shapes_under_qemu(tmp_path):
    """tests/test_barriers.py: every shape × every NDRange (1-D/2-D/3-D, local sizes 1 to 256,
    a remainder group), k = 0, 1, 3 where the shape takes one."""
    with recording() as records:
        run_tests(tb.test_shape_matches_numpy)
    k_shapes = len(tb.NEEDS_K)
    assert len(records) == len(tb.LAUNCHES) * (len(tb.SHAPES) + 2 * k_shapes)
    assert len({r.source for r in records}) == len(tb.SHAPES)
    run_under_qemu(records, tmp_path)


@needs_cross
def test_pocl_workgroup_shapes_under_qemu(tmp_path):
    """tests/test_pocl_workgroup_shapes.py: every test that launches (barriers in loops with
    several latches or exits, in called functions, local memory arguments, early and
    divergent returns, ...)."""
    with recording() as records:
        for name in dir(tp):
            if name.startswith("test_"):
                run_tests(getattr(tp, name))
    assert len(records) > 50
    run_under_qemu(records, tmp_path)


@needs_cross
def test_work_group_collectives_under_qemu(tmp_path):
    """tests/test_collectives.py's work-group tests: reduce / scans of every kind and dtype,
    any / all, broadcast from every position, collectives in a loop and a helper, a required
    16x16 size, fadd's -0.0 identity."""
    with recording() as records:
        for fn in (tc.test_work_group_reduce_and_scans, tc.test_work_group_any_all,
                   tc.test_fmin_fmax_ignore_nan, tc.test_work_group_broadcast_from_every_position,
                   tc.test_dependent_broadcasts_in_a_remainder_group,
                   tc.test_collectives_in_a_loop_and_a_helper, tc.test_required_size_16x16,
                   tc.test_reduce_fadd_from_negative_zero_is_exact):
            run_tests(fn)
    run_under_qemu(records, tmp_path)


def test_prefixed_renames_definitions_and_uses():
    src = '"memref.global"() <{sym_name = "tile"}>\nfunc.func @k() { memref.get_global @tile }'
    assert prefixed(src, "s1_") == ('"memref.global"() <{sym_name = "s1_tile"}>\n'
                                    "func.func @s1_k() { memref.get_global @s1_tile }")
