"""Rule-based question parsing (no LLM): mentions + aspect + implied roles -> QueryTuple."""

from __future__ import annotations

from collections import Counter

from chemground.chem.mentions import MentionFinder
from chemground.chem.names import NameResolver
from chemground.reasoning.aspects import classify_aspect, mask_mentions
from chemground.reasoning.query import Aspect, QueryMention, QueryTuple
from chemground.reasoning.roles import infer_roles


class RuleParser:
    """Parses questions with the mention finder and the aspect/role rules."""

    name = "rules"

    def __init__(self, resolver: NameResolver, fuzzy=None) -> None:
        self.finder = MentionFinder(resolver, fuzzy)

    def parse(self, question: str) -> QueryTuple:
        text = " ".join(question.split())
        mentions = self.finder.find(text)
        masked = mask_mentions(text, [(m.start, m.end) for m in mentions])
        aspect = classify_aspect(masked)
        problems: list[str] = []
        resolved = [m for m in mentions if m.resolved]
        if aspect is None and resolved and masked.strip(" ?.!") == "x":
            aspect = Aspect.DESCRIPTION  # the question is just a compound: show what we know
        if aspect == Aspect.NAME_TO_SMILES and resolved and all(m.input_format == "smiles" for m in resolved):
            aspect = Aspect.SMILES_TO_NAME  # "what is the SMILES CCO?" means: what is this SMILES
        if aspect is None:
            problems.append(
                "could not tell what the question asks for; ask about a product, reactants, solvent, catalyst, "
                "temperature, time, yield, conditions, molecular weight, formula, SMILES, IUPAC name, synonyms, "
                "description, similar compounds or the reactions of a compound"
            )
        for m in mentions:
            if not m.resolved:
                problems.append(f"{m.text!r} looks like a compound but could not be resolved: {m.reason}")
        if not resolved:
            problems.append("no compound in the question could be resolved (try a name, SMILES, InChI or CAS number)")
        query_mentions = [QueryMention.from_mention(m) for m in mentions]
        for mention, role in zip(query_mentions, infer_roles(text, query_mentions, aspect)):
            mention.role = role
        formats = Counter(m.input_format for m in mentions if m.resolved)
        input_format = None
        if formats:
            input_format = formats.most_common(1)[0][0] if len(formats) == 1 else "mixed"
        return QueryTuple(
            question=question, level=aspect.level if aspect else ("reaction" if len(resolved) > 1 else "compound"),
            aspect=aspect, mentions=query_mentions, input_format=input_format, problems=problems, parser=self.name,
        )
