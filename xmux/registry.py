"""Where xmux's dialects and passes are found (shared by xmux-opt, the universe and the API).

Passes come from the table of ``xmux/pass_table.py`` (name → module and class), so a pass's
module is imported only when a pipeline names it; ``_discover_passes`` imports every module of
``transforms/`` and ``lowering/`` to find the ``ModulePass`` subclasses, for the test that
checks the table and for ``--help``.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import pkgutil
from collections.abc import Callable, Iterable
from functools import cache

from xdsl.context import Context
from xdsl.ir import Dialect
from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType

from xmux.dialects import xdsl_compat
from xmux.errors import XmuxError
from xmux.pass_table import PASSES, pass_path

# xDSL's memref / scf / vector as upstream writes them, before any context loads them; the acc
# patches are applied when a context loads acc (xmux/universe.py)
xdsl_compat.apply()

#: dialect name → "module:attribute" of the Dialect object
_DIALECTS: dict[str, str] = {
    "mux": "xmux.dialects.mux:Mux",
    "spec": "xmux.dialects.spec:Spec",
    "oacc": "xmux.dialects.oacc:OACC",
    "xmux": "xmux.dialects.target:Xmux",
}

#: xDSL dialects that xmux replaces by wider ones of the same name (upstream syntax xDSL 0.74
#: parses only in the generic form): registered in place of xDSL's in ``make_context``.
_OVERRIDES: dict[str, str] = {
    "gpu": "xmux.dialects.gpu:GPU",
    "llvm": "xmux.dialects.llvm:LLVM",
}

_PASS_PACKAGES = ("xmux.transforms", "xmux.lowering")


def _load(path: str) -> Dialect:
    module, attr = path.split(":")
    return getattr(importlib.import_module(module), attr)


def _available(path: str) -> bool:
    module = path.split(":")[0]
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    return {name: (lambda p=path: _load(p)) for name, path in _DIALECTS.items() if _available(path)}


@cache
def _discover_passes() -> dict[str, type[ModulePass]]:
    found: dict[str, type[ModulePass]] = {}
    for pkg_name in _PASS_PACKAGES:
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.iter_modules(pkg.__path__):
            if info.ispkg:
                continue
            module = importlib.import_module(f"{pkg_name}.{info.name}")
            for obj in vars(module).values():
                if (
                    inspect.isclass(obj)
                    and issubclass(obj, ModulePass)
                    and obj.__module__ == module.__name__
                    and isinstance(getattr(obj, "name", None), str)
                ):
                    found[obj.name] = obj
    return found


def _load_pass(name: str) -> type[ModulePass]:
    module, cls = pass_path(name)
    return getattr(importlib.import_module(module), cls)


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name → factory of its class; a factory imports the pass's module on first call."""
    return {name: (lambda n=name: _load_pass(n)) for name in PASSES}


@cache
def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass a pipeline may name (``xmux-opt -p``, ``pipeline="..."``, ``pipelines``):
    xDSL's and every ``xdsl.universe`` plugin's, xmux's table taking precedence for its names.
    Factories only: no pass module is imported until a pipeline names the pass."""
    from xdsl.universe import Universe

    return {**Universe.get_multiverse().all_passes, **get_all_passes()}


def unknown_pass(name: str, known: Iterable[str]) -> XmuxError:
    """The error for a pass name no registry knows: the name, and the closest known one."""
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return XmuxError(f"unknown pass '{name}'{hint}")


def pass_class(name: str) -> type[ModulePass]:
    """The class of the pass ``name`` (xmux's, xDSL's or a plugin's)."""
    passes = all_passes()
    if name not in passes:
        raise unknown_pass(name, passes)
    return passes[name]()


def parse_pipeline(text: str, callback: PassPipelineCallbackType | None = None) -> PassPipeline:
    """The ``PassPipeline`` of a textual pipeline over ``all_passes()``; an unknown name is an
    ``XmuxError`` naming it (and the closest known name), other faults xDSL's exceptions."""
    from xdsl.utils.arg_spec import parse_pipeline as parse_specs

    passes = all_passes()
    for spec in parse_specs(text):
        if spec.name not in passes:
            raise unknown_pass(spec.name, passes)
    return PassPipeline.parse_spec(passes, text, callback)


@cache
def _dialect_factories() -> dict[str, Callable[[], Dialect]]:
    """Dialect name → factory: every ``xdsl.universe`` plugin's, xmux's overrides in place
    of xDSL's. Read once per process: the entry-point scan behind it cost ~3-5 ms, and every
    compile makes two contexts (parse, passes)."""
    from xdsl.universe import Universe

    factories = dict(Universe.get_multiverse().all_dialects)
    factories.update({name: (lambda p=path: _load(p)) for name, path in _OVERRIDES.items()})
    return factories


def register_dialects(ctx: Context) -> None:
    """Register (lazily) xDSL's and xmux's dialects, xmux's overrides in place of xDSL's."""
    for name, factory in _dialect_factories().items():
        ctx.register_dialect(name, factory)


def make_context(allow_unregistered: bool = False) -> Context:
    """A context with xDSL's dialects and xmux's dialects registered (lazily)."""
    ctx = Context(allow_unregistered=allow_unregistered)
    register_dialects(ctx)
    return ctx
