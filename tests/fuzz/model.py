"""A numpy model of a generated kernel (``tests/fuzz/gen.py``): the reference the compiled
kernel is compared with, and the judge of legality on each launch.

One work-group at a time, its work-items as lanes of numpy arrays in local linear order (x
fastest). Straight-line code runs on all lanes; ``scf.if``/``scf.for``/``scf.while`` run with
a mask of active lanes (lanes leave a loop on their own), so barrier-free divergent control
is exact. Between two barriers the lanes run in lockstep, which gives the result of any
interleaving for a program without data races; races are detected instead:

- a work-group barrier or collective reached by only part of the group → ``Illegal``;
- local memory: per slot, the epoch (barrier count) and lane of the last write and of the
  reads since; a write meeting another lane's read or write of the same epoch, a read meeting
  another lane's write, a read of a slot never written, an index out of range → ``Illegal``;
- a loop running more than ``MAX_STEPS`` iterations in total → ``Illegal``.

Integers: i32 values are kept sign-extended in int64 arrays and wrapped after each op; i64
and index wrap as int64; i1 are bools.
"""

from __future__ import annotations

import itertools

import numpy as np

from .gen import (
    CAP,
    ROWS,
    SLOTS,
    Barrier,
    Coll,
    For,
    If,
    Illegal,
    Kernel,
    LLoad,
    LStore,
    Op,
    OStore,
    While,
)

MAX_STEPS = 20000
M32 = 0xFFFFFFFF


def w32(x):
    return ((np.asarray(x, dtype=np.int64) + 2**31) & M32) - 2**31


def _wrap(x, ty):
    if ty == "i32":
        return w32(x)
    if ty == "i1":
        return np.asarray(x, dtype=bool)
    return np.asarray(x, dtype=np.int64)


IDENT = {"add": 0, "mul": 1, "smin": 2**31 - 1, "smax": -(2**31), "umin": -1, "umax": 0,
         "and": -1, "or": 0, "xor": 0}


def _scan(kind: str, x: np.ndarray) -> np.ndarray:
    """Inclusive scan over lanes, i32 wrapping."""
    if kind == "add":
        return w32(np.cumsum(x))
    if kind == "mul":
        with np.errstate(over="ignore"):
            return w32(np.cumprod(x))
    if kind == "smin":
        return np.minimum.accumulate(x)
    if kind == "smax":
        return np.maximum.accumulate(x)
    if kind == "umin":
        return w32(np.minimum.accumulate(x & M32))
    if kind == "umax":
        return w32(np.maximum.accumulate(x & M32))
    if kind == "and":
        return np.bitwise_and.accumulate(x)
    if kind == "or":
        return np.bitwise_or.accumulate(x)
    if kind == "xor":
        return np.bitwise_xor.accumulate(x)
    raise AssertionError(kind)


def _collective(op: str, kind: str | None, x: np.ndarray, src: int = 0) -> np.ndarray:
    """One group (work-group or sub-group) of lanes."""
    n = len(x)
    if op == "reduce":
        return np.full(n, _scan(kind, x)[-1])
    if op == "scan_inclusive":
        return _scan(kind, x)
    if op == "scan_exclusive":
        inc = _scan(kind, x)
        return np.concatenate([[IDENT[kind]], inc[:-1]]).astype(np.int64)
    if op == "broadcast":
        return np.full(n, x[src])
    if op == "any":
        return np.full(n, bool(x.any()))
    if op == "all":
        return np.full(n, bool(x.all()))
    raise AssertionError(op)


class _Group:
    def __init__(self, k: Kernel, env: dict, lanes: int, qs: dict, out: np.ndarray,
                 gids: np.ndarray, sg: int):
        self.k = k
        self.env = env
        self.L = lanes
        self.qs = qs
        self.out = out
        self.gids = gids
        self.sg = sg
        self.tile = np.zeros((ROWS, CAP), dtype=np.int64)
        self.init = np.zeros((ROWS, CAP), dtype=bool)
        self.w_ep = np.full((ROWS, CAP), -1, dtype=np.int64)
        self.w_ln = np.full((ROWS, CAP), -1, dtype=np.int64)
        self.r_ep = np.full((ROWS, CAP), -1, dtype=np.int64)
        self.r_ln = np.full((ROWS, CAP), -1, dtype=np.int64)
        self.ep = 0
        self.steps = 0
        self.lane = np.arange(lanes)

    def v(self, name: str) -> np.ndarray:
        return self.env[name]

    def full(self, mask, what: str):
        if not mask.all():
            raise Illegal(f"{what} reached by {int(mask.sum())} of {self.L} work-items")

    def block(self, body, mask):
        for s in body:
            self.stmt(s, mask)

    def stmt(self, s, mask):  # noqa: C901 - one case per statement class
        env = self.env
        if isinstance(s, Op):
            a = [self.v(x) for x in s.args]
            ty = s.ty
            o = s.op
            if o == "const":
                r = np.full(self.L, bool(s.imm) if ty == "i1" else s.imm,
                            dtype=bool if ty == "i1" else np.int64)
            elif o in ("add", "sub", "mul"):
                with np.errstate(over="ignore"):
                    r = {"add": np.add, "sub": np.subtract, "mul": np.multiply}[o](
                        a[0].astype(np.int64), a[1].astype(np.int64))
            elif o == "xor":
                r = a[0] ^ a[1]
            elif o == "and":
                r = a[0] & a[1]
            elif o == "or":
                r = a[0] | a[1]
            elif o == "maxs":
                r = np.maximum(a[0], a[1])
            elif o == "mins":
                r = np.minimum(a[0], a[1])
            elif o == "shl":
                r = a[0] << s.imm
            elif o == "shrs":
                r = a[0] >> s.imm
            elif o == "remu":
                r = (a[0] & M32) % s.imm if ty == "i32" else a[0] % s.imm
            elif o == "cmp":
                x, y = a
                if s.imm[0] == "u":
                    m = M32 if s.cty == "i32" else None
                    if m is not None:
                        x, y = x & m, y & m
                    else:
                        x, y = x.astype(np.uint64), y.astype(np.uint64)
                r = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal,
                     "sgt": np.greater, "sge": np.greater_equal, "ult": np.less,
                     "ugt": np.greater}[s.imm](x, y)
            elif o == "select":
                r = np.where(a[0], a[1], a[2])
            elif o == "small":
                r = a[0] & s.imm
            elif o in ("toi32", "trunc", "ext", "copy"):
                r = a[0]
            elif o == "q":
                r = self.qs[s.imm]
            else:
                raise AssertionError(o)
            env[s.dst] = _wrap(r, ty)
        elif isinstance(s, LStore):
            ln = self.lane[mask]
            if len(ln) == 0:
                return
            slot = self.v("%lid")[mask]
            self._check_write(s.row, slot, ln)
            self.tile[s.row, slot] = self.v(s.val)[mask]
            self.init[s.row, slot] = True
            self.w_ep[s.row, slot] = self.ep
            self.w_ln[s.row, slot] = ln
        elif isinstance(s, LLoad):
            n = self.L
            lid = self.v("%lid")
            if s.kind == "own":
                slot = lid
            elif s.kind == "next":
                slot = (lid + s.p) % n
            elif s.kind == "rev":
                slot = n - 1 - lid
            elif s.kind == "fix":
                slot = np.full(n, s.p % n)
            else:
                slot = self.v(s.p) % n
            res = np.zeros(n, dtype=np.int64)
            ln = self.lane[mask]
            if len(ln):
                sl = slot[mask]
                if (sl < 0).any() or (sl >= CAP).any():
                    raise Illegal("local index out of range")
                if not self.init[s.row, sl].all():
                    raise Illegal(f"read of uninitialised local memory (row {s.row})")
                self._check_read(s.row, sl, ln)
                res[mask] = self.tile[s.row, sl]
            env[s.dst] = res
        elif isinstance(s, OStore):
            g = self.gids[mask]
            self.out[g * SLOTS + s.slot] = self.v(s.val)[mask]
        elif isinstance(s, Barrier):
            if s.scope == "wg":
                self.full(mask, "work_group_barrier")
                self.ep += 1
            else:  # every sub-group reaches it whole or not at all (a fence at size 1)
                for lo in range(0, self.L, self.sg):
                    part = mask[lo:lo + self.sg]
                    if part.any() and not part.all():
                        raise Illegal(f"sub_group_barrier reached by {int(part.sum())} of "
                                      f"the {part.size} work-items of a sub-group")
        elif isinstance(s, Coll):
            self.full(mask, f"{s.scope} collective")
            x = self.v(s.val)
            if s.scope == "wg":
                src = 0
                if s.op == "broadcast":
                    ix, iy, iz = (int(self.v(i)[0]) for i in s.ids)
                    ls0, ls1 = int(self.qs["get_local_size", 0][0]), \
                        int(self.qs["get_local_size", 1][0])
                    src = (iz * ls1 + iy) * ls0 + ix
                r = _collective(s.op, s.kind, x, src)
            else:
                r = np.empty_like(x)
                for lo in range(0, self.L, self.sg):
                    r[lo:lo + self.sg] = _collective(s.op, s.kind, x[lo:lo + self.sg], 0)
            env[s.dst] = _wrap(r, s.ty)
        elif isinstance(s, If):
            c = self.v(s.cond)
            tm, em = mask & c, mask & ~c
            ys = []
            for m, b, yy in ((tm, s.then, s.then_y), (em, s.else_, s.else_y)):
                if m.any():
                    self.block(b, m)
                    ys.append([self.v(y) for y in yy])
                else:
                    ys.append([np.zeros(self.L, dtype=_dt(t)) for t in s.tys])
            for d, a, b in zip(s.dsts, ys[0], ys[1], strict=True):
                env[d] = np.where(c, a, b)
        elif isinstance(s, For):
            lb, ub, step = self.v(s.lb), self.v(s.ub), self.v(s.step)
            iv = lb.copy()
            its = [self.v(i).copy() for i in s.inits]
            act = mask & (iv < ub)
            while act.any():
                self._step()
                env[s.iv] = iv
                for n, x in zip(s.iters, its, strict=True):
                    env[n] = x
                self.block(s.body, act)
                its = [np.where(act, self.v(y), x) for y, x in zip(s.yields, its, strict=True)]
                iv = np.where(act, iv + step, iv)
                act = act & (iv < ub)
            for d, x in zip(s.dsts, its, strict=True):
                env[d] = x
        elif isinstance(s, While):
            args = [self.v(i).copy() for i in s.inits]
            res = [x.copy() for x in args]
            act = mask.copy()
            while True:
                self._step()
                for n, x in zip(s.bargs, args, strict=True):
                    env[n] = x
                self.block(s.before, act)
                c = self.v(s.cond)
                leaving = act & ~c
                res = [np.where(leaving, x, r) for x, r in zip(args, res, strict=True)]
                act = act & c
                if not act.any():
                    break
                for n, x in zip(s.aargs, args, strict=True):
                    env[n] = x
                self.block(s.after, act)
                args = [np.where(act, self.v(y), x) for y, x in zip(s.yields, args,
                                                                      strict=True)]
            for d, x in zip(s.dsts, res, strict=True):
                env[d] = x
        else:
            raise AssertionError(type(s))

    def _step(self):
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise Illegal("loop runs away")

    def _check_write(self, row, slot, ln):
        ep = self.ep
        if ((self.w_ep[row, slot] == ep) & (self.w_ln[row, slot] != ln)).any():
            raise Illegal(f"write-write race on local row {row}")
        if ((self.r_ep[row, slot] == ep) & (self.r_ln[row, slot] != ln)).any():
            raise Illegal(f"read-write race on local row {row}")

    def _check_read(self, row, slot, ln):
        ep = self.ep
        if ((self.w_ep[row, slot] == ep) & (self.w_ln[row, slot] != ln)).any():
            raise Illegal(f"write-read race on local row {row}")
        # record the readers: one lane, or -2 for several
        old = self.r_ep[row, slot] == ep
        cur = np.where(old & (self.r_ln[row, slot] != ln), -2,
                       np.where(old, self.r_ln[row, slot], ln))
        uniq, first, counts = np.unique(slot, return_index=True, return_counts=True)
        val = cur[first]
        val = np.where(counts > 1, -2, val)
        self.r_ep[row, uniq] = ep
        self.r_ln[row, uniq] = val


def _dt(t):
    return bool if t == "i1" else np.int64


def _pad(t, fill=1):
    return tuple(t) + (fill,) * (3 - len(t))


def run_model(k: Kernel, a: np.ndarray, out: np.ndarray, scalars: tuple, gsize, lsize,
              sg: int = 1, offset=None) -> np.ndarray:
    """The kernel's ``out`` after a launch (a copy of ``out`` updated); raises ``Illegal``."""
    p0, p1, k0, k1 = scalars
    g = _pad(gsize)
    ls = _pad(lsize)
    off = _pad(offset or (), 0)
    ng = [-(-g[d] // ls[d]) for d in range(3)]
    out = out.astype(np.int64).copy()
    sg = max(1, sg)
    for gz, gy, gx in itertools.product(range(ng[2]), range(ng[1]), range(ng[0])):
        grp = (gx, gy, gz)
        als = [min(ls[d], g[d] - grp[d] * ls[d]) for d in range(3)]
        L = als[0] * als[1] * als[2]
        if L > CAP:
            raise Illegal("work-group larger than the local tile")
        lin = np.arange(L)
        lid = [lin % als[0], (lin // als[0]) % als[1], lin // (als[0] * als[1])]
        gid = [grp[d] * ls[d] + lid[d] + off[d] for d in range(3)]
        glin = ((gid[2] - off[2]) * g[1] + (gid[1] - off[1])) * g[0] + (gid[0] - off[0])

        def full(x, L=L):
            return np.full(L, x, dtype=np.int64)

        qs = {}
        for d in range(3):
            qs["get_local_size", d] = full(als[d])
            qs["get_group_id", d] = full(grp[d])
            qs["get_num_groups", d] = full(ng[d])
            qs["get_enqueued_local_size", d] = full(ls[d])
            qs["get_local_id", d] = lid[d].astype(np.int64)
            qs["get_global_id", d] = gid[d].astype(np.int64)
        env = {
            "%gid": glin.astype(np.int64), "%lid": lin.astype(np.int64),
            "%n": full(L), "%c0": full(0), "%c1": full(1),
            "%v": a[glin].astype(np.int64), "%lidi": w32(lin),
            "%p0": full(int(w32(p0))), "%p1": full(int(w32(p1))),
            "%k0": full(k0), "%k1": full(k1),
        }
        for d in range(3):
            env[f"%ls{d}"] = full(als[d])
        grp_m = _Group(k, env, L, qs, out, glin, sg)
        grp_m.block(k.body, np.ones(L, dtype=bool))
    return w32(out).astype(np.int32)
