"""``xmux.interpret``: run a kernel in the reference interpreter (docs/architecture.md,
"Reference interpreter"); ``run_host`` and ``main`` behind ``xmux-run --interpret``.

The module is interpreted *before* any scheduling pass: only the front-end passes that
create mux kernels run (``FRONT_END_PASSES``); work-item loops, collective lowering and
barrier preparation never run, so the interpreter is an oracle independent of them. This
module reads the source and runs those passes with the compile API; the interpreter itself
(``runtime/interpreter/``) gets the prepared module. xDSL and the interpreter are imported
on first use: ``import xmux`` imports this module.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xmux.abi.errors import user_errors
from xmux.runtime.interpreter.errors import (
    DataRaceError,
    DivergentBarrierError,
    InterpretError,
    OutOfBoundsError,
    UndefinedBehaviorError,
    UninitializedReadError,
)

__all__ = [
    "DataRaceError",
    "DivergentBarrierError",
    "InterpretError",
    "OutOfBoundsError",
    "UndefinedBehaviorError",
    "UninitializedReadError",
    "interpret",
]

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

FRONT_END_PASSES = (
    "lower-affine-upstream",  # affine as upstream's --lower-affine (no-op without)
    "lower-vector-contract",  # 1-D vector.contract as arith + vector.reduction (no-op without)
    "lower-vector-transfers",  # vector.transfer_* etc. as 1-D vector ops (no-op without)
    "lower-scf-forall",  # scf.forall as scf.for nests (no-op without)
    "gpu-launch-outlining",  # upstream gpu programs (no-ops without gpu ops)
    "convert-gpu-to-mux",
    "lower-subgroup-mma",  # gpu.subgroup_mma_* as on the CPU (no-op without)
    "convert-acc-to-oacc",
    "transfer-kernel-metadata",
    "expand-oacc-reductions",
    "convert-complex-to-standard",  # complex functions as the compiled path computes them
)


@user_errors
def interpret(
    source: object,
    kernel: str,
    *args: object,
    global_size: Sequence[int] | int,
    local_size: Sequence[int] | int | None = None,
    global_offset: Sequence[int] | int | None = None,
    sub_group_size: int | None = None,
    spec_constants: dict | None = None,
    races: bool = False,
) -> None:
    """Run ``kernel`` of ``source`` (MLIR text, a path or a ``ModuleOp``) in the reference
    interpreter, with arguments as ``Kernel.__call__`` takes them (numpy arrays, updated in
    place; Python/numpy scalars; ``xmux.LocalMemory``).

    The kernel runs before any scheduling pass (only the front-end passes that create mux
    kernels), work-group after work-group, every barrier a real meeting point of the
    group's work-items. ``sub_group_size``: sub-groups of that many consecutive work-items
    for kernels without ``mux.reqd_sub_group_size`` (default 1). ``spec_constants``: values
    of specialization constants by symbolic id (defaults otherwise). ``races=True`` reports
    data races on work-group local memory. Errors (all ``XmuxError``): ``LaunchError`` for
    bad arguments or sizes, ``DivergentBarrierError``, ``OutOfBoundsError``,
    ``UninitializedReadError``, ``DataRaceError``, ``UndefinedBehaviorError``,
    ``NotSupportedError`` for ops the interpreter does not implement.
    """
    from xmux.api import kernel_infos
    from xmux.runtime.interpreter.program import Runner, run_kernel

    module = read_module(source)
    front_end(module)
    runner = Runner(module, kernel_infos(module, sub_group_size or 1),
                    sub_group_size=sub_group_size, spec_constants=spec_constants, races=races)
    run_kernel(runner, kernel, args, global_size, local_size, global_offset)


def read_module(source: object) -> ModuleOp:
    """MLIR text, a path or a ``ModuleOp`` (cloned) as ``xmux.compile`` takes them."""
    from xdsl.dialects.builtin import ModuleOp

    from xmux.api import parse
    from xmux.errors import XmuxError

    if isinstance(source, ModuleOp):
        return source.clone()
    if isinstance(source, Path) or (
        isinstance(source, str) and "\n" not in source and source.endswith(".mlir")
    ):
        path = Path(source)
        if not path.exists():
            raise XmuxError(f"no such file: {path}")
        return parse(path.read_text(), str(path))
    if isinstance(source, str):
        return parse(source)
    got = type(source).__name__
    raise XmuxError(f"xmux.interpret expects MLIR text, a path or a ModuleOp, got {got}")


def front_end(module: ModuleOp, oacc_target: str = "cpu") -> None:
    """The passes before scheduling (``FRONT_END_PASSES``), each verified."""
    from xdsl.utils.exceptions import PassFailedException, VerifyException

    from xmux import pipelines
    from xmux.errors import XmuxError
    from xmux.registry import make_context

    ctx = make_context()
    for name in FRONT_END_PASSES:
        options = {"expansion": oacc_target} if name == "expand-oacc-reductions" else {}
        p = pipelines.make_pass(name, **options)
        try:
            p.apply(ctx, module)
            module.verify()
        except (VerifyException, PassFailedException) as e:
            raise XmuxError(f"pass '{name}' failed: {e}") from e


def run_host(text: str, name: str = "<source>", oacc_target: str = "cpu",
             races: bool = False) -> None:
    """Interpret the host ``@main`` of a module; kernel launches run in the interpreter."""
    from xdsl.dialects import func

    from xmux.api import kernel_infos, parse
    from xmux.errors import XmuxError
    from xmux.runtime.interpreter.program import Runner, run_main

    module = parse(text, name)
    main = next((f for f in module.ops if isinstance(f, func.FuncOp)
                 and f.sym_name.data == "main"), None)
    if main is None:
        raise XmuxError(f"{name}: no host function @main to run")
    front_end(module, oacc_target)
    main = next(f for f in module.ops if isinstance(f, func.FuncOp) and f.sym_name.data == "main")
    run_main(Runner(module, kernel_infos(module, 1), races=races), main)


def main(argv: Sequence[str] | None = None) -> int:
    """``xmux-run --interpret FILE.mlir``."""
    import argparse
    import time

    from xmux.errors import XmuxError, format_error, is_user_error

    ap = argparse.ArgumentParser(prog="xmux-run --interpret",
                                 description="interpret the host @main of FILE.mlir")
    ap.add_argument("file")
    ap.add_argument("--threads", type=int, default=None, help="ignored by the interpreter")
    ap.add_argument("--timing", action="store_true", help="print the run time")
    ap.add_argument("--oacc-expansion", "--oacc-target", dest="oacc_expansion",
                    choices=("cpu", "host"), default="cpu")
    ap.add_argument("--races", action="store_true", help="detect local-memory data races")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    try:
        path = Path(args.file)
        if not path.exists():
            raise XmuxError(f"no such file: {path}")
        run_host(path.read_text(), str(path), args.oacc_expansion, args.races)
    except Exception as e:
        if not is_user_error(e):
            raise
        print(format_error(e), file=sys.stderr)
        return 1
    if args.timing:
        print(f"// interpret: {(time.perf_counter() - t0) * 1e3:.1f} ms", file=sys.stderr)
    return 0
