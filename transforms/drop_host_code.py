"""drop-host-code: keep only the kernels and what they reach (a device module).

A module may carry host code beside its kernels (xmux-run's ``@main``, the launches
convert-acc-to-oacc and convert-gpu-to-mux leave in host functions, ``printMemref*``
declarations). A device target builds the kernels only: the host side of a launch is the
Python runtime's. This pass erases every function that is neither an entry point nor
reached from one through calls (the launched kernels and their callees stay), then every
global no kept function refers to.

Expects: entry points marked ``mux.kernel = "entry_point"``. Guarantees: each remaining
function is an entry point or reached from one; each remaining global is referred to.

Before::

    func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} { ... }
    func.func @main() { ... mux.launch @k(%x) ... }
    func.func private @printMemrefF32(memref<*xf32>)

After::

    func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} { ... }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass

from xmux.dialects import attrs


def _symbol_name(op: Operation) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return name.data if isinstance(name, StringAttr) else None


def _referenced(attr: Attribute, out: set[str]) -> None:
    if isinstance(attr, SymbolRefAttr):
        out.add(attr.root_reference.data)
    elif isinstance(attr, builtin.ArrayAttr | builtin.DictionaryAttr):
        values = attr.data.values() if isinstance(attr, builtin.DictionaryAttr) else attr.data
        for a in values:
            _referenced(a, out)


def _uses(op: Operation) -> set[str]:
    out: set[str] = set()
    for inner in op.walk():
        for a in (*inner.properties.values(), *inner.attributes.values()):
            _referenced(a, out)
    return out


@dataclass(frozen=True)
class DropHostCode(ModulePass):
    """Erase functions and globals that no entry point reaches."""

    name = "drop-host-code"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        symbols = {n: o for o in op.ops if (n := _symbol_name(o)) is not None}
        kept: set[str] = set()
        work = [f.sym_name.data for f in attrs.entry_points(op)]
        while work:
            name = work.pop()
            if name in kept or name not in symbols:
                continue
            kept.add(name)
            work.extend(_uses(symbols[name]) - kept)
        for name, o in symbols.items():
            if name not in kept:
                o.detach()
                o.erase(drop_references=True)
