"""Shared test set-up: every test gets its own on-disk kernel cache directory, and the IR is
verified after every pass of a compile (the default verifies input and output only)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("XMUX_VERIFY_EACH", "1")  # child processes of the tests inherit it
# launches build variants and specializations themselves, as the tests that count them expect
# (tests/test_tiered.py turns it off: the background builds of runtime/tiered.py)
os.environ.setdefault("XMUX_SYNC_BUILDS", "1")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "xmux-cache"))
