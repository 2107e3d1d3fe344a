"""Build the user-question benchmark files from the hand-written sources (run once).

    python benchmarks/user_questions/make_gold.py

Inputs, all written by hand:
  structures.txt            key = SMILES, the gold structures
  questions_compound.txt    kind | style | aspect | gold | question
  questions_reaction.txt
  questions_other.txt

This script only *fills* gold fields; it writes no question. Numbers, formulas and InChIKeys are
computed with RDKit from the hand-written gold SMILES; reaction golds are read from the curated
starter records named in the source (``rxn:ID``), never from an answer of the system. Outputs:
questions.jsonl (all), dev.jsonl and test.jsonl (a 70/30 split stratified by kind, seed 13).
"""

from __future__ import annotations

import itertools
import json
import random
import sys
from collections import defaultdict, deque
from pathlib import Path

from rdkit import Chem, RDLogger
from rdkit.Chem import QED, Crippen, Descriptors, Lipinski, rdMolDescriptors

RDLogger.DisableLog("rdApp.*")

HERE = Path(__file__).resolve().parent
SOURCES = (
    "questions_compound.txt",
    "questions_reaction.txt",
    "questions_other.txt",
    "questions_round2.txt",  # written later, read last: earlier ids never move
    "questions_round3.txt",  # the third session's fresh questions, after round 2
    "questions_round4.txt",  # the fourth session's fresh questions, after round 3
    "questions_round5.txt",  # a second author's fresh questions, written blind, after round 4
    "questions_round6.txt",  # a third author's fresh questions, written blind, after round 5
    "questions_round7.txt",  # a fourth author's fresh questions, written blind, after round 6
    "questions_round8.txt",  # a fifth author's fresh questions, written blind, after round 7
    "questions_round9.txt",  # a sixth author's fresh questions, written blind, after round 8
    "questions_round10.txt",  # a seventh author's fresh questions, written blind, after round 9
    "questions_round11.txt",  # an eighth author's fresh questions, written blind, after round 10
    "questions_round12.txt",  # a ninth author's fresh questions, written blind, after round 11
    "questions_round13.txt",  # a tenth author's fresh questions, written blind, after round 12
    "questions_round14.txt",  # an eleventh author's fresh questions, written blind, after round 13
    "questions_round15.txt",  # a twelfth author's fresh questions, written blind, after round 14
    "questions_round16.txt",  # a thirteenth author's fresh questions, written blind, after round 15
    "questions_round17.txt",  # a fourteenth author's fresh questions, written blind, after round 16
    "questions_round18.txt",  # a fifteenth author's fresh questions, written blind, after round 17
    "questions_round19.txt",  # a sixteenth author's fresh questions, written blind, after round 18
    "questions_round20.txt",  # a seventeenth author's questions, written blind, after round 19
    "questions_round21.txt",  # an eighteenth author's questions, written blind, after round 20
    "questions_round22.txt",  # a nineteenth author's questions, written blind, after round 21
    "questions_round23.txt",  # a twentieth author's questions, written blind, after round 22
    "questions_round24.txt",  # a twenty-first author's questions, written blind, after round 23
    "questions_round25.txt",  # a twenty-second author's questions, written blind, after round 24
    "questions_round26.txt",  # a twenty-third author's questions, written blind, after round 25
    "questions_round27.txt",  # a twenty-fourth author's questions, written blind, after round 26
    "questions_round28.txt",  # a twenty-fifth author's questions, written blind, after round 27
    "questions_round29.txt",  # a twenty-sixth author's questions, written blind, after round 28
    "questions_round30.txt",  # a twenty-seventh author's questions, written blind, after round 29
    "questions_round31.txt",  # a twenty-eighth author's questions, written blind, after round 30
)
SEED = 13
DEV_FRACTION = 0.7

KINDS = {"compound_fact", "reaction", "property", "route", "out_of_scope", "trick"}
STYLES = {"plain", "terse", "chatty", "notebook", "exam", "typo", "smiles", "identifier"}
COMPOUND_ASPECTS = {
    "mw",
    "exact_mass",
    "formula",
    "smiles",
    "iupac",
    "synonyms",
    "inchikey",
    "cas",
    "description",
}
PROPERTY_ASPECTS = {
    "logp",
    "tpsa",
    "qed",
    "hbd",
    "hba",
    "rotb",
    "rings",
    "arom_rings",
    "stereo",
    "heavy_atoms",
    "lipinski_violations",
    "lipinski_pass",
}
ROLE_ASPECTS = {"solvent": "solvents", "catalyst": "catalysts", "reagent": "reagents"}
REACTION_ASPECTS = {
    "product",
    "reactants",
    "solvent",
    "catalyst",
    "reagent",
    "temperature",
    "time",
    "yield",
    "conditions",
    "reactions",
}
TOLERANCE = {"mw": 0.05, "exact_mass": 0.002, "logp": 0.01, "tpsa": 0.05, "qed": 0.005}
UNITS = {
    "mw": "g/mol",
    "exact_mass": "Da",
    "tpsa": "Å²",
    "temperature": "°C",
    "time": "h",
    "yield": "%",
}


def mol(smiles: str) -> Chem.Mol:
    m = Chem.MolFromSmiles(smiles)
    if m is None:
        raise ValueError(f"gold SMILES does not parse: {smiles}")
    return m


def has_stereo(smiles: str) -> bool:
    return any(c in smiles for c in "@/\\")


def inchikey(smiles: str) -> str:
    return Chem.MolToInchiKey(mol(smiles))


def lipinski_violations(m: Chem.Mol) -> int:
    """Rule of five as the bundled cactus/CalculateDruglikeness tool counts it."""
    return sum(
        [
            Lipinski.NumHDonors(m) > 5,
            Lipinski.NumHAcceptors(m) > 10,
            Descriptors.ExactMolWt(m) > 500,
            Crippen.MolLogP(m) > 5,
        ]
    )


def tautomers(m: Chem.Mol) -> list[Chem.Mol]:
    """The molecule as written and its canonical tautomer: donor and acceptor counts depend on
    the tautomer drawn (metformin written CN(C)C(=N)NC(=N)N has 4 NH donors, its canonical
    tautomer and PubChem's record 3), and either drawing is a fair reading of the name."""
    from rdkit.Chem.MolStandardize import rdMolStandardize

    return [m, rdMolStandardize.TautomerEnumerator().Canonicalize(m)]


def property_gold(aspect: str, smiles: str) -> dict:
    """The RDKit value of a compound or property aspect (also used by the data test)."""
    m = mol(smiles)
    if aspect == "mw":
        return {
            "type": "number",
            "value": round(Descriptors.MolWt(m), 4),
            "tol": TOLERANCE["mw"],
            "unit": "g/mol",
            "computed": "Descriptors.MolWt",
        }
    if aspect == "exact_mass":
        return {
            "type": "number",
            "value": round(Descriptors.ExactMolWt(m), 5),
            "tol": TOLERANCE["exact_mass"],
            "unit": "Da",
            "computed": "Descriptors.ExactMolWt",
        }
    if aspect == "formula":
        return {
            "type": "formula",
            "value": rdMolDescriptors.CalcMolFormula(m),
            "computed": "CalcMolFormula",
        }
    if aspect == "inchikey":
        return {"type": "inchikey", "value": Chem.MolToInchiKey(m), "computed": "MolToInchiKey"}
    if aspect == "logp":
        return {
            "type": "number",
            "value": round(Crippen.MolLogP(m), 4),
            "tol": TOLERANCE["logp"],
            "computed": "Crippen.MolLogP",
        }
    if aspect == "tpsa":
        return {
            "type": "number",
            "value": round(rdMolDescriptors.CalcTPSA(m), 4),
            "tol": TOLERANCE["tpsa"],
            "unit": "Å²",
            "computed": "CalcTPSA",
        }
    if aspect == "qed":
        return {
            "type": "number",
            "value": round(QED.qed(m), 4),
            "tol": TOLERANCE["qed"],
            "computed": "QED.qed",
        }
    if aspect == "hbd":
        values = sorted(
            {
                f(t)
                for t in tautomers(m)
                for f in (rdMolDescriptors.CalcNumHBD, rdMolDescriptors.CalcNumLipinskiHBD)
            }
        )
        return {
            "type": "number",
            "value": values[0],
            "any_of": values,
            "tol": 0,
            "computed": "CalcNumHBD or CalcNumLipinskiHBD, of the SMILES or its canonical tautomer",
        }
    if aspect == "hba":
        values = sorted(
            {
                f(t)
                for t in tautomers(m)
                for f in (rdMolDescriptors.CalcNumHBA, rdMolDescriptors.CalcNumLipinskiHBA)
            }
        )
        return {
            "type": "number",
            "value": values[0],
            "any_of": values,
            "tol": 0,
            "computed": "CalcNumHBA or CalcNumLipinskiHBA, of the SMILES or its canonical tautomer",
        }
    if aspect == "rotb":
        values = sorted(
            {
                rdMolDescriptors.CalcNumRotatableBonds(m, True),
                rdMolDescriptors.CalcNumRotatableBonds(m, False),
            }
        )
        return {
            "type": "number",
            "value": values[0],
            "any_of": values,
            "tol": 0,
            "computed": "CalcNumRotatableBonds (strict or not)",
        }
    if aspect == "rings":
        return {
            "type": "number",
            "value": rdMolDescriptors.CalcNumRings(m),
            "tol": 0,
            "computed": "CalcNumRings",
        }
    if aspect == "arom_rings":
        return {
            "type": "number",
            "value": rdMolDescriptors.CalcNumAromaticRings(m),
            "tol": 0,
            "computed": "CalcNumAromaticRings",
        }
    if aspect == "stereo":
        centres = Chem.FindMolChiralCenters(
            m, includeUnassigned=True, useLegacyImplementation=False
        )
        return {
            "type": "number",
            "value": len(centres),
            "tol": 0,
            "computed": "FindMolChiralCenters(includeUnassigned)",
        }
    if aspect == "heavy_atoms":
        return {
            "type": "number",
            "value": m.GetNumHeavyAtoms(),
            "tol": 0,
            "computed": "GetNumHeavyAtoms",
        }
    if aspect == "lipinski_violations":
        return {
            "type": "number",
            "value": lipinski_violations(m),
            "tol": 0,
            "computed": "rule of five (cactus tool)",
        }
    if aspect == "lipinski_pass":
        return {
            "type": "bool",
            "value": lipinski_violations(m) == 0,
            "computed": "rule of five, no violation",
        }
    raise ValueError(f"no computed gold for aspect {aspect!r}")


# --------------------------------------------------------------------------- sources


def read_structures() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (HERE / "structures.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, smiles = (x.strip() for x in line.split("=", 1))
        mol(smiles)
        if key in out:
            raise ValueError(f"duplicate structure key {key}")
        out[key] = smiles
    return out


def read_sources() -> list[dict]:
    rows = []
    for name in SOURCES:
        for number, line in enumerate((HERE / name).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ", 4)]
            if len(parts) != 5:
                raise ValueError(f"{name}:{number}: expected 5 fields: {line}")
            kind, style, aspect, gold, question = parts
            if kind not in KINDS or style not in STYLES:
                raise ValueError(f"{name}:{number}: unknown kind or style: {line}")
            rows.append(
                {
                    "kind": kind,
                    "style": style,
                    "aspect": aspect,
                    "gold_spec": gold,
                    "question": question,
                    "where": f"{name}:{number}",
                }
            )
    return rows


# --------------------------------------------------------------------------- starter reactions


def load_starter():
    sys.path.insert(0, str(HERE.parents[1] / "src"))
    from chemground.kb.starter import load_starter_set

    classes, reactions = load_starter_set()
    return classes, {r.id: r for r in reactions}


def participants(reaction, role: str) -> list:
    return list(getattr(reaction, role))


def role_items(reaction, aspect: str) -> tuple[list, str]:
    """The participants that answer a role question, with chemists' role tolerance."""
    key = ROLE_ASPECTS[aspect]
    items = participants(reaction, key)
    note = ""
    if aspect == "reagent" and not items:
        items, note = (
            participants(reaction, "catalysts"),
            "record has no reagent; its catalyst answers",
        )
    if aspect == "catalyst" and not items:
        items, note = (
            participants(reaction, "reagents"),
            "record files the acid as a reagent; it answers a catalyst question",
        )
    return items, note


def compound_list(items) -> list[dict]:
    return [{"name": c.name, "smiles": c.smiles, "inchikey": inchikey(c.smiles)} for c in items]


def reaction_gold(aspect: str, spec: str, reactions: dict, classes: dict) -> tuple[dict, str]:
    if spec.startswith("rxn:"):
        ident, _, only = spec[4:].partition("~")
        r = reactions[ident]
        source = f"starter:{ident}"
        if aspect == "product":
            main = r.main_product
            return {
                "type": "smiles",
                "mode": "contains",
                "smiles": main.smiles,
                "inchikey": inchikey(main.smiles),
                "name": main.name,
            }, source
        if aspect == "reactants":
            sets = [compound_list(r.reactants)]
            for (
                other
            ) in reactions.values():  # other curated reactions that make the same main product
                if other.id != r.id and inchikey(other.main_product.smiles) == inchikey(
                    r.main_product.smiles
                ):
                    sets.append(compound_list(other.reactants))
            return {"type": "smiles_set", "mode": "exact", "sets": sets}, source
        if aspect in ROLE_ASPECTS:
            items, note = role_items(r, aspect)
            if not items:
                raise ValueError(f"{ident} has no {aspect}; write gold 'refuse' instead")
            mode = "exact"
            if only:
                wanted = {n.strip().lower() for n in only.split("/")}
                items = [c for c in items if c.name.lower() in wanted]
                mode = "contains"
                if not items:
                    raise ValueError(f"{ident}: none of {only} among its {aspect}s")
            gold = {"type": "smiles_set", "mode": mode, "sets": [compound_list(items)]}
            if note:
                gold["note"] = note
            return gold, source
        if aspect == "temperature":
            return {"type": "number", "value": r.temperature_c, "tol": 0.5, "unit": "°C"}, source
        if aspect == "time":
            return {"type": "number", "value": r.time_h, "tol": 0.01, "unit": "h"}, source
        if aspect == "yield":
            return {"type": "number", "value": r.yield_percent, "tol": 0.5, "unit": "%"}, source
        if aspect == "conditions":
            return {
                "type": "conditions",
                "temperature_c": r.temperature_c,
                "solvents": compound_list(r.solvents),
            }, source
        raise ValueError(f"aspect {aspect} cannot take a rxn: gold")
    if spec.startswith(("cls:", "rxns:")):
        if spec.startswith("cls:"):
            if spec[4:] not in classes:
                raise ValueError(f"unknown class {spec}")
            members = [r for r in reactions.values() if r.reaction_class == spec[4:]]
        else:
            members = [reactions[i] for i in spec[5:].split(",")]
        source = "starter-class:" + (
            spec[4:] if spec.startswith("cls:") else ",".join(r.id for r in members)
        )
        if aspect in ROLE_ASPECTS:
            allowed: dict[str, dict] = {}
            for r in members:
                for c in compound_list(role_items(r, aspect)[0]):
                    allowed.setdefault(c["inchikey"], c)
            return {"type": "smiles_set", "mode": "any", "sets": [list(allowed.values())]}, source
        if aspect == "temperature":
            values = sorted({r.temperature_c for r in members})
            return {
                "type": "number",
                "value": values[0],
                "any_of": values,
                "tol": 0.5,
                "unit": "°C",
            }, source
        raise ValueError(f"aspect {aspect} cannot take a class gold")
    if spec.startswith("inv:"):
        _, key, role = spec.split(":")
        return {
            "type": "reaction_ids",
            "compound": key,
            "role": role,
        }, f"starter:reactions with {key} ({role})"
    raise ValueError(f"unknown reaction gold {spec!r}")


def involving(key_smiles: str, role: str, reactions: dict) -> list[str]:
    target = inchikey(key_smiles)
    roles = {
        "any": ("reactants", "products", "reagents", "catalysts", "solvents"),
        "reactant": ("reactants",),
        "solvent": ("solvents",),
        "product": ("products",),
    }[role]
    out = []
    for r in reactions.values():
        if any(inchikey(c.smiles) == target for k in roles for c in getattr(r, k)):
            out.append(f"starter:{r.id}")
    return out


def route_gold(spec: str, reactions: dict) -> tuple[dict, str]:
    chains = [c.split(">") for c in spec[6:].split("|")]
    for chain in chains:
        for a, b in itertools.pairwise(chain):
            made = inchikey(reactions[a].main_product.smiles)
            if made not in {inchikey(c.smiles) for c in reactions[b].reactants}:
                raise ValueError(f"route step {a} -> {b}: the product of {a} is no reactant of {b}")
    first = chains[0]
    target = inchikey(reactions[first[-1]].main_product.smiles)
    starts = {inchikey(c.smiles) for c in reactions[first[0]].reactants}
    # every equally short chain of curated reactions (main products only) from one of the first
    # step's reactants to the target; the hand-written chain must be among them
    by_reactant: dict[str, list] = defaultdict(list)
    for r in reactions.values():
        for c in r.reactants:
            by_reactant[inchikey(c.smiles)].append(r)
    best: list[list[str]] = []
    length = len(first)
    for start in starts:
        queue = deque([(start, [])])
        while queue:
            node, path = queue.popleft()
            if len(path) >= length:
                continue
            for r in by_reactant[node]:
                if r.id in path:
                    continue
                product = inchikey(r.main_product.smiles)
                new = [*path, r.id]
                if product == target and len(new) == length:
                    best.append(new)
                else:
                    queue.append((product, new))
    if first not in best:
        raise ValueError(f"route {spec}: not found among the shortest chains {best}")
    shorter = [b for b in best if len(b) < length]
    if shorter:
        raise ValueError(f"route {spec}: a shorter chain exists {shorter}")
    routes = []
    for chain in chains + best:
        ids = [f"starter:{i}" for i in chain]
        if ids not in routes:
            routes.append(ids)
    return {
        "type": "route",
        "routes": routes,
        "start_inchikeys": sorted(starts),
        "target_inchikey": target,
    }, "starter:" + ">".join(first)


# --------------------------------------------------------------------------- build


def build() -> list[dict]:
    structures = read_structures()
    classes, reactions = load_starter()
    items = []
    for n, row in enumerate(read_sources(), 1):
        kind, aspect, spec = row["kind"], row["aspect"], row["gold_spec"]
        if spec == "refuse":
            gold, source = {"type": "refuse"}, "hand: no record or tool answers this"
        elif spec.startswith("number:"):  # a literature value: "number:135~3 °C (CRC: 135-136 °C)"
            value, _, rest = spec[len("number:") :].partition("~")
            tol, _, note = rest.partition(" ")
            gold = {"type": "number", "value": float(value), "tol": float(tol)}
            source = f"hand: literature value {note.strip()}"
        elif spec.startswith("text:"):  # a checkable text: "text:4 Fe + 3 O2 -> 2 Fe2O3"
            gold = {"type": "text_any", "any": [x.strip() for x in spec[len("text:") :].split("/")]}
            source = "hand: worked by hand"
        elif aspect in COMPOUND_ASPECTS | PROPERTY_ASPECTS:
            key, _, extra = spec.partition("~")
            smiles = key[4:] if key.startswith("smi:") else structures[key]
            if aspect in ("mw", "exact_mass", "formula", "inchikey") or aspect in PROPERTY_ASPECTS:
                gold = property_gold(aspect, smiles)
            elif aspect == "smiles":
                # an answer that leaves stereo unspecified is right unless the question asks for it
                gold = {
                    "type": "smiles",
                    "mode": "first",
                    "require_stereo": "stereo" in row["question"].lower(),
                }
            elif aspect == "iupac":
                gold = {"type": "name_smiles"}
            elif aspect == "synonyms":
                gold = {"type": "names_any", "any": [x.strip() for x in extra.split("/")]}
            elif aspect in ("cas", "description"):
                gold = {"type": "text_any", "any": [x.strip() for x in extra.split("/")]}
            gold.update(
                {"smiles": smiles, "inchikey": inchikey(smiles), "stereo": has_stereo(smiles)}
            )
            source = f"rdkit from hand-written SMILES ({key})"
            if aspect == "cas":
                source = f"hand: well-known CAS number, checked against the KB record ({key})"
            elif aspect == "description":
                source = f"KB curated description of {key} (words chosen by hand)"
            elif aspect == "synonyms":
                source = f"hand: common names of {key}, checked against the KB record's synonyms"
        elif aspect in REACTION_ASPECTS:
            gold, source = reaction_gold(aspect, spec, reactions, classes)
            if gold["type"] == "reaction_ids":
                gold["allowed"] = involving(structures[gold["compound"]], gold["role"], reactions)
        elif aspect == "route":
            gold, source = route_gold(spec, reactions)
        else:
            raise ValueError(f"{row['where']}: no gold rule for aspect {aspect!r} with {spec!r}")
        items.append(
            {
                "id": f"uq-{n:04d}",
                "question": row["question"],
                "style": row["style"],
                "kind": kind,
                "aspect": aspect,
                "gold": gold,
                "source": source,
            }
        )
    return items


def split(items: list[dict]) -> tuple[list[dict], list[dict]]:
    """Dev and held-out test. A question keeps the split it was first given (read from the
    existing dev.jsonl/test.jsonl), so correcting a gold or a kind never moves a held-out
    question into dev; only new questions are drawn, stratified by kind (seed 13)."""
    previous: dict[str, str] = {}
    for name in ("dev", "test"):
        path = HERE / f"{name}.jsonl"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    previous[json.loads(line)["id"]] = name
    rng = random.Random(SEED)
    dev, test = [], []
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for item in items:
        if item["id"] in previous:
            (dev if previous[item["id"]] == "dev" else test).append(item)
        else:
            by_kind[item["kind"]].append(item)
    for kind in sorted(by_kind):
        group = list(by_kind[kind])
        rng.shuffle(group)
        cut = round(len(group) * DEV_FRACTION)
        dev += group[:cut]
        test += group[cut:]
    return sorted(dev, key=lambda x: x["id"]), sorted(test, key=lambda x: x["id"])


def write(path: Path, items: list[dict]) -> None:
    path.write_text(
        "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items), encoding="utf-8"
    )


def main() -> None:
    items = build()
    dev, test = split(items)
    write(HERE / "questions.jsonl", items)
    write(HERE / "dev.jsonl", dev)
    write(HERE / "test.jsonl", test)
    counts: dict[str, int] = defaultdict(int)
    for x in items:
        counts[x["kind"]] += 1
    print(
        f"{len(items)} questions ({len(dev)} dev, {len(test)} test): "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    )


if __name__ == "__main__":
    main()
