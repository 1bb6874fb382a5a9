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
from typing import TYPE_CHECKING, Any, TextIO

from xmux.abi.errors import XmuxError, user_errors
from xmux.options import CompileOptions
from xmux.stages import PassTimings, compile_to_llvm_ir, parse, run_pipeline
from xmux.targets import Target, resolve
from xmux.targets.base import LaunchProfile
from xmux.targets.cpu import Kernel, Program

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from xmux.kernel_info import collect_kernel_infos, kernel_infos
    from xmux.sources import read_source_file

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


def __getattr__(name: str) -> object:
    """``collect_kernel_infos`` / ``kernel_infos`` / ``read_source_file`` on first use: a warm
    start, which reads the kernels' metadata from the cache, imports neither
    ``xmux.kernel_info`` nor ``xmux.sources`` (xDSL's exceptions)."""
    if name in ("collect_kernel_infos", "kernel_infos"):
        from xmux import kernel_info

        return getattr(kernel_info, name)
    if name == "read_source_file":  # re-exported; xmux.sources imports xDSL's exceptions
        from xmux.sources import read_source_file

        return read_source_file
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@user_errors
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
    wait: bool = False,
) -> Program:
    """Compile MLIR text / a path / a ModuleOp to a runnable ``Program`` (for ``target``).

    ``xmux.options.CompileOptions`` documents each option (checked once, an error naming
    it); ``options``: a ``CompileOptions`` in place of the keywords. ``pipeline`` replaces
    the target's default passes (a list such as ``xmux.pipelines.cpu()`` with your own
    spliced in, or ``xmux-opt -p`` text), ending in the llvm dialect; the default-pipeline
    options (``sub_group_size``, ``vector_width``, ``force_no_tail``, ``oacc_expansion``,
    its former name ``oacc_target``, ``spec_padding``) then keep their defaults.
    ``threads``: the launches' worker threads. ``cache``: compiled code in memory and on
    disk. ``spec_constants``: ``"native"`` or ``"emulated"``. ``specialize`` / ``tune``:
    local-size variants and their vector widths. ``checks``: the checking mode
    (``xmux.CheckError``). ``debug``: DWARF debug info (docs/debugging.md).

    Inspection (the compiled code stays the same; the caches are bypassed so that the passes
    run): ``print_ir_after`` (a pass name, names, or True) prints the IR after those passes
    to ``print_ir_stream`` (default stderr); ``pass_callback`` (pass, module) runs after each
    pass; ``timing`` gives ``prog.pass_timings``.

    ``wait``: build local-size variants and native value sets' specializations before the
    launch that needs them (default: in the background while launches run the generic code,
    docs/architecture.md "Tiered compilation"; ``XMUX_SYNC_BUILDS=1``: every program);
    ``prog.warm(sizes, spec_values)`` builds chosen ones ahead of time.

    ``target``: ``"cpu"`` (the JIT on this host), ``"nvptx"`` (PTX run through CuPy:
    ``prog.ptx``; the CPU-only options keep their defaults) or a ``xmux.targets.Target``
    such as ``NvptxTarget("sm_80")``.
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
    if not isinstance(wait, bool):
        raise XmuxError(f"xmux.compile: wait must be True or False, got {wait!r}")
    from xmux.targets.driver import compile_program

    return _tiered(compile_program(resolve(target), source, options, early_generic=not wait),
                   wait)


def _tiered(prog: Any, wait: bool) -> Any:
    """``prog`` with its builds ``wait``ed for, or its new value sets' generic form queued."""
    prog.wait = wait
    spec = getattr(prog, "_spec", None)
    if not wait and isinstance(prog, Program) and spec is not None and spec.table.kernels:
        spec.queue_generic()  # what a new value set runs until its specialization is built
    return prog
