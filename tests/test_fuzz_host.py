"""A fixed slice of the host-program fuzzer (tests/fuzz/host_gen.py, host_harness.py;
``python -m tests.fuzz.host_harness campaign`` for campaigns): random host programs with
several launches over subview windows of reused buffers, host loops and host reads and
writes between launches, every printed buffer compared exactly with numpy; on the GPU too
where there is one (issue 36, item 11)."""

from __future__ import annotations

import pytest

from tests.fuzz import host_gen, host_harness
from xmux.runtime import cuda

SEEDS = [1, 2, 3, 11]
TARGETS = [
    "cpu",
    pytest.param("nvptx", marks=pytest.mark.skipif(not cuda.available(), reason="no CUDA")),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("seed", SEEDS)
def test_host_fuzz_slice(seed: int, target: str) -> None:
    p = host_gen.generate(seed)
    bad = host_harness.compare(p, (target,))
    assert not bad, host_gen.describe(p) + "\n" + "\n".join(bad)


def test_the_model_sees_a_wrong_runtime() -> None:
    """The comparison can fail: a program whose launch is dropped differs from the model."""
    p = host_gen.generate(2)
    text = host_gen.mlir(p)
    first = next(line for line in text.splitlines() if "gpu.launch_func" in line)
    got = host_harness.run(text.replace(first, ""), "cpu")
    assert any((g != w).any() for g, w in zip(got, host_gen.expected(p), strict=True))
