"""Fresh-process start-up of the CLI, as a ratio to ``python -c "import rdkit.Chem"`` (issue 16).

    python benchmarks/startup.py [--baseline COMMIT] [--repeat 7]

Every command runs as a new process, ``--repeat`` times after one warm-up run (the warm-up
writes byte code and fills the KB's and the embedding cache's files, as a user's first call
would). The median wall time is divided by the median of ``import rdkit.Chem`` measured in
the same run, so the ratio holds on a busy machine. With ``--baseline`` the same commands also
run against that commit's source (a temporary ``git worktree``) with the same interpreter,
side by side.

``PYTHONDONTWRITEBYTECODE`` is removed from the environment: a user's installation keeps its
byte code, and without it every run would recompile the package (~70 ms).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, RESULTS

PAPER = """Suzuki coupling of 4-bromoanisole with phenylboronic acid.

A mixture of 4-bromoanisole (1.0 mmol), phenylboronic acid (1.2 mmol), Pd(PPh3)4 (3 mol%) and
K2CO3 (2.0 mmol) in toluene/ethanol/water was heated at 80 C for 12 h. 4-Methoxybiphenyl was
isolated in 92% yield after chromatography. Lower yields were obtained in DMF.
"""

COMMANDS = [
    ("ask", ["ask", "molecular weight of aspirin"]),
    ("lit search", ["lit", "search", "which base was used in the Suzuki coupling?"]),
    ("tools search", ["tools", "search", "molecular weight of a SMILES string"]),
]
TARGETS = {"ask": 2.5, "lit search": 4.0, "tools search": 4.0}  # issue 16 (lit: issue 17 asks 3x)


def median_ms(argv: list[str], env: dict[str, str], repeat: int) -> float:
    """Median wall time of ``argv`` in milliseconds, after one warm-up run.

    Raises:
        RuntimeError: the command failed (its stderr is in the message).
    """
    times = []
    for run in range(repeat + 1):
        started = time.perf_counter()
        proc = subprocess.run(argv, env=env, capture_output=True, text=True)
        elapsed = (time.perf_counter() - started) * 1000
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr[-400:]}")
        if run:
            times.append(elapsed)
    return statistics.median(times)


def environment(source: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(source / "src")
    env["CHEMGROUND_KB"] = str(home / "kb.sqlite")
    env["CHEMGROUND_CACHE_DIR"] = str(home / "cache")
    env["HF_HUB_OFFLINE"] = "1"
    return env


def prepare(source: Path, home: Path) -> None:
    """A KB with one paper in it, so ``lit search`` has something to search."""
    env = environment(source, home)
    paper = home / "suzuki.txt"
    paper.write_text(PAPER, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "chemground", "lit", "add", str(paper)],
        env=env,
        check=True,
        capture_output=True,
    )


def measure(source: Path, label: str, repeat: int, rows: list[list[str]]) -> None:
    with tempfile.TemporaryDirectory(prefix="cg-startup-") as tmp:
        home = Path(tmp)
        shutil.copy2(default_kb(), home / "kb.sqlite")
        prepare(source, home)
        env = environment(source, home)
        rdkit = median_ms([sys.executable, "-c", "import rdkit.Chem"], env, repeat)
        rows.append([label, "import rdkit.Chem", f"{rdkit:.0f}", "1.00", ""])
        for name, args in COMMANDS:
            ms = median_ms([sys.executable, "-m", "chemground", *args], env, repeat)
            ratio = ms / rdkit
            verdict = "yes" if ratio <= TARGETS[name] else "no"
            rows.append(
                [
                    label,
                    f"chemground {' '.join(args[:2])} ...",
                    f"{ms:.0f}",
                    f"{ratio:.2f}",
                    f"<= {TARGETS[name]}: {verdict}",
                ]
            )
            print(f"{label:>10}  {name:<13} {ms:7.0f} ms  {ratio:5.2f}x", flush=True)


def default_kb() -> Path:
    """The default KB file, built once by the current source if absent."""
    from chemground.settings import get_settings

    path = get_settings().kb.path
    if not path.exists():
        subprocess.run(
            [sys.executable, "-m", "chemground", "kb", "stats"], check=True, capture_output=True
        )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="a commit to measure side by side (e.g. d9c255c)")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rows: list[list[str]] = []
    measure(REPO, "current", args.repeat, rows)
    if args.baseline:
        worktree = Path(tempfile.mkdtemp(prefix="cg-baseline-"))
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", str(worktree), args.baseline],
            check=True,
            capture_output=True,
        )
        try:
            measure(worktree, args.baseline, args.repeat, rows)
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(worktree)], check=True
            )
    header = ["code", "command", "median ms", "x rdkit import", "target"]
    lines = [
        "## CLI start-up (issue 16)",
        "",
        f"`python benchmarks/startup.py{' --baseline ' + args.baseline if args.baseline else ''}`: "
        f"fresh processes, median of {args.repeat} runs after one warm-up, byte code kept, the",
        "embedding cache warm (a user's second call). Ratios are to `import rdkit.Chem` measured "
        "in the",
        "same run on the same machine.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
        "",
    ]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "startup.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
