"""The specialization-constant methods every program has (``xmux.Program`` on the CPU,
``xmux.targets.nvptx.NvptxProgram`` on the GPU): both keep their values in a
``runtime.spec_constants.SpecState`` (``_spec``; None without constants) and differ only in
how a launch uses them (docs/architecture.md, "Specialization constants")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from xmux.runtime import spec_constants as _spec
from xmux.runtime import tiered


class SpecConstantsAPI:
    """Mixin: ``spec_constants``, ``property_sets``, ``kernel_property_sets``,
    ``spec_constants_mode``, ``set_spec_constant``, ``get_spec_constant`` over ``_spec``."""

    _spec: _spec.SpecState | None

    @property
    def spec_constants(self) -> dict[str, _spec.SpecConstant]:
        """Symbolic id → its type, descriptors and buffer offset (ascending numeric ids)."""
        return dict(self._spec.table.constants) if self._spec is not None else {}

    @property
    def property_sets(self) -> dict[str, dict[str, object]]:
        """The reference's two property sets: "SYCL/specialization constants" (symbolic id →
        [(leaf id, offset, size)], padding leaves with id 0xFFFFFFFF) and "SYCL/specialization
        constants default values" ({"all": blob})."""
        if self._spec is None:
            return {_spec.PROPERTY_SET: {}, _spec.DEFAULT_VALUES_SET: {"all": b""}}
        return self._spec.table.property_sets()

    def kernel_property_sets(self, kernel: str) -> dict[str, dict[str, object]]:
        """The property sets of one kernel's device image when a program is split per kernel
        (sycl-post-link ``-split=kernel``): only the constants it reads, ids from 0."""
        if self._spec is None:
            self.kernel(kernel)  # type: ignore[attr-defined] # an unknown kernel: an error
            return {_spec.PROPERTY_SET: {}, _spec.DEFAULT_VALUES_SET: {"all": b""}}
        return self._spec.table.kernel_property_sets(kernel)

    @property
    def spec_constants_mode(self) -> str | None:
        """"native" (JIT-specialized per value set), "emulated" (runtime buffer) or None."""
        return self._spec.table.mode if self._spec is not None else None

    def set_spec_constant(self, symbolic_id: str, value: object) -> None:
        """Set a specialization constant for every later launch of this program's kernels."""
        if self._spec is None:
            _spec.reject_values("set_spec_constant", {symbolic_id: value})
        self._spec.set(symbolic_id, value)  # type: ignore[union-attr]

    def get_spec_constant(self, symbolic_id: str) -> object:
        """The value set with ``set_spec_constant``, else the default."""
        if self._spec is None:
            _spec.reject_values("get_spec_constant", {symbolic_id: None})
        return self._spec.current(symbolic_id)  # type: ignore[union-attr]

    # -- tiered compilation (runtime/tiered.py) ---------------------------------------------

    #: launches build what they need before they run (``xmux.compile(wait=True)``): no
    #: background builds for this program
    wait = False

    def warm(
        self,
        sizes: Iterable[Sequence[int] | int] = (),
        spec_values: Iterable[Mapping[str, object] | None] = (),
        kernels: Iterable[str] | None = None,
    ) -> None:
        """Build now what launches would otherwise build in the background, and wait for the
        background builds under way: for each kernel (``kernels``, default all), the
        local-size variant of every local size in ``sizes`` (with every vector width its
        tuner tries), and with native specialization constants the specialization for every
        value set in ``spec_values`` (a dict ``{symbolic id: value}`` merged over the
        program's values as a launch's ``spec_constants=`` is; None: the program's values),
        its variants included. A launch of those sizes and values then waits for nothing.
        For timing: ``xmux.compile(..., wait=True)`` makes every launch build what it needs
        before it runs instead."""
        from xmux.runtime.tiered import finished

        names = list(self.infos) if kernels is None else list(kernels)  # type: ignore[attr-defined]
        locals_ = [(s,) if isinstance(s, int) else tuple(int(v) for v in s) for s in sizes]
        value_sets = list(spec_values)
        for name in names:
            launcher = getattr(self.kernel(name), "_launcher", None)  # type: ignore[attr-defined]
            if launcher is None:  # a target without local-size variants (NVPTX)
                continue
            state = self._spec
            blobs: list[bytes | None] = [None]
            if state is not None and state.table.mode == "native":
                blobs = [state.resolve(name, v).buffer for v in value_sets or [None]]
                for blob in blobs:
                    job = launcher.spec_jobs.pop(blob, None)  # type: ignore[arg-type]
                    if job is not None:
                        tiered.run_now(job)
                        finished(job)
                    launcher._spec_entry_now(blob)
            for local in locals_:
                padded = local + (1,) * (3 - len(local))
                for blob in blobs:
                    launcher.variants.warm(padded, blob)
        tiered.drain()


class NotCopyable:
    """Programs and kernels hold machine code loaded into this process (the JIT's, or a CUDA
    module) and its addresses, which no other process or copy could use: pickling or
    deep-copying one is an error saying so."""

    _what = "object"

    def __reduce__(self):  # noqa: ANN204 - pickle's protocol
        raise self._not_copyable()

    def __deepcopy__(self, memo: dict):  # noqa: ANN204
        raise self._not_copyable()

    def _not_copyable(self) -> TypeError:
        return TypeError(
            f"an xmux {self._what} cannot be pickled or deep-copied: it holds code compiled "
            "into this process (JIT-loaded machine code or a CUDA module) and its addresses; "
            "keep the MLIR source and the compile options instead and call xmux.compile "
            "again where needed (the disk cache makes that a load of the compiled object)"
        )


class KernelTable(NotCopyable):
    """A program's kernels by name (``prog.kernel(name)``, ``prog[name]``), each built once
    with the target's kernel class ``_kernel_class(program, info)``."""

    _what = "Program"

    infos: dict
    _kernels: dict
    _kernel_class: type

    @property
    def kernel_names(self) -> list[str]:
        return list(self.infos)

    def kernel(self, name: str):  # noqa: ANN201 - the target's kernel class
        from xmux.abi.errors import XmuxError  # not xmux.errors: no xDSL on xmux.load

        if name not in self.infos:
            known = ", ".join(self.infos) or "none"
            raise XmuxError(f"no kernel named '{name}' in this program (kernels: {known})")
        if name not in self._kernels:
            self._kernels[name] = self._kernel_class(self, self.infos[name])
        return self._kernels[name]

    def __getitem__(self, name: str):  # noqa: ANN204
        return self.kernel(name)


