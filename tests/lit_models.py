"""The FileCheck suite "as on" other hosts, as suites of the same lit run (``make test``).

``make test`` runs the tests of tests/filecheck where the host could show (``MODEL_TESTS``)
again under ``XMUX_CPU=znver3``, ``haswell`` and ``skylake-avx512``: the passes read the
module's target, so their output must not change, and kernels run where this host can
execute the model's code. Each model is a lit suite of its own, ``tests/lit_models/<cpu>``,
whose lit.cfg loads tests/filecheck's configuration with ``config.xmux_cpu`` set; its tests
are tests/filecheck's files, selected by ``is_model_test`` (what the Makefile's grep used to
select). All suites of one ``lit`` invocation share one fork server (tests/lit_server.py) and
one pool of workers: no lit start-up, server warm-up and idle tail per model.

The fork server serves every model: a request's environment (its ``XMUX_CPU``) is the
child's, and the server's warm-up sets up no LLVM target (``lit_server.WARM``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import lit.formats

#: the CPU models ``make test`` runs the model tests under (a folder of tests/lit_models each)
MODELS = ("znver3", "haswell", "skylake-avx512")

#: the FileCheck folders of the passes that read the module's target
TARGET_PASS_TESTS = frozenset({
    "attach_target", "add_floating_point_control", "disable_neon_attribute", "expand_math",
    "transfer_kernel_metadata", "work_item_loop_vectorize_hints", "work_item_unroll_and_jam",
    "work_item_loops", "convert_to_llvm", "debug_info"})

#: a test that attaches a target, names one or runs kernels
_NAMES_OR_RUNS_TARGET = re.compile(r"xmux-run|attach-target|xmux\.target|host-runs-target")


def is_model_test(path: str, source_root: str) -> bool:
    """Whether the FileCheck test at ``path`` (under ``source_root``) runs under each model:
    it tests a pass that reads the target, or attaches / names a target or runs kernels."""
    rel = os.path.relpath(path, source_root).split(os.sep)
    if "inputs" in rel[:-1]:
        return False
    if rel[0] in TARGET_PASS_TESTS:
        return True
    with open(path, encoding="utf-8", errors="replace") as f:
        return _NAMES_OR_RUNS_TARGET.search(f.read()) is not None


class ModelTests(lit.formats.ShTest):
    """tests/filecheck's tests that ``is_model_test`` selects, run as ShTest runs them."""

    def getTestsInDirectory(self, testSuite, path_in_suite, litConfig, localConfig):  # noqa: N802, ANN001, ANN201 - lit's names
        for test in super().getTestsInDirectory(testSuite, path_in_suite, litConfig,
                                                localConfig):
            if is_model_test(test.getSourcePath(), testSuite.source_root):
                yield test


_bits: dict[str | None, int] = {}


def vector_bits(model: str | None) -> int:
    """The widest vector register xmux's JIT uses for ``model`` (None: this host), asked of a
    fresh process (the target is set up once per process, from ``XMUX_CPU``)."""
    if model not in _bits:
        env = {k: v for k, v in os.environ.items() if k != "XMUX_CPU"}
        if model is not None:
            env["XMUX_CPU"] = model
        code = "from xmux.runtime import jit; print(jit.host_target().vector_bits)"
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        _bits[model] = int(out.stdout)
    return _bits[model]
