"""Upstream ``gpu`` launch and host ops with ``mlir-opt``'s syntax (see ``dialects/gpu.py``).

::

    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
               dynamic_shared_memory_size %bytes
               workgroup(%w : memref<64xf32, #gpu.address_space<workgroup>>) { ... gpu.terminator }
    gpu.launch_func @kernels::@k blocks in (%a, %b, %c) threads in (%d, %e, %f)
                    args(%x : memref<?xf32>, %n : index)
    %m = gpu.alloc host_shared (%n) : memref<?xf32>      %m, %t = gpu.alloc async [%t0] () : ...
    gpu.dealloc %m : memref<?xf32>
    gpu.memcpy %dst, %src : memref<?xf32>, memref<?xf32>
    gpu.memset %dst, %v : memref<?xf32>, f32
    %t = gpu.wait async [%t0]        gpu.wait [%t]
    gpu.host_register %u : memref<*xf32>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    SymbolRefAttr,
    UnitAttr,
    UnrankedMemRefType,
    i32,
)
from xdsl.dialects.gpu import AsyncTokenType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator
from xdsl.utils.exceptions import VerifyException

from xmux.dialects.gpu_func import parse_attributions, print_attributions

_TOKEN = AsyncTokenType()
_SEGMENTS = "operandSegmentSizes"

# =======================================================================================
# Async dependencies: `async`? (`[` %t, ... `]`)?
# =======================================================================================


def parse_async(parser: Parser) -> tuple[bool, list[SSAValue]]:
    is_async = parser.parse_optional_keyword("async") is not None
    deps: list[SSAValue] = []
    if parser.parse_optional_punctuation("["):
        if not parser.parse_optional_punctuation("]"):
            deps.append(parser.parse_operand(_TOKEN))
            while parser.parse_optional_punctuation(","):
                deps.append(parser.parse_operand(_TOKEN))
            parser.parse_punctuation("]")
    return is_async, deps


def print_async(printer: Printer, token: SSAValue | None, deps: Sequence[SSAValue]) -> None:
    if token is not None:
        printer.print_string(" async")
    if deps:
        printer.print_string(" [")
        printer.print_list(deps, printer.print_operand)
        printer.print_string("]")


def _segments(*sizes: int) -> dict[str, Attribute]:
    from xdsl.dialects.builtin import DenseArrayBase

    return {_SEGMENTS: DenseArrayBase.from_list(i32, list(sizes))}


# =======================================================================================
# gpu.launch / gpu.terminator
# =======================================================================================


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """``gpu.launch``: run the region on a grid of blocks of threads. The region's entry
    block takes 12 index values (block ids, grid sizes, thread ids, block sizes; 6 more
    for clusters first), then the workgroup and private attributions."""

    name = "gpu.launch"
    asyncDependencies = var_operand_def(AsyncTokenType)  # noqa: N815 - upstream's names
    gridSizeX = operand_def(IndexType)  # noqa: N815
    gridSizeY = operand_def(IndexType)  # noqa: N815
    gridSizeZ = operand_def(IndexType)  # noqa: N815
    blockSizeX = operand_def(IndexType)  # noqa: N815
    blockSizeY = operand_def(IndexType)  # noqa: N815
    blockSizeZ = operand_def(IndexType)  # noqa: N815
    clusterSizeX = opt_operand_def(IndexType)  # noqa: N815
    clusterSizeY = opt_operand_def(IndexType)  # noqa: N815
    clusterSizeZ = opt_operand_def(IndexType)  # noqa: N815
    dynamicSharedMemorySize = opt_operand_def(I32)  # noqa: N815
    asyncToken = opt_result_def(AsyncTokenType)  # noqa: N815
    kernelFunc = opt_prop_def(SymbolRefAttr)  # noqa: N815
    kernelModule = opt_prop_def(SymbolRefAttr)  # noqa: N815
    workgroup_attributions = opt_attr_def(IntegerAttr[I64])  # an attribute, as upstream
    body = region_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @property
    def grid(self) -> tuple[SSAValue, SSAValue, SSAValue]:
        return self.gridSizeX, self.gridSizeY, self.gridSizeZ

    @property
    def block(self) -> tuple[SSAValue, SSAValue, SSAValue]:
        return self.blockSizeX, self.blockSizeY, self.blockSizeZ

    @property
    def num_config_args(self) -> int:
        return 18 if self.clusterSizeX is not None else 12

    @property
    def num_workgroup(self) -> int:
        a = self.workgroup_attributions
        return a.value.data if a is not None else 0

    @property
    def workgroup_args(self) -> tuple:
        n = self.num_config_args
        return self.body.blocks[0].args[n:n + self.num_workgroup]

    @property
    def private_args(self) -> tuple:
        return self.body.blocks[0].args[self.num_config_args + self.num_workgroup:]

    @classmethod
    def parse(cls, parser: Parser) -> LaunchOp:
        is_async, deps = parse_async(parser)
        index = IndexType()
        names: list[Parser.Argument] = []
        sizes: list[SSAValue] = []
        clusters: list[SSAValue] = []

        def config(keyword: str, out: list[SSAValue]) -> None:
            ids = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False))
            if len(ids) != 3:
                parser.raise_error(f"gpu.launch {keyword}(...) takes three names")
            parser.parse_keyword("in")
            dims: list[Parser.Argument] = []

            def assign() -> None:
                dims.append(parser.parse_argument(expect_type=False).resolve(index))
                parser.parse_punctuation("=")
                out.append(parser.parse_operand(index))

            parser.parse_comma_separated_list(parser.Delimiter.PAREN, assign)
            if len(dims) != 3:
                parser.raise_error(f"gpu.launch {keyword}(...) in (...) takes three sizes")
            names.extend(i.resolve(index) for i in ids)
            names.extend(dims)

        # Upstream's block arguments: [clusters ids, cluster sizes], block ids, grid sizes,
        # thread ids, block sizes — clusters are appended after the 12 in upstream's order.
        cluster_names: list[Parser.Argument] = []
        if parser.parse_optional_keyword("clusters") is not None:
            config("clusters", clusters)
            cluster_names, names = names, []
        parser.parse_keyword("blocks")
        config("blocks", sizes)
        parser.parse_keyword("threads")
        config("threads", sizes)
        names.extend(cluster_names)
        shmem: list[SSAValue] = []
        if parser.parse_optional_keyword("dynamic_shared_memory_size") is not None:
            shmem.append(parser.parse_operand(i32))
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("module") is not None:
            parser.parse_punctuation("(")
            props["kernelModule"] = SymbolRefAttr(parser.parse_symbol_name())
            parser.parse_punctuation(")")
        if parser.parse_optional_keyword("function") is not None:
            parser.parse_punctuation("(")
            props["kernelFunc"] = SymbolRefAttr(parser.parse_symbol_name())
            parser.parse_punctuation(")")
        workgroup = parse_attributions(parser, "workgroup")
        private = parse_attributions(parser, "private")
        body = parser.parse_region([*names, *workgroup, *private])
        attrs = parser.parse_optional_attr_dict()
        if workgroup:
            attrs["workgroup_attributions"] = IntegerAttr(len(workgroup), 64)
        grid, block = sizes[:3], sizes[3:]
        cl = [[c] for c in clusters] if clusters else [[], [], []]
        props.update(_segments(len(deps), 1, 1, 1, 1, 1, 1, *(len(c) for c in cl), len(shmem)))
        return cls.create(
            operands=[*deps, *grid, *block, *clusters, *shmem],
            result_types=[_TOKEN] if is_async else [],
            properties=props, attributes=attrs, regions=[body],
        )

    def print(self, printer: Printer) -> None:
        print_async(printer, self.asyncToken, self.asyncDependencies)
        args = self.body.blocks[0].args

        def config(keyword: str, ids: Sequence[SSAValue], dims: Sequence[SSAValue],
                   sizes: Sequence[SSAValue]) -> None:
            printer.print_string(f" {keyword}(")
            printer.print_list(ids, printer.print_operand)
            printer.print_string(") in (")
            for i, (d, s) in enumerate(zip(dims, sizes, strict=True)):
                if i:
                    printer.print_string(", ")
                printer.print_operand(d)
                printer.print_string(" = ")
                printer.print_operand(s)
            printer.print_string(")")

        if self.clusterSizeX is not None:
            config("clusters", args[12:15], args[15:18],
                   (self.clusterSizeX, self.clusterSizeY, self.clusterSizeZ))
        config("blocks", args[0:3], args[3:6], self.grid)
        config("threads", args[6:9], args[9:12], self.block)
        if self.dynamicSharedMemorySize is not None:
            printer.print_string(" dynamic_shared_memory_size ")
            printer.print_operand(self.dynamicSharedMemorySize)
        if self.kernelModule is not None:
            printer.print_string(f" module(@{self.kernelModule.root_reference.data})")
        if self.kernelFunc is not None:
            printer.print_string(f" function(@{self.kernelFunc.root_reference.data})")
        print_attributions(printer, "workgroup", self.workgroup_args)
        print_attributions(printer, "private", self.private_args)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        printer.print_op_attributes(
            {k: v for k, v in self.attributes.items() if k != "workgroup_attributions"})

    def verify_(self) -> None:
        if not self.body.blocks:
            raise VerifyException("'gpu.launch' needs a body")
        n = self.num_config_args
        types = self.body.blocks[0].arg_types
        if len(types) < n or any(t != IndexType() for t in types[:n]):
            raise VerifyException(
                f"'gpu.launch' body must start with {n} index arguments (ids and sizes)")


@irdl_op_definition
class TerminatorOp(IRDLOperation):
    """``gpu.terminator``: ends a ``gpu.launch`` body."""

    name = "gpu.terminator"
    traits = traits_def(IsTerminator(), HasParent(LaunchOp))
    assembly_format = "attr-dict"


# =======================================================================================
# gpu.launch_func
# =======================================================================================

_DIM = base(IndexType) | base(IntegerType)


@irdl_op_definition
class LaunchFuncOp(IRDLOperation):
    """``gpu.launch_func @module::@kernel blocks in (...) threads in (...) args(%a : T)``."""

    name = "gpu.launch_func"
    asyncDependencies = var_operand_def(AsyncTokenType)  # noqa: N815 - upstream's names
    gridSizeX = operand_def(_DIM)  # noqa: N815
    gridSizeY = operand_def(_DIM)  # noqa: N815
    gridSizeZ = operand_def(_DIM)  # noqa: N815
    blockSizeX = operand_def(_DIM)  # noqa: N815
    blockSizeY = operand_def(_DIM)  # noqa: N815
    blockSizeZ = operand_def(_DIM)  # noqa: N815
    clusterSizeX = opt_operand_def(_DIM)  # noqa: N815
    clusterSizeY = opt_operand_def(_DIM)  # noqa: N815
    clusterSizeZ = opt_operand_def(_DIM)  # noqa: N815
    dynamicSharedMemorySize = opt_operand_def(I32)  # noqa: N815
    kernelOperands = var_operand_def()  # noqa: N815
    asyncObject = opt_operand_def()  # noqa: N815
    asyncToken = opt_result_def(AsyncTokenType)  # noqa: N815
    kernel = prop_def(SymbolRefAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        kernel: SymbolRefAttr,
        grid: Sequence[SSAValue | Operation],
        block: Sequence[SSAValue | Operation],
        args: Sequence[SSAValue | Operation] = (),
        dynamic_shared_memory_size: SSAValue | Operation | None = None,
        async_dependencies: Sequence[SSAValue | Operation] = (),
        is_async: bool = False,
        clusters: Sequence[SSAValue | Operation] = (),
    ) -> None:
        shmem = [dynamic_shared_memory_size] if dynamic_shared_memory_size is not None else []
        cl = [[c] for c in clusters] if clusters else [[], [], []]
        super().__init__(
            operands=[async_dependencies, *grid, *block, *cl, shmem, args, []],
            result_types=[[_TOKEN] if is_async else []],
            properties={"kernel": kernel},
        )

    @property
    def grid(self) -> tuple[SSAValue, SSAValue, SSAValue]:
        return self.gridSizeX, self.gridSizeY, self.gridSizeZ

    @property
    def block(self) -> tuple[SSAValue, SSAValue, SSAValue]:
        return self.blockSizeX, self.blockSizeY, self.blockSizeZ

    @classmethod
    def parse(cls, parser: Parser) -> LaunchFuncOp:
        is_async, deps = parse_async(parser)
        obj: list[SSAValue] = []
        if parser.parse_optional_punctuation("<"):
            u = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            obj.append(parser.resolve_operand(u, parser.parse_type()))
            parser.parse_punctuation(">")
        kernel = parser.parse_attribute()
        if not isinstance(kernel, SymbolRefAttr):
            parser.raise_error("gpu.launch_func expects a kernel symbol @module::@kernel")

        def triple() -> list[UnresolvedOperand]:
            parser.parse_keyword("in")
            return parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_unresolved_operand)

        clusters: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("clusters") is not None:
            clusters = triple()
        parser.parse_keyword("blocks")
        grid = triple()
        parser.parse_keyword("threads")
        block = triple()
        if len(grid) != 3 or len(block) != 3 or clusters and len(clusters) != 3:
            parser.raise_error("gpu.launch_func sizes take three values each")
        dim_type: Attribute = IndexType()
        if parser.parse_optional_punctuation(":"):
            dim_type = parser.parse_type()
        shmem: list[SSAValue] = []
        if parser.parse_optional_keyword("dynamic_shared_memory_size") is not None:
            shmem.append(parser.parse_operand(i32))
        args: list[SSAValue] = []
        if parser.parse_optional_keyword("args") is not None:

            def one() -> None:
                u = parser.parse_unresolved_operand()
                parser.parse_punctuation(":")
                args.append(parser.resolve_operand(u, parser.parse_type()))

            parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
        attrs = parser.parse_optional_attr_dict()

        def res(us: list[UnresolvedOperand]) -> list[SSAValue]:
            return [parser.resolve_operand(u, dim_type) for u in us]

        props: dict[str, Attribute] = {"kernel": kernel}
        props.update(_segments(len(deps), 1, 1, 1, 1, 1, 1, *([1] * 3 if clusters else [0] * 3),
                               len(shmem), len(args), len(obj)))
        return cls.create(
            operands=[*deps, *res(grid), *res(block), *res(clusters), *shmem, *args, *obj],
            result_types=[_TOKEN] if is_async else [],
            properties=props, attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        print_async(printer, self.asyncToken, self.asyncDependencies)
        if self.asyncObject is not None:
            printer.print_string(" <")
            printer.print_operand(self.asyncObject)
            printer.print_string(f" : {self.asyncObject.type}>")
        printer.print_string(" ")
        printer.print_attribute(self.kernel)
        if self.clusterSizeX is not None:
            printer.print_string(" clusters in (")
            printer.print_list((self.clusterSizeX, self.clusterSizeY, self.clusterSizeZ),
                               printer.print_operand)
            printer.print_string(")")
        printer.print_string(" blocks in (")
        printer.print_list(self.grid, printer.print_operand)
        printer.print_string(") threads in (")
        printer.print_list(self.block, printer.print_operand)
        printer.print_string(")")
        if self.gridSizeX.type != IndexType():
            printer.print_string(f" : {self.gridSizeX.type}")
        if self.dynamicSharedMemorySize is not None:
            printer.print_string(" dynamic_shared_memory_size ")
            printer.print_operand(self.dynamicSharedMemorySize)
        if self.kernelOperands:
            printer.print_string(" args(")
            for i, a in enumerate(self.kernelOperands):
                if i:
                    printer.print_string(", ")
                printer.print_operand(a)
                printer.print_string(f" : {a.type}")
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)


# =======================================================================================
# Host memory ops
# =======================================================================================

_MEMREF = base(MemRefType)


@irdl_op_definition
class AllocOp(IRDLOperation):
    """``%m = gpu.alloc (async [deps])? (host_shared)? (%sizes) : memref<...>``."""

    name = "gpu.alloc"
    asyncDependencies = var_operand_def(AsyncTokenType)  # noqa: N815 - upstream's names
    dynamicSizes = var_operand_def(IndexType)  # noqa: N815
    symbolOperands = var_operand_def(IndexType)  # noqa: N815
    hostShared = opt_prop_def(UnitAttr)  # noqa: N815
    memref = result_def(_MEMREF)
    asyncToken = opt_result_def(AsyncTokenType)  # noqa: N815
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> AllocOp:
        is_async, deps = parse_async(parser)
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("host_shared") is not None:
            props["hostShared"] = UnitAttr()
        sizes = parser.parse_comma_separated_list(parser.Delimiter.PAREN,
                                                  lambda: parser.parse_operand(IndexType()))
        syms: list[SSAValue] = []
        if parser.parse_optional_punctuation("["):
            syms = [parser.parse_operand(IndexType())]
            while parser.parse_optional_punctuation(","):
                syms.append(parser.parse_operand(IndexType()))
            parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        props.update(_segments(len(deps), len(sizes), len(syms)))
        return cls.create(operands=[*deps, *sizes, *syms],
                          result_types=[t, *([_TOKEN] if is_async else [])],
                          properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        print_async(printer, self.asyncToken, self.asyncDependencies)
        if self.hostShared is not None:
            printer.print_string(" host_shared")
        printer.print_string(" (")
        printer.print_list(self.dynamicSizes, printer.print_operand)
        printer.print_string(")")
        if self.symbolOperands:
            printer.print_string("[")
            printer.print_list(self.symbolOperands, printer.print_operand)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(f" : {self.memref.type}")

    def verify_(self) -> None:
        t = self.memref.type
        assert isinstance(t, MemRefType)
        dyn = sum(1 for d in t.get_shape() if d < 0)
        if dyn != len(self.dynamicSizes):
            raise VerifyException(
                f"'gpu.alloc' of {t} needs {dyn} dynamic sizes, got {len(self.dynamicSizes)}")


class _AsyncMemOp(IRDLOperation):
    """Host ops of the form ``(async [deps])? %a (, %b)? : T (, U)?`` (one variadic
    operand group, so no segment sizes, as upstream)."""

    OPERANDS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse(cls, parser: Parser) -> _AsyncMemOp:
        is_async, deps = parse_async(parser)
        us = [parser.parse_unresolved_operand()]
        for _ in cls.OPERANDS[1:]:
            parser.parse_punctuation(",")
            us.append(parser.parse_unresolved_operand())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        for _ in cls.OPERANDS[1:]:
            parser.parse_punctuation(",")
            types.append(parser.parse_type())
        vals = [parser.resolve_operand(u, t) for u, t in zip(us, types, strict=True)]
        return cls.create(operands=[*deps, *vals],
                          result_types=[_TOKEN] if is_async else [], attributes=attrs)

    def print(self, printer: Printer) -> None:
        print_async(printer, self.asyncToken, self.asyncDependencies)
        vals = [getattr(self, n) for n in self.OPERANDS]
        printer.print_string(" ")
        printer.print_list(vals, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([v.type for v in vals], printer.print_attribute)


@irdl_op_definition
class DeallocOp(_AsyncMemOp):
    """``gpu.dealloc (async [deps])? %m : memref<...>``."""

    name = "gpu.dealloc"
    asyncDependencies = var_operand_def(AsyncTokenType)  # noqa: N815 - upstream's names
    asyncToken = opt_result_def(AsyncTokenType)  # noqa: N815
    memref = operand_def(_MEMREF)
    OPERANDS: ClassVar[tuple[str, ...]] = ("memref",)


@irdl_op_definition
class MemcpyOp(_AsyncMemOp):
    """``gpu.memcpy (async [deps])? %dst, %src : memref<...>, memref<...>``."""

    name = "gpu.memcpy"
    asyncDependencies = var_operand_def(AsyncTokenType)  # noqa: N815 - upstream's names
    asyncToken = opt_result_def(AsyncTokenType)  # noqa: N815
    dst = operand_def(_MEMREF)
    src = operand_def(_MEMREF)
    OPERANDS: ClassVar[tuple[str, ...]] = ("dst", "src")

    def verify_(self) -> None:
        d, s = self.dst.type, self.src.type
        assert isinstance(d, MemRefType) and isinstance(s, MemRefType)
        if d.element_type != s.element_type or d.get_shape() != s.get_shape():
            raise VerifyException(f"'gpu.memcpy' from {s} to {d}: shapes or types differ")


@irdl_op_definition
class MemsetOp(_AsyncMemOp):
    """``gpu.memset (async [deps])? %dst, %value : memref<...>, T``."""

    name = "gpu.memset"
    asyncDependencies = var_operand_def(AsyncTokenType)  # noqa: N815 - upstream's names
    asyncToken = opt_result_def(AsyncTokenType)  # noqa: N815
    dst = operand_def(_MEMREF)
    value = operand_def()
    OPERANDS: ClassVar[tuple[str, ...]] = ("dst", "value")

    def verify_(self) -> None:
        t = self.dst.type
        assert isinstance(t, MemRefType)
        if t.element_type != self.value.type:
            raise VerifyException(f"'gpu.memset' of {t} with a {self.value.type} value")


@irdl_op_definition
class WaitOp(IRDLOperation):
    """``gpu.wait (async)? ([deps])?``: wait for the dependencies (on the host when not
    async)."""

    name = "gpu.wait"
    asyncDependencies = var_operand_def(AsyncTokenType)  # noqa: N815 - upstream's name
    asyncToken = opt_result_def(AsyncTokenType)  # noqa: N815

    def __init__(self, deps: Sequence[SSAValue] = (), is_async: bool = False) -> None:
        super().__init__(operands=[deps], result_types=[[_TOKEN] if is_async else []])

    @classmethod
    def parse(cls, parser: Parser) -> WaitOp:
        is_async, deps = parse_async(parser)
        op = cls(deps, is_async)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        print_async(printer, self.asyncToken, self.asyncDependencies)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class HostRegisterOp(IRDLOperation):
    """``gpu.host_register %u : memref<*xf32>``: make host memory visible to the device
    (a no-op on the CPU, where they share memory)."""

    name = "gpu.host_register"
    value = operand_def(base(UnrankedMemRefType) | base(MemRefType))
    assembly_format = "$value attr-dict `:` type($value)"


@irdl_op_definition
class HostUnregisterOp(IRDLOperation):
    """``gpu.host_unregister %u : memref<*xf32>``."""

    name = "gpu.host_unregister"
    value = operand_def(base(UnrankedMemRefType) | base(MemRefType))
    assembly_format = "$value attr-dict `:` type($value)"


HOST_OPS: list[type[IRDLOperation]] = [
    LaunchOp, TerminatorOp, LaunchFuncOp, AllocOp, DeallocOp, MemcpyOp, MemsetOp, WaitOp,
    HostRegisterOp, HostUnregisterOp,
]
