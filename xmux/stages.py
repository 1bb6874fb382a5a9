"""The steps of a compile that do not depend on the target: read the source, parse it, run a
pass pipeline (verified), and ``compile_to_llvm_ir`` for the CPU's LLVM IR of a module
(``xmux-run``, local-size variants, tests). ``xmux/targets/driver.py`` strings them together
with a target's caches, emission and loading. xDSL is imported when a step needs it: a
compile answered from the disk cache reads its source and nothing else here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from xmux.abi.kernel_layout import KernelInfo
from xmux.errors import XmuxError
from xmux.runtime import env
from xmux.sources import read_source_file

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from xmux.ir_snapshot import Snapshot

#: ``observe(pass, module)``: called after each pass (to read what it recorded)
Observer = Callable[["ModulePass", "ModuleOp"], None]


def read_source(source: object) -> tuple[str | None, ModuleOp | None, str]:
    """(text, module, name) of what the user passed: MLIR text, a path (``Path``, or one line
    of text ending in ``.mlir``) or a ``ModuleOp`` (cloned; its text is None)."""
    if isinstance(source, Path) or (
        isinstance(source, str) and "\n" not in source and source.endswith(".mlir")
    ):
        return read_source_file(Path(source)), None, str(source)
    if isinstance(source, str):
        return source, None, "<source>"
    from xdsl.dialects.builtin import ModuleOp  # only here: text hitting the cache needs no xDSL

    if isinstance(source, ModuleOp):
        return None, source.clone(), "<source>"
    got = type(source).__name__
    raise XmuxError(f"xmux.compile expects MLIR text, a path or a ModuleOp, got {got}")


def parse(text: str, name: str = "<source>") -> ModuleOp:
    """Parse MLIR text with xmux's dialects; errors carry the location."""
    from xdsl.utils.exceptions import ParseError, VerifyException

    from xmux.registry import make_context
    from xmux.sources import parse_module, verify_module

    if not text.strip():
        raise XmuxError(f"{name} is empty: expected an MLIR module")
    try:
        module = parse_module(make_context(), text, name)
    except ParseError as e:
        raise XmuxError(f"cannot parse {name}:\n{e}") from e
    except VerifyException as e:  # raised while the parser built an op or attribute
        raise XmuxError(str(e)) from e
    try:
        verify_module(module, name)
    except VerifyException as e:
        raise XmuxError(f"{name} does not verify:\n{e}") from e
    return module  # type: ignore[return-value]


class _Watch:
    """xDSL ``PassPipeline``'s callback: verifies what each pass changed (``verify_each``),
    hands the module to ``observe``, and knows which pass runs (to name it in an error)."""

    def __init__(self, observe: Observer | None, verify_each: bool) -> None:
        self.observe = observe
        self.verify_each = verify_each
        self.verified: Snapshot | None = None  # the IR as last verified
        self.running: ModulePass | None = None

    def __call__(self, done: ModulePass | None, module: ModuleOp,
                 following: ModulePass | None) -> None:
        from xdsl.utils.exceptions import VerifyException

        from xmux.ir_snapshot import verify_changes

        if done is not None:
            if self.verify_each:  # only what the pass changed: the rest is verified already
                try:
                    self.verified = verify_changes(module, self.verified)
                except VerifyException as e:
                    raise XmuxError(f"pass '{done.name}' failed: {e}") from e
            if self.observe is not None:
                self.observe(done, module)
        self.running = following


def run_pipeline(module: ModuleOp, passes: Sequence[ModulePass],
                 observe: Observer | None = None, verify_each: bool | None = None) -> None:
    """Apply ``passes`` as one xDSL ``PassPipeline``; ``observe(pass, module)``, when given,
    runs after each pass.

    The IR is verified after the last pass; after every pass (naming the pass whose output
    does not verify) with ``verify_each``, by default in the checking mode (``XMUX_CHECKS=1``)
    and with ``XMUX_VERIFY_EACH=1`` (the test suite sets it): xDSL's verifier run after each
    of the ~20 passes cost as much as the whole pipeline otherwise (bench/compile_scaling.py).
    Only the top-level ops a pass changed (and those referring to a symbol it changed) are
    verified again (``xmux.ir_snapshot``).
    """
    from xdsl.passes import PassPipeline
    from xdsl.utils.exceptions import PassFailedException, VerifyException

    from xmux.registry import make_context

    if verify_each is None:
        verify_each = env.flag("XMUX_VERIFY_EACH", False) or env.flag("XMUX_CHECKS", False)
    watch = _Watch(observe, verify_each)
    try:
        PassPipeline(tuple(passes), watch).apply(make_context(), module)
    except (VerifyException, PassFailedException) as e:
        name = watch.running.name if watch.running is not None else "?"
        raise XmuxError(f"pass '{name}' failed: {e}") from e
    if not verify_each and passes:
        try:
            module.verify()
        except VerifyException as e:
            names = ", ".join(p.name for p in passes)
            raise XmuxError(
                f"the IR after the pass pipeline ({names}) does not verify (XMUX_VERIFY_EACH=1 "
                f"or checks=True verifies after every pass and names the pass): {e}"
            ) from e


def compile_to_llvm_ir(module: ModuleOp, pipeline: Sequence[ModulePass] | None = None,
                       observe: Observer | None = None, verify_each: bool | None = None
                       ) -> tuple[str, list[KernelInfo]]:
    """The CPU's LLVM IR of ``module`` and its kernels' launch metadata: ``pipeline``
    (default ``pipelines.cpu()``; completed as ``xmux.compile`` completes one: the host
    attached, the kernels' ABI recorded), then ``collect_kernel_infos``."""
    from xmux import pipelines
    from xmux.kernel_info import collect_kernel_infos
    from xmux.runtime.emit import emit_text
    from xmux.runtime.jit import host_target

    passes = pipelines.cpu() if pipeline is None else pipeline
    run_pipeline(module, pipelines.complete(passes, host_target()), observe, verify_each)
    return emit_text(module), collect_kernel_infos(module)
