"""The generated reader kernel of the specialization-constant tests (tests/test_spec_*.py).

``Reader(consts, mode)`` compiles a kernel ``read`` that stores every scalar leaf of the given
constants (symbolic id -> (type model, default)) widened to i64 / f64, and ``check`` compares
what a launch read with the Python values. A struct field whose default is ``None`` is an
explicit padding member (``#spec.undef``): it is not read.
"""

from __future__ import annotations

import numpy as np

import xmux
from xmux.runtime import spec_constants as rt

I8, I16, I32, I64 = (rt.SCALARS[f"i{b}"] for b in (8, 16, 32, 64))
F16, F32, F64 = (rt.SCALARS[f"f{b}"] for b in (16, 32, 64))
BOOL = rt.SCALARS["i1"]


# ---------------------------------------------------------------------------------------
# A generated reader kernel
# ---------------------------------------------------------------------------------------


def _attr(t: rt.SpecType, v: object) -> str:
    """MLIR attribute text of a default value (exactly representable values only)."""
    if v is None:
        return "#spec.undef"
    if isinstance(t, rt.Scalar):
        if t.bits == 1:
            return "true" if v else "false"
        return f"{v} : {t}" if t.kind == "int" else f"{float(v)!r} : {t}"
    items = [_attr(sub, x) for (_, sub), x in zip(rt.children(t), v, strict=True)]
    return "[" + ", ".join(items) + "]"


def leaves_of(t: rt.SpecType, v: object, path: tuple = ()) -> list[tuple[tuple, rt.Scalar, object]]:
    if v is None:  # an undef (padding) member: not read
        return []
    if isinstance(t, rt.Scalar):
        return [(path, t, v)]
    out = []
    for i, ((_, sub), x) in enumerate(zip(rt.children(t), v, strict=True)):
        out += leaves_of(sub, x, (*path, (i, isinstance(t, rt.Vector))))
    return out


def _expected(t: rt.Scalar, v: object) -> float | int:
    if t.kind == "int":
        return int(bool(v)) if t.bits == 1 else int(v)
    return float(np.asarray(v, dtype=t.dtype))


class Reader:
    """A program whose kernel ``read`` stores every leaf of ``consts`` (sid → (type, default))."""

    def __init__(
        self, consts: dict[str, tuple[rt.SpecType, object]], mode: str, padding: str = "dpcpp"
    ) -> None:
        self.consts = consts
        lines = []
        body = []
        self.slots: list[tuple[str, tuple, rt.Scalar, str, int]] = []  # sid, path, t, kind, index
        n_int = n_float = 0
        for k, (sid, (t, default)) in enumerate(consts.items()):
            packed = " packed" if isinstance(t, rt.Struct) and t.packed else ""
            lines.append(f"spec.specialization_id @d{k} = {_attr(t, default)}" + (
                "" if isinstance(t, rt.Scalar) else f" : {t}{packed}"))
            op = "get_scalar" if isinstance(t, rt.Scalar) else "get_composite"
            body.append(f'%c{k} = spec.{op} "{sid}", @d{k} : {t}')
            for j, (path, leaf, _) in enumerate(leaves_of(t, default)):
                name = f"%c{k}"
                cur: rt.SpecType = t
                pos: list[int] = []
                for i, in_vector in path:
                    if in_vector:
                        if pos:
                            body.append(f"%e{k}_{j}_{len(body)} = llvm.extractvalue {name}"
                                        f"[{', '.join(map(str, pos))}] : {t}")
                            name = f"%e{k}_{j}_{len(body) - 1}"
                            pos = []
                        body.append(f"%x{k}_{j} = vector.extract {name}[{i}] : {leaf} from {cur}")
                        name = f"%x{k}_{j}"
                    else:
                        pos.append(i)
                    cur = dict(enumerate(c for _, c in rt.children(cur)))[i]
                if pos:
                    body.append(f"%x{k}_{j} = llvm.extractvalue {name}[{', '.join(map(str, pos))}]"
                                f" : {t}")
                    name = f"%x{k}_{j}"
                if leaf.kind == "int":
                    if leaf.bits != 64:
                        ext = "extui" if leaf.bits == 1 else "extsi"
                        body.append(f"%w{k}_{j} = arith.{ext} {name} : {leaf} to i64")
                        name = f"%w{k}_{j}"
                    body.append(f"%i{k}_{j} = arith.constant {n_int} : index")
                    body.append(f"memref.store {name}, %ints[%i{k}_{j}] : memref<?xi64>")
                    self.slots.append((sid, path, leaf, "int", n_int))
                    n_int += 1
                else:
                    if leaf.bits != 64:
                        body.append(f"%w{k}_{j} = arith.extf {name} : {leaf} to f64")
                        name = f"%w{k}_{j}"
                    body.append(f"%i{k}_{j} = arith.constant {n_float} : index")
                    body.append(f"memref.store {name}, %floats[%i{k}_{j}] : memref<?xf64>")
                    self.slots.append((sid, path, leaf, "float", n_float))
                    n_float += 1
        self.n_int, self.n_float = max(n_int, 1), max(n_float, 1)
        self.text = "\n".join(
            [
                *lines,
                "func.func @read(%ints: memref<?xi64>, %floats: memref<?xf64>)",
                '    attributes {mux.kernel = "entry_point"} {',
                *("  " + b for b in body),
                "  func.return",
                "}",
            ]
        )
        self.prog = xmux.compile(self.text, spec_constants=mode, spec_padding=padding)
        self.kernel = self.prog["read"]

    def run(self, **call) -> tuple[np.ndarray, np.ndarray]:
        ints = np.full(self.n_int, -12345, np.int64)
        floats = np.full(self.n_float, np.nan, np.float64)
        self.kernel(ints, floats, global_size=1, **call)
        return ints, floats

    def check(self, values: dict[str, object], **call) -> None:
        """Run and compare every leaf with ``values`` (missing ids: their defaults)."""
        ints, floats = self.run(**call)
        for sid, (t, default) in self.consts.items():
            v = values.get(sid, default)
            for (path, leaf, x), slot in zip(
                leaves_of(t, v), [s for s in self.slots if s[0] == sid], strict=True
            ):
                assert slot[1] == path
                got = ints[slot[4]] if slot[3] == "int" else floats[slot[4]]
                want = _expected(leaf, x)
                assert got == want or (np.isnan(want) and np.isnan(got)), (sid, path, got, want)


def python_value(t: rt.SpecType, v: object) -> object:
    """A value in the nested-tuple form _leaves expects (numpy arrays → lists)."""
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if v is None or isinstance(t, rt.Scalar):
        return v
    return [python_value(sub, x) for (_, sub), x in zip(rt.children(t), v, strict=True)]
