"""Compile time against module size: where the time of a large module goes.

Two shapes of module, each at growing sizes:

- ``one``: one kernel whose body is N straight-line statements (a load, three arithmetic ops
  and a store each: ~6 ops a statement), the shape of generated or unrolled code;
- ``many``: N/50 kernels of 50 statements each.

Per size: the stages of ``xmux.compile`` timed apart (xDSL parse, the pass pipeline, the
emission of LLVM IR text, LLVM: parse + O3 + code generation, in the contained child) and
the whole, with the seconds per thousand ops, so super-linear growth shows as a rising figure.

    .venv/bin/python bench/compile_scaling.py [--sizes 500,1000,2000,4000] [--json F]
"""

from __future__ import annotations

import argparse
import json
import time

SHAPES = ("one", "many")


def statements(n: int, prefix: str = "") -> list[str]:
    out = []
    for k in range(n):
        out += [
            f"    %c{prefix}{k} = arith.constant {k % 97} : index",
            f"    %j{prefix}{k} = arith.addi %i, %c{prefix}{k} : index",
            f"    %v{prefix}{k} = memref.load %a[%j{prefix}{k}] : memref<?xf32>",
            f"    %w{prefix}{k} = arith.mulf %v{prefix}{k}, %s : f32",
            f"    %u{prefix}{k} = arith.addf %w{prefix}{k}, %v{prefix}{k} : f32",
            f"    memref.store %u{prefix}{k}, %b[%j{prefix}{k}] : memref<?xf32>",
        ]
    return out


def kernel(name: str, n: int) -> str:
    head = (f"  func.func @{name}(%a: memref<?xf32>, %b: memref<?xf32>, %s: f32) "
            'attributes {mux.kernel = "entry_point"} {\n'
            "    %i = mux.get_global_id 0 : index\n")
    return head + "\n".join(statements(n)) + "\n    func.return\n  }\n"


def module(shape: str, n: int) -> str:
    if shape == "one":
        return "module {\n" + kernel("k", n) + "}\n"
    per = 50
    return "module {\n" + "".join(kernel(f"k{m}", per) for m in range(max(1, n // per))) + "}\n"


def measure(shape: str, n: int) -> dict:
    from xdsl.parser import Parser

    from xmux import api, pipelines
    from xmux.registry import make_context
    from xmux.runtime import jit
    from xmux.runtime.emit import emit_text

    text = module(shape, n)
    t0 = time.perf_counter()
    mod = Parser(make_context(), text).parse_module()
    t1 = time.perf_counter()
    ops = sum(1 for _ in mod.walk())
    api.run_pipeline(mod, pipelines.cpu(), None)
    t2 = time.perf_counter()
    ir = emit_text(mod)
    t3 = time.perf_counter()
    jit.compile_ir(ir, disk_cache=False)
    t4 = time.perf_counter()
    jit.clear_memory_cache()
    t5 = time.perf_counter()
    api.compile(text, cache=False)
    t6 = time.perf_counter()
    row = {
        "shape": shape, "statements": n, "ops": ops, "mb": round(len(text) / 1e6, 2),
        "parse_s": t1 - t0, "passes_s": t2 - t1, "emit_s": t3 - t2, "llvm_s": t4 - t3,
        "compile_s": t6 - t5,
    }
    row["compile_ms_per_kop"] = 1000 * row["compile_s"] / (ops / 1000)
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="500,1000,2000,4000,8000")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    print("| shape | statements | ops | MB | parse s | passes s | emit s | LLVM s | compile s "
          "| ms per 1k ops |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for shape in args.shapes.split(","):
        for n in map(int, args.sizes.split(",")):
            r = measure(shape, n)
            rows.append(r)
            print(f"| {shape} | {n} | {r['ops']} | {r['mb']} | {r['parse_s']:.2f} | "
                  f"{r['passes_s']:.2f} | {r['emit_s']:.2f} | {r['llvm_s']:.2f} | "
                  f"{r['compile_s']:.2f} | {r['compile_ms_per_kop']:.0f} |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
