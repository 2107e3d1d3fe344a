"""Rule-based question parsing (no LLM): mentions + aspect + implied roles -> QueryTuple."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

from chemground.chem.mentions import FACT_OF, MAX_MENTIONS, Mention, MentionFinder
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
from chemground.reasoning.class_reference import compound_referred_by_class
from chemground.reasoning.query import Aspect, QueryMention, QueryTuple
from chemground.reasoning.question_text import (
    class_named_by_parent,
    clause_span,
    holds_structure,
    medium_mentions,
    mentions_not_asked,
    one_step_named,
    precursor_mentions,
    process_reagents,
    protected_names_joined,
    reaction_smiles_in_words,
)
from chemground.reasoning.roles import infer_roles
from chemground.reasoning.salt_forms import NO_RECORD, is_form_word, mark_salt_forms


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
            and (
                # an identifier, or a systematic name: "5-benzylidene Meldrum's acid
                # (5-benzylidene-2,2-dimethyl-1,3-dioxane-4,6-dione)" is not Meldrum's acid
                (
                    second.input_format in ("smiles", "cas", "inchikey", "inchi", "iupac")
                    and first.input_format not in ("smiles", "cas", "inchikey", "inchi")
                )
                # or the abbreviation of a misspelt name: "methyl isobuthyl ketone (MIBK)" was
                # corrected to diisobutyl ketone
                or (
                    first.resolved_by == "fuzzy"
                    and second.resolved_by not in ("fuzzy", "")
                    and _ABBREVIATION.fullmatch(second.text)
                )
            )
            and first.structure is not None
            and second.structure is not None
            and first.structure.inchikey != second.structure.inchikey
        ):
            drop.add(id(first))
            notes.append(
                f"read {first.text!r} as the compound its bracketed "
                f"{'abbreviation' if second.input_format == 'common_name' else second.input_format}"
                f" {second.text!r} gives"
            )
    return [m for m in mentions if id(m) not in drop], notes


# "diazepam (the benzodiazepine)", "temazepan (a benzodiazepine, Restoril)": what the compound
# is, in brackets after it (benzodiazepine's own weight was compared with diazepam's)
_DESCRIPTION_OPENS = re.compile(
    # "(an excess of Z)", "(a solution in THF)" give a participant, not what the compound is
    r"\s*\(\s*(?:the|a|an)\s+(?:(?!(?:of|with|in|and|or|excess|solution|mixture)\b)[\w-]+\s+){0,2}",
    re.IGNORECASE,
)


# "technical nonylphenol (the branched isomer mixture)", "xylene (mixed isomers)": a mixture
_MIXTURE_AFTER = re.compile(
    r"^\s*\((?:the\s+|a\s+)?[^()]{0,30}\b(?:mixture|mixed isomers|isomers)\b[^()]{0,20}\)",
    re.IGNORECASE,
)


def _named_as_mixture(text: str, mentions: list) -> list:
    """Mentions the question itself calls a mixture (of isomers), unresolved with that reason:
    "technical nonylphenol (the branched isomer mixture) smiles" was given one isomer's SMILES."""
    return [
        m.unresolved(
            f"the question calls {m.text!r} a mixture "
            f"{_MIXTURE_AFTER.match(text[m.end :]).group(0).strip()}: no single structure "
            "belongs to it"
        )
        if m.resolved and _MIXTURE_AFTER.match(text[m.end :])
        else m
        for m in mentions
    ]


def _described_in_brackets(text: str, mentions: list) -> tuple[list, list[str]]:
    """Mentions that open a bracketed description of the compound before them ("X (the
    benzodiazepine, ...)"): what X is, not a compound asked about. Returns the mentions kept and
    a note per mention left out."""
    from chemground.chem.names import names_no_one_compound

    drop, notes = set(), []
    for k, first in enumerate(mentions):
        # "aqua regia (3:1 HCl/HNO3) - molar mass?": the mixture's composition, in brackets
        opened = text.find("(", first.end)
        closed = text.find(")", opened) if opened >= 0 else -1
        if (
            names_no_one_compound(first.reason)
            and opened >= 0
            and not text[first.end : opened].strip()
            and closed > opened
        ):
            for inner in mentions[k + 1 :]:
                if opened < inner.start and inner.end <= closed:
                    drop.add(id(inner))
                    notes.append(f"read {inner.text!r} as part of {first.text!r}, not asked alone")
    for k, first in enumerate(mentions):
        # "2-[(phenylimino)methyl]phenol (salicylidene-aniline ligand)": another name of it,
        # with what it is for; the name alone is no second compound (a route to both failed)
        described = _NAMED_FOR.match(text, first.end)
        if described is None:
            continue
        for inner in mentions[k + 1 :]:
            if inner.start >= described.start(1) and inner.end <= described.end(1):
                drop.add(id(inner))
                notes.append(
                    f"read {inner.text!r} as another name of {first.text!r} (in brackets, "
                    "with what it is for), not as a compound asked about"
                )
    for first, second in pairwise(mentions):
        # "heavy lysine, L-lysine-13C6,15N2": the labelled form named again, exactly
        if (
            re.fullmatch(r"\s*[,:(]\s*", text[first.end : second.start])
            and first.structure is not None
            and second.structure is not None
            and first.structure.connectivity_key == second.structure.connectivity_key
            and first.structure.inchikey != second.structure.inchikey
            and re.search(r"\d[A-Z]|-d\d", second.text)
        ):
            drop.add(id(first))
            notes.append(f"read {first.text!r} as {second.text!r}, the labelled form named next")
    defined: dict[int, object] = {}
    for k, first in enumerate(mentions):
        # "the molar mass of the xanthene it makes? (the purine one, 3,7-dihydropurine-2,6-
        # dione)": the systematic name in brackets says which compound the name before means
        opened = text.find("(", first.end)
        if (
            opened < 0
            or opened - first.end > 25
            or first.resolved_by not in ("dictionary", "fuzzy")
            or first.structure is None
            or any(first.end <= m.start < opened for m in mentions)
        ):
            continue
        closed = text.find(")", opened)
        inner = [m for m in mentions[k + 1 :] if opened < m.start and 0 <= m.end <= closed]
        named = [m for m in inner if m.input_format == "iupac" and re.search(r"\d", m.text)]
        if (
            len(named) != 1
            or named[0].structure is None
            or named[0].structure.inchikey == first.structure.inchikey
            or not _SYSTEMATIC_SAYS.fullmatch(text[opened + 1 : named[0].start])
        ):
            continue
        drop.update(id(m) for m in inner)
        defined[id(first)] = replace(
            first,
            structure=named[0].structure,
            compound_id=named[0].compound_id,
            matched_name=named[0].text,
            resolved_by=named[0].resolved_by,
        )
        notes.append(
            f"read {first.text!r} as {named[0].text!r}, the systematic name the question gives "
            f"for it (the dictionary's {first.text!r} is {first.structure.smiles})"
        )
    for first, second in pairwise(mentions):
        if first.input_format != "smiles" and _DESCRIPTION_OPENS.fullmatch(
            text[first.end : second.start]
        ):
            drop.add(id(second))
            notes.append(
                f"read {second.text!r} as what {first.text!r} is (a description in brackets), "
                "not as a compound asked about"
            )
            if (
                _ABBREVIATION.fullmatch(first.text)
                and second.structure is not None
                and (
                    first.structure is None or first.structure.inchikey != second.structure.inchikey
                )
            ):
                # "the DCU (the dicyclohexylurea by-product)": the question says what its
                # abbreviation stands for; the dictionary's DCU is dicloralurea
                defined[id(first)] = replace(
                    first,
                    structure=second.structure,
                    compound_id=second.compound_id,
                    matched_name=second.matched_name or second.text,
                    resolved_by=second.resolved_by,
                    reason=None,
                    ambiguous=None,
                )
                filed = first.structure.smiles if first.structure else "unknown"
                notes.append(
                    f"read {first.text!r} as {second.text!r}, as the question defines it (the "
                    f"dictionary's {first.text!r} is {filed})"
                )
    return [defined.get(id(m), m) for m in mentions if id(m) not in drop], notes


# the word of an identifier the question gives, next to it: "(CAS 100-02-7)", "InChIKey
# AWJU...-N", "AWJU...-N? (InChIKey from our ELN)" (masked, the identifier is "x"); "the CAS
# number of x" elsewhere in the question still asks it
_ID_WORD = r"(?:inchi ?-?keys?|cas)(?:[\s-]*(?:no\.?|number|#|rn|reg\.?))?"
_IDENTIFIER_GIVEN = re.compile(
    rf"\b{_ID_WORD}\s*[:#=]?\s*x\b|\bx\b[?.,;:]?\s*\(\s*{_ID_WORD}\b", re.IGNORECASE
)
# a bracket after a compound that names it again with what it is: "(salicylidene-aniline
# ligand)", "(the para-amino acetanilide building block)"
_NAMED_FOR = re.compile(
    r"\s*\(\s*(?:the\s+|an?\s+|our\s+)?([^()]{2,60}?)\s+(?:ligand|building block|intermediate|"
    r"starting material|monomer|linker|scaffold|core|api|precursor|target|product)s?\s*\)",
    re.IGNORECASE,
)
# the words a fact is asked of when no compound was found there: an abbreviation or a name
# with capitals or digits ("TCEP hydrochloride"), not "it", "the product" or plain words
_UNKNOWN_ASKED = re.compile(
    r"\s*((?=[^\s]*[A-Z0-9])[A-Za-z0-9(),'-]{2,30}(?:\s+(?:hydrochloride|hydrobromide|"
    r"sodium salt|salt|hydrate|monohydrate|dihydrate|free base|free acid))?)\s*"
    r"(?:[?.!,;:]|$|\s+(?:for|in|please|pls|\())"
)
# "I think we got vanillic acid. whats its molar mass?": the fact asked of "it", in a sentence
# that names no compound
_FACT_OF_IT = re.compile(
    r"\b(?:its|it'?s)\s+(?:smiles|mw|mol(?:ecular|ar)\s+(?:weight|mass)|formula|cas(?: number)?|"
    r"iupac name|structure|inchi ?key|logp|tpsa|exact mass|monoisotopic mass|melting point|"
    r"boiling point|density)\b"
    r"|\b(?:smiles|mw|mol(?:ecular|ar)\s+(?:weight|mass)|formula|cas(?: number)?|logp|tpsa)"
    r"\s+(?:of|for)\s+it\b",
    re.IGNORECASE,
)


_MADE_BEFORE = re.compile(
    r"\b(got|get|obtained|made|isolated|formed|ended up with|end up with|is|was)\s+"
    r"(the\s+|some\s+)?$",
    re.IGNORECASE,
)


def _referred_by_pronoun(text: str, mentions: list) -> tuple[list, list[str]]:
    """The compound "its" points to: the last compound named before the sentence that asks a
    fact of "it" and names none ("we tried to oxidise vanillin with silver oxide and I think we
    got vanillic acid. whats its molar mass?": all three were compared). Returns the mentions
    kept and a note per mention left out."""
    found = _FACT_OF_IT.search(text)
    resolved = [m for m in mentions if m.resolved]
    if found is None or len(mentions) < 2:
        return mentions, []
    start, end = clause_span(text, found.start())
    if any(start <= m.start < end for m in mentions):
        return mentions, []  # "what's its MW, the caffeine's": the sentence names it
    named_before = [m for m in mentions if m.end <= start]
    if named_before and not any(m.resolved for m in named_before):
        # "aluminium isopropoxide, Al(OiPr)3 – what's its molar mass? (the aluminium
        # alkoxide)": what "it" is could not be resolved; no other compound is asked instead
        notes = [f"read {m.text!r} as context: 'it' is named before" for m in mentions]
        return named_before, [n for m, n in zip(mentions, notes) if m not in named_before]
    before = [m for m in resolved if m.end <= start]
    if not before:
        return mentions, []
    chosen = before[-1]
    own_start, own_end = clause_span(text, chosen.start)
    alone = not any(own_start <= m.start < own_end for m in mentions if m is not chosen)
    if not (alone or _MADE_BEFORE.search(text[max(0, chosen.start - 30) : chosen.start])):
        return mentions, []  # "I have caffeine and aspirin. what is its MW?": which one?
    notes = [
        f"read {m.text!r} as context: 'it' is {chosen.text!r}, the compound named last"
        for m in mentions
        if m is not chosen
    ]
    return [chosen], notes


# what lies between a name and the systematic name in brackets that says which compound it means:
# "xanthene it makes? (the purine one, ", "X (i.e. ", "X (= "
_SYSTEMATIC_SAYS = re.compile(
    r"\s*(?:(?:the|a)\s+[\w-]+(?:\s+[\w-]+)?\s+one,?|i\.?e\.?,?|aka|=|that is,?)\s*",
    re.IGNORECASE,
)
# a name that may be a part of another compound's name: an anion or salt word ("the
# hydrochloride", "the bromoacetate"), not a whole compound's name ("xanthine" is held by uric
# acid named in another clause, and is still the one asked)
_PART_NAME = re.compile(r"(?:ate|ide|ite|ium)$", re.IGNORECASE)
# an abbreviation a question may define in brackets: "DCU", "TBAF", "HOBt", "NMO"
_ABBREVIATION = re.compile(r"(?=(?:[a-z]*[A-Z]){2})[A-Z][A-Za-z]{1,7}")


# "IPA (the aromatic diacid)": a class the question gives a name; the name's usual compound
# (isopropanol) is not of it, so the name means another compound here (isophthalic acid)
_DESCRIBED_AS = re.compile(
    r"^\s*\(\s*(?:the |an? |its )?(?P<adjective>aromatic |aliphatic )?(?P<group>diacid|"
    r"dicarboxylic acid|carboxylic acid|amine|alcohol|diol|ester|ketone|aldehyde|amide|phenol)s?"
    r"\s*\)",
    re.IGNORECASE,
)
_GROUP_OF_DESCRIPTION = {
    "diacid": ("carboxylic acid", 2),
    "dicarboxylic acid": ("carboxylic acid", 2),
    "carboxylic acid": ("carboxylic acid", 1),
    "diol": ("alcohol", 2),
}


def _described_otherwise(text: str, mentions: list) -> list:
    """Mentions whose compound is not of the class the question describes it as ("IPA (the
    aromatic diacid)": isopropanol was answered), made unresolved with why; every mention of
    the same name goes with it."""
    from rdkit import Chem

    from chemground.kb.functional_groups import GROUPS

    wrong: dict[str, str] = {}
    for m in mentions:
        found = _DESCRIBED_AS.match(text[m.end :])
        if not found or m.structure is None:
            continue
        group = found.group("group").lower()
        name, least = _GROUP_OF_DESCRIPTION.get(group, (group, 1))
        mol = Chem.MolFromSmiles(m.structure.smiles)
        if mol is None:
            continue
        count = len(mol.GetSubstructMatches(Chem.MolFromSmarts(GROUPS[name])))
        aromatic = any(a.GetIsAromatic() for a in mol.GetAtoms())
        adjective = (found.group("adjective") or "").strip().lower()
        if (
            count < least
            or (adjective == "aromatic" and not aromatic)
            or (adjective == "aliphatic" and aromatic)
        ):
            described = " ".join(filter(None, [adjective, group]))
            wrong[m.text] = (
                f"the question describes {m.text!r} as {'an' if described[0] in 'aeiou' else 'a'} "
                f"{described}, which {m.structure.smiles} (what the name usually means) is not; "
                "name the compound in full"
            )
    return [m.unresolved(wrong[m.text]) if m.text in wrong else m for m in mentions]


# "maleic anhydride, propylene glycol, IPA – SMILES of the IPA?", "we make 5-HMF from fructose –
# can you give me the SMILES of 5-(hydroxymethyl)furfural?": the fact asked of one compound is
# found by chem.mentions.FACT_OF
def _one_named_last(text: str, mentions: list) -> tuple[list, list[str]]:
    """The mentions of the compound a compound fact is asked of ("SMILES of the X"), when the
    question names others only as context: in another clause ("we make 5-HMF from fructose –
    SMILES of 5-(hydroxymethyl)furfural?": the SMILES of fructose was answered beside it), or
    listed before the same name asked again ("IPA, maleic anhydride, SMILES of the IPA?"). A
    note for each left out (said, not dropped)."""
    found = list(FACT_OF.finditer(text))
    if len(found) != 1:  # "SMILES of X and the MW of Y": two facts, each of its own compound
        return mentions, []
    asked_from = found[0].end()
    start, end = clause_span(text, asked_from)
    asked = [m for m in mentions if asked_from <= m.start and m.end <= end]
    others = [m for m in mentions if m not in asked]
    unknown = _UNKNOWN_ASKED.match(text, asked_from, end)
    if (
        not asked
        and others
        and unknown is not None
        # "formula for the SI", "CAS no. for the COSHH form": what the fact is for
        and re.search(r"\bof\s+(?:the\s+|that\s+|this\s+|our\s+|my\s+)?$", found[0].group(0))
        # (an abbreviation alone, "MW of the TMOF?", may stand for a name given before it)
        and re.search(r"[a-z]", unknown.group(1))
    ):
        # "switching from DTT to TCEP because DTT strips the nickel off – what's the molecular
        # weight of TCEP hydrochloride?": the compound asked is none the question resolved,
        # and nickel's weight had been given
        name = unknown.group(1).strip()
        missing = Mention(
            name,
            unknown.start(1),
            unknown.start(1) + len(name),
            "common_name",
            reason="no compound of that name is known here (it is in no dictionary, and OPSIN "
            "cannot read it)",
        )
        notes = [f"read {m.text!r} as context: the question asks about {name!r}" for m in others]
        return [missing], notes
    if (
        not asked
        or not others
        # "MW of Halvorsen's phosphine?": the name asked is not the mention found in it
        or text[asked_from : asked[0].start].strip()
        # "the sodium salt", "the monohydrate": a form of a compound named before (see
        # reasoning.salt_forms), not a compound of its own
        or any(is_form_word(m.text, text[m.end :]) for m in asked)
    ):
        return mentions, []
    names = {m.text.lower() for m in asked}
    listed_again = any(m.text.lower() in names for m in others)
    if not listed_again and (
        any(start <= m.start < end for m in others)  # "the MW of aspirin compared with caffeine"
        # "loperamide hydrochloride 2 mg – MW of the hydrochloride?", "tert-butyl bromoacetate –
        # MW of the bromoacetate?": a part named for the compound that holds it
        or any(
            _PART_NAME.search(m.text) and holds_structure(other, m)
            for m in asked
            for other in others
        )
    ):
        return mentions, []
    kept = asked + [m for m in others if m.text.lower() in names]
    notes = [
        f"read {m.text!r} as context: the question asks about {asked[0].text!r}"
        for m in others
        if m not in kept
    ]
    return sorted(kept, key=lambda m: m.start), notes


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

    def _salts_on_record(self, mentions: list) -> list:
        """The mentions of salts and hydrates built from their parent ("metformin HCl") with
        the dictionary's record of the same structure attached, when it has one: "CAS number
        of metformin HCl" had no CAS, though metformin hydrochloride's record holds it."""
        dictionary = getattr(self.finder.resolver, "dictionary", None)
        out = []
        for m in mentions:
            hits = (
                dictionary.lookup_structure(m.structure)
                if dictionary is not None and m.resolved_by == "salt_form" and m.structure
                else []
            )
            if hits and m.compound_id is None:
                notes = [
                    n.replace(
                        NO_RECORD,
                        f"; the knowledge base's record of it is {hits[0].matched_name!r}",
                    )
                    for n in m.notes
                ]
                m = replace(m, compound_id=hits[0].compound_id, notes=notes)
            out.append(m)
        return out

    def _mark_isomers(self, mentions: list[QueryMention], aspect: Aspect) -> None:
        """Each name without locants that may mean several positional isomers gets them
        ("logP of aminopyridine": 2-, 3- or 4-), for the answer to say which it is for. Not
        for a fact every isomer shares (a molecular weight)."""
        from chemground.chem.names import positional_isomers
        from chemground.reasoning.extractive import SAME_FOR_EVERY_ISOMER

        resolver = self.finder.resolver
        opsin = getattr(resolver, "opsin", None)
        if aspect in SAME_FOR_EVERY_ISOMER or opsin is None:
            return
        for mention in mentions:
            if (
                mention.resolved
                and mention.smiles
                and mention.input_format in ("common_name", "iupac")
                and mention.resolved_by in _NAMED_AS_WRITTEN
            ):
                name = mention.correction or mention.text
                mention.isomers = positional_isomers(
                    name, mention.smiles, opsin, getattr(resolver, "dictionary", None)
                )

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
        mentions = _named_as_mixture(text, mentions)
        mentions, described_as = _described_in_brackets(text, mentions)
        defined += described_as
        mentions = _described_otherwise(text, mentions)
        mentions, not_asked = mentions_not_asked(text, mentions)
        word_notes = word_notes + defined + not_asked
        counted = asked_element(text)
        if counted is not None:  # "how many hydrogens in hexane": the element is no compound
            start, end = counted[1]
            mentions = [m for m in mentions if m.end <= start or m.start >= end]
        masked = mask_mentions(text, [(m.start, m.end) for m in mentions])
        # greetings and thanks left out, and misspelt aspect words that are no English word
        # corrected ("Slovent and base for ..."), for the rules that read what is asked
        asked = correct_aspect_words(without_chatter(text), rare_only=True)
        masked = one_step_named(without_chatter(masked))
        aspect = first_asked(asked, _classify_before_aside(masked))
        if any(m.input_format in ("inchikey", "cas") for m in mentions):
            # "molar mass of AWJU...-N? (InChIKey from our ELN)": the identifier is given, so its
            # word names what was given, not what is asked (nor for the classifier below: "can
            # we post sodium azide (CAS 26628-22-8) by regular mail?" was read as asking the CAS)
            masked = _IDENTIFIER_GIVEN.sub(" x ", masked)
            if aspect in (Aspect.INCHIKEY, Aspect.CAS):
                aspect = first_asked(asked, classify_aspect(masked))
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
        if aspect is not None and aspect.level == "compound":
            mentions = [_as_material(m) for m in mentions]
            # "MW of the hydrochloride of X" is not X's; "HOBt·H2O" is one compound, the
            # hydrate, before the one asked is told from the others
            mentions, _ = mark_salt_forms(text, mentions)
            mentions = self._salts_on_record(mentions)
            mentions, context = _one_named_last(text, mentions)
            problems += context
            mentions, context = _referred_by_pronoun(text, mentions)
            problems += context
            mentions, media = medium_mentions(text, mentions)
            problems += media
            mentions, reagents = process_reagents(text, mentions)
            problems += reagents
            mentions, made_from = precursor_mentions(text, mentions)
            mentions, described = class_named_by_parent(text, mentions)
            mentions, referred = compound_referred_by_class(text, mentions)
            problems += made_from + described + referred
            resolved = [m for m in mentions if m.resolved]
        if aspect is None:
            # (a reaction question finds the salt's records through the parent compound, so
            # its mention stays resolved)
            mentions, _ = mark_salt_forms(text, mentions)
            mentions = self._salts_on_record(mentions)
            resolved = [m for m in mentions if m.resolved]
        kind, mentions, aspect = split_asked_kind(text, mentions, aspect)
        excluded, mentions = split_excluded(text, mentions, aspect)
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
        if aspect is not None and aspect.level == "compound":
            self._mark_isomers(query_mentions, aspect)
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


_NAMED_AS_WRITTEN = ("dictionary", "opsin", "fuzzy")


def _as_material(mention):
    """``mention`` unresolved when it names a material ("Raney nickel", "silica gel 60"): a
    compound's fact of it was answered for nickel or SiO2; a reaction question keeps it."""
    from chemground.chem.names import material_not_compound

    why = material_not_compound(mention.text) if mention.resolved else None
    return mention if why is None else mention.unresolved(why)
