"""LLVM code-generation options for modules with a huge block or function
(docs/architecture.md, "Compile time"): LLVM's schedulers grow faster than linearly with the
size of a block, so ``runtime/jit.py``'s builds of such a module run under
``codegen_limits``: the dependence maps capped, post-RA scheduling off above
``HUGE_FUNCTION``, pre-RA machine scheduling off in a process that dies with the build.
The decision reads the module's LLVM IR, never the host.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import llvmlite.binding as llvm

from xmux.runtime import compile_server
from xmux.runtime.contained import in_forked_child

#: LLVM IR instructions of a function above which code generation skips the pre-RA machine
#: scheduler (bench/compile_scaling.py: it grows faster than linearly with the size of a
#: block: a 64k-instruction kernel spent 30 s in code generation, 14 s without it)
HUGE_FUNCTION = 20_000
#: instructions of a basic block above which the schedulers' dependence graphs are built with
#: maps of ``HUGE_REGION`` memory operations instead of LLVM's 1000 (``-dag-maps-huge-region``):
#: the pre-RA and post-RA schedulers each spent ~7 s building the graph of a 16k-instruction
#: block of loads and stores (bench/compile_scaling.py ``one`` 4000: code generation 15 s ->
#: 0.8 s, the same object). The bench kernels and examples have blocks of <= ~400
#: instructions after O3, and at 100 naive matmul's code changed: hence the threshold.
HUGE_BLOCK = 2_000
HUGE_REGION = 100
#: LLVM's own ``-dag-maps-huge-region`` (restored after a capped build)
_LLVM_HUGE_REGION = 1000
#: bytes of LLVM IR text below which no block can be ``HUGE_BLOCK`` long but by unrolling
#: (kernels: < 60 KB): counting instructions through llvmlite costs ~6 us each
HUGE_TEXT = 200_000


def may_be_huge(ir_text: str) -> bool:
    """Whether a block or a function of ``ir_text`` (before O3) is at least half
    ``HUGE_BLOCK`` / ``HUGE_FUNCTION`` long, counted in text lines: ~10 ms for 2.7 MB where
    ``largest`` took ~1 s (``many`` 4000, 98k instructions, no block over 400). O3 can make
    a block longer than its source (unrolling, merged blocks), rarely twice; one it misses is
    code-generated with LLVM's defaults, as before: slower to build, the same code."""
    block = function = longest_block = longest_function = 0
    for line in ir_text.split("\n"):
        if line.startswith("  "):
            block += 1
            function += 1
            continue
        longest_block = max(longest_block, block)
        block = 0
        if line.startswith(("define", "}")):
            longest_function = max(longest_function, function)
            function = 0
    return 2 * longest_block > HUGE_BLOCK or 2 * longest_function > HUGE_FUNCTION


def largest(mod: llvm.ModuleRef) -> tuple[int, int]:
    """(instructions of the largest function, of the largest basic block)."""
    function = block = 0
    for f in mod.functions:
        if f.is_declaration:
            continue
        size = 0
        for b in f.blocks:
            n = sum(1 for _ in b.instructions)
            size += n
            block = max(block, n)
        function = max(function, size)
    return function, block


@contextlib.contextmanager
def codegen_limits(mod: llvm.ModuleRef, ir_text: str, size: int) -> Iterator[None]:
    """Code generation of a module of ``size`` bytes of IR with a huge block or function: the
    schedulers' dependence maps capped (``HUGE_BLOCK``), and above ``HUGE_FUNCTION`` no
    post-RA list scheduling, both set for this build and restored after it, in whatever
    process builds (builds are one at a time there: a child, the server, or this process
    under ``jit._lock``), and no pre-RA machine scheduling (``limit_huge_codegen``)."""
    if size < HUGE_TEXT or not may_be_huge(ir_text):
        yield
        return
    function, block = largest(mod)
    options: list[tuple[str, str]] = []  # (for this build, LLVM's default)
    if function > HUGE_FUNCTION:
        limit_huge_codegen()
        # the post-RA list scheduler too (96k-op kernel: code generation 1.85 -> 1.11 s)
        options.append(("-disable-post-ra", "-disable-post-ra=false"))
    if block > HUGE_BLOCK:
        options.append((f"-dag-maps-huge-region={HUGE_REGION}",
                        f"-dag-maps-huge-region={_LLVM_HUGE_REGION}"))
    for option, _ in options:
        llvm.set_option("", option)
    try:
        yield
    finally:
        for _, default in options:
            llvm.set_option("", default)


def limit_huge_codegen() -> None:
    """Code generation of a module with a huge function: no pre-RA machine scheduling. A
    global LLVM option that cannot be unset (setting ``-enable-misched`` at all overrides every
    target's own choice), so only in a forked compile child, where it dies with the child, or
    in the compile server, which exits after this build."""
    serving = compile_server.in_server()
    if not (in_forked_child() or serving):
        return
    llvm.set_option("", "-enable-misched=false")
    if serving:
        compile_server.retire_after_reply()
