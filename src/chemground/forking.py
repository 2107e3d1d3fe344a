"""Child processes: one lock for starting them from a process with threads, and the
address-space cap of the workers that run untrusted work.

A fork made while another thread is starting a subprocess copies that subprocess's
exec-status pipe into the forked child; the starting thread then waits for the pipe to
close, which it never does while the child lives (an import hung this way when the worker
pool forked while OPSIN's JVM was being started). Code here that forks or starts a child
process holds ``SPAWN_LOCK`` while it does.
"""

from __future__ import annotations

import threading

SPAWN_LOCK = threading.RLock()


def limit_memory(memory_mb: int | None, reserve_bytes: int = 0) -> int | None:
    """Cap this process's address space (RLIMIT_AS) at ``memory_mb`` MiB plus ``reserve_bytes``
    (what a library maps up front, e.g. a database file), never above an inherited hard limit.

    Used by the worker processes that run untrusted work (tools, user or LLM Cypher): past the
    cap an allocation fails with MemoryError instead of taking the machine's memory.

    Returns:
        The limit applied in bytes, or None when there is none (0/None, or no ``resource``).
    """
    if not memory_mb or memory_mb <= 0:
        return None
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None
    limit = int(memory_mb) * 2**20 + reserve_bytes
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return limit
