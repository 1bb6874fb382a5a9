"""The ``xmux`` dialect's target attribute: the machine a module is compiled for, in the IR.

Modelled on upstream MLIR's ``#llvm.target<triple = ..., chip = ..., features = ...>`` and
``#nvvm.target<chip = "sm_90", features = "+ptx80">`` (a value naming the target) and on DLTI
(facts a cost model reads): the module carries one ``#xmux.target`` under the key
``xmux.target`` (``dialects/attrs.py``: ``get_target`` / ``set_target``), and every
target-dependent decision of a pass reads it: work-item-unroll-and-jam's accumulator budget,
work-item-loop-vectorize-hints' widest hint, expand-oacc-reductions' default expansion, the
triple the emitter writes. No pass asks the host (or llvmlite) anything.

```mlir
builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu",
    chip = "znver3", vector_bits = 256, vector_registers = 16>} { ... }
builtin.module attributes {xmux.target = #xmux.target<"nvptx64-nvidia-cuda",
    chip = "sm_90", features = "+ptx80">} { ... }
```

Parameters: the LLVM triple (positional), ``chip`` (LLVM's CPU name: ``znver3``,
``skylake-avx512``, ``sm_90``), ``features`` (LLVM's feature string, ``""``: the chip's own),
``vector_bits`` (the widest SIMD register the code may use; 0 where the target has no such
unit, as on a GPU) and ``vector_registers`` (how many there are). ``features``,
``vector_bits`` and ``vector_registers`` are printed only when set.

A module without the attribute is compiled for ``DEFAULT_TARGET`` (an x86-64 CPU with
AVX-512: 32 registers of 512 bits), so ``xmux-opt`` prints the same IR on every host.
``xmux.compile`` and ``pipelines.cpu()`` attach the target they build for (the host's, or
``XMUX_CPU``'s) with ``attach-target``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

#: ``vector_bits`` × ``vector_registers``: how wide the accumulators of one work-item loop's
#: body may grow before LLVM spills them. LLVM vectorizes x86 work-item loops 256 bits wide
#: by default (its ``prefer-256-bit`` tuning, also on AVX-512 chips), so the budget counts a
#: register as 8 floats at most, and half the register file (the rest holds operands).
_BUDGET_BITS = 256

_KEYS = ("chip", "features", "vector_bits", "vector_registers")


@irdl_attr_definition
class TargetAttr(ParametrizedAttribute):
    """``#xmux.target<"triple", chip = "...", features = "...", vector_bits = N,
    vector_registers = N>``: the target of a module (see the module docstring)."""

    name = "xmux.target"

    triple: StringAttr
    chip: StringAttr
    features: StringAttr
    vector_bits: IntAttr
    vector_registers: IntAttr

    def __init__(
        self,
        triple: str,
        chip: str,
        features: str = "",
        vector_bits: int = 0,
        vector_registers: int = 0,
    ) -> None:
        super().__init__(
            StringAttr(triple),
            StringAttr(chip),
            StringAttr(features),
            IntAttr(vector_bits),
            IntAttr(vector_registers),
        )

    # -- facts the passes read --------------------------------------------------------------

    @property
    def is_gpu(self) -> bool:
        """Whether the hardware runs the work-items (NVPTX): no work-item loops."""
        return self.triple.data.startswith("nvptx")

    @property
    def vector_floats(self) -> int:
        """f32 lanes of the widest vector register (1 without SIMD registers)."""
        return max(self.vector_bits.data // 32, 1)

    @property
    def accumulator_floats(self) -> int:
        """Floats of vector registers a cost model may fill with accumulators (see
        ``_BUDGET_BITS``): 128 on AVX-512 (32 registers), 64 on AVX2 (16)."""
        bits = min(self.vector_bits.data, _BUDGET_BITS)
        return self.vector_registers.data * bits // 32 // 2

    # -- syntax -----------------------------------------------------------------------------

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.triple.data)
        printer.print_string(", chip = ")
        printer.print_string_literal(self.chip.data)
        if self.features.data:
            printer.print_string(", features = ")
            printer.print_string_literal(self.features.data)
        if self.vector_bits.data:
            printer.print_string(f", vector_bits = {self.vector_bits.data}")
        if self.vector_registers.data:
            printer.print_string(f", vector_registers = {self.vector_registers.data}")
        printer.print_string(">")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        triple = parser.parse_str_literal("the target triple")
        values: dict[str, str | int] = {"features": "", "vector_bits": 0, "vector_registers": 0}
        seen: set[str] = set()
        while parser.parse_optional_punctuation(",") is not None:
            pos = parser.pos
            key = parser.parse_identifier()
            if key not in _KEYS or key in seen:
                what = "repeated" if key in seen else "unknown"
                parser.raise_error(
                    f"xmux.target: {what} parameter '{key}' (expected {', '.join(_KEYS)})",
                    pos,
                    parser.pos,
                )
            seen.add(key)
            parser.parse_punctuation("=")
            if key in ("chip", "features"):
                values[key] = parser.parse_str_literal(f"the target's {key}")
            else:
                values[key] = parser.parse_integer(allow_boolean=False, allow_negative=False)
        if "chip" not in seen:
            parser.raise_error("xmux.target: expected 'chip = \"...\"'")
        params = [
            StringAttr(triple),
            StringAttr(str(values["chip"])),
            StringAttr(str(values["features"])),
            IntAttr(int(values["vector_bits"])),
            IntAttr(int(values["vector_registers"])),
        ]
        problem = _problem(triple, int(values["vector_bits"]), int(values["vector_registers"]))
        if problem:  # a parse error with the location, not a verifier exception from xDSL
            parser.raise_error(problem)
        parser.parse_punctuation(">")
        return params

    def verify(self) -> None:
        problem = _problem(
            self.triple.data, self.vector_bits.data, self.vector_registers.data
        )
        if problem:
            raise VerifyException(problem)


def _problem(triple: str, bits: int, registers: int) -> str | None:
    """What is wrong with these parameters, None if nothing."""
    if not triple:
        return "xmux.target: the triple must not be empty"
    if bits and (bits < 64 or bits & (bits - 1)):
        return f"xmux.target: vector_bits must be 0 or a power of two >= 64, got {bits}"
    if registers < 0:
        return "xmux.target: vector_registers must not be negative"
    if triple.startswith("nvptx") and bits:
        return (
            f"xmux.target: an {triple} target has no vector registers to budget "
            "(vector_bits must be 0)"
        )
    return None


#: What a module without ``xmux.target`` is compiled for (``xmux-opt``'s fixed default).
DEFAULT_TARGET = TargetAttr(
    "x86_64-unknown-linux-gnu", "x86-64-v4", vector_bits=512, vector_registers=32
)

Xmux = Dialect("xmux", [], [TargetAttr])
