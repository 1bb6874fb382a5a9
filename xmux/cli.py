"""Command-line tools: ``xmux-opt`` (xdsl-opt with xmux) and ``xmux-run`` (JIT-run host @main)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.xdsl_opt_main import xDSLOptMain

from xmux.errors import XmuxError, format_error, is_user_error


class XmuxOptMain(xDSLOptMain):
    """xdsl-opt with xmux's dialects and passes, MLIR-style IR dumps and per-pass timing."""

    version_format = "xmux-opt built on xdsl {xdsl_version}"

    def register_all_dialects(self) -> None:
        from xmux.registry import register_dialects

        register_dialects(self.ctx)  # upstream-syntax gpu / memref in place of xDSL's

    def register_all_passes(self) -> None:
        from xmux.registry import all_passes

        self.available_passes.update(all_passes())  # the one registry of xmux.pipelines

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        format_help = arg_parser.format_help

        def format_help_with_passes() -> str:
            # built only for --help: it imports every pass (about 0.3 s of start-up otherwise)
            arg_parser.epilog = pass_options_help()
            return format_help()

        arg_parser.format_help = format_help_with_passes
        arg_parser.add_argument(
            "--print-ir-after-all",
            action="store_true",
            help="print the IR after every pass to stderr, as mlir-opt does",
        )
        arg_parser.add_argument(
            "--timing",
            action="store_true",
            help="print the time each pass took to stderr (as mlir-opt's --mlir-timing; "
            "--time-passes is the same)",
        )
        arg_parser.add_argument(
            "--acc-syntax",
            choices=("newest", "llvm19"),
            default="newest",
            help="print acc ops in the newest upstream form (default) or in LLVM 19's, which "
            "mlir-opt-19 reads (recipes in the constructs' reduction/private clauses)",
        )
        arg_parser.add_argument(
            "--view-plan",
            metavar="OUT.svg",
            help="run the pipeline (-p, else xmux's CPU pipeline) up to work-item-loops and "
            "write its plan graph (barrier regions, barriers, values crossing them with their "
            "storage) to OUT.dot, and to OUT.svg (any Graphviz format) when Graphviz's `dot` is "
            "installed; prints the paths instead of the IR",
        )

    def setup_pipeline(self) -> None:
        timings: list[tuple[str, float]] = []
        self.timings = timings
        start = time.perf_counter()
        args = self.args

        def callback(prev: ModulePass | None, module: ModuleOp, nxt: ModulePass | None) -> None:
            nonlocal start
            if prev is not None:
                timings.append((prev.name, time.perf_counter() - start))
            if not args.disable_verify:
                from xmux.sources import verify_module

                where = f"the IR after '{prev.name}'" if prev is not None else self.get_input_name()
                verify_module(module, where)
            if prev is not None and args.print_ir_after_all:
                print(f"// -----// IR Dump After {prev.name} //----- //", file=sys.stderr)
                Printer(stream=sys.stderr).print_op(module)
                print(file=sys.stderr)
            if prev is not None and nxt is not None and args.print_between_passes:
                print(f"IR after {prev.name}:")
                Printer(stream=sys.stdout).print_op(module)
                print("\n\n\n")
            start = time.perf_counter()

        from xdsl.utils.exceptions import ArgSpecParseError

        from xmux.registry import parse_pipeline

        try:
            self.pipeline = parse_pipeline(args.passes, callback)
        except XmuxError:
            raise  # an unknown pass: its name alone, not the whole pipeline
        # option parsing raises plain ValueErrors etc.; a malformed spec ArgSpecParseError
        except (Exception, ArgSpecParseError) as e:
            raise XmuxError(f"invalid pass pipeline '{args.passes}': {e}") from None
        if args.view_plan is not None:
            self.pipeline = PassPipeline(_up_to_plan(self.pipeline.passes), callback)

    def apply_passes(self, prog: ModuleOp) -> None:
        if self.args.view_plan is None:
            return super().apply_passes(prog)
        from xmux.transforms.wi_loops import plan_graph

        with plan_graph.capture() as graphs:
            super().apply_passes(prog)
        _write_plans(graphs, self.args.view_plan)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        # --view-plan's output is the picture (the IR stops half-way down the pipeline)
        return "" if self.args.view_plan is not None else super().output_resulting_program(prog)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_mlir(io):  # noqa: ANN001, ANN202 - xDSL's frontend signature
            from xmux.sources import parse_module

            return parse_module(
                self.ctx, io.read(), self.get_input_name(), not self.args.no_implicit_module
            )

        self.available_frontends["mlir"] = parse_mlir

    def run(self) -> None:
        if self.args.acc_syntax == "llvm19":
            from xmux.dialects.acc_syntax import llvm19_output

            with llvm19_output():
                super().run()
        else:
            super().run()
        # xDSL's own --time-passes lives in the setup_pipeline replaced above: it reports here
        if (self.args.timing or self.args.time_passes) and self.timings:
            total = sum(t for _, t in self.timings)
            print("===- Pass execution timing report -===", file=sys.stderr)
            print(f"  Total: {total * 1e3:.3f} ms", file=sys.stderr)
            for name, t in self.timings:
                print(f"  {t * 1e3:10.3f} ms  {name}", file=sys.stderr)


def _up_to_plan(passes: Sequence[ModulePass]) -> tuple[ModulePass, ...]:
    """``passes`` (xmux's CPU pipeline when empty) up to work-item-loops, which draws its
    plan (``dump-plan=dot``)."""
    import dataclasses

    from xmux.transforms.work_item_loops import WorkItemLoopsPass

    if not passes:
        from xmux.pipelines import cpu

        passes = cpu()
    at = next((i for i, p in enumerate(passes) if isinstance(p, WorkItemLoopsPass)), None)
    if at is None:
        raise XmuxError("--view-plan: the pipeline has no work-item-loops pass to draw")
    return (*passes[:at], dataclasses.replace(passes[at], dump_plan="dot"))


def _write_plans(graphs: list[str], out: str) -> None:
    """The plan graph(s) of one module to ``out`` (``out-2``... for further ones)."""
    import subprocess
    from pathlib import Path
    from shutil import which

    from xmux.transforms.wi_loops import plan_graph

    path = Path(out)
    for i, graph in enumerate(graphs):
        target = path if i == 0 else path.with_name(f"{path.stem}-{i + 1}{path.suffix}")
        try:
            written = plan_graph.render(graph, target)
        except OSError as e:
            raise XmuxError(f"--view-plan: cannot write {target}: {e.strerror or e}") from None
        except subprocess.CalledProcessError as e:
            raise XmuxError(f"--view-plan: Graphviz failed on {target.with_suffix('.dot')}: "
                            f"{e.stderr.decode(errors='replace').strip()}") from None
        print(f"wrote {', '.join(str(w) for w in written)}")
        if target.suffix not in ("", ".dot") and which("dot") is None:
            print(f"Graphviz's `dot` not found: not rendered to {target} (install graphviz, "
                  f"then: dot -T{target.suffix[1:]} {written[0]} -o {target})")


def pass_options_help() -> str:
    """xmux's passes with their options and defaults (``pass{option=default}``), for
    ``--help``: the first sentence of each pass's docstring follows."""
    import dataclasses

    from xmux.registry import get_all_passes

    lines = ["xmux passes (options as -p 'name{option=value}'; docs/passes.md has more):"]
    for name, factory in sorted(get_all_passes().items()):
        cls = factory()
        options = []
        for f in dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ():
            if f.name == "name" or not f.init:
                continue
            default = f.default if f.default is not dataclasses.MISSING else "?"
            value = str(default).lower() if isinstance(default, bool) else default
            options.append(f"{f.name.replace('_', '-')}={value}")
        head = name + ("{" + " ".join(options) + "}" if options else "")
        # the docstring's first sentence, which may wrap onto a second line
        paragraph = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
        summary = paragraph.split(". ", 1)[0].rstrip(".") + "." if paragraph else ""
        lines.append(f"  {head}")
        if summary and not summary.startswith(cls.__name__ + "("):  # dataclass's own doc
            lines.append(f"      {summary}")
    return "\n".join(lines)


def opt_main(argv: Sequence[str] | None = None) -> int:
    try:
        main = XmuxOptMain(description="xmux modular optimizer driver", args=argv)
        if main.args.input_file is not None:  # missing, a directory, not UTF-8: named
            from pathlib import Path

            from xmux.sources import read_source_file

            if not read_source_file(Path(main.args.input_file)).strip():
                raise XmuxError(f"{main.args.input_file} is empty: expected an MLIR module")
        main.run()
    except Exception as e:  # user-facing: a clear message instead of a traceback
        if not is_user_error(e):
            raise
        print(format_error(e), file=sys.stderr)
        return 1
    return 0


def run_main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if _c_emit(args):  # --emit obj|header: kernels for C (runtime/c_api.py)
        return c_main(args)
    if "--interpret" in args:  # the reference interpreter instead of the JIT
        from xmux.interpret import main as interpret_main

        args.remove("--interpret")
        return interpret_main(args)
    from xmux.runner import main

    return main(args)


# ---------------------------------------------------------------------------------------
# xmux-run --emit obj|header: kernels for C programs (runtime/c_api.py)
# ---------------------------------------------------------------------------------------

C_EMITS = ("obj", "header")

#: AArch64 CPUs by LLVM name (``--chip``); every one has NEON's 32 registers of 128 bits
AARCH64_CHIPS = ("neoverse-v2", "neoverse-n1", "cortex-a72", "generic")
AARCH64_TRIPLE = "aarch64-unknown-linux-gnu"


def _c_emit(args: Sequence[str]) -> bool:
    for i, a in enumerate(args):
        if a == "--emit" and i + 1 < len(args) and args[i + 1] in C_EMITS:
            return True
        if a.startswith("--emit=") and a.split("=", 1)[1] in C_EMITS:
            return True
    return False


def c_target(target: str, chip: str | None = None, features: str = "") -> object:
    """The ``TargetDescription`` of ``--target`` for C: ``cpu`` (this host, or
    ``XMUX_CPU``'s model) or an AArch64 triple (``aarch64-linux-gnu``,
    ``aarch64-unknown-linux-gnu``) with ``chip`` (default ``neoverse-n1``)."""
    from xmux.runtime.jit import TargetDescription, host_target

    arch = target.split("-")[0]
    if target in ("cpu", "host"):
        host = host_target()
        if chip is not None or features:
            raise XmuxError("--chip / --features need a --target triple (e.g. aarch64-linux-gnu)")
        return host
    if arch in ("aarch64", "arm64"):
        chip = chip or "neoverse-n1"
        if chip not in AARCH64_CHIPS:
            raise XmuxError(f"--chip for AArch64 must be one of {', '.join(AARCH64_CHIPS)}, "
                            f"got {chip!r}")
        parts = target.split("-")
        triple = AARCH64_TRIPLE if len(parts) == 3 and parts[1] == "linux" else target
        return TargetDescription(triple, chip, features, 128, 32)  # NEON
    raise XmuxError(f"--target for --emit obj/header must be cpu or an aarch64 triple, "
                    f"got {target!r}")


def compile_for_c(source: str, target: object, fp_control: bool = True,
                  name: str = "<source>") -> tuple[str, list, str]:
    """The LLVM IR of ``source``'s kernels for ``target`` (a ``TargetDescription``), their
    ``KernelInfo``s and the target features to build them with (the module's target after
    the pipeline: disable-neon-attribute may add ``-neon``): host code dropped,
    specialization constants at their defaults, each entry hook under
    add-floating-point-control (``fp_control``: round to nearest even, no flush to zero,
    the caller's mode restored on return; MXCSR on x86-64, FPCR on AArch64)."""
    import dataclasses

    from xmux import pipelines
    from xmux.dialects import attrs
    from xmux.kernel_info import collect_kernel_infos
    from xmux.runtime.emit import emit_text
    from xmux.stages import parse, run_pipeline
    from xmux.transforms.add_floating_point_control import AddFloatingPointControlPass

    module = parse(source, name)
    passes = pipelines.cpu(target=target, fp_control=fp_control, declare_spec_leaves=False)
    passes = [dataclasses.replace(p, ftz_daz=False)
              if isinstance(p, AddFloatingPointControlPass) else p for p in passes]
    run_pipeline(module, pipelines.complete(passes, target))
    _drop_host_code(module)
    infos = collect_kernel_infos(module)
    if not infos:
        raise XmuxError(
            "the module has no entry-point kernel: mark one with attributes "
            '{mux.kernel = "entry_point"}'
        )
    return emit_text(module), infos, attrs.get_target(module).features.data


def _drop_host_code(module: ModuleOp) -> None:
    """Erase what no entry hook reaches (``@main``, the launches in host code, their
    runtime calls), after the pipeline: OpenACC regions become kernels only there
    (drop-host-code's rule, rooted at the lowered entry points)."""
    from xmux.dialects import attrs
    from xmux.transforms.drop_host_code import _symbol_name, _uses

    symbols = {n: o for o in module.ops if (n := _symbol_name(o)) is not None}
    work = [n for e in attrs.launch_entries(module) if (n := _symbol_name(e)) is not None]
    kept: set[str] = set()
    while work:
        sym = work.pop()
        if sym in kept or sym not in symbols:
            continue
        kept.add(sym)
        work.extend(_uses(symbols[sym]) - kept)
    for sym, o in symbols.items():
        if sym not in kept:
            o.detach()
            o.erase(drop_references=True)


def c_main(argv: Sequence[str]) -> int:
    """``xmux-run FILE --emit obj|header [-o OUT] [--target T --chip C]``."""
    from pathlib import Path

    ap = argparse.ArgumentParser(
        prog="xmux-run",
        description="Kernels for C: an object file (--emit obj) and the C header that "
        "launches its kernels (--emit header); docs/architecture.md, 'Kernels from C'",
    )
    ap.add_argument("file", help="MLIR file with kernels (host code is dropped)")
    ap.add_argument("--emit", choices=C_EMITS, required=True)
    ap.add_argument("-o", "--output", help="output file (default: FILE's stem + .o / .h)")
    ap.add_argument("--target", default="cpu",
                    help="cpu (this host) or an AArch64 triple such as aarch64-linux-gnu")
    ap.add_argument("--chip", default=None,
                    help=f"the CPU of an AArch64 target: {', '.join(AARCH64_CHIPS)}")
    ap.add_argument("--features", default="", help="LLVM target features (default: the chip's)")
    ap.add_argument("--no-fp-control", action="store_true",
                    help="run kernels in the caller's floating-point mode (default: the entry "
                    "hooks save, set and restore MXCSR / FPCR)")
    args = ap.parse_args(list(argv))
    try:
        from xmux.runtime import c_api
        from xmux.sources import read_source_file

        path = Path(args.file)
        target = c_target(args.target, args.chip, args.features)
        ir, infos, features = compile_for_c(read_source_file(path), target,
                                            not args.no_fp_control, str(path))
        if args.emit == "obj":
            data: bytes = c_api.object_code(ir, infos, target.triple,  # type: ignore[attr-defined]
                                            target.chip, features)  # type: ignore[attr-defined]
            out = Path(args.output or path.with_suffix(".o").name)
            out.write_bytes(data)
        else:
            about = f"{path.name} for {target.triple} ({target.chip})"  # type: ignore[attr-defined]
            text = c_api.header(infos, f"XMUX_{path.stem}_H", about)
            if args.output in (None, "-"):
                sys.stdout.write(text)
            else:
                Path(args.output).write_text(text)
    except Exception as e:
        if not is_user_error(e):
            raise
        print(format_error(e), file=sys.stderr)
        return 1
    return 0
