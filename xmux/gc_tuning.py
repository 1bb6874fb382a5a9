"""Fewer cyclic-GC passes while xDSL builds and rewrites IR (parse, the pass pipeline).

A compile allocates millions of small objects (ops, results, uses, attributes), and most of
them live until it ends. CPython's collector counts allocations: with the default threshold
(700) it runs a young collection every 700 net allocations and, as the heap grows, full
collections that walk every tracked object, the module being built included. On
bench/compile_scaling.py's 24k-op module collections were 2.3 s of the passes' 6.1 s of CPU
(and 0.6 of the parse's 3.2 s), nearly all of it full collections; with the young threshold
at 50 000, 0.3 s in all and no full collection (one needs 10 middle ones, a middle one 10
young ones). ``fewer_collections()`` raises the young threshold for its duration: the
collector still runs (garbage stays bounded, ~``YOUNG_THRESHOLD`` objects), less often.
Nested and concurrent uses (compiles on other threads) share one raise; the last one out
restores the thresholds the process had.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: net allocations between young collections while a compile runs (CPython's default: 700)
YOUNG_THRESHOLD = 50_000

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, int, int] | None = None


def _fresh_in_child() -> None:
    # a child forked while another thread compiled (an LLVM child) inherits the raise but
    # not that thread: it starts with the process's thresholds and a free lock
    global _lock, _depth, _saved
    _lock = threading.Lock()
    if _saved is not None:
        gc.set_threshold(*_saved)
    _depth, _saved = 0, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_fresh_in_child)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the body with the young-generation threshold at ``YOUNG_THRESHOLD`` (or the
    process's own, if higher); a threshold of 0 (collection off) is left alone."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            current = gc.get_threshold()
            if current[0] and current[0] < YOUNG_THRESHOLD:
                _saved = current
                gc.set_threshold(YOUNG_THRESHOLD, *current[1:])
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                # a user's own change of the thresholds while we ran wins over ours
                if gc.get_threshold()[0] == YOUNG_THRESHOLD:
                    gc.set_threshold(*_saved)
                _saved = None
