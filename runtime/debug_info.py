"""DWARF debug info for ``runtime/emit.py`` (debug builds: ``xmux.compile(..., debug=True)``).

The ops of a debug build carry the file/line/column of their MLIR source
(``lowering/locations.py``). The emitter gives

- one ``DICompileUnit`` (C, so that gdb evaluates ``acc[3]``, ``a.aligned``), a ``DIFile``
  per source file;
- a ``DISubprogram`` per defined function (the kernel, its wrapper and entry hook, host
  functions), at the line of the op it comes from;
- a ``DILocation`` on every instruction: the op's location, else the last location seen in
  the function (ops a pass built without one), else the function's line;
- a ``DILocalVariable`` per named argument (``%a`` → ``a``) and per named value: as clang
  does at ``-O0``, each variable has a stack slot (an ``alloca`` in the entry block that
  ``llvm.dbg.declare`` describes) and every value of that name is stored to it where it is
  defined: the slot outlives ``-O0`` register allocation (a ``dbg.value`` of a register
  does not, beyond its block), and SROA turns slot and stores back into ``dbg.value``\\ s
  at ``-O3``. A name's first non-pointer type is the variable's; values of that name of
  other types (a pointer: the lowering's address of the value) are not described.
  A memref descriptor is a struct ``{allocated, aligned, offset, sizes, strides}``.

The GDB JIT interface needs nothing here: MCJIT registers every object it loads with gdb's
``__jit_debug_register_code`` (LLVM's GDB registration listener is on by default for MCJIT).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import llvmlite.ir as ir
from llvmlite.ir import instructions
from xdsl.dialects import llvm
from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Block, Operation, SSAValue

from xmux.lowering.locations import file_line_col

__all__ = ["DebugEmitter", "FunctionDebug"]

_PRODUCER = "xmux"
_DESCRIPTOR_FIELDS = ("allocated", "aligned", "offset", "sizes", "strides")


class _Inline(ir.values.Value):
    """A metadata operand printed in place (``!DIExpression(...)``): llvmlite's DIValue
    takes key-value operands only."""

    def __init__(self, text: str) -> None:
        self.type = ir.MetaDataType()
        self.text = text

    def get_reference(self) -> str:
        return self.text


def _size_align(t: ir.Type) -> tuple[int, int]:
    """Bytes and alignment of ``t`` in the x86-64 / AArch64 layouts xmux targets."""
    if isinstance(t, ir.IntType):
        size = max(1, (t.width + 7) // 8)
        size = 1 << (size - 1).bit_length()
        return size, min(size, 16)
    if isinstance(t, ir.HalfType):
        return 2, 2
    if isinstance(t, ir.FloatType):
        return 4, 4
    if isinstance(t, (ir.DoubleType, ir.PointerType)):
        return 8, 8
    if isinstance(t, ir.VectorType):
        elem, _ = _size_align(t.element)
        size = elem * t.count
        size = 1 << (size - 1).bit_length()
        return size, size
    if isinstance(t, ir.ArrayType):
        elem, align = _size_align(t.element)
        return elem * t.count, align
    if isinstance(t, (ir.LiteralStructType, ir.IdentifiedStructType)):
        offset, align = 0, 1
        for e in t.elements:
            s, a = _size_align(e)
            offset = -(-offset // a) * a + s
            align = max(align, a)
        return -(-offset // align) * align, align
    return 8, 8


def _is_descriptor(t: ir.Type) -> bool:
    """A lowered memref's descriptor: ``{ptr, ptr, i64, [N x i64], [N x i64]}`` (rank > 0)."""
    if not isinstance(t, ir.LiteralStructType) or len(t.elements) not in (3, 5):
        return False
    e = t.elements
    return (isinstance(e[0], ir.PointerType) and isinstance(e[1], ir.PointerType)
            and e[2] == ir.IntType(64))


class DebugEmitter:
    """The debug-info nodes of one LLVM module."""

    def __init__(self, module: ir.Module) -> None:
        self.module = module
        self._files: dict[str, ir.DIValue] = {}
        self._types: dict[str, ir.DIValue | None] = {}
        self._cu: ir.DIValue | None = None
        self._intrinsics: dict[str, ir.Function] = {}
        i32 = ir.IntType(32)
        flags = module.add_named_metadata("llvm.module.flags")
        flags.add(module.add_metadata([i32(2), "Debug Info Version", i32(3)]))
        flags.add(module.add_metadata([i32(7), "Dwarf Version", i32(4)]))

    # -- files and the compile unit -------------------------------------------------------

    def file(self, filename: str) -> ir.DIValue:
        node = self._files.get(filename)
        if node is None:
            path = Path(filename)
            node = self.module.add_debug_info(
                "DIFile", {"filename": path.name, "directory": str(path.parent)})
            self._files[filename] = node
        return node

    def compile_unit(self, file: ir.DIValue) -> ir.DIValue:
        if self._cu is None:
            self._cu = self.module.add_debug_info("DICompileUnit", {
                "language": ir.DIToken("DW_LANG_C99"),
                "file": file,
                "producer": _PRODUCER,
                "isOptimized": False,
                "runtimeVersion": 0,
                "emissionKind": ir.DIToken("FullDebug"),
            }, is_distinct=True)
            self.module.add_named_metadata("llvm.dbg.cu", self._cu)
        return self._cu

    # -- types ----------------------------------------------------------------------------

    def type(self, t: ir.Type) -> ir.DIValue | None:
        """The DI type of an LLVM type (None: void)."""
        key = str(t)
        if key not in self._types:
            self._types[key] = self._make_type(t)
        return self._types[key]

    def _basic(self, name: str, bits: int, encoding: str) -> ir.DIValue:
        return self.module.add_debug_info("DIBasicType", {
            "name": name, "size": bits, "encoding": ir.DIToken(encoding)})

    def _make_type(self, t: ir.Type) -> ir.DIValue | None:
        add = self.module.add_debug_info
        if isinstance(t, ir.VoidType):
            return None
        if isinstance(t, ir.IntType):
            if t.width == 1:
                return self._basic("i1", 8, "DW_ATE_boolean")
            return self._basic(f"i{t.width}", _size_align(t)[0] * 8, "DW_ATE_signed")
        if isinstance(t, (ir.HalfType, ir.FloatType, ir.DoubleType)):
            bits = _size_align(t)[0] * 8
            return self._basic(f"f{bits}", bits, "DW_ATE_float")
        if isinstance(t, ir.PointerType):
            return add("DIDerivedType", {"tag": ir.DIToken("DW_TAG_pointer_type"),
                                         "baseType": None, "size": 64})
        if isinstance(t, (ir.ArrayType, ir.VectorType)):
            size, _ = _size_align(t)
            fields: dict[str, object] = {
                "tag": ir.DIToken("DW_TAG_array_type"),
                "baseType": self.type(t.element),
                "size": size * 8,
                "elements": self.module.add_metadata(
                    [add("DISubrange", {"count": t.count})]),
            }
            if isinstance(t, ir.VectorType):
                fields["flags"] = ir.DIToken("DIFlagVector")
            return add("DICompositeType", fields)
        if isinstance(t, (ir.LiteralStructType, ir.IdentifiedStructType)):
            names = (_DESCRIPTOR_FIELDS if _is_descriptor(t)
                     else tuple(f"f{i}" for i in range(len(t.elements))))
            members, offset = [], 0
            for name, e in zip(names, t.elements, strict=True):
                s, a = _size_align(e)
                offset = -(-offset // a) * a
                members.append(add("DIDerivedType", {
                    "tag": ir.DIToken("DW_TAG_member"), "name": name,
                    "baseType": self.type(e), "size": s * 8, "offset": offset * 8}))
                offset += s
            return add("DICompositeType", {
                "tag": ir.DIToken("DW_TAG_structure_type"),
                "name": "memref" if _is_descriptor(t) else "struct",
                "size": _size_align(t)[0] * 8,
                "elements": self.module.add_metadata(members),
            })
        return None

    # -- intrinsics -----------------------------------------------------------------------

    def intrinsic(self, name: str) -> ir.Function:
        fn = self._intrinsics.get(name)
        if fn is None:
            md = ir.MetaDataType()
            fn = self.module.globals.get(name)
            if fn is None:
                fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [md, md, md]), name)
            self._intrinsics[name] = fn
        return fn

    # -- functions --------------------------------------------------------------------------

    def function(self, op: llvm.FuncOp, fn: ir.Function) -> FunctionDebug:
        return FunctionDebug(self, op, fn)


def _first_location(op: Operation) -> FileLineColLoc | None:
    """The op's own location, else that of the first op inside it that has one."""
    found = file_line_col(op.location)
    if found is not None:
        return found
    for inner in op.walk():
        found = file_line_col(inner.location)
        if found is not None:
            return found
    return None


class FunctionDebug:
    """The subprogram of one function and the locations and variables in it."""

    def __init__(self, md: DebugEmitter, op: llvm.FuncOp, fn: ir.Function) -> None:
        self.md = md
        self.fn = fn
        where = _first_location(op)
        filename = where.filename.data if where is not None else "<unknown>"
        self.file = md.file(filename)
        self.line = where.line.data if where is not None else 0
        cu = md.compile_unit(self.file)
        ret = fn.function_type.return_type
        types = [md.type(ret)] + [md.type(a.type) for a in fn.args]
        subroutine = md.module.add_debug_info(
            "DISubroutineType", {"types": md.module.add_metadata(types)})
        local = fn.linkage in ("internal", "private")
        name = op.sym_name.data
        self.scope = md.module.add_debug_info("DISubprogram", {
            "name": name, "linkageName": name, "scope": self.file, "file": self.file,
            "line": self.line, "type": subroutine, "scopeLine": self.line,
            "spFlags": ir.DIToken("DISPFlagDefinition"
                                  + (" | DISPFlagLocalToUnit" if local else "")),
            "unit": cu, "retainedNodes": md.module.add_metadata([]),
        }, is_distinct=True)
        fn.set_metadata("dbg", self.scope)
        self._filename = filename
        self._scopes: dict[str, ir.DIValue] = {filename: self.scope}
        self.current = self._location(self.line, 0, filename)
        #: name → (variable, its type, its stack slot)
        self._vars: dict[str, tuple[ir.DIValue, ir.Type, ir.Instruction]] = {}
        self._entry: ir.Block | None = None
        self._prologue: list[ir.Instruction] = []

    def _location(self, line: int, column: int, filename: str) -> ir.DIValue:
        scope = self._scopes.get(filename)
        if scope is None:  # an op from another file (an inlined helper's source)
            scope = self.md.module.add_debug_info("DILexicalBlockFile", {
                "scope": self.scope, "file": self.md.file(filename), "discriminator": 0})
            self._scopes[filename] = scope
        return self.md.module.add_debug_info(
            "DILocation", {"line": line, "column": column, "scope": scope})

    def location(self, op: Operation) -> ir.DIValue:
        """``op``'s DILocation (and the fallback for the ops that follow it)."""
        where = file_line_col(op.location)
        if where is not None:
            self.current = self._location(where.line.data, where.column.data,
                                          where.filename.data)
        return self.current

    def attach(self, op: Operation, instrs: Sequence[ir.Instruction]) -> None:
        loc = self.location(op)
        for instr in instrs:
            if "dbg" not in instr.metadata:
                instr.set_metadata("dbg", loc)

    # -- variables --------------------------------------------------------------------------

    def _slot(self, name: str, t: ir.Type, arg: int = 0) -> ir.Instruction | None:
        """The stack slot of variable ``name`` (made, and declared, on first use); None when
        ``name`` is a variable of another type."""
        known = self._vars.get(name)
        if known is not None:
            return known[2] if known[1] == t else None
        di_type = self.md.type(t)
        if di_type is None or self._entry is None:
            return None
        fields: dict[str, object] = {"name": name, "scope": self.scope, "file": self.file,
                                     "line": self.line, "type": di_type}
        if arg:
            fields["arg"] = arg
        var = self.md.module.add_debug_info("DILocalVariable", fields)
        # made now, placed at the top of the entry block by ``finish`` (the emitter's
        # builder is still inserting into that block by position)
        slot = instructions.AllocaInstr(self._entry, t, None, self.fn.scope.deduplicate(
            f"{name}.dbg"))
        slot.type = ir.PointerType()  # opaque, as the rest of the module's
        declare = instructions.CallInstr(self._entry, self.md.intrinsic("llvm.dbg.declare"),
                                         [slot, var, _Inline("!DIExpression()")])
        loc = self._location(self.line, 0, self._filename)
        for instr in (slot, declare):
            instr.set_metadata("dbg", loc)
        self._prologue += [slot, declare]
        self._vars[name] = (var, t, slot)
        return slot

    def finish(self) -> None:
        """Place the variables' slots and declarations at the top of the entry block."""
        if self._entry is not None:
            self._entry.instructions[0:0] = self._prologue

    def describe_arguments(self, b: ir.IRBuilder, args: Sequence[SSAValue]) -> None:
        """Named arguments, at the top of the entry block (``b``'s): stored to their slots."""
        self._entry = b.block
        for i, (arg, value) in enumerate(zip(args, self.fn.args, strict=True), start=1):
            if arg.name_hint:
                slot = self._slot(arg.name_hint, value.type, arg=i)
                if slot is not None:
                    b.store(value, slot).set_metadata("dbg", self.current)

    def describe_values(self, b: ir.IRBuilder, values: Sequence[SSAValue],
                        val_map: dict[SSAValue, ir.Value]) -> None:
        """Each named value (op results, block arguments) stored to its variable's slot at
        the builder's position (after their definitions)."""
        if b.block.is_terminated:
            return
        for v in values:
            name = v.name_hint
            value = val_map.get(v) if name else None
            if value is None or isinstance(value.type, ir.PointerType):
                continue  # a pointer named like a value: the lowering's address of it
            slot = self._slot(name, value.type)  # type: ignore[arg-type]
            if slot is not None:
                b.store(value, slot).set_metadata("dbg", self.current)

    def describe_block(self, b: ir.IRBuilder, block: Block,
                       val_map: dict[SSAValue, ir.Value]) -> None:
        self.describe_values(b, block.args, val_map)
