"""The process pool that imports and the dictionary build share.

RDKit work holds the GIL, so structures are computed in worker processes; one pool per
process, started on first use and reused across files.

Workers die with the process that started them, however it ends (``kill -9`` included):
on Linux the kernel sends them SIGKILL when their parent dies (``PR_SET_PDEATHSIG``, set
only when the pool is forked from the main thread: the signal follows the forking
*thread*), and a watchdog thread in each worker exits it when its parent process is gone
(its parent pid changes), for the other cases and other systems.
"""

from __future__ import annotations

import atexit
import ctypes
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

from chemground.forking import SPAWN_LOCK

# Workers yield the CPU to the process that feeds them: when an import's linking and writing
# (one thread, the critical path) compete with the workers for the cores, they go first.
WORKER_NICENESS = 10

_POOL: ProcessPoolExecutor | None = None


def worker_count() -> int:
    """Structure-parsing processes of an import.

    Returns:
        The ``kb.workers`` setting (env CHEMGROUND_WORKERS) when set, else one per CPU core, at
        most 8.
    """
    from chemground.settings import get_settings

    return get_settings().kb.workers or max(1, min(os.cpu_count() or 1, 8))


def pool_started() -> bool:
    return _POOL is not None


PARENT_POLL_S = 0.5  # how often a worker's watchdog checks that its parent is alive
_PR_SET_PDEATHSIG = 1


def _start_worker(parent_pid: int, death_signal: bool) -> None:
    os.nice(WORKER_NICENESS)
    # forked while an import had paused the cyclic collector, a worker would inherit the pause
    gc.enable()
    tie_to_parent(parent_pid, death_signal)


def tie_to_parent(parent_pid: int, death_signal: bool = True) -> None:
    """Make this (child) process exit when ``parent_pid`` dies: see the module docstring."""
    if death_signal and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watchdog below still covers it
    if os.getppid() != parent_pid:  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(
        target=_watch_parent, args=(parent_pid,), name="parent-watchdog", daemon=True
    ).start()


def _watch_parent(parent_pid: int) -> None:
    while True:
        time.sleep(PARENT_POLL_S)
        if os.getppid() != parent_pid:  # re-parented: the process that started us is gone
            os._exit(1)


def pool() -> ProcessPoolExecutor:
    """The pool, its workers forked at once (not as jobs arrive) under ``SPAWN_LOCK``."""
    global _POOL
    if _POOL is None:
        with SPAWN_LOCK:
            on_main_thread = threading.current_thread() is threading.main_thread()
            executor = ProcessPoolExecutor(
                max_workers=worker_count(),
                mp_context=multiprocessing.get_context("fork"),
                initializer=_start_worker,
                initargs=(os.getpid(), on_main_thread),
            )
            executor.submit(os.getpid).result()  # with "fork", the first job forks every worker
        atexit.register(executor.shutdown, wait=False, cancel_futures=True)
        _POOL = executor
    return _POOL


def start_pool() -> None:
    """Start the workers now (when more than one is wanted): the caller knows more work follows,
    which the size of one job cannot tell."""
    if worker_count() > 1:
        pool()
