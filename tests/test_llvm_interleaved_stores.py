"""Two stores to one address in one work-item, the second conditional, next to a store of
stride 2 (fuzz seed 1231): LLVM's loop vectorizer grouped the stride-2 stores into one
interleaved store at the place of the last one, after the conditional store, which the
work-item loop's ``llvm.loop.parallel_accesses`` let it do without a dependence check; the
conditional value was overwritten by 0. xmux turns interleaved access groups off
(``runtime/jit.py``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import xmux

SEED1231 = Path(__file__).parent / "fuzz" / "regressions" / "seed1231.mlir"


@pytest.mark.parametrize("threads", [1, None])
def test_conditional_store_after_a_store_to_the_same_address(threads):
    """The second launch of a local size runs the per-local-size variant (constant trip
    count 64: vectorized); both must give the model's answer."""
    k = xmux.compile(SEED1231.read_text(), cache=False).kernel("k1231")
    a = np.arange(64, dtype=np.int32)
    lid = np.arange(64, dtype=np.int64)
    x = np.int64(-12345) * lid  # min(p0, p1) * local id, never equal to p0 = 5
    for _ in range(2):
        out = np.full(128, 99, np.int32)
        k(a, out, 5, -12345, 1, 0, global_size=(64,), local_size=(64,), threads=threads)
        np.testing.assert_array_equal(out[1::2], x.astype(np.int32))
        np.testing.assert_array_equal(out[0::2], 0)
