"""``chemground bench ...``: benchmark generators and runners of every area.

Each area adds its commands in its own module (``bench_<area>.py`` with ``register(app)``).
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(help="Benchmarks: generate and run.", no_args_is_help=True)

for _area in ("bench_table", "bench_extract", "bench_graph", "bench_lit", "bench_tools"):
    _module = f"chemground.cli.{_area}"
    try:
        importlib.import_module(_module).register(app)
    except ModuleNotFoundError as _error:
        if _error.name != _module:
            raise
