"""Reading an MLIR source file with an error naming it: shared by ``xmux.compile`` and the
command-line tools, which import this module alone (``xmux.api`` pulls in numpy and the
runtime, a tenth of a second of ``xmux-opt``'s start-up)."""

from __future__ import annotations

import re
import weakref
from pathlib import Path

from xdsl.utils.exceptions import VerifyException  # light: xmux.errors imports it too

from xmux.abi.errors import set_locator
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
    text, aliases = _location_aliases(ctx, text, name)
    if locations:
        from xmux.lowering.locations import LocatingParser, source_path

        parser: Parser = LocatingParser(ctx, text, name, source_path(text, name))
    else:
        parser = _placing_parser()(ctx, text, name)  # type: ignore[arg-type]
    parser.attribute_aliases.update(aliases)
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


#: a top-level location alias definition, as ``--mlir-print-debuginfo`` prints them
_LOC_ALIAS = re.compile(r"^(#[A-Za-z_][\w$.-]*)[ \t]*=[ \t]*(loc\(.*)$", re.MULTILINE)


def _location_aliases(ctx: object, text: str, name: str) -> tuple[str, dict[str, object]]:
    """The location aliases of ``text`` (``#loc1 = loc("f.mlir":3:5)``), and ``text`` with
    their definitions blanked out (same length: lines and columns do not move).

    ``mlir-opt --mlir-print-debuginfo`` prints most of them after the module that uses them
    (``loc(#loc1)``), and xDSL's parser resolves an alias when it meets it. Every definition
    is read first, in as many rounds as one naming another needs (``callsite(#loc2 at
    #loc3)``); one that never reads stays in the text for the parser to report."""
    found = list(_LOC_ALIAS.finditer(text))
    if not found:
        return text, {}
    from xdsl.parser import Parser

    aliases: dict[str, object] = {}
    pending = found
    while pending:
        left = []
        for m in pending:
            parser = Parser(ctx, m.group(2), name)  # type: ignore[arg-type]
            parser.attribute_aliases.update(aliases)  # type: ignore[arg-type]
            try:
                loc = parser.parse_optional_location()
                if loc is None or parser.pos < len(m.group(2).rstrip()):
                    raise ValueError(m.group(0))
            except Exception:  # noqa: BLE001 - an alias not read yet, or not a location
                left.append(m)
                continue
            aliases[m.group(1)] = loc
        if len(left) == len(pending):
            break
        pending = left
    unread = {m.group(1) for m in pending}
    out = list(text)
    for m in found:
        if m.group(1) not in unread:
            out[m.start():m.end()] = " " * (m.end() - m.start())
    return "".join(out), aliases


# ---------------------------------------------------------------------------------------
# Where an op's text is: verifier and pass errors name the op's file:line:column
# ---------------------------------------------------------------------------------------

#: op → (text, name, offset of its first token), for every op ``parse_module`` made (a
#: normal compile gives ops no location: MLIR's file/line/column locations are debug builds'
#: ``LocatingParser``'s). Weak: an op the passes erase drops out; one they move keeps it.
_PLACES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _placing_parser() -> type:
    """xDSL's parser recording where each op's text starts (``_PLACES``): one dictionary
    entry per op, read only when an error names the op."""
    global _PlacingParser
    if _PlacingParser is None:
        from xdsl.parser import Parser

        class PlacingParser(Parser):
            def parse_operation(self):  # noqa: ANN202 - xDSL's signature
                start = self._current_token.span.start
                op = super().parse_operation()
                _PLACES[op] = (self.lexer.input.content, self.lexer.input.name, start)
                return op

        _PlacingParser = PlacingParser
    return _PlacingParser


_PlacingParser: type | None = None


def op_place(op: object) -> tuple[str, int, int, str | None] | None:
    """(file, line, column, the source line or None) of an op: its own ``loc(...)`` /
    debug-build location, else where ``parse_module`` read it; None for an op a pass made."""
    from xdsl.dialects.builtin import FileLineColLoc

    place = _PLACES.get(op)  # type: ignore[arg-type]
    loc = getattr(op, "location", None)
    if isinstance(loc, FileLineColLoc):
        line, column = loc.line.data, loc.column.data
        text = place[0] if place is not None else None
        source = _line_of(text, line) if text is not None else None
        return loc.filename.data, line, column, source
    if place is None:
        return None
    text, name, offset = place
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return name, line, column, _line_of(text, line)


def _line_of(text: str, line: int) -> str | None:
    lines = text.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else None


def at_op(op: object, message: str) -> str:
    """``message`` as a diagnostic at ``op``: ``file:line:col: message`` and the source line
    with a caret under the op, as MLIR prints one; ``message`` alone where the op has no
    place (made by a pass)."""
    place = op_place(op)
    if place is None:
        return message
    file, line, column, source = place
    text = f"{file}:{line}:{column}: {message}"
    if source is not None:
        text += f"\n{source}\n{' ' * (column - 1)}^"
    return text


def failing_op(module: object) -> tuple[object, Exception] | None:
    """The first op (pre-order) whose own verification fails, and its exception: which op
    ``module.verify()`` refused (xDSL's exception names the op only in its printed IR)."""
    for op in module.walk():  # type: ignore[attr-defined]
        try:
            op.verify(verify_nested_ops=False)
        except Exception as e:  # noqa: BLE001 - any verifier's exception
            return op, e
    return None


def verify_error_text(module: object, name: str, e: Exception) -> str:
    """The message for ``module.verify()``'s exception ``e``: at the op it refused
    (``file:line:col: 'op' does not verify: ...``, the source line and a caret), or
    ``name does not verify: ...`` where that op cannot be found."""
    found = failing_op(module)
    if found is None:
        return f"{name} does not verify: {e}"
    op, err = found
    why = str(err) or type(err).__name__
    if f"'{op.name}'" not in why.split("\n", 1)[0]:  # type: ignore[attr-defined]
        why = f"'{op.name}' does not verify: {why}"  # type: ignore[attr-defined]
    text = at_op(op, why)
    return text if op_place(op) is not None else f"{name}: {text}"


class LocatedVerifyError(XmuxError, VerifyException):
    """A verifier's error at the op's place: an ``XmuxError`` for the API and a
    ``VerifyException`` for xDSL's driver (``xmux-opt --verify-diagnostics`` prints it)."""


def verify_module(module: object, name: str) -> None:
    """``module.verify()``; its failure names the op refused and its place (file:line:col
    and the source line, ``verify_error_text``). xDSL's own exception type stays a
    ``VerifyException`` (``xmux-opt --verify-diagnostics`` reads it); xDSL's verifiers that
    raise a bare exception (``memref.load`` with too few indices: ``Exception``) give an
    ``XmuxError``."""
    try:
        module.verify()  # type: ignore[attr-defined]
    except VerifyException as e:
        err = LocatedVerifyError(verify_error_text(module, name, e))
        # xDSL's printout of the module marking the op: --verify-diagnostics prints it
        err.__notes__ = list(getattr(e, "__notes__", ()))
        raise err from e
    except Exception as e:  # noqa: BLE001 - a verifier's own exception type
        raise XmuxError(verify_error_text(module, name, e)) from e
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


# an XmuxError raised with ``.at(op)`` (a pass naming the op at fault) begins with its place
set_locator(at_op)
