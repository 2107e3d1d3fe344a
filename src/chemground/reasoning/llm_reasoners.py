"""LLM reasoners: direct, cot, rag-direct and the adaptive plan -> ground -> execute reasoner.

``adaptive`` plans, grounds and executes: (1) a reasoning prototype for the question's kind
(its aspect), written without the evidence or the question's compounds, so it is planned once
per kind and reused; (2) each step grounded in specific evidence records, quoted under
"Facts:", and (3) executed to a concise final answer, the two in one reply. Three calls per
answer took 70-230 s with a 1.5B model on two cores, where the issue asks for 20 s; the stages
and their texts are the same, in one call where three were not needed. The published ablations
drop the prototype (``adaptive-no-prototype``: ground and execute) or the grounding
(``adaptive-no-grounding``: plan, execute on raw evidence). ``rag-direct`` answers from the
evidence in one call with no reasoning steps; ``direct`` answers with no retrieval at all.
Every intermediate text is kept in the answer's trace.

All the calls of one reasoner run share one wall-clock budget (``llm_answer_deadline_s``), on
top of each call's own deadline. The final answer is then checked against the evidence,
by the faithfulness check (:func:`chemground.reasoning.faithfulness.check_faithfulness`): an
empty or garbled answer, or a value or claim (number, structure, name, formula) that neither
appears in the evidence nor follows from it, is returned with status ``unsupported`` and a note
naming each claim and its kind, never ``answered``; the report is ``trace["faithfulness"]``.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from chemground.chem.mentions import MentionFinder
from chemground.errors import ChemgroundError
from chemground.evidence import Evidence
from chemground.llm.base import LLM, LLMError, LLMResponse
from chemground.llm.prompts import load_prompt, render
from chemground.reasoning.extractive import Reasoned
from chemground.reasoning.faithfulness import check_faithfulness, failed_check
from chemground.reasoning.query import Aspect, QueryTuple
from chemground.reasoning.values import NOT_AVAILABLE, extract_value, final_answer

MAX_EVIDENCE_CHARS = 1500


def _participants(items: list[dict[str, Any]]) -> str:
    return (
        "; ".join(
            f"{p.get('name') or ''} ({p.get('smiles') or 'no SMILES'})".strip() for p in items
        )
        or "none"
    )


# Which lines of a record an aspect needs (issue 20: "evidence trimmed to what the aspect
# needs"). A small model shown a record's every field answers the wrong one: the exact mass for
# a molecular weight, a reagent for a catalyst. The reactants and products always stay, since
# they say which reaction a record is; an aspect not listed (or none) shows every field.
_REACTION_FIELDS: dict[Aspect, tuple[str, ...]] = {
    Aspect.PRODUCT: (),
    Aspect.REACTANTS: (),
    Aspect.SOLVENT: ("solvents",),
    Aspect.CATALYST: ("catalysts",),
    Aspect.REAGENT: ("reagents",),
    Aspect.TEMPERATURE: ("conditions", "text"),
    Aspect.TIME: ("conditions", "text"),
    Aspect.YIELD: ("conditions", "text"),
}
_ALL_REACTION_FIELDS = ("solvents", "catalysts", "reagents", "conditions", "text")
# the record fields that state a condition; the free text is shown only for a condition the
# record does not state (a procedure's text runs to 1,500 characters: 3,400 prompt tokens for
# three records, which a small model on two cores reads in minutes)
_CONDITION_FIELDS: dict[Aspect, tuple[str, ...]] = {
    Aspect.TEMPERATURE: ("temperature_c", "temperature_text"),
    Aspect.TIME: ("time_h",),
    Aspect.YIELD: ("yield_percent",),
}
_COMPOUND_FIELDS: dict[Aspect, tuple[str, ...]] = {
    Aspect.MOLECULAR_WEIGHT: ("molecular weight",),
    Aspect.EXACT_MASS: ("exact mass",),
    Aspect.FORMULA: ("formula",),
    Aspect.NAME_TO_SMILES: (),
    Aspect.SMILES_TO_NAME: (),
    Aspect.SYNONYMS: (),
    Aspect.DESCRIPTION: ("description",),
}
_ALL_COMPOUND_FIELDS = ("formula", "molecular weight", "exact mass", "description")


# What the answer line holds, per aspect. With one line for every kind ("a name, a SMILES string,
# a number with its unit, or a short phrase") the real 1.5B model answered a description with
# the compound's names, put a reactant beside the solvent and the product among its own
# reactants (rag-direct, third table-RAG sample).
_ANSWER_FORMS: dict[Aspect, str] = {
    Aspect.PRODUCT: "the product(s) of the matching reaction, name and SMILES; not its reactants",
    Aspect.REACTANTS: (
        "the reactants of the matching reaction (what it starts from), every one, separated "
        "by semicolons; never the product the question names"
    ),
    Aspect.SOLVENT: (
        "only the compounds the matching record lists under solvents, every one, separated by "
        "semicolons; never a reactant or reagent"
    ),
    Aspect.CATALYST: (
        "only the compounds the matching record lists under catalysts, every one, separated by "
        "semicolons; never a reactant or solvent"
    ),
    Aspect.REAGENT: (
        "only the compounds the matching record lists under reagents, every one, separated by "
        "semicolons; never a reactant or solvent"
    ),
    Aspect.TEMPERATURE: "the temperature with its unit, as the record states it",
    Aspect.TIME: "the reaction time with its unit, as the record states it",
    Aspect.YIELD: "the yield in percent, as the record states it",
    Aspect.MOLECULAR_WEIGHT: "the molecular weight with its unit (g/mol)",
    Aspect.EXACT_MASS: "the exact (monoisotopic) mass with its unit",
    Aspect.FORMULA: "the molecular formula",
    Aspect.NAME_TO_SMILES: "the compound's SMILES string, as the record gives it",
    Aspect.SMILES_TO_NAME: "the IUPAC name the record gives, copied exactly",
    Aspect.SYNONYMS: "the names the record lists, separated by semicolons",
    Aspect.DESCRIPTION: "the record's description, copied as it stands",
}
_ANY_ANSWER_FORM = (
    "a name, a SMILES string, a number with its unit, or a short phrase; when the record gives "
    "several (solvents, catalysts, reactants), every one, separated by semicolons"
)


def answer_form(aspect: Aspect | None) -> str:
    """What the answer line should hold for ``aspect`` (see ``_ANSWER_FORMS``).

    Args:
        aspect: what the question asks; None or an aspect not listed gets the general form.

    Returns:
        The text that follows "the answer only:" in the reasoner prompts.
    """
    return _ANSWER_FORMS.get(aspect, _ANY_ANSWER_FORM) if aspect is not None else _ANY_ANSWER_FORM


def _reaction_lines(r: dict[str, Any], fields: tuple[str, ...]) -> list[str]:
    lines = [
        f"  reactants: {_participants(r.get('reactants', []))}",
        f"  products: {_participants(r.get('products', []))}",
    ]
    for role in ("solvents", "catalysts", "reagents"):
        if role in fields:
            lines.append(f"  {role}: {_participants(r.get(role, []))}")
    if "conditions" in fields:
        conditions = []
        if r.get("temperature_c") is not None or r.get("temperature_text"):
            # "temperature 60.0 °C", "temperature ambient" (not "None °C ambient")
            degrees = f"{r['temperature_c']} °C" if r.get("temperature_c") is not None else ""
            text = f"{degrees} {r.get('temperature_text') or ''}".strip()
            conditions.append(f"temperature {text}")
        if r.get("time_h") is not None:
            conditions.append(f"time {r['time_h']} h")
        if r.get("yield_percent") is not None:
            conditions.append(f"yield {r['yield_percent']}%")
        if conditions:
            lines.append("  " + "; ".join(conditions))
    if "text" in fields and r.get("description"):
        lines.append("  text: " + r["description"][:MAX_EVIDENCE_CHARS])
    return lines


def _as_stated(value: Any, key: str) -> str:
    """A stored number as a chemist writes it: "150.18 g/mol", not the float "150.17699999999996"
    (the real 1.5B model copied such digits into its answer, which the check then flagged)."""
    if not isinstance(value, float):
        return str(value)
    if key == "molecular_weight":
        return f"{value:.2f} g/mol"
    if key == "exact_mass":
        return f"{value:.4f} Da"
    return f"{value:g}"


def _compound_lines(r: dict[str, Any], fields: tuple[str, ...]) -> list[str]:
    facts = [f"SMILES {r.get('smiles')}"]
    for label, key in (
        ("formula", "formula"),
        ("molecular weight", "molecular_weight"),
        ("exact mass", "exact_mass"),
    ):
        if label in fields:
            facts.append(f"{label} {_as_stated(r.get(key), key)}")
    lines = ["  " + "; ".join(facts)]
    if "description" in fields and r.get("description"):
        lines.append("  description: " + r["description"][:MAX_EVIDENCE_CHARS])
    return lines


def format_evidence(evidence: list[Evidence], aspect: Aspect | None = None) -> str:
    """Evidence records as labelled text ([E1], [E2] ...) for a prompt.

    Args:
        evidence: the records, best first.
        aspect: what the question asks; a record then shows only the fields that aspect needs
            (see ``_REACTION_FIELDS``), so a small model is not offered the wrong field. None
            shows every field.

    Returns:
        One block per record, labelled in order.
    """
    if not evidence:
        return "(no evidence was retrieved)"
    blocks = []
    for i, e in enumerate(evidence, start=1):
        r = e.record
        if e.kind == "reaction":
            fields = _REACTION_FIELDS.get(aspect, _ALL_REACTION_FIELDS)
            if any(r.get(key) is not None for key in _CONDITION_FIELDS.get(aspect, ())):
                fields = tuple(f for f in fields if f != "text")  # the record states it
            source = r.get("source") or r.get("dataset") or "?"
            lines = [
                f"[E{i}] reaction {e.id} (source {source}; {e.match} match)",
                *_reaction_lines(r, fields),
            ]
        elif e.kind in ("compound", "computed"):
            fields = _COMPOUND_FIELDS.get(aspect, _ALL_COMPOUND_FIELDS)
            iupac = r.get("iupac_name")
            others = [
                n
                for n in dict.fromkeys(
                    [r.get("common_name"), *(r.get("synonyms") or [])[:5], r.get("name")]
                )
                if n and n != iupac
            ]
            # the IUPAC name labelled: shown first in one list of names, the real 1.5B model
            # answered "arsine" for arsorous acid's IUPAC name
            lines = [
                f"[E{i}] compound {e.id} ({e.match} match)",
                *([f"  IUPAC name: {iupac}"] if iupac else []),
                *([f"  other names: {'; '.join(others)}"] if others else []),
                *_compound_lines(r, fields),
            ]
        else:
            lines = [
                f"[E{i}] {e.kind} {e.id}: {str(r.get('text') or r)[:MAX_EVIDENCE_CHARS]}",
                f"  (retrieved because: {e.why})",
            ]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


# Characters per token assumed when sizing a prompt: chemistry text (SMILES, IUPAC names) splits
# into short tokens, about 2.5-3 characters each with Qwen's and Llama's tokenizers; the lower
# figure keeps the estimate on the safe side.
CHARS_PER_TOKEN = 2.5
# Room kept for the instructions, the system message and the question around the evidence.
PROMPT_OVERHEAD_TOKENS = 700
DEFAULT_REPLY_TOKENS = 1024


def fit_evidence(
    evidence: list[Evidence], llm: LLM, question: str = "", aspect: Aspect | None = None
) -> tuple[list[Evidence], int]:
    """The best-ranked evidence whose prompt text fits the model's context window.

    A small local model has a context of a few thousand tokens; a prompt larger than that is
    refused or silently truncated by the server. Evidence is kept in rank order while its text
    fits what is left after the reply, the instructions and the question; the rest is left out
    (the caller says so). With no known window (``llm.context_tokens`` None) nothing is cut.

    Args:
        evidence: the retrieved evidence, best first.
        llm: the model; its ``context_tokens`` and ``max_tokens`` size the budget.
        question: the question, which shares the prompt.
        aspect: what is asked, which decides the fields shown (see ``format_evidence``).

    Returns:
        The evidence kept (a prefix of ``evidence``, at least one record) and how many were
        left out.
    """
    window = llm.context_tokens
    if not window or not evidence:
        return evidence, 0
    reply = llm.max_tokens or DEFAULT_REPLY_TOKENS
    budget = (window - reply - PROMPT_OVERHEAD_TOKENS) * CHARS_PER_TOKEN - len(question)
    kept: list[Evidence] = []
    for item in evidence:
        if kept and len(format_evidence([*kept, item], aspect)) > budget:
            break
        kept.append(item)
    return kept, len(evidence) - len(kept)


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

    @staticmethod
    def _messages(prompt: str) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": load_prompt("reasoning/system")},
            {"role": "user", "content": prompt},
        ]

    @staticmethod
    def _record(run: _Run, step: str, prompt: str, response: LLMResponse) -> None:
        """The step in the trace; the start of a runaway reply, not all 2 MB of it."""
        output = response.text
        if len(output) > MAX_TRACE_CHARS:
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

    def _call(self, prompt: str, run: _Run, step: str, max_tokens: int | None = None) -> str:
        response = self.llm.chat(self._messages(prompt), max_tokens=max_tokens)
        self._record(run, step, prompt, response)
        if not response.text.strip():
            _forget(self.llm, response)
            raise LLMError(
                f"the model ({self.llm.model}) returned an empty reply at the {step} step"
            )
        return response.text

    def _call_grounded(self, prompt: str, run: _Run, step: str) -> str:
        """A schema-constrained call (llama.cpp and OpenAI decode to the JSON schema): the facts
        quoted with their record labels, then the answer, returned as the text the other
        reasoners write ("Facts: [E1] ... Answer: ..."). Free text ran on to the reply limit with
        the real 1.5B model (512 tokens, 77 s, and no answer line); the schema makes the answer a
        field of its own, after at most five facts."""
        grounded, response = self.llm.chat_json(
            self._messages(prompt), schema=GroundedAnswer, max_tokens=ANSWER_MAX_TOKENS
        )
        self._record(run, step, prompt, response)
        return grounded.as_text()

    def reason(self, query: QueryTuple, evidence: list[Evidence]) -> Reasoned:
        run = _Run()
        evidence, left_out = fit_evidence(evidence, self.llm, query.question, query.aspect)
        budget = getattr(self.llm, "answer_budget", None)
        with budget() if budget is not None else contextlib.nullcontext():
            text = self._reason(query, evidence, run)
        reasoned = self._finish(query, evidence, text, run)
        if left_out:
            reasoned.notes.append(
                f"{left_out} lower-ranked evidence record(s) left out of the prompt to fit the "
                f"model's context window ({self.llm.context_tokens} tokens)"
            )
        return reasoned

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
            report = check_faithfulness(
                answer, evidence, query=query, value=value, finder=self.finder
            )
        except Exception as error:
            report = failed_check(error)
        trace["faithfulness"] = report.to_json()
        if report.garbled and run.responses:
            _forget(self.llm, run.responses[-1])  # a garbled reply is not replayed from the cache
        if not report.supported:
            notes.extend(report.notes())
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
            "reasoning/rag_direct",
            question=query.question,
            evidence=format_evidence(evidence, query.aspect),
            answer_form=answer_form(query.aspect),
        )
        # one answer line and its citations: the real 1.5B model ran on to 1,023 tokens on a
        # patent record and missed its 300 s deadline
        return self._call(prompt, run, "answer", ANSWER_MAX_TOKENS)


class CoTReasoner(LLMReasoner):
    name = "cot"

    def _reason(self, query, evidence, run):
        prompt = render(
            "reasoning/cot",
            question=query.question,
            evidence=format_evidence(evidence, query.aspect),
            answer_form=answer_form(query.aspect),
        )
        return self._call(prompt, run, "reason")


PLAN_MAX_TOKENS = 200  # at most 5 short steps
ANSWER_MAX_TOKENS = 512  # the quoted facts and the answer


class GroundedFact(BaseModel):
    """One fact a step of the plan needs, as the record states it."""

    record: str = Field(description="the record's label, e.g. E1")
    fact: str = Field(description="the fact, quoted from that record")


class GroundedAnswer(BaseModel):
    """The adaptive reasoner's reply: the grounded facts, then the answer.

    No string pattern or length is in the schema: llama.cpp's grammar compiler rejected the
    pattern, and its server process then died; a length bound compiles to a grammar rule nested
    once per character. The reply limit (``ANSWER_MAX_TOKENS``) bounds the reply instead.
    """

    facts: list[GroundedFact] = Field(max_length=5)
    answer: str

    def as_text(self) -> str:
        """The reply as the reasoners' text: "Facts:" lines, then the "Answer:" line."""
        lines = ["Facts:"]
        for fact in self.facts:
            label = fact.record.strip().strip("[]")
            # only a label of the evidence ("E2") cites a record
            lines.append(f"[{label}] {fact.fact}" if re.fullmatch(r"E\d+", label) else fact.fact)
        if not self.facts:
            lines.append("no evidence")
        return "\n".join([*lines, f"Answer: {self.answer}"])


class AdaptiveReasoner(LLMReasoner):
    """Plan a reasoning prototype per kind of question, then ground and execute it (one call,
    plus one plan per kind the first time it is met)."""

    name = "adaptive"
    use_prototype = True
    use_grounding = True

    def __init__(self, llm: LLM, finder: MentionFinder | None = None) -> None:
        super().__init__(llm, finder)
        self._plans: dict[str, str] = {}  # aspect -> prototype, for this reasoner's life

    def _plan(self, aspect: str, run: _Run) -> str:
        """The prototype for questions of kind ``aspect``: planned once, then reused (it reads
        neither the question nor the evidence, so every question of the kind shares it)."""
        if aspect in self._plans:
            run.steps.append({"step": "plan", "output": self._plans[aspect], "reused": True})
            return self._plans[aspect]
        plan = self._call(
            render("reasoning/adaptive_plan", aspect=aspect), run, "plan", PLAN_MAX_TOKENS
        )
        self._plans[aspect] = plan
        return plan

    def _reason(self, query, evidence, run):
        evidence_text = format_evidence(evidence, query.aspect)
        aspect = query.aspect.value if query.aspect else "unknown"
        if not self.use_prototype:
            prompt = render(
                "reasoning/adaptive_ground_execute_no_plan",
                question=query.question,
                evidence=evidence_text,
                answer_form=answer_form(query.aspect),
            )
            return self._call_grounded(prompt, run, "ground+execute")
        plan = self._plan(aspect, run)
        template = (
            "reasoning/adaptive_ground_execute"
            if self.use_grounding
            else "reasoning/adaptive_execute_no_grounding"
        )
        prompt = render(
            template,
            question=query.question,
            plan=plan,
            evidence=evidence_text,
            answer_form=answer_form(query.aspect),
        )
        if self.use_grounding:
            return self._call_grounded(prompt, run, "ground+execute")
        return self._call(prompt, run, "execute", ANSWER_MAX_TOKENS)


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
