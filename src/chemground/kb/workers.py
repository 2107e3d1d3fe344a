"""The process pool that imports and the dictionary build share.

RDKit work holds the GIL, so structures are computed in worker processes; one pool per
process, started on first use and reused across files (starting workers costs ~0.2 s).
"""

from __future__ import annotations

import atexit
import os
from concurrent.futures import ProcessPoolExecutor

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


def pool() -> ProcessPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ProcessPoolExecutor(max_workers=worker_count(), initializer=os.nice, initargs=(WORKER_NICENESS,))
        atexit.register(_POOL.shutdown, wait=False, cancel_futures=True)
    return _POOL
