"""The bad-input catalogue (issue 13): inputs that once crashed the process, hung it or
answered wrongly in silence, each with the behaviour a user expects. Rows covered in other
files are listed at the end."""

from __future__ import annotations

import numpy as np
import pytest

import xmux

DIVIDE = """
func.func @div(%a: memref<?x{t}>, %b: memref<?x{t}>, %q: memref<?x{t}>, %r: memref<?x{t}>)
    attributes {{mux.kernel = "entry_point"}} {{
  %i = mux.get_global_id 0 : index
  %x = memref.load %a[%i] : memref<?x{t}>
  %y = memref.load %b[%i] : memref<?x{t}>
  %d = arith.{div} %x, %y : {t}
  %m = arith.{rem} %x, %y : {t}
  memref.store %d, %q[%i] : memref<?x{t}>
  memref.store %m, %r[%i] : memref<?x{t}>
  func.return
}}
"""


@pytest.mark.parametrize(
    "t,dtype,div,rem",
    [
        ("i32", np.int32, "divsi", "remsi"),
        ("i64", np.int64, "divsi", "remsi"),
        ("i32", np.int32, "divui", "remui"),
        ("i8", np.int8, "divsi", "remsi"),
    ],
)
def test_integer_division_by_zero_and_int_min_by_minus_one_do_not_trap(t, dtype, div, rem):
    """x86's idiv raised SIGFPE and killed Python; OpenCL leaves the result undefined, so
    xmux divides by 1 there (a / 1 = a, the wrapped INT_MIN / -1; a % 1 = 0) and computes
    every other element exactly."""
    info = np.iinfo(dtype)
    unsigned = div == "divui"
    n = 64
    rng = np.random.default_rng(1)
    a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b[::4] = 0
    a[1::8], b[1::8] = info.min, -1
    q, r = np.zeros_like(a), np.zeros_like(a)
    src = DIVIDE.format(t=t, div=div, rem=rem)
    xmux.compile(src, cache=False).kernel("div")(a, b, q, r, global_size=(n,), local_size=(8,))
    special = b == 0
    if not unsigned:
        special |= (a == info.min) & (b == -1)
    np.testing.assert_array_equal(q[special], a[special])
    np.testing.assert_array_equal(r[special], 0)
    ok = ~special
    bits = 8 * a.itemsize
    aa, bb = [int(x) for x in a[ok]], [int(y) for y in b[ok]]
    if unsigned:
        aa, bb = [x % (1 << bits) for x in aa], [y % (1 << bits) for y in bb]
        want_q = [x // y for x, y in zip(aa, bb, strict=True)]
    else:  # C's truncating division
        want_q = [abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
                  for x, y in zip(aa, bb, strict=True)]
    want_r = [x - y * w for x, y, w in zip(aa, bb, want_q, strict=True)]

    def wrap(vals):
        return np.array([v % (1 << bits) for v in vals], dtype=np.uint64).astype(
            np.dtype(f"u{a.itemsize}")).view(dtype)

    np.testing.assert_array_equal(q[ok], wrap(want_q))
    np.testing.assert_array_equal(r[ok], wrap(want_r))


# Rows covered elsewhere:
# - recursion rejected with the call cycle named: tests/test_errors.py
# - an LLVM abort contained and retried: tests/test_portability.py
# - os.fork() while another thread compiles: tests/test_fork.py


BIG_LOCAL = """
"memref.global"() <{sym_name = "big", type = memref<4194304xf32, 3>, sym_visibility = "private",
                    initial_value}> : () -> ()
func.func @bigk(%out: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %gid = mux.get_global_id 0 : index
  %lid = mux.get_local_id 0 : index
  %t = memref.get_global @big : memref<4194304xf32, 3>
  %c4096 = arith.constant 4096 : index
  %far = arith.muli %lid, %c4096 : index
  %v = arith.index_cast %gid : index to i32
  %f = arith.sitofp %v : i32 to f32
  memref.store %f, %t[%far] : memref<4194304xf32, 3>
  mux.work_group_barrier work_group, <acq_rel, work_group_memory>
  %w = memref.load %t[%far] : memref<4194304xf32, 3>
  memref.store %w, %out[%gid] : memref<?xf32>
  func.return
}
"""


def test_sixteen_mib_of_local_memory_comes_from_the_heap():
    """A 16 MiB work-group local array overflowed the worker's stack (segfault)."""
    out = np.zeros(64, np.float32)
    xmux.compile(BIG_LOCAL, cache=False).kernel("bigk")(out, global_size=(64,), local_size=(16,))
    np.testing.assert_array_equal(out, np.arange(64, dtype=np.float32))


HOST_FAILS = """
func.func @k(%a: memref<?xf32>)
    attributes {mux.kernel = "entry_point", mux.reqd_work_group_size = array<i64: 8, 1, 1>} {
  %i = mux.get_global_id 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %a[%i] : memref<?xf32>
  func.return
}
func.func private @printMemrefF32(memref<*xf32>)
func.func @main() {
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc(%c16) : memref<?xf32>
  mux.launch @k(%a) global_size(%c16) local_size(%c4) : (memref<?xf32>)
  %u = "memref.cast"(%a) : (memref<?xf32>) -> memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  func.return
}
"""


def test_xmux_run_stops_printing_after_a_failed_launch(tmp_path, capsys):
    """@main went on and printed uninitialised data after a launch failed (local size 4
    against the required 8); now nothing more runs, and the error exits 1."""
    from xmux import runner

    path = tmp_path / "fails.mlir"
    path.write_text(HOST_FAILS)
    assert runner.main([str(path)]) == 1
    out, err = capsys.readouterr()
    assert "Unranked Memref" not in out and "data" not in out
    assert "reqd_work_group_size" in err or "required" in err


def test_xmux_run_refuses_a_main_with_arguments(tmp_path, capsys):
    """@main(%n) was called with garbage and exited 0."""
    from xmux import runner

    path = tmp_path / "args.mlir"
    path.write_text("func.func @main(%n: index) {\n  func.return\n}\n")
    assert runner.main([str(path)]) == 1
    assert "@main takes arguments (index)" in capsys.readouterr().err


VECADD = """
func.func @add1(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %one = arith.constant 1.0 : f32
  %w = arith.addf %v, %one : f32
  memref.store %w, %a[%i] : memref<?xf32>
  func.return
}
"""


@pytest.fixture(scope="module")
def add1():
    return xmux.compile(VECADD, cache=False).kernel("add1")


@pytest.mark.parametrize(
    "sizes,match",
    [
        ({"global_size": 2**63}, "exceeds the 64-bit range"),  # wrapped negative, ran minutes
        ({"global_size": 2**64}, "exceeds the 64-bit range"),  # ran nothing, returned
        ({"global_size": (2**32, 2**32)}, "exceeds the 64-bit range"),
        ({"global_size": (100.7,)}, "must be integers"),  # truncated to 100
        ({"global_size": "4096"}, "must be an integer or a sequence"),
        ({"global_size": (8,), "local_size": (True,)}, "must be integers"),
        ({"global_size": (8,), "global_offset": (2**63 - 4,)}, "exceeds the 64-bit range"),
    ],
)
def test_bad_sizes_are_errors(add1, sizes, match):
    with pytest.raises(xmux.LaunchError, match=match):
        add1(np.zeros(8, np.float32), **sizes)


@pytest.mark.parametrize("threads", [0, -3, 1.5, 70000, True, "2"])
def test_bad_thread_counts_are_errors(add1, threads):
    """0 and -3 meant the default in silence, 1.5 and 70000 failed inside Python."""
    with pytest.raises(xmux.LaunchError, match="threads must be an integer from 1 to"):
        add1(np.zeros(8, np.float32), global_size=(8,), threads=threads)
    with pytest.raises(xmux.LaunchError, match="xmux.compile: threads must be"):
        xmux.compile(VECADD, cache=False, threads=threads)


@pytest.mark.parametrize("value", ["0", "-4", "abc", "1.5"])
def test_bad_xmux_num_threads_is_an_error(monkeypatch, value):
    from xmux.runtime import launch

    monkeypatch.setenv("XMUX_NUM_THREADS", value)
    launch.default_threads.cache_clear()
    try:
        with pytest.raises(xmux.XmuxError, match="XMUX_NUM_THREADS must be an integer from 1"):
            launch.default_threads()
    finally:
        monkeypatch.delenv("XMUX_NUM_THREADS")
        launch.default_threads.cache_clear()


@pytest.mark.parametrize("value,on", [("no", False), ("off", False), ("0", False),
                                      ("yes", True), ("1", True), ("", True)])
def test_boolean_variables_take_the_usual_spellings(monkeypatch, value, on):
    """XMUX_CACHE=no left the cache on."""
    from xmux.runtime import jit

    monkeypatch.setenv("XMUX_CACHE", value)
    assert (jit.default_cache_dir() is not None) == on


def test_a_boolean_variable_with_another_value_is_an_error(monkeypatch):
    from xmux.runtime import jit

    monkeypatch.setenv("XMUX_CACHE", "maybe")
    with pytest.raises(xmux.XmuxError, match="XMUX_CACHE must be one of"):
        jit.default_cache_dir()


SCALARS = """
func.func @sc(%out: memref<?xf32>, %flag: i1, %x: f32, %h: f16)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %hx = arith.extf %h : f16 to f32
  %s = arith.addf %x, %hx : f32
  %z = arith.constant 0.0 : f32
  %v = arith.select %flag, %s, %z : f32
  memref.store %v, %out[%i] : memref<?xf32>
  func.return
}
"""


@pytest.mark.parametrize(
    "flag,x,h,match",
    [
        ("yes", 1.0, 0.0, "expected a bool"),  # taken as true
        (None, 1.0, 0.0, "expected a bool"),  # taken as false
        (2, 1.0, 0.0, "expected a bool"),
        (True, 1e300, 0.0, "does not fit in float32"),  # became inf
        (True, 1.0, 1e6, "does not fit in float16"),
    ],
)
def test_scalars_out_of_their_type_are_errors(flag, x, h, match):
    k = xmux.compile(SCALARS, cache=False).kernel("sc")
    with pytest.raises(xmux.LaunchError, match=match):
        k(np.zeros(4, np.float32), flag, x, h, global_size=(4,))


def test_scalars_in_their_type_run():
    k = xmux.compile(SCALARS, cache=False).kernel("sc")
    out = np.zeros(4, np.float32)
    k(out, np.bool_(True), float("inf"), 0.5, global_size=(4,))
    assert np.all(out == np.inf)
    k(out, 0, 1.0, 0.5, global_size=(4,))
    assert np.all(out == 0)


def _scaling_pass(factor: float):
    """A user pass named like any other of its kind: rewrites the f32 constant 1.0."""
    from dataclasses import dataclass

    from xdsl.dialects import arith
    from xdsl.dialects.builtin import FloatAttr, f32
    from xdsl.passes import ModulePass

    if factor == 2.0:

        @dataclass(frozen=True)
        class ScaleOnes(ModulePass):
            name = "scale-ones"

            def apply(self, ctx, op) -> None:
                for c in list(op.walk()):
                    if isinstance(c, arith.ConstantOp) and c.value == FloatAttr(1.0, f32):
                        c.value = FloatAttr(2.0, f32)
    else:

        @dataclass(frozen=True)
        class ScaleOnes(ModulePass):  # same name, other code
            name = "scale-ones"

            def apply(self, ctx, op) -> None:
                for c in list(op.walk()):
                    if isinstance(c, arith.ConstantOp) and c.value == FloatAttr(1.0, f32):
                        c.value = FloatAttr(3.0, f32)

    return ScaleOnes()


def test_two_user_passes_of_one_name_do_not_share_a_cached_object():
    """The cache keyed user passes by name and options: the second compile reused the
    first one's object."""
    from xmux import pipelines

    got = []
    for factor in (2.0, 3.0):
        prog = xmux.compile(VECADD, pipeline=[_scaling_pass(factor), *pipelines.cpu()])
        a = np.zeros(8, np.float32)
        prog.kernel("add1")(a, global_size=(8,))
        got.append(a[0])
    assert got == [2.0, 3.0]


@pytest.fixture
def bad_files(tmp_path):
    (tmp_path / "latin1.mlir").write_bytes(b"// caf\xe9\nfunc.func @k() {\n  func.return\n}\n")
    (tmp_path / "empty.mlir").write_text("")
    (tmp_path / "broken.mlir").write_text("func.func @k() {\n  func.return %x\n}\n")
    (tmp_path / "adir.mlir").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    "name,match",
    [
        ("latin1.mlir", r"latin1.mlir is not UTF-8 text: byte 0xe9 at offset 6 \(line 1\)"),
        ("empty.mlir", r"empty.mlir is empty: expected an MLIR module"),
        ("adir.mlir", r"adir.mlir is a directory, not an MLIR file"),
        ("missing.mlir", r"no such file: .*missing.mlir"),
        ("broken.mlir", r"cannot parse .*broken.mlir:\n.*broken.mlir:\d"),  # said <source>
    ],
)
def test_bad_files_get_errors_naming_them(bad_files, capsys, name, match):
    """Raw UnicodeDecodeError / FileNotFoundError / IsADirectoryError tracebacks in the
    CLIs, "Could not parse entire input!" for an empty file, "<source>" for a path."""
    from xmux.cli import opt_main, run_main

    path = str(bad_files / name)
    with pytest.raises(xmux.XmuxError, match=match):
        xmux.compile(path, cache=False)
    for cli in (opt_main, run_main):
        if name == "broken.mlir" and cli is run_main:
            continue  # xmux-run wants an @main first; covered by compile above
        assert cli([path]) == 1
        err = capsys.readouterr().err
        assert err.startswith("error") and "Traceback" not in err and name in err


@pytest.mark.parametrize(
    "record",
    ['[]', '{"fingerprint": 3}', '"text"', '{"kernel_infos": "[1, 2]"}', "{}", "null",
     '{"fingerprint": "x", "object_sha256": "y", "kernel_infos": "[{\\"bogus\\": 1}]", '
     '"externals": [], "exports": []}'],
)
def test_cache_records_of_another_shape_are_misses(tmp_path, monkeypatch, record):
    """Valid JSON of the wrong shape raised AttributeError/TypeError on every later run
    until the cache was wiped."""
    from xmux.runtime import jit

    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path))
    jit.clear_memory_cache()
    xmux.compile(VECADD).kernel("add1")  # writes object + record
    records = list(tmp_path.rglob("*.json"))
    assert records
    for r in records:
        r.write_text(record)
    jit.clear_memory_cache()
    a = np.zeros(8, np.float32)
    xmux.compile(VECADD).kernel("add1")(a, global_size=(8,))
    assert np.all(a == 1)


COPY = """
func.func @copy(%src: memref<?xf32>, %dst: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %src[%i] : memref<?xf32>
  memref.store %v, %dst[%i] : memref<?xf32>
  func.return
}
"""


def test_a_read_only_array_is_refused_where_the_kernel_writes(tmp_path):
    """A read-only mmap segfaulted; np.frombuffer(bytes) mutated an immutable bytes."""
    k = xmux.compile(COPY, cache=False).kernel("copy")
    src = np.arange(8, dtype=np.float32)
    frozen = np.frombuffer(bytes(32), dtype=np.float32)
    with pytest.raises(xmux.LaunchError, match=r"argument 1 \('dst'\): the array is read-only"):
        k(src, frozen, global_size=(8,))
    path = tmp_path / "m.bin"
    path.write_bytes(bytes(32))
    mapped = np.memmap(path, dtype=np.float32, mode="r")
    with pytest.raises(xmux.LaunchError, match="read-only"):
        k(src, mapped, global_size=(8,))
    # a read-only source is fine: the kernel only reads it
    dst = np.zeros(8, np.float32)
    src.flags.writeable = False
    k(src, dst, global_size=(8,))
    np.testing.assert_array_equal(dst, src)
    # the flag turned off on the array of a replayed launch
    dst2 = np.zeros(8, np.float32)
    k(src, dst2, global_size=(8,))
    k(src, dst2, global_size=(8,))
    dst2.flags.writeable = False
    with pytest.raises(xmux.LaunchError, match="read-only"):
        k(src, dst2, global_size=(8,))


ACCESS = """
func.func private @reads(%m: memref<?xf32>, %i: index) -> f32 {
  %v = memref.load %m[%i] : memref<?xf32>
  func.return %v : f32
}
func.func private @writes(%m: memref<?xf32>, %i: index, %v: f32) {
  memref.store %v, %m[%i] : memref<?xf32>
  func.return
}
func.func @k(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %d: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %x = func.call @reads(%a, %i) : (memref<?xf32>, index) -> f32
  %c1 = arith.constant 1 : index
  %sub = "memref.subview"(%b, %i, %c1, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>,
      static_offsets = array<i64: -9223372036854775808>,
      static_sizes = array<i64: -9223372036854775808>,
      static_strides = array<i64: -9223372036854775808>}>
      : (memref<?xf32>, index, index, index) -> memref<?xf32, strided<[?], offset: ?>>
  %c0 = arith.constant 0 : index
  %y = memref.load %sub[%c0] : memref<?xf32, strided<[?], offset: ?>>
  func.call @writes(%c, %i, %x) : (memref<?xf32>, index, f32) -> ()
  %s = arith.addf %x, %y : f32
  memref.store %s, %d[%i] : memref<?xf32>
  func.return
}
"""


def test_kernel_info_knows_which_arrays_are_written():
    """Reads through a call and a subview are reads; a write in a callee is a write."""
    from xmux import api

    (info,) = api.kernel_infos(api.parse(ACCESS))
    assert [a.written for a in info.args] == [False, False, True, True]


SCANS = """
func.func @scans(%a: memref<?xf32>, %inc: memref<?xf32>, %exc: memref<?xf32>)
    attributes {mux.kernel = "entry_point"} {
  %i = mux.get_global_id 0 : index
  %v = memref.load %a[%i] : memref<?xf32>
  %x = mux.SCOPE_scan_inclusive KIND %v : f32
  %y = mux.SCOPE_scan_exclusive KIND %v : f32
  memref.store %x, %inc[%i] : memref<?xf32>
  memref.store %y, %exc[%i] : memref<?xf32>
  func.return
}
"""


@pytest.mark.parametrize("scope,sg", [("work_group", 1), ("sub_group", 4)])
@pytest.mark.parametrize("kind", ["fmax", "fmin"])
def test_exclusive_scan_over_a_nan_prefix_is_the_inclusive_one_shifted(kind, scope, sg):
    """An exclusive fmax scan gave -inf after a NaN where the inclusive scan gave NaN."""
    a = np.array([np.nan, 1, 5, 2, np.nan, -3, 7, 0], np.float32)
    inc, exc = np.zeros_like(a), np.zeros_like(a)
    src = SCANS.replace("KIND", kind).replace("SCOPE", scope)
    xmux.compile(src, cache=False, sub_group_size=sg).kernel("scans")(
        a, inc, exc, global_size=(8,), local_size=(8,)
    )
    ident = np.float32(-np.inf if kind == "fmax" else np.inf)
    n = 8 if scope == "work_group" else sg
    for lo in range(0, 8, n):
        want = np.concatenate([[ident], inc[lo:lo + n - 1]]).astype(np.float32)
        np.testing.assert_array_equal(exc[lo:lo + n], want)
    assert np.isnan(inc[0]) and np.isnan(exc[1])
    if scope == "sub_group":  # the second sub-group starts with a NaN too
        assert np.isnan(exc[5])
    ref = np.zeros_like(a)
    ref2 = np.zeros_like(a)
    xmux.interpret(src, "scans", a, ref, ref2, global_size=(8,), local_size=(8,),
                   sub_group_size=sg)
    np.testing.assert_array_equal(inc, ref)
    np.testing.assert_array_equal(exc, ref2)


@pytest.mark.parametrize("value", ["abc", "-5", "nan"])
def test_a_bad_spin_time_is_an_error(monkeypatch, value):
    from xmux.runtime import pool

    monkeypatch.setenv("XMUX_SPIN_US", value)
    with pytest.raises(xmux.XmuxError, match="XMUX_SPIN_US must be a number of microseconds"):
        pool.spin_ns(1)


SIGNLESS = """
spec.specialization_id @d = 0 : i32
func.func @both(%out: memref<4xi64>, %a: i32) attributes {mux.kernel = "entry_point"} {
  %s = spec.get_scalar "n", @d : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %as = arith.extsi %a : i32 to i64
  %au = arith.extui %a : i32 to i64
  %ss = arith.extsi %s : i32 to i64
  %su = arith.extui %s : i32 to i64
  memref.store %as, %out[%c0] : memref<4xi64>
  memref.store %au, %out[%c1] : memref<4xi64>
  memref.store %ss, %out[%c2] : memref<4xi64>
  memref.store %su, %out[%c3] : memref<4xi64>
  func.return
}
"""


@pytest.mark.parametrize("value", [2**31, 2**32 - 1, -(2**31), -1, 7])
def test_a_signless_integer_takes_either_reading_as_argument_and_spec_constant(value):
    """An i32 spec constant took 2**31 (and wrapped) where an i32 argument refused it: one
    rule now for both, MLIR's signless reading: -2**31 .. 2**32-1, stored as its 32 bits, the
    ops deciding the sign (extsi / extui here)."""
    k = xmux.compile(SIGNLESS, cache=False).kernel("both")
    out = np.zeros(4, np.int64)
    k(out, value, global_size=(1,), spec_constants={"n": value})
    bits = value & 0xFFFFFFFF
    signed = bits - (1 << 32) if bits >> 31 else bits
    np.testing.assert_array_equal(out, [signed, bits, signed, bits])


@pytest.mark.parametrize("value", [2**32, -(2**31) - 1])
def test_a_signless_integer_out_of_both_readings_is_refused_alike(value):
    k = xmux.compile(SIGNLESS, cache=False).kernel("both")
    out = np.zeros(4, np.int64)
    with pytest.raises(xmux.LaunchError, match=r"does not fit in int32 \(a signless integer "
                       r"takes -2147483648 \.\. 4294967295\)"):
        k(out, value, global_size=(1,), spec_constants={"n": 0})
    with pytest.raises(xmux.XmuxError, match=r"does not fit in i32 \(a signless integer takes "
                       r"-2147483648 \.\. 4294967295\)"):
        k(out, 0, global_size=(1,), spec_constants={"n": value})


def test_xmux_run_runs_a_host_only_main_once(tmp_path, capsys):
    """A module whose @main uses no acc or mux op was taken for a kernel (transfer-kernel-
    metadata's public-function rule) and printed its memref once per work-item, millions of
    times; @main is the host entry point, run once, as mlir-runner runs it."""
    from xmux import runner

    path = tmp_path / "host.mlir"
    path.write_text("""
func.func private @printMemrefF32(memref<*xf32>)
func.func @main() {
  %m = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.5 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %v, %m[%i] : memref<4xf32>
  }
  %u = "memref.cast"(%m) : (memref<4xf32>) -> memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %m : memref<4xf32>
  func.return
}
""")
    assert runner.main([str(path)]) == 0
    out, _ = capsys.readouterr()
    assert out.count("Unranked Memref") == 1
    assert "[1.5,  1.5,  1.5,  1.5]" in out


@pytest.mark.parametrize("value,match", [
    ("Zen 3", "XMUX_CPU must be an LLVM CPU model name"),
    ("znver9", "XMUX_CPU=znver9: not an x86 CPU model this LLVM knows"),
])
def test_bad_xmux_cpu_is_an_error(monkeypatch, value, match):
    """An unknown model made LLVM ignore it and die on the first 64-bit code."""
    from xmux.runtime import jit

    monkeypatch.setenv("XMUX_CPU", value)
    with pytest.raises(xmux.XmuxError, match=match):
        jit._Target()


def test_xmux_cpu_builds_for_the_named_model(monkeypatch):
    """The suite runs "as on" another host: LLVM decides with that model's own features."""
    from xmux.runtime import jit

    monkeypatch.setenv("XMUX_CPU", "znver3")
    target = jit._Target()
    assert (target.cpu, target.features, target.wide_vectors) == ("znver3", "", False)


_MALFORMED = {
    # xDSL's llvm parser indexes the struct type with the position as written
    "extractvalue": """
func.func @k(%s: !llvm.struct<(i32, f32)>) -> i32 {
  %v = llvm.extractvalue %s[4294967296] : !llvm.struct<(i32, f32)>
  func.return %v : i32
}""",
    # xDSL's memref.load verifier raises a bare Exception
    "load": """
func.func @k(%a: memref<?xf32>) attributes {mux.kernel = "entry_point"} {
  %v = memref.load %a[] : memref<?xf32>
  func.return
}""",
    # a VerifyException while the parser builds the attribute
    "constant": """
func.func @k(%a: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %c = arith.constant 9223372036854775807 : i32
  func.return
}""",
}


@pytest.mark.parametrize("name", sorted(_MALFORMED))
def test_malformed_input_is_an_xmux_error_with_its_place(name: str, tmp_path) -> None:
    src = _MALFORMED[name]
    with pytest.raises(xmux.XmuxError) as caught:
        xmux.compile(src, cache=False)
    text = str(caught.value)
    assert "<source>" in text
    if name != "load":
        assert "<source>:3:" in text  # the line of the op at fault
    else:
        assert "'memref.load' does not verify" in text
    path = tmp_path / f"{name}.mlir"
    path.write_text(src)
    from xmux.cli import opt_main

    assert opt_main([str(path)]) == 1


def test_gpu_launch_with_a_size_beyond_i32() -> None:
    """A legal index-typed grid size of 2^32 made gpu-launch-outlining fail with a ValueError
    (its known-size hint is i32): now the kernel compiles, without the hint."""
    src = """
func.func @main() {
  %c1 = arith.constant 1 : index
  %big = arith.constant 4294967296 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %big, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  func.return
}"""
    prog = xmux.compile(src, cache=False)
    assert list(prog.infos)


def test_programs_and_kernels_say_why_they_cannot_be_pickled() -> None:
    import copy
    import pickle

    prog = xmux.compile(VECADD, cache=False)
    kern = prog.kernel("add1")
    for obj, what in ((prog, "Program"), (kern, "kernel")):
        for copier in (pickle.dumps, copy.deepcopy):
            with pytest.raises(TypeError, match=rf"an xmux {what} cannot be pickled or "
                               "deep-copied: it holds code compiled into this process"):
                copier(obj)


@pytest.mark.parametrize("attr,match", [
    ("mux.reqd_work_group_size = array<i64: 2, 1, -9223372036854775808>",
     "mux.reqd_work_group_size must be three positive sizes"),
    ("mux.work_item_order = array<i64: 0, 0, 1>", "mux.work_item_order must be a permutation"),
    ("mux.max_work_dim = array<i64: 2>", "mux.max_work_dim must be an integer"),
])
def test_malformed_kernel_attributes_are_xmux_errors(attr: str, match: str) -> None:
    """The mutation fuzzer (tests/fuzz/mutate.py): a hand-written kernel attribute out of its
    range ended some passes in a ValueError traceback; every reader now raises an XmuxError
    naming the kernel and the attribute."""
    src = f"""
func.func @k(%x: i32) attributes {{mux.kernel = "entry_point", {attr}}} {{
  %0 = mux.work_group_reduce add %x : i32
  func.return
}}"""
    with pytest.raises(xmux.XmuxError, match=match):
        xmux.compile(src, cache=False)


def test_dealloc_of_stack_memory_is_an_error_not_an_abort(tmp_path, capsys) -> None:
    """The fuzzer's memref.alloc → memref.alloca in a host @main: free() of stack memory
    aborted xmux-run (glibc "free(): invalid size"); the lowering names the op."""
    from xmux.cli import run_main

    path = tmp_path / "alloca.mlir"
    path.write_text("""
func.func @main() {
  %c = memref.alloca() : memref<4xf32>
  memref.dealloc %c : memref<4xf32>
  func.return
}""")
    assert run_main([str(path)]) == 1
    assert "'memref.dealloc' in @main frees the memref of a 'memref.alloca'" in \
        capsys.readouterr().err
