"""Generating the table-RAG benchmark from KB records (seeded, reproducible).

Each item is instantiated from one of our templates for its task type and keeps the id of
the KB record it came from, a standardised short answer, and the entities it mentions. The
same item exists in two input formats: compounds written as names (IUPAC where the KB has
one) or as SMILES (random, non-canonical SMILES of the structure, so identity matching is
tested). Options: ``perturb`` (typos and name variants in a fraction of the entities),
``paraphrase`` (an LLM rewrites the question, keeping every entity verbatim) and
``write_ooc_kb`` (a KB copy without the source records, for out-of-corpus runs).
"""

from __future__ import annotations

import json
import random
import re
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rdkit import Chem

from chemground.agent.jsonsafe import fields_json
from chemground.bench.templates import EXTRA_TASKS, TABLE_RAG_TASKS, TASK_ASPECT, TEMPLATES
from chemground.chem.structure import mol_from_smiles, rdkit_messages
from chemground.kb.importers.base import is_generic_name
from chemground.kb.records import Compound, Reaction
from chemground.kb.sqlite_store import SQLiteKB
from chemground.kb.store import KnowledgeBase

FORMATS = ("iupac", "smiles")
MAX_NAME_LENGTH = 120


@dataclass
class BenchItem:
    id: str
    task: str
    aspect: str
    input_format: str
    question: str
    answer: dict[str, Any]
    source: dict[str, Any]
    entities: list[dict[str, Any]] = field(default_factory=list)
    template: int = 0
    perturbed: bool = False
    paraphrased: bool = False


def random_smiles(smiles: str, rng: random.Random) -> str:
    """A valid, usually non-canonical SMILES of the same structure (reproducible via ``rng``)."""
    mol = mol_from_smiles(smiles)
    with rdkit_messages():
        variants = Chem.MolToRandomSmilesVect(mol, 3, randomSeed=rng.randrange(1, 2**31 - 1))
    return rng.choice(list(variants)) if variants else smiles


# Registry and vendor codes ("NSC-12345", "agn-pc-00yifv", "CHEMBL25") are identifiers, not names
# a chemist would write in a question; no name-to-structure method can be expected to read them.
_CATALOGUE_CODE = re.compile(r"^[A-Za-z]{2,}[- ]?(?:[A-Za-z]{1,4}[- ])?\d{2,}[A-Za-z0-9]*$")


def _good_name(name: str | None) -> bool:
    return (
        bool(name)
        and len(name) <= MAX_NAME_LENGTH
        and not is_generic_name(name)
        and not _CATALOGUE_CODE.match(name)
        and not re.search(r"[\n\t]|\b(compound|example|intermediate|step)\b", name, re.IGNORECASE)
    )  # type: ignore[arg-type]


class _Renderer:
    """Writes a compound as a name or as SMILES."""

    def __init__(self, kb: KnowledgeBase, rng: random.Random) -> None:
        self.kb = kb
        self.rng = rng
        self._compounds: dict[int, Compound] = {}

    def compound(self, compound_id: int | None) -> Compound | None:
        if compound_id is None:
            return None
        if compound_id not in self._compounds:
            self._compounds[compound_id] = self.kb.get_compound(compound_id, with_reactions=0)
        return self._compounds[compound_id]

    def name_of(self, compound: Compound | None, fallback: str | None = None) -> str | None:
        if compound is not None and _good_name(compound.iupac_name):
            return compound.iupac_name
        if _good_name(fallback):
            return fallback
        if compound is not None:
            for name in (compound.common_name, *compound.synonyms[:3]):
                if _good_name(name):
                    return name
        return None

    def render(self, compound_id: int | None, fmt: str, fallback: str | None = None) -> str | None:
        compound = self.compound(compound_id)
        if fmt == "smiles":
            if compound is None or not compound.smiles or "*" in compound.smiles:
                return None
            return random_smiles(compound.smiles, self.rng)
        return self.name_of(compound, fallback)


def _fill(template: str, slots: dict[str, str]) -> str | None:
    needed = set(re.findall(r"{(\w+)}", template))
    if not needed <= set(slots):
        return None
    return template.format(**{k: slots[k] for k in needed})


def _reaction_slots(
    reaction: Reaction, fmt: str, renderer: _Renderer
) -> tuple[dict[str, str], list[dict]] | None:
    reactants = [p for p in reaction.reactants if p.compound_id is not None]
    products = [p for p in reaction.products if p.compound_id is not None]
    if not reactants or not products:
        return None
    if (
        len(reactants) == 1
    ):  # "what forms from nitrobenzene?" is ambiguous; name what it reacts with
        reactants += [
            p for p in (*reaction.reagents, *reaction.catalysts) if p.compound_id is not None
        ][:1]
    slots: dict[str, str] = {}
    entities = []
    rendered = []
    for p in reactants[:3]:
        text = renderer.render(p.compound_id, fmt, p.name)
        if text is None:
            return None
        rendered.append(text)
        entities.append(
            {"text": text, "smiles": p.smiles, "role": p.role.value, "compound_id": p.compound_id}
        )
    slots["a"] = rendered[0]
    if len(rendered) >= 2:
        slots["b"] = rendered[1]
    slots["x"] = (
        ", ".join(rendered[:-1]) + " and " + rendered[-1] if len(rendered) > 1 else rendered[0]
    )
    product_text = renderer.render(products[0].compound_id, fmt, products[0].name)
    if product_text is not None:
        slots["p"] = product_text
        entities.append(
            {
                "text": product_text,
                "smiles": products[0].smiles,
                "role": "product",
                "compound_id": products[0].compound_id,
            }
        )
    return slots, entities


def _participants_answer(participants) -> dict[str, Any]:
    return {
        "names": [p.name for p in participants],
        "smiles": [p.smiles for p in participants if p.smiles],
    }


def _reaction_answer(task: str, reaction: Reaction) -> dict[str, Any] | None:
    c = reaction.conditions
    if task == "product":
        return {
            **_participants_answer(reaction.products[:1]),
            "all_smiles": [p.smiles for p in reaction.products],
        }
    if task == "reactant":
        return _participants_answer(reaction.reactants)
    if task == "temperature":
        return {"value": c.temperature_c, "unit": "°C"} if c.temperature_c is not None else None
    if task == "solvent":
        return _participants_answer(reaction.solvents) if reaction.solvents else None
    if task == "catalyst":
        return _participants_answer(reaction.catalysts) if reaction.catalysts else None
    if task == "yield":
        return (
            {"value": reaction.yield_percent, "unit": "%"}
            if reaction.yield_percent is not None
            else None
        )
    if task == "time":
        return {"value": c.time_h, "unit": "h"} if c.time_h is not None else None
    return None


def _compound_answer(task: str, compound: Compound, fmt: str) -> dict[str, Any] | None:
    if task == "weight":
        return (
            {"value": round(compound.molecular_weight, 2), "unit": "g/mol"}
            if compound.molecular_weight
            else None
        )
    if task == "formula":
        return {"text": compound.formula} if compound.formula else None
    if task == "name_conversion":
        if fmt == "iupac":
            return {"smiles": [compound.smiles], "target": "SMILES"} if compound.smiles else None
        return (
            {"text": compound.iupac_name, "target": "IUPAC name"}
            if _good_name(compound.iupac_name)
            else None
        )
    if task == "description":
        return {"text": compound.description} if compound.description else None
    if task == "synonyms":
        names = [n for n in compound.all_names() if _good_name(n)]
        return {"names": names[:20]} if len(names) >= 2 else None
    return None


REACTION_TASKS = {"product", "reactant", "temperature", "solvent", "catalyst", "yield", "time"}


def _candidate_reactions(
    kb: KnowledgeBase, task: str, rng: random.Random, limit: int
) -> list[Reaction]:
    require = task if task in ("temperature", "yield", "time", "solvent", "catalyst") else "any"
    ids = kb.candidate_reaction_ids(require)
    rng.shuffle(ids)
    return list(kb.get_reactions(ids[:limit]).values())


def _candidate_compounds(
    kb: KnowledgeBase, task: str, rng: random.Random, limit: int
) -> list[Compound]:
    require = task if task in ("description", "name_conversion") else "structure"
    ids = kb.candidate_compound_ids(require)
    rng.shuffle(ids)
    return list(kb.get_compounds(ids[:limit]).values())


def generate(
    kb: KnowledgeBase,
    *,
    per_task: int = 50,
    seed: int = 0,
    tasks: Iterable[str] = TABLE_RAG_TASKS,
    formats: Iterable[str] = FORMATS,
    perturb: float = 0.0,
    paraphrase: Callable[[str, list[str]], str | None] | None = None,
) -> list[BenchItem]:
    """``per_task`` items per task and input format, from a seeded sample of KB records."""
    rng = random.Random(seed)
    renderer = _Renderer(kb, rng)
    items: list[BenchItem] = []
    for task in tasks:
        templates = TEMPLATES[task]
        for fmt in formats:
            made = 0
            pool_rng = random.Random(f"{seed}-{task}")  # same records for both formats
            if task in REACTION_TASKS:
                pool = _candidate_reactions(kb, task, pool_rng, per_task * 20)
            else:
                pool = _candidate_compounds(kb, task, pool_rng, per_task * 20)
            for record in pool:
                if made >= per_task:
                    break
                if isinstance(record, Reaction):
                    answer = _reaction_answer(task, record)
                    built = _reaction_slots(record, fmt, renderer) if answer else None
                    if not built:
                        continue
                    slots, entities = built
                    source = {"kind": "reaction", "id": record.id}
                else:
                    answer = _compound_answer(task, record, fmt)
                    text = renderer.render(record.id, fmt) if answer else None
                    if not text:
                        continue
                    slots = {"c": text, "target": "SMILES" if fmt == "iupac" else "IUPAC name"}
                    entities = [
                        {
                            "text": text,
                            "smiles": record.smiles,
                            "role": None,
                            "compound_id": record.id,
                        }
                    ]
                    source = {"kind": "compound", "id": str(record.id)}
                usable = [(i, t) for i, t in enumerate(templates) if _fill(t, slots)]
                if not usable:
                    continue
                index, template = rng.choice(usable)
                question = _fill(template, slots) or ""
                item = BenchItem(
                    id=f"{task}-{fmt}-{made:04d}",
                    task=task,
                    aspect=_aspect(task, fmt),
                    input_format=fmt,
                    question=question,
                    answer=answer,
                    source=source,
                    entities=[e for e in entities if e["text"] in question],
                    template=index,
                )
                if perturb and fmt == "iupac" and rng.random() < perturb:
                    _perturb(item, rng)
                if paraphrase is not None:
                    rewritten = paraphrase(item.question, [e["text"] for e in item.entities])
                    if rewritten and all(e["text"] in rewritten for e in item.entities):
                        item.question, item.paraphrased = rewritten, True
                items.append(item)
                made += 1
    return items


def _aspect(task: str, fmt: str) -> str:
    if task == "name_conversion":
        return "name_to_smiles" if fmt == "iupac" else "smiles_to_iupac"
    return TASK_ASPECT[task]


def perturb_name(name: str, rng: random.Random) -> str:
    """One realistic corruption: a letter dropped, doubled, swapped or replaced, or a spacing
    variant."""
    letters = [i for i, ch in enumerate(name) if ch.isalpha()]
    if len(letters) < 6:
        return name.upper() if name.islower() else name.lower()
    kind = rng.choice(["drop", "double", "swap", "replace", "case", "hyphen"])
    i = rng.choice(letters[1:-1])
    if kind == "drop":
        return name[:i] + name[i + 1 :]
    if kind == "double":
        return name[:i] + name[i] + name[i:]
    if kind == "swap" and name[i + 1 : i + 2].isalpha():
        return name[:i] + name[i + 1] + name[i] + name[i + 2 :]
    if kind == "replace":
        return name[:i] + rng.choice("aeiourstnl".replace(name[i].lower(), "")) + name[i + 1 :]
    if kind == "case":
        return name.upper()
    return name.replace("-", " ", 1) if "-" in name else name[:i] + name[i:]


def _perturb(item: BenchItem, rng: random.Random) -> None:
    for entity in item.entities:
        new = perturb_name(entity["text"], rng)
        if new != entity["text"] and entity["text"] in item.question:
            item.question = item.question.replace(entity["text"], new)
            entity["original"] = entity["text"]
            entity["text"] = new
            item.perturbed = True


def write_items(items: list[BenchItem], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for item in items:
            handle.write(json.dumps(fields_json(item), ensure_ascii=False) + "\n")


def read_items(path: Path) -> list[BenchItem]:
    """The benchmark items of a JSONL file written by ``write_items``.

    Raises:
        ImportFileError: the file is missing, or a line is not JSON or not a benchmark item.
    """
    from chemground.errors import ImportFileError
    from chemground.jsonl import read_jsonl

    items = []
    for number, data in read_jsonl(path, error=ImportFileError):
        try:
            items.append(BenchItem(**data))
        except TypeError as error:
            raise ImportFileError(f"{path}:{number}: not a benchmark item: {error}") from error
    return items


def write_ooc_kb(kb_path: Path, items: list[BenchItem], target: Path) -> dict[str, int]:
    """Copy the KB without the records the items were generated from (out-of-corpus runs)."""
    if target.exists():
        target.unlink()
    shutil.copy(kb_path, target)
    ooc = SQLiteKB(target)
    reactions = sorted({i.source["id"] for i in items if i.source["kind"] == "reaction"})
    compounds = sorted({int(i.source["id"]) for i in items if i.source["kind"] == "compound"})
    with ooc.transaction():
        ooc.remove_records(reactions, compounds)
        ooc.set_meta(
            "out_of_corpus",
            json.dumps({"reactions_removed": len(reactions), "compounds_removed": len(compounds)}),
        )
    ooc.close()
    return {"reactions_removed": len(reactions), "compounds_removed": len(compounds)}


ALL_TASKS = TABLE_RAG_TASKS + EXTRA_TASKS
