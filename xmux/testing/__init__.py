"""Helpers for testing code built on xmux out of tree: ``xmux.testing.lit`` configures a
plugin package's lit + FileCheck suite to run with xmux's tools (docs/guide/testing-passes.md)."""
