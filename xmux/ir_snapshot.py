"""Whether a pass changed a module: the verify-after-each-pass mode skips passes that did not.

With ``XMUX_VERIFY_EACH=1`` (the test suite) or checks on, ``run_pipeline`` verifies the module
after every pass. About half the pipeline's passes leave a given module as it was (no gpu, acc,
spec constants, collectives, asserts ...), and xDSL's verifier costs about as much as the rest
of the pipeline, so verifying a module that was already verified and has not changed is half
the suite's compile time for nothing. ``snapshot`` records everything the verifier looks at,
by identity where IR objects are mutable and by value where they are immutable attributes:

* per operation, in walk order: the op object itself, its parent block, operands, result
  types, successors, attributes, properties and region count;
* per region of an op: the region, and its blocks in order with their argument types.

The snapshot holds references to every object it names, so no id can be reused while it lives:
equal snapshots mean the same IR, not merely a lucky hash. Its cost is one walk, well under
the verifier's (the fuzz batch of tests/test_fuzz_barriers.py: 1800 ops, about 3 ms against
260 ms).
"""

from __future__ import annotations

from xdsl.ir import Operation


def snapshot(module: Operation) -> list:
    out: list = []
    add = out.append
    for op in module.walk():
        add((op, op.parent, tuple(op.operands), tuple(r.type for r in op.results),
             tuple(op.successors), tuple(op.attributes.items()),
             tuple(op.properties.items()), len(op.regions)))
        for region in op.regions:
            add(region)
            for b in region.blocks:
                add((b, tuple(a.type for a in b.args)))
    return out
