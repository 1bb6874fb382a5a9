"""Specialization constants end to end: every constant read back exactly by a kernel.

Kernels are generated: each reads its constants with spec.get_scalar / spec.get_composite and
stores every scalar leaf, widened to i64 or f64, into two output arrays; the expectation comes
from the Python values. Every test runs in both modes of ``xmux.compile``: "native" (the kernel
is JIT-specialized for each value set) and "emulated" (a runtime buffer).
"""

from __future__ import annotations

import itertools
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from spec_reader import BOOL, F16, F32, F64, I8, I16, I32, I64, Reader, leaves_of, python_value

import xmux
from xmux.errors import XmuxError
from xmux.runtime import jit, tuning
from xmux.runtime import spec_constants as rt

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
MODES = ["native", "emulated"]

# ---------------------------------------------------------------------------------------
# The examples
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_example_spec_constants_defaults_set_and_changed(mode):
    prog = xmux.compile(EXAMPLES / "spec_constants.mlir", spec_constants=mode)
    k = prog["read_constants"]
    ints, floats = np.zeros(2, np.int32), np.zeros(6, np.float32)

    def run(**kw):
        ints[:] = -1
        floats[:] = np.nan
        k(ints, floats, global_size=1, **kw)
        return ints.tolist(), floats.tolist()

    assert run() == ([42, 1], [3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    prog.set_spec_constant("id_A", (7, (0.5, 0.25)))
    assert run() == ([42, 7], [0.5, 0.25, 5.0, 6.0, 7.0, 8.0])
    vec = np.array([1.5, -2.0, 3.25, 1e-3], np.float32)
    got = run(spec_constants={"id_int": -3, "id_vec": vec})
    assert got == ([-3, 7], [0.5, 0.25, *vec.tolist()])
    # per-call values do not persist; persistent ones change between launches
    assert run() == ([42, 7], [0.5, 0.25, 5.0, 6.0, 7.0, 8.0])
    prog.set_spec_constant("id_A", np.array((2**31 - 1, (-0.0, 1e30)),
                                            dtype=[("x", "i4"), ("n", [("a", "f4"), ("b", "f4")])]))
    big = np.float32(1e30).item()
    assert run() == ([42, 2**31 - 1], [-0.0, big, 5.0, 6.0, 7.0, 8.0])
    assert prog.get_spec_constant("id_A") == (2**31 - 1, (-0.0, big))
    assert run(spec_constants={"id_A": (0, (0, 0))})[0] == [42, 0]


def _conv_reference(img: np.ndarray, coeff: np.ndarray) -> np.ndarray:
    h, w = img.shape
    out = np.zeros((h, w), np.float32)
    for y in range(h):
        for x in range(w):
            acc = np.float32(0)
            for i in range(-1, 2):
                if not 0 <= y + i < h:
                    continue
                for j in range(-1, 2):
                    if 0 <= x + j < w:
                        acc = np.float32(acc + coeff[i + 1, j + 1] * img[y + i, x + j])
            out[y, x] = acc
    return out


@pytest.mark.parametrize("mode", MODES)
def test_example_spec_conv3x3(mode):
    prog = xmux.compile(EXAMPLES / "spec_conv3x3.mlir", spec_constants=mode)
    k = prog["conv3x3"]
    rng = np.random.default_rng(7)
    h, w = 13, 29
    img = rng.random((h, w), np.float32)
    out = np.full((h, w), np.nan, np.float32)
    gauss = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float32) / 16
    k(img, out, global_size=(w, h), local_size=(8, 4))
    np.testing.assert_allclose(out, _conv_reference(img, gauss), rtol=1e-6, atol=1e-6)
    for _ in range(3):
        coeff = rng.standard_normal((3, 3)).astype(np.float32)
        k(img, out, global_size=(w, h), local_size=(7, 3), spec_constants={"coeff_id": coeff})
        np.testing.assert_allclose(out, _conv_reference(img, coeff), rtol=1e-5, atol=1e-5)
    nested = [[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]]  # lists work too
    prog.set_spec_constant("coeff_id", nested)
    k(img, out, global_size=(w, h), local_size=(8, 4))
    np.testing.assert_allclose(
        out, _conv_reference(img, np.array(nested, np.float32)), rtol=1e-5, atol=1e-5
    )


def test_examples_run_with_defaults_through_xmux_run():
    for name, want in (
        ("spec_constants", [3.0, 4.0, 5.0, 6.0, 7.0, 8.0]),
        ("spec_conv3x3", None),
    ):
        proc = subprocess.run(
            [sys.executable, "-P", "-c", "import sys; from xmux.cli import run_main; "
             "sys.exit(run_main())", str(EXAMPLES / f"{name}.mlir")],
            capture_output=True, text=True, check=False,
        )
        assert proc.returncode == 0, proc.stderr
        values = [float(v) for v in proc.stdout.split("data =")[1].replace("[", " ").replace(
            "]", " ").replace(",", " ").split()]
        if want is None:
            yy, xx = np.meshgrid(np.arange(20), np.arange(24), indexing="ij")
            img = ((xx * yy) % 11).astype(np.float32)
            gauss = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], np.float32) / 16
            want = _conv_reference(img, gauss).ravel().tolist()
        np.testing.assert_allclose(values, want, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------
# Layouts, padding, orders, nesting
# ---------------------------------------------------------------------------------------

PADDED = {
    "cd": (rt.Struct((I8, F64)), (1, 2.5)),
    "dc": (rt.Struct((F64, I8)), (-3.5, 4)),
    "cic": (rt.Struct((I8, I32, I8)), (5, -6, 7)),
    "c": (I8, 9),
    "after_c": (rt.Struct((F64,)), (0.125,)),  # head padding of 7 bytes before it
}


PAD = rt.PADDING_ID


@pytest.mark.parametrize("padding", ["dpcpp", "gaps"])
@pytest.mark.parametrize("mode", MODES)
def test_padded_structs_defaults_set_and_changed(mode, padding):
    """Both descriptor forms, both modes: sycl-post-link's (a padding descriptor for a struct's
    tail only; the gap before the next constant in emulated mode only, native packs) and xmux's
    per-gap form (every gap, both modes): the values read back are the same."""
    r = Reader(PADDED, mode, padding)
    consts = r.prog.spec_constants
    desc = {sid: c.descriptors for sid, c in consts.items()}
    if padding == "gaps":
        assert [c.offset for c in consts.values()] == [0, 16, 32, 44, 48]
        assert desc["c"] == [(7, 0, 1), (PAD, 1, 3)]  # head padding of after_c
        assert desc["cic"] == [(4, 0, 1), (PAD, 1, 3), (5, 4, 4), (6, 8, 1), (PAD, 9, 3)]
        assert desc["cd"] == [(0, 0, 1), (PAD, 1, 7), (1, 8, 8)]
    else:
        offsets = [0, 16, 32, 44, 48] if mode == "emulated" else [0, 16, 32, 44, 45]
        assert [c.offset for c in consts.values()] == offsets
        assert desc["c"] == ([(7, 0, 1), (PAD, 1, 3)] if mode == "emulated" else [(7, 0, 1)])
        assert desc["cic"] == [(4, 0, 1), (5, 4, 4), (6, 8, 1), (PAD, 9, 3)]
        assert desc["cd"] == [(0, 0, 1), (1, 8, 8)]
    assert desc["dc"] == [(2, 0, 8), (3, 8, 1), (PAD, 9, 7)]
    assert len(r.prog.property_sets[rt.DEFAULT_VALUES_SET]["all"]) == offsets_end(consts)
    r.check({})
    first = {"cd": (-128, -1e300), "dc": (float("inf"), 127), "cic": (-1, 2**31 - 1, -2)}
    for sid, v in first.items():
        r.prog.set_spec_constant(sid, v)
    r.check(first)
    second = {"cd": (0, 0.0), "c": -7, "after_c": (3.0,)}
    r.check({**first, **second}, spec_constants=second)
    r.prog.set_spec_constant("cic", (0, 0, 0))
    r.check({**first, "cic": (0, 0, 0)})


def offsets_end(consts: dict[str, rt.SpecConstant]) -> int:
    last = list(consts.values())[-1]
    return last.offset + rt.footprint(last.type, last.descriptors)


ORDERED = {
    "a": (I8, 1),
    "b": (I8, 2),
    "c": (I8, 3),
    "s": (rt.Struct((F32, I32, I8)), (0.5, 6, 7)),
}
NEW = {"a": -11, "b": 22, "c": -33, "s": (-1.25, 123456, -8)}


@pytest.mark.parametrize("mode", MODES)
def test_all_24_orders_of_setting(mode):
    """Set three char constants and a {float, int, char} struct in every order, launching after
    each set: exactly the ones set so far read their new values."""
    r = Reader(ORDERED, mode)
    for order in itertools.permutations(NEW):
        prog = r.prog
        for sid in ORDERED:
            prog.set_spec_constant(sid, ORDERED[sid][1])
        done: dict[str, object] = {}
        for sid in order:
            prog.set_spec_constant(sid, NEW[sid])
            done[sid] = NEW[sid]
            r.check(done)
    if mode == "native":  # per distinct subset of set constants, at most: its local-size
        # variant and its plain specialization (the variant tuner's generic candidate)
        assert r.prog._spec.specializations <= 2 * 2 ** len(NEW)


NESTED = {
    "flag": (BOOL, True),
    "h": (F16, 1.5),
    "big": (I64, -(2**62)),
    "deep": (
        rt.Struct((I32, rt.Struct((F32, rt.Array(2, I16))), rt.Vector(3, F32))),
        (1, (2.0, (3, 4)), (5.0, 6.0, 7.0)),
    ),
    "arr": (rt.Array(2, rt.Struct((I8, rt.Vector(2, F64)))), ((1, (2.0, 3.0)), (4, (5.0, 6.0)))),
    "vec": (rt.Vector(4, I32), (10, 20, 30, 40)),
    "A": (rt.Struct((I32, rt.Struct((F32, F32)))), (1, (3.0, 4.0))),
}


@pytest.mark.parametrize("mode", MODES)
def test_nested_composites_vectors_and_small_scalars(mode):
    r = Reader(NESTED, mode)
    r.check({})
    values = {
        "flag": False,
        "h": np.float16(-0.333),
        "big": 2**63 - 1,
        "deep": (-1, (np.float32(0.1), np.array([-5, 6], np.int16)), np.array([1, 2, 3], "f4")),
        "arr": [(7, [8.5, -9.5]), (-10, np.array([11.0, 12.0]))],
        "vec": np.arange(4, dtype=np.int32) - 2,
        "A": (-4, (np.float32(2.5), 1)),
    }
    for sid, v in values.items():
        r.prog.set_spec_constant(sid, v)
    r.check({sid: python_value(NESTED[sid][0], v) for sid, v in values.items()})
    raw = rt.encode(NESTED["A"][0], (9, (0.75, -0.5)))  # composites may be given as bytes
    r.check({**{sid: python_value(NESTED[sid][0], v) for sid, v in values.items()},
             "A": (9, (0.75, -0.5))}, spec_constants={"A": raw})


def test_reference_property_sets_and_blob():
    """The reference's section-3 example: ids {0}, {1,2,3}, {4,5}; the blob is the bytes of
    [42, 1, 3.0, 4.0, 5.0, 6.0]."""
    consts = {
        "id_int": (I32, 42),
        "id_A": (rt.Struct((I32, rt.Struct((F32, F32)))), (1, (3.0, 4.0))),
        "id_Nested": (rt.Struct((F32, F32)), (5.0, 6.0)),
    }
    for mode in MODES:
        r = Reader(consts, mode)
        sets = r.prog.property_sets
        assert sets[rt.PROPERTY_SET] == {
            "id_int": [(0, 0, 4)],
            "id_A": [(1, 0, 4), (2, 4, 4), (3, 8, 4)],
            "id_Nested": [(4, 0, 4), (5, 4, 4)],
        }
        assert sets[rt.DEFAULT_VALUES_SET]["all"] == struct.pack("<iiffff", 42, 1, 3, 4, 5, 6)
        assert [c.offset for c in r.prog.spec_constants.values()] == [0, 4, 16]
        assert r.prog.spec_constants_mode == mode


# ---------------------------------------------------------------------------------------
# JIT specialization
# ---------------------------------------------------------------------------------------

SCALE = """
spec.specialization_id @scale_default = 2.0 : f32
spec.specialization_id @unused = 5 : i32
func.func @scale(%x: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %s = spec.get_scalar "scale", @scale_default : f32
  %v = memref.load %x[%i] : memref<?xf32>
  %r = arith.mulf %v, %s : f32
  memref.store %r, %x[%i] : memref<?xf32>
  func.return
}
func.func @other(%x: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %u = spec.get_scalar "unused", @unused : i32
  memref.store %u, %x[%c0] : memref<?xi32>
  func.return
}
"""


def test_jit_specialization_is_cached_per_value_set():
    prog = xmux.compile(SCALE, cache=False, specialize=False)  # no local-size variants here
    k = prog["scale"]
    x = np.ones(64, np.float32)
    state = prog._spec
    k(x, global_size=64)
    assert state.specializations == 0  # the defaults are the program's own code
    np.testing.assert_array_equal(x, 2.0)
    for s, n in ((3.0, 1), (0.5, 2), (3.0, 2), (2.0, 2), (0.5, 2)):
        x[:] = 1
        k(x, global_size=64, spec_constants={"scale": s})
        np.testing.assert_array_equal(x, s)
        assert state.specializations == n
    # a constant the kernel does not read: accepted, ignored, no re-specialization
    x[:] = 1
    k(x, global_size=64, spec_constants={"unused": 77})
    np.testing.assert_array_equal(x, 2.0)
    assert state.specializations == 2
    prog.set_spec_constant("unused", 77)
    out = np.zeros(1, np.int32)
    prog["other"](out, global_size=1)
    assert out[0] == 77


@pytest.mark.parametrize("mode", MODES)
def test_values_with_local_size_variants(mode):
    """From the second uniform launch with one local size the kernel runs as a variant
    specialized on that size; in native mode the variant is specialized per value set too."""
    prog = xmux.compile(SCALE, cache=False, spec_constants=mode)
    k = prog["scale"]
    x = np.ones(256, np.float32)
    for i, s in enumerate([2.0, 3.0, 3.0, -1.5, 2.0, 0.25, -1.5]):
        x[:] = 1
        k(x, global_size=256, local_size=64, spec_constants={"scale": s})
        np.testing.assert_array_equal(x, s, err_msg=f"launch {i}")
    variants = prog["scale"]._launcher.variants.built
    assert (variants.get((64, 1, 1), 0) is not None) == (mode == "emulated")
    if mode == "native":  # launch 1: the program's own code (defaults); then one variant
        # per distinct value set: 3.0, -1.5, 2.0, 0.25; where the generic candidate is the
        # tuner's second build (no 512-bit vectors), the second launches of 3.0 and -1.5
        # specialize the plain program for them too
        generic_second = tuning.variant_builds().index("generic") == 1
        assert prog._spec.specializations == 4 + 2 * generic_second


def test_specialized_variants_are_tuned_per_value_set():
    """A JIT-specialized variant picks its build as an emulated one does: each value set's
    variant samples its builds and the value set's plain specialization, and every sample
    computes the exact values."""
    prog = xmux.compile(SCALE, cache=False)
    k = prog["scale"]
    x = np.ones(256, np.float32)
    builds = tuning.variant_builds()
    values = [3.0] * (1 + tuning.launches_to_settle(len(builds))) + [0.5, 0.5]
    for i, s in enumerate(values):
        x[:] = 1
        k(x, global_size=256, local_size=64, spec_constants={"scale": s})
        np.testing.assert_array_equal(x, s, err_msg=f"launch {i}")
    tuners = prog._spec._variant_entries
    assert len(tuners) == 2 and all(isinstance(t, tuning.BuildTuner) for t in tuners.values())
    by_value = {t.sampling for t in tuners.values()}
    assert by_value == {False, True}  # 3.0 settled; 0.5 (two launches so far) still sampling
    # launch 0: the whole program for 3.0 (the generic candidate of 3.0's tuner); 2 variants;
    # and 0.5's generic candidate where it is the tuner's second build
    assert prog._spec.specializations == 3 + (builds.index("generic") < 2)


def test_jit_specialization_folds_the_values():
    prog = xmux.compile(SCALE, cache=False)
    table = prog._spec.table
    buf = table.buffer_bytes({"scale": table.encode_value("scale", 0.375)})
    template, link = table.specialize(buf)
    assert table.optimized  # specializations start from the once-optimized template
    # the template declares the leaf; the values module, built from the typed value, defines it
    assert re.search(r'^@"?xmux.spec_constant.0"? = external (\w+ )*constant float', template,
                     re.M)
    assert link[0].startswith('@"xmux.spec_constant.0" = constant float 0x3FD8000000000000\n')
    opt = jit.optimized_ir(template, link=link)
    assert "xmux.spec_constant" not in opt  # the global is gone: its loads were folded
    assert "3.750000e-01" in opt  # the multiplier is a literal


def test_the_template_leaves_vectorization_to_each_specialization():
    """The template gets O3's scalar work once (jit.SCALAR_ONLY); the loops are vectorized
    and unrolled per value set, knowing the values (bench/spec_conv.py: an image width as a
    constant, divisions by it vectorized, 0.29x -> 0.21x the emulated kernel's time)."""
    prog = xmux.compile(SCALE, cache=False)
    table = prog._spec.table
    buf = table.buffer_bytes({"scale": table.encode_value("scale", 0.375)})
    template, link = table.specialize(buf)
    vector = re.compile(r"<\d+ x float>")
    assert "define" in template and not vector.search(template)
    assert vector.search(jit.optimized_ir(template, link=link))


def test_jit_specialization_through_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path))
    first = xmux.compile(SCALE)
    x = np.ones(8, np.float32)
    first["scale"](x, global_size=8, spec_constants={"scale": 4.0})
    jit.clear_memory_cache()
    rt._tables.clear()
    compiled = jit.cache_stats["compiled"]
    again = xmux.compile(SCALE)  # object and table from disk: no xDSL, no LLVM
    assert again.llvm_ir is None
    assert again.spec_constants["scale"].descriptors == [(0, 0, 4)]
    x[:] = 1
    again["scale"](x, global_size=8, spec_constants={"scale": 4.0})  # specialization cached too
    np.testing.assert_array_equal(x, 4.0)
    assert jit.cache_stats["compiled"] == compiled
    x[:] = 1
    again["scale"](x, global_size=8, spec_constants={"scale": -1.0})
    np.testing.assert_array_equal(x, -1.0)
    assert jit.cache_stats["compiled"] == compiled + 1


# ---------------------------------------------------------------------------------------
# Emulated mode specifics
# ---------------------------------------------------------------------------------------


def test_emulated_buffer_is_a_hidden_trailing_argument():
    prog = xmux.compile(SCALE, spec_constants="emulated", cache=False)
    k = prog["scale"]
    assert [a.name for a in k.info.args] == ["x"]  # the user's signature
    assert prog._spec.table.kernels["scale"].buffer_arg
    assert prog._spec.table.kernels["other"].buffer_arg
    with pytest.raises(XmuxError, match=r"kernel 'scale' takes 1 arguments \(x\), got 2"):
        k(np.ones(4, np.float32), np.ones(4, np.float32), global_size=4)
    x = np.ones(4, np.float32)
    k(x, global_size=4, spec_constants={"scale": -2.0})
    np.testing.assert_array_equal(x, -2.0)
    assert prog._spec.specializations == 0  # one compiled kernel for every value set


# ---------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bad_prog():
    consts = {
        "n": (I32, 1),
        "f": (F32, 1.0),
        "s": (rt.Struct((I8, F64)), (1, 2.0)),
        "a": (rt.Array(3, rt.Array(2, F32)), ((1, 2), (3, 4), (5, 6))),
        "v": (rt.Vector(2, I16), (1, 2)),
        "b": (BOOL, False),
    }
    return Reader(consts, "native")


BAD_VALUES = [
    ("n", "7", r"'n' \(i32\): expected an integer \(i32\), got str '7'"),
    ("n", 1.5, r"'n' \(i32\): expected an integer \(i32\), got float 1.5"),
    ("n", 2**40, r"'n' \(i32\): 1099511627776 does not fit in i32"),
    ("n", True, r"'n' \(i32\): expected an integer \(i32\), got bool True"),
    ("f", None, r"'f' \(f32\): expected a float \(f32\), got NoneType None"),
    ("b", 2, r"'b' \(i1\): expected a bool \(i1\), got int 2"),
    ("s", 5, r"'s' \(!llvm.struct<\(i8, f64\)>\): expected a tuple/list or numpy structured "
     r"scalar with 2 fields"),
    ("s", (1, 2.0, 3), r"has 2 fields, got a value with 3"),
    ("s", (1, "x"), r"'s' \(!llvm.struct<\(i8, f64\)>\).1: expected a float \(f64\), got str"),
    ("s", {"x": 1}, r"expected a tuple/list or numpy structured scalar"),
    ("a", np.zeros((2, 3), np.float32), r"expected shape \(3, 2\) for !llvm.array<3 x "
     r"!llvm.array<2 x f32>>, got \(2, 3\)"),
    ("a", [[1, 2], [3, 4]], r"has 3 elements, got a value with 2"),
    ("a", [[1, 2], [3, 4], [5]], r"\[2\]: !llvm.array<2 x f32> has 2 elements, got a value with 1"),
    ("a", np.array([["a", "b"]] * 3), r"expected numbers for .* got dtype <U1"),
    ("v", [1, 2, 3], r"vector<2xi16> has 2 elements, got a value with 3"),
    ("v", np.array([1.0, 2.0]), r"expected integers for vector<2xi16>, got dtype float64"),
    ("v", np.array([1, 70000]), r"values out of range for i16"),
    ("v", b"\x01\x02\x03", r"3 bytes given for vector<2xi16>, which is 4 bytes"),
]


@pytest.mark.parametrize("sid,value,message", BAD_VALUES)
def test_bad_values_are_clear_errors(bad_prog, sid, value, message):
    with pytest.raises(XmuxError, match=message):
        bad_prog.prog.set_spec_constant(sid, value)
    with pytest.raises(XmuxError, match=message):
        bad_prog.run(spec_constants={sid: value})


def test_unknown_ids_and_misuse(bad_prog):
    prog = bad_prog.prog
    known = r"\(this program has: 'n', 'f', 's', 'a', 'v', 'b'\)"
    with pytest.raises(XmuxError, match=r"unknown specialization constant 'nope' " + known):
        prog.set_spec_constant("nope", 1)
    with pytest.raises(XmuxError, match=r"unknown specialization constant 'nope'"):
        bad_prog.run(spec_constants={"nope": 1})
    with pytest.raises(XmuxError, match=r"unknown specialization constant 3"):
        bad_prog.run(spec_constants={3: 1})
    with pytest.raises(XmuxError, match=r"spec_constants= takes a dict"):
        bad_prog.run(spec_constants=[("n", 1)])
    with pytest.raises(XmuxError, match=r"unknown specialization constant 'nope'"):
        prog.get_spec_constant("nope")
    bad_prog.check({})  # nothing above changed a value


def test_program_without_constants_rejects_values():
    src = (EXAMPLES / "vecadd.mlir").read_text()
    prog = xmux.compile(src)
    assert prog.spec_constants == {} and prog.spec_constants_mode is None
    a = np.ones(4, np.float32)
    with pytest.raises(XmuxError, match=r"kernel 'vecadd': unknown specialization constant\(s\) "
                       r"'x' \(this program has none\)"):
        prog["vecadd"](a, a, a, global_size=4, spec_constants={"x": 1})
    with pytest.raises(XmuxError, match=r"set_spec_constant: unknown specialization "
                       r"constant\(s\) 'x' \(this program has none\)"):
        prog.set_spec_constant("x", 1)


def test_bad_mode_and_marker_errors():
    with pytest.raises(XmuxError, match=r"spec_constants must be one of \('native', 'emulated'\)"):
        xmux.compile(SCALE, spec_constants="spirv")
    bad = SCALE.replace('spec.get_scalar "unused", @unused : i32',
                        'spec.get_scalar "scale", @unused : i32')
    with pytest.raises(XmuxError, match=r'spec.get_scalar "scale": read as i32 here but as f32'):
        xmux.compile(bad, cache=False)
    with pytest.raises(XmuxError, match=r"spec_padding must be one of \('dpcpp', 'gaps'\)"):
        xmux.compile(SCALE, spec_padding="tail")
    with pytest.raises(XmuxError, match=r"spec_padding applies to the default pipeline"):
        xmux.compile(SCALE, pipeline=xmux.pipelines.cpu(), spec_padding="gaps")
    with pytest.raises(XmuxError, match=r"lower-spec-constants: padding must be dpcpp or gaps"):
        xmux.compile(SCALE, pipeline=xmux.pipelines.cpu(spec_padding="every"), cache=False)


FIR = """
spec.specialization_id @ntaps_default = 4 : i32
spec.specialization_id @taps_default = dense<0.25> : vector<8xf32>
func.func @fir(%in: memref<?xf32>, %out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n32 = spec.get_scalar "ntaps", @ntaps_default : i32
  %n = arith.index_cast %n32 : i32 to index
  %taps = spec.get_composite "taps", @taps_default : vector<8xf32>
  %acc = scf.for %k = %c0 to %n step %c1 iter_args(%a = %zero) -> (f32) {
    %w = vector.extract %taps[%k] : f32 from vector<8xf32>
    %j = arith.addi %i, %k : index
    %x = memref.load %in[%j] : memref<?xf32>
    %p = arith.mulf %w, %x : f32
    %s = arith.addf %a, %p : f32
    scf.yield %s : f32
  }
  memref.store %acc, %out[%i] : memref<?xf32>
  func.return
}
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_constant_as_loop_trip_count(mode):
    """A FIR filter's tap count and taps as constants (the count is a loop trip count; emulated,
    that loop is interchanged with the work-item loop: work_item_loop_interchange/
    spec_buffer_bound.mlir): defaults, then other counts, through the plain kernel and its
    local-size variants, equal numpy's sums taken in the same order. On nvptx (this test runs
    there too, tests/test_nvptx_spec.py) ``acc + w * x`` is contracted into one fma, as nvcc
    does by default: each step is then rounded once (the float64 sum of an exact product)."""
    prog = xmux.compile(FIR, cache=False, spec_constants=mode)
    fused = getattr(prog, "target", "cpu") == "nvptx"
    k = prog["fir"]
    n = 1000
    x = np.random.default_rng(4).random(n + 7).astype(np.float32)
    out = np.zeros(n, np.float32)

    def expect(taps: np.ndarray, count: int) -> np.ndarray:
        acc = np.zeros(n, np.float32)
        for t in range(count):
            if fused:
                acc = (acc.astype(np.float64) + np.float64(taps[t]) * x[t : t + n]).astype(
                    np.float32)
            else:
                acc = acc + taps[t] * x[t : t + n]
        return acc

    k(x, out, global_size=n, local_size=8)
    np.testing.assert_array_equal(out, expect(np.full(8, 0.25, np.float32), 4))
    taps = np.arange(1, 9, dtype=np.float32) / 8
    for count in (8, 1, 0, 3, 3, 3, 3, 8):
        k(x, out, global_size=n, local_size=8, spec_constants={"ntaps": count, "taps": taps})
        np.testing.assert_array_equal(out, expect(taps, count), err_msg=f"{count} taps")


# ---------------------------------------------------------------------------------------
# +0.0 defaults (issue 20): native mode kept reading 0.0 after a value was set, because a
# regular expression over the printed template missed llvmlite's padded ``+0.0`` initializer
# and O3 folded it; the template now declares the leaves and each value set is linked in.
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("ft", [F16, F32, F64], ids=["f16", "f32", "f64"])
def test_a_zero_default_float_takes_the_values_set(mode, ft):
    consts = {
        "x": (ft, 0.0),
        "s": (rt.Struct((I32, ft)), (0, 0.0)),
        "a": (rt.Array(2, rt.Struct((ft, I8))), ((0.0, 0), (0.0, 0))),
    }
    r = Reader(consts, mode)
    r.check({})
    values = {"x": 1.5, "s": (3, -2.25), "a": ((0.5, 1), (-4.0, 2))}
    for sid, v in values.items():
        r.prog.set_spec_constant(sid, v)
    r.check(values)
    r.check({**values, "x": 0.75}, spec_constants={"x": 0.75})  # a per-launch value
    # -0.0 is not +0.0: the sign bit arrives (== cannot tell them apart)
    _, floats = r.run(spec_constants={"x": -0.0, "s": (0, 0.0)})
    x_slot = next(s[4] for s in r.slots if s[0] == "x")
    s_slot = next(s[4] for s in r.slots if s[0] == "s" and s[3] == "float")
    assert np.signbit(floats[x_slot]) and floats[x_slot] == 0
    assert not np.signbit(floats[s_slot]) and floats[s_slot] == 0


# ---------------------------------------------------------------------------------------
# Every scalar type and special value, alone and inside nested composites, both modes
# (issue 20): defaults, then set values, then per-launch values over them, compared exactly
# (integers in their signed reading, floats by bit pattern).
# ---------------------------------------------------------------------------------------

_INF, _NAN = float("inf"), float("nan")
SPECIALS: dict[str, tuple[rt.Scalar, list[object]]] = {
    "b": (BOOL, [False, True, 1, 0]),
    "i8": (I8, [-128, 127, 255, -1, 0]),
    "i16": (I16, [-(2**15), 2**15 - 1, 2**16 - 1, 7]),
    "i32": (I32, [-(2**31), 2**31 - 1, 2**32 - 1, 2**31]),
    "i64": (I64, [-(2**63), 2**63 - 1, 2**64 - 1, 2**63]),
    "f16": (F16, [0.0, -0.0, _INF, -_INF, _NAN, 2.0**-24, 65504.0, -65504.0, 2.0**-14]),
    "f32": (F32, [0.0, -0.0, _INF, -_INF, _NAN, 2.0**-149, 3.4028234663852886e38, 2.0**-126]),
    "f64": (F64, [0.0, -0.0, _INF, -_INF, _NAN, 5e-324, 1.7976931348623157e308, -2.2e-308]),
}


def _nested(t: rt.Scalar) -> rt.SpecType:
    """T inside an array of structs inside a struct (padding around it for small T)."""
    return rt.Struct((I8, rt.Array(2, rt.Struct((t, I16))), t))


def _nested_value(x: object, y: object) -> tuple:
    return (5, ((x, 1), (y, 2)), x)


def _bits(t: rt.Scalar, v: object) -> int:
    """What the reader stores for ``v``: i64 (extsi / extui for i1) or f64 (extf) bits."""
    if t.kind == "int":
        if t.bits == 1:
            return int(bool(v))
        u = int(v) % (1 << t.bits)
        return u - (1 << t.bits) if u >> (t.bits - 1) else u
    return int(np.asarray(v, dtype=t.dtype).astype(np.float64).view(np.int64))


def _check_bits(r: Reader, values: dict[str, object], **call) -> None:
    ints, floats = r.run(**call)
    for sid, (t, default) in r.consts.items():
        v = values.get(sid, default)
        slots = [s for s in r.slots if s[0] == sid]
        for (path, leaf, x), slot in zip(leaves_of(t, v), slots, strict=True):
            got = int(ints[slot[4]]) if slot[3] == "int" else int(floats[slot[4]:][:1].view(
                np.int64)[0])
            assert got == _bits(leaf, x), (sid, path, x, hex(got), hex(_bits(leaf, x)))


@pytest.mark.parametrize("mode", MODES)
def test_every_scalar_type_and_special_value(mode):
    defaults = {
        name: (t, vals[0] if t.kind == "int" or vals[0] == vals[0] else 0.0)
        for name, (t, vals) in SPECIALS.items()
    }
    consts = dict(defaults)
    consts.update({f"{name}_in": (_nested(t), _nested_value(d, d))
                   for name, (t, d) in defaults.items()})
    r = Reader(consts, mode)
    _check_bits(r, {})
    rounds = max(len(v) for _, v in SPECIALS.values())
    for k in range(rounds):
        values: dict[str, object] = {}
        for name, (_t, vals) in SPECIALS.items():
            x, y = vals[k % len(vals)], vals[(k + 1) % len(vals)]
            values[name] = x
            values[f"{name}_in"] = _nested_value(x, y)
        for sid, v in values.items():
            r.prog.set_spec_constant(sid, v)
        _check_bits(r, values)
        # per-launch values over the set ones, then the set ones again
        call = {name: vals[(k + 2) % len(vals)] for name, (_t, vals) in SPECIALS.items()}
        _check_bits(r, {**values, **call}, spec_constants=call)
        _check_bits(r, values)
