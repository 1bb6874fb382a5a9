"""``xmux-run FILE.mlir``: JIT-run the host function ``@main`` of a module with kernels.

The whole module goes through the CPU pipeline: ``convert-mux-launch`` turns each
``mux.launch`` in host code into a call of ``xmux_launch``, the kernels are scheduled and
everything is lowered to LLVM. ``xmux_launch`` and ``printMemref*`` resolve to Python callbacks;
the launch callback runs the kernel's entry hook over the NDRange on the slice thread pool
(``runtime/host_symbols.py`` resolves them; this module, above the compile API, hands the
running program to it).
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from xmux.errors import LaunchError, XmuxError, format_error, is_user_error
from xmux.runtime import abi, launch
from xmux.runtime.host_symbols import call_host, install_runtime_symbols


def _check_entry(module: object, name: str, entry: str) -> None:
    """``@entry`` exists and is ``() -> ()``, as xmux-run calls it."""
    main = next(
        (op for op in module.ops
         if getattr(op, "sym_name", None) is not None and op.sym_name.data == entry),
        None,
    )
    if main is None:
        raise XmuxError(f"{name}: no host function @{entry} to run")
    inputs = getattr(getattr(main, "function_type", None), "inputs", None)
    if inputs is not None and inputs.data:
        types = ", ".join(str(t) for t in inputs.data)
        raise XmuxError(
            f"{name}: @{entry} takes arguments ({types}); xmux-run calls @{entry}() with none"
        )
    outputs = getattr(getattr(main, "function_type", None), "outputs", None)
    if outputs is not None and outputs.data:
        types = ", ".join(str(t) for t in outputs.data)
        raise XmuxError(f"{name}: @{entry} returns {types}; xmux-run runs a void entry "
                        "(--entry-point-result=void)")


class HostProgram:
    """A compiled module with a host ``@main`` whose kernel launches go through the launcher."""

    def __init__(
        self,
        text: str,
        name: str = "<source>",
        threads: int | None = None,
        oacc_target: str = "cpu",
        checks: bool = False,
        entry: str = "main",
        target: str = "cpu",
        debug: bool = False,
    ) -> None:
        from xmux import api, pipelines
        from xmux.dialects import attrs
        from xmux.runtime import jit

        self.entry = entry
        self.threads = threads or launch.default_threads()
        self.errors: list[BaseException] = []
        self.launch_times: list[tuple[str, float]] = []
        if debug:  # ops located in the source, DWARF for gdb (xmux.compile's debug=True)
            from xmux.lowering.locations import keep_locations, mark_debug
            from xmux.stages import parse

            module = parse(text, name, locations=True)
            mark_debug(module)
            located: AbstractContextManager[None] = keep_locations()
        else:
            module = api.parse(text, name)
            located = nullcontext()
        _check_entry(module, name, entry)
        t0 = time.perf_counter()
        if oacc_target not in pipelines.OACC_EXPANSIONS:  # the expansion (its former name)
            raise XmuxError(
                f"oacc target must be one of {', '.join(pipelines.OACC_EXPANSIONS)}, "
                f"got {oacc_target!r}"
            )
        self.checks = checks
        from xmux.runtime import checks as _checks

        # not only for checks=True: XMUX_CHECK_PLAN=1 checks the barrier plan alone, and a
        # user's pipeline may carry checking passes (as xmux.compile does)
        _checks.install()
        with located:
            ir_text, infos = api.compile_to_llvm_ir(
                module,
                pipelines.cpu(oacc_expansion=oacc_target, checks=checks,
                              declare_spec_leaves=False),
                verify_each=True if checks else None,
            )
        self.infos = {i.name: i for i in infos}
        self.table = attrs.get_kernel_table(module)
        install_runtime_symbols()
        self.jit = jit.compile_ir(ir_text, cache_key=None)
        #: target "nvptx": the host code runs here, each launch on the GPU (xmux/targets/nvptx.py)
        self.gpu = None
        if target == "nvptx" and self.table:
            # a program without launches (host code only, as upstream's parallel-loop mapping
            # leaves a nest it does not map) runs here whole: there is nothing for the GPU
            self.gpu = api.compile(text, target="nvptx", checks=checks)
        elif target not in ("cpu", "nvptx"):
            raise XmuxError(f"target must be cpu or nvptx, got {target!r}")
        self.compile_seconds = time.perf_counter() - t0
        self._entries = {
            n: abi.EntryHookFn(self.jit.address(n + abi.ENTRY_HOOK_SUFFIX)) for n in self.table
        }

    def _launch(self, index: int, packed: int, dim: int, g, loc, off) -> None:
        if self.errors:
            return  # after a failed launch nothing more runs (host_symbols._failed)
        name = self.table[index]
        try:
            info = self.infos[name]
            nd = launch.NDRange.of(
                info, [g[d] for d in range(dim)], [loc[d] for d in range(dim)],
                [off[d] for d in range(dim)],
            )
            t0 = time.perf_counter()
            if self.gpu is not None:
                self._launch_gpu(name, packed, nd)
            else:
                launch.run_ndrange(self._entries[name], packed, nd, self.threads)
            self.launch_times.append((name, time.perf_counter() - t0))
            from xmux.runtime import checks

            checks.raise_pending()  # a failed check of this launch (runtime/checks.py)
        except BaseException as e:  # noqa: BLE001 - reported after @main returns
            self.errors.append(e)

    def _launch_gpu(self, name: str, packed: int, nd: launch.NDRange) -> None:
        """The launch on the GPU: the packed arguments read back into numpy views of the
        host buffers (copied to the device and back by the launch)."""
        import numpy as np

        info = self.infos[name]
        args = abi.packed_args_ctype(abi.layout_of(info)).from_address(packed)
        values: list[object] = []
        for i, a in enumerate(info.args):
            field = getattr(args, f"a{i}")
            if a.kind == "local":
                raise XmuxError(
                    f"kernel '{name}': a local memory argument launched from host code is not "
                    "supported on the nvptx target"
                )
            if a.kind != "memref":
                values.append(np.uint16(field).view(np.float16) if a.dtype == "float16"
                              else field)
                continue
            dtype = np.dtype(a.dtype)
            rank = len(a.shape or [])
            shape = [field.sizes[d] for d in range(rank)] if rank else []
            strides = [field.strides[d] * dtype.itemsize for d in range(rank)] if rank else []
            start = (field.aligned or 0) + field.offset * dtype.itemsize
            if 0 in shape:
                values.append(np.empty(shape, dtype))
                continue
            nbytes = dtype.itemsize + sum((n - 1) * st for n, st in zip(shape, strides,
                                                                          strict=True))
            buffer = (ctypes.c_char * nbytes).from_address(start)
            values.append(np.ndarray(shape, dtype, buffer=buffer, strides=strides or None))
        g = nd.global_size[: nd.work_dim]
        loc = nd.local_size[: nd.work_dim]
        off = nd.global_offset[: nd.work_dim]
        self.gpu.kernel(name)(*values, global_size=g, local_size=loc, global_offset=off)

    def run_main(self) -> None:
        """Run @main; a failed launch, a failed alloc or (checking mode) a failed check in
        host code raises here. The latter two stop @main where they happen
        (``host_symbols.call_host``: a native trampoline, so no segfault follows)."""
        call_host(self, self.jit.address(self.entry))  # a stop leaves its error in errors
        if self.errors:
            first = self.errors[0]
            if isinstance(first, XmuxError):
                raise first
            raise LaunchError(f"kernel launch failed: {first}") from first


def _emit(file: str, target: str, what: str, debug: bool = False) -> int:
    """``--emit``: the module's kernels compiled for ``target``, printed (FileCheck tests of
    PTX run without a GPU)."""
    from xmux import api

    try:
        if what == "ptx" and target != "nvptx":
            raise XmuxError("--emit ptx needs --target nvptx")
        prog = api.compile(Path(file), target=target, cache=False, debug=debug)
        text = prog.ptx if what == "ptx" else prog.llvm_ir
    except Exception as e:
        if not is_user_error(e):
            raise
        print(format_error(e), file=sys.stderr)
        return 1
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="xmux-run", description=__doc__.splitlines()[0])
    ap.add_argument("file", help="MLIR file with kernels and a host func.func @main")
    ap.add_argument("--threads", type=int, default=None, help="worker threads (default: cores)")
    ap.add_argument("--timing", action="store_true", help="print compile and launch times")
    ap.add_argument(
        "--oacc-expansion",
        "--oacc-target",  # its former name
        dest="oacc_expansion",
        choices=("cpu", "host"),
        default="cpu",
        help="expansion of OpenACC kernels: gangs on the thread pool (cpu) or one thread (host)",
    )
    ap.add_argument(
        "--target",
        choices=("cpu", "nvptx"),
        default="cpu",
        help="where kernels run: this CPU, or an NVIDIA GPU through CuPy (host code runs "
        "here either way)",
    )
    ap.add_argument(
        "--checks",
        action="store_true",
        help="the checking mode: bounds and division checks reported with the kernel, op "
        "and work-item (also XMUX_CHECKS=1)",
    )
    # mlir-runner's options, so `mlir-runner ... | FileCheck` lines run as they are
    ap.add_argument("-e", "--entry-point", default="main", help="host function to run (main)")
    ap.add_argument(
        "--entry-point-result",
        choices=("void",),
        default="void",
        help="result type of the entry function (void, as mlir-runner's)",
    )
    ap.add_argument(
        "--shared-libs",
        action="append",
        default=[],
        help="accepted and ignored: the runner and GPU runtimes are built in",
    )
    ap.add_argument(
        "--emit",
        choices=("ptx", "llvm", "obj", "header"),
        help="print the kernels' target code instead of running @main: PTX (--target nvptx) "
        "or the LLVM IR of the target (no @main needed); obj / header: an object file (-o) "
        "and its C header for C programs, also for --target aarch64-linux-gnu [--chip C] "
        "(xmux/cli.py c_main, docs/architecture.md 'Kernels from C')",
    )
    ap.add_argument(
        "--debug",
        action="store_true",
        help="DWARF debug info from the MLIR locations: gdb breaks at .mlir lines of kernels "
        "and host code (XMUX_OPT_LEVEL=0 for -O0; docs/debugging.md)",
    )
    ap.add_argument(
        "--interpret",
        action="store_true",
        help="run @main and its kernels in the reference interpreter instead of the JIT: an "
        "oracle that runs no scheduling pass (slow); with --races it also reports "
        "local-memory data races ('xmux-run --interpret --help' lists its options; "
        "docs/architecture.md 'Reference interpreter')",
    )
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.emit:
        return _emit(args.file, args.target, args.emit, args.debug)
    try:
        from xmux.sources import read_source_file

        path = Path(args.file)
        from xmux.runtime import env

        checks = args.checks or env.flag("XMUX_CHECKS", False)
        prog = HostProgram(
            read_source_file(path), str(path), args.threads, args.oacc_expansion, checks,
            args.entry_point, args.target, args.debug,
        )
        t0 = time.perf_counter()
        prog.run_main()
        run_s = time.perf_counter() - t0
    except Exception as e:
        if not is_user_error(e):
            raise
        print(format_error(e), file=sys.stderr)
        return 1
    if args.timing:
        print(f"// compile: {prog.compile_seconds * 1e3:.1f} ms", file=sys.stderr)
        for name, t in prog.launch_times:
            print(f"// launch {name}: {t * 1e3:.3f} ms", file=sys.stderr)
        print(f"// main: {run_s * 1e3:.1f} ms", file=sys.stderr)
    return 0
