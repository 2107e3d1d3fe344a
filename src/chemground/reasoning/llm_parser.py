"""LLM query parsing, with the rule-based parser as the fallback.

The model names the aspect, the level and the compounds (copied from the question) with
their roles; every compound is then resolved by the same resolver as the rules use. When
the reply is unusable (not JSON after one re-ask, an unknown aspect, compounds that are not
in the question or do not resolve) the rule-based QueryTuple is returned, and the trace says why.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, field_validator

from chemground.chem.mentions import Mention
from chemground.errors import ChemgroundError
from chemground.kb.records import Role
from chemground.llm.base import LLM, LLMError
from chemground.llm.prompts import render
from chemground.reasoning.parser import RuleParser
from chemground.reasoning.query import Aspect, QueryMention, QueryTuple


class _Compound(BaseModel):
    text: str
    role: Role | None = None

    @field_validator("role", mode="before")
    @classmethod
    def _role(cls, value: Any) -> Any:
        if value in (None, "", "null", "none", "unknown"):
            return None
        return Role.parse(str(value))


class _Parsed(BaseModel):
    aspect: Aspect
    level: str | None = None
    compounds: list[_Compound] = []


class LLMParser:
    """Parse with an LLM; fall back to ``RuleParser`` when its output is unusable."""

    name = "llm"

    def __init__(self, llm: LLM, rules: RuleParser) -> None:
        self.llm = llm
        self.rules = rules

    def parse(self, question: str) -> QueryTuple:
        rules = self.rules.parse(question)
        text = " ".join(question.split())

        def check(value: Any) -> _Parsed:
            parsed = _Parsed.model_validate(value)
            missing = [c.text for c in parsed.compounds if c.text not in text]
            if missing:
                raise ValueError(f"compounds not copied exactly from the question: {missing}")
            return parsed

        try:
            parsed, _response = self.llm.chat_json(
                [{"role": "user", "content": render("reasoning/parse", question=text)}],
                check=check,
                json_mode=True,
            )
        except (LLMError, ChemgroundError) as error:
            rules.parser = "rules (LLM parser fell back)"
            rules.problems.append(f"LLM parser output unusable, used the rules: {error}")
            return rules
        mentions = []
        unresolved = []
        for compound in parsed.compounds:
            start = text.find(compound.text)
            known = next(
                (
                    m
                    for m in rules.mentions
                    if m.start <= start < m.end or start <= m.start < start + len(compound.text)
                ),
                None,
            )
            if known is not None and known.resolved:
                mention = known.model_copy(update={"role": compound.role or known.role})
            else:
                try:
                    resolution = self.rules.finder.resolver.resolve(compound.text)
                except ChemgroundError as error:
                    unresolved.append(f"{compound.text!r}: {error}")
                    continue
                mention = QueryMention.from_mention(
                    Mention(
                        compound.text,
                        start,
                        start + len(compound.text),
                        resolution.input_format,
                        structure=resolution.structure,
                        compound_id=resolution.compound_id,
                        resolved_by=resolution.source,
                        matched_name=resolution.matched_name,
                    ),
                    compound.role,
                )
            mentions.append(mention)
        if not mentions or unresolved:
            rules.parser = "rules (LLM parser fell back)"
            reason = "; ".join(unresolved) if unresolved else "the model named no compound"
            rules.problems.append(f"LLM parser output unusable, used the rules: {reason}")
            return rules
        formats = {m.input_format for m in mentions}
        return QueryTuple(
            question=question,
            level=parsed.aspect.level,
            aspect=parsed.aspect,
            mentions=mentions,
            input_format=formats.pop() if len(formats) == 1 else "mixed",
            problems=[],
            parser=self.name,
        )
