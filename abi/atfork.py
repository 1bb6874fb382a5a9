"""What a forked child must not inherit half-done from the parent's other threads: an import
and an LLVM call (issue 30 item 8: a child forked while another thread compiled hung for ever).

``os.fork()`` copies the process with only the forking thread: a lock another thread held
stays held in the child, where nobody will release it. xmux's own locks get fresh ones in the
child (``runtime/forksafe.py``); two are not xmux's:

* **Imports.** CPython's fork takes only the global import lock, not importlib's per-module
  locks (``importlib._bootstrap._ModuleLock``). A module that another thread was importing at
  the fork (xmux imports passes, dialects and the runtime on first use) stays locked and
  half-executed in the child, whose first import of it waits for ever. Waiting in a ``before``
  hook for imports to end cannot be done in general: nothing tells when another thread will
  finish an import (it may itself wait on the forking thread), and most of xmux's imports are
  plain ``import`` statements in functions, not ``lazy_import``. So the child treats an import
  that another thread of the parent had under way as one that failed, as CPython does when a
  module's body raises: the half-executed module leaves ``sys.modules``, its lock is dropped,
  and the child's next import runs the module from the start. Only other threads' imports
  are dropped: one the forking thread itself is in stays. (What a half-run body already did,
  such as registering a class elsewhere, is done again by the re-import, as by the retry of
  a failed import.)
* **LLVM.** llvmlite serializes every LLVM call with one lock. Releasing it in the child would
  not help: a thread in the middle of an LLVM call at the fork may hold LLVM's own mutexes
  (its symbol table, say) or leave half-built state, which no Python code can repair. So the
  ``before`` hook takes llvmlite's lock, waiting for the LLVM call in flight (if any) to
  return, and both processes release it after the fork: no thread is inside LLVM at a fork.
  The wait cannot deadlock on xmux's calls: none calls back into Python (kernels are called
  through ctypes, with no llvmlite lock held), and the lock is reentrant, so a fork from a
  thread that holds it goes on at once.

The handlers are registered when this module is imported, by ``import xmux``
(``xmux/__init__.py``), before any xmux thread can start an import or an LLVM call. Nothing
here imports llvmlite: a process that has not imported it is in no LLVM call.
"""

from __future__ import annotations

import _thread
import importlib._bootstrap as _bootstrap
import os
import sys
from typing import Any

__all__: list[str] = []

#: llvmlite's lock as taken by ``_before_fork``, released by the ``after`` hooks
_llvm_held: Any = None


def _llvm_lock() -> Any:  # noqa: ANN401 - llvmlite's RLock, or None
    """The lock around every LLVM call, if llvmlite's ffi is imported."""
    ffi = sys.modules.get("llvmlite.binding.ffi")
    return getattr(getattr(getattr(ffi, "lib", None), "_lock", None), "_lock", None)


def _before_fork() -> None:
    global _llvm_held
    llvm = _llvm_lock()
    if llvm is not None:
        llvm.acquire()
        _llvm_held = llvm


def _release_llvm() -> None:
    global _llvm_held
    if _llvm_held is not None:
        _llvm_held.release()
        _llvm_held = None


def _drop_other_threads_imports() -> None:
    """Forget the module locks of the parent's other threads, and the modules they were
    importing (see the module docstring)."""
    locks = getattr(_bootstrap, "_module_locks", None)
    if not isinstance(locks, dict):
        return
    me = _thread.get_ident()  # not threading: xmux-opt's start-up does not import it
    for name, ref in list(locks.items()):
        module_lock = ref() if callable(ref) else ref
        owner = getattr(module_lock, "owner", None)
        if owner == me:
            continue
        # an unowned lock goes too: a dead thread may hold its inner lock in mid-acquire; the
        # next import of ``name`` makes a new one
        del locks[name]
        if owner is None:
            continue
        spec = getattr(sys.modules.get(name), "__spec__", None)
        if getattr(spec, "_initializing", False):
            del sys.modules[name]


def _after_fork_in_child() -> None:
    _release_llvm()
    _drop_other_threads_imports()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=_before_fork, after_in_parent=_release_llvm, after_in_child=_after_fork_in_child
    )
