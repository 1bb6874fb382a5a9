"""Locks a forked child gets back released.

``os.fork()`` copies a lock in whatever state it is: one that another thread held at the fork
stays held in the child, where that thread does not exist, and the child's first launch or
compile that takes it waits for ever (issue 13: a relaunch in a forked child deadlocked on the
JIT lock). Module-level locks get an ``os.register_at_fork`` handler in their module
(``runtime/jit.py``, ``pool.py``, ``interrupt.py``, ``checks.py``); per-object locks
(a program's specialization state, a tuner) are made here, ``lock(owner)``, and replaced by
fresh ones in the child. Replacing is safe there: the child has one thread, and nothing it
does can be inside a critical section of the parent's other threads. An import or an LLVM
call another thread had under way at the fork is ``abi/atfork.py``'s (issue 30 item 8).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable

__all__ = ["lock"]

#: owners of per-object locks: id -> owner (weakly), and the attribute and factory per id
_owners: weakref.WeakValueDictionary[int, object] = weakref.WeakValueDictionary()
_attrs: dict[int, tuple[str, Callable[[], object]]] = {}


def lock(owner: object, attr: str = "_lock", factory: Callable[[], object] = threading.Lock):
    """A new lock for ``owner.<attr>``, replaced by a fresh one in a forked child."""
    key = id(owner)
    _owners[key] = owner
    _attrs[key] = (attr, factory)
    weakref.finalize(owner, _attrs.pop, key, None)
    return factory()


def _after_fork_in_child() -> None:
    for key, owner in list(_owners.items()):
        attr, factory = _attrs.get(key, ("_lock", threading.Lock))
        setattr(owner, attr, factory())


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
