"""What a pass changed: the verify-after-each-pass mode verifies only that.

With ``XMUX_VERIFY_EACH=1`` (the test suite) or checks on, ``run_pipeline`` verifies the module
after every pass. Most passes leave most of a module as it was (a kernel pass does not touch
the host code; about half the pipeline's passes change nothing in a module without gpu, acc,
spec constants, collectives or asserts), and xDSL's verifier costs about as much as the rest
of the pipeline, so re-verifying IR that was verified and has not changed is half the suite's
compile time for nothing.

``Snapshot`` records, per top-level op of the module (a function, a global, a gpu.module),
everything the verifier looks at in its subtree, by identity where IR objects are mutable and
by value where they are immutable attributes:

* per operation, in walk order: the op object itself, its parent block, operands, results
  (a value's type never changes: a new type is a new value), successors, attributes and
  properties;
* per region: the region, and its blocks in order with their arguments;

and the symbols the subtree refers to. ``Snapshot.to_verify(before)`` is then the top-level ops
that are new or changed, plus the unchanged ones that refer to a symbol whose definition
changed, appeared or went (a call's verifier reads its callee's type); the module op itself is
always verified on its own (its symbol table). Everything else is exactly the IR verified before.

A snapshot holds references to every object it names, so no id can be reused while it lives:
equal records mean the same IR, not merely a lucky hash. Its cost is one walk, a fraction of
the verifier's.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, Operation

_SCAN = (SymbolRefAttr, ArrayAttr, DictionaryAttr)


def _symbols(a: Attribute, out: set[str]) -> None:
    if isinstance(a, SymbolRefAttr):
        out.add(a.root_reference.data)
    elif isinstance(a, ArrayAttr):
        for x in a.data:
            _symbols(x, out)
    elif isinstance(a, DictionaryAttr):
        for x in a.data.values():
            _symbols(x, out)


def _record(top: Operation) -> tuple[list, frozenset[str]]:
    out: list = []
    add = out.append
    refs: set[str] = set()
    for op in top.walk():
        attrs = tuple(op.attributes.items())
        props = tuple(op.properties.items())
        # xDSL replaces these tuples on every change (``op.operands`` is a live view)
        add((op, op.parent, op._operands, op.results, op._successors, attrs, props))
        for _, a in (*attrs, *props):
            if isinstance(a, _SCAN):
                _symbols(a, refs)
        if op.regions:
            for region in op.regions:
                add(region)
                for b in region.blocks:
                    add((b, tuple(b.args)))  # a new type is a new argument object
    return out, frozenset(refs)


def _name(op: Operation) -> str | None:
    sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return sym.data if isinstance(sym, StringAttr) else None


class Snapshot:
    """The module's top-level ops, each with its subtree's record and referenced symbols."""

    def __init__(self, module: Operation) -> None:
        self.module = module
        self.tops: dict[Operation, tuple[list, frozenset[str]]] = {
            op: _record(op) for region in module.regions for b in region.blocks for op in b.ops
        }

    def to_verify(self, before: Snapshot | None) -> list[Operation]:
        """The top-level ops whose verification may differ from ``before``'s (all of them
        without one)."""
        if before is None or before.module is not self.module:
            return list(self.tops)
        changed = [op for op, rec in self.tops.items() if before.tops.get(op, (None,))[0]
                   != rec[0]]
        gone = [op for op in before.tops if op not in self.tops]
        touched = {n for op in (*changed, *gone) if (n := _name(op)) is not None}
        if not touched:
            return changed
        seen = set(changed)
        return changed + [op for op, (_, refs) in self.tops.items()
                          if op not in seen and refs & touched]



def verify_changes(module: Operation, before: Snapshot | None) -> Snapshot:
    """Verify what changed since ``before`` (everything without one); returns the new
    snapshot, to pass as ``before`` after the next pass."""
    now = Snapshot(module)
    ops = now.to_verify(before)
    if ops or before is None or list(before.tops) != list(now.tops):
        module.verify(verify_nested_ops=False)  # the module's own traits (its symbol table)
        for op in ops:
            op.verify()
    return now
