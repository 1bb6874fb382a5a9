"""``gpu.module``, ``gpu.func`` and ``gpu.return`` with upstream's custom syntax (see
``dialects/gpu.py``, which re-exports them and builds the dialect; ``gpu_host.py`` shares
the attribution syntax below).

::

    gpu.module @kernels [#nvvm.target]? attributes {...}? {
      gpu.func @k(%a: memref<?xf32>) workgroup(%w : memref<64xf32, 3>)
          private(%p : memref<2xf32, 5>) kernel
          attributes {known_block_size = array<i32: 64, 1, 1>} {
        gpu.return
      }
    }
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    opt_attr_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import VerifyException

from xmux.dialects.gpu_attrs import is_workgroup_space


def _parse_foreign_attribute(parser: Parser) -> Attribute:
    """A gpu.module target or offloading handler (``#nvvm.target<chip = "sm_90">``, ...):
    kept as an unregistered attribute, since the CPU compiles for no such target."""
    ctx = parser.ctx
    old = ctx.allow_unregistered
    ctx.allow_unregistered = True
    try:
        return parser.parse_attribute()
    finally:
        ctx.allow_unregistered = old


@irdl_op_definition
class ModuleOp(IRDLOperation):
    """``gpu.module @name [targets]? attributes? { ... }``: a device code module."""

    name = "gpu.module"
    sym_name = prop_def(SymbolNameConstraint())
    targets = opt_prop_def(ArrayAttr)
    offloadingHandler = opt_prop_def(Attribute)  # noqa: N815 - upstream's name
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), NoTerminator(), SymbolOpInterface(), SymbolTable())

    def __init__(self, name: str, body: Region | None = None) -> None:
        super().__init__(properties={"sym_name": StringAttr(name)},
                         regions=[body or Region(Block())])
        self._add_end()

    def _add_end(self) -> None:
        """Upstream's implicit ``gpu.module_end`` (printed in the generic form only)."""
        block = self.body.blocks[0]
        if not isinstance(block.last_op, ModuleEndOp):
            block.add_op(ModuleEndOp())

    def add_op(self, op: Operation) -> None:
        """Append ``op`` to the module's body (before its ``gpu.module_end``)."""
        block = self.body.blocks[0]
        if isinstance(block.last_op, ModuleEndOp):
            block.insert_op_before(op, block.last_op)
        else:
            block.add_op(op)

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        props: dict[str, Attribute] = {"sym_name": parser.parse_symbol_name()}
        if parser.parse_optional_punctuation("<"):
            props["offloadingHandler"] = _parse_foreign_attribute(parser)
            parser.parse_punctuation(">")
        if parser.parse_optional_punctuation("["):
            items = [_parse_foreign_attribute(parser)]
            while parser.parse_optional_punctuation(","):
                items.append(_parse_foreign_attribute(parser))
            parser.parse_punctuation("]")
            props["targets"] = ArrayAttr(items)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        op = cls.create(properties=props, regions=[body], attributes=attrs.data if attrs else {})
        op._add_end()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        if self.offloadingHandler is not None:
            printer.print_string(" <")
            printer.print_attribute(self.offloadingHandler)
            printer.print_string(">")
        if self.targets is not None:
            printer.print_string(" [")
            printer.print_list(self.targets.data, printer.print_attribute)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_empty_block=False,
                             print_block_terminators=False)


@irdl_op_definition
class ModuleEndOp(IRDLOperation):
    """``"gpu.module_end"() : () -> ()``: LLVM 19's implicit terminator of a ``gpu.module``
    (in its generic form only; the custom form leaves it out)."""

    name = "gpu.module_end"
    traits = traits_def(IsTerminator(), HasParent(ModuleOp))


#: gpu.func's known sizes, spelled upstream (LLVM 19+) and as in older outlined output.
KNOWN_SIZE_NAMES = ("known_block_size", "known_grid_size")


@irdl_op_definition
class FuncOp(IRDLOperation):
    """``gpu.func @k(%a: T) workgroup(%w : memref<..., 3>) private(%p : memref<..., 5>)
    kernel attributes {known_block_size = array<i32: 64, 1, 1>} { ... }``.

    The entry block takes the function arguments, then the workgroup attributions
    (``workgroup_attributions`` of them), then the private ones."""

    name = "gpu.func"
    sym_name = attr_def(SymbolNameConstraint())  # attributes, as in upstream's generic form
    function_type = prop_def(FunctionType)
    workgroup_attributions = opt_attr_def(IntegerAttr[I64])
    known_block_size = opt_prop_def(DenseArrayBase)
    known_grid_size = opt_prop_def(DenseArrayBase)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def()
    traits = traits_def(IsolatedFromAbove(), HasParent(ModuleOp), SymbolOpInterface())

    @property
    def is_kernel(self) -> bool:
        return "gpu.kernel" in self.attributes

    @property
    def num_workgroup(self) -> int:
        a = self.workgroup_attributions
        return a.value.data if a is not None else 0

    @property
    def workgroup_args(self) -> tuple:
        n = len(self.function_type.inputs.data)
        return self.body.blocks[0].args[n:n + self.num_workgroup]

    @property
    def private_args(self) -> tuple:
        n = len(self.function_type.inputs.data) + self.num_workgroup
        return self.body.blocks[0].args[n:]

    def known_size(self, which: str) -> tuple[int, ...] | None:
        a = getattr(self, which)
        if a is None:
            a = self.attributes.get("gpu." + which)
        return tuple(a.get_values()) if isinstance(a, DenseArrayBase) else None

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name = parser.parse_symbol_name()
        args: list[Parser.Argument] = []
        arg_attrs: list[DictionaryAttr] = []

        def one_arg() -> None:
            args.append(parser.parse_argument())
            d = parser.parse_optional_attr_dict()
            arg_attrs.append(DictionaryAttr(d))
            # --mlir-print-debuginfo: `%arg0: T loc("f.mlir":3:5)`, kept on the block argument
            if (loc := parser.parse_optional_location()) is not None:
                args[-1].location = loc

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, one_arg)
        results: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            if parser.parse_optional_punctuation("("):
                if not parser.parse_optional_punctuation(")"):
                    results.append(parser.parse_type())
                    while parser.parse_optional_punctuation(","):
                        results.append(parser.parse_type())
                    parser.parse_punctuation(")")
            else:
                results.append(parser.parse_type())
        workgroup = parse_attributions(parser, "workgroup")
        private = parse_attributions(parser, "private")
        attrs: dict[str, Attribute] = {"sym_name": name}
        if parser.parse_optional_keyword("kernel") is not None:
            attrs["gpu.kernel"] = UnitAttr()
        extra = parser.parse_optional_attr_dict_with_keyword()
        props: dict[str, Attribute] = {
            "function_type": FunctionType.from_lists([a.type for a in args], results),
        }
        if workgroup:
            attrs["workgroup_attributions"] = IntegerAttr(len(workgroup), 64)
        if any(d.data for d in arg_attrs):
            props["arg_attrs"] = ArrayAttr(arg_attrs)
        for k, v in (extra.data if extra else {}).items():
            if k in KNOWN_SIZE_NAMES:
                props[k] = v
            else:
                attrs[k] = v
        body = parser.parse_region([*args, *workgroup, *private])
        return cls.create(properties=props, attributes=attrs, regions=[body])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        n = len(self.function_type.inputs.data)
        block = self.body.blocks[0] if self.body.blocks else None
        printer.print_string("(")
        if block is not None:
            attrs = self.arg_attrs.data if self.arg_attrs is not None else ()
            for i, a in enumerate(block.args[:n]):
                if i:
                    printer.print_string(", ")
                printer.print_block_argument(a)
                if i < len(attrs) and attrs[i].data:
                    printer.print_string(" ")
                    printer.print_attr_dict(attrs[i].data)
        else:
            printer.print_list(self.function_type.inputs.data, printer.print_attribute)
        printer.print_string(")")
        outs = self.function_type.outputs.data
        if outs:
            printer.print_string(" -> ")
            if len(outs) == 1:
                printer.print_attribute(outs[0])
            else:
                printer.print_string("(")
                printer.print_list(outs, printer.print_attribute)
                printer.print_string(")")
        if block is not None:
            print_attributions(printer, "workgroup", self.workgroup_args)
            print_attributions(printer, "private", self.private_args)
        if self.is_kernel:
            printer.print_string(" kernel")
        hidden = ("gpu.kernel", "sym_name", "workgroup_attributions")
        shown = {k: v for k, v in self.attributes.items() if k not in hidden}
        for k in KNOWN_SIZE_NAMES:
            if getattr(self, k) is not None:
                shown[k] = getattr(self, k)
        printer.print_op_attributes(shown, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        if not self.body.blocks:
            return
        inputs = self.function_type.inputs.data
        got = self.body.blocks[0].arg_types
        if got[: len(inputs)] != inputs:
            raise VerifyException(
                f"'gpu.func' @{self.sym_name.data}: entry block arguments do not match the "
                "function type")
        if self.is_kernel and self.function_type.outputs.data:
            raise VerifyException(f"'gpu.func' kernel @{self.sym_name.data} must return nothing")
        for a in self.workgroup_args:
            if not isinstance(a.type, MemRefType) or not is_workgroup_space(a.type.memory_space):
                raise VerifyException(
                    f"'gpu.func' @{self.sym_name.data}: workgroup attribution {a.type} must be "
                    "a memref in #gpu.address_space<workgroup> (or 3)")


def parse_attributions(parser: Parser, keyword: str) -> list[Parser.Argument]:
    if parser.parse_optional_keyword(keyword) is None:
        return []
    def one() -> Parser.Argument:
        arg = parser.parse_argument()
        if (loc := parser.parse_optional_location()) is not None:  # --mlir-print-debuginfo
            arg.location = loc
        return arg

    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)


def print_attributions(printer: Printer, keyword: str, args: Sequence[SSAValue]) -> None:
    if not args:
        return
    printer.print_string(f" {keyword}(")
    for i, a in enumerate(args):
        if i:
            printer.print_string(", ")
        printer.print_ssa_value(a)
        printer.print_string(" : ")
        printer.print_attribute(a.type)
    printer.print_string(")")


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``gpu.return``: ends a ``gpu.func``."""

    name = "gpu.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(FuncOp))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue | Operation] = ()) -> None:
        super().__init__(operands=[values])
