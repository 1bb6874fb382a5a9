"""Shared test set-up: every test gets its own on-disk kernel cache directory."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "xmux-cache"))
