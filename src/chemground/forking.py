"""One lock for starting child processes from a process that has threads.

A fork made while another thread is starting a subprocess copies that subprocess's
exec-status pipe into the forked child; the starting thread then waits for the pipe to
close, which it never does while the child lives (an import hung this way when the worker
pool forked while OPSIN's JVM was being started). Code here that forks or starts a child
process holds ``SPAWN_LOCK`` while it does.
"""

from __future__ import annotations

import threading

SPAWN_LOCK = threading.RLock()
