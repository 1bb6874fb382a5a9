"""Specialization constants: a program's value map and its specializations per launch.
``runtime/spec_constants.py`` is the public face."""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from xmux.abi.spec_types import SpecConstantError, decode
from xmux.runtime import forksafe, tiered
from xmux.runtime.spec_table import KernelSpecUse, SpecTable, aligned_buffer, value_set_key

# ---------------------------------------------------------------------------------------
# A program's values and what a launch needs
# ---------------------------------------------------------------------------------------


class LaunchTarget(NamedTuple):
    """What ``SpecState.launch`` resolved: the entry hook to call (None: the program's own),
    trailing arguments, an object to keep alive during the launch, and the value-set bytes."""

    entry: object | None
    extra: tuple[int, ...]
    keep: object
    buffer: bytes


class _Guard:
    """A lock of its own (``forksafe.lock`` keeps one lock attribute per owner)."""

    def __init__(self) -> None:
        self._lock = forksafe.lock(self)


class SpecState:
    """Per program: the value map (``set_spec_constant``) and the specializations.

    ``launch(kernel, call_values)`` returns ``(entry or None, extra_args, keepalive)``: in JIT
    mode the entry hook of the kernel specialized for the values it reads (None: the program's
    own, compiled with the defaults); in emulated mode the buffer's address as the trailing
    argument (when the kernel takes one) and the array to keep alive during the launch.
    """

    #: emulated buffers kept per distinct value set (then recreated)
    MAX_BUFFERS = 64

    def __init__(
        self,
        table: SpecTable,
        program_key: str | None,
        kernel_infos_json: str,
        disk_cache: bool,
    ) -> None:
        table.prepare()
        self.table = table
        self.program_key = program_key
        self.kernel_infos_json = kernel_infos_json
        self.disk_cache = disk_cache
        self.values: dict[str, bytes] = {}
        #: bumped by ``set``: a launch without call values resolves as the last one of its
        #: kernel did while it is unchanged (``_resolved``: kernel -> (version, target))
        self._version = 0
        self._resolved: dict[str, tuple[int, LaunchTarget]] = {}
        self._lock = forksafe.lock(self)
        self._modules: dict[object, object] = {}  # value set (, variant tag, width) -> module
        self._entries: dict[tuple[str, bytes], object] = {}
        self._buffers: dict[bytes, tuple[np.ndarray, int]] = {}  # blob -> (buffer, address)
        self._variants: dict[str, SpecTable] = {}
        self._variant_entries: dict[tuple[str, bytes], object] = {}
        #: distinct value sets this program specialized for (tests and benchmarks)
        self.specializations = 0
        #: JIT mode: the program with its leaves as exported variables (``generic_entry``),
        #: built in the background (``queue_generic``); its leaves' (address, offset in a
        #: value set's blob, size)
        self.generic_job: tiered.Job | None = None
        self._generic_leaves: list[tuple[int, int, int]] = []
        self._generic_guard = _Guard()

    def set(self, symbolic_id: object, value: object) -> None:
        self.values[self.table.lookup(symbolic_id).symbolic_id] = self.table.encode_value(
            symbolic_id, value
        )
        self._version += 1

    def current(self, symbolic_id: object) -> object:
        c = self.table.lookup(symbolic_id)
        raw = self.values.get(c.symbolic_id, self.table.default(c.symbolic_id))
        return decode(c.type, raw)

    def _merged(self, call_values: Mapping[str, object] | None) -> dict[str, bytes]:
        if not call_values:
            return self.values
        if not isinstance(call_values, Mapping):
            raise SpecConstantError(
                "spec_constants= takes a dict {symbolic id: value}, got "
                f"{type(call_values).__name__}"
            )
        merged = dict(self.values)
        for sid, value in call_values.items():
            merged[self.table.lookup(sid).symbolic_id] = self.table.encode_value(sid, value)
        return merged

    def launch(
        self, kernel: str, symbol: str, call_values: Mapping[str, object] | None
    ) -> LaunchTarget:
        """``resolve`` then, in JIT mode, the entry hook specialized for the values."""
        target = self.resolve(kernel, call_values)
        if self.table.mode != "native":
            return target
        return target._replace(entry=self.entry(kernel, symbol, target.buffer))

    def entry(self, kernel: str, symbol: str, buf: bytes) -> object | None:
        """JIT mode: the program's entry hook specialized for ``buf`` (None: the defaults,
        i.e. the program's own code)."""
        if buf == self.table.default_values:
            return None
        entry = self._entries.get((kernel, buf))
        if entry is None:
            entry = self._specialize(kernel, symbol, buf)
        return entry

    def resolve(self, kernel: str, call_values: Mapping[str, object] | None) -> LaunchTarget:
        """The value set of a launch (checked), without compiling anything: in JIT mode the
        blob with the values of the constants the kernel reads, in emulated mode the buffer
        (its address as the trailing argument when the kernel takes one)."""
        if not call_values:  # the program's values: kept per kernel until ``set``
            version = self._version  # read first: a ``set`` meanwhile makes the entry stale
            hit = self._resolved.get(kernel)
            if hit is not None and hit[0] == version:
                return hit[1]
            target = self._resolve(kernel, self.values)
            self._resolved[kernel] = (version, target)
            return target
        return self._resolve(kernel, self._merged(call_values))

    def _resolve(self, kernel: str, merged: Mapping[str, bytes]) -> LaunchTarget:
        use = self.table.kernels.get(kernel, KernelSpecUse())
        if self.table.mode == "emulated":
            if not use.buffer_arg:
                return LaunchTarget(None, (), None, b"")
            buf = self.table.buffer_bytes(merged)
            kept = self._buffers.get(buf)
            if kept is None:
                arr = aligned_buffer(buf)
                kept = (arr, arr.ctypes.data)  # ``ctypes.data`` costs ~0.8 µs: asked once
                with self._lock:
                    if len(self._buffers) >= self.MAX_BUFFERS:
                        self._buffers.clear()
                    self._buffers[buf] = kept
            return LaunchTarget(None, (kept[1],), kept[0], buf)
        # JIT: specialize on the constants this kernel reads; the others keep their defaults
        mine = {s: v for s, v in merged.items() if s in use.uses}
        return LaunchTarget(None, (), None, self.table.buffer_bytes(mine))

    def variant_entry(
        self,
        symbol: str,
        tag: str,
        buf: bytes,
        build_ir: Callable[[], object],
        builds: Sequence[str] = (),
        generic: Callable[[], object] | None = None,
        label: str = "variant",
    ) -> object:
        """JIT mode: the entry hook of a *variant* of the program (e.g. its kernel specialized
        on a local size: ``build_ir()`` lowers it, ``launcher.Lowered``: its LLVM IR, with the
        leaf globals, and whether it is width-dependent),
        specialized for the value set ``buf``. Variants are lowered once per ``tag``. With
        ``builds`` (``tuning.variant_builds``: "512-bit", "256-bit" / "variant", "generic"),
        unless the variant is width-dependent, a ``tuning.BuildTuner`` over them, as other
        variants get: the specialized variant at those widths and ``generic()``, the value
        set's plain entry (``entry``: compiled on its first turn if no launch needed it yet)."""
        from xmux.runtime import abi, jit, tuning

        entry = self._variant_entries.get((tag, buf))
        if entry is not None:
            return entry
        # lowering and LLVM run without the lock (runtime/tiered.py builds these in the
        # background: a launch's own specialization must not wait for them); two threads
        # building one variant at once keep the first result
        table = self._variants.get(tag)
        if table is None:
            lowered = build_ir()
            table = self.table.with_template(lowered.ir)  # type: ignore[attr-defined]
            table.width_dependent = lowered.width_dependent  # type: ignore[attr-defined]
            with self._lock:
                table = self._variants.setdefault(tag, table)
        key = None
        if self.program_key:
            key = value_set_key(f"{self.program_key}/{tag}", buf)
        ir_text, link = table.specialize(buf)

        def build(vector_bits: int | None = None) -> object:
            module = jit.compile_ir(
                ir_text,
                link=link,
                kernel_infos_json=self.kernel_infos_json,
                cache_key=key,
                disk_cache=self.disk_cache and key is not None,
                vector_bits=vector_bits,
            )
            self._modules[(tag, buf, vector_bits)] = module  # type: ignore[index]
            return abi.EntryHookFn(module.address(symbol))  # type: ignore[attr-defined]

        if builds and not table.width_dependent:  # type: ignore[attr-defined]
            makers = {"512-bit": build, "variant": build, "256-bit": lambda: build(256),
                      "generic": generic}
            entry = tuning.BuildTuner([makers[n] for n in builds], label, builds)
        else:
            entry = build()
        with self._lock:
            first = self._variant_entries.setdefault((tag, buf), entry)
            if first is entry:
                self.specializations += 1
        return first

    # -- the generic native form (runtime/tiered.py) --------------------------------------

    def queue_generic(self) -> None:
        """JIT mode: have the generic form (``generic_entry``) built in the background, once
        (``xmux.compile`` and a kernel's first launch ask)."""
        if (self.generic_job is None and self.table.mode == "native"
                and self.table.template is not None and not tiered.synchronous()):
            self.generic_job = tiered.submit("the program's generic form (specialization "
                                             "constants read from memory)", self._build_generic)

    def build_generic_beside(self) -> threading.Thread | None:
        """``xmux.compile``: build the generic form on a thread of its own while the caller
        builds the program (both LLVM builds in forked children, on two cores at once), so
        that it is ready when the compile returns rather than ~0.1-1 s after it (the
        background server's start), when the first new value sets of a fast loop come. The
        caller joins the thread; the form is then ``generic_job``'s result."""
        if (self.generic_job is not None or self.table.mode != "native"
                or self.table.template is None or tiered.synchronous()):
            return None
        job = self.generic_job = tiered.Job("the program's generic form (specialization "
                                            "constants read from memory)", self._build_generic)
        thread = threading.Thread(target=job.run, name="xmux-generic-form", daemon=True)
        thread.start()
        return thread

    def generic_ready(self) -> bool:
        """Whether the generic form is built (a failed build is reported once, then False for
        good: new value sets are specialized by their launch, as before tiering)."""
        job = self.generic_job
        if job is None or not job.done:
            return False
        if job.error is not None:
            from xmux.runtime.tiered import finished

            finished(job)
            return False
        return True

    def _build_generic(self) -> object:
        """The template linked with the leaves as exported, writable variables holding the
        defaults: LLVM cannot fold what another module may write, so the kernels read the
        values from memory, as the emulated mode's do from its buffer (same kernels, same
        packed arguments as the program's own code)."""
        from xmux.abi.spec_types import GLOBAL_PREFIX, llvm_literal, llvm_type, store_size
        from xmux.runtime import jit

        table = self.table
        table.prepare()
        leaves = sorted(table._leaf_at.items())
        blob = table.default_values
        text = "".join(f'@"{GLOBAL_PREFIX}{leaf}" = global {llvm_type(t)} '
                       f"{llvm_literal(t, blob, offset)}\n" for leaf, (t, offset) in leaves)
        key = value_set_key(f"{self.program_key}/exported", b"") if self.program_key else None
        module = jit.compile_ir(
            table.template,  # type: ignore[arg-type]
            link=(text,),
            kernel_infos_json=self.kernel_infos_json,
            cache_key=key,
            disk_cache=self.disk_cache and key is not None,
            internalize=False,
        )
        self._generic_leaves = [
            (module.address(f"{GLOBAL_PREFIX}{leaf}"), offset, store_size(t))
            for leaf, (t, offset) in leaves
        ]
        return module

    def generic_entry(self, symbol: str) -> object:
        """The generic form's entry hook of ``symbol`` (``generic_ready`` first)."""
        from xmux.runtime import abi

        module = self.generic_job.result  # type: ignore[union-attr]
        return abi.EntryHookFn(module.address(symbol))  # type: ignore[attr-defined]

    @contextlib.contextmanager
    def values_in_place(self, buf: bytes) -> Iterator[None]:
        """The generic form's variables hold the value set ``buf`` during the block (one
        launch at a time runs the generic form: the variables are the program's)."""
        with self._generic_guard._lock:
            for address, offset, size in self._generic_leaves:
                ctypes.memmove(address, buf[offset:offset + size], size)
            yield

    def _specialize(self, kernel: str, symbol: str, buf: bytes) -> object:
        from xmux.runtime import abi, jit

        module = self._modules.get(buf)
        if module is None:  # built without the lock, as ``variant_entry``'s
            key = value_set_key(self.program_key, buf) if self.program_key else None
            ir_text, link = self.table.specialize(buf)
            built = jit.compile_ir(
                ir_text,
                link=link,
                kernel_infos_json=self.kernel_infos_json,
                cache_key=key,
                disk_cache=self.disk_cache and key is not None,
            )
            with self._lock:
                module = self._modules.setdefault(buf, built)
                if module is built:
                    self.specializations += 1
        entry = abi.EntryHookFn(module.address(symbol))  # type: ignore[attr-defined]
        self._entries[(kernel, buf)] = entry
        return entry
