"""Reaction roles from atom maps (issue 13): how many patent reactants are re-filed, and are
the re-filings right?

    python benchmarks/reaction_roles.py [--workdir /tmp/cg-roles] [--base KB.sqlite]

Imports the shared patent reactions (13,501 ORD reactions from the original .pb.gz files and
the 400 uspto_revisit reaction SMILES) into a fresh KB (dictionary + starter set; ``--base``
copies an existing one instead of building it), then counts, from what the import stored,
the reactant links the sources gave and those re-filed, by rule and by new role, the
compounds re-filed most often and the curated reagents left among the reactants. Two spot
checks (20 re-filings drawn at random, seed 13; 10 drawn from those of compounds on no list,
seed 7) are printed with the verdicts written down by hand in ``reaction_roles_spotcheck.tsv``
(reaction id, position, verdict, note; a drawn re-filing without one shows "not judged").
``--reuse`` measures the KB a previous run left in ``--workdir``. Writes
benchmarks/results/reaction_roles.md.
"""

from __future__ import annotations

import argparse
import csv
import random
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine_line, markdown_table, write_section
from _kb import reaction_files

from chemground.chem.names import NameResolver
from chemground.chem.opsin import Opsin
from chemground.kb.build import build_kb
from chemground.kb.importers import import_file
from chemground.kb.reaction_roles import RULES, is_listed_reagent
from chemground.kb.records import Role, role_changes_of
from chemground.kb.sqlite_store import SQLiteKB

HERE = Path(__file__).resolve().parent
SPOTCHECK = HERE / "reaction_roles_spotcheck.tsv"
SAMPLE, SEED = 20, 13
SAMPLE_UNLISTED, SEED_UNLISTED = 10, 7


def prepare_kb(workdir: Path, base: Path | None) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "kb.sqlite"
    for stale in workdir.glob("kb.sqlite*"):
        stale.unlink()
    if base is not None:
        shutil.copy(base, path)
    else:
        build_kb(path).close()
    return path


def import_shared(path: Path) -> list[tuple[str, int, dict[str, int], float]]:
    kb = SQLiteKB(path)
    opsin = Opsin(path.parent / "opsin-cache.sqlite")
    resolver = NameResolver(kb, opsin)
    out = []
    try:
        for file in reaction_files():
            dataset = "uspto_revisit" if file.suffix == ".csv" else None
            summary = import_file(kb, file, resolver=resolver, dataset=dataset)
            out.append(
                (file.name, summary.reactions_added, dict(summary.roles_reassigned), summary.rate)
            )
            print(
                f"  {file.name}: {summary.reactions_added} reactions, re-filed "
                f"{dict(summary.roles_reassigned)}",
                file=sys.stderr,
            )
    finally:
        kb.close()
        opsin.close()
    return out


def load_verdicts() -> dict[tuple[str, int], tuple[str, str]]:
    if not SPOTCHECK.is_file():
        return {}
    verdicts = {}
    with open(SPOTCHECK, encoding="utf-8", newline="") as handle:
        rows = (line for line in handle if line.strip() and not line.startswith("#"))
        for row in csv.reader(rows, delimiter="\t"):
            reaction_id, position, verdict, note = [*row, "", "", ""][:4]
            verdicts[(reaction_id, int(position))] = (verdict, note)
    return verdicts


def measure(path: Path, seconds: float) -> str:
    kb = SQLiteKB(path, readonly=True)
    try:
        reactions = [r for r in kb.iter_reactions() if r.dataset != "starter"]
    finally:
        kb.close()
    given = 0  # reactant links as the sources gave them
    by_rule: Counter = Counter()
    by_rule_role: Counter = Counter()
    by_dataset: dict[str, Counter] = {}
    compounds: Counter = Counter()
    changed_reactions = 0
    refiled = []
    for reaction in reactions:
        changes = role_changes_of(reaction.provenance)
        group = "uspto_revisit" if reaction.dataset == "uspto_revisit" else "ORD USPTO grants"
        counts = by_dataset.setdefault(group, Counter())
        counts["reactions"] += 1
        reactants = len(reaction.reactants) + len(changes)
        given += reactants
        counts["given"] += reactants
        changed_reactions += bool(changes)
        for position, change in changes.items():
            by_rule[change["rule"]] += 1
            by_rule_role[(change["rule"], change["to"])] += 1
            counts[change["rule"]] += 1
            compounds[(change["name"] or "", change["smiles"] or "")] += 1
            refiled.append((reaction, position, change))
    total = sum(by_rule.values())
    remaining = sum(len(r.reactants) for r in reactions)
    left: Counter = Counter()  # curated reagents that are still reactants
    for reaction in reactions:
        for p in reaction.reactants:
            if is_listed_reagent(p.inchikey, p.smiles, solvents=False):
                left[p.smiles] += 1
    lines = [
        "## Reaction roles from atom maps (issue 13)",
        "",
        machine_line(),
        "",
        "Patent reaction data files every compound put into the flask as a reactant. On import,",
        "a reactant none of whose mapped atoms reaches a product is re-filed (`atom-map`); where",
        "there is no usable map, or the map cannot be tied to the participant or is in doubt, a",
        "compound on the curated list (`src/chemground/kb/data/reagents.tsv`, plus the common",
        "solvents) is re-filed when no product needs its atoms (`reagent-list`). The new role is",
        "the one the reaction-SMILES importer gives agents: solvent, catalyst (transition metal)",
        "or reagent. Counts are read back from the KB after importing the shared patent files",
        "(`provenance.role_changes` of each reaction).",
        "",
        markdown_table(
            ["source", "reactions", "reactant links given", "atom-map", "reagent-list"],
            [
                (name, c["reactions"], c["given"], c[RULES[0]], c[RULES[1]])
                for name, c in sorted(by_dataset.items())
            ],
        ),
        "",
        f"All together: {given:,} reactant links given, {total:,} re-filed "
        f"({total / max(given, 1):.1%}) in {changed_reactions:,} of {len(reactions):,} "
        f"reactions; {remaining:,} reactant links remain. Import of the {len(reactions):,} "
        f"reactions: {seconds:.0f} s here (other jobs shared the 2 cores).",
        "",
        markdown_table(
            ["rule", "to reagent", "to solvent", "to catalyst", "total"],
            [
                (
                    rule,
                    by_rule_role[(rule, Role.REAGENT.value)],
                    by_rule_role[(rule, Role.SOLVENT.value)],
                    by_rule_role[(rule, Role.CATALYST.value)],
                    by_rule[rule],
                )
                for rule in RULES
            ],
        ),
        "",
        "Most often re-filed (name as the source wrote it, SMILES):",
        "",
        markdown_table(
            ["compound", "SMILES", "re-filings"],
            [(name, f"`{smiles}`", n) for (name, smiles), n in compounds.most_common(15)],
        ),
        "",
        f"Curated reagents still filed as reactants: {sum(left.values()):,} links; most often:",
        ", ".join(f"`{smiles}` {n}" for smiles, n in left.most_common(8)) + ". They stay where",
        "the map places their atoms in a product (HCl in a hydrochloride salt or an alkyl",
        "chloride, water in a hydrolysis product) or, without a usable map, where a product",
        "needs their elements.",
        "",
    ]
    lines += spot_check(refiled)
    return "\n".join(lines)


def spot_check(refiled: list) -> list[str]:
    verdicts = load_verdicts()
    unlisted = [
        item
        for item in refiled
        if not is_listed_reagent(
            item[0].participants[item[1]].inchikey, item[0].participants[item[1]].smiles
        )
    ]
    lines = []
    for title, pool, size, seed in (
        ("drawn at random from all re-filings", refiled, SAMPLE, SEED),
        (
            "drawn from the re-filings of compounds on neither the reagent list nor the solvent "
            f"list ({len(unlisted):,} of {len(refiled):,}), where the map alone decided",
            unlisted,
            SAMPLE_UNLISTED,
            SEED_UNLISTED,
        ),
    ):
        sample = random.Random(seed).sample(pool, min(size, len(pool)))
        rows = []
        tally: Counter = Counter()
        for reaction, position, change in sample:
            verdict, note = verdicts.get((reaction.id, position), ("not judged", ""))
            tally[verdict] += 1
            rows.append(
                (
                    reaction.id,
                    change["name"] or change["smiles"],
                    f"{change['from']} → {change['to']}",
                    change["rule"],
                    verdict,
                    note,
                )
            )
        summary = ", ".join(f"{n} {v}" for v, n in tally.most_common())
        lines += [
            f"Spot check: {len(sample)} re-filings {title} (seed {seed}), each read against the "
            f"patent paragraph and the mapped reaction SMILES: {summary}.",
            "",
            markdown_table(["reaction", "compound", "role", "rule", "verdict", "note"], rows),
            "",
        ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/cg-roles"))
    parser.add_argument("--base", type=Path, help="copy this KB instead of building one")
    parser.add_argument(
        "--reuse", action="store_true", help="measure the KB already in --workdir (no import)"
    )
    args = parser.parse_args()
    path = args.workdir / "kb.sqlite"
    if not args.reuse:
        if not reaction_files():
            sys.exit("shared data not found; the benchmark needs ../shared/data/reactions")
        path = prepare_kb(args.workdir, args.base)
        started = time.perf_counter()
        import_shared(path)
        seconds = time.perf_counter() - started
        (args.workdir / "import_seconds").write_text(f"{seconds:.1f}")
    else:
        seconds = float((args.workdir / "import_seconds").read_text())
    text = measure(path, seconds)
    print(text)
    write_section("reaction_roles", text)


if __name__ == "__main__":
    main()
