"""The ``spec`` dialect: SYCL 2020 specialization constants.

DPC++'s "Specialization constants" design (sycl-post-link and its runtime)
re-created as MLIR ops.

Three layers, as in the reference:

* **input markers** (what ``kernel_handler::get_specialization_constant`` becomes):
  ``spec.specialization_id`` holds a constant's default value at module level (the reference's
  ``specialization_id`` global), and inside kernels ``spec.get_scalar`` / ``spec.get_composite``
  read a constant by its symbolic id, with the default's symbol and an optional runtime-buffer
  operand (``__sycl_getScalar2020SpecConstantValue(SymbolicID, DefaultValue, RTBuffer)``)::

      spec.specialization_id @id_int = 42 : i32
      spec.specialization_id @id_A = [1 : i32, [3.0 : f32, 4.0 : f32]]
          : !llvm.struct<(i32, struct<(f32, f32)>)>
      %x = spec.get_scalar "id_int", @id_int : i32
      %a = spec.get_composite "id_A", @id_A, %buf : !llvm.struct<(i32, struct<(f32, f32)>)>

* the **native form** (SPIR-V friendly: ``__spirv_SpecConstant`` /
  ``__spirv_SpecConstantComposite``), written by ``lower-spec-constants{mode=native}``::

      %0 = spec.constant spec_id(1) = 1 : i32
      %1 = spec.constant spec_id(2) = 3.0 : f32
      %2 = spec.constant spec_id(3) = 4.0 : f32
      %3 = spec.constant_composite %1, %2 : !llvm.struct<(f32, f32)>
      %4 = spec.constant_composite %0, %3 : !llvm.struct<(i32, struct<(f32, f32)>)>

* **module-level records** of the two property sets, written by ``lower-spec-constants`` in
  both modes: per symbolic id its type and ``(leaf id, offset, size)`` descriptors (padding
  leaves spelled ``padding``, id 0xFFFFFFFF), and the default-value blob in hex::

      spec.property "id_A" : !llvm.struct<(i32, struct<(f32, f32)>)>
          = [(1, 0, 4), (2, 4, 4), (3, 8, 4)]
      spec.default_values "0x2A000000010000000000404000008040"

Types: scalars are signless ``i1 i8 i16 i32 i64`` and ``f16 f32 f64`` (``i1`` takes one byte);
composites are ``!llvm.struct<(...)>`` (natural C layout), ``!llvm.array<N x T>`` and 1-D
``vector<NxT>`` (aligned to its size rounded up to a power of two, as LLVM lays vectors out;
``vector<Nxi1>`` is SYCL's ``vec<bool, N>``: a byte per element), nested freely. Default
values: ``IntegerAttr``/``FloatAttr`` of the scalar type; an array attribute with one element
per field/element for composites; for vectors also ``dense<...> : vector<NxT>``.

C++ layouts are written as clang lowers them: ``alignas(N)`` and packed types get explicit
padding members (``array<K x i8>``) whose default is ``#spec.undef``; such a member takes a
numeric id but no descriptor (sycl-post-link's rule) and its bytes are zero::

    // struct alignas(32) S { float a; char b; int c; } = {3.14, 8, 42}
    spec.specialization_id @s = [3.14 : f32, 8 : i8, 42 : i32, #spec.undef]
        : !llvm.struct<(f32, i8, i32, array<20 x i8>)>

A packed outermost struct (``__attribute__((packed))``, LLVM's ``<{...}>``; xDSL 0.74's
``!llvm.struct`` has no packed form) is marked on the default and its record::

    spec.specialization_id @p = [1 : i8, 2 : i32] : !llvm.struct<(i8, i32)> packed
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TypedAttribute,
    UnitAttr,
    VectorType,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    EqAttrConstraint,
    IRDLOperation,
    ParametrizedAttribute,
    irdl_attr_definition,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, Pure, SymbolOpInterface, SymbolTable, SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

from xmux.abi import spec_types as rt
from xmux.abi.spec_types import PADDING_ID, SpecType

# ---------------------------------------------------------------------------------------
# Types and default values
# ---------------------------------------------------------------------------------------

_FLOATS = {Float16Type: 16, Float32Type: 32, Float64Type: 64}


def spec_type(t: Attribute, packed: bool = False) -> SpecType:
    """The layout model of an MLIR type usable as a specialization constant (else raise);
    ``packed``: the outermost struct is packed (C's ``__attribute__((packed))``)."""
    if packed and not isinstance(t, llvm.LLVMStructType):
        raise VerifyException(f"{t}: only a struct can be packed")
    if isinstance(t, IntegerType):
        if t.signedness.data != Signedness.SIGNLESS or t.width.data not in (1, 8, 16, 32, 64):
            raise VerifyException(f"{t} cannot be a specialization constant type")
        return rt.SCALARS[f"i{t.width.data}"]
    if type(t) in _FLOATS:
        return rt.SCALARS[f"f{_FLOATS[type(t)]}"]
    if isinstance(t, llvm.LLVMStructType):
        if not t.types.data:
            raise VerifyException("an empty struct cannot be a specialization constant type")
        return rt.Struct(tuple(spec_type(f) for f in t.types.data), packed)
    if isinstance(t, llvm.LLVMArrayType):
        if t.size.data < 1:
            raise VerifyException(f"{t}: arrays of specialization constants must not be empty")
        return rt.Array(t.size.data, spec_type(t.type))
    if isinstance(t, VectorType):
        shape = t.get_shape()
        elem = spec_type(t.element_type)
        if len(shape) != 1 or shape[0] < 1 or t.get_num_scalable_dims():
            raise VerifyException(f"{t}: only 1-D fixed vectors are supported")
        return rt.Vector(shape[0], elem)
    raise VerifyException(
        f"{t} cannot be a specialization constant type (scalars i1..i64, f16, f32, f64; "
        "!llvm.struct, !llvm.array and vector composites)"
    )


def is_scalar_type(t: Attribute) -> bool:
    return isinstance(t, IntegerType) or type(t) in _FLOATS


def element_types(t: Attribute) -> list[Attribute]:
    """The direct element types of a composite type."""
    if isinstance(t, llvm.LLVMStructType):
        return list(t.types.data)
    if isinstance(t, llvm.LLVMArrayType):
        return [t.type] * t.size.data
    if isinstance(t, VectorType):
        return [t.element_type] * t.get_shape()[0]
    return []


@irdl_attr_definition
class UndefAttr(ParametrizedAttribute):
    """``#spec.undef``: a struct member without a default (an explicit padding member, as
    clang writes ``[3 x i8] undef``): it takes one id and no descriptor, its bytes are zero."""

    name = "spec.undef"


def _walk_default(
    t: Attribute, value: Attribute, where: str, path: rt.Path, member: bool
) -> Iterator[tuple[rt.Path, TypedAttribute | None]]:
    """(path, leaf) of every scalar leaf of a default value, depth first; (path, None) for an
    undef struct member (checks the shape)."""
    if isinstance(value, UndefAttr):
        if not member:
            raise VerifyException(
                f"{where}: #spec.undef is only for struct members (explicit padding)"
            )
        yield path, None
        return
    if is_scalar_type(t):
        if isinstance(value, (IntegerAttr, FloatAttr)) and value.type == t:
            yield path, value
            return
        raise VerifyException(f"{where}: expected a {t} literal, got {value}")
    elems = element_types(t)
    if isinstance(t, VectorType) and isinstance(value, DenseIntOrFPElementsAttr):
        if value.type != t:
            raise VerifyException(f"{where}: expected a dense value of type {t}, got {value.type}")
        vals = list(value.get_values())
        if len(vals) == 1:
            vals *= len(elems)
        make = FloatAttr if isinstance(t.element_type, tuple(_FLOATS)) else IntegerAttr
        for i, v in enumerate(vals):
            yield (*path, i), make(v, t.element_type)  # type: ignore[arg-type]
        return
    if not isinstance(value, ArrayAttr):
        raise VerifyException(f"{where}: expected [...] with {len(elems)} elements for {t}")
    if len(value.data) != len(elems):
        raise VerifyException(
            f"{where}: {t} has {len(elems)} elements, the default value has {len(value.data)}"
        )
    is_struct = isinstance(t, llvm.LLVMStructType)
    for i, (et, ev) in enumerate(zip(elems, value.data, strict=True)):
        yield from _walk_default(et, ev, f"{where}[{i}]", (*path, i), is_struct)


def default_leaves(t: Attribute, value: Attribute, where: str = "value") -> list[TypedAttribute]:
    """The scalar leaves of a default value of type ``t``, depth first (checks the shape),
    without those of undef members."""
    leaves = [leaf for _, leaf in _walk_default(t, value, where, (), False) if leaf is not None]
    if not leaves:
        raise VerifyException(f"{where}: a specialization constant needs a defined leaf")
    return leaves


def undef_paths(t: Attribute, value: Attribute) -> frozenset[rt.Path]:
    """The struct members of a default value that are ``#spec.undef``."""
    return frozenset(p for p, leaf in _walk_default(t, value, "value", (), False) if leaf is None)


def leaf_value(attr: TypedAttribute) -> int | float | bool:
    if isinstance(attr, FloatAttr):
        return attr.value.data
    assert isinstance(attr, IntegerAttr)
    v = attr.value.data
    return bool(v & 1) if attr.type == IntegerType(1) else v


def _leaf_offsets(model: rt.SpecType, base: int, path: rt.Path) -> Iterator[tuple[rt.Path, int]]:
    if isinstance(model, rt.Scalar):
        yield path, base
        return
    for i, (off, sub) in enumerate(rt.children(model)):
        yield from _leaf_offsets(sub, base + off, (*path, i))


def default_bytes(t: Attribute, value: Attribute, packed: bool = False) -> bytes:
    """The bytes of a default value in the buffer layout (padding and undef members zero)."""
    model = spec_type(t, packed)
    buf = bytearray(rt.size_of(model))
    offsets = dict(_leaf_offsets(model, 0, ()))
    scalars = dict(rt.leaves(model))
    for path, leaf in _walk_default(t, value, "value", (), False):
        if leaf is None:
            continue
        off = offsets[path]
        s = scalars[off]
        v = leaf_value(leaf)
        if s.kind == "int" and s.bits > 1:
            v = int(v) & ((1 << s.bits) - 1)
            if v >= 1 << (s.bits - 1):
                v -= 1 << s.bits
        buf[off : off + s.size] = rt.encode(s, v)
    return bytes(buf)


# ---------------------------------------------------------------------------------------
# Module-level default values (the reference's specialization_id globals)
# ---------------------------------------------------------------------------------------


def _print_value_and_type(printer: Printer, value: Attribute, t: Attribute) -> None:
    printer.print_attribute(value)
    if not (isinstance(value, TypedAttribute) and value.get_type() == t):
        printer.print_string(" : ")
        printer.print_attribute(t)


def _parse_value_and_type(parser: Parser) -> tuple[Attribute, Attribute]:
    value = parser.parse_attribute()
    if parser.parse_optional_punctuation(":") is not None:
        return value, parser.parse_type()
    if isinstance(value, TypedAttribute):
        return value, value.get_type()
    parser.raise_error("expected ':' and the constant's type")


@irdl_op_definition
class SpecializationIdOp(IRDLOperation):
    """A specialization constant's default value (``specialization_id<T> id(default)``)."""

    name = "spec.specialization_id"

    sym_name = prop_def(SymbolNameConstraint())
    value = prop_def(AnyAttr())
    constant_type = prop_def(AnyAttr())
    #: the struct is packed (``spec.specialization_id @d = [...] : !llvm.struct<(...)> packed``)
    packed = opt_prop_def(UnitAttr)

    traits = traits_def(SymbolOpInterface(), HasParent(ModuleOp))

    def __init__(
        self, name: str, value: Attribute, constant_type: Attribute, packed: bool = False
    ) -> None:
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "value": value,
                "constant_type": constant_type,
                **({"packed": UnitAttr()} if packed else {}),
            }
        )

    @property
    def is_packed(self) -> bool:
        return self.packed is not None

    def verify_(self) -> None:
        where = f"spec.specialization_id @{self.sym_name.data}"
        try:
            spec_type(self.constant_type, self.is_packed)
            default_leaves(self.constant_type, self.value)
        except VerifyException as e:
            raise VerifyException(f"{where}: {e}") from None

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string(" = ")
        _print_value_and_type(printer, self.value, self.constant_type)
        if self.is_packed:
            printer.print_string(" packed")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> SpecializationIdOp:
        name = parser.parse_symbol_name().data
        parser.parse_punctuation("=")
        value, t = _parse_value_and_type(parser)
        op = cls(name, value, t, parser.parse_optional_keyword("packed") is not None)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


# ---------------------------------------------------------------------------------------
# Markers
# ---------------------------------------------------------------------------------------


class _DefaultSymbolUser(SymbolUserOpInterface):
    """The default symbol names a ``spec.specialization_id`` of the marker's type."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, GetSpecConstantOp)
        target = SymbolTable.lookup_symbol(op, op.default_value)
        name = op.default_value.string_value()
        if not isinstance(target, SpecializationIdOp):
            raise VerifyException(
                f"{op.name} \"{op.symbolic_id.data}\": @{name} is not a spec.specialization_id"
            )
        if target.constant_type != op.result.type:
            raise VerifyException(
                f"{op.name} \"{op.symbolic_id.data}\": result type {op.result.type} differs from "
                f"the type of @{name} ({target.constant_type})"
            )


class GetSpecConstantOp(IRDLOperation):
    """Base of the two markers."""

    symbolic_id = prop_def(StringAttr)
    default_value = prop_def(SymbolRefAttr)
    buffer = opt_operand_def(EqAttrConstraint(llvm.LLVMPointerType()))
    result = result_def()

    traits = traits_def(_DefaultSymbolUser())

    assembly_format = (
        "$symbolic_id `,` $default_value (`,` $buffer^)? attr-dict `:` type($result)"
    )

    def __init__(
        self,
        symbolic_id: str,
        default: str,
        result_type: Attribute,
        buffer: SSAValue | Operation | None = None,
    ) -> None:
        super().__init__(
            operands=[[buffer] if buffer is not None else []],
            result_types=[result_type],
            properties={
                "symbolic_id": StringAttr(symbolic_id),
                "default_value": SymbolRefAttr(default),
            },
        )

    def verify_(self) -> None:
        try:
            spec_type(self.result.type)
        except VerifyException as e:
            raise VerifyException(f"{self.name} \"{self.symbolic_id.data}\": {e}") from None
        if is_scalar_type(self.result.type) != isinstance(self, GetScalarOp):
            want = "a scalar" if isinstance(self, GetScalarOp) else "a composite"
            raise VerifyException(
                f"{self.name} \"{self.symbolic_id.data}\": result must be {want} type, "
                f"got {self.result.type}"
            )


@irdl_op_definition
class GetScalarOp(GetSpecConstantOp):
    """``__sycl_getScalar2020SpecConstantValue<T>(SymbolicID, DefaultValue, RTBuffer)``."""

    name = "spec.get_scalar"


@irdl_op_definition
class GetCompositeOp(GetSpecConstantOp):
    """``__sycl_getComposite2020SpecConstantValue<T>(SymbolicID, DefaultValue, RTBuffer)``."""

    name = "spec.get_composite"


# ---------------------------------------------------------------------------------------
# Native form
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class SpecConstantOp(IRDLOperation):
    """``T __spirv_SpecConstant(int numericID, T default)``: scalar leaf ``spec_id``."""

    name = "spec.constant"

    spec_id = prop_def(IntegerAttr[IntegerType])
    default_value = prop_def(AnyAttr())
    result = result_def()

    traits = traits_def(Pure())

    def __init__(self, spec_id: int, default: IntegerAttr | FloatAttr) -> None:
        super().__init__(
            result_types=[default.type],
            properties={"spec_id": IntegerAttr(spec_id, i32), "default_value": default},
        )

    @property
    def id(self) -> int:
        return self.spec_id.value.data

    def verify_(self) -> None:
        d = self.default_value
        if not isinstance(d, (IntegerAttr, FloatAttr)) or d.type != self.result.type:
            raise VerifyException(
                f"spec.constant spec_id({self.id}): default {d} must be a literal of the "
                f"result type {self.result.type}"
            )
        spec_type(self.result.type)
        if not 0 <= self.id < PADDING_ID:
            raise VerifyException(f"spec.constant: spec_id {self.id} out of range")

    def print(self, printer: Printer) -> None:
        printer.print_string(f" spec_id({self.id}) = ")
        printer.print_attribute(self.default_value)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> SpecConstantOp:
        parser.parse_keyword("spec_id")
        parser.parse_punctuation("(")
        sid = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(")")
        parser.parse_punctuation("=")
        default = parser.parse_attribute()
        if not isinstance(default, (IntegerAttr, FloatAttr)):
            parser.raise_error("expected a typed integer or float literal, e.g. 42 : i32")
        op = cls(sid, default)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class ConstantCompositeOp(IRDLOperation):
    """``T __spirv_SpecConstantComposite(Elements...)``: a composite of leaves/composites."""

    name = "spec.constant_composite"

    elements = var_operand_def()
    result = result_def()

    traits = traits_def(Pure())

    def __init__(self, elements: Sequence[SSAValue | Operation], result_type: Attribute) -> None:
        super().__init__(operands=[list(elements)], result_types=[result_type])

    def verify_(self) -> None:
        want = element_types(self.result.type)
        if not want:
            raise VerifyException(
                f"spec.constant_composite: result type {self.result.type} is not a composite"
            )
        got = [e.type for e in self.elements]
        if got != want:
            raise VerifyException(
                f"spec.constant_composite: elements of types ({', '.join(map(str, got))}) do not "
                f"match {self.result.type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.elements, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantCompositeOp:
        operands = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        types = element_types(t)
        if len(types) != len(operands):
            parser.raise_error(f"{t} has {len(types)} elements, got {len(operands)} operands")
        op = cls(parser.resolve_operands(operands, types, parser.pos), t)
        op.attributes |= attrs
        return op


# ---------------------------------------------------------------------------------------
# Property-set records
# ---------------------------------------------------------------------------------------


@irdl_op_definition
class PropertyOp(IRDLOperation):
    """One "SYCL/specialization constants" property: symbolic id → (leaf id, offset, size)s."""

    name = "spec.property"

    symbolic_id = prop_def(StringAttr)
    constant_type = prop_def(AnyAttr())
    descriptors = prop_def(DenseArrayBase)
    packed = opt_prop_def(UnitAttr)

    traits = traits_def(HasParent(ModuleOp))

    def __init__(
        self,
        symbolic_id: str,
        constant_type: Attribute,
        descs: Sequence[tuple[int, int, int]],
        packed: bool = False,
    ) -> None:
        flat = [v for d in descs for v in d]
        super().__init__(
            properties={
                "symbolic_id": StringAttr(symbolic_id),
                "constant_type": constant_type,
                "descriptors": DenseArrayBase.from_list(i64, flat),
                **({"packed": UnitAttr()} if packed else {}),
            }
        )

    def model(self) -> SpecType:
        """The constant's layout model (packing included)."""
        return spec_type(self.constant_type, self.packed is not None)

    def get_descriptors(self) -> list[tuple[int, int, int]]:
        vals = [int(v) for v in self.descriptors.get_values()]
        return [(vals[i], vals[i + 1], vals[i + 2]) for i in range(0, len(vals), 3)]

    def verify_(self) -> None:
        where = f"spec.property \"{self.symbolic_id.data}\""
        if self.descriptors.get_element_type() != i64 or len(self.descriptors) % 3:
            raise VerifyException(f"{where}: descriptors must be i64 triples")
        try:
            self.model()
        except VerifyException as e:
            raise VerifyException(f"{where}: {e}") from None
        for d in self.get_descriptors():
            if d[2] < 1 or d[1] < 0 or not 0 <= d[0] <= PADDING_ID:
                raise VerifyException(f"{where}: bad descriptor {d}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.symbolic_id.data)
        printer.print_string(" : ")
        printer.print_attribute(self.constant_type)
        if self.packed is not None:
            printer.print_string(" packed")
        items = [
            f"({'padding' if i == PADDING_ID else i}, {o}, {s})"
            for i, o, s in self.get_descriptors()
        ]
        printer.print_string(" = [" + ", ".join(items) + "]")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> PropertyOp:
        sid = parser.parse_str_literal()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        packed = parser.parse_optional_keyword("packed") is not None
        parser.parse_punctuation("=")

        def one() -> tuple[int, int, int]:
            parser.parse_punctuation("(")
            if parser.parse_optional_keyword("padding") is not None:
                leaf = PADDING_ID
            else:
                leaf = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(",")
            off = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(",")
            size = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(")")
            return leaf, off, size

        descs = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, one)
        op = cls(sid, t, descs, packed)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class DefaultValuesOp(IRDLOperation):
    """The "SYCL/specialization constants default values" blob: every constant's default in
    the buffer layout, ascending ids, padding zero."""

    name = "spec.default_values"

    values = prop_def(DenseArrayBase)

    traits = traits_def(HasParent(ModuleOp))

    def __init__(self, blob: bytes) -> None:
        vals = [b - 256 if b > 127 else b for b in blob]
        super().__init__(properties={"values": DenseArrayBase.from_list(i8, vals)})

    @property
    def blob(self) -> bytes:
        return bytes(int(v) & 0xFF for v in self.values.get_values())

    def verify_(self) -> None:
        if self.values.get_element_type() != i8:
            raise VerifyException("spec.default_values: the blob must be an array of i8")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal("0x" + self.blob.hex().upper())
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> DefaultValuesOp:
        pos = parser.pos
        text = parser.parse_str_literal()
        try:
            if not text.startswith("0x"):
                raise ValueError
            blob = bytes.fromhex(text[2:])
        except ValueError:
            parser.raise_error('expected a hex string "0x..."', pos, parser.pos)
        op = cls(blob)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


def records(module: ModuleOp) -> tuple[list[PropertyOp], DefaultValuesOp | None]:
    """The property-set records of a module (after lower-spec-constants)."""
    props = [op for op in module.ops if isinstance(op, PropertyOp)]
    blobs = [op for op in module.ops if isinstance(op, DefaultValuesOp)]
    return props, (blobs[0] if blobs else None)


Spec = Dialect(
    "spec",
    [
        SpecializationIdOp,
        GetScalarOp,
        GetCompositeOp,
        SpecConstantOp,
        ConstantCompositeOp,
        PropertyOp,
        DefaultValuesOp,
    ],
    [UndefAttr],
)

__all__ = [
    "ConstantCompositeOp",
    "DefaultValuesOp",
    "GetCompositeOp",
    "GetScalarOp",
    "GetSpecConstantOp",
    "PropertyOp",
    "Spec",
    "SpecConstantOp",
    "SpecializationIdOp",
    "UndefAttr",
    "default_bytes",
    "default_leaves",
    "element_types",
    "is_scalar_type",
    "records",
    "spec_type",
    "undef_paths",
]
