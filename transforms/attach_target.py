"""attach-target: name the machine a module is compiled for (``#xmux.target`` on the module).

As upstream MLIR's ``nvvm-attach-target`` puts an ``#nvvm.target`` on a ``gpu.module``, this
pass puts the target its options describe on the top-level module, under ``xmux.target``
(replacing one already there): the passes after it read their target facts from it
(``attrs.get_target``: register budget, vector width, OpenACC expansion, triple). The options
are the attribute's parameters; without options it attaches ``DEFAULT_TARGET`` (x86-64 with
AVX-512), the target a module without the attribute gets anyway. ``pipelines.cpu()`` and
``pipelines.nvptx()`` start with this pass, filled in with the target ``xmux.compile`` builds
for (the host's, ``XMUX_CPU``'s, or the GPU's); the pass itself never asks the host.

Expects: any module. Guarantees: the module has an ``xmux.target`` attribute.

Before / after (``attach-target{chip=znver3 vector-bits=256 vector-registers=16}``)::

    builtin.module { ... }
    // ==>
    builtin.module attributes {xmux.target = #xmux.target<"x86_64-unknown-linux-gnu",
        chip = "znver3", vector_bits = 256, vector_registers = 16>} { ... }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from xmux.abi.errors import XmuxError
from xmux.dialects import attrs
from xmux.dialects.target import DEFAULT_TARGET, TargetAttr


@dataclass(frozen=True)
class AttachTarget(ModulePass):
    """Attach the target machine its options describe to the module (``xmux.target``)."""

    name = "attach-target"

    #: the LLVM target triple
    triple: str = DEFAULT_TARGET.triple.data
    #: LLVM's CPU (or GPU architecture) name: znver3, skylake-avx512, sm_90
    chip: str = DEFAULT_TARGET.chip.data
    #: LLVM's feature string; empty: the chip's own features
    features: str = DEFAULT_TARGET.features.data
    #: widest SIMD register in bits (0: none, as on a GPU)
    vector_bits: int = DEFAULT_TARGET.vector_bits.data
    #: number of SIMD registers
    vector_registers: int = DEFAULT_TARGET.vector_registers.data

    def target(self) -> TargetAttr:
        """The attribute the options describe (an ``XmuxError`` naming the bad option)."""
        try:  # xDSL verifies an attribute when it is built
            return TargetAttr(
                self.triple, self.chip, self.features, self.vector_bits, self.vector_registers
            )
        except VerifyException as e:
            raise XmuxError(f"{self.name}: {e}") from e

    @classmethod
    def of(cls, target: TargetAttr) -> AttachTarget:
        """The pass attaching ``target``."""
        return cls(
            target.triple.data,
            target.chip.data,
            target.features.data,
            target.vector_bits.data,
            target.vector_registers.data,
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        attrs.set_target(op, self.target())
