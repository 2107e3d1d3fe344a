"""Making tool-learning data for your own tools (``chemground bench tools-generate``).

Parameter values are drawn from real data, not invented by the model: compounds (SMILES,
names, formulas, PubChem CIDs, CAS numbers) from the knowledge base / dictionary, reactions
written with the formulas of KB reactions' participants, element symbols, and numbers in
the ranges the manifests declare. The LLM only chooses among offered values and writes
the questions. Every call is executed; its real result is the gold return.

- single-tool items: the model proposes a call with bank values, we run it, the model
  writes the user question for that call and its result;
- multi-tool items, in three steps: the model picks a few tools and a rough task; it builds
  the calling chain step by step, each call executed so later steps can use real returns;
  then it writes the question for the whole chain.
A proposal with an invented value, a failing call or a question that does not state its
inputs is dropped, and the reason is kept. Output: the benchmark JSONL format, split into
train/dev/test.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chemground.agent.core import describe_tools
from chemground.agent.dataset import write_jsonl
from chemground.agent.manifest import Param, ToolManifest
from chemground.agent.registry import ToolRegistry
from chemground.agent.runner import ToolRunner
from chemground.errors import ChemgroundError
from chemground.llm.base import LLM, LLMBadOutput, LLMError
from chemground.llm.prompts import render


class Dropped(Exception):
    """A candidate item that is not kept, with the reason."""


@dataclass
class CurationConfig:
    single: int = 20
    multiple: int = 10
    seed: int = 0
    split: tuple[float, float, float] = (0.8, 0.1, 0.1)
    tools: list[str] | None = None  # tool names or namespaces; default: no files, no network
    offered_values: int = 8  # candidate values shown per parameter
    chain_tools: tuple[int, int] = (2, 3)


@dataclass
class ParameterBank:
    """Real values by kind: smiles, name, formula, cid, cas, element, reaction."""

    values: dict[str, list[Any]] = field(default_factory=dict)

    def add(self, kind: str, value: Any) -> None:
        if value in (None, ""):
            return
        bucket = self.values.setdefault(kind, [])
        if value not in bucket:
            bucket.append(value)

    def sample(self, kind: str, n: int, rng: random.Random) -> list[Any]:
        bucket = self.values.get(kind, [])
        return rng.sample(bucket, min(n, len(bucket)))

    def to_json(self) -> dict[str, int]:
        return {kind: len(values) for kind, values in self.values.items()}


def build_bank(kb, rng: random.Random, compounds: int = 400, reactions: int = 100) -> ParameterBank:
    """Sample real compounds and reactions from the knowledge base."""
    from chemground.chem.formula import ELEMENT_SYMBOLS

    bank = ParameterBank()
    total = kb.max_compound_id()
    ids = rng.sample(range(1, total + 1), min(total, compounds * 3)) if total else []
    found = kb.get_compounds(ids)
    rows = [
        (c.smiles, c.common_name, c.iupac_name, c.formula, c.pubchem_cid, c.cas)
        for c in (found[i] for i in ids if i in found)
        if c.smiles and "." not in c.smiles  # single molecules only
    ]
    for smiles, common, iupac, formula, cid, cas in rows[:compounds]:
        bank.add("smiles", smiles)
        bank.add("name", common or iupac)
        if formula and re.fullmatch(r"[A-Za-z0-9]+", formula):
            bank.add("formula", formula)
        bank.add("cid", cid)
        bank.add("cas", cas)
    for element in ELEMENT_SYMBOLS[:86]:
        bank.add("element", element)
    count = 0
    for reaction in kb.iter_reactions():
        text = _reaction_formula(reaction)
        if text:
            bank.add("reaction", text)
            count += 1
        if count >= reactions:
            break
    return bank


def _reaction_formula(reaction) -> str | None:
    """'A + B --> C' with the molecular formulas of a KB reaction's reactants and products."""
    from chemground.chem.structure import structure_from_smiles

    sides: dict[str, list[str]] = {"reactant": [], "product": []}
    for participant in reaction.participants:
        role = (
            participant.role.value if hasattr(participant.role, "value") else str(participant.role)
        )
        if role not in sides or not participant.smiles or "." in participant.smiles:
            continue
        try:
            formula = structure_from_smiles(participant.smiles).formula
        except ChemgroundError:
            return None
        if not re.fullmatch(r"[A-Za-z0-9]+", formula):
            return None
        sides[role].append(formula)
    if not sides["reactant"] or not sides["product"]:
        return None
    return " + ".join(sides["reactant"]) + " --> " + " + ".join(sides["product"])


def parameter_kind(param: Param) -> str | None:
    """Which bank a string parameter draws from (None: numbers and free parameters)."""
    if param.type != "string" or param.enum:
        return None
    text = f"{param.name} {param.description}".lower()
    if "smiles" in text:
        return "smiles"
    if "cas" in param.name.lower():
        return "cas"
    if "reaction" in text:
        return "reaction"
    if "element" in text or param.name.lower().startswith("element"):
        return "element"
    if "formula" in text or param.name in ("compound", "composition_str", "formula"):
        return "formula"
    if "name" in text or "compound" in text or param.name == "query":
        return "name"
    return None


def eligible_tools(registry: ToolRegistry, selection: Sequence[str] | None) -> list[ToolManifest]:
    manifests = registry.manifests()
    if selection:
        chosen = [m for m in manifests if m.name in selection or m.namespace in selection]
        if not chosen:
            raise ChemgroundError(f"none of {list(selection)} is a tool or namespace")
        return chosen
    return [
        m
        for m in manifests
        if not m.uses_files
        and not m.needs_network
        and all(
            p.type != "string" or p.enum or parameter_kind(p) for p in m.parameters if p.required
        )
    ]


class Curator:
    def __init__(
        self, llm: LLM, runner: ToolRunner, bank: ParameterBank, config: CurationConfig
    ) -> None:
        self.llm = llm
        self.runner = runner
        self.bank = bank
        self.config = config
        self.rng = random.Random(config.seed)

    # -- helpers ----------------------------------------------------------------------------
    def _ask(self, prompt: str, check: Callable[[Any], Any]) -> Any:
        try:
            value, _ = self.llm.chat_json([{"role": "user", "content": prompt}], check=check)
        except LLMBadOutput as error:
            raise Dropped(f"unusable model output: {str(error)[:160]}") from None
        return value

    def offer(self, manifest: ToolManifest) -> dict[str, list[Any]]:
        offered = {}
        for p in manifest.parameters:
            kind = parameter_kind(p)
            if kind:
                values = self.bank.sample(kind, self.config.offered_values, self.rng)
                if not values and p.required:
                    raise Dropped(f"no real values of kind {kind!r} for {manifest.name}.{p.name}")
                offered[p.name] = values
        return offered

    def check_values(
        self,
        manifest: ToolManifest,
        arguments: dict[str, Any],
        offered: dict[str, list[Any]],
        previous: Sequence[Any] = (),
    ) -> None:
        """Bank-kind strings must be offered values (or taken from earlier returns)."""
        from_returns = _strings_in(previous)
        for name, values in offered.items():
            if name not in arguments:
                continue
            value = arguments[name]
            if value not in values and str(value) not in from_returns:
                raise Dropped(
                    f"{manifest.name}.{name}: value {str(value)[:60]!r} was not among the offered "
                    "real values"
                )

    def execute(self, manifest: ToolManifest, arguments: dict[str, Any]):
        result = self.runner.call(manifest.name, arguments)
        if not result.ok:
            raise Dropped(
                f"{manifest.name} failed ({result.error_kind}): {str(result.error)[:160]}"
            )
        return result

    def positional(self, manifest: ToolManifest, arguments: dict[str, Any]) -> list[Any]:
        names = [p.name for p in manifest.parameters]
        last = max((names.index(k) for k in arguments if k in names), default=-1)
        return [arguments.get(name) for name in names[: last + 1]]

    def query(self, chain: list[dict[str, Any]]) -> str:
        calls = "\n".join(
            f"{i}. {c['tool']}({json.dumps(c['arguments'], ensure_ascii=False)}) -> "
            f"{json.dumps(c['return'], ensure_ascii=False, default=str)[:800]}"
            for i, c in enumerate(chain, 1)
        )

        def check(value: Any) -> str:
            if (
                not isinstance(value, dict)
                or not isinstance(value.get("query"), str)
                or len(value["query"]) < 10
            ):
                raise ValueError("expected {'query': '...'}")
            return value["query"].strip()

        text = self._ask(render("agent/gen_query", calls=calls), check)
        first = chain[0]["arguments"]
        for value in first.values():
            if isinstance(value, str) and len(value) <= 80 and value.lower() not in text.lower():
                raise Dropped(f"the question does not state the input {value!r}")
            if (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and _number_text(value) not in text
            ):
                raise Dropped(f"the question does not state the input {value!r}")
        return text

    # -- items -------------------------------------------------------------------------------
    def single(self, manifest: ToolManifest) -> dict[str, Any]:
        offered = self.offer(manifest)
        prompt = render(
            "agent/gen_single_call",
            tool=describe_tools([manifest]),
            offered=json.dumps(offered, ensure_ascii=False, indent=1, default=str),
        )
        arguments = self._ask(prompt, _arguments_check)
        self.check_values(manifest, arguments, offered)
        result = self.execute(manifest, arguments)
        chain = [{"tool": manifest.name, "arguments": result.arguments, "return": result.value}]
        question = self.query(chain)
        return {
            "query": question,
            "calling_chain": [
                {
                    "tool": manifest.name,
                    "params": self.positional(manifest, result.arguments),
                    "return": result.value,
                }
            ],
        }

    def multiple(self, pool: list[ToolManifest]) -> dict[str, Any]:
        sample = self.rng.sample(pool, min(12, len(pool)))
        low, high = self.config.chain_tools

        def check(value: Any) -> tuple[list[str], str]:
            names = value.get("tools") if isinstance(value, dict) else None
            if not isinstance(names, list) or not (low <= len(names) <= high):
                raise ValueError(f"expected {{'tools': [{low}-{high} tool names], 'task': '...'}}")
            known = {m.name for m in sample}
            unknown = [n for n in names if n not in known]
            if unknown:
                raise ValueError(f"unknown tools {unknown}; choose from the list")
            return names, str(value.get("task", ""))

        names, task = self._ask(
            render("agent/gen_select_tools", low=low, high=high, tools=describe_tools(sample)),
            check,
        )
        chain: list[dict[str, Any]] = []
        for name in names:
            manifest = self.runner.registry.get(name)
            offered = self.offer(manifest)
            previous = (
                "\n".join(
                    f"{i}. {c['tool']}({json.dumps(c['arguments'], ensure_ascii=False)}) -> "
                    f"{json.dumps(c['return'], ensure_ascii=False, default=str)[:600]}"
                    for i, c in enumerate(chain, 1)
                )
                or "(none)"
            )
            prompt = render(
                "agent/gen_next_call",
                task=task,
                previous=previous,
                tool=describe_tools([manifest]),
                offered=json.dumps(offered, ensure_ascii=False, indent=1, default=str),
            )
            arguments = self._ask(prompt, _arguments_check)
            self.check_values(manifest, arguments, offered, [c["return"] for c in chain])
            result = self.execute(manifest, arguments)
            chain.append(
                {"tool": manifest.name, "arguments": result.arguments, "return": result.value}
            )
        question = self.query(chain)
        return {
            "query": question,
            "calling_chain": [
                {
                    "tool": c["tool"],
                    "params": self.positional(self.runner.registry.get(c["tool"]), c["arguments"]),
                    "return": c["return"],
                }
                for c in chain
            ],
        }


def _arguments_check(value: Any) -> dict[str, Any]:
    if isinstance(value, dict) and isinstance(value.get("arguments"), dict):
        return value["arguments"]
    raise ValueError("expected {'arguments': {...}}")


def _strings_in(values: Sequence[Any]) -> set[str]:
    out: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif value is not None:
            out.add(str(value))

    for value in values:
        walk(value)
    return out


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def split_items(
    items: list[dict[str, Any]], fractions: tuple[float, float, float], seed: int
) -> dict[str, list]:
    shuffled = list(items)
    random.Random(seed).shuffle(shuffled)
    n = len(shuffled)
    n_train = round(n * fractions[0])
    n_dev = round(n * fractions[1])
    return {
        "train": shuffled[:n_train],
        "dev": shuffled[n_train : n_train + n_dev],
        "test": shuffled[n_train + n_dev :],
    }


def generate_dataset(
    llm: LLM,
    config: CurationConfig,
    out_dir: Path,
    *,
    settings: Any = None,
    runner: ToolRunner | None = None,
    kb=None,
    progress=None,
) -> dict[str, Any]:
    """Generate, execute, filter and split; writes train/dev/test.jsonl and dropped.jsonl."""
    import tempfile

    from chemground.workspace import Workspace

    own_runner = runner is None
    scratch = tempfile.TemporaryDirectory(prefix="chemground-curation-") if own_runner else None
    runner = runner or ToolRunner(settings=settings, files_dir=Path(scratch.name))
    workspace = None
    try:
        if kb is None:
            workspace = Workspace(settings or runner.settings)
            kb = workspace.kb
        rng = random.Random(config.seed)
        bank = build_bank(kb, rng)
        pool = eligible_tools(runner.registry, config.tools)
        if not pool:
            raise ChemgroundError("no tools to generate data for")
        curator = Curator(llm, runner, bank, config)
        kept: list[dict[str, Any]] = []
        dropped: list[dict[str, Any]] = []
        for index in range(config.single):
            manifest = pool[index % len(pool)] if index < len(pool) else rng.choice(pool)
            _attempt(
                lambda manifest=manifest: curator.single(manifest),
                "single",
                manifest.name,
                kept,
                dropped,
            )
            if progress:
                progress("single", 1, config.single)
        if len(pool) >= config.chain_tools[0]:
            for _ in range(config.multiple):
                _attempt(lambda: curator.multiple(pool), "multiple", None, kept, dropped)
                if progress:
                    progress("multiple", 1, config.multiple)
        for number, item in enumerate(kept, 1):
            item["id"] = f"gen_{config.seed}_{number}"
        splits = split_items(kept, config.split, config.seed)
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, rows in splits.items():
            write_jsonl(rows, out_dir / f"{name}.jsonl")
        write_jsonl(dropped, out_dir / "dropped.jsonl")
        reasons: dict[str, int] = {}
        for row in dropped:
            key = row["reason"].split(":")[0][:60]
            reasons[key] = reasons.get(key, 0) + 1
        return {
            "kept": len(kept),
            "dropped": len(dropped),
            "splits": {k: len(v) for k, v in splits.items()},
            "drop_reasons": reasons,
            "bank": bank.to_json(),
            "tools": len(pool),
            "model": llm.model,
            "out": str(out_dir),
        }
    finally:
        if workspace is not None:
            workspace.close()
        if own_runner:
            runner.close()
            scratch.cleanup()


def _attempt(
    make: Callable[[], dict[str, Any]], kind: str, tool: str | None, kept: list, dropped: list
) -> None:
    try:
        item = make()
        item["kind"] = kind
        kept.append(item)
    except Dropped as reason:
        dropped.append({"kind": kind, "tool": tool, "reason": str(reason)})
    except LLMError as error:
        dropped.append({"kind": kind, "tool": tool, "reason": f"LLM error: {str(error)[:160]}"})
