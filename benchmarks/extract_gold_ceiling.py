"""The validation stage on the GOLD records (no LLM): the ceiling of any LLM extraction.

For every gold reaction of the two ORD-derived sets, each participant's gold NAME goes
through the same resolution and checks as an LLM-extracted name (KB dictionary with the
curated abbreviations, spelling variants, formulas, OPSIN; no PubChem). Reports, per role,
the share of mentions that resolve to a structure, how many reactions have every
participant resolved, and how many the filter would keep. For the USPTO grants, whose gold
also carries SMILES, it reports how often the resolved structure is the gold one.

    python benchmarks/extract_gold_ceiling.py [--limit N] [--data DIR] [--kb PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from extract_common import DATA, WORK, full_kb, write_section

from chemground.chem.opsin import Opsin
from chemground.extract import gold as gold_data
from chemground.extract.bench import gold_ceiling
from chemground.extract.resolve import ExtractedNameResolver
from chemground.extract.scoring import ROLES
from chemground.kb.sqlite_store import SQLiteKB


def markdown(reports: dict, seconds: dict, kb_path: Path, limit: int | None) -> str:
    lines = [
        "## Validation ceiling on the gold records (no LLM)",
        "",
        "Every gold participant NAME goes through the validation stage of `chemground kb extract` "
        "(KB names incl. curated abbreviations, spelling variants, formulas, OPSIN; PubChem off). "
        "A reaction is kept when every participant resolves, it has a reactant and a product, and "
        "every "
        'product element occurs in some input. Gold names that are labels ("title compound") '
        "cannot "
        "resolve, so this is the ceiling of any LLM extraction that copies the gold names.",
        "",
        f"KB: full dictionary built with `build_kb` ({kb_path}); sample: "
        f"{'all records' if not limit else f'{limit} per set'}; "
        f"measured on a shared, busy 2-core machine ({platform.python_version()}).",
        "",
    ]
    for name, r in reports.items():
        lines += [
            f"### {name}: {r['reactions']:,} gold reactions",
            "",
            "| role | mentions | resolved | share | labels | distinct names | distinct resolved |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for role in ROLES:
            x = r["roles"][role]
            lines.append(
                f"| {role} | {x['mentions']:,} | {x['resolved']:,} | {x['share']:.1%} | "
                f"{x['labels']:,} | "
                f"{x['distinct_names']:,} | {x['distinct_share']:.1%} |"
            )
        lines += [
            "",
            f"- every participant resolved: **{r['all_participants_resolved']:,} / "
            f"{r['reactions']:,} "
            f"= {r['all_resolved_share']:.1%}**",
            "- kept by the filter (resolved, complete, element check passed): "
            f"**{r['kept_by_filter']:,} = "
            f"{r['kept_share']:.1%}**",
            f"- exclusion reasons (a reaction can have several): {json.dumps(r['reasons'])}",
            f"- atom-balance warnings (not exclusions): {r['warnings'].get('atom_balance', 0):,}",
            f"- how names resolved: {json.dumps(r['sources'])}",
        ]
        if r.get("structure_agreement"):
            a = r["structure_agreement"]
            lines.append(
                f"- resolved structure vs gold SMILES: {a.get('same_inchikey', 0):,} / "
                f"{a['compared']:,} "
                f"= {a.get('same_inchikey', 0) / a['compared']:.1%} same InChIKey, "
                f"{a.get('same_skeleton_only', 0):,} same skeleton only (stereo/isotope/charge), "
                f"{a.get('different', 0):,} different"
            )
        top = {
            role: ", ".join(f"{n!r} ×{c}" for n, c in r["unresolved_examples"][role][:8])
            for role in ROLES
        }
        lines += [
            "- most frequent unresolved names: "
            + "; ".join(f"{role}: {v}" for role, v in top.items() if v),
            f"- time: {seconds[name]['load']:.0f} s to load, {r['resolve_seconds']:.0f} s to "
            "resolve "
            f"{sum(x['distinct_names'] for x in r['roles'].values()):,} distinct names (the OPSIN "
            "cache held "
            f"{seconds[name]['warm']:,} names when the run began), {r['seconds']:.0f} s in all",
            "",
        ]
    return "\n".join(lines)


def _cached_names(path: Path) -> int:
    """Names already in the OPSIN cache (a warm cache makes the resolve time much shorter)."""
    if not path.exists():
        return 0
    import sqlite3

    with sqlite3.connect(path) as db:
        try:
            return int(db.execute("SELECT COUNT(*) FROM opsin").fetchone()[0])
        except sqlite3.DatabaseError:
            return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--kb", type=Path, default=WORK / "kb.sqlite")
    parser.add_argument(
        "--limit", type=int, default=None, help="records per dataset (default: all)"
    )
    parser.add_argument(
        "--no-write", action="store_true", help="print only; do not update results/extract.md"
    )
    args = parser.parse_args()
    found = gold_data.find_datasets(args.data) if args.data.is_dir() else {}
    if len(found) < 2:
        print(
            f"skipped: the gold datasets are not under {args.data} (need ../shared/data/reactions)"
        )
        return 0
    kb = SQLiteKB(full_kb(args.kb), readonly=True)
    opsin_cache = WORK / "opsin-cache.sqlite"
    warm = _cached_names(opsin_cache)
    lookup = ExtractedNameResolver(kb, Opsin(opsin_cache))
    reports, seconds = {}, {}
    for name, split in ((gold_data.TEXT2JSON, "all"), (gold_data.USPTO_GRANTS, "")):
        started = time.perf_counter()
        records = gold_data.load(name, found[name], args.limit, 0, split or "test")
        loaded = time.perf_counter() - started
        print(
            f"{name}: {len(records):,} records loaded in {loaded:.0f} s; resolving ...", flush=True
        )
        reports[name] = gold_ceiling(records, lookup)
        seconds[name] = {"load": loaded, "warm": warm}
        r = reports[name]
        print(f"  {'role':10s} {'mentions':>9s} {'resolved':>9s} {'share':>7s}")
        for role in ROLES:
            x = r["roles"][role]
            print(f"  {role:10s} {x['mentions']:9,d} {x['resolved']:9,d} {x['share']:7.1%}")
        print(
            f"  all participants resolved {r['all_participants_resolved']:,}/{r['reactions']:,} "
            f"({r['all_resolved_share']:.1%}); kept by filter {r['kept_by_filter']:,} "
            f"({r['kept_share']:.1%}); "
            f"reasons {r['reasons']}; {r['seconds']:.0f} s",
            flush=True,
        )
    (WORK / "gold_ceiling.json").write_text(json.dumps(reports, indent=1), encoding="utf-8")
    if not args.no_write:
        write_section("gold_ceiling", markdown(reports, seconds, args.kb, args.limit))
        print("wrote benchmarks/results/extract.md (section gold_ceiling)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
