"""Steady-state timing of several backends of one computation, balanced for carry-over.

The shared baseline's ``interleaved`` runs the backends in bursts, in a rotating but always
cyclic order, each burst after one untimed call. Two effects of this VM bias it:

* **ramp-up after idling**: after the 20-50 ms cool-down pauses between bursts, a memory-bound
  kernel needs several milliseconds to get back to speed, whichever backend runs it (xmux
  vecadd 2^22, median of 40 bursts: with no pause 0.48 ms from the first call on; after 20 ms
  idle 0.89, 0.60, 0.55, 0.53, 0.51 ... ms, 0.50 after 7 calls; one thread: 1.05 ms first, 0.70
  after 12). One untimed call leaves most of that in the timed calls;
* **carry-over**: in a cyclic order every backend always follows the same one (its cool-down,
  its threads, its cache contents), so a backend's seat, not its code, can decide a ratio
  (conv3x3 with a specialization constant: the backend after the PoCL process measured 4-10%
  slower; vecadd: 0.53 ms after a numpy burst vs 0.50 after a 20 ms pause vs 0.48 back to
  back).

``interleaved`` here keeps the baseline's bursts, cool-downs, statistics and result format and
changes two things: every burst starts with untimed calls for at least ``WARM_S`` (at least
one), and the rounds follow a Williams design, a set of orders in which every backend
directly follows every other equally often (n orders for an even number of backends, 2n for
an odd one; the rounds are a whole number of such sets).
"""

from __future__ import annotations

import math
import time

import workloads as wl

bl = wl.baseline()

#: untimed calls at the start of every burst, at least this long (and at least one call)
WARM_S = 0.01


def williams_orders(n: int) -> list[list[int]]:
    """Orders of ``range(n)`` in which every element directly follows every other one equally
    often (a Williams Latin square; for odd ``n`` with its mirror image)."""
    if n <= 1:
        return [list(range(n))]
    first, lo, hi = [0], 1, n - 1
    while len(first) < n:
        first.append(lo)
        lo += 1
        if len(first) < n:
            first.append(hi)
            hi -= 1
    rows = [[(x + r) % n for x in first] for r in range(n)]
    if n % 2:
        rows += [row[::-1] for row in rows]
    return rows


def interleaved(backends: list, warm_s: float = WARM_S) -> dict:
    """The baseline's ``interleaved`` result (per backend: reps, rounds, burst, wall_ms,
    event_ms where a backend reports events, ratio_vs), measured as the module docstring says.
    Each backend is judged by its event (kernel) time where it reports one, else its wall time;
    a backend with events also gets ``wall_ratio_vs``: its wall time against the others'."""
    est = {}
    for b in backends:
        smp = b.run(bl.WARMUP)
        est[b.label] = min(s["wall"] for s in smp)
        time.sleep(bl.COOLDOWN_S[b.kind])
    burst = {k: int(max(1, min(10, bl.BURST_S / max(v, 1e-6)))) for k, v in est.items()}
    warm = {k: max(1, math.ceil(warm_s / max(v, 1e-6))) for k, v in est.items()}
    orders = williams_orders(len(backends))
    rounds = max(bl.ROUNDS_MIN, max(math.ceil(bl.REPS_MIN / n) for n in burst.values()))
    rounds = math.ceil(rounds / len(orders)) * len(orders)
    per_round: dict[str, list] = {b.label: [] for b in backends}
    for r in range(rounds):
        for i in orders[r % len(orders)]:
            b = backends[i]
            w = warm[b.label]
            per_round[b.label].append(b.run(w + burst[b.label])[w:])
            time.sleep(bl.COOLDOWN_S[b.kind])

    def t(s: dict) -> float:  # the time a backend is judged by: PoCL event, otherwise wall
        return s.get("event", s["wall"])

    out = {}
    for b in backends:
        smp = [s for rnd in per_round[b.label] for s in rnd]
        o = {"reps": len(smp), "rounds": rounds, "burst": burst[b.label],
             "warm": warm[b.label], "wall_ms": bl.summ([s["wall"] for s in smp])}
        if "event" in smp[0]:
            o["event_ms"] = bl.summ([s["event"] for s in smp])
        # paired round by round; for a backend with events also its wall time's ratios
        o["ratio_vs"], wall = {}, {}
        for other in backends:
            if other is not b:
                theirs = [bl.median([t(s) for s in th]) for th in per_round[other.label]]
                rounds_x = list(zip(per_round[b.label], theirs, strict=True))
                o["ratio_vs"][other.label] = bl.median(
                    [bl.median([t(s) for s in mine]) / x for mine, x in rounds_x])
                wall[other.label] = bl.median(
                    [bl.median([s["wall"] for s in mine]) / x for mine, x in rounds_x])
        if "event" in smp[0]:
            o["wall_ratio_vs"] = wall
        out[b.label] = o
    return out
