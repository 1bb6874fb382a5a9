"""Minimisation of a mismatching kernel: greedy AST reductions, each kept only when the model
still calls the kernel legal on the launch and the compiled kernel still disagrees.

Reductions (``candidates``): drop a statement (its results become constants of their type, so
nothing is renamed), replace an ``scf.if`` by one branch, a loop by one copy of its body
(the iv = lower bound, iteration values = inits, results = the yields) or by nothing, empty
an else branch, turn a constant into 0 or 1, drop the kernel attributes, and remove dead
pure ops. ``skeleton`` prints a kernel's control structure for classification.
"""

from __future__ import annotations

import copy
import time

from .gen import (
    Barrier,
    Coll,
    For,
    If,
    Kernel,
    LLoad,
    LStore,
    Op,
    OStore,
    While,
    children,
    walk,
)


def blocks(body) -> list[list]:
    out = [body]
    for s in body:
        for b in children(s):
            out += blocks(b)
    return out


def defs(s) -> list[tuple[str, str]]:
    if isinstance(s, Op):
        return [(s.dst, s.ty)]
    if isinstance(s, LLoad):
        return [(s.dst, "i32")]
    if isinstance(s, Coll):
        return [(s.dst, s.ty)]
    if isinstance(s, (If, For, While)):
        return list(zip(s.dsts, s.tys, strict=True))
    return []


def _zero(d: str, ty: str) -> Op:
    return Op(d, ty, "const", imm=False if ty == "i1" else 0)


def _copy(d: str, ty: str, src: str) -> Op:
    return Op(d, ty, "copy", [src])


def uses(s) -> set[str]:
    u = set()
    if isinstance(s, Op):
        u |= set(s.args)
    elif isinstance(s, LStore | OStore):
        u.add(s.val)
    elif isinstance(s, LLoad):
        if s.kind == "dyn":
            u.add(s.p)
    elif isinstance(s, Coll):
        u.add(s.val)
        u |= set(s.ids)
    elif isinstance(s, If):
        u |= {s.cond, *s.then_y, *s.else_y}
    elif isinstance(s, For):
        u |= {s.lb, s.ub, s.step, *s.inits, *s.yields}
    elif isinstance(s, While):
        u |= {*s.inits, s.cond, *s.yields}
    return u


def dce(k: Kernel) -> bool:
    """Remove pure ops / local loads whose results nothing uses. True when it removed any."""
    changed = False
    while True:
        used = set()
        for s in walk(k.body):
            used |= uses(s)
        removed = False
        for b in blocks(k.body):
            keep = [s for s in b if not (isinstance(s, (Op, LLoad)) and
                                         all(d not in used for d, _ in defs(s)))]
            if len(keep) != len(b):
                b[:] = keep
                removed = changed = True
        if not removed:
            return changed


def candidates(k: Kernel):
    """Smaller kernels, biggest cuts first."""
    if k.reqd or k.order:
        c = copy.deepcopy(k)
        c.reqd = c.order = None
        yield "attrs", c
    nb = len(blocks(k.body))
    # chunks of a block at once (halves, quarters, ...) while blocks are long
    for bi in range(nb):
        blen = len(blocks(k.body)[bi])
        size = blen // 2
        while size >= 3:
            for lo in range(0, blen - size + 1, size):
                c = copy.deepcopy(k)
                b = blocks(c.body)[bi]
                repl = []
                for t in b[lo:lo + size]:
                    repl += [_zero(d, ty) for d, ty in defs(t)]
                b[lo:lo + size] = repl
                yield "drop-chunk", c
            size //= 2
    # structured statements first (their cut removes most), then the rest
    for structured in (True, False):
        for bi in range(nb):
            blen = len(blocks(k.body)[bi])
            for i in range(blen - 1, -1, -1):
                s = blocks(k.body)[bi][i]
                if isinstance(s, (If, For, While)) != structured:
                    continue
                if isinstance(s, Op) and s.op == "const":
                    continue
                c = copy.deepcopy(k)
                b = blocks(c.body)[bi]
                t = b[i]
                b[i:i + 1] = [_zero(d, ty) for d, ty in defs(t)]
                yield "drop", c
                if isinstance(t, If):
                    for br in (t.then, t.else_):
                        c = copy.deepcopy(k)
                        b = blocks(c.body)[bi]
                        t2 = b[i]
                        br2 = t2.then if br is t.then else t2.else_
                        ys2 = t2.then_y if br is t.then else t2.else_y
                        b[i:i + 1] = br2 + [_copy(d, ty, y) for d, ty, y in
                                            zip(t2.dsts, t2.tys, ys2, strict=True)]
                        yield "inline-if", c
                    if t.else_:
                        c = copy.deepcopy(k)
                        t2 = blocks(c.body)[bi][i]
                        t2.else_ = []
                        t2.else_y = [d for d in t2.else_y]
                        if not t2.dsts:
                            yield "empty-else", c
                if isinstance(t, For):
                    c = copy.deepcopy(k)
                    b = blocks(c.body)[bi]
                    t2 = b[i]
                    pre = [_copy(t2.iv, "index", t2.lb)] + [
                        _copy(n, ty, v) for n, ty, v in zip(t2.iters, t2.tys, t2.inits,
                                                            strict=True)]
                    post = [_copy(d, ty, y) for d, ty, y in zip(t2.dsts, t2.tys, t2.yields,
                                                                strict=True)]
                    b[i:i + 1] = pre + t2.body + post
                    yield "unroll-once", c
    for bi in range(nb):
        for i, s in enumerate(blocks(k.body)[bi]):
            if isinstance(s, Op) and s.op == "const" and s.ty != "i1" and s.imm not in (0, 1):
                for v in (0, 1):
                    c = copy.deepcopy(k)
                    blocks(c.body)[bi][i].imm = v
                    yield "const", c


def minimise(k: Kernel, still_fails, budget_s: float = 120.0, log=None) -> Kernel:
    """Greedy: take the first candidate that ``still_fails`` and start over, until none does
    or the budget runs out. ``still_fails(kernel) -> bool`` must check legality itself."""
    t0 = time.time()
    k = copy.deepcopy(k)
    c = copy.deepcopy(k)
    if dce(c) and still_fails(c):
        k = c
    progress = True
    while progress and time.time() - t0 < budget_s:
        progress = False
        for what, c in candidates(k):
            if time.time() - t0 > budget_s:
                break
            dce(c)
            if c.size() >= k.size() and what != "const" and what != "attrs":
                continue
            if still_fails(c):
                if log:
                    log(f"  shrink: {what} -> {c.size()} statements")
                k = c
                progress = True
                break
    return k


def skeleton(body, ind: int = 0) -> str:
    """The control structure: constructs, barriers, collectives, local memory accesses."""
    parts = []
    for s in body:
        if isinstance(s, Barrier):
            parts.append("B" if s.scope == "wg" else "sgB")
        elif isinstance(s, Coll):
            parts.append(f"{s.scope}.{s.op}")
        elif isinstance(s, LStore):
            parts.append("st")
        elif isinstance(s, LLoad):
            parts.append(f"ld.{s.kind}")
        elif isinstance(s, If):
            y = "->" + str(len(s.dsts)) if s.dsts else ""
            e = ",else{" + skeleton(s.else_) + "}" if s.else_ else ""
            parts.append(f"if{y}{{{skeleton(s.then)}}}{e}")
        elif isinstance(s, For):
            y = f"[{len(s.dsts)}]" if s.dsts else ""
            parts.append(f"for{y}{{{skeleton(s.body)}}}")
        elif isinstance(s, While):
            parts.append(f"while{{{skeleton(s.before)}|{skeleton(s.after)}}}")
    return " ".join(p for p in parts if p)


def _lifted(body) -> set[str]:
    """Results of the constructs of ``body`` that hold a barrier or collective (lifted by
    structured fission)."""
    from .gen import has_sync

    out = set()
    for s in body:
        if isinstance(s, (If, For, While)) and any(has_sync(b) for b in children(s)):
            out |= set(s.dsts)
    return out


def classify(k: Kernel) -> str:
    """A coarse bug class of a (minimised) kernel: which construct yields a lifted op's
    result directly, if any."""
    labels = []
    for s in walk(k.body):
        if isinstance(s, For) and set(s.yields) & _lifted(s.body):
            labels.append("for-yields-lifted-result")
        elif isinstance(s, While) and set(s.yields) & _lifted(s.after):
            labels.append("while-yields-lifted-result")
        elif isinstance(s, If) and ((set(s.then_y) & _lifted(s.then)) or
                                    (set(s.else_y) & _lifted(s.else_))):
            labels.append("if-yields-lifted-result")
    return "+".join(sorted(set(labels))) or "other"
