"""Program binaries: ``prog.save(path)`` / ``xmux.load(path)`` (docs/architecture.md,
"Program binaries"). Loads run in fresh processes, which must not import xDSL."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import xmux
from xmux.runtime import binary

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(EXAMPLES))
import run_demo  # noqa: E402 - the examples' expected results


def _child(code: str, *args: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter (``sys.argv[1:]``: ``args``)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args],
                          capture_output=True, text=True, check=False, cwd=ROOT)


NO_XDSL = "assert not [m for m in sys.modules if m.split('.')[0] == 'xdsl'], 'xDSL imported'"


@pytest.mark.parametrize("name", list(run_demo.EXAMPLES))
def test_example_round_trip_runs_without_xdsl(tmp_path, name):
    path = tmp_path / f"{name}.xmux"
    xmux.compile(EXAMPLES / f"{name}.mlir").save(path)
    proc = _child(f"""
        import sys, xmux
        prog = xmux.load(sys.argv[1])
        prog.run_main()
        sys.stdout.flush()
        {NO_XDSL}
    """, str(path))
    assert proc.returncode == 0, proc.stderr
    got = run_demo.parse_memref(proc.stdout)
    np.testing.assert_allclose(got, run_demo.EXAMPLES[name](), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["native", "emulated"])
def test_variants_and_spec_constants_round_trip(tmp_path, mode):
    """The local-size variants and value-set specializations built before the save are in
    the file and run as they are: the child compiles nothing (no specialization, no xDSL)."""
    prog = xmux.compile(EXAMPLES / "spec_conv3x3.mlir", spec_constants=mode)
    k = prog["conv3x3"]
    rng = np.random.default_rng(7)
    img = rng.random((24, 32), np.float32)
    coeff = rng.standard_normal((3, 3)).astype(np.float32)
    out = np.zeros_like(img)
    results = []
    for values in ({"coeff_id": coeff}, {"coeff_id": coeff * 2}):
        for _ in range(3):  # the second launch of a local size builds its variant
            k(img, out, global_size=(32, 24), local_size=(8, 4), spec_constants=values)
        results.append(out.copy())
    prog.set_spec_constant("coeff_id", coeff * 3)  # the program's value, saved with it
    k(img, out, global_size=(32, 24), local_size=(8, 4))
    results.append(out.copy())
    path = tmp_path / "conv.xmux"
    prog.save(path, source=False)
    np.save(tmp_path / "img.npy", img)
    np.save(tmp_path / "coeff.npy", coeff)
    np.save(tmp_path / "want.npy", np.stack(results))
    notes, _ = binary.read(path)
    roles = sorted(o["role"] for o in notes["objects"])
    if mode == "emulated":  # one variant serves every value set (the values: an argument)
        assert roles == ["program", "variant"], roles
    else:  # per value set: its plain specialization (first launch, a tuning candidate) and
        # its local-size variant
        assert roles == ["program", "spec", "spec", *["spec-variant"] * 3], roles
    proc = _child(f"""
        import sys, numpy as np, xmux
        d = sys.argv[1]
        prog = xmux.load(d + "/conv.xmux")
        k = prog["conv3x3"]
        img, coeff = np.load(d + "/img.npy"), np.load(d + "/coeff.npy")
        out, got = np.zeros_like(img), []
        for values in ({{"coeff_id": coeff}}, {{"coeff_id": coeff * 2}}):
            for _ in range(3):
                k(img, out, global_size=(32, 24), local_size=(8, 4), spec_constants=values,
                  threads=1)
            got.append(out.copy())
        k(img, out, global_size=(32, 24), local_size=(8, 4), threads=1)  # the saved value
        got.append(out.copy())
        np.testing.assert_array_equal(np.stack(got), np.load(d + "/want.npy"))
        assert prog._spec.specializations == 0, prog._spec.specializations
        {NO_XDSL}
    """, str(tmp_path))
    assert proc.returncode == 0, proc.stderr


_VARIANT_CHILD = """
    import sys, warnings, numpy as np, xmux
    prog = xmux.load(sys.argv[1])
    k = prog["vecadd"]
    a = np.arange(4096, dtype=np.float32)
    c = np.zeros_like(a)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for local in (64, 64, 32, 32, 32):  # 64: saved; 32: not
            k(a, a, c, global_size=4096, local_size=local)
    np.testing.assert_array_equal(c, a + a)
    print(sorted(k._launcher.variants.built), "xdsl" in sys.modules,
          any("built from the source" in str(w.message) for w in caught))
"""


@pytest.mark.parametrize("source", [True, False])
def test_missing_variant_built_only_from_saved_source(tmp_path, source):
    prog = xmux.compile(EXAMPLES / "vecadd.mlir")
    a = np.arange(4096, dtype=np.float32)
    c = np.zeros_like(a)
    for _ in range(2):
        prog["vecadd"](a, a, c, global_size=4096, local_size=64)
    path = tmp_path / "vecadd.xmux"
    prog.save(path, source=source)
    proc = _child(_VARIANT_CHILD, str(path))
    assert proc.returncode == 0, proc.stderr
    if source:  # built (xDSL imported, a warning says so)
        assert proc.stdout.split() == ["[(32,", "1,", "1),", "(64,", "1,", "1)]", "True",
                                       "True"], proc.stdout
    else:  # the generic code runs: nothing built
        assert proc.stdout.split() == ["[(64,", "1,", "1)]", "False", "False"], proc.stdout


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("bin") / "saxpy.xmux"
    xmux.compile(EXAMPLES / "saxpy.mlir").save(path)
    return path


def _rewrite(src: Path, dst: Path, **changes: object) -> Path:
    """``src`` with notes changed and sealed again (a well-formed file that says otherwise)."""
    notes, blobs = binary.read(src)
    for key, value in changes.items():
        if key == "features":
            notes["target"]["features"] = value
        else:
            notes[key] = value
    for entry in notes["objects"]:
        for k in ("offset", "size", "sha256"):
            entry.pop(k)
    binary.write(dst, notes, blobs)
    return dst


@pytest.mark.parametrize("where", [30, -100, -1])  # notes, an object, the digest
def test_damaged_file_is_refused(tmp_path, saved, where):
    data = bytearray(saved.read_bytes())
    data[where] ^= 0x40
    bad = tmp_path / "bad.xmux"
    bad.write_bytes(bytes(data))
    with pytest.raises(xmux.BinaryError, match="damaged"):
        xmux.load(bad)


def test_not_a_binary_is_refused(tmp_path):
    path = tmp_path / "x.xmux"
    path.write_bytes(b"\x7fELF" + bytes(100))
    with pytest.raises(xmux.BinaryError, match="not an xmux program binary"):
        xmux.load(path)


def test_foreign_cpu_is_refused(tmp_path, saved):
    notes, _ = binary.read(saved)
    features = notes["target"]["features"] + ",+xmux-imaginary-feature"
    with pytest.raises(xmux.BinaryError, match="lacks: xmux-imaginary-feature"):
        xmux.load(_rewrite(saved, tmp_path / "foreign.xmux", features=features))
    # the same edit without sealing the file again: damaged
    data = saved.read_bytes()
    old = json.dumps(notes["target"]["features"]).encode()
    edited = data.replace(old, old[:-1] + b",+xmux-imaginary-feature\"", 1)
    (tmp_path / "edited.xmux").write_bytes(edited)
    with pytest.raises(xmux.BinaryError, match="damaged"):
        xmux.load(tmp_path / "edited.xmux")


def test_other_architecture_is_refused():
    target = {"triple": "aarch64-unknown-linux-gnu", "cpu": "neoverse-v2", "features": ""}
    with pytest.raises(xmux.BinaryError, match="built for aarch64"):
        binary.check_cpu(target, "x86_64-unknown-linux-gnu", "znver3", "+avx2", "f")


def test_old_abi_is_refused(tmp_path, saved):
    old = _rewrite(saved, tmp_path / "old.xmux", abi_version=binary.ABI_VERSION - 1)
    with pytest.raises(xmux.BinaryError, match="ABI version 0 .*this xmux runs ABI version 1"):
        xmux.load(old)


def test_notes_are_documented_json(saved):
    notes, blobs = binary.read(saved)
    assert notes["format"] == "xmux-binary" and notes["target"]["name"] == "cpu"
    assert [k["name"] for k in notes["kernels"]] == ["saxpy"]
    assert notes["objects"][0]["role"] == "program" and blobs[0][:4] == b"\x7fELF"
    assert notes["source"] is not None and notes["host"]["kernel_table"] == ["saxpy"]


def test_nvptx_round_trip_keeps_ptx_and_metadata(tmp_path, monkeypatch):
    monkeypatch.setenv("XMUX_NVPTX_ARCH", "sm_80")
    prog = xmux.compile(EXAMPLES / "spec_conv3x3.mlir", target="nvptx")
    prog.set_spec_constant("coeff_id", np.ones((3, 3), np.float32))
    path = tmp_path / "conv.ptx.xmux"
    prog.save(path)
    proc = _child(f"""
        import sys, xmux
        p = xmux.load(sys.argv[1])
        print(p.target, p.arch, list(p.infos), len(p.ptx), p.get_spec_constant("coeff_id"))
        {NO_XDSL}
    """, str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[:4] == ["nvptx", "sm_80", "['conv3x3']", str(len(prog.ptx))]
    assert proc.stdout.count("1.") == 9, proc.stdout


def test_nvptx_binary_launches_on_a_gpu(tmp_path):
    from xmux.runtime import cuda

    if not cuda.available():
        pytest.skip("no CUDA device (CuPy)")
    path = tmp_path / "vecadd.ptx.xmux"
    xmux.compile(EXAMPLES / "vecadd.mlir", target="nvptx").save(path)
    proc = _child(f"""
        import sys, numpy as np, xmux
        p = xmux.load(sys.argv[1])
        a = np.arange(1000, dtype=np.float32)
        c = np.zeros_like(a)
        p["vecadd"](a, a, c, global_size=1000, local_size=100)
        np.testing.assert_array_equal(c, a + a)
        {NO_XDSL}
    """, str(path))
    assert proc.returncode == 0, proc.stderr
