"""Rule-based question parsing (no LLM): mentions + aspect + implied roles -> QueryTuple."""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from pathlib import Path

from chemground.chem.mentions import MAX_MENTIONS, MentionFinder
from chemground.chem.names import NameResolver
from chemground.errors import ChemgroundError, InputLimitError, control_character, preview
from chemground.reasoning.asked_kind import split_asked_kind, split_excluded
from chemground.reasoning.aspect_classifier import read_aspect
from chemground.reasoning.aspects import (
    classify_aspect,
    correct_aspect_words,
    first_asked,
    mask_mentions,
    without_chatter,
)
from chemground.reasoning.atom_counts import asked_element, counts_several_elements
from chemground.reasoning.query import Aspect, QueryMention, QueryTuple
from chemground.reasoning.roles import infer_roles
from chemground.reasoning.salt_forms import mark_salt_forms


def check_question(question: str, max_chars: int) -> str:
    """The question with its whitespace collapsed, or a ChemgroundError: empty, longer than
    ``max_chars`` characters (the setting ``max_question_chars``), or holding a control
    character or a lone surrogate (which no question needs and no JSON or terminal takes)."""
    if not isinstance(question, str):
        raise ChemgroundError(f"the question must be text, not {type(question).__name__}")
    if len(question) > max_chars:
        raise InputLimitError(
            f"the question is {len(question):,} characters; the limit is {max_chars:,} "
            "(setting max_question_chars, CHEMGROUND_MAX_QUESTION_CHARS)"
        )
    text = " ".join(question.split())
    if not text:
        raise ChemgroundError("the question is empty")
    bad = control_character(text)
    if bad:
        raise InputLimitError(f"the question {preview(text)} contains {bad}")
    return text


_PARTICLE = re.compile(r"(protons?|electrons?|H\+)", re.IGNORECASE)
_TRAILING_ASIDE = re.compile(r"\s*\([^()]*\)\s*[?.!]?\s*$")


def _classify_before_aside(masked: str) -> Aspect | None:
    """The aspect of the question read without a closing aside in brackets of five words or
    more, when that reading finds one: "molar mass of x? (InChIKey from our ELN export, the name
    column is empty)" asks for the molar mass (the InChIKey was answered); otherwise the whole
    question's aspect.

    Args:
        masked: the question with its compounds masked as "x".

    Returns:
        The aspect, or None when no rule reads either.
    """
    aside = _TRAILING_ASIDE.search(masked)
    # a short aside says what is asked ("how drug-like is x? (QED score)"); a clause is context
    if aside is not None and aside.start() > 0 and len(aside.group(0).split()) >= 5:
        before = classify_aspect(masked[: aside.start()])
        if before is not None:
            return before
    return classify_aspect(masked)


# "CCO.CC(=O)O>>CCOC(C)=O", "A.B>C>?": a reaction SMILES (reactants > agents > products)
_REACTION_SMILES = re.compile(r"(?<![^\s(\[])([^\s>]+)>([^\s>]*)>([^\s>]*)")


def _smiles_parts(sides: list[str]) -> list[list[str]] | None:
    from chemground.chem.structure import structure_from_smiles

    parts = [[part for part in side.split(".") if part] for side in sides]
    try:
        for part in (part for side in parts for part in side):
            structure_from_smiles(part)
    except ChemgroundError:
        return None
    return parts


# "N-Boc benzylamine", "O-TBS phenol": a protecting group written with its locant before a name
# names the protected compound; read apart, the group was dropped and the question answered for
# benzylamine. Joined ("N-Boc-benzylamine"), the name resolves (OPSIN) or stays unresolved, said.
_PROTECTED_NAME = re.compile(
    r"\b([NO]-(?:Boc|Cbz|Fmoc|Ts|Ms|Tf|Ac|Bz|Bn|TBS|TBDMS|TIPS|TES|TMS|PMB|MOM|THP|Tr|Piv|Alloc|"
    r"Troc|Teoc|SEM))\s+(?=[a-z0-9(])"
)


def protected_names_joined(text: str) -> str:
    """``text`` with a protecting group and its locant joined to the name after it ("N-Boc
    benzylamine" -> "N-Boc-benzylamine"), so the two are read as one compound.

    Args:
        text: the question.

    Returns:
        The question, each such pair joined by a hyphen.
    """
    return _PROTECTED_NAME.sub(r"\1-", text)


def reaction_smiles_in_words(text: str) -> str:
    """``text`` with each reaction SMILES spelled out as a reaction: "A.B>C>D" becomes
    "A + B -> D using C", and "A.B>>?" becomes "A + B -> ?".

    The mention finder reads molecules, not reactions: a whole reaction SMILES was one
    unresolvable word, and "A.B" one mixture. Spelled out, each molecule is a mention and the
    role words ("+", "->", "using") give each its role. A form whose parts are not all SMILES
    is left as written.

    Args:
        text: the question.

    Returns:
        The question, each reaction SMILES rewritten.
    """

    def spell(match: re.Match) -> str:
        reactants, agents, products = match.group(1, 2, 3)
        tail = ""
        while products and products[-1] in "?,;:.":  # the sentence's, not the SMILES'
            tail = products[-1] + tail
            products = products[:-1]
        parts = _smiles_parts([reactants, agents, products])
        if parts is None and products.endswith(")"):  # "(A>>B)": the bracket closes the text
            tail, products = ")" + tail, products[:-1]
            parts = _smiles_parts([reactants, agents, products])
        if parts is None:
            return match.group(0)
        words = " + ".join(parts[0]) + " -> " + (" + ".join(parts[2]) or "?")
        if parts[1]:
            words += " using " + ", ".join(parts[1])
        return words + (tail if parts[2] or not tail.startswith("?") else tail[1:])

    return _REACTION_SMILES.sub(spell, text) if ">" in text else text


# "PhCHO + vinylMgBr, THF, 0 °C, then sat. NH4Cl -> ?": the quench or work-up after the
# reaction, which a record does not list among its participants
_WORKUP_BEFORE = re.compile(
    r"(\b(quench(ed|ing)? (with|by|in(to)?)|work(ed)?[- ]?up (with|in|using)|poured (in)?to)\s+"
    r"({modifier})*"
    # "then sat. NH4Cl", "then 1 M HCl": an aqueous quench; "then TBAF" is a next step
    r"|\bthen\s+({modifier})+)$".format(
        modifier=r"(sat(urated)?|aq(ueous)?|dil(ute)?|conc(entrated)?|cold|ice-cold)\.?\s+"
        r"|\d+(\.\d+)?\s*m\s+"
    ),
    re.IGNORECASE,
)


def _workup_mentions(text: str, mentions: list) -> tuple[list, list[str]]:
    """Mentions of the quench or work-up ("then sat. NH4Cl", "quenched with water"), left out of
    the compounds a record must hold: the records list what reacted, not how it was worked up.
    Returns the mentions kept and a note per mention left out (said, not silently dropped)."""
    kept, notes = [], []
    for mention in mentions:
        if kept and _WORKUP_BEFORE.search(text[max(0, mention.start - 60) : mention.start]):
            notes.append(f"read {mention.text!r} as the work-up, not as a reaction participant")
        else:
            kept.append(mention)
    return kept, notes


# "benzaldehyde + acetone, aq NaOH - what's the product, benzalacetone or dibenzalacetone?": the
# compounds after the question are the answers offered, not compounds the record must hold
_OPTIONS_BEFORE = re.compile(r"([,:;–—]|\s-|\b(is it|either))\s*$", re.IGNORECASE)
_OPTION_JOIN = re.compile(r"\s*,?\s*(\bor\b|,)\s*", re.IGNORECASE)


def _answer_options(text: str, mentions: list) -> tuple[list, list[str]]:
    """The mentions with the trailing answers offered ("..., A or B?") left out, and a note
    naming them. Only when the question ends with them and names other compounds before."""
    if len(mentions) < 3 or not re.fullmatch(r"[\s?.!]*", text[mentions[-1].end :]):
        return mentions, []
    offered = [mentions[-1]]
    for mention in reversed(mentions[:-1]):
        if not _OPTION_JOIN.fullmatch(text[mention.end : offered[0].start]):
            break
        offered.insert(0, mention)
    while len(offered) > 2 and len(offered) >= len(mentions):
        offered.pop(0)  # "for isoamyl acetate, H2SO4 or HCl?": the first is what is asked about
    if (
        len(offered) < 2
        or len(offered) == len(mentions)
        or not any(re.search(r"\bor\b", text[a.end : b.start], re.I) for a, b in pairwise(offered))
        or not _OPTIONS_BEFORE.search(text[: offered[0].start])
    ):
        return mentions, []
    names = " or ".join(repr(m.text) for m in offered)
    note = f"read {names} as the answers offered, not as compounds the reaction must have"
    return mentions[: -len(offered)], [note]


def _defined_in_brackets(text: str, mentions: list) -> tuple[list, list[str]]:
    """Mentions without a name that a bracketed identifier or systematic name right after it
    defines: "the
    chloroformate (O=C(Cl)OCc1ccccc1) - MW?" asks about the SMILES's compound (the chloroformate
    anion was answered beside it). Returns the mentions kept and a note per name left out."""
    drop, notes = set(), []
    for first, second in pairwise(mentions):
        between = text[first.end : second.start]
        if (
            between.strip() == "("
            and text[second.end : second.end + 1] == ")"
            # an identifier, or a systematic name: "5-benzylidene Meldrum's acid
            # (5-benzylidene-2,2-dimethyl-1,3-dioxane-4,6-dione)" is not Meldrum's acid
            and second.input_format in ("smiles", "cas", "inchikey", "inchi", "iupac")
            and first.input_format not in ("smiles", "cas", "inchikey", "inchi")
            and first.structure is not None
            and second.structure is not None
            and first.structure.inchikey != second.structure.inchikey
        ):
            drop.add(id(first))
            notes.append(
                f"read {first.text!r} as the compound its bracketed {second.input_format} "
                f"{second.text!r} gives"
            )
    return [m for m in mentions if id(m) not in drop], notes


class RuleParser:
    """Parses questions with the mention finder and the aspect/role rules.

    Parsing takes time linear in the question's length, which is at most ``max_chars``
    characters (default: the setting ``max_question_chars``), and reads at most
    ``MAX_MENTIONS`` compound mentions.

    The aspect is read by the rules; a question no rule reads goes to the exemplar classifier
    (:mod:`chemground.reasoning.aspect_classifier`, its exemplar vectors cached under
    ``cache_dir``) unless ``aspect_classifier`` is False (default: the setting
    ``aspect_classifier``). Its decision is kept in ``QueryTuple.aspect_classifier``.
    """

    name = "rules"

    def __init__(
        self,
        resolver: NameResolver,
        fuzzy=None,
        max_chars: int | None = None,
        aspect_classifier: bool | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        self.finder = MentionFinder(resolver, fuzzy)
        self.max_chars = max_chars
        self.aspect_classifier = aspect_classifier
        self.cache_dir = cache_dir

    def parse(self, question: str) -> QueryTuple:
        max_chars = self.max_chars
        use_classifier = self.aspect_classifier
        if max_chars is None or use_classifier is None:
            from chemground.settings import get_settings

            settings = get_settings()
            max_chars = settings.max_question_chars if max_chars is None else max_chars
            if use_classifier is None:
                use_classifier = settings.aspect_classifier
        text = protected_names_joined(reaction_smiles_in_words(check_question(question, max_chars)))
        mentions, cut, word_notes = self.finder.find_detailed(text, MAX_MENTIONS)
        # "non-hydrogen atoms" (heavy atoms) names no compound
        mentions = [m for m in mentions if not re.fullmatch(r"non-?hydrogens?", m.text, re.I)]
        mentions, defined = _defined_in_brackets(text, mentions)
        mentions, workup = _workup_mentions(text, mentions)
        word_notes = word_notes + defined + workup
        counted = asked_element(text)
        if counted is not None:  # "how many hydrogens in hexane": the element is no compound
            start, end = counted[1]
            mentions = [m for m in mentions if m.end <= start or m.start >= end]
        masked = mask_mentions(text, [(m.start, m.end) for m in mentions])
        # greetings and thanks left out, and misspelt aspect words that are no English word
        # corrected ("Slovent and base for ..."), for the rules that read what is asked
        asked = correct_aspect_words(without_chatter(text), rare_only=True)
        masked = without_chatter(masked)
        aspect = first_asked(asked, _classify_before_aside(masked))
        if aspect in (Aspect.INCHIKEY, Aspect.CAS) and any(
            m.input_format in ("inchikey", "cas") for m in mentions
        ):
            # "molar mass of AWJU...-N? (InChIKey from our ELN)": the identifier is given, so its
            # word names what was given, not what is asked
            aspect = first_asked(
                asked,
                classify_aspect(re.sub(r"\b(inchi ?-?keys?|cas)\b", " ", masked, flags=re.I)),
            )
        problems: list[str] = []
        if aspect == Aspect.ATOM_COUNT and counted is None and counts_several_elements(text):
            aspect = Aspect.FORMULA  # "how many carbons and hydrogens does naphthalene have"
        elif aspect == Aspect.ATOM_COUNT and counted is None:
            aspect = None  # "how many carbons does the product have": not the compound named
            use_classifier = False
            problems.append(
                "could not tell which compound's atoms to count: the question counts those of a "
                "compound it does not name (a product, an isomer); ask about that compound by "
                "name or SMILES"
            )
        resolved = [m for m in mentions if m.resolved]
        if aspect is None and resolved and masked.strip(" ?.!") == "x":
            aspect = Aspect.DESCRIPTION  # the question is just a compound: show what we know
        decision = None
        if aspect is None and use_classifier:  # no rule reads it: the nearest exemplars may
            reading = read_aspect(masked, cache_dir=self.cache_dir)
            aspect, decision = reading.aspect, reading.decision
            if reading.note:
                problems.append(reading.note)
        if aspect is not None and aspect.level == "compound":
            particles = [m for m in mentions if _PARTICLE.fullmatch(m.text)]
            if particles and len(particles) < len([m for m in mentions if m.resolved]):
                # "the monoisotopic mass of spermidine, before adding the proton": an adduct's
                # proton is no second compound asked about (the two masses were compared)
                mentions = [m for m in mentions if m not in particles]
                problems.append(
                    f"read {particles[0].text!r} as part of the context, not a compound asked about"
                )
        if aspect is None or aspect.level == "compound":
            # "MW of the hydrochloride of X" is not X's; a reaction question finds the salt's
            # records through the parent compound, so its mention stays resolved
            mentions, _ = mark_salt_forms(text, mentions)
            resolved = [m for m in mentions if m.resolved]
        kind, mentions, aspect = split_asked_kind(text, mentions, aspect)
        excluded, mentions = split_excluded(text, mentions, aspect)
        if aspect is not None and aspect.level == "reaction":
            mentions, offered = _answer_options(text, mentions)
            problems += offered
        if (
            aspect == Aspect.NAME_TO_SMILES
            and resolved
            and all(m.input_format == "smiles" for m in resolved)
        ):
            aspect = Aspect.SMILES_TO_NAME  # "what is the SMILES CCO?" means: what is this SMILES
        if aspect is None and not (decision is not None and decision.out_of_scope):
            problems.append(
                "could not tell what the question asks for; ask about a product, reactants, "
                "solvent, catalyst, "
                "temperature, time, yield, conditions, molecular weight, formula, SMILES, IUPAC "
                "name, synonyms, "
                "description, similar compounds or the reactions of a compound"
            )
        for m in mentions:
            if (
                not m.resolved
            ):  # never dropped: QueryTuple.unresolved_mentions lists it for the answer
                problems.append(
                    f"{preview(m.text)} looks like a compound but could not be resolved: {m.reason}"
                )
        if cut:
            problems.append(
                f"the question holds more possible compound names than are read: {len(mentions)} "
                f"mention(s) read (at most {MAX_MENTIONS}, with a bounded number of name look-ups)"
            )
        if not resolved:
            problems.append(
                "no compound in the question could be resolved (try a name, SMILES, InChI or CAS "
                "number)"
            )
        problems += word_notes  # "read 'IM' as a word, not as a compound (...)": said, not guessed
        # how a mention was read when it is not the dictionary's record as written (a salt built
        # from its name, the stereoisomer a name asks for): the answer says so
        problems += [n for m in mentions if m.resolved for n in m.notes if n not in problems]
        query_mentions = [QueryMention.from_mention(m) for m in mentions]
        for mention, role in zip(query_mentions, infer_roles(text, query_mentions, aspect)):
            mention.role = role
        formats = Counter(m.input_format for m in mentions if m.resolved)
        input_format = None
        if formats:
            input_format = formats.most_common(1)[0][0] if len(formats) == 1 else "mixed"
        return QueryTuple(
            question=question,
            level=aspect.level if aspect else ("reaction" if len(resolved) > 1 else "compound"),
            aspect=aspect,
            mentions=query_mentions,
            input_format=input_format,
            problems=problems,
            parser=self.name,
            aspect_classifier=decision.to_json() if decision is not None else None,
            asked_kind=kind,
            excluded=excluded,
            asked=asked if asked != question else "",
        )
