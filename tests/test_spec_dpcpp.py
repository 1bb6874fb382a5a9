"""DPC++'s specialization-constant tests, ported: the facts of intel/llvm's
``llvm/test/tools/sycl-post-link/spec-constants/*.ll`` (property sets: ids, descriptors,
default blobs) and ``sycl/test-e2e/SpecConstants/2020/*.cpp`` (values read back), written as
xmux programs and checked in both modes. Each test names the DPC++ test it ports.

C++ types are spelled as clang lowers them to LLVM IR: ``alignas`` and packed layouts become
explicit padding members, whose defaults are undef (``#spec.undef`` here).
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from spec_reader import F32, I8, I16, I32, I64, Reader, python_value

import xmux
from xmux.runtime import spec_constants as rt

MODES = ["native", "emulated"]
PAD = rt.PADDING_ID


def _pad(n: int) -> rt.Array:
    return rt.Array(n, I8)


def _sets(r: Reader) -> tuple[dict[str, list[tuple[int, int, int]]], bytes]:
    sets = r.prog.property_sets
    return sets[rt.PROPERTY_SET], sets[rt.DEFAULT_VALUES_SET]["all"]


# struct-with-padding-in-the-middle.ll (and SYCL-CTS's user_defined_type):
# struct { float a; char d; int b; char c; } = <{ float, i8, [3 x i8], i32, i8, [3 x i8] }>,
# default (3.14, 'a', 42, 8). The padding members take ids 2 and 5 and no descriptor; the
# tail padding member becomes the padding descriptor (-1, 13, 3).
UDT = rt.Struct((F32, I8, _pad(3), I32, I8, _pad(3)))
UDT_DEFAULT = (3.14, 97, None, 42, 8, None)


@pytest.mark.parametrize("mode", MODES)
def test_struct_with_padding_in_the_middle(mode):
    r = Reader({"uidc5885cee0b80ad9d____ZL7spec_id": (UDT, UDT_DEFAULT)}, mode)
    descs, blob = _sets(r)
    assert descs == {
        "uidc5885cee0b80ad9d____ZL7spec_id": [
            (0, 0, 4), (1, 4, 1), (3, 8, 4), (4, 12, 1), (PAD, 13, 3)
        ]
    }
    assert blob == struct.pack("<fb3xib3x", np.float32(3.14), 97, 42, 8)
    r.check({})
    new = (1.5, 98, None, -7, 9, None)  # padding members given as None (left zero)
    r.check({"uidc5885cee0b80ad9d____ZL7spec_id": new},
            spec_constants={"uidc5885cee0b80ad9d____ZL7spec_id": new})
    raw = struct.pack("<fb3xib3x", 2.5, 99, 123456, 10)  # or as the C++ object's 16 bytes
    r.prog.set_spec_constant("uidc5885cee0b80ad9d____ZL7spec_id", raw)
    r.check({"uidc5885cee0b80ad9d____ZL7spec_id": (2.5, 99, None, 123456, 10, None)})


# composite-padding-desc.ll: struct TestStruct { int; char; } zero-initialised, native:
# descriptors (0, 0, 4), (1, 4, 1), (-1, 5, 3); the default blob is 8 zero bytes.
# composite-default-value-padding.ll: the same struct = {20, 'c'} then a bool = true, emulated:
# sizes 8 and 1, blob 14 00 00 00 63 00 00 00 01 (9 bytes). sycl-post-link's emulated records
# are (0, 0, 8) and (1, 0, 1): xmux keeps its per-leaf records there (docs/architecture.md).
@pytest.mark.parametrize("mode", MODES)
def test_composite_tail_padding_and_default_blob(mode):
    zero = Reader({"fb86570d411366d1____ZL9SpecConst": (rt.Struct((I32, I8)), (0, 0))}, mode)
    descs, blob = _sets(zero)
    assert descs == {"fb86570d411366d1____ZL9SpecConst": [(0, 0, 4), (1, 4, 1), (PAD, 5, 3)]}
    assert blob == bytes(8)
    r = Reader(
        {
            "9d329ad59055e972____ZL12StructSpecId": (rt.Struct((I32, I8)), (20, 99)),
            "9d329ad59055e972____ZL10BoolSpecId": (rt.SCALARS["i1"], True),
        },
        mode,
    )
    descs, blob = _sets(r)
    assert descs == {
        "9d329ad59055e972____ZL12StructSpecId": [(0, 0, 4), (1, 4, 1), (PAD, 5, 3)],
        "9d329ad59055e972____ZL10BoolSpecId": [(2, 0, 1)],
    }
    assert blob == bytes.fromhex("140000006300000001")
    assert [c.offset for c in r.prog.spec_constants.values()] == [0, 8]
    r.check({})
    r.check({"9d329ad59055e972____ZL10BoolSpecId": False},
            spec_constants={"9d329ad59055e972____ZL10BoolSpecId": False})


# non_native/spec_const_alignment_test.cpp: three char constants 'a', 'b', 'c' and
# Composite{float f; int i; char c;} = {3.14f, 42, 'X'}; set to 'U', 'V', 'W' and
# {2.71f, 99, 'Y'} in all 24 orders, each read back. Emulated, the composite is aligned to 4:
# the padding before it is appended to the third char (sycl-post-link's emulated form).
@pytest.mark.parametrize("mode", MODES)
def test_alignment_of_a_composite_after_chars_all_orders(mode):
    import itertools

    consts = {
        "char_spec0": (I8, ord("a")),
        "char_spec1": (I8, ord("b")),
        "char_spec2": (I8, ord("c")),
        "composite_spec": (rt.Struct((F32, I32, I8)), (3.14, 42, ord("X"))),
    }
    new = {"char_spec0": ord("U"), "char_spec1": ord("V"), "char_spec2": ord("W"),
           "composite_spec": (2.71, 99, ord("Y"))}
    r = Reader(consts, mode)
    descs, blob = _sets(r)
    assert descs["char_spec2"] == ([(2, 0, 1), (PAD, 1, 1)] if mode == "emulated" else [(2, 0, 1)])
    assert descs["composite_spec"] == [(3, 0, 4), (4, 4, 4), (5, 8, 1), (PAD, 9, 3)]
    offsets = [0, 1, 2, 4] if mode == "emulated" else [0, 1, 2, 3]
    assert [c.offset for c in r.prog.spec_constants.values()] == offsets
    assert len(blob) == offsets[-1] + 12
    for order in itertools.permutations(new):
        call = {sid: new[sid] for sid in order}  # handler::set_specialization_constant order
        r.check(new, spec_constants=call)
    r.check({})


# nested-non-packed-struct.cpp, three types as clang lays them out:
# user_defined_type3 { char x; struct { char y; int z; char a; } s; char b; } (defaults 'x',
# 'y', 'z', 'a', 'b'): the inner struct's tail padding and the outer one's are descriptors;
# struct alignas(32) user_defined_type2 { float a; char b; int c; } = { float, i8, i32,
# [20 x i8] }; user_defined_type { float a; user_defined_type2 n; int b alignas(32); char c; }
# = { float, [28 x i8], user_defined_type2, i32, i8, [27 x i8] } (size 96).
UDT3 = rt.Struct((I8, rt.Struct((I8, I32, I8)), I8))
UDT2 = rt.Struct((F32, I8, I32, _pad(20)))
UDT1 = rt.Struct((F32, _pad(28), UDT2, I32, I8, _pad(27)))


def _udt2(a: float, b: int, c: int) -> tuple:
    return (a, b, c, None)


@pytest.mark.parametrize("mode", MODES)
def test_nested_non_packed_and_alignas_structs(mode):
    consts = {
        "spec_id2": (UDT2, _udt2(3.14, 8, 42)),
        "spec_id": (UDT1, (3.14, None, _udt2(3.14, 8, 42), 42, 8, None)),
        "spec_id3": (UDT3, (ord("x"), (ord("y"), ord("z"), ord("a")), ord("b"))),
    }
    r = Reader(consts, mode)
    descs, blob = _sets(r)
    assert descs["spec_id2"] == [(0, 0, 4), (1, 4, 1), (2, 8, 4), (PAD, 12, 20)]
    assert descs["spec_id"] == [
        (4, 0, 4), (6, 32, 4), (7, 36, 1), (8, 40, 4), (PAD, 44, 20),
        (10, 64, 4), (11, 68, 1), (PAD, 69, 27),
    ]
    assert descs["spec_id3"] == [
        (13, 0, 1), (14, 4, 1), (15, 8, 4), (16, 12, 1), (PAD, 13, 3), (17, 16, 1), (PAD, 17, 3)
    ]
    assert [c.offset for c in r.prog.spec_constants.values()] == [0, 32, 128]
    assert len(blob) == 148
    assert blob[128:148] == struct.pack("<b3xb3xib3xb3x", *map(ord, "xyzab"))
    r.check({})
    new = (1.0, None, _udt2(1.0, 3, 2), 2, 3, None)  # user_defined_type new_data(1.0, 2, 3)
    r.prog.set_spec_constant("spec_id", new)
    r.check({"spec_id": new})


# marray_vec.cpp: vec<float, 3> (a class around <3 x float>: 16 bytes, 4 of tail padding) and
# marray<float, 3> (a class around float[3]: 12 bytes), defaults (1, 2, 3), read back.
@pytest.mark.parametrize("mode", MODES)
def test_vec_and_marray_of_three_floats(mode):
    consts = {
        "vec_spec_const": (rt.Struct((rt.Vector(3, F32),)), ((1.0, 2.0, 3.0),)),
        "marray_spec_const": (rt.Struct((rt.Array(3, F32),)), ((1.0, 2.0, 3.0),)),
    }
    r = Reader(consts, mode)
    descs, blob = _sets(r)
    assert descs == {
        "vec_spec_const": [(0, 0, 4), (1, 4, 4), (2, 8, 4), (PAD, 12, 4)],
        "marray_spec_const": [(3, 0, 4), (4, 4, 4), (5, 8, 4)],
    }
    assert blob == struct.pack("<3f4x3f", 1, 2, 3, 1, 2, 3)
    r.check({})
    v = {"vec_spec_const": (np.array([4, 5, 6], np.float32),), "marray_spec_const": ([7, 8, 9],)}
    r.check({k: python_value(consts[k][0], x) for k, x in v.items()}, spec_constants=v)


# bool.ll: a bool constant is one byte (loaded as i8 and truncated in emulated mode); a
# {float, int, char} after it sits at offset 4. vec<bool, N> (xmux: vector<Nxi1>) takes a byte
# per element, as sycl::vec<bool, N> stores it.
@pytest.mark.parametrize("mode", MODES)
def test_bool_and_vector_of_bool(mode):
    b = rt.SCALARS["i1"]
    consts = {
        "name_A": (b, True),
        "name_B": (rt.Struct((F32, I32, I8)), (20.0, 20, 20)),
        "vb": (rt.Vector(4, b), (True, False, False, True)),
        "after": (I16, -2),
    }
    r = Reader(consts, mode)
    descs, blob = _sets(r)
    assert descs["vb"] == [(4, 0, 1), (5, 1, 1), (6, 2, 1), (7, 3, 1)]
    offsets = [0, 4, 16, 20] if mode == "emulated" else [0, 1, 13, 17]
    assert [c.offset for c in r.prog.spec_constants.values()] == offsets
    assert blob[offsets[2]:offsets[2] + 4] == bytes([1, 0, 0, 1])
    r.check({})
    new = {"name_A": False, "vb": np.array([False, True, True, False]), "after": 7}
    r.check({k: python_value(consts[k][0], x) for k, x in new.items()}, spec_constants=new)


# A packed struct (__attribute__((packed)) struct { char c; int i; short s; }, LLVM's
# <{ i8, i32, i16 }>): fields back to back, size 7, alignment 1, no tail padding; a double
# after it is 8-aligned in emulated mode (one byte of padding appended), packed against it in
# native mode. Nested in an array, the elements follow each other every 7 bytes. Read back
# leaf by leaf (emulated: unaligned loads of each field).
@pytest.mark.parametrize("mode", MODES)
def test_packed_struct(mode):
    packed = rt.Struct((I8, I32, I16), packed=True)
    consts = {
        "p": (packed, (-1, 123456789, -2)),
        "d": (rt.SCALARS["f64"], 0.5),
        "q": (rt.Struct((rt.Array(2, I8), I64, rt.Vector(2, F32)), packed=True),
              ((1, 2), -(2**40), (1.5, 2.5))),
    }
    r = Reader(consts, mode)
    descs, blob = _sets(r)
    assert descs["p"] == [(0, 0, 1), (1, 1, 4), (2, 5, 2)] + (
        [(PAD, 7, 1)] if mode == "emulated" else [])
    assert descs["q"] == [(4, 0, 1), (5, 1, 1), (6, 2, 8), (7, 10, 4), (8, 14, 4)]
    offsets = [0, 8, 16] if mode == "emulated" else [0, 7, 15]
    assert [c.offset for c in r.prog.spec_constants.values()] == offsets
    assert blob[:7] == struct.pack("<bih", -1, 123456789, -2)
    assert len(blob) == offsets[2] + 18
    r.check({})
    new = {"p": (127, -5, 300), "q": ((-3, 4), 2**62, (-0.25, 8.0))}
    r.check(new, spec_constants=new)
    r.prog.set_spec_constant("p", struct.pack("<bih", 5, 6, 7))  # the C++ object's 7 bytes
    r.check({"p": (5, 6, 7)})


# SYCL-2020.ll's constants read back: half, int, ComposConst { int; double; myConst }, ComposConst2
# { char; myConst; double; }, ComposConst3 zero-initialised, vec<int, 2>, marray<int, 2>,
# marray<int64_t, 3>; emulated offsets 0, 4, 8, 32, 56, 72, 80, 88 (the FileCheck port has the
# records).
@pytest.mark.parametrize("mode", MODES)
def test_sycl2020_types_read_back(mode):
    my = rt.Struct((I32, F32))
    consts = {
        "id_half": (rt.SCALARS["f16"], 2.0),
        "id_int": (I32, 42),
        "id_compos": (rt.Struct((I32, rt.SCALARS["f64"], my)), (1, 2.0, (13, 8.25))),
        "id_compos2": (rt.Struct((I8, my, rt.SCALARS["f64"])), (1, (52, 47.25), 2.0)),
        "id_compos3": (rt.Struct((I32, I32, my)), (0, 0, (0, 0.0))),
        "id_vector": (rt.Struct((rt.Vector(2, I32),)), ((1, 2),)),
        "id_marray": (rt.Struct((rt.Array(2, I32),)), ((1, 2),)),
        "id_marray3": (rt.Struct((rt.Array(3, I64),)), ((1, 2, 3),)),
    }
    r = Reader(consts, mode)
    offsets = [c.offset for c in r.prog.spec_constants.values()]
    assert offsets == ([0, 4, 8, 32, 56, 72, 80, 88] if mode == "emulated"
                       else [0, 2, 6, 30, 54, 70, 78, 86])
    r.check({})
    new = {"id_half": -0.5, "id_compos": (-7, 1e300, (5, -1.5)), "id_compos3": (1, 2, (3, 4.0)),
           "id_vector": ((-1, 9),), "id_marray3": ((2**40, -1, 0),)}
    r.check(new, spec_constants=new)


def test_undef_is_only_for_struct_members():
    src = """
spec.specialization_id @d = [1 : i8, #spec.undef] : !llvm.array<2 x i8>
func.func @k(%x: memref<?xi8>) attributes {mux.kernel = "entry_point"} {
  %v = spec.get_composite "a", @d : !llvm.array<2 x i8>
  func.return
}
"""
    with pytest.raises(xmux.XmuxError, match=r"#spec.undef is only for struct members"):
        xmux.compile(src, cache=False)
    only = src.replace("[1 : i8, #spec.undef] : !llvm.array<2 x i8>",
                       "[#spec.undef] : !llvm.struct<(i8)>").replace(
        "!llvm.array<2 x i8>", "!llvm.struct<(i8)>")
    with pytest.raises(xmux.XmuxError, match=r"needs a defined leaf"):
        xmux.compile(only, cache=False)


# spec_const_and_split.ll (-split=kernel): KERNEL_AAA reads SpecConst then SpecConst2,
# KERNEL_BBB only SpecConst, KERNEL_CCC none. Each kernel's device image lists only what it
# reads, ids from 0: AAA {SpecConst, SpecConst2}, BBB {SpecConst: 0}, CCC {} (empty). (In
# that test sycl-post-link numbers AAA's SpecConst2 0 and SpecConst 1: it walks the calls of
# one intrinsic declaration in LLVM's use-list order; xmux numbers in order of first use, as
# the reference document does.) A helper function's reads count for the kernels calling it,
# in module order (a split module keeps the functions' order: @helper's read comes first); a
# function no kernel calls changes no kernel's set. Values read back per kernel.
SPLIT = """
spec.specialization_id @d1 = 7 : i32
spec.specialization_id @d2 = true
spec.specialization_id @d3 = [1.5 : f32, 2 : i8] : !llvm.struct<(f32, i8)>
func.func @unrelated() -> i1 {
  %b = spec.get_scalar "SpecConst2", @d2 : i1
  func.return %b : i1
}
func.func @helper() -> !llvm.struct<(f32, i8)> {
  %s = spec.get_composite "S", @d3 : !llvm.struct<(f32, i8)>
  func.return %s : !llvm.struct<(f32, i8)>
}
func.func @KERNEL_AAA(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = spec.get_scalar "SpecConst", @d1 : i32
  %b = spec.get_scalar "SpecConst2", @d2 : i1
  %s = func.call @helper() : () -> !llvm.struct<(f32, i8)>
  %f = llvm.extractvalue %s[0] : !llvm.struct<(f32, i8)>
  %fi = arith.fptosi %f : f32 to i32
  %bi = arith.extui %b : i1 to i32
  memref.store %a, %out[%c0] : memref<?xi32>
  memref.store %bi, %out[%c1] : memref<?xi32>
  memref.store %fi, %out[%c2] : memref<?xi32>
  func.return
}
func.func @KERNEL_BBB(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  %c0 = arith.constant 0 : index
  %a = spec.get_scalar "SpecConst", @d1 : i32
  memref.store %a, %out[%c0] : memref<?xi32>
  func.return
}
func.func @KERNEL_CCC(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  func.return
}
"""


@pytest.mark.parametrize("mode", MODES)
def test_split_per_kernel_property_sets(mode):
    prog = xmux.compile(SPLIT, spec_constants=mode, cache=False)
    whole = prog.property_sets[rt.PROPERTY_SET]
    assert whole == {
        "SpecConst2": [(0, 0, 1)] + ([(PAD, 1, 3)] if mode == "emulated" else []),
        "S": [(1, 0, 4), (2, 4, 1), (PAD, 5, 3)],
        "SpecConst": [(3, 0, 4)],
    }
    aaa = prog.kernel_property_sets("KERNEL_AAA")  # @helper comes first in its module too
    assert aaa[rt.PROPERTY_SET] == {
        "S": [(0, 0, 4), (1, 4, 1), (PAD, 5, 3)],
        "SpecConst": [(2, 0, 4)],
        "SpecConst2": [(3, 0, 1)],
    }
    assert aaa[rt.DEFAULT_VALUES_SET]["all"] == struct.pack("<fb3xib", 1.5, 2, 7, 1)
    bbb = prog.kernel_property_sets("KERNEL_BBB")
    assert bbb == {rt.PROPERTY_SET: {"SpecConst": [(0, 0, 4)]},
                   rt.DEFAULT_VALUES_SET: {"all": struct.pack("<i", 7)}}
    ccc = prog.kernel_property_sets("KERNEL_CCC")
    assert ccc == {rt.PROPERTY_SET: {}, rt.DEFAULT_VALUES_SET: {"all": b""}}
    with pytest.raises(xmux.XmuxError, match=r"unknown kernel 'KERNEL_DDD'"):
        prog.kernel_property_sets("KERNEL_DDD")
    none = xmux.compile(SPLIT.split("spec.specialization_id")[0] + """
func.func @k(%out: memref<?xi32>) attributes {mux.kernel = "entry_point"} {
  func.return
}""", cache=False)
    assert none.kernel_property_sets("k") == ccc
    with pytest.raises(xmux.XmuxError, match=r"no kernel named 'nope'"):
        none.kernel_property_sets("nope")
    out = np.zeros(3, np.int32)
    prog["KERNEL_AAA"](out, global_size=1)
    np.testing.assert_array_equal(out, [7, 1, 1])
    prog["KERNEL_AAA"](out, global_size=1,
                       spec_constants={"SpecConst": -3, "SpecConst2": False, "S": (9.0, 0)})
    np.testing.assert_array_equal(out, [-3, 0, 9])
    prog.set_spec_constant("SpecConst", 11)
    prog["KERNEL_BBB"](out, global_size=1)
    assert out[0] == 11


# The .prop files themselves. sycl-post-link writes each property as "2|" + its bytes (a
# 64-bit bit count in front, 6 bits per character, least significant first); descriptors are
# uint32 triples. SYCL-2020-zeroinitializer-array-of-arrays.ll (native) gives these lines for
# the program of tests/filecheck/lower_spec_constants/dpcpp_zeroinitializer_arrays.mlir, and
# composite-default-value-padding.ll (emulated) its default-value line; its descriptor lines
# are sycl-post-link's per-constant emulated records, (0, 0, 8) and (1, 0, 1), where xmux keeps
# per-leaf records (docs/architecture.md).
ZEROINIT_PROP = """[SYCL/specialization constants]
9f47062a80eecfa7____ZL8coeff_id=2|gNAAAAAAAAAAAAAAAAAAAQAAAAQAAAAAEAAAAQAAAAgAAAAAIAAAAQAAAAwAAAAAMAAAAQAAAAABAAAAQAAAAQAAAAQBAAAAUAAAAQAAAAgBAAAAYAAAAQAAAAwBAAAAcAAAAQAAAAACAAAAgAAAAQAAAAA
405761736d5a1797____ZL9coeff_id2=2|gNAAAAAAAAQCAAAAAAAAAQAAAAgCAAAAEAAAAQAAAAwCAAAAIAAAAQAAAAADAAAAMAAAAQAAAAQDAAAAQAAAAQAAAAgDAAAAUAAAAQAAAAwDAAAAYAAAAQAAAAAEAAAAcAAAAQAAAAQEAAAAgAAAAQAAAAA
6da74a122db9f35d____ZL9coeff_id3=2|AGAAAAAAAAgEAAAAAAAAAQAAAAwEAAAAEAAAAQAAAAAFAAAAIAAAAQAAAAQFAAAAQAAAAgAAAAA
[SYCL/specialization constants default values]
all=2|AMAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAg/AAAAA0MzMIQzMzoAZmZGDEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
"""


def test_prop_files_byte_for_byte():
    here = Path(__file__).parent / "filecheck" / "lower_spec_constants"
    mlir = here / "dpcpp_zeroinitializer_arrays.mlir"
    src = "\n".join(x for x in mlir.read_text().splitlines() if not x.startswith("//"))
    prog = xmux.compile(src, spec_constants="native", cache=False)
    assert rt.prop_text(prog.property_sets) == ZEROINIT_PROP
    r = Reader(
        {
            "9d329ad59055e972____ZL12StructSpecId": (rt.Struct((I32, I8)), (20, 99)),
            "9d329ad59055e972____ZL10BoolSpecId": (rt.SCALARS["i1"], True),
        },
        "emulated",
    )
    text = rt.prop_text(r.prog.property_sets).splitlines()
    assert text[-2:] == ["[SYCL/specialization constants default values]",
                         "all=2|IBAAAAAAAAAFAAAAjBAAAEA"]
    assert rt.prop_byte_array(struct.pack("<3I", 0, 0, 8)) == "2|gBAAAAAAAAAAAAAAAAAAAgAAAAA"
    assert text[1] == "9d329ad59055e972____ZL12StructSpecId=" + rt.prop_byte_array(
        struct.pack("<9I", 0, 0, 4, 1, 4, 1, PAD, 5, 3))
