"""Upstream ``acc`` forms that xDSL 0.74's ``acc`` dialect refuses, accepted as upstream does.

- ``acc.terminator`` may end the regions of the recipe ops (``acc.private.recipe``'s destroy,
  ``acc.firstprivate.recipe``'s copy / destroy, ``acc.reduction.recipe``'s): upstream MLIR's own
  OpenACC tests write them so, and xDSL's op lists only kernels / data / host_data / global
  ctor-dtor / atomic capture as parents, so such a module failed to parse before any xmux pass.

Applied once when xmux builds a context or its plugin universe (``xmux/registry.py``); it
widens a verifier, so modules xDSL accepted are unchanged. Importing it also applies
``acc_syntax`` (clauses in any order, the LLVM 19 forms).
"""

from __future__ import annotations

from xdsl.dialects import acc
from xdsl.traits import HasParent

_RECIPES = (acc.PrivateRecipeOp, acc.FirstprivateRecipeOp, acc.ReductionRecipeOp)


def allow_terminator_in_recipes() -> None:
    traits = acc.TerminatorOp.traits
    current = traits.traits
    for t in current:
        if isinstance(t, HasParent) and not set(_RECIPES) <= set(t.op_types):
            wider = HasParent(*t.op_types, *(r for r in _RECIPES if r not in t.op_types))
            traits._traits = frozenset((current - {t}) | {wider})
            return


allow_terminator_in_recipes()


import xmux.dialects.acc_syntax  # noqa: E402, F401 - clauses in any order, the LLVM 19 forms
