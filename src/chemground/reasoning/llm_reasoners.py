"""LLM reasoners: direct, cot, rag-direct and the adaptive plan -> ground -> execute reasoner.

``adaptive`` makes three calls: (1) plan a reasoning prototype for this kind of question
without looking at the evidence, (2) ground each step of it in specific evidence records,
(3) execute the grounded plan to a concise final answer. The published ablations drop the
prototype (``adaptive-no-prototype``: ground, execute) or the grounding
(``adaptive-no-grounding``: plan, execute on raw evidence). ``rag-direct`` answers from the
evidence in one call with no reasoning steps; ``direct`` answers with no retrieval at all.
Every intermediate text is kept in the answer's trace.

All the calls of one reasoner run share one wall-clock budget (``llm_answer_deadline_s``), on
top of each call's own deadline. The final answer is then checked against the evidence,
simply and deterministically (see :func:`check_support`): an empty or garbled answer, or a
value (number, structure, name, formula) that neither appears in the evidence nor follows
from it, is returned with status ``unsupported`` and a note saying why, never ``answered``.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from typing import Any

from chemground.chem.mentions import MentionFinder
from chemground.chem.structure import Structure, looks_like_smiles, structure_from_smiles
from chemground.errors import ChemgroundError
from chemground.evidence import Evidence
from chemground.llm.base import LLM, LLMError, LLMResponse
from chemground.llm.prompts import load_prompt, render
from chemground.reasoning.extractive import Reasoned
from chemground.reasoning.query import Aspect, QueryTuple
from chemground.reasoning.values import (
    NAMES,
    NOT_AVAILABLE,
    NUMERIC,
    STRUCTURES,
    extract_value,
    final_answer,
)

MAX_EVIDENCE_CHARS = 1500


def _participants(items: list[dict[str, Any]]) -> str:
    return (
        "; ".join(
            f"{p.get('name') or ''} ({p.get('smiles') or 'no SMILES'})".strip() for p in items
        )
        or "none"
    )


def format_evidence(evidence: list[Evidence]) -> str:
    """Evidence records as labelled text ([E1], [E2] ...) for a prompt."""
    if not evidence:
        return "(no evidence was retrieved)"
    blocks = []
    for i, e in enumerate(evidence, start=1):
        r = e.record
        if e.kind == "reaction":
            lines = [
                f"[E{i}] reaction {e.id} (source {r.get('source') or r.get('dataset') or '?'})",
                f"  reactants: {_participants(r.get('reactants', []))}",
                f"  products: {_participants(r.get('products', []))}",
                f"  solvents: {_participants(r.get('solvents', []))}",
                f"  catalysts: {_participants(r.get('catalysts', []))}",
                f"  reagents: {_participants(r.get('reagents', []))}",
            ]
            conditions = []
            if r.get("temperature_c") is not None or r.get("temperature_text"):
                text = r.get("temperature_text") or ""
                conditions.append(f"temperature {r.get('temperature_c')} °C {text}".strip())
            if r.get("time_h") is not None:
                conditions.append(f"time {r['time_h']} h")
            if r.get("yield_percent") is not None:
                conditions.append(f"yield {r['yield_percent']}%")
            if conditions:
                lines.append("  " + "; ".join(conditions))
            if r.get("description"):
                lines.append("  text: " + r["description"][:MAX_EVIDENCE_CHARS])
        elif e.kind in ("compound", "computed"):
            names = [
                n
                for n in [r.get("iupac_name"), r.get("common_name"), *(r.get("synonyms") or [])[:5]]
                if n
            ]
            lines = [
                f"[E{i}] compound {e.id}: {'; '.join(dict.fromkeys(names)) or r.get('name') or ''}",
                f"  SMILES {r.get('smiles')}; formula {r.get('formula')}; "
                f"molecular weight {r.get('molecular_weight')}; exact mass {r.get('exact_mass')}",
            ]
            if r.get("description"):
                lines.append("  description: " + r["description"][:MAX_EVIDENCE_CHARS])
        else:
            lines = [f"[E{i}] {e.kind} {e.id}: {str(r.get('text') or r)[:MAX_EVIDENCE_CHARS]}"]
        lines.append(f"  (retrieved because: {e.why})")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


@dataclass
class _Run:
    """One reasoner run: the trace steps and the responses behind them."""

    steps: list[dict[str, Any]] = field(default_factory=list)
    responses: list[LLMResponse] = field(default_factory=list)


class LLMReasoner:
    """Base: prompts as files, one system message, the final answer read from ``Answer:``.

    ``reason`` runs ``_reason`` (the calls, sharing one answer budget) and checks the final
    text against the evidence. ``shows_evidence`` False (``direct``): the model saw no
    evidence, so nothing is cited, but its answer is still checked against what was retrieved.
    """

    name = "llm"
    shows_evidence = True

    def __init__(self, llm: LLM, finder: MentionFinder | None = None) -> None:
        self.llm = llm
        self.finder = finder

    def _call(self, prompt: str, run: _Run, step: str) -> str:
        response = self.llm.chat(
            [
                {"role": "system", "content": load_prompt("reasoning/system")},
                {"role": "user", "content": prompt},
            ]
        )
        output = response.text
        if (
            len(output) > MAX_TRACE_CHARS
        ):  # the trace keeps the start of a runaway reply, not all 2 MB of it
            output = (
                output[:MAX_TRACE_CHARS]
                + f" [... {len(output) - MAX_TRACE_CHARS:,} more characters]"
            )
        run.steps.append(
            {
                "step": step,
                "prompt": prompt,
                "output": output,
                "model": response.model,
                "cached": response.cached,
                "tokens": response.usage.total_tokens,
            }
        )
        run.responses.append(response)
        if not response.text.strip():
            _forget(self.llm, response)
            raise LLMError(
                f"the model ({self.llm.model}) returned an empty reply at the {step} step"
            )
        return response.text

    def reason(self, query: QueryTuple, evidence: list[Evidence]) -> Reasoned:
        run = _Run()
        budget = getattr(self.llm, "answer_budget", None)
        with budget() if budget is not None else contextlib.nullcontext():
            text = self._reason(query, evidence, run)
        return self._finish(query, evidence, text, run)

    def _reason(
        self, query: QueryTuple, evidence: list[Evidence], run: _Run
    ) -> str:  # pragma: no cover
        raise NotImplementedError

    def _finish(
        self, query: QueryTuple, evidence: list[Evidence], text: str, run: _Run
    ) -> Reasoned:
        text = _squash(text)
        answer = final_answer(text)
        if len(answer) > MAX_ANSWER_CHARS:
            answer = answer[:MAX_ANSWER_CHARS].rstrip() + " [...]"
        notes: list[str] = []
        try:
            value = extract_value(query.aspect, answer, self.finder)
        except ChemgroundError as error:  # e.g. a compound name in the answer over a size limit
            value = None
            notes.append(f"no value read from the answer: {error}")
        declined = bool(NOT_AVAILABLE.search(answer))
        shown = evidence if self.shows_evidence else []
        cited = [shown[i - 1].citation() for i in range(1, len(shown) + 1) if f"[E{i}]" in text]
        trace = {
            "steps": run.steps,
            "model": self.llm.model,
            "scripted": not self.llm.is_real_model,
        }
        if declined:
            return Reasoned(answer, value, "no_evidence", cited, notes, trace=trace)
        try:
            support = check_support(query, answer, value, evidence, self.finder)
        except Exception as error:
            support = Support(
                False,
                f"the answer could not be checked against the evidence ({type(error).__name__})",
                checked="failed",
            )
        trace["support"] = support.to_json()
        if support.garbled and run.responses:
            _forget(self.llm, run.responses[-1])  # a garbled reply is not replayed from the cache
        if not support.supported:
            notes.append(f"unsupported: {support.reason}")
            return Reasoned(answer, value, "unsupported", cited, notes, trace=trace)
        return Reasoned(answer, value, "answered", cited, notes, trace=trace)


MAX_ANSWER_CHARS = 4000
MAX_TRACE_CHARS = 20_000
_WHITESPACE_RUN = re.compile(r"\s{3,}")


def _squash(text: str) -> str:
    """Long runs of whitespace made one space or newline: the answer-line pattern is quadratic
    in them, and a reply of 2 MB of newlines must not stall the reasoner."""
    return _WHITESPACE_RUN.sub(lambda m: "\n" if "\n" in m.group() else " ", text or "")


def _forget(llm: LLM, response: LLMResponse) -> None:
    forget = getattr(llm, "forget", None)
    if forget is not None:
        forget(response)


class DirectReasoner(LLMReasoner):
    name = "direct"
    shows_evidence = False

    def _reason(self, query, evidence, run):
        return self._call(render("reasoning/direct", question=query.question), run, "answer")


class RagDirectReasoner(LLMReasoner):
    name = "rag-direct"

    def _reason(self, query, evidence, run):
        prompt = render(
            "reasoning/rag_direct", question=query.question, evidence=format_evidence(evidence)
        )
        return self._call(prompt, run, "answer")


class CoTReasoner(LLMReasoner):
    name = "cot"

    def _reason(self, query, evidence, run):
        prompt = render(
            "reasoning/cot", question=query.question, evidence=format_evidence(evidence)
        )
        return self._call(prompt, run, "reason")


class AdaptiveReasoner(LLMReasoner):
    """Plan a reasoning prototype, ground it in the evidence, execute (three calls)."""

    name = "adaptive"
    use_prototype = True
    use_grounding = True

    def _reason(self, query, evidence, run):
        evidence_text = format_evidence(evidence)
        aspect = query.aspect.value if query.aspect else "unknown"
        plan = "(no plan: answer from the facts)"
        if self.use_prototype:
            plan = self._call(
                render("reasoning/adaptive_plan", question=query.question, aspect=aspect),
                run,
                "plan",
            )
        if self.use_grounding:
            if self.use_prototype:
                prompt = render(
                    "reasoning/adaptive_ground",
                    question=query.question,
                    plan=plan,
                    evidence=evidence_text,
                )
            else:
                prompt = render(
                    "reasoning/adaptive_ground_no_plan",
                    question=query.question,
                    evidence=evidence_text,
                )
            grounding = self._call(prompt, run, "ground")
            prompt = render(
                "reasoning/adaptive_execute",
                question=query.question,
                plan=plan,
                grounding=grounding,
            )
        else:
            prompt = render(
                "reasoning/adaptive_execute_no_grounding",
                question=query.question,
                plan=plan,
                evidence=evidence_text,
            )
        return self._call(prompt, run, "execute")


class AdaptiveNoPrototype(AdaptiveReasoner):
    name = "adaptive-no-prototype"
    use_prototype = False


class AdaptiveNoGrounding(AdaptiveReasoner):
    name = "adaptive-no-grounding"
    use_grounding = False


LLM_REASONERS = {
    cls.name: cls
    for cls in (
        DirectReasoner,
        RagDirectReasoner,
        CoTReasoner,
        AdaptiveReasoner,
        AdaptiveNoPrototype,
        AdaptiveNoGrounding,
    )
}


# -- is the answer supported by the evidence?
# -------------------------------------------------------
#
# Deliberately simple and deterministic: it catches garbage and made-up values, it does not judge
# whether a supported value is the right one. Numbers must lie within a small tolerance of a number
# in the evidence records (or one computed from a structure in them, or a unit conversion of one);
# structures must match a structure in the evidence by canonical SMILES (or skeleton, ignoring
# stereo and isotopes); names must appear in the evidence or name a structure in it; a formula
# must equal one in the evidence. For the compound aspects (molecular weight, exact mass, formula,
# SMILES <-> name) the question's own resolved compound counts as evidence: the value follows from
# it. Free-text aspects (descriptions, routes, passages) are checked for garbage only.

MAX_CHECKED_ITEMS = 20
MAX_CHECKED_CHARS = 400
_NUMBER = re.compile(r"(?<![A-Za-z\d])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_FORMULA = re.compile(r"(?:[A-Z][a-z]?\d*){2,}")
_FORMULA_PART = re.compile(r"([A-Z][a-z]?)(\d*)")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_NAME_KEYS = ("name", "synonym", "title")
_NO_NUMBER_KEYS = ("name", "synonym", "smiles", "inchi", "formula", "title", "url", "path", "doi")
_DERIVED_FROM_QUESTION = {
    Aspect.MOLECULAR_WEIGHT,
    Aspect.EXACT_MASS,
    Aspect.FORMULA,
    Aspect.NAME_TO_SMILES,
    Aspect.SMILES_TO_NAME,
}


@dataclass
class Support:
    supported: bool
    reason: str = ""
    checked: str = (
        "garbage only"  # what was checked: numbers, structures, names, formula, garbage only
    )
    garbled: bool = False  # the answer is empty or unreadable (as opposed to merely unsupported)

    def to_json(self) -> dict[str, Any]:
        return {
            "supported": self.supported,
            "checked": self.checked,
            "reason": self.reason,
            "garbled": self.garbled,
        }


class _Facts:
    """What the evidence (and, for compound aspects, the question's compound) says."""

    def __init__(self, query: QueryTuple, evidence: list[Evidence], use_question: bool) -> None:
        self.numbers: list[float] = []
        self.number_keys: list[str] = []  # the record field each number came from
        self.smiles: list[str] = []
        self.names: set[str] = set()
        self.formulas: list[str] = []
        texts: list[str] = []
        for e in evidence:
            self._walk(e.record, "", texts)
            texts.append(e.why or "")
        if use_question:
            for mention in query.resolved_mentions:
                smiles = getattr(mention, "smiles", None)
                if smiles:
                    self.smiles.append(smiles)
                for attr in ("text", "matched_name"):
                    value = getattr(mention, attr, None)
                    if isinstance(value, str) and value:
                        self.names.add(_norm(value))
        self.text = _norm(" ".join(texts))
        self.structures: list[Structure] = []
        seen: set[str] = set()
        for smiles in self.smiles:
            for part in [smiles, *smiles.split(".")] if "." in smiles else [smiles]:
                if part in seen:
                    continue
                seen.add(part)
                structure = _structure(part)
                if structure is not None:
                    self.structures.append(structure)
        for structure in self.structures:
            self._add(
                [structure.molecular_weight, structure.exact_mass],
                ["molecular_weight", "exact_mass"],
            )
            self.formulas.append(structure.formula)
        self.keys = {s.inchikey for s in self.structures}
        self.skeletons = {s.connectivity_key for s in self.structures}
        self.canonical = {s.smiles for s in self.structures}

    def _walk(self, value: Any, key: str, texts: list[str]) -> None:
        k = key.lower()
        if isinstance(value, dict):
            for child_key, child in value.items():
                self._walk(child, str(child_key), texts)
        elif isinstance(value, (list, tuple)):
            for child in value[:200]:
                self._walk(child, key, texts)
        elif isinstance(value, bool) or value is None:
            return
        elif isinstance(value, (int, float)):
            if not (k == "id" or k.endswith("_id") or k in ("score", "rank", "cid")):
                self._add([float(value)], [k])
        elif isinstance(value, str):
            text = value[:5000]
            texts.append(text)
            if "smiles" in k:
                for side in re.split(r">+", text):
                    if side.strip():
                        self.smiles.append(side.strip())
                return
            if "formula" in k:
                self.formulas.append(text)
            if any(n in k for n in _NAME_KEYS):
                self.names.add(_norm(text))
            if not any(n in k for n in _NO_NUMBER_KEYS) and not (k == "id" or k.endswith("_id")):
                found = [float(m) for m in _NUMBER.findall(text)[:200]]
                self._add(found, [k] * len(found))

    def _add(self, numbers: list[float], keys: list[str]) -> None:
        self.numbers += numbers
        self.number_keys += keys

    def has_number(self, value: float, aspect: Aspect | None) -> bool:
        """Whether ``value`` is a number of the evidence, in a unit the aspect allows.

        A molecular weight must match a weight (not the exact mass beside it, which a model
        confuses with it: 180.04 for aspirin's 180.16), an exact mass an exact mass; a fraction
        becomes a percentage only for a yield field (a 1.0 g amount is not a 100 % yield).
        """
        for n, key in zip(self.numbers, self.number_keys):
            if aspect == Aspect.MOLECULAR_WEIGHT and ("exact" in key or "monoisotopic" in key):
                continue
            if aspect == Aspect.EXACT_MASS and ("molecular_weight" in key or "molar" in key):
                continue
            for candidate in _conversions(n, aspect, key):
                if abs(value - candidate) <= _tolerance(candidate, aspect):
                    return True
        return False

    def has_structure(self, smiles: str) -> bool:
        structure = _structure(smiles)
        if structure is None:
            return False
        if (
            structure.inchikey in self.keys
            or structure.smiles in self.canonical
            or structure.connectivity_key in self.skeletons
        ):
            return True
        if (
            "." in structure.smiles
        ):  # a mixture or salt written as one SMILES: every part must be there
            return all(self.has_structure(part) for part in structure.smiles.split("."))
        return False

    def mentions_name(self, text: str, reverse: bool = True) -> bool:
        """``text`` appears in the evidence, or (``reverse``) an evidence name appears in ``text``
        (an answer may wrap the name in a sentence)."""
        norm = _norm(text)
        if not norm:
            return False
        if norm in self.names or _contains(self.text, norm):
            return True
        return reverse and any(len(name) >= 3 and _contains(norm, name) for name in self.names)

    def has_formula(self, text: str) -> bool:
        wanted = [
            _formula_counts(f)
            for f in _FORMULA.findall(text.translate(_SUBSCRIPTS).replace(" ", ""))
        ]
        known = [_formula_counts(f.translate(_SUBSCRIPTS).replace(" ", "")) for f in self.formulas]
        return any(w and w in known for w in wanted)


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("\u2019", "'").split()).strip(" .;:,*`'\"")


def _contains(haystack: str, needle: str) -> bool:
    if not needle:
        return False
    return re.search(r"(?<![a-z0-9])" + re.escape(needle) + r"(?![a-z0-9])", haystack) is not None


def _structure(smiles: str) -> Structure | None:
    if not smiles or len(smiles) > 500:
        return None
    try:
        return structure_from_smiles(smiles)
    except Exception:
        return None


def _formula_counts(formula: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for element, count in _FORMULA_PART.findall(formula):
        if element:
            counts[element] = counts.get(element, 0) + (int(count) if count else 1)
    return counts


def _tolerance(candidate: float, aspect: Aspect | None) -> float:
    """How far an answer may be from an evidence number: rounding to one decimal for masses
    (0.5 % would take aspirin's exact mass 180.04 for its weight 180.16), else 0.5 %."""
    if aspect in (Aspect.MOLECULAR_WEIGHT, Aspect.EXACT_MASS):
        return 0.06
    return max(0.05, 0.005 * abs(candidate))


def _conversions(n: float, aspect: Aspect | None, key: str = "") -> tuple[float, ...]:
    """``n`` and what it becomes in another unit the answer may use for this aspect."""
    if aspect == Aspect.TEMPERATURE:
        return (n, n + 273.15, n - 273.15, n * 9 / 5 + 32)
    if aspect == Aspect.TIME:
        return (n, n * 60, n / 60, n / 24, n * 24)
    if aspect == Aspect.YIELD:
        return (n, n * 100, n / 100) if "yield" in key else (n,)
    return (n,)


def check_support(
    query: QueryTuple,
    answer: str,
    value: Any,
    evidence: list[Evidence],
    finder: MentionFinder | None = None,
) -> Support:
    """Whether ``answer`` (the final answer text) and its typed ``value`` stand on ``evidence``."""
    text = (answer or "").strip()
    if not re.search(r"[^\W_]", text):
        return Support(
            False, "the model's answer is empty or has no words or numbers", garbled=True
        )
    aspect = query.aspect
    use_question = aspect in _DERIVED_FROM_QUESTION
    if not evidence and not (use_question and query.resolved_mentions):
        return Support(
            False,
            "no evidence was retrieved, so the answer rests on the model alone",
            checked="nothing to check against",
        )
    facts = _Facts(query, evidence, use_question)
    if aspect in NUMERIC:
        if not isinstance(value, (int, float)):
            if facts.mentions_name(
                text, reverse=False
            ):  # e.g. "room temperature" for a record that says so
                return Support(True, checked="text")
            return Support(
                False,
                f"the answer gives no number to check against the evidence: {text[:80]!r}",
                checked="numbers",
                garbled=True,
            )
        if facts.has_number(float(value), aspect):
            return Support(True, checked="numbers")
        return Support(
            False,
            f"the value {value:g} is not in the evidence (nor computed from a structure in it)",
            checked="numbers",
        )
    if aspect in STRUCTURES:
        smiles = [value] if isinstance(value, str) else list(value or [])
        smiles = [s for s in smiles if isinstance(s, str)][:MAX_CHECKED_ITEMS]
        if (
            isinstance(value, str) and _structure(value) is None
        ):  # no mention finder: a name, not SMILES
            return _names_supported([value], facts, finder)
        if not smiles:
            if facts.mentions_name(text[:MAX_CHECKED_CHARS]):
                return Support(True, checked="names")
            return Support(
                False,
                f"no compound in the answer could be recognised: {text[:80]!r}",
                checked="structures",
                garbled=True,
            )
        missing = [s for s in smiles if not facts.has_structure(s)]
        if missing:
            return Support(
                False, "not in the evidence: " + ", ".join(missing[:5]), checked="structures"
            )
        return Support(True, checked="structures")
    if aspect in NAMES:
        names = [n for n in (value if isinstance(value, list) else [text]) if isinstance(n, str)]
        return _names_supported(names[:MAX_CHECKED_ITEMS], facts, finder)
    if aspect == Aspect.FORMULA:
        if facts.has_formula(text):
            return Support(True, checked="formula")
        return Support(
            False,
            f"the formula in the answer is not that of a compound in the evidence: {text[:80]!r}",
            checked="formula",
        )
    if aspect == Aspect.SMILES_TO_NAME:
        return _names_supported([text], facts, finder)
    if aspect == Aspect.CONDITIONS:
        numbers = [float(m) for m in _NUMBER.findall(re.sub(r"\[E\d+\]", " ", text))][
            :MAX_CHECKED_ITEMS
        ]
        missing = [
            n
            for n in numbers
            if not facts.has_number(n, Aspect.TEMPERATURE)
            and not facts.has_number(n, Aspect.TIME)
            and not facts.has_number(n, Aspect.YIELD)
        ]
        if missing:
            return Support(
                False,
                "numbers not in the evidence: " + ", ".join(f"{n:g}" for n in missing[:5]),
                checked="numbers",
            )
        return Support(True, checked="numbers" if numbers else "garbage only")
    return Support(True)


def _names_supported(names: list[str], facts: _Facts, finder: MentionFinder | None) -> Support:
    names = [n for n in names if n.strip()]
    if not names:
        return Support(False, "the answer names nothing", checked="names", garbled=True)
    missing = []
    for name in names:
        item = name[:MAX_CHECKED_CHARS]
        if facts.mentions_name(item):
            continue
        if looks_like_smiles(item.strip()) and facts.has_structure(item.strip()):
            continue
        if finder is not None and any(
            m.structure is not None and facts.has_structure(m.structure.smiles)
            for m in _find(finder, item)
        ):
            continue
        missing.append(name)
    if missing:
        return Support(
            False,
            "not in the evidence: " + "; ".join(repr(m[:60]) for m in missing[:5]),
            checked="names",
        )
    return Support(True, checked="names")


def _find(finder: MentionFinder, text: str) -> list:
    try:
        return finder.find(text)
    except Exception:
        return []
