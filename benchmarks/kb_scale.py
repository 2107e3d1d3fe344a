"""KB scale benchmark (issue 19): SQLite and PostgreSQL (RDKit cartridge) at 100k and 1M reactions.

    python benchmarks/kb_scale.py --pg-admin postgresql://postgres@127.0.0.1:5432/postgres \\
        [--sizes 100000 1000000] [--workdir /tmp/chemground-scale] [--repeat 7]

Both KBs start from the benchmark KB (full dictionary + starter set + the 13,901 shared patent
reactions, ``benchmarks/_kb.py``); the PostgreSQL one is a ``kb migrate`` copy of it. Each size
is reached by importing variant reactions with the ordinary importer (``import_file``, one
transaction per file) into both, so the import rate is measured on each backend with the same
file. The 1M KBs are the 100k KBs plus a second variant file.

How the variants are made (real data holds 13.5k reactions; 1M needs variants that keep the
structures real): each variant copies one real reaction of
``reactions/ord_uspto_grants/ord_uspto_grants_13501_flat.csv.gz`` (round-robin, seeded RNG):
its reactants and products, with their names and SMILES, are kept unchanged; its solvents are
replaced by the solvent list of another reaction of the same file, its catalysts/agents by
the catalyst list of another reaction; its temperature is the original one shifted by -20,
-10, +10 or +20 °C (or, when the original has none, another reaction's temperature), its
time and yield are those of other reactions of the file (yields within 0-100 %: the file has
a few impossible ones, such as 910 %, that the importer refuses); its text is the original procedure
text. The variant's id is ``<original id>~v<k>`` and its dataset ``scale-variants``. So every
molecule is a real molecule of the data set, every reaction a real transformation, and the
agents, solvents and conditions are real combinations of the data set's own values.

Measured per backend and size: import rate (reactions/s, commit included); ``retrieve`` and
``ask`` (extractive) p50/p95 over the table-RAG benchmark questions generated from the base
KB; substructure (over reactants, selective and broad), similarity and exact search latency
(p50 of ``--repeat`` runs after one cold run, which is also reported); disk size. Writes
``benchmarks/results/kb_scale.md`` and ``kb_scale.json``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import SHARED_DATA, machine_line
from _kb import DEFAULT_KB, full_kb

FLAT = SHARED_DATA / "reactions" / "ord_uspto_grants" / "ord_uspto_grants_13501_flat.csv.gz"
RESULTS = Path(__file__).resolve().parent / "results"
STRUCTURE_QUERIES = [  # (label, mode, query, roles, threshold)
    (
        "substructure, selective: boronic acid B(O)O as reactant",
        "substructure",
        "B(O)O",
        ["reactant"],
        None,
    ),
    (
        "substructure, selective: acyl chloride C(=O)Cl as reactant",
        "substructure",
        "C(=O)Cl",
        ["reactant"],
        None,
    ),
    (
        "substructure, broad: pyridine c1ccncc1 as reactant",
        "substructure",
        "c1ccncc1",
        ["reactant"],
        None,
    ),
    ("substructure over compounds: B(O)O", "substructure-compounds", "B(O)O", None, None),
    (
        "similarity >= 0.7 to 4-bromoanisole, reactants",
        "similarity",
        "COc1ccc(Br)cc1",
        ["reactant"],
        0.7,
    ),
    (
        "similarity >= 0.6 to ibuprofen, compounds",
        "similarity-compounds",
        "CC(C)Cc1ccc(C(C)C(=O)O)cc1",
        None,
        0.6,
    ),
    ("exact: THF (InChIKey) as solvent", "exact", "WYURNTSHIVDZCO-UHFFFAOYSA-N", ["solvent"], None),
]


def _json_list(text: str) -> list[dict]:
    try:
        value = json.loads(text) if text else []
    except json.JSONDecodeError:
        return []
    return value if isinstance(value, list) else []


def _participants(items: list[dict]) -> list[dict]:
    out = []
    for item in items:
        smiles = item.get("smiles")
        names = item.get("names") or []
        if smiles or names:
            out.append(
                {k: v for k, v in (("name", names[0] if names else None), ("smiles", smiles)) if v}
            )
    return out


def read_real_reactions() -> list[dict]:
    """The real reactions with at least one reactant and one product with a structure."""
    rows = []
    with gzip.open(FLAT, "rt", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            reactants = _participants(_json_list(row["reactants_json"]))
            products = _participants(_json_list(row["products_json"]))
            if not any("smiles" in p for p in reactants) or not any(
                "smiles" in p for p in products
            ):
                continue
            rows.append(
                {
                    "id": row["reaction_id"],
                    "source": row["patent"],
                    "reactants": reactants,
                    "products": products,
                    "solvents": _participants(_json_list(row["solvents_json"])),
                    "catalysts": _participants(_json_list(row["catalysts_json"])),
                    "temperature_c": float(row["temperature_c"]) if row["temperature_c"] else None,
                    "time_h": float(row["reaction_time_h"]) if row["reaction_time_h"] else None,
                    "yield_percent": float(row["yield_percent"]) if row["yield_percent"] else None,
                    "text": row["procedure_text"],
                }
            )
    return rows


def write_variants(real: list[dict], start: int, count: int, out: Path, seed: int = 19) -> Path:
    """Variants ``start`` .. ``start + count - 1`` as JSONL in our schema (see the docstring)."""
    rng = random.Random(seed * 1_000_003 + start)
    temperatures = [r["temperature_c"] for r in real if r["temperature_c"] is not None]
    yields = [
        r["yield_percent"]
        for r in real
        if r["yield_percent"] is not None and 0 < r["yield_percent"] <= 100
    ]
    times = [r["time_h"] for r in real if r["time_h"] is not None and r["time_h"] > 0]
    with out.open("w", encoding="utf-8") as handle:
        for n in range(start, start + count):
            base = real[n % len(real)]
            k = n // len(real) + 1
            temperature = base["temperature_c"]
            temperature = (
                (temperature + rng.choice((-20, -10, 10, 20)))
                if temperature is not None
                else rng.choice(temperatures)
            )
            record = {
                "id": f"{base['id']}~v{k}",
                "source": base["source"],
                "dataset": "scale-variants",
                "text": base["text"],
                "reactants": base["reactants"],
                "products": base["products"],
                "solvents": rng.choice(real)["solvents"],
                "catalysts": rng.choice(real)["catalysts"],
                "temperature_c": temperature,
                "time_h": rng.choice(times),
                "yield_percent": rng.choice(yields),
            }
            handle.write(json.dumps(record) + "\n")
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def time_questions(location: str, cache_dir: Path, questions: list[str]) -> dict:
    """p50/p95 (ms) of retrieve and ask (extractive) over the questions, after one warm-up pass."""
    from chemground.qa_factory import build_qa
    from chemground.settings import Settings
    from chemground.workspace import Workspace

    workspace = Workspace(Settings(kb={"path": location}, cache_dir=cache_dir), readonly=True)
    qa = build_qa(workspace)
    for q in questions[:10]:  # warm-up: indexes, caches, OPSIN
        try:
            qa.ask(q)
        except Exception:
            continue
    out = {}
    for name, call in (
        ("retrieve", lambda q: qa.retrieve(q, method="auto", k=5)),
        ("ask", lambda q: qa.ask(q)),
    ):
        times, errors = [], []
        for q in questions:
            started = time.perf_counter()
            try:
                call(q)
            except Exception as error:
                errors.append(f"{type(error).__name__}: {str(error)[:120]}")
                continue
            times.append((time.perf_counter() - started) * 1000)
        out[name] = {
            "p50_ms": round(percentile(times, 0.5), 1),
            "p95_ms": round(percentile(times, 0.95), 1),
            "errors": len(errors),
            "error_examples": sorted(set(errors))[:3],
        }
    workspace.close()
    return out


def time_structure(kb, repeat: int) -> dict:
    out = {}
    for label, mode, query, roles, threshold in STRUCTURE_QUERIES:
        kind = mode.replace("-compounds", "")

        def run(mode=mode, query=query, kind=kind, roles=roles, threshold=threshold):
            if mode.endswith("-compounds"):
                return kb.search_compounds_by_structure(
                    query, mode=kind, threshold=threshold or 0.7, limit=50
                )
            return kb.search_reactions_by_structure(
                query, mode=kind, roles=roles, threshold=threshold or 0.7, limit=50
            )

        started = time.perf_counter()
        hits = run()
        cold = (time.perf_counter() - started) * 1000
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            run()
            times.append((time.perf_counter() - started) * 1000)
        out[label] = {
            "cold_ms": round(cold, 1),
            "p50_ms": round(statistics.median(times), 1),
            "hits": len(hits),
        }
    return out


def disk_bytes(location: str) -> int:
    from chemground.kb.pg_store import is_postgres_url

    if not is_postgres_url(location):
        path = Path(location)
        return sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())
    import psycopg

    with psycopg.connect(location) as conn:
        return int(conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])


def import_into(location: str, path: Path, opsin) -> dict:
    from chemground.chem.names import NameResolver
    from chemground.kb.backends import open_kb
    from chemground.kb.importers import import_file

    kb = open_kb(location)
    try:
        started = time.perf_counter()
        summary = import_file(kb, path, resolver=NameResolver(kb, opsin), skip_bad_rows=True)
        kb.update_structure_index()
        seconds = time.perf_counter() - started
        reactions = kb.stats().reactions
    finally:
        kb.close()
    return {
        "added": summary.reactions_added,
        "seconds": round(seconds, 1),
        "rate": round(summary.reactions_added / seconds, 1),
        "reactions": reactions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgresql"])
    parser.add_argument(
        "--pg-admin",
        help="URL of a PostgreSQL server's maintenance database (superuser), "
        "with the RDKit cartridge installed",
    )
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/chemground-scale"))
    parser.add_argument(
        "--kb", type=Path, default=DEFAULT_KB, help="The base KB (built if missing)."
    )
    parser.add_argument(
        "--questions", type=Path, help="JSONL of {id, question}; default: generated"
    )
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--merge",
        action="store_true",
        help="Keep the other backends' figures of the last run (kb_scale.json)",
    )
    parser.add_argument(
        "--report-only", action="store_true", help="Rewrite kb_scale.md from kb_scale.json"
    )
    args = parser.parse_args()
    if args.report_only:
        write_report(json.loads((RESULTS / "kb_scale.json").read_text()))
        return

    from chemground.chem.opsin import Opsin
    from chemground.kb.backends import migrate
    from chemground.kb.sqlite_store import SQLiteKB

    work = args.workdir
    work.mkdir(parents=True, exist_ok=True)
    cache = work / "cache"
    base = full_kb(args.kb)
    with SQLiteKB(base, readonly=True) as kb:
        base_reactions = kb.stats().reactions
    if args.questions:
        questions = [json.loads(line)["question"] for line in args.questions.open()]
    else:
        from chemground.bench.generate import generate

        with SQLiteKB(base, readonly=True) as kb:
            questions = [item.question for item in generate(kb, per_task=5, seed=0)]
    real = read_real_reactions()
    opsin = Opsin(work / "opsin-cache.sqlite")
    locations = {}
    results: dict = {
        "base_reactions": base_reactions,
        "real_reactions_used": len(real),
        "sizes": {},
        "machine": machine_line(),
        "questions": len(questions),
    }
    previous = RESULTS / "kb_scale.json"
    if args.merge and previous.exists():
        old_results = json.loads(previous.read_text())
        for size, entry in old_results.get("sizes", {}).items():
            for backend, row in entry.items():
                if backend not in args.backends:
                    results["sizes"].setdefault(size, {})[backend] = row
        for key in ("migrate_base_seconds",):
            if key in old_results and "postgresql" not in args.backends:
                results[key] = old_results[key]
    if "sqlite" in args.backends:
        target = work / "kb-scale.sqlite"
        for stale in work.glob("kb-scale.sqlite*"):
            stale.unlink()
        shutil.copy(base, target)
        with SQLiteKB(target) as kb:  # the base's pre-screen, so imports time only their own rows
            kb.update_structure_index()
        locations["sqlite"] = str(target)
    if "postgresql" in args.backends:
        import psycopg

        if not args.pg_admin:
            sys.exit("--pg-admin is needed for the postgresql backend")
        with psycopg.connect(args.pg_admin, autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS kbscale")
            has_template = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = 'chemground_template'"
            ).fetchone()
            conn.execute(
                "CREATE DATABASE kbscale"
                + (" TEMPLATE chemground_template" if has_template else "")
            )
        url = args.pg_admin.rsplit("/", 1)[0] + "/kbscale"
        started = time.perf_counter()
        with SQLiteKB(base, readonly=True) as kb:
            migrate(kb, url)
        results["migrate_base_seconds"] = round(time.perf_counter() - started, 1)
        locations["postgresql"] = url
    made = base_reactions
    for size in sorted(args.sizes):
        count = size - made
        variants = write_variants(
            real, made - base_reactions, count, work / f"variants-{size}.jsonl"
        )
        entry = results["sizes"].setdefault(str(size), {})
        for backend, location in locations.items():
            print(
                f"[{size:,}] {backend}: importing {count:,} variants", file=sys.stderr, flush=True
            )
            row = entry.setdefault(backend, {})
            row["import"] = import_into(location, variants, opsin)
            row["disk_bytes"] = disk_bytes(location)
            from chemground.kb.backends import open_kb

            with open_kb(location, readonly=True) as kb:
                row["structure"] = time_structure(kb, args.repeat)
            row["questions"] = time_questions(location, cache, questions)
            print(json.dumps({backend: row}), file=sys.stderr, flush=True)
            (RESULTS / "kb_scale.json").write_text(json.dumps(results, indent=2))
        variants.unlink()
        made = size
    opsin.close()
    (RESULTS / "kb_scale.json").write_text(json.dumps(results, indent=2))
    write_report(results)


def write_report(results: dict) -> None:
    sizes = sorted(results["sizes"], key=int)
    backends = sorted({b for s in sizes for b in results["sizes"][s]})
    lines = [
        "# KB scale: SQLite and PostgreSQL (RDKit cartridge)",
        "",
        f"{results['machine']} Base KB: {results['base_reactions']:,} reactions "
        "(dictionary, starter set, shared patent reactions); sizes reached by importing "
        "structure-preserving variants of the real patent reactions (see benchmarks/kb_scale.py "
        "for exactly how). "
        f"Questions: {results['questions']} table-RAG benchmark questions. "
        + (
            f"Migrating the base KB to PostgreSQL took {results['migrate_base_seconds']} s."
            if "migrate_base_seconds" in results
            else ""
        ),
        "",
    ]
    header = "| measure | " + " | ".join(f"{b} {int(s):,}" for s in sizes for b in backends) + " |"
    lines += [header, "|" + " --- |" * (1 + len(sizes) * len(backends))]

    def cell(s, b, get):
        try:
            return get(results["sizes"][s][b])
        except KeyError:
            return "-"

    rows = [
        ("reactions in the KB", lambda r: f"{r['import']['reactions']:,}"),
        (
            "import rate (reactions/s, commit and index included)",
            lambda r: f"{r['import']['rate']:,.0f}",
        ),
        ("disk size (MB)", lambda r: f"{r['disk_bytes'] / 1e6:,.0f}"),
        (
            "retrieve p50 / p95 (ms)",
            lambda r: (
                f"{r['questions']['retrieve']['p50_ms']} / {r['questions']['retrieve']['p95_ms']}"
            ),
        ),
        (
            "ask p50 / p95 (ms)",
            lambda r: f"{r['questions']['ask']['p50_ms']} / {r['questions']['ask']['p95_ms']}",
        ),
        ("questions that raised (not timed)", lambda r: f"{r['questions']['ask']['errors']}"),
    ]
    for label, *_ in STRUCTURE_QUERIES:
        rows.append(
            (
                f"{label}: p50 ms (cold ms; hits)",
                lambda r, label=label: (
                    f"{r['structure'][label]['p50_ms']} ({r['structure'][label]['cold_ms']}; "
                    f"{r['structure'][label]['hits']})"
                ),
            )
        )
    for label, get in rows:
        lines.append(
            f"| {label} | " + " | ".join(cell(s, b, get) for s in sizes for b in backends) + " |"
        )
    if len(sizes) >= 2:  # how each figure grows from the smallest to the largest size
        small, large = sizes[0], sizes[-1]
        lines += [
            "",
            f"Growth from {int(small):,} to {int(large):,} reactions (large / small):",
            "",
            "| measure | " + " | ".join(backends) + " |",
            "|" + " --- |" * (1 + len(backends)),
        ]

        def ratio(b, get):
            try:
                a, z = get(results["sizes"][small][b]), get(results["sizes"][large][b])
            except KeyError:
                return "-"
            return f"{z / a:.1f}x" if a else "-"

        growth = [
            ("import rate", lambda r: r["import"]["rate"]),
            ("disk size", lambda r: r["disk_bytes"]),
            ("retrieve p50", lambda r: r["questions"]["retrieve"]["p50_ms"]),
            ("ask p50", lambda r: r["questions"]["ask"]["p50_ms"]),
        ] + [
            (f"{label} p50", lambda r, label=label: r["structure"][label]["p50_ms"])
            for label, *_ in STRUCTURE_QUERIES
        ]
        for label, get in growth:
            lines.append(f"| {label} | " + " | ".join(ratio(b, get) for b in backends) + " |")
    if results.get("notes"):
        lines += ["", "Notes:", ""] + [f"- {note}" for note in results["notes"]]
    (RESULTS / "kb_scale.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
