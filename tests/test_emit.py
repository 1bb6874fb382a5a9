"""runtime/emit.py: llvm dialect → LLVM IR, checked on the text and by running it."""

from __future__ import annotations

import ctypes
import platform
import re
import threading

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.parser import Parser

from xmux.dialects.llvm import LLVM
from xmux.errors import NotSupportedError
from xmux.runtime import jit
from xmux.runtime.emit import emit_text, mangle_intrinsic

c_i8, c_i32, c_i64, c_f32, c_f64, c_p = (
    ctypes.c_int8,
    ctypes.c_int32,
    ctypes.c_int64,
    ctypes.c_float,
    ctypes.c_double,
    ctypes.c_void_p,
)


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XMUX_CACHE_DIR", str(tmp_path / "cache"))


def parse(src: str) -> ModuleOp:
    ctx = Context()
    for d in (Builtin, LLVM, Func, Arith):
        ctx.load_dialect(d)
    module = Parser(ctx, src).parse_module()
    module.verify()
    return module


def build(src: str) -> tuple[str, jit.JitModule]:
    text = emit_text(parse(src))
    return text, jit.compile_ir(text)


def fn(jm: jit.JitModule, name: str, restype, *argtypes):
    return ctypes.CFUNCTYPE(restype, *argtypes)(jm.address(name))


def ptr(a: np.ndarray) -> int:
    return a.ctypes.data


# ---------------------------------------------------------------------------------------
# Atomics
# ---------------------------------------------------------------------------------------


def test_atomicrmw_add_from_many_threads():
    text, jm = build(
        """
        llvm.func @add(%p: !llvm.ptr, %v: i64) -> i64 {
          %0 = llvm.atomicrmw add %p, %v monotonic : !llvm.ptr, i64
          llvm.return %0 : i64
        }
        """
    )
    assert re.search(r"atomicrmw add ptr %\S+, i64 %\S+ monotonic", text)
    add = fn(jm, "add", c_i64, c_p, c_i64)
    counter = np.zeros(1, dtype=np.int64)
    n_threads, n_calls = 4, 5000

    def work(k: int) -> None:
        for _ in range(n_calls):
            add(ptr(counter), k)

    threads = [threading.Thread(target=work, args=(k + 1,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counter[0] == n_calls * sum(range(1, n_threads + 1))
    assert add(ptr(counter), 0) == counter[0]  # returns the old value


@pytest.mark.parametrize(
    ("op", "start", "val", "expect"),
    [
        ("xchg", 5, 9, 9),
        ("sub", 5, 9, -4),
        ("and", 0b1100, 0b1010, 0b1000),
        ("or", 0b1100, 0b1010, 0b1110),
        ("xor", 0b1100, 0b1010, 0b0110),
        ("max", -5, -9, -5),
        ("min", -5, 3, -5),
        ("umax", -5, 3, -5),  # 0xFFFFFFFB is the larger unsigned value
        ("umin", -5, 3, 3),
        ("nand", 0b1100, 0b1010, ~0b1000),
    ],
)
def test_atomicrmw_integer_ops(op, start, val, expect):
    _, jm = build(
        f"""
        llvm.func @rmw(%p: !llvm.ptr, %v: i32) -> i32 {{
          %0 = llvm.atomicrmw {op} %p, %v seq_cst : !llvm.ptr, i32
          llvm.return %0 : i32
        }}
        """
    )
    cell = np.array([start], dtype=np.int32)
    assert fn(jm, "rmw", c_i32, c_p, c_i32)(ptr(cell), val) == start
    assert cell[0] == expect


def test_atomicrmw_fadd_volatile_syncscope_align():
    text, jm = build(
        """
        llvm.func @fadd(%p: !llvm.ptr, %v: f32) -> f32 {
          %0 = llvm.atomicrmw volatile fadd %p, %v syncscope("singlethread") acq_rel
               {alignment = 4 : i64} : !llvm.ptr, f32
          llvm.return %0 : f32
        }
        """
    )
    assert re.search(
        r'atomicrmw volatile fadd ptr %\S+, float %\S+ syncscope\("singlethread"\) acq_rel, '
        r"align 4",
        text,
    )
    cell = np.array([1.5], dtype=np.float32)
    assert fn(jm, "fadd", c_f32, c_p, c_f32)(ptr(cell), 2.25) == 1.5
    assert cell[0] == 3.75


def test_cmpxchg():
    text, jm = build(
        """
        llvm.func @cas(%p: !llvm.ptr, %cmp: i32, %new: i32, %ok: !llvm.ptr) -> i32 {
          %0 = llvm.cmpxchg %p, %cmp, %new acq_rel monotonic : !llvm.ptr, i32
          %old = llvm.extractvalue %0[0] : !llvm.struct<(i32, i1)>
          %succ = llvm.extractvalue %0[1] : !llvm.struct<(i32, i1)>
          %b = llvm.zext %succ : i1 to i8
          llvm.store %b, %ok : i8, !llvm.ptr
          llvm.return %old : i32
        }
        llvm.func @cas_weak(%p: !llvm.ptr, %cmp: i64, %new: i64) {
          %0 = llvm.cmpxchg weak %p, %cmp, %new seq_cst acquire : !llvm.ptr, i64
          llvm.return
        }
        """
    )
    assert re.search(r"cmpxchg ptr %\S+, i32 %\S+, i32 %\S+ acq_rel monotonic", text)
    assert re.search(r"cmpxchg weak ptr %\S+, i64 %\S+, i64 %\S+ seq_cst acquire", text)
    cas = fn(jm, "cas", c_i32, c_p, c_i32, c_i32, c_p)
    cell = np.array([7], dtype=np.int32)
    ok = np.zeros(1, dtype=np.int8)
    assert cas(ptr(cell), 3, 11, ptr(ok)) == 7 and ok[0] == 0 and cell[0] == 7
    assert cas(ptr(cell), 7, 11, ptr(ok)) == 7 and ok[0] == 1 and cell[0] == 11


def test_fence():
    text, jm = build(
        """
        llvm.func @fences(%p: !llvm.ptr) -> i32 {
          llvm.fence acquire
          llvm.fence syncscope("singlethread") seq_cst
          llvm.fence release
          %0 = llvm.load %p : !llvm.ptr -> i32
          llvm.return %0 : i32
        }
        """
    )
    assert "\n  fence acquire\n" in text
    assert '\n  fence syncscope("singlethread") seq_cst\n' in text
    assert "\n  fence release\n" in text
    cell = np.array([42], dtype=np.int32)
    assert fn(jm, "fences", c_i32, c_p)(ptr(cell)) == 42


def test_atomic_load_store_orderings():
    text, jm = build(
        """
        llvm.func @copy(%src: !llvm.ptr, %dst: !llvm.ptr) {
          %0 = llvm.load %src atomic acquire : !llvm.ptr -> i64
          "llvm.store"(%0, %dst) <{ordering = 5 : i64}> : (i64, !llvm.ptr) -> ()
          %1 = llvm.load %src atomic seq_cst {alignment = 8 : i64} : !llvm.ptr -> i64
          "llvm.store"(%1, %dst) <{ordering = 7 : i64, alignment = 8 : i64}>
              : (i64, !llvm.ptr) -> ()
          %2 = llvm.load %src atomic monotonic : !llvm.ptr -> f32
          "llvm.store"(%2, %dst) <{ordering = 1 : i64}> : (f32, !llvm.ptr) -> ()
          llvm.return
        }
        """
    )
    assert re.search(r"load atomic i64, ptr %\S+ acquire, align 8", text)
    assert re.search(r"store atomic i64 %\S+, ptr %\S+ release, align 8", text)
    assert re.search(r"load atomic i64, ptr %\S+ seq_cst, align 8", text)
    assert re.search(r"store atomic i64 %\S+, ptr %\S+ seq_cst, align 8", text)
    assert re.search(r"load atomic float, ptr %\S+ monotonic, align 4", text)
    assert re.search(r"store atomic float %\S+, ptr %\S+ unordered, align 4", text)
    # the orderings survive optimization (a plain load/store pair would too, so check them)
    opt = jit.optimized_ir(text)
    assert "load atomic i64" in opt and "store atomic i64" in opt
    src = np.array([0x1234_5678_9ABC], dtype=np.int64)
    dst = np.zeros(1, dtype=np.int64)
    fn(jm, "copy", None, c_p, c_p)(ptr(src), ptr(dst))
    assert dst.view(np.int32)[0] == src.view(np.int32)[0]  # last store: low 4 bytes as f32


def test_volatile_and_nontemporal_store():
    text, _ = build(
        """
        llvm.func @st(%p: !llvm.ptr, %v: i32) {
          llvm.store volatile %v, %p : i32, !llvm.ptr
          llvm.store %v, %p {nontemporal} : i32, !llvm.ptr
          llvm.return
        }
        """
    )
    assert re.search(r"store volatile i32 %\S+, ptr %\S+\n", text)
    assert re.search(r"store i32 %\S+, ptr %\S+, !nontemporal !\d+", text)


# ---------------------------------------------------------------------------------------
# Control flow, casts, vectors, intrinsics
# ---------------------------------------------------------------------------------------


def test_switch():
    text, jm = build(
        """
        llvm.func @sw(%x: i32) -> i64 {
          %c10 = llvm.mlir.constant(10 : i64) : i64
          %c20 = llvm.mlir.constant(20 : i64) : i64
          %c30 = llvm.mlir.constant(30 : i64) : i64
          llvm.switch %x : i32, ^out(%c10 : i64) [
            0: ^zero,
            -3: ^out(%c20 : i64),
            7: ^out(%c20 : i64),
            100: ^sum(%c30, %x : i64, i32)
          ]
        ^zero:
          %c1 = llvm.mlir.constant(1 : i64) : i64
          llvm.return %c1 : i64
        ^sum(%a: i64, %b: i32):
          %e = llvm.sext %b : i32 to i64
          %r = llvm.add %a, %e : i64
          llvm.br ^out(%r : i64)
        ^out(%v: i64):
          llvm.return %v : i64
        }
        """
    )
    assert re.search(r"switch i32 %\S+, label %\S+ \[i32 0, label %\S+ i32 -3, label", text)
    sw = fn(jm, "sw", c_i64, c_i32)
    expect = {0: 1, -3: 20, 7: 20, 100: 130}
    for x in (-4, -3, -1, 0, 1, 6, 7, 8, 99, 100, 101, 2**31 - 1, -(2**31)):
        assert sw(x) == expect.get(x, 10), x


def test_edges_to_one_block_with_different_operands():
    # One phi entry per edge, and edges from one block must agree: emit adds trampolines.
    text, jm = build(
        """
        llvm.func @sw(%x: i32, %a: i64, %b: i64) -> i64 {
          llvm.switch %x : i32, ^out(%a : i64) [
            1: ^out(%b : i64),
            2: ^out(%a : i64),
            3: ^out(%b : i64)
          ]
        ^out(%v: i64):
          llvm.return %v : i64
        }
        llvm.func @sel(%c: i1, %a: i64, %b: i64) -> i64 {
          llvm.cond_br %c, ^out(%a : i64), ^out(%b : i64)
        ^out(%v: i64):
          llvm.return %v : i64
        }
        """
    )
    assert ".edge:" in text
    sw = fn(jm, "sw", c_i64, c_i32, c_i64, c_i64)
    assert [sw(x, 10, 20) for x in range(5)] == [10, 20, 10, 20, 10]
    sel = fn(jm, "sel", c_i64, ctypes.c_bool, c_i64, c_i64)
    assert (sel(True, 1, 2), sel(False, 1, 2)) == (1, 2)


def test_int_float_casts_vs_numpy():
    text, jm = build(
        """
        llvm.func @u2f(%x: i32) -> f32 {
          %0 = llvm.uitofp %x : i32 to f32
          llvm.return %0 : f32
        }
        llvm.func @u2d_nneg(%x: i64) -> f64 {
          %0 = llvm.uitofp nneg %x : i64 to f64
          llvm.return %0 : f64
        }
        llvm.func @f2s(%x: f32) -> i32 {
          %0 = llvm.fptosi %x : f32 to i32
          llvm.return %0 : i32
        }
        llvm.func @d2u(%x: f64) -> i32 {
          %0 = llvm.fptoui %x : f64 to i32
          llvm.return %0 : i32
        }
        llvm.func @vec(%src: !llvm.ptr, %dst_s: !llvm.ptr, %dst_u: !llvm.ptr, %dst_f: !llvm.ptr) {
          %v = llvm.load %src {alignment = 1 : i64} : !llvm.ptr -> vector<8xf32>
          %s = llvm.fptosi %v : vector<8xf32> to vector<8xi32>
          %u = llvm.fptoui %v : vector<8xf32> to vector<8xi32>
          %f = llvm.uitofp %u : vector<8xi32> to vector<8xf32>
          llvm.store %s, %dst_s {alignment = 1 : i64} : vector<8xi32>, !llvm.ptr
          llvm.store %u, %dst_u {alignment = 1 : i64} : vector<8xi32>, !llvm.ptr
          llvm.store %f, %dst_f {alignment = 1 : i64} : vector<8xf32>, !llvm.ptr
          llvm.return
        }
        """
    )
    assert re.search(r"uitofp nneg i64 %\S+ to double", text)
    u2f = fn(jm, "u2f", c_f32, c_i32)
    for u in (0, 1, 2**31, 2**32 - 1, 123456789):
        signed = np.uint32(u).view(np.int32)
        assert u2f(int(signed)) == np.float32(np.uint32(u)), u
    assert fn(jm, "u2d_nneg", c_f64, c_i64)(2**40 + 3) == float(2**40 + 3)
    f2s = fn(jm, "f2s", c_i32, c_f32)
    for x in (-3.7, -0.5, 0.0, 2.999, 1e9):
        assert f2s(x) == int(np.float32(x).astype(np.int32)), x
    d2u = fn(jm, "d2u", c_i32, c_f64)
    for x in (0.0, 3.9, 3e9, 4294967295.0):
        assert np.int32(d2u(x)).view(np.uint32) == np.uint32(x), x

    src = np.array([0.0, 1.5, 2.9, 100.25, 7.0, 3e9, 65535.5, 1.0e6], dtype=np.float32)
    dst_s = np.zeros(8, dtype=np.int32)
    dst_u = np.zeros(8, dtype=np.uint32)
    dst_f = np.zeros(8, dtype=np.float32)
    fn(jm, "vec", None, c_p, c_p, c_p, c_p)(ptr(src), ptr(dst_s), ptr(dst_u), ptr(dst_f))
    ok = src < 2**31  # fptosi of 3e9 is poison: compare where defined
    np.testing.assert_array_equal(dst_s[ok], src[ok].astype(np.int32))
    np.testing.assert_array_equal(dst_u, src.astype(np.uint32))
    np.testing.assert_array_equal(dst_f, src.astype(np.uint32).astype(np.float32))


def test_extractelement():
    _, jm = build(
        """
        llvm.func @elt(%src: !llvm.ptr, %i: i32) -> f32 {
          %v = llvm.load %src {alignment = 1 : i64} : !llvm.ptr -> vector<4xf32>
          %e = llvm.extractelement %v[%i : i32] : vector<4xf32>
          llvm.return %e : f32
        }
        llvm.func @elt8(%src: !llvm.ptr, %i: i64) -> i8 {
          %v = llvm.load %src {alignment = 1 : i64} : !llvm.ptr -> vector<16xi8>
          %e = llvm.extractelement %v[%i : i64] : vector<16xi8>
          llvm.return %e : i8
        }
        """
    )
    a = np.array([1.5, -2.0, 3.25, 8.0], dtype=np.float32)
    elt = fn(jm, "elt", c_f32, c_p, c_i32)
    assert [elt(ptr(a), i) for i in range(4)] == a.tolist()
    b = np.arange(-8, 8, dtype=np.int8)
    elt8 = fn(jm, "elt8", c_i8, c_p, c_i64)
    assert [elt8(ptr(b), i) for i in range(16)] == b.tolist()


def test_integer_min_max_intrinsics():
    text, jm = build(
        """
        llvm.func @smin(%a: i32, %b: i32) -> i32 {
          %0 = llvm.call_intrinsic "llvm.smin"(%a, %b) : (i32, i32) -> i32
          llvm.return %0 : i32
        }
        llvm.func @umax(%a: i32, %b: i32) -> i32 {
          %0 = llvm.call_intrinsic "llvm.umax"(%a, %b) : (i32, i32) -> i32
          llvm.return %0 : i32
        }
        llvm.func @smax64(%a: i64, %b: i64) -> i64 {
          %0 = llvm.call_intrinsic "llvm.smax"(%a, %b) : (i64, i64) -> i64
          llvm.return %0 : i64
        }
        llvm.func @umin_v(%pa: !llvm.ptr, %pb: !llvm.ptr) {
          %a = llvm.load %pa {alignment = 1 : i64} : !llvm.ptr -> vector<4xi32>
          %b = llvm.load %pb {alignment = 1 : i64} : !llvm.ptr -> vector<4xi32>
          %0 = llvm.call_intrinsic "llvm.umin"(%a, %b)
               : (vector<4xi32>, vector<4xi32>) -> vector<4xi32>
          llvm.store %0, %pa {alignment = 1 : i64} : vector<4xi32>, !llvm.ptr
          llvm.return
        }
        llvm.func @fmax(%a: f32, %b: f32) -> f32 {
          %0 = llvm.call_intrinsic "llvm.maxnum"(%a, %b) {fastmathFlags = #llvm.fastmath<nnan>}
               : (f32, f32) -> f32
          llvm.return %0 : f32
        }
        """
    )
    for decl in ("llvm.smin.i32", "llvm.umax.i32", "llvm.smax.i64", "llvm.umin.v4i32"):
        assert f'declare i32 @"{decl}"' in text or f'@"{decl}"(' in text, decl
    assert re.search(r'call nnan float @"llvm.maxnum.f32"', text)
    smin, umax = fn(jm, "smin", c_i32, c_i32, c_i32), fn(jm, "umax", c_i32, c_i32, c_i32)
    smax64 = fn(jm, "smax64", c_i64, c_i64, c_i64)
    for a, b in ((-5, 3), (7, -7), (0, 0), (-(2**31), 2**31 - 1)):
        assert smin(a, b) == min(a, b)
        expect = max(a & 0xFFFFFFFF, b & 0xFFFFFFFF)
        assert umax(a, b) & 0xFFFFFFFF == expect
        assert smax64(a * 2**32, b) == max(a * 2**32, b)
    a = np.array([1, 0xFFFFFFFF, 5, 0x80000000], dtype=np.uint32)
    b = np.array([2, 3, 0xFFFFFFF0, 0x7FFFFFFF], dtype=np.uint32)
    expect = np.minimum(a, b)
    fn(jm, "umin_v", None, c_p, c_p)(ptr(a), ptr(b))
    np.testing.assert_array_equal(a, expect)
    assert fn(jm, "fmax", c_f32, c_f32, c_f32)(1.5, -2.0) == 1.5


def test_mangle_intrinsic():
    import llvmlite.ir as ir

    i32, f32, p0 = ir.IntType(32), ir.FloatType(), ir.PointerType()
    v8f = ir.VectorType(f32, 8)
    assert mangle_intrinsic("llvm.smin", i32, [i32, i32]) == "llvm.smin.i32"
    assert mangle_intrinsic("llvm.smin.i32", i32, [i32, i32]) == "llvm.smin.i32"
    assert mangle_intrinsic("llvm.fma", v8f, [v8f] * 3) == "llvm.fma.v8f32"
    assert mangle_intrinsic("llvm.vector.reduce.fadd", f32, [f32, v8f]) == (
        "llvm.vector.reduce.fadd.v8f32"
    )
    i64, i1 = ir.IntType(64), ir.IntType(1)
    assert mangle_intrinsic("llvm.memcpy", ir.VoidType(), [p0, p0, i64, i1]) == (
        "llvm.memcpy.p0.p0.i64"
    )
    assert mangle_intrinsic("llvm.x86.sse.pause", ir.VoidType(), []) == "llvm.x86.sse.pause"


# ---------------------------------------------------------------------------------------
# Loop metadata and vectorization
# ---------------------------------------------------------------------------------------

LOOP = """
llvm.func @vadd(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr, %n: i64) {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  llvm.br ^header(%zero : i64)
^header(%i: i64):
  %cond = llvm.icmp "slt" %i, %n : i64
  llvm.cond_br %cond, ^body, ^exit
^body:
  %pa = llvm.getelementptr %a[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %pb = llvm.getelementptr %b[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %pc = llvm.getelementptr %c[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %va = llvm.load %pa GROUPS : !llvm.ptr -> f32
  %vb = llvm.load %pb GROUPS : !llvm.ptr -> f32
  %s = llvm.fadd %va, %vb : f32
  llvm.store %s, %pc GROUPS : f32, !llvm.ptr
  %next = llvm.add %i, %one : i64
  llvm.br ^header(%next : i64) LATCH
^exit:
  llvm.return
}
"""


def _loop(annotated: bool) -> str:
    groups = "{access_groups = [#llvm.access_group<id = distinct[3]<>>]}" if annotated else ""
    latch = (
        "{loop_annotation = #llvm.loop_annotation<mustProgress = true,"
        " parallelAccesses = #llvm.access_group<id = distinct[3]<>>>}"
        if annotated
        else ""
    )
    return LOOP.replace("GROUPS", groups).replace("LATCH", latch)


def test_loop_metadata_emitted():
    text = emit_text(parse(_loop(annotated=True)))
    accesses = re.findall(r"(?:load float|store float).*!llvm.access.group !(\d+)", text)
    assert len(accesses) == 3 and len(set(accesses)) == 1
    group = accesses[0]
    assert re.search(rf"^!{group} = distinct !\{{\s*\}}$", text, re.M)
    latch = re.search(r'br label %"header", !llvm.loop !(\d+)', text)
    assert latch is not None
    loop = latch.group(1)
    node = re.search(rf"^!{loop} = distinct !\{{ !{loop}, !(\d+), !(\d+) \}}$", text, re.M)
    assert node is not None
    props = {re.search(rf"^!{n} = (.*)$", text, re.M).group(1) for n in node.groups()}
    assert props == {
        f'!{{ !"llvm.loop.parallel_accesses", !{group} }}',
        '!{ !"llvm.loop.mustprogress" }',
    }


def test_access_groups_on_atomics_and_calls():
    text = emit_text(
        parse(
            """
            #G5 = #llvm.access_group<id = distinct[5]<>>
            #G6 = #llvm.access_group<id = distinct[6]<>>
            llvm.func internal @bump(%p: !llvm.ptr) {
              %one = llvm.mlir.constant(1 : i32) : i32
              llvm.store %one, %p : i32, !llvm.ptr
              llvm.return
            }
            llvm.func @f(%p: !llvm.ptr, %v: i32) {
              %0 = llvm.atomicrmw add %p, %v monotonic {access_groups = [#G5]}
                   : !llvm.ptr, i32
              %1 = llvm.load %p atomic acquire {access_groups = [#G5, #G6]}
                   : !llvm.ptr -> i32
              llvm.call @bump(%p) {access_groups = [#G6]} : (!llvm.ptr) -> ()
              llvm.return
            }
            """
        )
    )
    five = re.search(r"atomicrmw add .*!llvm.access.group !(\d+)", text).group(1)
    six = re.search(r'call (?:ccc )?void @"bump".*!llvm.access.group !(\d+)', text).group(1)
    both = re.search(r"load atomic .*!llvm.access.group !(\d+)", text).group(1)
    assert re.search(rf"^!{both} = !\{{ !{five}, !{six} \}}$", text, re.M)
    for group in (five, six):
        assert re.search(rf"^!{group} = distinct !\{{\s*\}}$", text, re.M)


def test_parallel_loop_vectorized_without_runtime_checks():
    plain = jit.optimized_ir(emit_text(parse(_loop(annotated=False))))
    annotated = jit.optimized_ir(emit_text(parse(_loop(annotated=True))))
    # Both vectorize, but only the unannotated loop needs alias checks: the vectorizer took
    # the parallel_accesses annotation.
    for ir_text in (plain, annotated):
        assert "vector.body:" in ir_text
        assert re.search(r"load <\d+ x float>", ir_text)
        assert "llvm.loop.isvectorized" in ir_text
    assert "vector.memcheck" in plain
    assert "vector.memcheck" not in annotated


def test_parallel_loop_numerics_and_assembly():
    text, jm = build(_loop(annotated=True))
    vadd = fn(jm, "vadd", None, c_p, c_p, c_p, c_i64)
    for n in (0, 1, 7, 64, 1001):
        a = np.random.default_rng(n).random(n, dtype=np.float32)
        b = np.arange(n, dtype=np.float32)
        c = np.zeros(n, dtype=np.float32)
        vadd(ptr(a), ptr(b), ptr(c), n)
        np.testing.assert_array_equal(c, a + b)
    asm = jit.assembly(text)
    assert re.search(r"^vadd:", asm, re.M)
    if platform.machine() in ("x86_64", "AMD64"):  # packed single-precision adds
        assert re.search(r"\bv?addps\s[^\n]*%[xyz]mm", asm)


# ---------------------------------------------------------------------------------------
# Functions, linkage, globals, externals
# ---------------------------------------------------------------------------------------


def test_internal_linkage_inlined_and_not_exported():
    text, jm = build(
        """
        llvm.func internal @helper(%x: i32) -> i32 {
          %0 = llvm.mul %x, %x : i32
          llvm.return %0 : i32
        }
        llvm.func @entry(%x: i32) -> i32 {
          %0 = llvm.call @helper(%x) : (i32) -> i32
          llvm.return %0 : i32
        }
        """
    )
    assert 'define internal i32 @"helper"' in text
    assert re.search(r'define i32 @"entry"', text)
    assert fn(jm, "entry", c_i32, c_i32)(9) == 81
    assert "helper" not in jm.exports
    opt = jit.optimized_ir(text)
    assert "@helper" not in opt and '@"helper"' not in opt  # inlined and dropped


def test_declaration_with_default_internal_linkage_is_external():
    # llvm.FuncOp's Python constructor defaults to internal linkage; for a declaration that
    # would be invalid IR, so it is emitted as an external declaration.
    from xdsl.dialects import llvm as llvm_d

    ftype = llvm_d.LLVMFunctionType([llvm_d.LLVMPointerType()], llvm_d.LLVMVoidType())
    text = emit_text(ModuleOp([llvm_d.FuncOp("free", ftype)]))
    assert re.search(r'^declare void @"free"\(ptr', text, re.M)


def test_libc_externals_malloc_memcpy_free():
    _, jm = build(
        """
        llvm.func @malloc(i64) -> !llvm.ptr
        llvm.func @free(!llvm.ptr)
        llvm.func @memcpy(!llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr
        llvm.func @roundtrip(%src: !llvm.ptr, %dst: !llvm.ptr, %n: i64) {
          %buf = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
          %0 = llvm.call @memcpy(%buf, %src, %n) : (!llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr
          %1 = llvm.call @memcpy(%dst, %buf, %n) : (!llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr
          llvm.call @free(%buf) : (!llvm.ptr) -> ()
          llvm.return
        }
        """
    )
    src = np.arange(1000, dtype=np.int32)
    dst = np.zeros_like(src)
    fn(jm, "roundtrip", None, c_p, c_p, c_i64)(ptr(src), ptr(dst), src.nbytes)
    np.testing.assert_array_equal(dst, src)


def test_variadic_printf_style_call():
    _, jm = build(
        """
        llvm.mlir.global internal constant @fmt("x=%d y=%.2f\\00") {addr_space = 0 : i32}
        llvm.func @snprintf(!llvm.ptr, i64, !llvm.ptr, ...) -> i32
        llvm.func @fmt_it(%buf: !llvm.ptr, %x: i32, %y: f64) -> i32 {
          %f = llvm.mlir.addressof @fmt : !llvm.ptr
          %n = llvm.mlir.constant(64 : i64) : i64
          %r = llvm.call @snprintf(%buf, %n, %f, %x, %y)
               vararg(!llvm.func<i32 (ptr, i64, ptr, ...)>)
               : (!llvm.ptr, i64, !llvm.ptr, i32, f64) -> i32
          llvm.return %r : i32
        }
        """
    )
    buf = ctypes.create_string_buffer(64)
    n = fn(jm, "fmt_it", c_i32, c_p, c_i32, c_f64)(ctypes.addressof(buf), -12, 3.14159)
    assert buf.value == b"x=-12 y=3.14" and n == len(buf.value)


def test_globals_with_initializers():
    text, jm = build(
        """
        llvm.mlir.global internal constant @greeting("hi\\0A\\00") {addr_space = 0 : i32}
        llvm.mlir.global internal @counter(41 : i64) {alignment = 16 : i64} : i64
        llvm.mlir.global internal @table(dense<[1.5, 2.5, 4.0]> : tensor<3xf32>)
            : !llvm.array<3 x f32>
        llvm.mlir.global internal @grid(dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>)
            : !llvm.array<2 x array<2 x i32>>
        llvm.mlir.global internal @zeros() : !llvm.array<4 x i64>
        llvm.mlir.global internal @pair() : !llvm.struct<(i32, ptr)> {
          %0 = llvm.mlir.zero : !llvm.struct<(i32, ptr)>
          %1 = llvm.mlir.constant(7 : i32) : i32
          %2 = llvm.insertvalue %1, %0[0] : !llvm.struct<(i32, ptr)>
          %3 = llvm.mlir.addressof @counter : !llvm.ptr
          %4 = llvm.insertvalue %3, %2[1] : !llvm.struct<(i32, ptr)>
          llvm.return %4 : !llvm.struct<(i32, ptr)>
        }
        llvm.func @read(%i: i64) -> f32 {
          %t = llvm.mlir.addressof @table : !llvm.ptr
          %p = llvm.getelementptr %t[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
          %v = llvm.load %p : !llvm.ptr -> f32
          llvm.return %v : f32
        }
        llvm.func @bump() -> i64 {
          %pair = llvm.mlir.addressof @pair : !llvm.ptr
          %pp = llvm.getelementptr %pair[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i32, ptr)>
          %c = llvm.load %pp : !llvm.ptr -> !llvm.ptr
          %v = llvm.load %c : !llvm.ptr -> i64
          %one = llvm.mlir.constant(1 : i64) : i64
          %w = llvm.add %v, %one : i64
          llvm.store %w, %c : i64, !llvm.ptr
          %k = llvm.load %pair : !llvm.ptr -> i32
          %k64 = llvm.sext %k : i32 to i64
          %r = llvm.mul %w, %k64 : i64
          llvm.return %r : i64
        }
        llvm.func @grid_at(%i: i64, %j: i64) -> i32 {
          %g = llvm.mlir.addressof @grid : !llvm.ptr
          %p = llvm.getelementptr %g[0, %i, %j]
               : (!llvm.ptr, i64, i64) -> !llvm.ptr, !llvm.array<2 x array<2 x i32>>
          %v = llvm.load %p : !llvm.ptr -> i32
          llvm.return %v : i32
        }
        llvm.func @zero_at(%i: i64) -> i64 {
          %g = llvm.mlir.addressof @zeros : !llvm.ptr
          %p = llvm.getelementptr %g[%i] : (!llvm.ptr, i64) -> !llvm.ptr, i64
          %v = llvm.load %p : !llvm.ptr -> i64
          llvm.return %v : i64
        }
        """
    )
    assert '@"greeting" = internal constant [4 x i8] c"hi\\0a\\00"' in text
    assert '@"counter" = internal global i64 41, align 16' in text
    assert '@"zeros" = internal global [4 x i64] zeroinitializer' in text
    read = fn(jm, "read", c_f32, c_i64)
    assert [read(i) for i in range(3)] == [1.5, 2.5, 4.0]
    bump = fn(jm, "bump", c_i64)
    assert bump() == 42 * 7 and bump() == 43 * 7
    grid_at = fn(jm, "grid_at", c_i32, c_i64, c_i64)
    assert [grid_at(i, j) for i in range(2) for j in range(2)] == [1, 2, 3, 4]
    assert [fn(jm, "zero_at", c_i64, c_i64)(i) for i in range(4)] == [0] * 4


def test_stacksave_restore():
    text, jm = build(
        """
        llvm.func @f(%x: i64) -> i64 {
          %sp = llvm.intr.stacksave : !llvm.ptr
          %one = llvm.mlir.constant(1 : i64) : i64
          %a = llvm.alloca %one x i64 : (i64) -> !llvm.ptr
          llvm.store %x, %a : i64, !llvm.ptr
          %v = llvm.load %a : !llvm.ptr -> i64
          llvm.intr.stackrestore %sp : !llvm.ptr
          llvm.return %v : i64
        }
        """
    )
    assert '@"llvm.stacksave.p0"()' in text and '@"llvm.stackrestore.p0"(ptr' in text
    assert fn(jm, "f", c_i64, c_i64)(-77) == -77


def test_blocks_out_of_dominance_order():
    # ^late is printed before ^early but is dominated by it: emission must follow dominance.
    _, jm = build(
        """
        llvm.func @f(%x: i32) -> i32 {
          llvm.br ^early
        ^late:
          %y = llvm.add %t, %t : i32
          llvm.return %y : i32
        ^early:
          %t = llvm.mul %x, %x : i32
          llvm.br ^late
        }
        """
    )
    assert fn(jm, "f", c_i32, c_i32)(5) == 50


# ---------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------


def test_module_level_op_not_supported():
    module = parse("func.func @k() {\n  func.return\n}")
    with pytest.raises(NotSupportedError, match=r"'func.func' at module level"):
        emit_text(module)


def test_untranslatable_op_is_named():
    module = parse(
        """
        llvm.func @f(%x: i32) -> i32 {
          %0 = arith.addi %x, %x : i32
          llvm.return %0 : i32
        }
        """
    )
    with pytest.raises(NotSupportedError, match=r"cannot translate 'arith.addi' in @f"):
        emit_text(module)
