"""abi/lazy_import.py: a module named by ``lazy_module`` is imported at its first attribute
read, once, also when threads read it at the same time."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from xmux.abi.lazy_import import has_dialect_ops, lazy_module


def _run(code: str) -> str:
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.strip()


def test_the_module_is_imported_at_the_first_attribute_read():
    out = _run("""
        import sys
        from xmux.abi.lazy_import import lazy_module
        m = lazy_module("xdsl.dialects.acc")
        print("xdsl.dialects.acc" in sys.modules, repr(m))
        op = m.ParallelOp
        print("xdsl.dialects.acc" in sys.modules, op.name, repr(m))
    """)
    before, after = out.splitlines()
    assert before == "False <lazy module 'xdsl.dialects.acc' (not imported yet)>"
    assert after == "True acc.parallel <lazy module 'xdsl.dialects.acc' (imported)>"


def test_threads_reading_at_once_see_the_whole_module():
    out = _run("""
        import threading
        from xmux.abi.lazy_import import lazy_module
        m = lazy_module("xmux.dialects.oacc")
        seen, start = [], threading.Barrier(8)
        def read():
            start.wait()
            seen.append(m.ReductionRecipeOp.name)
        ts = [threading.Thread(target=read) for _ in range(8)]
        for t in ts: t.start()
        for t in ts: t.join()
        print(sorted(set(seen)), len(seen))
    """)
    assert out == "['oacc.reduction_recipe'] 8"


def test_a_missing_attribute_is_an_attribute_error_naming_it():
    m = lazy_module("xmux.errors")
    try:
        m.NoSuchThing  # noqa: B018
    except AttributeError as e:
        assert "NoSuchThing" in str(e)
    else:
        raise AssertionError("no AttributeError")


def test_has_dialect_ops_looks_by_name():
    from xmux.api import parse

    module = parse("func.func @f(%a: memref<?xf32>) {\n  func.return\n}\n")
    assert has_dialect_ops(module, "func")
    assert not has_dialect_ops(module, "acc", "gpu")
