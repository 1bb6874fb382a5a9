"""A fixed slice of the mutation fuzzer (``tests/fuzz/mutate.py``, issue 36): mutants of the
examples and of the FileCheck inputs through ``xmux-opt``, ``xmux-run`` and ``xmux.compile``
(forked runs with a timeout) end in success or in a clear error: no traceback, no crash, no
hang. ``bench/fuzz_mutants_2026-12-07.json`` is the campaign this slice comes from."""

from __future__ import annotations

import random

from tests.fuzz import mutate

SEED = 7  # a campaign seed; its first mutants are this test's
N = 32


def test_mutants_get_clear_errors() -> None:
    results = mutate.campaign(SEED, N, jobs=2, out_dir=None, timeout=60.0, log=lambda m: None)
    s = mutate.summarise(results)
    assert s["mutants"] == N
    bad = [sig["first"] for sig in s["signatures"]]
    assert not bad, "\n".join(bad)
    # the slice reaches the passes and the JIT, not only the parser
    assert s["per_tool"]["xmux-opt"].get("ok", 0) >= 4
    assert s["per_tool"]["compile"].get("ok", 0) >= 2
    assert "xmux-run" in s["per_tool"]


def test_mutants_are_deterministic() -> None:
    corpus = mutate.load_corpus()
    vocab = mutate.vocabulary(corpus)
    a = [mutate.make_mutant(3, i, corpus, vocab) for i in range(20)]
    b = [mutate.make_mutant(3, i, corpus, vocab) for i in range(20)]
    assert [(m.source, m.edits, m.text) for m in a] == [(m.source, m.edits, m.text) for m in b]
    assert all(m.edits for m in a)


def test_each_mutation_changes_a_typical_file() -> None:
    text = next(f.text for f in mutate.load_corpus() if f.path == "examples/saxpy.mlir")
    vocab = mutate.vocabulary(mutate.load_corpus())
    for name, fn in mutate.MUTATIONS.items():
        outs = {fn(random.Random(i), text, vocab) for i in range(10)}
        assert any(o is not None and o != text for o in outs), name


def test_outcomes_are_classified() -> None:
    tb = 'Traceback (most recent call last):\n  File "/x/transforms/p.py", line 3, in f\n' \
         "KeyError: 'a'\n"
    assert mutate.classify("xmux-opt", 1, tb, 0.1).status == "TRACEBACK"
    assert mutate.classify("xmux-opt", 1, tb, 0.1).signature == \
        "xmux-opt|TRACEBACK|KeyError|p.py:f"
    assert mutate.classify("xmux-run", -11, "", 0.1).status == "CRASH"
    assert mutate.classify("compile", None, "", 20.0).status == "HANG"
    assert mutate.classify("compile", 1, "", 0.1).status == "SILENT"
    assert mutate.classify("compile", 1, "error: cannot parse x.mlir:1:2", 0.1).status == \
        "error"
