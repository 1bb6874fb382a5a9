"""Campaigns of the program fuzzers (acc_harness.py, host_harness.py): seeds run in worker
subprocesses, a chunk per worker, on ``jobs`` threads. A worker prints ``RESULT <json>`` per
seed; one that crashes or passes its time has its remaining seeds run one by one, so the
culprit is named (``crash-or-hang``)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_worker(module: str, args: list[str], seeds: list[int], timeout: float,
               blank: dict) -> list[dict]:
    """``python -m module worker --seeds ... *args``; ``blank``: the other fields of a crash
    record."""
    cmd = [sys.executable, "-m", module, "worker", "--seeds", ",".join(map(str, seeds)), *args]
    # a session of its own: on a timeout the whole group goes, LLVM's forked compile
    # children (runtime/contained.py) included
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            cwd=ROOT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        crashed, why = proc.returncode != 0, f"worker exit status {proc.returncode}"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        crashed, why = True, f"no answer in {timeout:.0f} s"
    done = [json.loads(line[7:]) for line in out.splitlines() if line.startswith("RESULT ")]
    if crashed:
        rest = [s for s in seeds if s not in {r["seed"] for r in done}]
        if len(rest) == 1:  # the culprit
            done.append({**blank, "seed": rest[0], "status": "crash-or-hang", "detail": why})
        else:
            for s in rest:
                done += run_worker(module, args, [s], timeout / len(seeds), blank)
    return done


def run_chunks(seeds: list[int], batch: int, jobs: int,
               run: Callable[[list[int]], list[dict]]) -> tuple[list[dict], dict[str, int], float]:
    """Every chunk of ``batch`` seeds through ``run`` on ``jobs`` threads, progress printed:
    (results, counts by status, seconds)."""
    chunks = [seeds[i:i + batch] for i in range(0, len(seeds), batch)]
    results: list[dict] = []
    lock = threading.Lock()
    t0 = time.monotonic()

    def work() -> None:
        while True:
            with lock:
                if not chunks:
                    return
                chunk = chunks.pop(0)
            rs = run(chunk)
            with lock:
                results.extend(rs)
                bad = [r["seed"] for r in rs if r["status"] != "ok"]
                print(f"  {len(results)}/{len(seeds)} programs, "
                      f"{len(results) / (time.monotonic() - t0):.2f}/s"
                      + (f"; not ok: {bad}" if bad else ""), flush=True)

    threads = [threading.Thread(target=work) for _ in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return results, counts, round(time.monotonic() - t0, 1)
