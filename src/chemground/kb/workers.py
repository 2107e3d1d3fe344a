"""The process pool that imports and the dictionary build share.

RDKit work holds the GIL, so structures are computed in worker processes; one pool per
process, started on first use and reused across files.
"""

from __future__ import annotations

import atexit
import gc
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from chemground.forking import SPAWN_LOCK

# Workers yield the CPU to the process that feeds them: when an import's linking and writing
# (one thread, the critical path) compete with the workers for the cores, they go first.
WORKER_NICENESS = 10

_POOL: ProcessPoolExecutor | None = None


def worker_count() -> int:
    env = os.environ.get("CHEMGROUND_WORKERS")
    if env:
        return max(1, int(env))
    return max(1, min(os.cpu_count() or 1, 8))


def pool_started() -> bool:
    return _POOL is not None


def _start_worker() -> None:
    os.nice(WORKER_NICENESS)
    # forked while an import had paused the cyclic collector, a worker would inherit the pause
    gc.enable()


def pool() -> ProcessPoolExecutor:
    """The pool, its workers forked at once (not as jobs arrive) under ``SPAWN_LOCK``."""
    global _POOL
    if _POOL is None:
        with SPAWN_LOCK:
            executor = ProcessPoolExecutor(
                max_workers=worker_count(), mp_context=multiprocessing.get_context("fork"), initializer=_start_worker)
            executor.submit(os.getpid).result()  # with "fork", the first job forks every worker
        atexit.register(executor.shutdown, wait=False, cancel_futures=True)
        _POOL = executor
    return _POOL


def start_pool() -> None:
    """Start the workers now (when more than one is wanted): the caller knows more work follows,
    which the size of one job cannot tell."""
    if worker_count() > 1:
        pool()
