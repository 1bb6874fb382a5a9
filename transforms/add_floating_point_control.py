"""add-floating-point-control: run kernels under a known floating-point mode (opt-in).

Re-creates the host target's AddFloatingPointControlPass at dialect level. Each function
whose name ends in ``.mux-entry-hook`` (made by add-entry-hook) — or, when a module has
none, each entry-point kernel — saves MXCSR on entry, sets the mode the kernel runs in and
restores the caller's MXCSR before every return, so the JIT's host thread (Python's) keeps
its own mode.

The kernel mode: rounding to nearest-even (RC bits 13–14 cleared) and, with ``ftz-daz=true``
(the default), flush-to-zero (bit 15) and denormals-are-zero (bit 6) set; with
``ftz-daz=false`` both are cleared, so denormals are honoured whatever the caller had.

Expects: ``func.func`` or ``llvm.func`` definitions (it runs before or after convert-to-llvm;
the inserted ops are llvm dialect ops either way). Guarantees: every return of a target
function is preceded by the restoring ``ldmxcsr``.

The architecture is the module's ``#xmux.target`` triple (``arch=target``, the default), or
the ``arch`` option (``x86_64``, ``aarch64``; ``host`` = the machine running the compiler).
x86-64 gets MXCSR as above. AArch64 gets FPCR, as the reference's AArch64 branch: saved on
entry, the kernel mode set (round to nearest even: RMode bits 22–23 cleared; flush-to-zero
off: FZ bit 24 and FZ16 bit 19 cleared, whatever ``ftz-daz`` says, as the reference runs
AArch64 kernels with denormals), restored before every return. The reference reads and
writes FPCR with inline assembly because LLVM then had no intrinsics for it (and says to
use them once it has); LLVM now has ``llvm.aarch64.get.fpcr`` / ``llvm.aarch64.set.fpcr``
(``mrs`` / ``msr fpcr``), which this pass uses: inline assembly would also need LLVM's
AArch64 assembly parser, which llvmlite cannot initialize on an x86 host (cross-compiling
aborts in LLVM). On any other architecture the pass leaves the module unchanged.

AArch64, after::

    %old = llvm.call_intrinsic "llvm.aarch64.get.fpcr"() : () -> i64
    %keep = llvm.mlir.constant(-29884417) : i64      // ~(RMode | FZ | FZ16)
    %new = llvm.and %old, %keep : i64
    llvm.call_intrinsic "llvm.aarch64.set.fpcr"(%new) : (i64) -> ()
    func.call @k.mux-kernel-wrapper(...) : (...) -> ()
    llvm.call_intrinsic "llvm.aarch64.set.fpcr"(%old) : (i64) -> ()

Before / after (``ftz-daz=true``)::

    func.func @k.mux-entry-hook(%p: !llvm.ptr, %s: !llvm.ptr) {
      func.call @k.mux-kernel-wrapper(...) : (...) -> ()
      func.return
    }
    // ==>
    func.func @k.mux-entry-hook(%p: !llvm.ptr, %s: !llvm.ptr) {
      %one = llvm.mlir.constant(1 : i32) : i32
      %saved = llvm.alloca %one x i32 : (i32) -> !llvm.ptr
      %mode = llvm.alloca %one x i32 : (i32) -> !llvm.ptr
      llvm.call_intrinsic "llvm.x86.sse.stmxcsr"(%saved) : (!llvm.ptr) -> ()
      %old = llvm.load %saved : !llvm.ptr -> i32
      %keep = llvm.mlir.constant(-57409 : i32) : i32      // ~(RC | FTZ | DAZ)
      %set = llvm.mlir.constant(32832 : i32) : i32        // FTZ | DAZ
      %cleared = llvm.and %old, %keep : i32
      %new = llvm.or %cleared, %set : i32
      llvm.store %new, %mode : i32, !llvm.ptr
      llvm.call_intrinsic "llvm.x86.sse.ldmxcsr"(%mode) : (!llvm.ptr) -> ()
      func.call @k.mux-kernel-wrapper(...) : (...) -> ()
      llvm.call_intrinsic "llvm.x86.sse.ldmxcsr"(%saved) : (!llvm.ptr) -> ()
      func.return
    }
"""

from __future__ import annotations

import platform
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i32, i64
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs

ENTRY_HOOK_SUFFIX = ".mux-entry-hook"

MXCSR_DAZ = 1 << 6
MXCSR_FTZ = 1 << 15
MXCSR_ROUNDING = 0x6000  # RC field; 00 = round to nearest even

STMXCSR = "llvm.x86.sse.stmxcsr"
LDMXCSR = "llvm.x86.sse.ldmxcsr"

FPCR_FZ16 = 1 << 19
FPCR_RMODE = 0x3 << 22  # 00 = round to nearest even
FPCR_FZ = 1 << 24

GET_FPCR = "llvm.aarch64.get.fpcr"
SET_FPCR = "llvm.aarch64.set.fpcr"

_X86_64_NAMES = ("x86_64", "amd64", "x86-64", "x64")
_AARCH64_NAMES = ("aarch64", "arm64", "aarch64_be")


def is_x86_64(arch: str) -> bool:
    if arch == "host":
        arch = platform.machine()
    return arch.lower() in _X86_64_NAMES


def is_aarch64(arch: str) -> bool:
    if arch == "host":
        arch = platform.machine()
    return arch.lower() in _AARCH64_NAMES


def _arch(option: str, module: ModuleOp) -> str:
    """The architecture the pass compiles for: the option's, or the target triple's."""
    if option != "target":
        return option
    return attrs.get_target(module).triple.data.split("-")[0]


def add_fpcr_control(function: Operation) -> None:
    """AArch64: save FPCR at entry, set round-to-nearest-even without flush-to-zero, restore
    it before every return."""
    entry = function.regions[0].blocks.first
    assert entry is not None
    returns = _returns(function, "FPCR")
    old = llvm.CallIntrinsicOp(GET_FPCR, [], [i64])
    keep = llvm.ConstantOp(IntegerAttr(~(FPCR_RMODE | FPCR_FZ | FPCR_FZ16), i64), i64)
    assert old.ress is not None
    new = llvm.AndOp(old.ress, keep.result)
    Rewriter.insert_op(
        [old, keep, new, llvm.CallIntrinsicOp(SET_FPCR, [new.res], [])],
        InsertPoint.at_start(entry),
    )
    for ret in returns:
        Rewriter.insert_op(llvm.CallIntrinsicOp(SET_FPCR, [old.ress], []), InsertPoint.before(ret))


def _returns(function: Operation, what: str) -> list[Operation]:
    returns = [
        block.last_op
        for block in function.regions[0].blocks
        if isinstance(block.last_op, func.ReturnOp | llvm.ReturnOp)
    ]
    if not returns:
        raise XmuxError(
            f"add-floating-point-control: @{_sym_name(function)} has no return to restore "
            f"{what} before"
        )
    return returns


def _to_i32(value: int) -> int:
    """An unsigned 32-bit mask as the signed value i32 attributes hold."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _sym_name(op: Operation) -> str:
    name = op.properties.get("sym_name")
    return name.data if isinstance(name, StringAttr) else ""


def target_functions(module: ModuleOp) -> list[Operation]:
    """Entry hooks if the module has any, else entry-point kernels (definitions only)."""
    funcs = [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp | llvm.FuncOp) and op.body.blocks
    ]
    hooks = [f for f in funcs if _sym_name(f).endswith(ENTRY_HOOK_SUFFIX)]
    return hooks or [f for f in funcs if attrs.is_entry_point(f)]


def add_fp_control(function: Operation, ftz_daz: bool) -> None:
    """Save MXCSR at entry, set the kernel mode, restore it before every return."""
    body: Region = function.regions[0]
    entry = body.blocks.first
    assert entry is not None
    returns = _returns(function, "MXCSR")

    one = llvm.ConstantOp(IntegerAttr(1, i32), i32)
    saved = llvm.AllocaOp(one.result, i32, alignment=4)
    mode = llvm.AllocaOp(one.result, i32, alignment=4)
    store_old = llvm.CallIntrinsicOp(STMXCSR, [saved.res], [])
    old = llvm.LoadOp(saved.res, i32)
    keep_mask = _to_i32(~(MXCSR_ROUNDING | MXCSR_FTZ | MXCSR_DAZ))
    keep = llvm.ConstantOp(IntegerAttr(keep_mask, i32), i32)
    cleared = llvm.AndOp(old.dereferenced_value, keep.result)
    prologue: list[Operation] = [one, saved, mode, store_old, old, keep, cleared]
    new_value = cleared.res
    if ftz_daz:
        set_bits = llvm.ConstantOp(IntegerAttr(MXCSR_FTZ | MXCSR_DAZ, i32), i32)
        new = llvm.OrOp(cleared.res, set_bits.result)
        prologue += [set_bits, new]
        new_value = new.res
    prologue += [
        llvm.StoreOp(new_value, mode.res, alignment=4),
        llvm.CallIntrinsicOp(LDMXCSR, [mode.res], []),
    ]
    Rewriter.insert_op(prologue, InsertPoint.at_start(entry))
    for ret in returns:
        Rewriter.insert_op(llvm.CallIntrinsicOp(LDMXCSR, [saved.res], []), InsertPoint.before(ret))


@dataclass(frozen=True)
class AddFloatingPointControlPass(ModulePass):
    """Save/set/restore MXCSR (x86-64) or FPCR (AArch64) around kernel execution."""

    name = "add-floating-point-control"

    ftz_daz: bool = True
    """Set flush-to-zero and denormals-are-zero (true) or clear both (false)."""

    arch: str = "target"
    """Architecture: ``target`` (the module's ``#xmux.target`` triple), ``host`` (this
    machine) or a name (``x86_64``, ``aarch64``); another → the module is unchanged."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = _arch(self.arch, op)
        if is_x86_64(arch):
            for function in target_functions(op):
                add_fp_control(function, self.ftz_daz)
        elif is_aarch64(arch):
            for function in target_functions(op):
                add_fpcr_control(function)
