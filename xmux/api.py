"""The Python API: ``xmux.compile(source)`` → ``Program``; ``prog.kernel(name)(*args, ...)``.

```python
prog = xmux.compile(source)                       # MLIR text, a path, or a builtin.ModuleOp
k = prog.kernel("vecadd")                         # also prog["vecadd"]
k(a, b, c, global_size=(n,), local_size=(256,))  # blocks until every work-group has run
```

A façade: the options are ``xmux.options.CompileOptions``, the targets ``xmux/targets/``
(``CpuTarget``, ``NvptxTarget``), the compile itself ``xmux/targets/driver.py`` (cached in
memory and on disk, keyed on the source, the target and the options, so a warm cache skips
the xDSL pipeline entirely), its target-independent steps ``xmux/stages.py`` and the kernels'
launch metadata ``xmux/kernel_info.py``. The names below stay importable from here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from xmux.errors import XmuxError
from xmux.kernel_info import collect_kernel_infos, kernel_infos
from xmux.options import CompileOptions
from xmux.sources import read_source_file  # re-exported: callers import it from here too
from xmux.stages import PassTimings, compile_to_llvm_ir, parse, run_pipeline
from xmux.targets import Target, resolve
from xmux.targets.base import LaunchProfile
from xmux.targets.cpu import Kernel, Program

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

__all__ = [
    "CompileOptions",
    "Kernel",
    "LaunchProfile",
    "PassTimings",
    "Program",
    "Target",
    "collect_kernel_infos",
    "compile",
    "compile_to_llvm_ir",
    "kernel_infos",
    "parse",
    "read_source_file",
    "run_pipeline",
]


def compile(  # noqa: A001 - the public name in the contract
    source: object,
    *,
    pipeline=None,
    threads: int | None = None,
    cache: bool | None = None,
    spec_constants: str = "native",
    specialize: bool | None = None,
    tune: bool | None = None,
    sub_group_size: int = 1,
    vector_width: int = 0,
    force_no_tail: bool = False,
    oacc_target: str | None = None,
    checks: bool | None = None,
    spec_padding: str = "dpcpp",
    target: str | Target = "cpu",
    oacc_expansion: str | None = None,
    print_ir_after: str | Sequence[str] | bool | None = None,
    print_ir_stream: TextIO | None = None,
    pass_callback: Callable[[ModulePass, ModuleOp], object] | None = None,
    timing: bool = False,
    options: CompileOptions | None = None,
    debug: bool = False,
) -> Program:
    """Compile MLIR text / a path / a ModuleOp to a runnable ``Program`` (for ``target``).

    The options (``xmux.options.CompileOptions``, whose fields document each one; checked
    once, an error naming the option): ``pipeline`` replaces the target's default pass
    pipeline (a pass list such as ``xmux.pipelines.cpu()`` with your own spliced in, or the
    text ``xmux-opt -p`` takes), ending in the llvm dialect. ``threads``: the default worker
    threads of the launches (default: the cores). ``cache`` (default ``XMUX_CACHE``, on):
    compiled code in memory and on disk (``XMUX_CACHE_DIR``), keyed on the source, the
    target, the options and xmux's code. ``spec_constants``: ``"native"`` (JIT-specialized
    per value set) or ``"emulated"`` (a runtime buffer); ``spec_padding``: ``"dpcpp"`` or
    ``"gaps"`` (the property sets' form). ``specialize`` (default ``XMUX_SPECIALIZE``, on):
    a kernel launched repeatedly with one local size is rebuilt for it; ``tune`` (default
    ``XMUX_TUNE``, on): that variant built with 512- and 256-bit vectors, the faster kept.
    ``sub_group_size``: the emulated sub-group size of kernels without
    ``mux.reqd_sub_group_size``. ``vector_width`` / ``force_no_tail``: work-item-loops'
    vector + scalar tail scheduling. ``oacc_expansion``: OpenACC kernels' gangs on the
    thread pool (``"cpu"``) or one thread (``"host"``); ``oacc_target`` is its former name.
    ``checks`` (default ``XMUX_CHECKS``): the checking mode (bounds and division checks
    raising ``xmux.CheckError``; with ``pipeline=`` add ``pipelines.cpu(checks=True)``'s
    passes yourself). The default-pipeline options (``sub_group_size``, ``vector_width``,
    ``force_no_tail``, ``oacc_expansion``, ``spec_padding``) must keep their defaults with
    ``pipeline=``. ``options``: a ``CompileOptions`` in place of the keywords above.

    Inspection (debugging; the compiled code and the cache key stay the same, but such a
    compile bypasses the caches so that the passes run): ``print_ir_after`` (a pass name, a
    list of names, or True: every pass) prints the IR after those passes to
    ``print_ir_stream`` (default stderr) as ``mlir-opt`` does; ``pass_callback`` is called
    as ``pass_callback(pass, module)`` after each pass; ``timing`` (True) gives
    ``prog.pass_timings`` (a ``PassTimings``: (pass name, seconds) rows, ``str()`` a table).

    ``debug``: DWARF debug info from the source's locations, registered with gdb (break at
    a ``.mlir`` line, print arguments and named values: docs/debugging.md).

    ``target``: ``"cpu"`` (default: the JIT on this host), ``"nvptx"`` (PTX for an NVIDIA
    GPU, run through CuPy: ``prog.ptx``; the CPU-only options ``threads``,
    ``sub_group_size``, ``vector_width``, ``force_no_tail``, ``oacc_expansion`` must keep
    their defaults), or a ``xmux.targets.Target`` such as ``NvptxTarget("sm_80")``.
    """
    keywords = {
        "pipeline": pipeline, "threads": threads, "cache": cache,
        "spec_constants": spec_constants, "specialize": specialize, "tune": tune,
        "sub_group_size": sub_group_size, "vector_width": vector_width,
        "force_no_tail": force_no_tail, "oacc_expansion": oacc_expansion, "checks": checks,
        "spec_padding": spec_padding, "print_ir_after": print_ir_after,
        "print_ir_stream": print_ir_stream, "pass_callback": pass_callback, "timing": timing,
        "debug": debug,
    }
    if options is None:
        options = CompileOptions.of(oacc_target=oacc_target, **keywords)
    elif oacc_target is not None or any(
            keywords[k] != p.default
            for k, p in inspect.signature(compile).parameters.items() if k in keywords):
        raise XmuxError("xmux.compile: give the options either as keywords or as options=")
    from xmux.targets.driver import compile_program

    return compile_program(resolve(target), source, options)  # type: ignore[return-value]
