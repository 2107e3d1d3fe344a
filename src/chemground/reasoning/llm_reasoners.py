"""LLM reasoners: direct, cot, rag-direct and the adaptive plan -> ground -> execute reasoner.

``adaptive`` makes three calls: (1) plan a reasoning prototype for this kind of question
without looking at the evidence, (2) ground each step of it in specific evidence records,
(3) execute the grounded plan to a concise final answer. The published ablations drop the
prototype (``adaptive-no-prototype``: ground, execute) or the grounding
(``adaptive-no-grounding``: plan, execute on raw evidence). ``rag-direct`` answers from the
evidence in one call with no reasoning steps; ``direct`` answers with no retrieval at all.
Every intermediate text is kept in the answer's trace.
"""

from __future__ import annotations

from typing import Any

from chemground.chem.mentions import MentionFinder
from chemground.evidence import Evidence
from chemground.llm.base import LLM, LLMError
from chemground.llm.prompts import load_prompt, render
from chemground.reasoning.extractive import Reasoned
from chemground.reasoning.query import QueryTuple
from chemground.reasoning.values import NOT_AVAILABLE, extract_value, final_answer

MAX_EVIDENCE_CHARS = 1500


def _participants(items: list[dict[str, Any]]) -> str:
    return "; ".join(f"{p.get('name') or ''} ({p.get('smiles') or 'no SMILES'})".strip() for p in items) or "none"


def format_evidence(evidence: list[Evidence]) -> str:
    """Evidence records as labelled text ([E1], [E2] ...) for a prompt."""
    if not evidence:
        return "(no evidence was retrieved)"
    blocks = []
    for i, e in enumerate(evidence, start=1):
        r = e.record
        if e.kind == "reaction":
            lines = [f"[E{i}] reaction {e.id} (source {r.get('source') or r.get('dataset') or '?'})",
                     f"  reactants: {_participants(r.get('reactants', []))}",
                     f"  products: {_participants(r.get('products', []))}",
                     f"  solvents: {_participants(r.get('solvents', []))}",
                     f"  catalysts: {_participants(r.get('catalysts', []))}",
                     f"  reagents: {_participants(r.get('reagents', []))}"]
            conditions = []
            if r.get("temperature_c") is not None or r.get("temperature_text"):
                conditions.append(f"temperature {r.get('temperature_c')} °C {r.get('temperature_text') or ''}".strip())
            if r.get("time_h") is not None:
                conditions.append(f"time {r['time_h']} h")
            if r.get("yield_percent") is not None:
                conditions.append(f"yield {r['yield_percent']}%")
            if conditions:
                lines.append("  " + "; ".join(conditions))
            if r.get("description"):
                lines.append("  text: " + r["description"][:MAX_EVIDENCE_CHARS])
        elif e.kind in ("compound", "computed"):
            names = [n for n in [r.get("iupac_name"), r.get("common_name"), *(r.get("synonyms") or [])[:5]] if n]
            lines = [f"[E{i}] compound {e.id}: {'; '.join(dict.fromkeys(names)) or r.get('name') or ''}",
                     f"  SMILES {r.get('smiles')}; formula {r.get('formula')}; "
                     f"molecular weight {r.get('molecular_weight')}; exact mass {r.get('exact_mass')}"]
            if r.get("description"):
                lines.append("  description: " + r["description"][:MAX_EVIDENCE_CHARS])
        else:
            lines = [f"[E{i}] {e.kind} {e.id}: {str(r.get('text') or r)[:MAX_EVIDENCE_CHARS]}"]
        lines.append(f"  (retrieved because: {e.why})")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


class LLMReasoner:
    """Base: prompts as files, one system message, the final answer read from ``Answer:``."""

    name = "llm"

    def __init__(self, llm: LLM, finder: MentionFinder | None = None) -> None:
        self.llm = llm
        self.finder = finder

    def _call(self, prompt: str, trace: list[dict[str, Any]], step: str) -> str:
        response = self.llm.chat([{"role": "system", "content": load_prompt("reasoning/system")},
                                  {"role": "user", "content": prompt}])
        trace.append({"step": step, "prompt": prompt, "output": response.text, "model": response.model,
                      "cached": response.cached, "tokens": response.usage.total_tokens})
        if not response.text.strip():
            raise LLMError(f"the model ({self.llm.model}) returned an empty reply at the {step} step")
        return response.text

    def _finish(self, query: QueryTuple, evidence: list[Evidence], text: str, steps: list[dict[str, Any]]) -> Reasoned:
        answer = final_answer(text)
        value = extract_value(query.aspect, text, self.finder)
        declined = bool(NOT_AVAILABLE.search(answer))
        cited = [evidence[i - 1].citation() for i in range(1, len(evidence) + 1) if f"[E{i}]" in text]
        return Reasoned(answer, value, "no_evidence" if declined else "answered", cited,
                        trace={"steps": steps, "model": self.llm.model, "scripted": not self.llm.is_real_model})

    def reason(self, query: QueryTuple, evidence: list[Evidence]) -> Reasoned:  # pragma: no cover - abstract
        raise NotImplementedError


class DirectReasoner(LLMReasoner):
    name = "direct"

    def reason(self, query, evidence):
        steps: list[dict[str, Any]] = []
        text = self._call(render("reasoning/direct", question=query.question), steps, "answer")
        return self._finish(query, [], text, steps)


class RagDirectReasoner(LLMReasoner):
    name = "rag-direct"

    def reason(self, query, evidence):
        steps: list[dict[str, Any]] = []
        prompt = render("reasoning/rag_direct", question=query.question, evidence=format_evidence(evidence))
        return self._finish(query, evidence, self._call(prompt, steps, "answer"), steps)


class CoTReasoner(LLMReasoner):
    name = "cot"

    def reason(self, query, evidence):
        steps: list[dict[str, Any]] = []
        prompt = render("reasoning/cot", question=query.question, evidence=format_evidence(evidence))
        return self._finish(query, evidence, self._call(prompt, steps, "reason"), steps)


class AdaptiveReasoner(LLMReasoner):
    """Plan a reasoning prototype, ground it in the evidence, execute (three calls)."""

    name = "adaptive"
    use_prototype = True
    use_grounding = True

    def reason(self, query, evidence):
        steps: list[dict[str, Any]] = []
        evidence_text = format_evidence(evidence)
        aspect = query.aspect.value if query.aspect else "unknown"
        plan = "(no plan: answer from the facts)"
        if self.use_prototype:
            plan = self._call(render("reasoning/adaptive_plan", question=query.question, aspect=aspect), steps, "plan")
        if self.use_grounding:
            if self.use_prototype:
                prompt = render("reasoning/adaptive_ground", question=query.question, plan=plan, evidence=evidence_text)
            else:
                prompt = render("reasoning/adaptive_ground_no_plan", question=query.question, evidence=evidence_text)
            grounding = self._call(prompt, steps, "ground")
            prompt = render("reasoning/adaptive_execute", question=query.question, plan=plan, grounding=grounding)
        else:
            prompt = render("reasoning/adaptive_execute_no_grounding", question=query.question, plan=plan,
                            evidence=evidence_text)
        return self._finish(query, evidence, self._call(prompt, steps, "execute"), steps)


class AdaptiveNoPrototype(AdaptiveReasoner):
    name = "adaptive-no-prototype"
    use_prototype = False


class AdaptiveNoGrounding(AdaptiveReasoner):
    name = "adaptive-no-grounding"
    use_grounding = False


LLM_REASONERS = {cls.name: cls for cls in (DirectReasoner, RagDirectReasoner, CoTReasoner, AdaptiveReasoner,
                                          AdaptiveNoPrototype, AdaptiveNoGrounding)}
