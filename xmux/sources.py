"""Reading an MLIR source file with an error naming it: shared by ``xmux.compile`` and the
command-line tools, which import this module alone (``xmux.api`` pulls in numpy and the
runtime, a tenth of a second of ``xmux-opt``'s start-up)."""

from __future__ import annotations

from pathlib import Path

from xmux.errors import XmuxError


def read_source_file(path: Path) -> str:
    """The text of an MLIR file, or an error naming it (missing, a directory, not UTF-8)."""
    if not path.exists():
        raise XmuxError(f"no such file: {path}")
    if path.is_dir():
        raise XmuxError(f"{path} is a directory, not an MLIR file")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise XmuxError(
            f"{path} is not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start} "
            f"(line {line})"
        ) from None


def parse_module(ctx: object, text: str, name: str, implicit_module: bool = True,
                 locations: bool = False) -> object:
    """Parse MLIR ``text`` into a module. xDSL's parser answers some malformed input with an
    exception of its own making (an ``IndexError`` for ``llvm.extractvalue %s[4294967296]``,
    a bare ``Exception`` for ``memref.load %a[]`` of a ranked memref, a verifier error for
    ``arith.constant 9223372036854775807 : i32``): every error becomes an ``XmuxError`` with
    the line and column where the parser stood, as its own parse errors have.
    ``locations``: every op gets the file/line/column of its text, as MLIR's parser gives
    (debug builds: ``lowering/locations.py``)."""
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if locations:
        from xmux.lowering.locations import LocatingParser, source_path

        parser: Parser = LocatingParser(ctx, text, name, source_path(text, name))
    else:
        parser = Parser(ctx, text, name)  # type: ignore[arg-type]
    try:
        return parser.parse_module(implicit_module)
    except ParseError:
        raise
    except Exception as e:  # noqa: BLE001 - whatever xDSL raised, named with its place
        # the parser stands after the op it failed on: point at that op's last token
        pos = len(text[: min(max(parser.pos, 0), len(text))].rstrip()) - 1
        pos = max(pos, 0)
        line = text.count("\n", 0, pos) + 1
        column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        source_line = text.splitlines()[line - 1] if text.splitlines() else ""
        where = (f"cannot parse {name}:{line}:{column}: {e or type(e).__name__}\n"
                 f"{source_line}\n{' ' * (column - 1)}^")
        if isinstance(e, DiagnosticException):  # xDSL's own kind (--verify-diagnostics)
            raise type(e)(where) from e
        raise XmuxError(where) from e


def verify_module(module: object, name: str) -> None:
    """``module.verify()``, with xDSL's verifiers that raise a bare exception (``memref.load``
    with too few indices: ``Exception``) turned into an ``XmuxError`` naming the op."""
    from xdsl.utils.exceptions import VerifyException

    try:
        module.verify()  # type: ignore[attr-defined]
    except VerifyException:
        raise
    except Exception as e:  # noqa: BLE001 - a verifier's own exception type
        for op in module.walk():  # type: ignore[attr-defined]
            try:
                op.verify_()
            except Exception:  # noqa: BLE001 - the first op whose own check fails
                raise XmuxError(f"{name}: '{op.name}' does not verify: {e}\n{op}") from e
        raise XmuxError(f"{name} does not verify: {e}") from e
    _check_defined_before_use(module, name)


def _check_defined_before_use(module: object, name: str) -> None:
    """A value used in its own block before the op that defines it (``memref.store %v``
    above ``%v = ...``): the parser resolves the forward reference and xDSL's verifier does
    not check dominance, so passes met it as an internal error (the mutation fuzzer's swapped
    lines). Uses in other blocks (a CFG's dominance) are left to the passes."""
    from xdsl.ir import OpResult

    position: dict[int, int] = {}
    for op in module.walk():  # type: ignore[attr-defined]
        for v in op.operands:
            if not isinstance(v, OpResult):
                continue
            d = v.op
            block = d.parent_block()
            user = op  # the user's ancestor in the defining op's block
            while user is not None and user.parent_block() is not block:
                user = user.parent_op()
            if user is None or block is None:
                continue
            if not position or id(d) not in position:
                position.update({id(o): i for i, o in enumerate(block.ops)})
            if user is d or position[id(user)] < position[id(d)]:
                raise XmuxError(f"{name}: '{op.name}' uses a value of '{d.name}' before "
                                f"its definition (in the same block)\n{op}")
