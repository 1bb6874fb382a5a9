"""disable-neon-attribute: compile an AArch64 module without NEON where a vector [u]long →
float conversion would round twice.

The oneAPI Construction Kit's DisableNeonAttributePass (its host target), a 64-bit
Arm pass: the AArch64 NEON backend converts a vector of i64 to f32 in two steps (i64 → f64,
then f64 → f32), rounding twice, which a CTS conversion test catches. When the module has
such a conversion — a ``sitofp`` / ``uitofp`` (``llvm.`` or ``arith.``) from a vector of
i64 to a vector of f32 — every function of the module is marked ``-neon``; all of them, not
only the one with the conversion, so that no call between functions built with and without
NEON mismatches the calling convention. Any other module, and a module for any other
target, is left unchanged.

The marks: each ``llvm.func`` gets ``target_features = #llvm.target_features<["-neon"]>``
(upstream MLIR's per-function form), and the module's ``#xmux.target`` gets ``-neon``
appended to its features, which is what the code generator reads (``xmux-run --emit obj``
builds the object for the target's features, so every function loses NEON together).

Reads the target from the module's ``#xmux.target`` (its triple's architecture), never the
host. Runs after convert-to-llvm (``xmux.pipelines.cpu`` adds it there for AArch64 targets);
vector conversions that LLVM's own vectorizers make later are not seen.

Before (target ``aarch64-unknown-linux-gnu``)::

    %f = llvm.sitofp %v : vector<4xi64> to vector<4xf32>

After: the same op; every ``llvm.func`` has ``target_features =
#llvm.target_features<["-neon"]>`` and the module's target reads
``#xmux.target<"aarch64-unknown-linux-gnu", chip = "neoverse-n1", features = "-neon", ...>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    Float32Type,
    IntegerType,
    ModuleOp,
    StringAttr,
    VectorType,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from xmux.dialects import attrs
from xmux.dialects.target import TargetAttr

CONVERSIONS = ("llvm.sitofp", "llvm.uitofp", "arith.sitofp", "arith.uitofp")
NO_NEON = "-neon"


def is_aarch64(triple: str) -> bool:
    return triple.split("-")[0] in ("aarch64", "arm64", "aarch64_be")


def rounds_twice(op: Operation) -> bool:
    """A vector conversion of i64 elements to f32 elements (the trigger)."""
    if op.name not in CONVERSIONS or len(op.operands) != 1 or len(op.results) != 1:
        return False
    src, dst = op.operands[0].type, op.results[0].type
    return (
        isinstance(src, VectorType)
        and isinstance(dst, VectorType)
        and isinstance(src.element_type, IntegerType)
        and src.element_type.width.data == 64
        and isinstance(dst.element_type, Float32Type)
    )


def _without_neon(features: str) -> str:
    kept = [f for f in features.split(",") if f and f not in ("+neon", NO_NEON)]
    return ",".join([*kept, NO_NEON])


@dataclass(frozen=True)
class DisableNeonAttribute(ModulePass):
    """On AArch64, mark every function ``-neon`` if a vector i64 → f32 conversion is present.

    NEON would round that conversion twice; for other targets the pass does nothing."""

    name = "disable-neon-attribute"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = attrs.get_target(op)
        if not is_aarch64(target.triple.data):
            return
        if not any(rounds_twice(inner) for inner in op.walk()):
            return
        features = llvm.TargetFeaturesAttr(ArrayAttr([StringAttr(NO_NEON)]))
        for inner in op.walk():
            if isinstance(inner, llvm.FuncOp):
                inner.properties["target_features"] = features
        attrs.set_target(op, TargetAttr(
            target.triple.data, target.chip.data, _without_neon(target.features.data),
            target.vector_bits.data, target.vector_registers.data,
        ))
