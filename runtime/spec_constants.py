"""Specialization constants at run time: layouts, values, the emulated buffer, JIT specialization.

This is the runtime half of DPC++'s "Specialization constants" design (the DPC++ RT part):
``lower-spec-constants`` (the SpecConstantsPass) records per symbolic id the list of
``(leaf id, offset, size)`` descriptors and one default-value blob; the runtime keeps a value
map per program, and before a launch either

* **JIT-specializes** (the default, the CPU's "native" support): the program was lowered once
  with every scalar leaf ``spec.constant`` read from a constant global
  ``@"xmux.spec_constant.<leaf id>"``, declared, not defined (``convert-spec-to-llvm
  {declare-leaves=true}``); for a value set a small module defining those globals with the
  values (``SpecTable.values_module``, built from the typed values) is linked into the
  optimized template and the result JIT-compiled, so LLVM folds the values as literals ("the
  underlying JIT can see all the values"). Nothing edits printed LLVM IR: a template does
  not depend on how LLVM prints a line (a regular expression over it once missed ``+0.0``
  defaults, which llvmlite prints padded, and O3 folded them for good). Compiled modules are
  cached per kernel and per distinct value set (and in the JIT's memory/disk cache, keyed on
  the program's source key and the values); or
* **emulates** them: fills the buffer (the blob with the set values copied in at each
  constant's offset) and passes its address as the kernel's trailing argument.

Nothing here imports xDSL: a warm disk-cache hit must not pay for it. The code lives in
``abi/spec_types.py`` (the type model ``Scalar``, ``Struct``, ``Array``, ``Vector`` that
``lower-spec-constants`` lays the buffer out with, mirroring LLVM's host data layout; values
<-> bytes), ``spec_table.py`` (a program's table and its cache) and ``spec_state.py`` (values
and specializations per launch); this module is their public face.

Buffer layout and descriptors (the "SYCL/specialization constants" property set, written by
``lower-spec-constants``, whose docstring has the two forms, ``padding=dpcpp|gaps``):

* constants sit in ascending numeric id order (= order of first use), each taking its store
  size (a vector without its tail padding), aligned to its type in emulated mode (and always
  in the ``gaps`` form);
* a constant's descriptors are its scalar leaves, depth first, ``(leaf id, offset in the value,
  size)``, plus **padding descriptors** ``(PADDING_ID, offset, size)``: sycl-post-link's form
  has one per struct tail padding and, in emulated mode, one for the gap before the *next*
  constant (appended at the end of this one); the ``gaps`` form one per gap;
* a constant's offset is the sum of the sizes of the constants with smaller ids, a size being
  the larger of its store size and the end of its last descriptor (the reference runtime's
  rule; ``spec_types.footprint``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xmux.abi.spec_types import (
        BUFFER_ALIGNMENT,
        DEFAULT_VALUES_SET,
        GLOBAL_PREFIX,
        PADDING_FORMS,
        PADDING_ID,
        PROPERTY_SET,
        SCALARS,
        Array,
        Path,
        Placed,
        Scalar,
        SpecConstantError,
        SpecType,
        Struct,
        Vector,
        align_of,
        children,
        decode,
        descriptors,
        encode,
        field_offsets,
        footprint,
        layout,
        leaves,
        llvm_literal,
        llvm_type,
        num_leaves,
        size_of,
        store_size,
        type_from_json,
        type_to_json,
        undef_members,
    )
    from xmux.runtime.spec_state import LaunchTarget, SpecState
    from xmux.runtime.spec_table import (
        KernelSpecUse,
        SpecConstant,
        SpecTable,
        _tables,
        aligned_buffer,
        collect,
        prop_byte_array,
        prop_text,
        save_table,
        value_set_key,
    )

#: where each re-exported name lives: imported on first use (PEP 562), so a program without
#: specialization constants (a warm start, most of all) loads none of the three modules
_HOMES = {
    "xmux.abi.spec_types": (
        "BUFFER_ALIGNMENT DEFAULT_VALUES_SET GLOBAL_PREFIX PADDING_FORMS PADDING_ID "
        "PROPERTY_SET SCALARS Array Path Placed Scalar SpecConstantError SpecType Struct "
        "Vector align_of children decode descriptors encode field_offsets footprint layout "
        "leaves llvm_literal llvm_type num_leaves size_of store_size type_from_json "
        "type_to_json undef_members"
    ),
    "xmux.runtime.spec_state": "LaunchTarget SpecState",
    "xmux.runtime.spec_table": (
        "KernelSpecUse SpecConstant SpecTable _tables aligned_buffer collect prop_byte_array "
        "prop_text save_table value_set_key"
    ),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names.split()}


def __getattr__(name: str) -> object:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next access is a plain global
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})


def load_table(key: str, cache_dir: os.PathLike[str] | str | None) -> SpecTable | None:
    """The table of the program compiled under ``key`` (memory, then ``cache_dir``), or None.
    Without a table in memory or on disk, ``spec_table`` is not imported."""
    import sys

    loaded = sys.modules.get("xmux.runtime.spec_table")
    if loaded is None:
        from xmux.runtime.spec_paths import table_path

        if cache_dir is None or not os.path.exists(table_path(cache_dir, key)):
            return None
        from xmux.runtime import spec_table as loaded
    return loaded.load_table(key, cache_dir)  # type: ignore[no-any-return]


__all__ = [
    "BUFFER_ALIGNMENT",
    "BUFFER_ARG_NAME",
    "DEFAULT_VALUES_SET",
    "GLOBAL_PREFIX",
    "PADDING_FORMS",
    "prop_byte_array",
    "prop_text",
    "Placed",
    "layout",
    "undef_members",
    "PADDING_ID",
    "Path",
    "footprint",
    "PROPERTY_SET",
    "SCALARS",
    "Array",
    "Collector",
    "KernelSpecUse",
    "LaunchTarget",
    "Scalar",
    "SpecConstant",
    "SpecConstantError",
    "SpecState",
    "SpecTable",
    "SpecType",
    "Struct",
    "Vector",
    "_tables",
    "align_of",
    "aligned_buffer",
    "children",
    "collect",
    "decode",
    "descriptors",
    "encode",
    "field_offsets",
    "launch_info",
    "leaves",
    "llvm_literal",
    "llvm_type",
    "load_table",
    "may_have_markers",
    "num_leaves",
    "reject_values",
    "save_table",
    "size_of",
    "store_size",
    "type_from_json",
    "type_to_json",
    "value_set_key",
]


# ---------------------------------------------------------------------------------------
# Helpers for xmux.api
# ---------------------------------------------------------------------------------------


class Collector:
    """``run_pipeline`` observer: reads the records right after ``lower-spec-constants``."""

    def __init__(self) -> None:
        self.table: SpecTable | None = None
        #: leaf globals convert-spec-to-llvm defined (with their defaults) instead of declaring
        self.defined_leaves: list[str] = []

    def __call__(self, pass_: object, module: object) -> None:
        name = getattr(pass_, "name", None)
        if name == "lower-spec-constants":
            from xmux.runtime.spec_table import collect

            self.table = collect(
                module, getattr(pass_, "mode", "native"), getattr(pass_, "padding", "dpcpp")
            )
        elif name == "convert-spec-to-llvm":
            from xdsl.dialects import llvm

            from xmux.abi.spec_types import GLOBAL_PREFIX

            self.defined_leaves = [
                g.sym_name.data
                for g in module.ops  # type: ignore[attr-defined]
                if isinstance(g, llvm.GlobalOp)
                and g.sym_name.data.startswith(GLOBAL_PREFIX)
                and g.value is not None
            ]


def may_have_markers(text: str) -> bool:
    """Whether MLIR text can contain specialization-constant markers (custom or generic)."""
    return "spec.get_" in text


#: name of the hidden trailing argument (emulated mode) in launch metadata
BUFFER_ARG_NAME = "spec_constants_buffer"


def launch_info(info: object) -> object:
    """The kernel metadata with the emulated buffer's address appended as a 64-bit scalar (an
    ``!llvm.ptr`` field of the packed struct has the size and alignment of a ``uint64``)."""
    import dataclasses

    from xmux.abi.kernel_layout import ArgInfo

    return dataclasses.replace(
        info,  # type: ignore[type-var]
        args=[*info.args, ArgInfo(BUFFER_ARG_NAME, "scalar", "uint64")],  # type: ignore[attr-defined]
    )


def reject_values(where: str, call_values: object) -> None:
    """Values given for a program without specialization constants."""
    if call_values:
        from xmux.abi.spec_types import SpecConstantError

        names = ", ".join(repr(k) for k in call_values) if isinstance(call_values, Mapping) else ""
        raise SpecConstantError(
            f"{where}: unknown specialization constant(s) {names} (this program has none)"
        )
