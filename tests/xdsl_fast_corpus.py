"""xmux's fast paths of xDSL's op builder and verifier (dialects/xdsl_fast.py) against xDSL's
own on a corpus: every input of tests/filecheck (each ``// -----`` split), examples/ and
bench/kernels is parsed with both, and the printed module (or the error) must be identical;
each parsed module is verified with both (same outcome, same message); and the kernel
pipeline runs on the bench kernels with both (same printed llvm-dialect module).

    .venv/bin/python tests/xdsl_fast_corpus.py [--pipeline-only] [FILES...]

Exit status 1 and the differing inputs named on any difference. tests/test_xdsl_fast.py
runs it on a sample; the whole corpus takes about a minute.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def corpus() -> list[Path]:
    files = sorted((ROOT / "tests" / "filecheck").rglob("*.mlir"))
    files += sorted((ROOT / "examples").rglob("*.mlir")) + sorted(
        (ROOT / "bench" / "kernels").glob("*.mlir"))
    return files


def _outcome(fn) -> str:  # noqa: ANN001 - a thunk
    try:
        return "ok:" + str(fn())
    except Exception as e:  # noqa: BLE001 - compared as text
        return f"{type(e).__name__}:{e}"


def _parse(text: str) -> tuple[str, object]:
    from xdsl.parser import Parser
    from xdsl.printer import Printer

    from xmux.registry import make_context

    box: list[object] = []

    def go() -> str:
        module = Parser(make_context(allow_unregistered=True), text).parse_module()
        box.append(module)
        out = io.StringIO()
        Printer(stream=out).print_op(module)
        return out.getvalue()

    return _outcome(go), (box[0] if box else None)


def _verify(module: object) -> str:
    return _outcome(lambda: module.verify())  # type: ignore[attr-defined]


def _pipeline(text: str) -> str:
    from xdsl.printer import Printer

    from xmux import pipelines
    from xmux.runtime.jit import host_target
    from xmux.stages import parse, run_pipeline

    def go() -> str:
        module = parse(text)
        run_pipeline(module, pipelines.complete(pipelines.cpu(), host_target()))
        out = io.StringIO()
        Printer(stream=out).print_op(module)
        return out.getvalue()

    return _outcome(go)


#: the patches of dialects/xdsl_compat.py that only make xDSL faster
SPEED_PATCHES = ("irdl_fast_paths", "irdl_constraint_cache", "builtin_type_cache",
                 "mlir_lexer_fast_tokens")


@contextmanager
def xdsl_own() -> Iterator[None]:
    """xDSL without xmux's speed patches (its own builder, verifier and constraints)."""
    from xmux.dialects.xdsl_compat import unpatched

    with ExitStack() as stack:
        for name in SPEED_PATCHES:
            stack.enter_context(unpatched(name))
        yield


def compare(files: list[Path], pipeline: bool = True, parse: bool = True) -> list[str]:
    """The inputs of ``files`` on which the fast paths and xDSL's own differ."""
    import xmux.registry  # noqa: F401 - applies the patches

    diffs = []
    for path in files:
        text = path.read_text()
        if parse:
            for i, chunk in enumerate(text.split("// -----")):
                fast, fast_mod = _parse(chunk)
                with xdsl_own():
                    slow, slow_mod = _parse(chunk)
                    slow_v = _verify(slow_mod) if slow_mod is not None else ""
                fast_v = _verify(fast_mod) if fast_mod is not None else ""
                if fast != slow or fast_v != slow_v:
                    diffs.append(f"{path.relative_to(ROOT)} (split {i})")
        if pipeline:
            fast = _pipeline(text)
            with xdsl_own():
                slow = _pipeline(text)
            if fast != slow:
                diffs.append(f"{path.relative_to(ROOT)} (pipeline)")
    return diffs


def main() -> None:
    args = sys.argv[1:]
    only_pipeline = "--pipeline-only" in args
    named = [Path(a).resolve() for a in args if not a.startswith("--")]
    files = named or corpus()
    # the pipeline on the files named, else on the bench kernels
    piped = named or [f for f in files if f.parent == ROOT / "bench" / "kernels"]
    diffs = [] if only_pipeline else compare(files, pipeline=False)
    diffs += compare(piped, parse=False)
    print(f"{len(files)} files: {len(diffs)} differences")
    for d in diffs:
        print("  differs:", d)
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
