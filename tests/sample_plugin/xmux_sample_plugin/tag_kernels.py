"""tag-kernels{tag=...}: put ``sample.tag = "<tag>"`` on every kernel (a ``func.func`` with
``mux.kernel``). The plain ``ModulePass`` style: walk the module and change it in place; an
option is a dataclass field, given as ``tag-kernels{tag=fast}``.

Before / after (``tag-kernels{tag=fast}``)::

    func.func @k(...) attributes {mux.kernel} {...}
    // ==>
    func.func @k(...) attributes {mux.kernel, sample.tag = "fast"} {...}
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class TagKernels(ModulePass):
    name = "tag-kernels"

    tag: str = "tagged"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.walk():
            if isinstance(f, func.FuncOp) and "mux.kernel" in f.attributes:
                f.attributes["sample.tag"] = StringAttr(self.tag)
