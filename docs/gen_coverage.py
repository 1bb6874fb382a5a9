"""Write docs/coverage.md: every op of the upstream dialects xmux accepts, and how far it gets.

For each op of the dialects in ``DIALECTS`` (as xmux's context registers them, xDSL's or xmux's
definitions) and each op of ``EXTRA_UPSTREAM`` (upstream ops xDSL lacks that upstream pipelines
print), a tiny sample program using the op is tried five ways:

- parse: the sample, in custom syntax, reads into xmux (xmux.parse);
- mlir-opt-19: the module xmux prints reads into mlir-opt-19 and what it prints reads back
  ("n/a" where mlir-opt-19 is not installed);
- cpu: ``xmux.compile`` builds it and the kernel (or host ``@main``) runs;
- nvptx: ``xmux.compile(target="nvptx")`` makes PTX (no GPU needed);
- interpret: ``xmux.interpret`` (or ``xmux-run --interpret``) runs it; its results are compared
  with the CPU's (a difference is reported in the reason column).

Samples come from ``SAMPLES`` (one line of MLIR per op, written in upstream's custom syntax) or,
for ops with fixed operand/result counts and no required attributes or regions, from the op's
IRDL definition (operand types found by trying common types until the op verifies), else the
smallest program of examples/ using the op. An op with none is a row that says "no sample".
Kernel samples are the body of ``gpu.func @k`` whose arguments are fixed (``KERNEL_ARGS``:
``%i0..2: i32``, ``%f0..2: f32``, ...); the results of the sampled op are stored into extra
memref arguments, so no lowering can drop the op as dead.

Each op runs in a forked child (a crash is a row, not a stop), ``--jobs`` at a time; rows are
cached in ``build/coverage-cache.json`` keyed on the sample, xmux's code and the mlir-opt found.
``python docs/gen_coverage.py [--jobs N] [--only OP ...] [--no-cache]``; ``--check`` exits 1 if
docs/coverage.md would change.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = ROOT / "build" / "coverage-cache.json"
OUT = HERE / "coverage.md"

#: upstream dialects whose ops get a row (those xDSL/xmux define; a missing one is listed)
DIALECTS = ("arith", "math", "index", "scf", "cf", "memref", "vector", "complex", "affine",
            "func", "gpu", "acc", "llvm", "ub")

#: upstream ops that xDSL 0.74 does not define and that upstream's pipelines print (issue 31):
#: a row each, "not registered" until a dialect of xmux's defines them
EXTRA_UPSTREAM = (
    "arith.addui_extended", "arith.mulsi_extended", "arith.mului_extended",
    "affine.apply", "affine.min", "affine.max", "affine.if", "affine.parallel",
    "gpu.cluster_dim", "gpu.cluster_dim_blocks", "gpu.cluster_id", "gpu.cluster_block_id",
    "gpu.subgroup_mma_load_matrix", "gpu.subgroup_mma_store_matrix",
    "gpu.subgroup_mma_compute", "gpu.subgroup_mma_constant_matrix",
    "gpu.subgroup_mma_elementwise", "gpu.rotate", "gpu.broadcast_lane",
    "gpu.warp_execute_on_lane_0", "gpu.dynamic_shared_memory", "gpu.lane_id",
    "memref.assume_alignment", "memref.reinterpret_cast", "memref.expand_shape",
    "memref.collapse_shape", "memref.get_global", "memref.alloca_scope", "memref.copy",
    "scf.reduce", "scf.reduce.return", "scf.forall", "scf.execute_region",
    "vector.fma", "vector.splat", "vector.transfer_read", "vector.transfer_write",
    "vector.contract", "vector.outerproduct", "vector.shuffle", "vector.step",
    "math.fpowi", "math.ipowi",
)

#: ops that xmux prints in a form newer than LLVM 19's (it reads both): no mlir-opt-19 round
#: trip, "n/a" with this reason, where mlir-opt-19 reads the sample as written
PRINTED_NEWER = {
    "gpu.printf": "xmux prints LLVM 20's form (a comma before the arguments), which LLVM 19 "
                  "does not read",
}

#: what a row's reason should also say (before the columns' errors)
NOTES = {
    f"memref.dma_{k}": "LLVM 19 has no lowering of memref.dma_* either (mlir-opt-19 "
                       "--finalize-memref-to-llvm leaves them), so no program that runs "
                       "through upstream's CPU or GPU pipelines holds them"
    for k in ("start", "wait")
}

#: ops whose results are addresses (not compared between the CPU and the interpreter)
ADDRESS_OPS = ("memref.extract_aligned_pointer_as_index", "memref.extract_strided_metadata",
               "gpu.dynamic_shared_memory")

COLUMNS = ("parse", "mlir-opt-19", "cpu", "nvptx", "interpret")
MLIR_OPT = shutil.which("mlir-opt-19")
TIMEOUT_S = 120

#: the fixed arguments of every kernel sample, and the values the runs pass
KERNEL_ARGS = (
    [(f"%i{k}", "i32", 7 - 2 * k) for k in range(3)]
    + [(f"%l{k}", "i64", 11 - 4 * k) for k in range(3)]
    + [(f"%x{k}", "index", 5 - 2 * k) for k in range(3)]
    + [(f"%f{k}", "f32", 0.75 - 0.25 * k) for k in range(3)]
    + [(f"%d{k}", "f64", 0.625 - 0.25 * k) for k in range(3)]
    + [(f"%h{k}", "f16", 1.5 - 0.5 * k) for k in range(3)]
    + [(f"%b{k}", "i1", k != 1) for k in range(3)]
    + [("%buf", "memref<16xf32>", None), ("%ibuf", "memref<16xi32>", None),
       ("%dyn", "memref<?xf32>", None), ("%buf2", "memref<4x4xf32>", None),
       ("%hmat", "memref<16x16xf16>", None)]
)
#: values made in the kernel's first lines when the sample names them
VECTOR_PRELUDE = {
    f"%vf{k}": f"%vf{k} = vector.broadcast %f{k} : f32 to vector<4xf32>" for k in range(3)
} | {f"%vi{k}": f"%vi{k} = vector.broadcast %i{k} : i32 to vector<4xi32>" for k in range(3)} | {
    f"%cf{k}": f"%cf{k} = complex.create %f{k}, %f{(k + 1) % 3} : complex<f32>" for k in range(3)
} | {f"%c{k}": f"%c{k} = arith.constant {k} : index" for k in range(9)}

#: operand type → the kernel values an auto-generated sample uses for it
AUTO_TYPES = {
    "i32": ("%i0", "%i1", "%i2"), "f32": ("%f0", "%f1", "%f2"), "index": ("%x0", "%x1", "%x2"),
    "i64": ("%l0", "%l1", "%l2"), "f64": ("%d0", "%d1", "%d2"), "i1": ("%b0", "%b1", "%b2"),
    "f16": ("%h0", "%h1", "%h2"), "vector<4xf32>": ("%vf0", "%vf1", "%vf2"),
    "vector<4xi32>": ("%vi0", "%vi1", "%vi2"), "complex<f32>": ("%cf0", "%cf1", "%cf2"),
    "memref<16xf32>": ("%buf",) * 3,
}


@dataclass(frozen=True)
class Sample:
    """``where``: "kernel" (``text`` is the body of ``gpu.func @k``), "host" (the body of
    ``func.func @main``, ``decls`` after it) or "module" (a whole module with ``@main``;
    ``decls``: the example file it comes from, if any)."""

    text: str
    where: str = "kernel"
    decls: str = ""
    size: int = 1  # work-items of the kernel's one work-group
    auto: bool = False


def K(text: str, size: int = 1) -> Sample:  # noqa: N802 - table notation
    return Sample(text, "kernel", size=size)


def H(text: str, decls: str = "") -> Sample:  # noqa: N802
    return Sample(text, "host", decls)


PRINT_DECL = "func.func private @printMemrefF32(memref<*xf32>)"
MMA = (
    '%a = gpu.subgroup_mma_load_matrix %hmat[%c0, %c0] {leadDimension = 16 : index} : '
    'memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">\n'
    '%b = gpu.subgroup_mma_load_matrix %hmat[%c0, %c0] {leadDimension = 16 : index} : '
    'memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">\n'
    '%c = gpu.subgroup_mma_constant_matrix %h2 : !gpu.mma_matrix<16x16xf16, "COp">\n'
    '%d = gpu.subgroup_mma_compute %a, %b, %c : !gpu.mma_matrix<16x16xf16, "AOp">, '
    '!gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf16, "COp">\n'
    '%e = gpu.subgroup_mma_elementwise addf %d, %c : (!gpu.mma_matrix<16x16xf16, "COp">, '
    '!gpu.mma_matrix<16x16xf16, "COp">) -> !gpu.mma_matrix<16x16xf16, "COp">\n'
    'gpu.subgroup_mma_store_matrix %e, %hmat[%c0, %c0] {leadDimension = 16 : index} : '
    '!gpu.mma_matrix<16x16xf16, "COp">, memref<16x16xf16>'
)
REDUCE = (
    "%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n"
    "%c4 = arith.constant 4 : index\n%z = arith.constant 0.0 : f32\n"
    "%one = arith.constant 1.5 : f32\n%m = memref.alloc() : memref<1xf32>\n"
    "%s = scf.parallel (%i) = (%c0) to (%c4) step (%c1) init (%z) -> f32 {\n"
    "  scf.reduce(%one : f32) {\n  ^bb0(%a: f32, %b: f32):\n"
    "    %t = arith.addf %a, %b : f32\n    scf.reduce.return %t : f32\n  }\n}\n"
    "memref.store %s, %m[%c0] : memref<1xf32>\n"
    "%u = memref.cast %m : memref<1xf32> to memref<*xf32>\n"
    "func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()"
)

SAMPLES: dict[str, Sample] = {
    # arith
    "arith.constant": K("%r = arith.constant 7 : i32"),
    "arith.cmpi": K("%r = arith.cmpi slt, %i0, %i1 : i32"),
    "arith.cmpf": K("%r = arith.cmpf olt, %f0, %f1 : f32"),
    "arith.select": K("%r = arith.select %b0, %f0, %f1 : f32"),
    "arith.extsi": K("%r = arith.extsi %i0 : i32 to i64"),
    "arith.extui": K("%r = arith.extui %i0 : i32 to i64"),
    "arith.extf": K("%r = arith.extf %f0 : f32 to f64"),
    "arith.trunci": K("%r = arith.trunci %l0 : i64 to i32"),
    "arith.truncf": K("%r = arith.truncf %d0 : f64 to f32"),
    "arith.sitofp": K("%r = arith.sitofp %i0 : i32 to f32"),
    "arith.uitofp": K("%r = arith.uitofp %i0 : i32 to f32"),
    "arith.fptosi": K("%r = arith.fptosi %f0 : f32 to i32"),
    "arith.fptoui": K("%r = arith.fptoui %f0 : f32 to i32"),
    "arith.index_cast": K("%r = arith.index_cast %x0 : index to i32"),
    "arith.index_castui": K("%r = arith.index_castui %x0 : index to i64"),
    "arith.bitcast": K("%r = arith.bitcast %f0 : f32 to i32"),
    "arith.addui_extended": K("%r, %o = arith.addui_extended %i0, %i1 : i32, i1"),
    "arith.mulsi_extended": K("%lo, %hi = arith.mulsi_extended %i0, %i1 : i32"),
    "arith.mului_extended": K("%lo, %hi = arith.mului_extended %i0, %i1 : i32"),
    "arith.scaling_extf": K("%r = arith.scaling_extf %h0, %h1 : f16, f16 to f32"),
    "arith.scaling_truncf": K("%r = arith.scaling_truncf %f0, %h1 : f32, f16 to f16"),
    # math
    "math.fpowi": K("%r = math.fpowi %f0, %i1 : f32, i32"),
    "math.ipowi": K("%r = math.ipowi %i0, %i1 : i32"),
    "math.sincos": K("%s, %c = math.sincos %f0 : f32"),
    # index (upstream's index dialect, which xDSL 0.74 lacks)
    "index.add": K("%r = index.add %x0, %x1"),
    "index.constant": K("%r = index.constant 42"),
    # cf
    "cf.br": K("cf.br ^bb1(%i0 : i32)\n^bb1(%r: i32):"),
    "cf.cond_br": K("cf.cond_br %b0, ^bb1(%i0 : i32), ^bb1(%i1 : i32)\n^bb1(%r: i32):"),
    "cf.switch": K("cf.switch %i2 : i32, [default: ^bb1(%i0 : i32), 3: ^bb1(%i1 : i32)]\n"
                   "^bb1(%r: i32):"),
    "cf.assert": K('cf.assert %b0, "must hold"'),
    # scf
    "scf.for": K("%r = scf.for %iv = %c0 to %x0 step %c1 iter_args(%a = %f0) -> (f32) {\n"
                 "  %n = arith.addf %a, %f1 : f32\n  scf.yield %n : f32\n}"),
    "scf.yield": K("%r = scf.if %b0 -> (i32) {\n  scf.yield %i0 : i32\n} else {\n"
                   "  scf.yield %i1 : i32\n}"),
    "scf.if": K("%r = scf.if %b1 -> (i32) {\n  scf.yield %i0 : i32\n} else {\n"
                "  scf.yield %i1 : i32\n}"),
    "scf.while": K("%r = scf.while (%a = %i2) : (i32) -> i32 {\n"
                   "  %t = arith.cmpi slt, %a, %i0 : i32\n  scf.condition(%t) %a : i32\n"
                   "} do {\n^bb0(%a: i32):\n  %n = arith.addi %a, %i1 : i32\n"
                   "  scf.yield %n : i32\n}"),
    "scf.condition": K("%r = scf.while (%a = %i2) : (i32) -> i32 {\n"
                       "  %t = arith.cmpi slt, %a, %i0 : i32\n  scf.condition(%t) %a : i32\n"
                       "} do {\n^bb0(%a: i32):\n  %n = arith.addi %a, %i1 : i32\n"
                       "  scf.yield %n : i32\n}"),
    "scf.index_switch": K("%r = scf.index_switch %c2 -> i32\ncase 2 {\n  scf.yield %i0 : i32\n"
                          "}\ndefault {\n  scf.yield %i1 : i32\n}"),
    "scf.execute_region": K("%r = scf.execute_region -> i32 {\n  scf.yield %i0 : i32\n}"),
    "scf.parallel": H("%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n"
                      "%c4 = arith.constant 4 : index\n%m = memref.alloc() : memref<4xf32>\n"
                      "%one = arith.constant 1.5 : f32\n"
                      "scf.parallel (%i) = (%c0) to (%c4) step (%c1) {\n"
                      "  memref.store %one, %m[%i] : memref<4xf32>\n  scf.reduce\n}\n"
                      "%u = memref.cast %m : memref<4xf32> to memref<*xf32>\n"
                      "func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()", PRINT_DECL),
    "scf.reduce": H(REDUCE, PRINT_DECL),
    "scf.forall": K("scf.forall (%i) in (4) {\n  memref.store %f0, %buf[%i] : memref<16xf32>\n}"),
    # memref
    "memref.load": K("%r = memref.load %buf[%x0] : memref<16xf32>"),
    "memref.store": K("memref.store %f0, %buf[%x2] : memref<16xf32>"),
    "memref.alloc": K("%r = memref.alloc() : memref<4xf32>\n"
                      "memref.store %f0, %r[%c1] : memref<4xf32>\n"
                      "%v = memref.load %r[%c1] : memref<4xf32>\n"
                      "memref.store %v, %buf[%c0] : memref<16xf32>"),
    "memref.alloca": K("%r = memref.alloca() : memref<4xf32>\n"
                       "memref.store %f0, %r[%c1] : memref<4xf32>\n"
                       "%v = memref.load %r[%c1] : memref<4xf32>\n"
                       "memref.store %v, %buf[%c0] : memref<16xf32>"),
    "memref.dealloc": H("%m = memref.alloc() : memref<4xf32>\nmemref.dealloc %m : memref<4xf32>"),
    "memref.dim": K("%r = memref.dim %dyn, %c0 : memref<?xf32>"),
    "memref.rank": K("%r = memref.rank %dyn : memref<?xf32>"),
    "memref.cast": K("%r = memref.cast %buf : memref<16xf32> to memref<?xf32>"),
    "memref.subview": K("%r = memref.subview %buf[%x1] [4] [1] : memref<16xf32> to "
                        "memref<4xf32, strided<[1], offset: ?>>\n"
                        "%v = memref.load %r[%c1] : memref<4xf32, strided<[1], offset: ?>>"),
    "memref.reinterpret_cast": K("%r = memref.reinterpret_cast %buf to offset: [2], sizes: [4],"
                                 " strides: [2] : memref<16xf32> to "
                                 "memref<4xf32, strided<[2], offset: 2>>"),
    "memref.expand_shape": K("%r = memref.expand_shape %buf [[0, 1]] output_shape [4, 4] : "
                             "memref<16xf32> into memref<4x4xf32>"),
    "memref.collapse_shape": K("%r = memref.collapse_shape %buf2 [[0, 1]] : memref<4x4xf32> "
                               "into memref<16xf32>"),
    "memref.copy": K("%m = memref.alloca() : memref<16xf32>\n"
                     "memref.copy %buf, %m : memref<16xf32> to memref<16xf32>\n"
                     "%r = memref.load %m[%c2] : memref<16xf32>"),
    "memref.atomic_rmw": K("%r = memref.atomic_rmw addf %f0, %buf[%c1] : (f32, memref<16xf32>)"
                           " -> f32"),
    "memref.generic_atomic_rmw": K("%r = memref.generic_atomic_rmw %buf[%c3] : memref<16xf32> {"
                                   "\n^bb0(%o: f32):\n  %n = arith.mulf %o, %f0 : f32\n"
                                   "  memref.atomic_yield %n : f32\n}"),
    "memref.atomic_yield": K("%r = memref.generic_atomic_rmw %buf[%c3] : memref<16xf32> {\n"
                             "^bb0(%o: f32):\n  %n = arith.mulf %o, %f0 : f32\n"
                             "  memref.atomic_yield %n : f32\n}"),
    "memref.extract_aligned_pointer_as_index": K(
        "%r = memref.extract_aligned_pointer_as_index %buf : memref<16xf32> -> index"),
    "memref.extract_strided_metadata": K(
        "%b, %o, %s, %t = memref.extract_strided_metadata %buf : memref<16xf32> -> "
        "memref<f32>, index, index, index"),
    "memref.assume_alignment": K("memref.assume_alignment %buf, 16 : memref<16xf32>"),
    "memref.alloca_scope": K("memref.alloca_scope {\n  %m = memref.alloca() : memref<4xf32>\n"
                             "  memref.store %f0, %m[%c0] : memref<4xf32>\n}"),
    "memref.global": Sample(
        'memref.global "private" @g : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>\n'
        "func.func @main() {\n  %m = memref.get_global @g : memref<4xf32>\n"
        "  %u = memref.cast %m : memref<4xf32> to memref<*xf32>\n"
        "  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()\n  return\n}\n" + PRINT_DECL,
        "module"),
    "memref.get_global": Sample(
        'memref.global "private" constant @g : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>\n'
        "func.func @main() {\n  %m = memref.get_global @g : memref<4xf32>\n"
        "  %u = memref.cast %m : memref<4xf32> to memref<*xf32>\n"
        "  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()\n  return\n}\n" + PRINT_DECL,
        "module"),
    # vector
    "vector.broadcast": K("%r = vector.broadcast %f0 : f32 to vector<4xf32>"),
    "vector.splat": K("%r = vector.splat %f0 : vector<4xf32>"),
    "vector.load": K("%r = vector.load %buf[%c2] : memref<16xf32>, vector<4xf32>"),
    "vector.store": K("vector.store %vf0, %buf[%c4] : memref<16xf32>, vector<4xf32>"),
    "vector.extract": K("%r = vector.extract %vf0[2] : f32 from vector<4xf32>"),
    "vector.insert": K("%r = vector.insert %f1, %vf0[1] : f32 into vector<4xf32>"),
    "vector.extractelement": K("%r = vector.extractelement %vf0[%x2 : index] : vector<4xf32>"),
    "vector.insertelement": K("%r = vector.insertelement %f1, %vf0[%x2 : index] : "
                              "vector<4xf32>"),
    "vector.fma": K("%r = vector.fma %vf0, %vf1, %vf2 : vector<4xf32>"),
    "vector.reduction": K("%r = vector.reduction <add>, %vf0 : vector<4xf32> into f32"),
    "vector.print": K("vector.print %f0 : f32"),
    "vector.shuffle": K("%r = vector.shuffle %vf0, %vf1 [0, 5, 2, 7] : vector<4xf32>, "
                        "vector<4xf32>"),
    "vector.maskedload": K("%m = vector.create_mask %c2 : vector<4xi1>\n"
                           "%r = vector.maskedload %buf[%c1], %m, %vf1 : memref<16xf32>, "
                           "vector<4xi1>, vector<4xf32> into vector<4xf32>"),
    "vector.maskedstore": K("%m = vector.create_mask %c2 : vector<4xi1>\n"
                            "vector.maskedstore %buf[%c1], %m, %vf1 : memref<16xf32>, "
                            "vector<4xi1>, vector<4xf32>"),
    "vector.create_mask": K("%r = vector.create_mask %x2 : vector<4xi1>"),
    "vector.constant_mask": K("%r = vector.constant_mask [3] : vector<4xi1>"),
    "vector.transfer_read": K("%r = vector.transfer_read %buf[%c2], %f2 : memref<16xf32>, "
                              "vector<4xf32>"),
    "vector.transfer_write": K("vector.transfer_write %vf0, %buf[%c2] : vector<4xf32>, "
                               "memref<16xf32>"),
    "vector.outerproduct": K("%r = vector.outerproduct %vf0, %vf1 : vector<4xf32>, "
                             "vector<4xf32>"),
    "vector.step": K("%r = vector.step : vector<4xindex>"),
    "vector.contract": K("%r = vector.contract {indexing_maps = [affine_map<(d0) -> (d0)>, "
                         "affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = "
                         '["reduction"], kind = #vector.kind<add>} %vf0, %vf1, %f2 : '
                         "vector<4xf32>, vector<4xf32> into f32"),
    # complex
    "complex.create": K("%r = complex.create %f0, %f1 : complex<f32>"),
    "complex.constant": K("%r = complex.constant [1.0 : f32, 2.0 : f32] : complex<f32>"),
    "complex.re": K("%r = complex.re %cf0 : complex<f32>"),
    "complex.im": K("%r = complex.im %cf0 : complex<f32>"),
    # affine
    "affine.apply": K("%r = affine.apply affine_map<(d0)[s0] -> (d0 * 4 + s0)>(%x0)[%x1]"),
    "affine.min": K("%r = affine.min affine_map<(d0)[s0] -> (d0, s0 - 1)>(%x0)[%x1]"),
    "affine.max": K("%r = affine.max affine_map<(d0)[s0] -> (d0, s0 - 1)>(%x0)[%x1]"),
    "affine.for": K("affine.for %i = 0 to 4 {\n  memref.store %f0, %buf[%i] : memref<16xf32>\n}"),
    "affine.yield": K("%r = affine.for %i = 0 to 4 iter_args(%a = %f0) -> (f32) {\n"
                      "  %n = arith.addf %a, %f1 : f32\n  affine.yield %n : f32\n}"),
    "affine.if": K("affine.for %i = 0 to 4 {\n  affine.if affine_set<(d0) : (d0 - 2 >= 0)>(%i) {"
                   "\n    memref.store %f0, %buf[%i] : memref<16xf32>\n  }\n}"),
    "affine.load": K("affine.for %i = 0 to 4 {\n  %v = affine.load %buf[%i + 1] : memref<16xf32>"
                     "\n  memref.store %v, %buf[%i] : memref<16xf32>\n}"),
    "affine.store": K("affine.for %i = 0 to 4 {\n  affine.store %f0, %buf[%i * 2] : "
                      "memref<16xf32>\n}"),
    "affine.vector_load": K("affine.for %i = 0 to 2 {\n  %v = affine.vector_load %buf[%i * 4] :"
                            " memref<16xf32>, vector<4xf32>\n"
                            "  vector.store %v, %buf[%c8] : memref<16xf32>, vector<4xf32>\n}"),
    "affine.vector_store": K("affine.for %i = 0 to 2 {\n  affine.vector_store %vf0, "
                             "%buf[%i * 4] : memref<16xf32>, vector<4xf32>\n}"),
    "affine.parallel": K("affine.parallel (%i) = (0) to (4) {\n"
                         "  affine.store %f0, %buf[%i] : memref<16xf32>\n}"),
    # func
    "func.func": Sample(f"func.func @main() {{\n  return\n}}\n{PRINT_DECL}", "module"),
    "func.return": Sample("func.func @main() {\n  return\n}", "module"),
    # llvm (as convert-*-to-llvm leave it)
    "llvm.sext": K("%r = llvm.sext %i0 : i32 to i64"),
    "llvm.zext": K("%r = llvm.zext %i0 : i32 to i64"),
    "llvm.trunc": K("%r = llvm.trunc %l0 : i64 to i32"),
    "llvm.fpext": K("%r = llvm.fpext %f0 : f32 to f64"),
    "llvm.fptrunc": K("%r = llvm.fptrunc %d0 : f64 to f32"),
    "llvm.sitofp": K("%r = llvm.sitofp %i0 : i32 to f32"),
    "llvm.uitofp": K("%r = llvm.uitofp %i0 : i32 to f32"),
    "llvm.fptosi": K("%r = llvm.fptosi %f0 : f32 to i32"),
    "llvm.fptoui": K("%r = llvm.fptoui %f0 : f32 to i32"),
    "llvm.bitcast": K("%r = llvm.bitcast %f0 : f32 to i32"),
    "llvm.select": K("%r = llvm.select %b0, %i0, %i1 : i1, i32"),
    "llvm.icmp": K('%r = llvm.icmp "slt" %i0, %i1 : i32'),
    "llvm.fcmp": K('%r = llvm.fcmp "olt" %f0, %f1 : f32'),
    "llvm.mlir.constant": K("%r = llvm.mlir.constant(42 : i32) : i32"),
    "llvm.mlir.zero": K("%r = llvm.mlir.zero : !llvm.ptr"),
    "llvm.br": K("llvm.br ^bb1(%i0 : i32)\n^bb1(%r: i32):"),
    "llvm.cond_br": K("llvm.cond_br %b0, ^bb1(%i0 : i32), ^bb1(%i1 : i32)\n^bb1(%r: i32):"),
    "llvm.extractelement": K("%r = llvm.extractelement %vf0[%i2 : i32] : vector<4xf32>"),
    "llvm.insertelement": K("%r = llvm.insertelement %f1, %vf0[%i2 : i32] : vector<4xf32>"),
    "llvm.shufflevector": K("%r = llvm.shufflevector %vf0, %vf1 [0, 5, 2, 7] : vector<4xf32>"),
    # LLVM 19 prints it generically (no custom form)
    "llvm.intr.vector.reduce.fadd": K('%r = "llvm.intr.vector.reduce.fadd"(%f1, %vf0) : '
                                      "(f32, vector<4xf32>) -> f32"),
    "llvm.alloca": K("%n = llvm.mlir.constant(1 : i32) : i32\n"
                     "%p = llvm.alloca %n x f32 : (i32) -> !llvm.ptr\n"
                     "llvm.store %f0, %p : f32, !llvm.ptr\n%r = llvm.load %p : !llvm.ptr -> f32"),
    "llvm.load": K("%n = llvm.mlir.constant(1 : i32) : i32\n"
                   "%p = llvm.alloca %n x f32 : (i32) -> !llvm.ptr\n"
                   "llvm.store %f0, %p : f32, !llvm.ptr\n%r = llvm.load %p : !llvm.ptr -> f32"),
    "llvm.store": K("%n = llvm.mlir.constant(1 : i32) : i32\n"
                    "%p = llvm.alloca %n x f32 : (i32) -> !llvm.ptr\n"
                    "llvm.store %f0, %p : f32, !llvm.ptr\n%r = llvm.load %p : !llvm.ptr -> f32"),
    "llvm.getelementptr": K("%n = llvm.mlir.constant(4 : i32) : i32\n"
                            "%p = llvm.alloca %n x f32 : (i32) -> !llvm.ptr\n"
                            "%q = llvm.getelementptr %p[2] : (!llvm.ptr) -> !llvm.ptr, f32\n"
                            "llvm.store %f0, %q : f32, !llvm.ptr\n"
                            "%r = llvm.load %q : !llvm.ptr -> f32"),
    "llvm.func": Sample(
        "llvm.func @twice(%a: f32) -> f32 {\n  %r = llvm.fadd %a, %a : f32\n"
        "  llvm.return %r : f32\n}\nfunc.func @main() {\n  %c0 = arith.constant 0 : index\n"
        "  %c = arith.constant 1.5 : f32\n  %r = llvm.call @twice(%c) : (f32) -> f32\n"
        "  %m = memref.alloc() : memref<1xf32>\n  memref.store %r, %m[%c0] : memref<1xf32>\n"
        "  %u = memref.cast %m : memref<1xf32> to memref<*xf32>\n"
        "  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()\n  return\n}\n" + PRINT_DECL,
        "module"),
    # gpu (kernel side)
    "gpu.thread_id": K("%r = gpu.thread_id x", 4),
    "gpu.block_id": K("%r = gpu.block_id x"),
    "gpu.block_dim": K("%r = gpu.block_dim x", 4),
    "gpu.grid_dim": K("%r = gpu.grid_dim x"),
    "gpu.global_id": K("%r = gpu.global_id x", 4),
    "gpu.lane_id": K("%r = gpu.lane_id", 4),
    "gpu.subgroup_id": K("%r = gpu.subgroup_id : index", 4),
    "gpu.subgroup_size": K("%r = gpu.subgroup_size : index", 4),
    "gpu.num_subgroups": K("%r = gpu.num_subgroups : index", 4),
    "gpu.cluster_dim": K("%r = gpu.cluster_dim x"),
    "gpu.cluster_dim_blocks": K("%r = gpu.cluster_dim_blocks x"),
    "gpu.cluster_id": K("%r = gpu.cluster_id x"),
    "gpu.cluster_block_id": K("%r = gpu.cluster_block_id x"),
    "gpu.barrier": K("gpu.barrier", 4),
    "gpu.all_reduce": K("%r = gpu.all_reduce add %f0 {} : (f32) -> f32", 4),
    "gpu.subgroup_reduce": K("%r = gpu.subgroup_reduce add %f0 : (f32) -> f32", 4),
    "gpu.shuffle": K("%r, %ok = gpu.shuffle xor %f0, %i1, %i0 : f32", 4),
    "gpu.yield": K("%r = gpu.all_reduce %f0 {\n^bb0(%a: f32, %b: f32):\n"
                   "  %s = arith.addf %a, %b : f32\n  gpu.yield %s : f32\n} : (f32) -> f32", 4),
    "gpu.printf": K('gpu.printf "v=%f\\n" %f0 : f32'),  # LLVM 19's form (no comma)
    "gpu.rotate": K("%r, %ok = gpu.rotate %f0, 1, 4 : f32", 4),
    "gpu.broadcast_lane": K("%r = gpu.broadcast_lane %f0, specific_lane %i2 : f32", 4),
    "gpu.dynamic_shared_memory": K("%r = gpu.dynamic_shared_memory : "
                                   "memref<?xi8, #gpu.address_space<workgroup>>"),
    "gpu.warp_execute_on_lane_0": K(
        "%lane = gpu.lane_id\n%r = gpu.warp_execute_on_lane_0(%lane)[32] -> (f32) {\n"
        "  gpu.yield %f0 : f32\n}", 32),
    "gpu.subgroup_broadcast": K("%r = gpu.subgroup_broadcast %f0, first_active_lane : f32", 4),
    "gpu.subgroup_mma_load_matrix": K(MMA, 32),
    "gpu.subgroup_mma_store_matrix": K(MMA, 32),
    "gpu.subgroup_mma_compute": K(MMA, 32),
    "gpu.subgroup_mma_constant_matrix": K(MMA, 32),
    "gpu.subgroup_mma_elementwise": K(MMA, 32),
    "memref.view": K("%m = memref.alloca() : memref<64xi8>\n"
                     "%r = memref.view %m[%c0][] : memref<64xi8> to memref<16xf32>\n"
                     "memref.store %f0, %r[%c1] : memref<16xf32>\n"
                     "%v = memref.load %r[%c1] : memref<16xf32>\n"
                     "memref.store %v, %buf[%c0] : memref<16xf32>"),
    "scf.reduce.return": H(REDUCE, PRINT_DECL),
    "llvm.unreachable": K("llvm.cond_br %b1, ^bb2, ^bb1\n^bb2:\n  llvm.unreachable\n^bb1:"),
    "ub.unreachable": K("cf.cond_br %b1, ^bb2, ^bb1\n^bb2:\n  ub.unreachable\n^bb1:"),
    "llvm.fence": K("llvm.fence acq_rel"),
    "llvm.inttoptr": K("%p = llvm.inttoptr %l0 : i64 to !llvm.ptr\n"
                       "%r = llvm.ptrtoint %p : !llvm.ptr to i64"),
    "llvm.ptrtoint": K("%p = llvm.inttoptr %l0 : i64 to !llvm.ptr\n"
                       "%r = llvm.ptrtoint %p : !llvm.ptr to i64"),
    "llvm.insertvalue": K("%u = llvm.mlir.undef : !llvm.struct<(i32, f32)>\n"
                          "%s = llvm.insertvalue %f0, %u[1] : !llvm.struct<(i32, f32)>\n"
                          "%r = llvm.extractvalue %s[1] : !llvm.struct<(i32, f32)>"),
    "llvm.extractvalue": K("%u = llvm.mlir.undef : !llvm.struct<(i32, f32)>\n"
                           "%s = llvm.insertvalue %f0, %u[1] : !llvm.struct<(i32, f32)>\n"
                           "%r = llvm.extractvalue %s[1] : !llvm.struct<(i32, f32)>"),
    # gpu (host side)
    "gpu.launch": H("%c1 = arith.constant 1 : index\n"
                    "gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)\n"
                    "           threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {\n"
                    "  gpu.terminator\n}"),
    "gpu.terminator": H("%c1 = arith.constant 1 : index\n"
                        "gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)\n"
                        "           threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) "
                        "{\n  gpu.terminator\n}"),
    "gpu.alloc": H("%m = gpu.alloc () : memref<4xf32>\ngpu.dealloc %m : memref<4xf32>"),
    "gpu.dealloc": H("%m = gpu.alloc () : memref<4xf32>\ngpu.dealloc %m : memref<4xf32>"),
    "gpu.memcpy": H("%a = gpu.alloc () : memref<4xf32>\n%b = gpu.alloc () : memref<4xf32>\n"
                    "gpu.memcpy %a, %b : memref<4xf32>, memref<4xf32>"),
    "gpu.memset": H("%a = gpu.alloc () : memref<4xf32>\n%z = arith.constant 2.0 : f32\n"
                    "gpu.memset %a, %z : memref<4xf32>, f32"),
    "gpu.wait": H("%t = gpu.wait async\ngpu.wait [%t]"),
    "gpu.host_register": H("%m = memref.alloc() : memref<4xf32>\n"
                           "%u = memref.cast %m : memref<4xf32> to memref<*xf32>\n"
                           "gpu.host_register %u : memref<*xf32>"),
    "gpu.host_unregister": H("%m = memref.alloc() : memref<4xf32>\n"
                             "%u = memref.cast %m : memref<4xf32> to memref<*xf32>\n"
                             "gpu.host_register %u : memref<*xf32>\n"
                             "gpu.host_unregister %u : memref<*xf32>"),
}
_LAUNCH_FUNC = (
    "module attributes {gpu.container_module} {\n"
    "  gpu.module @m {\n    gpu.func @k(%p: memref<1xf32>) kernel {\n"
    "      %c0 = arith.constant 0 : index\n      %v = arith.constant 2.5 : f32\n"
    "      memref.store %v, %p[%c0] : memref<1xf32>\n      gpu.return\n    }\n  }\n"
    "  func.func @main() {\n    %c1 = arith.constant 1 : index\n"
    "    %m = memref.alloc() : memref<1xf32>\n"
    "    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)"
    " args(%m : memref<1xf32>)\n"
    "    %u = memref.cast %m : memref<1xf32> to memref<*xf32>\n"
    "    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()\n    return\n  }\n"
    f"  {PRINT_DECL}\n}}"
)
for _name in ("gpu.launch_func", "gpu.module", "gpu.func", "gpu.return", "gpu.module_end"):
    SAMPLES[_name] = Sample(_LAUNCH_FUNC, "module")


def acc_sample(lines: str) -> Sample:
    """A host @main around OpenACC constructs over %x: memref<4xf32> (ones) and %s: memref<f32>
    (one), both printed after."""
    body = "\n".join("  " + ln for ln in lines.splitlines())
    return Sample(
        "func.func @main() {\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
        "  %c4 = arith.constant 4 : index\n  %v = arith.constant 2.5 : f32\n"
        "  %one = arith.constant 1.0 : f32\n  %x = memref.alloc() : memref<4xf32>\n"
        "  %s = memref.alloc() : memref<f32>\n  %r = memref.alloc() : memref<f32>\n"
        "  scf.for %i = %c0 to %c4 step %c1 {\n    memref.store %one, %x[%i] : memref<4xf32>\n"
        "  }\n  memref.store %one, %s[] : memref<f32>\n  memref.store %one, %r[] : memref<f32>\n"
        f"{body}\n"
        "  %u = memref.cast %x : memref<4xf32> to memref<*xf32>\n"
        "  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()\n"
        "  %w = memref.cast %s : memref<f32> to memref<*xf32>\n"
        "  func.call @printMemrefF32(%w) : (memref<*xf32>) -> ()\n  return\n}\n" + PRINT_DECL,
        "module")


_COPY_IN = "%xd = acc.copyin varPtr(%x : memref<4xf32>) -> memref<4xf32>"
_COPY_OUT = "acc.copyout accPtr(%xd : memref<4xf32>) to varPtr(%x : memref<4xf32>)"
_STORE = "  memref.store %v, %xd[%c1] : memref<4xf32>"
_SERIAL = f"acc.serial dataOperands(%xd : memref<4xf32>) {{\n{_STORE}\n  acc.yield\n}}"
_S_IN = "%sd = acc.copyin varPtr(%s : memref<f32>) -> memref<f32>"
_S_OUT = "acc.copyout accPtr(%sd : memref<f32>) to varPtr(%s : memref<f32>)"
_UPDATE = ("acc.atomic.update %sd : memref<f32> {\n^bb0(%o: f32):\n"
           "  %n = arith.addf %o, %v : f32\n  acc.yield %n : f32\n}")
_ATOMIC_SERIAL = ("acc.serial dataOperands(%sd, %rd : memref<f32>, memref<f32>) {{\n{}\n"
                  "  acc.yield\n}}")
_R_IN = "%rd = acc.copyin varPtr(%r : memref<f32>) -> memref<f32>"
SAMPLES.update({
    "acc.serial": acc_sample(f"{_COPY_IN}\n{_SERIAL}\n{_COPY_OUT}"),
    "acc.kernels": acc_sample(f"{_COPY_IN}\nacc.kernels dataOperands(%xd : memref<4xf32>) {{\n"
                              f"{_STORE}\n  acc.terminator\n}}\n{_COPY_OUT}"),
    "acc.data": acc_sample(f"{_COPY_IN}\nacc.data dataOperands(%xd : memref<4xf32>) {{\n"
                           f"{_SERIAL}\n  acc.terminator\n}}\n{_COPY_OUT}"),
    "acc.terminator": acc_sample(f"{_COPY_IN}\nacc.data dataOperands(%xd : memref<4xf32>) {{"
                                 f"\n{_SERIAL}\n  acc.terminator\n}}\n{_COPY_OUT}"),
    "acc.present": acc_sample(f"{_COPY_IN}\nacc.data dataOperands(%xd : memref<4xf32>) {{\n"
                              "%p = acc.present varPtr(%x : memref<4xf32>) -> memref<4xf32>\n"
                              + _SERIAL.replace("%xd", "%p") + f"\n  acc.terminator\n}}\n"
                              f"{_COPY_OUT}"),
    "acc.create": acc_sample(f"{_COPY_IN.replace('copyin', 'create')}\n{_SERIAL}\n"
                             "acc.delete accPtr(%xd : memref<4xf32>)"),
    "acc.delete": acc_sample(f"{_COPY_IN.replace('copyin', 'create')}\n{_SERIAL}\n"
                             "acc.delete accPtr(%xd : memref<4xf32>)"),
    "acc.enter_data": acc_sample(f"{_COPY_IN}\nacc.enter_data dataOperands(%xd : memref<4xf32>)"
                                 f"\n{_SERIAL}\n"
                                 "%xo = acc.getdeviceptr varPtr(%x : memref<4xf32>) -> "
                                 "memref<4xf32> {dataClause = #acc<data_clause acc_copyout>}\n"
                                 "acc.exit_data dataOperands(%xo : memref<4xf32>)\n"
                                 "acc.copyout accPtr(%xo : memref<4xf32>) to varPtr(%x : "
                                 "memref<4xf32>)"),
    "acc.update": acc_sample("%d = acc.update_device varPtr(%x : memref<4xf32>) -> "
                             "memref<4xf32>\nacc.update dataOperands(%d : memref<4xf32>)"),
    "acc.wait": acc_sample("acc.wait"),
    "acc.init": acc_sample("acc.init"),
    "acc.shutdown": acc_sample("acc.shutdown"),
    "acc.atomic.update": acc_sample(f"{_S_IN}\n{_R_IN}\n"
                                    + _ATOMIC_SERIAL.format(_UPDATE) + f"\n{_S_OUT}"),
    "acc.atomic.write": acc_sample(f"{_S_IN}\n{_R_IN}\n" + _ATOMIC_SERIAL.format(
        "acc.atomic.write %sd = %v : memref<f32>, f32") + f"\n{_S_OUT}"),
    "acc.atomic.read": acc_sample(f"{_S_IN}\n{_R_IN}\n" + _ATOMIC_SERIAL.format(
        "acc.atomic.read %rd = %sd : memref<f32>, f32") + f"\n{_S_OUT}"),
    "acc.atomic.capture": acc_sample(f"{_S_IN}\n{_R_IN}\n" + _ATOMIC_SERIAL.format(
        "acc.atomic.capture {\n  acc.atomic.read %rd = %sd : memref<f32>, f32\n"
        + _UPDATE + "\n  acc.terminator\n}") + f"\n{_S_OUT}"),
})
_I32_SLOT = ("%n = llvm.mlir.constant(1 : i32) : i32\n"
             "%p = llvm.alloca %n x i32 : (i32) -> !llvm.ptr\n"
             "llvm.store %i0, %p : i32, !llvm.ptr\n")
SAMPLES.update({
    "llvm.atomicrmw": K(_I32_SLOT + "%r = llvm.atomicrmw add %p, %i1 monotonic : !llvm.ptr, i32"),
    "llvm.cmpxchg": K(_I32_SLOT + "%r = llvm.cmpxchg %p, %i0, %i1 acq_rel monotonic : "
                      "!llvm.ptr, i32\n%v = llvm.extractvalue %r[0] : !llvm.struct<(i32, i1)>\n"
                      "%w = llvm.load %p : !llvm.ptr -> i32"),
    "llvm.switch": K("llvm.switch %i2 : i32, ^bb1(%i0 : i32) [\n  3: ^bb1(%i1 : i32)\n]\n"
                     "^bb1(%r: i32):"),
    "memref.alloca_scope.return": SAMPLES["memref.alloca_scope"],
})
SAMPLES["llvm.mlir.global"] = Sample(
    "llvm.mlir.global internal constant @g(3.5 : f32) : f32\n"
    "func.func @main() {\n  %c0 = arith.constant 0 : index\n"
    "  %p = llvm.mlir.addressof @g : !llvm.ptr\n  %v = llvm.load %p : !llvm.ptr -> f32\n"
    "  %m = memref.alloc() : memref<1xf32>\n  memref.store %v, %m[%c0] : memref<1xf32>\n"
    "  %u = memref.cast %m : memref<1xf32> to memref<*xf32>\n"
    "  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()\n  return\n}\n" + PRINT_DECL,
    "module")
SAMPLES["llvm.mlir.addressof"] = SAMPLES["llvm.mlir.global"]
_F32_SLOT = ("%n = llvm.mlir.constant(1 : i32) : i32\n"
             "%p = llvm.alloca %n x f32 : (i32) -> !llvm.ptr\n"
             "llvm.store %f0, %p : f32, !llvm.ptr\n")
#: lanes 0-1 of %vf0 stored, lane 2 keeps %f1: both read back into %buf
_MASKED_STORE = ("%m = vector.create_mask %c2 : vector<4xi1>\n"
                 "%n = llvm.mlir.constant(4 : i32) : i32\n"
                 "%p = llvm.alloca %n x f32 : (i32) -> !llvm.ptr\n"
                 "%q1 = llvm.getelementptr %p[1] : (!llvm.ptr) -> !llvm.ptr, f32\n"
                 "%q2 = llvm.getelementptr %p[2] : (!llvm.ptr) -> !llvm.ptr, f32\n"
                 "llvm.store %f1, %q2 : f32, !llvm.ptr\n"
                 "llvm.intr.masked.store %vf0, %p, %m {alignment = 4 : i32} : vector<4xf32>, "
                 "vector<4xi1> into !llvm.ptr\n"
                 "%r1 = llvm.load %q1 : !llvm.ptr -> f32\n%r2 = llvm.load %q2 : !llvm.ptr -> f32\n"
                 "memref.store %r1, %buf[%c0] : memref<16xf32>\n"
                 "memref.store %r2, %buf[%c1] : memref<16xf32>")
#: a DMA of 4 elements of %buf into a local buffer, then a wait on its tag
_DMA = ("%tag = memref.alloca() : memref<1xi32>\n%dst = memref.alloca() : memref<4xf32>\n"
        "memref.dma_start %buf[%c2], %dst[%c0], %c4, %tag[%c0] : memref<16xf32>, "
        "memref<4xf32>, memref<1xi32>\nmemref.dma_wait %tag[%c0], %c4 : memref<1xi32>\n"
        "%r = memref.load %dst[%c1] : memref<4xf32>")
SAMPLES.update({
    # an alloca's generic pointer is a local one on NVPTX (address space 5), any on the CPU
    "llvm.addrspacecast": K(_F32_SLOT + "%q = llvm.addrspacecast %p : !llvm.ptr to "
                            "!llvm.ptr<5>\n%r = llvm.load %q : !llvm.ptr<5> -> f32"),
    "llvm.call_intrinsic": K('%r = llvm.call_intrinsic "llvm.fabs.f32"(%f1) : (f32) -> f32'),
    # empty asm with its output tied to its input: the same program on every target
    "llvm.inline_asm": K('%r = llvm.inline_asm "", "=r,0" %i0 : (i32) -> i32'),
    "llvm.intr.masked.store": K(_MASKED_STORE),
    "llvm.intr.stacksave": K("%s = llvm.intr.stacksave : !llvm.ptr\n" + _F32_SLOT
                             + "%r = llvm.load %p : !llvm.ptr -> f32\n"
                             "llvm.intr.stackrestore %s : !llvm.ptr"),
    # LLVM 19 prints it generically (no custom form)
    "llvm.intr.vector.reduce.fmul": K('%r = "llvm.intr.vector.reduce.fmul"(%f1, %vf0) : '
                                      "(f32, vector<4xf32>) -> f32"),
    "memref.dma_start": K(_DMA),
    "memref.dma_wait": K(_DMA),
})
SAMPLES["llvm.intr.stackrestore"] = SAMPLES["llvm.intr.stacksave"]
SAMPLES["acc.exit_data"] = SAMPLES["acc.enter_data"]
SAMPLES["acc.getdeviceptr"] = SAMPLES["acc.enter_data"]
SAMPLES["acc.update_device"] = SAMPLES["acc.update"]
# acc data clauses and constructs that were "no sample" (helper M)
_FP_RECIPE = (
    "acc.firstprivate.recipe @fp : memref<4xf32> init {\n^bb0(%a: memref<4xf32>):\n"
    "  %m = memref.alloc() : memref<4xf32>\n  acc.yield %m : memref<4xf32>\n} copy {\n"
    "^bb0(%a: memref<4xf32>, %b: memref<4xf32>):\n"
    "  memref.copy %a, %b : memref<4xf32> to memref<4xf32>\n  acc.terminator\n}\n")
#: the private copy of %x is 1.0 + 2.5 at [1]: %s gets it, %x stays ones
_FP_BODY = ("  %t = memref.load %f[%c1] : memref<4xf32>\n  %n = arith.addf %t, %v : f32\n"
            "  memref.store %n, %f[%c1] : memref<4xf32>\n"
            "  %w = memref.load %f[%c1] : memref<4xf32>\n  memref.store %w, %sd[] : memref<f32>")
_FP = (f"{_S_IN}\n%f = acc.firstprivate varPtr(%x : memref<4xf32>) -> memref<4xf32>\n"
       "acc.parallel dataOperands(%sd : memref<f32>) firstprivate(@fp -> %f : memref<4xf32>) "
       f"{{\n{_FP_BODY}\n  acc.yield\n}}\n{_S_OUT}")


def _entry(op: str, extra: str = "") -> str:
    """``op`` as the data clause of an acc.serial that writes %x[1]."""
    return (f"%xd = acc.{op} varPtr(%x : memref<4xf32>) -> memref<4xf32>{extra}\n{_SERIAL}")


def _declared(clause: str, entry: str) -> str:
    """A declared array %y (``clause``) entered with ``entry``; the construct copies it to %x."""
    return (f"%y = memref.alloc() {{acc.declare = #acc.declare<dataClause = {clause}>}} : "
            f"memref<4xf32>\n%yd = acc.{entry} varPtr(%y : memref<4xf32>) -> memref<4xf32>\n"
            "%t = acc.declare_enter dataOperands(%yd : memref<4xf32>)\n"
            "%yp = acc.present varPtr(%y : memref<4xf32>) -> memref<4xf32>\n"
            f"{_COPY_IN}\nacc.serial dataOperands(%yp, %xd : memref<4xf32>, memref<4xf32>) {{\n"
            "  memref.store %v, %yp[%c1] : memref<4xf32>\n"
            "  %e = memref.load %yp[%c1] : memref<4xf32>\n"
            "  memref.store %e, %xd[%c0] : memref<4xf32>\n  acc.yield\n}\n"
            "acc.declare_exit token(%t) dataOperands(%yd : memref<4xf32>)\n"
            f"{_COPY_OUT}")


_BOUNDS = ("%c2 = arith.constant 2 : index\n"
           "%b = acc.bounds lowerbound(%c1 : index) upperbound(%c2 : index)\n"
           "%xd = acc.copyin varPtr(%x : memref<4xf32>) bounds(%b) -> memref<4xf32>\n"
           f"{_SERIAL}\n"
           "acc.copyout accPtr(%xd : memref<4xf32>) bounds(%b) to varPtr(%x : memref<4xf32>)")


def _bound_query(op: str) -> str:
    """acc.get_<op> of %x's bounds, stored as f32 into %s."""
    return ("%c2 = arith.constant 2 : index\n"
            "%b = acc.bounds lowerbound(%c1 : index) upperbound(%c2 : index)\n"
            f"%q = acc.get_{op} %b : (!acc.data_bounds_ty) -> index\n"
            "%qi = arith.index_cast %q : index to i32\n%qf = arith.sitofp %qi : i32 to f32\n"
            "memref.store %qf, %s[] : memref<f32>")


_GLOBAL = (
    'memref.global "private" @gx : memref<4xf32> = dense<1.0> '
    "{acc.declare = #acc.declare<dataClause = acc_create>}\n"
    "acc.global_ctor @gx_ctor {\n  %g = memref.get_global @gx "
    ": memref<4xf32> {acc.declare = #acc.declare<dataClause = acc_create>}\n"
    "  %d = acc.create varPtr(%g : memref<4xf32>) -> memref<4xf32>\n"
    "  acc.declare_enter dataOperands(%d : memref<4xf32>)\n  acc.terminator\n}\n"
    "acc.global_dtor @gx_dtor {\n  %g = memref.get_global @gx "
    ": memref<4xf32> {acc.declare = #acc.declare<dataClause = acc_create>}\n"
    "  %d = acc.getdeviceptr varPtr(%g : memref<4xf32>) -> memref<4xf32> "
    "{dataClause = #acc<data_clause acc_create>}\n"
    "  acc.declare_exit dataOperands(%d : memref<4xf32>)\n"
    "  acc.delete accPtr(%d : memref<4xf32>) {dataClause = #acc<data_clause acc_create>}\n"
    "  acc.terminator\n}\n")
_ROUTINE = (
    "acc.routine @twice_r func(@twice) seq\n"
    "func.func @twice(%a: f32) -> f32 attributes "
    "{acc.routine_info = #acc.routine_info<[@twice_r]>} {\n"
    "  %r = arith.addf %a, %a : f32\n  return %r : f32\n}\n")


def _with(decls: str, s: Sample) -> Sample:
    return Sample(decls + s.text, s.where, s.decls)


SAMPLES.update({
    "acc.attach": acc_sample(_entry("attach") + "\nacc.detach accPtr(%xd : memref<4xf32>)"),
    "acc.detach": acc_sample(_entry("attach") + "\nacc.detach accPtr(%xd : memref<4xf32>)"),
    "acc.deviceptr": acc_sample(_entry("deviceptr")),
    "acc.nocreate": acc_sample(_entry("nocreate")),
    "acc.update_host": acc_sample(f"{_COPY_IN}\n{_SERIAL}\n"
                                  "acc.update_host accPtr(%xd : memref<4xf32>) to "
                                  "varPtr(%x : memref<4xf32>)\n"
                                  "acc.delete accPtr(%xd : memref<4xf32>) "
                                  "{dataClause = #acc<data_clause acc_copyin>}"),
    "acc.bounds": acc_sample(_BOUNDS),
    "acc.get_lowerbound": acc_sample(_bound_query("lowerbound")),
    "acc.get_upperbound": acc_sample(_bound_query("upperbound")),
    "acc.get_stride": acc_sample(_bound_query("stride")),
    "acc.get_extent": acc_sample(_bound_query("extent")),
    "acc.firstprivate": _with(_FP_RECIPE, acc_sample(_FP)),
    "acc.firstprivate.recipe": _with(_FP_RECIPE, acc_sample(_FP)),
    "acc.firstprivate_map": acc_sample(
        f"{_S_IN}\n%xd = acc.firstprivate_map varPtr(%x : memref<4xf32>) -> memref<4xf32>\n"
        "acc.serial dataOperands(%sd, %xd : memref<f32>, memref<4xf32>) {\n"
        "  %e = memref.load %xd[%c1] : memref<4xf32>\n  %n = arith.addf %e, %v : f32\n"
        f"  memref.store %n, %sd[] : memref<f32>\n  acc.yield\n}}\n{_S_OUT}"),
    "acc.use_device": acc_sample(
        "%xu = acc.use_device varPtr(%x : memref<4xf32>) -> memref<4xf32>\n"
        "acc.host_data dataOperands(%xu : memref<4xf32>) {\n"
        "  memref.store %v, %xu[%c1] : memref<4xf32>\n  acc.terminator\n}"),
    "acc.cache": acc_sample(
        f"{_COPY_IN}\nacc.parallel dataOperands(%xd : memref<4xf32>) {{\n"
        "  %xc = acc.cache varPtr(%xd : memref<4xf32>) -> memref<4xf32>\n"
        "  acc.loop gang cache(%xc : memref<4xf32>) control(%i : index) = (%c0 : index) to "
        "(%c4 : index) step (%c1 : index) {\n"
        "    %e = memref.load %xc[%i] : memref<4xf32>\n    %n = arith.addf %e, %v : f32\n"
        "    memref.store %n, %xd[%i] : memref<4xf32>\n    acc.yield\n"
        "  } attributes {independent = [#acc.device_type<none>]}\n"
        f"  acc.yield\n}}\n{_COPY_OUT}"),
    "acc.declare_enter": acc_sample(_declared("acc_create", "create")),
    "acc.declare_exit": acc_sample(_declared("acc_create", "create")),
    "acc.declare_device_resident": acc_sample(_declared("acc_declare_device_resident",
                                                        "declare_device_resident")),
    "acc.declare_link": acc_sample(_declared("acc_declare_link", "declare_link")),
    "acc.declare": acc_sample(
        "%y = memref.alloc() {acc.declare = #acc.declare<dataClause = acc_create>} : "
        "memref<4xf32>\n%yd = acc.create varPtr(%y : memref<4xf32>) -> memref<4xf32>\n"
        f"acc.declare dataOperands(%yd : memref<4xf32>) {{\n{_COPY_IN}\n"
        "acc.serial dataOperands(%yd, %xd : memref<4xf32>, memref<4xf32>) {\n"
        "  memref.store %v, %yd[%c1] : memref<4xf32>\n"
        "  %e = memref.load %yd[%c1] : memref<4xf32>\n"
        f"  memref.store %e, %xd[%c0] : memref<4xf32>\n  acc.yield\n}}\n{_COPY_OUT}\n"
        "  acc.terminator\n}"),
    "acc.global_ctor": _with(_GLOBAL, acc_sample(
        "%g = memref.get_global @gx : memref<4xf32>\n"
        "%gd = acc.present varPtr(%g : memref<4xf32>) -> memref<4xf32>\n"
        f"{_COPY_IN}\nacc.serial dataOperands(%gd, %xd : memref<4xf32>, memref<4xf32>) {{\n"
        "  %e = memref.load %gd[%c1] : memref<4xf32>\n  %n = arith.addf %e, %v : f32\n"
        f"  memref.store %n, %xd[%c1] : memref<4xf32>\n  acc.yield\n}}\n{_COPY_OUT}")),
    "acc.routine": _with(_ROUTINE, acc_sample(
        f"{_COPY_IN}\nacc.serial dataOperands(%xd : memref<4xf32>) {{\n"
        "  %t = func.call @twice(%v) : (f32) -> f32\n"
        f"  memref.store %t, %xd[%c1] : memref<4xf32>\n  acc.yield\n}}\n{_COPY_OUT}")),
    "acc.set": acc_sample("%dn = arith.constant 0 : i32\nacc.set device_num(%dn : i32)\n"
                          f"{_COPY_IN}\n{_SERIAL}\n{_COPY_OUT}"),
    "acc.kernel_environment": acc_sample(
        f"{_COPY_IN}\nacc.kernel_environment dataOperands(%xd : memref<4xf32>) {{\n"
        f"{_SERIAL}\n}}\n{_COPY_OUT}"),
})
SAMPLES["acc.global_dtor"] = SAMPLES["acc.global_ctor"]
SAMPLES["acc.host_data"] = SAMPLES["acc.use_device"]
SAMPLES["scf.forall.in_parallel"] = SAMPLES["scf.forall"]  # its terminator

for _name in ("llvm.return", "llvm.call"):
    SAMPLES[_name] = SAMPLES["llvm.func"]
SAMPLES["func.call"] = Sample(
    "func.func @twice(%a: f32) -> f32 {\n  %r = arith.addf %a, %a : f32\n  return %r : f32\n}\n"
    "func.func @main() {\n  %c0 = arith.constant 0 : index\n  %c = arith.constant 1.5 : f32\n"
    "  %r = func.call @twice(%c) : (f32) -> f32\n  %m = memref.alloc() : memref<1xf32>\n"
    "  memref.store %r, %m[%c0] : memref<1xf32>\n"
    "  %u = memref.cast %m : memref<1xf32> to memref<*xf32>\n"
    "  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()\n  return\n}\n" + PRINT_DECL,
    "module")


# ---------------------------------------------------------------- the ops and their samples


def registered_ops() -> dict[str, type]:
    """Op name → class for every op of ``DIALECTS`` in xmux's context."""
    from xmux.registry import make_context

    ctx = make_context()
    ops: dict[str, type] = {}
    for name in DIALECTS:
        if name not in ctx.registered_dialect_names:
            continue
        dialect = ctx.get_optional_dialect(name) or ctx.load_registered_dialect(name)
        if dialect is None:
            dialect = ctx.get_optional_dialect(name)
        for op in dialect.operations:
            ops[op.name] = op
    return ops


def all_op_names() -> list[str]:
    return sorted(set(registered_ops()) | set(EXTRA_UPSTREAM))


def auto_sample(op: type) -> Sample | None:
    """A kernel sample from the op's definition: fixed operand and result counts, no regions,
    successors or required attributes; operand types tried from AUTO_TYPES (results: the same
    type, i1, or any) until the op verifies."""
    from xdsl.dialects import test
    from xdsl.irdl import OptionalDef, VariadicDef
    from xdsl.irdl.operations import OptAttributeDef, OptPropertyDef
    from xdsl.parser import Parser
    from xdsl.traits import HasParent, IsTerminator

    from xmux.registry import make_context

    try:
        d = op.get_irdl_definition()
    except Exception:  # noqa: BLE001 - not an IRDL op
        return None
    if d.regions or d.successors:
        return None
    if any(isinstance(t, HasParent | IsTerminator) for t in d.traits):
        return None  # needs its parent op: a table sample or an example
    if any(isinstance(o, VariadicDef) and not isinstance(o, OptionalDef) for _, o in d.operands):
        return None
    if any(isinstance(r, VariadicDef) for _, r in d.results):
        return None
    for defs, opt in ((d.properties, OptPropertyDef), (d.attributes, OptAttributeDef)):
        for a in defs.values():
            if not isinstance(a, opt) and a.default_value is None:
                return None
    operands = [o for _, o in d.operands if not isinstance(o, OptionalDef)]
    ctx = make_context()
    types = {t: Parser(ctx, t).parse_type() for t in AUTO_TYPES}
    for t in AUTO_TYPES:
        for r in (t, "i1", *AUTO_TYPES):
            if not d.results and r != t:
                break
            dummies = [test.TestOp(result_types=[types[t]]).results[0] for _ in operands]
            try:
                cand = op.create(operands=dummies, result_types=[types[r]] * len(d.results))
                cand.verify_()
            except Exception:  # noqa: BLE001 - the next candidate
                continue
            names = AUTO_TYPES[t]
            ins = ", ".join(names[k] for k in range(len(operands)))
            res = ", ".join(f"%r{k}" for k in range(len(d.results)))
            lhs = f"{res} = " if res else ""
            ts = ", ".join([t] * len(operands))
            outs = ", ".join([r] * len(d.results))
            return Sample(f'{lhs}"{op.name}"({ins}) : ({ts}) -> ({outs})', auto=True)
    return None


def example_sample(name: str) -> Sample | None:
    """The smallest program of examples/ with a host @main that uses the op."""
    pattern = re.compile(r"(?<![\w.])" + re.escape(name) + r"(?![\w.])")
    paths = sorted((ROOT / "examples").rglob("*.mlir"), key=lambda p: (p.stat().st_size, p))
    for path in paths:
        if "Output" in path.parts:
            continue
        text = path.read_text()
        if "func.func @main()" in text and pattern.search(text):
            return Sample(text, "module", decls=str(path.relative_to(ROOT)))
    return None


def sample_for(name: str, ops: dict[str, type]) -> Sample | None:
    """The table's sample, else one from the op's definition, else an example using it."""
    if name in SAMPLES:
        return SAMPLES[name]
    auto = auto_sample(ops[name]) if name in ops else None
    return auto or example_sample(name)


def program_text(s: Sample) -> str:
    """The sample as a module (kernel samples without their result sinks yet)."""
    if s.where == "module":
        return s.text
    if s.where == "host":
        body = "\n".join("  " + line for line in s.text.splitlines())
        return f"func.func @main() {{\n{body}\n  return\n}}\n{s.decls}\n"
    used = [line for name, line in VECTOR_PRELUDE.items()
            if re.search(re.escape(name) + r"\b", s.text)]
    args = ", ".join(f"{n}: {t}" for n, t, _ in KERNEL_ARGS)
    body = "\n".join("    " + line for line in [*used, *s.text.splitlines()])
    return (f"gpu.module @m {{\n  gpu.func @k({args}) kernel {{\n{body}\n"
            "    gpu.return\n  }\n}\n")


# ---------------------------------------------------------------- the checks


def _one_line(text: str, limit: int = 110) -> str:
    text = text.replace("@k.mux-kernel", "@k")
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip().strip("^")]
    if len(lines) > 1 and lines[0].endswith(":"):  # "cannot parse X:", location, line, why
        lines = [lines[0] + " " + lines[-1]]
    # the most telling line: one that says error / not / unsupported, else the first
    pick = next((ln for ln in lines if re.search(r"error|not |unsupported|no ", ln, re.I)
                 and not ln.startswith("File ")), lines[0] if lines else "")
    pick = pick.replace("|", "\\|")
    return pick if len(pick) <= limit else pick[: limit - 1] + "…"


@contextlib.contextmanager
def captured() -> Iterator[io.StringIO]:
    """stdout and stderr of this process and its children (fds 1, 2) into the yielded buffer
    once the block ends."""
    buf = io.StringIO()
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 1)
        os.dup2(tmp.fileno(), 2)
        try:
            yield buf
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            tmp.seek(0)
            buf.write(tmp.read().decode(errors="replace"))


class Failed(Exception):
    pass


def _attempt(fn, *args):
    """fn(*args) with its output captured: (value, output) or Failed(reason)."""
    with captured() as out:
        try:
            value = fn(*args)
            error = None
        except Exception as e:  # noqa: BLE001 - every failure is a row's reason
            from xmux.errors import is_user_error

            kind = "" if is_user_error(e) else f"traceback: {type(e).__name__}: "
            error = kind + str(e)
    if error is not None:
        text = out.getvalue()
        detail = [ln for ln in text.splitlines() if "error" in ln.lower()]
        raise Failed(_one_line(error + ("\n" + detail[0] if detail else "")))
    return value, out.getvalue()


def add_sinks(module, op_name: str) -> list[int] | None:
    """Store every result of the first ``op_name`` of kernel @k into a new memref argument;
    None if the sample does not contain the op, else the positions (among the sinks) of those
    holding addresses, which differ between runs."""
    from xdsl.builder import Builder
    from xdsl.dialects import arith, complex, memref, vector
    from xdsl.dialects.builtin import (
        AnyFloat,
        ComplexType,
        FunctionType,
        IndexType,
        IntegerType,
        MemRefType,
        VectorType,
        i64,
    )
    from xdsl.rewriter import InsertPoint

    from xmux.dialects.gpu_func import FuncOp

    func = next((o for o in module.walk() if isinstance(o, FuncOp)), None)
    target = next((o for o in module.walk() if o.name == op_name), None)
    if target is None:
        return None
    addresses: list[int] = []
    if func is None:
        return addresses
    block = func.body.blocks[0]
    terminator = block.last_op
    builder = Builder(InsertPoint.before(terminator) if terminator is not None
                      else InsertPoint.at_end(block))
    n_inputs = len(func.function_type.inputs.data)
    new_types = []
    c0 = None

    def sink(value, elem_type, count: int = 1):
        nonlocal c0, n_inputs
        ty = MemRefType(elem_type, [count])
        arg = block.insert_arg(ty, n_inputs)
        n_inputs += 1
        new_types.append(ty)
        if c0 is None:
            c0 = builder.insert(arith.ConstantOp.from_int_and_width(0, IndexType())).result
        return arg

    # results defined inside a region of the op's block stay there: only the op's own results
    if target.parent_block() is not block and target.parent_op() is not func:
        # a nested op (e.g. scf.yield): its enclosing op's results are the sample's results
        outer = target
        while outer.parent_block() is not block:
            outer = outer.parent_op()
        results = list(outer.results)
    else:
        results = list(target.results)
    for r in results:
        t = r.type
        if target.name in ADDRESS_OPS:
            addresses.append(len(new_types))
        if isinstance(t, VectorType):
            flat = VectorType(t.element_type, [t.element_count()]) if t.get_num_dims() != 1 \
                else t
            v = r if flat == t else builder.insert(vector.ShapeCastOp(r, flat)).result
            if t.get_num_dims() == 0:
                continue
            if t.element_type == IndexType() or getattr(t.element_type, "width", 8) == 1:
                continue  # vectors of index / i1 in memory: no portable layout
            arg = sink(r, t.element_type, t.element_count())
            builder.insert(vector.StoreOp(v, arg, [c0]))
        elif isinstance(t, MemRefType):
            addresses.append(len(new_types))
            p = builder.insert(memref.ExtractAlignedPointerAsIndexOp.get(r)).results[0]
            arg = sink(p, i64)
            cast = builder.insert(arith.IndexCastOp(p, i64)).result
            builder.insert(memref.StoreOp.get(cast, arg, [c0]))
        elif isinstance(t, ComplexType):
            arg = sink(r, t.element_type, 2)
            re_ = builder.insert(complex.ReOp(r)).results[0]
            im_ = builder.insert(complex.ImOp(r)).results[0]
            c1 = builder.insert(arith.ConstantOp.from_int_and_width(1, IndexType())).result
            builder.insert(memref.StoreOp.get(re_, arg, [c0]))
            builder.insert(memref.StoreOp.get(im_, arg, [c1]))
        elif isinstance(t, IntegerType | IndexType | AnyFloat):
            arg = sink(r, t)
            builder.insert(memref.StoreOp.get(r, arg, [c0]))
    if new_types:
        ft = func.function_type
        func.function_type = FunctionType.from_lists([*ft.inputs.data, *new_types],
                                                     ft.outputs.data)
    return addresses


def kernel_args(module):
    """numpy values for kernel @k's arguments (KERNEL_ARGS, then the sinks)."""
    import numpy as np
    from xdsl.dialects.builtin import MemRefType

    from xmux.dialects.gpu_func import FuncOp

    func = next(o for o in module.walk() if isinstance(o, FuncOp))
    scalars = {"i32": np.int32, "i64": np.int64, "f32": np.float32, "f64": np.float64,
               "f16": np.float16, "i1": np.bool_, "index": int}
    values: list[object] = []
    for k, t in enumerate(func.function_type.inputs.data):
        if k < len(KERNEL_ARGS) and KERNEL_ARGS[k][2] is not None:
            name, tname, v = KERNEL_ARGS[k]
            values.append(scalars[tname](v))
            continue
        assert isinstance(t, MemRefType)
        shape = [16 if d == -1 else d for d in t.get_shape()]
        et = str(t.element_type)
        dtype = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "i32": np.int32,
                 "i64": np.int64, "i1": np.bool_, "index": np.int64, "i8": np.int8,
                 "i16": np.int16}.get(et, np.float32)
        if k < len(KERNEL_ARGS):
            values.append((np.arange(int(np.prod(shape))) % 7 + 1).astype(dtype).reshape(shape))
        else:
            values.append(np.zeros(shape, dtype))
    return values


def _no_addresses(printed: object) -> str:
    return re.sub(r"base@ = 0x[0-9a-f]+", "base@ = ?", str(printed))


def _check_row(name: str, s: Sample | None, registered: bool) -> dict[str, str]:
    row = dict.fromkeys(COLUMNS, "—")
    row["reason"] = ""
    if s is None:
        row.update(dict.fromkeys(COLUMNS, "no"))
        row["mlir-opt-19"] = "n/a" if MLIR_OPT is None else "no"
        row["reason"] = "no sample" + ("" if registered else "; not registered in xmux")
        return row
    import numpy as np

    import xmux
    from xmux.api import parse

    text = program_text(s)
    reasons: list[str] = [f"upstream: {NOTES[name]}"] if name in NOTES else []

    def fail(col: str, why: str) -> None:
        row[col] = "no"
        reasons.append(f"{col}: {why}")

    try:
        module, _ = _attempt(parse, text, "<sample>")
        row["parse"] = "yes"
    except Failed as e:
        fail("parse", str(e) if registered else f"not registered ({e})")
        row["reason"] = _join(reasons)
        if MLIR_OPT is None:
            row["mlir-opt-19"] = "n/a"
        return row
    addresses: list[int] = []
    if s.where == "kernel":
        found = add_sinks(module, name)
        if found is None:
            fail("parse", f"the sample has no {name}")
        first = sum(v is None for _, _, v in KERNEL_ARGS)  # the arrays before the sinks
        addresses = [first + k for k in found or []]
    final = str(module)
    if s.auto:  # custom syntax: the printed form must read back
        try:
            _attempt(parse, final, "<printed sample>")
        except Failed as e:
            fail("parse", f"printed form does not read back: {e}")

    if MLIR_OPT is None:
        row["mlir-opt-19"] = "n/a"
    else:
        to_opt = final
        if any(op.name.startswith("acc.") for op in module.walk()):
            from xmux.dialects.acc_syntax import llvm19_output

            with llvm19_output():  # LLVM 19 spells acc's recipes its own way
                to_opt = str(module)
        p = subprocess.run([MLIR_OPT], input=to_opt, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            raw = subprocess.run([MLIR_OPT], input=text, capture_output=True, text=True,
                                 timeout=60)
            if raw.returncode != 0 and f"custom op '{name}' is unknown" in raw.stderr:
                row["mlir-opt-19"] = "n/a"  # no round trip through a version without the op
                reasons.append(f"mlir-opt-19: '{name}' is newer than LLVM 19")
            elif raw.returncode == 0 and name in PRINTED_NEWER:
                row["mlir-opt-19"] = "n/a"
                reasons.append(f"mlir-opt-19: {PRINTED_NEWER[name]}")
            else:
                note = "" if raw.returncode == 0 else " (it rejects the sample as written too)"
                fail("mlir-opt-19", _one_line(p.stderr) + note)
        else:
            try:
                _attempt(parse, p.stdout, "<mlir-opt-19 output>")
                row["mlir-opt-19"] = "yes"
            except Failed as e:
                fail("mlir-opt-19", f"its output: {e}")

    cpu_out: object = None
    if s.where == "kernel":
        size = (s.size,)
        try:
            prog, _ = _attempt(lambda: xmux.compile(final, cache=False))
            args = kernel_args(module)
            _attempt(lambda: prog.kernel("k")(*args, global_size=size, local_size=size))
            cpu_out = [a for a in args if isinstance(a, np.ndarray)]
            row["cpu"] = "yes"
        except Failed as e:
            fail("cpu", str(e))
        try:
            prog, _ = _attempt(lambda: xmux.compile(final, cache=False, target="nvptx"))
            row["nvptx"] = "yes" if ".entry k(" in prog.ptx else "no"
            if row["nvptx"] == "no":
                reasons.append("nvptx: no .entry k in the PTX")
        except Failed as e:
            fail("nvptx", str(e))
        try:
            args = kernel_args(module)
            _attempt(lambda: xmux.interpret(final, "k", *args, global_size=size,
                                            local_size=size))
            row["interpret"] = "yes"
            got = [a for a in args if isinstance(a, np.ndarray)]
            if cpu_out is not None and not all(
                np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
                for k, (a, b) in enumerate(zip(cpu_out, got, strict=True))
                if k not in addresses
            ):
                reasons.append("interpret: results differ from the CPU's")
        except Failed as e:
            fail("interpret", str(e))
    else:
        from xmux.interpret import run_host
        from xmux.runner import HostProgram

        try:
            _, cpu_out = _attempt(lambda: HostProgram(final).run_main())
            row["cpu"] = "yes"
        except Failed as e:
            fail("cpu", str(e))
        try:
            _attempt(lambda: HostProgram(final, target="nvptx"))
            row["nvptx"] = "yes"
        except Failed as e:
            if "no entry-point kernel" in str(e):
                row["nvptx"] = "n/a"  # host code only: it runs on the CPU under --target nvptx
            else:
                fail("nvptx", str(e))
        try:
            _, out = _attempt(lambda: run_host(final))
            row["interpret"] = "yes"
            if cpu_out is not None and _no_addresses(out) != _no_addresses(cpu_out):
                reasons.append("interpret: prints differ from the CPU's")
                if os.environ.get("COVERAGE_DEBUG"):
                    print(repr(out), repr(cpu_out), file=sys.__stderr__)
        except Failed as e:
            fail("interpret", str(e))
    row["reason"] = _join(reasons)
    if reasons and s.where == "module" and s.decls:
        row["reason"] += f" (sample: {s.decls})"
    return row


def _join(reasons: list[str]) -> str:
    """'col: why' items, columns with the same why merged ('cpu, nvptx: why')."""
    merged: dict[str, list[str]] = {}
    for r in reasons:
        col, _, why = r.partition(": ")
        merged.setdefault(why, []).append(col)
    return "; ".join(f"{', '.join(cols)}: {why}" for why, cols in merged.items())


# ---------------------------------------------------------------- driver


def _cache_key(name: str, s: Sample | None) -> str:
    from xmux.targets.driver import code_hash

    h = hashlib.sha256()
    for part in (name, repr(s), code_hash(), MLIR_OPT or "", Path(__file__).read_text()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _run_forked(name: str, s: Sample | None, registered: bool) -> tuple[int, int]:
    """Fork a child checking one op; (pid, read end of its pipe)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            signal.alarm(TIMEOUT_S)
            row = _check_row(name, s, registered)
            data = json.dumps(row).encode()
        except BaseException as e:  # noqa: BLE001 - the row says it
            data = json.dumps({"crash": f"{type(e).__name__}: {e}"}).encode()
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    return pid, r


def check_all(names: list[str], jobs: int, use_cache: bool) -> dict[str, dict[str, str]]:
    import xmux  # noqa: F401 - imported once, before the children fork
    import xmux.api  # noqa: F401
    import xmux.interpret  # noqa: F401
    import xmux.runner  # noqa: F401

    ops = registered_ops()
    cache: dict[str, dict] = {}
    if use_cache and CACHE.exists():
        with contextlib.suppress(ValueError):
            cache = json.loads(CACHE.read_text())
    rows: dict[str, dict[str, str]] = {}
    todo: list[tuple[str, Sample | None, str]] = []
    for name in names:
        s = sample_for(name, ops)
        key = _cache_key(name, s)
        if key in cache:
            rows[name] = cache[key]
        else:
            todo.append((name, s, key))
    if todo:  # the children inherit every module a check imports (seconds each otherwise)
        with contextlib.suppress(Exception):
            _check_row("arith.addi", sample_for("arith.addi", ops), True)
    running: dict[int, tuple[str, str, int, float]] = {}  # fd → (name, key, pid, start)
    chunks: dict[int, list[bytes]] = {}
    t0 = time.time()
    done = 0
    while todo or running:
        while todo and len(running) < jobs:
            name, s, key = todo.pop(0)
            pid, fd = _run_forked(name, s, name in ops)
            running[fd] = (name, key, pid, time.time())
            chunks[fd] = []
        ready, _, _ = select.select(list(running), [], [], 1.0)
        for fd in ready:
            data = os.read(fd, 1 << 16)
            if data:
                chunks[fd].append(data)
                continue
            name, key, pid, _ = running.pop(fd)
            os.close(fd)
            _, status = os.waitpid(pid, 0)
            raw = b"".join(chunks.pop(fd))
            try:
                row = json.loads(raw) if raw else {"crash": f"child status {status}"}
            except ValueError:
                row = {"crash": f"child status {status}"}
            if "crash" in row:
                row = dict.fromkeys(COLUMNS, "no") | {"reason": "crash: " + _one_line(
                    row["crash"])}
            rows[name] = row
            cache[key] = row
            done += 1
            print(f"[{done}/{done + len(todo) + len(running)}] {name}: "
                  + " ".join(row[c] for c in COLUMNS), file=sys.stderr)
        for _name, _key, pid, start in list(running.values()):
            if time.time() - start > TIMEOUT_S + 30:
                os.kill(pid, signal.SIGKILL)
    if use_cache:
        CACHE.parent.mkdir(exist_ok=True)
        CACHE.write_text(json.dumps(cache))
    print(f"checked {len(names)} ops in {time.time() - t0:.0f} s", file=sys.stderr)
    return rows


def render(rows: dict[str, dict[str, str]]) -> str:
    def count(col: str) -> int:
        return sum(r[col] == "yes" for r in rows.values())

    mlir = "mlir-opt-19 (n/a: not installed)" if MLIR_OPT is None else "mlir-opt-19"
    from xmux.registry import make_context

    known = make_context().registered_dialect_names
    missing = [d for d in DIALECTS if d not in known]
    out = [
        "# Upstream ops in xmux",
        "",
        "Generated by `python docs/gen_coverage.py` (see its docstring); do not edit. One row per",
        f"op of the dialects {', '.join(DIALECTS)} as xmux registers them, and per upstream op",
        "in its EXTRA_UPSTREAM list. parse: the sample in custom syntax reads into xmux;",
        f"{mlir}: what xmux prints reads into mlir-opt-19 and back (n/a with a reason: an",
        "op LLVM 19 does not have, or one xmux prints in a newer form); cpu: built and run;",
        "nvptx: PTX made (n/a: host code only,",
        "which runs on the CPU under --target nvptx); interpret: run by xmux.interpret, results",
        "compared with the CPU's. \"—\": not tried (an earlier step failed).",
        "",
        f"{len(rows)} ops: " + ", ".join(f"{c} {count(c)}" for c in COLUMNS) + ".",
        "",
        *([f"Dialects xmux does not register: {', '.join(missing)}.", ""] if missing else []),
        "| op | " + " | ".join(COLUMNS) + " | reason |",
        "|---|" + "---|" * len(COLUMNS) + "---|",
    ]
    for name in sorted(rows):
        r = rows[name]
        out.append(f"| `{name}` | " + " | ".join(r[c] for c in COLUMNS) + f" | {r['reason']} |")
    return "\n".join(out) + "\n"


def parse_table(text: str) -> dict[str, dict[str, str]]:
    """The rows of a coverage.md (for the suite's check)."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\| `([^`]+)` \| (.*) \|$", line)
        if m:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", m.group(2))]
            rows[m.group(1)] = dict(zip((*COLUMNS, "reason"), cells, strict=False))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", nargs="*", help="check these ops and print their rows")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--check", action="store_true", help="exit 1 if coverage.md would change")
    args = ap.parse_args(argv)
    if args.only:
        rows = check_all(args.only, args.jobs, use_cache=False)
        print(render(rows))
        return 0
    rows = check_all(all_op_names(), args.jobs, not args.no_cache)
    text = render(rows)
    if args.check:
        same = OUT.exists() and OUT.read_text() == text
        print("docs/coverage.md is " + ("current" if same else "stale"))
        return 0 if same else 1
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
