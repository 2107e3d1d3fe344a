"""'Which copper co-catalyst ...?', 'besides DCM, which solvent ...?': words that shape the answer.

In "which carbodiimide do you use to couple A with B?", "which Pd catalyst for the Suzuki
coupling of A with B?" or "which azodicarboxylate is used in a Mitsunobu reaction?" the word
after "which" resolves to a compound (carbodiimide, palladium, the azodicarboxylate dianion),
but the question does not ask for reactions holding that compound: it asks for the participant
of a role that is one of its kind. Read as a compound to match, it made every record "lack" it
and the answer fell back to a partial match. Here it is taken out of the compounds to match and
kept as a filter on the role's participants: a metal or other single atom means "contains that
element"; a larger structure means "contains it as a substructure" (charges aside).

"Besides DCM, what solvent can I use for a Boc deprotection?" names DCM to leave it out; read
as a compound to match, it was the answer. Such a compound is taken out of the compounds to
match and out of the answer's participants.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from chemground.chem.mentions import Mention
from chemground.reasoning.query import Aspect, QueryMention

ROLE_ASPECTS = (Aspect.CATALYST, Aspect.REAGENT, Aspect.SOLVENT)

# "which Pd catalyst", and as a chemist asks it tersely: "usual Pd catalyst for a Suzuki?"
_WHICH_WORDS = r"which|what|usual|typical|standard|common|normal|default|go-to|preferred"
_WHICH = re.compile(rf"\b({_WHICH_WORDS})\b", re.IGNORECASE)
_WHICH_BEFORE = re.compile(rf"\b({_WHICH_WORDS})\s+((kind|type|sort|class) of\s+)?$", re.IGNORECASE)
# "which carbodiimide do you use", "which azodicarboxylate is used", "what borohydride is added"
_USED_AFTER = re.compile(
    r"^\s*((usually|typically|normally|commonly|best|generally)\s+)?"
    r"(is|are|was|were|do|does|did|should|would|can|could)\b[^?.]{0,40}?"
    r"\b(use|used|add|added|employ|employed|need|needed|required|take|chosen)\b",
    re.IGNORECASE,
)
_ROLE_NOUN_AFTER = re.compile(
    r"^[\s-]*(co-?catalysts?|catalysts?|pre-?catalysts?|salts?|sources?|reagents?|ligands?|"
    r"complex(es)?|species|reductants?|oxidants?|additives?)\b",
    re.IGNORECASE,
)
# "give the SMILES of the triazole formed": the product, described by its class
_PRODUCT_OF_THE = re.compile(
    r"\b(smiles|structure|formula|name|weight|mw|mass)( string| notation)? of (the\s+)?$",
    re.IGNORECASE,
)
_FORMED_AFTER = re.compile(
    r"^\s*(formed|obtained|produced|isolated|generated|that (forms|is formed|results))\b",
    re.IGNORECASE,
)
_FORMED = re.compile(r"\b(formed|obtained|produced|isolated|generated|forms|results)\b")
_WORD = re.compile(r"[A-Za-z]+")
_CLAUSE_END = re.compile(r"[,;:–—]|\s-\s|[.!?]\s")
# the kind named at the start of the question's last clause: "... 16 h – Pd source / ligand?"
_LAST_CLAUSE_START = re.compile(r"(^|[,;:–—]\s*|\s-\s*|[.!?]\s+)$")
_ENDS_WITH_ROLE_NOUN = re.compile(
    r"\b(sources?|catalysts?|ligands?|reagents?|salts?|complex(es)?)\s*(/\s*\w+\s*)?\??\s*$",
    re.IGNORECASE,
)
_CLOSING_ASK = re.compile(r"^\s*(/\s*\w+\s*)?\??\s*$")


def _metal_atom(mention) -> bool:
    """Whether a mention is one transition-metal atom or ion ("Pd", "[Pd+2]", "Cu")."""
    from chemground.chem.solvents import has_transition_metal

    smiles = mention.structure.smiles if mention.structure is not None else ""
    one_atom = re.fullmatch(r"\[?[A-Z][a-z]?(\+\d?|-\d?|\d?\+|\d?-)?\]?", smiles)
    return bool(one_atom) and has_transition_metal(smiles)


_FUNCTION_WORD = re.compile(
    r"\b(reducing agents?|reductants?|oxidi[sz]ing agents?|oxidants?|oxidi[sz]ers?)\b",
    re.IGNORECASE,
)
# "HATU coupling of X with Y - which base?": the base among the reagents (HATU was answered
# with DIPEA); "acid or base?" asks which of the two, not for a base
_BASE_WORD = re.compile(
    r"(?<=\bwhich )(\w+ )?bases?\b|(?<=\bwhat )(\w+ )?bases?\b|(?<=\bthe )bases?\b"
    r"|(?<!\bor )(?<!\band )\bbases?(?=\s*\??\s*$)"
    # "..., 1,4-dioxane, rt 2 h -> piperidin-4-amine. acid?": the acid among the reagents
    r"|(?<=\bwhich )acids?\b|(?<=\bwhat )acids?\b|(?<=[.:;,–—-] )acids?(?=\s*\??\s*$)",
    re.IGNORECASE,
)
_ROLE_OF_NOUN = {
    "catalyst": Aspect.CATALYST,
    "cocatalyst": Aspect.CATALYST,
    "co-catalyst": Aspect.CATALYST,
    "precatalyst": Aspect.CATALYST,
    "pre-catalyst": Aspect.CATALYST,
    "ligand": Aspect.CATALYST,
    "complex": Aspect.CATALYST,
}


def split_asked_kind(
    text: str, mentions: list[Mention], aspect: Aspect | None
) -> tuple[QueryMention | None, list[Mention], Aspect | None]:
    """The word that names the kind of participant asked for, the mentions left to match, and
    the aspect (a "which X is used" question with no role word asks for a reagent).

    The word is a resolved mention ("which copper co-catalyst") or a compound class of
    ``kb.functional_groups`` ("which carbodiimide": class names are not read as compounds). It
    is also read from a notebook line's closing words ("..., PhMe 100 °C – Pd source?"), from a
    product described by its class ("the SMILES of the triazole formed"), and from "which base"
    among the reagents (``chem.solvents.is_base``), or "acid?" (``is_acid``).

    Args:
        text: the question.
        mentions: its mentions, in order.
        aspect: the aspect the rules read.

    Returns:
        (the kind, or None; the mentions left to match; the aspect).
    """
    from chemground.kb.functional_groups import class_name

    function = _FUNCTION_WORD.search(text)
    if function and aspect in (Aspect.REAGENT, Aspect.CATALYST):
        # "what is the reducing agent in the nitration of benzene?": what the answer must do
        kind = QueryMention(
            text=function.group(0),
            start=function.start(),
            end=function.end(),
            input_format="class",
            resolved=False,
        )
        return kind, mentions, aspect
    described = aspect == Aspect.PRODUCT and _FORMED.search(text) is not None
    ends_with_role = _ENDS_WITH_ROLE_NOUN.search(text) is not None
    if not (_WHICH.search(text) or described or ends_with_role):
        return None, mentions, aspect  # every reading below needs "which" or "what"
    candidates: list[tuple[int, int, Mention | None]] = [
        (m.start, m.end, m) for m in mentions if m.resolved and m.structure is not None
    ]
    words = list(_WORD.finditer(text))
    for i, first in enumerate(words):
        for last in words[i : i + 2]:  # class names are one or two words
            start, end = first.start(), last.end()
            if class_name(text[start:end]) and not any(
                s < end and start < e for s, e, _ in candidates
            ):
                candidates.append((start, end, None))
    for start, end, mention in sorted(candidates, key=lambda c: c[0]):
        after = text[end:]
        if described and _PRODUCT_OF_THE.search(text[:start]) and _FORMED_AFTER.match(after):
            kind = (
                QueryMention.from_mention(mention)
                if mention is not None
                else QueryMention(
                    text=text[start:end], start=start, end=end, input_format="class", resolved=False
                )
            )
            return kind, [m for m in mentions if m is not mention], aspect
        noun = _ROLE_NOUN_AFTER.match(after)
        # "..., PhMe 100 °C 16 h – Pd source / ligand?": the notebook line's closing question
        closing = noun is not None and _CLOSING_ASK.match(after[noun.end() :]) is not None
        closing = (
            closing
            and not _CLAUSE_END.search(text[start:end])
            and bool(_CLAUSE_END.search(text[:start]) or start == 0)
            and not _CLAUSE_END.search(after[: noun.end()])
        )
        if not (
            _WHICH_BEFORE.search(text[:start])
            or (closing and _LAST_CLAUSE_START.search(text[:start]))
        ):
            continue
        used = _USED_AFTER.match(after)
        if not (noun or used):
            continue  # "what acetophenone reduction ...": the compound is the subject
        if aspect not in ROLE_ASPECTS or (closing and mention is not None):
            if aspect not in (None, Aspect.PRODUCT, Aspect.CONDITIONS, Aspect.REACTIONS) and not (
                closing and aspect in ROLE_ASPECTS
            ):
                continue  # "which benzaldehyde gives the best yield?": a compound asked about
            word = noun.group(1).lower().rstrip("s") if noun else ""
            aspect = _ROLE_OF_NOUN.get(word, Aspect.REAGENT)
            if word == "source" and mention is not None and _metal_atom(mention):
                aspect = Aspect.CATALYST  # "Pd source": the palladium precatalyst
                if re.match(r"\s*/\s*ligands?\b", after[noun.end() :], re.IGNORECASE):
                    # "Pd source / ligand?": the whole catalyst system, not only its palladium
                    return None, [m for m in mentions if m is not mention], aspect
        if mention is None:
            kind = QueryMention(
                text=text[start:end], start=start, end=end, input_format="class", resolved=False
            )
            return kind, mentions, aspect
        rest = [m for m in mentions if m is not mention]
        return QueryMention.from_mention(mention), rest, aspect
    base = _BASE_WORD.search(text) if aspect in (Aspect.REAGENT, Aspect.CATALYST) else None
    if base is not None and not re.search(r"\bacids? (or|and) bases?\b", text, re.IGNORECASE):
        kind = QueryMention(
            text=base.group(0),
            start=base.start(),
            end=base.end(),
            input_format="class",
            resolved=False,
        )
        return kind, mentions, aspect
    return None, mentions, aspect


@lru_cache(maxsize=256)
def _kind_query(kind_smiles: str):
    from rdkit import Chem
    from rdkit.Chem.MolStandardize import rdMolStandardize

    mol = Chem.MolFromSmiles(kind_smiles)
    if mol is None:
        return None, None
    mol = rdMolStandardize.Uncharger().uncharge(mol)
    heavy = [a for a in mol.GetAtoms() if a.GetAtomicNum() > 1]
    if len(heavy) == 1:
        return heavy[0].GetAtomicNum(), None
    return None, Chem.RemoveHs(mol)


@lru_cache(maxsize=64)
def _class_query(kind_text: str):
    from rdkit import Chem

    from chemground.kb.functional_groups import GROUPS, class_name

    name = class_name(kind_text)
    return Chem.MolFromSmarts(GROUPS[name]) if name else None


def of_kind(smiles: str | None, kind_smiles: str | None, kind_text: str = "") -> bool:
    """Is the participant ``smiles`` of the kind the question names?

    Args:
        smiles: the participant's SMILES (None: not of any kind).
        kind_smiles: the structure the kind word resolved to ("[Cu]", "N=C=N").
        kind_text: the word as written; a compound class of ``kb.functional_groups``
            ("carbodiimide", "phosphine") is matched by its SMARTS, since the dictionary's
            compound of that name is the parent (PubChem's "carbodiimide" is cyanamide).

    Returns:
        True when the participant is of the class, or contains the element (a one-atom kind)
        or the substructure.
    """
    from rdkit import Chem
    from rdkit.Chem.MolStandardize import rdMolStandardize

    if not smiles:
        return False
    if re.search(r"\bbases?$", kind_text.strip(), re.IGNORECASE):
        from chemground.chem.solvents import is_base

        return is_base(smiles)
    if re.search(r"\bacids?$", kind_text.strip(), re.IGNORECASE):
        from chemground.chem.solvents import is_acid

        return is_acid(smiles)
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return False
    pattern = _class_query(kind_text.strip().lower()) if kind_text else None
    if pattern is not None:
        return mol.HasSubstructMatch(pattern)
    if kind_smiles is None:
        return False
    element, query = _kind_query(kind_smiles)
    if element is not None:
        return any(atom.GetAtomicNum() == element for atom in mol.GetAtoms())
    if query is None:
        return False
    return rdMolStandardize.Uncharger().uncharge(mol).HasSubstructMatch(query)


def only_kind(
    record: dict[str, Any], kind_smiles: str | None, kind_text: str = ""
) -> dict[str, Any]:
    """``record`` with its solvents, catalysts and reagents cut to those of the kind asked.

    Args:
        record: a reaction record (as the KB's evidence carries it).
        kind_smiles: the kind's structure (None for a class named by its word); None with no
            ``kind_text`` returns the record unchanged.
        kind_text: the kind as written (see :func:`of_kind`).

    Returns:
        A shallow copy with the role lists filtered (the record itself is not changed).
    """
    if kind_smiles is None and not kind_text:
        return record
    out = _filtered_roles(record, lambda p: of_kind(p.get("smiles"), kind_smiles, kind_text))
    if not out["reagents"] and not out["catalysts"]:
        # "the oxidant in the epoxidation of styrene": mCPBA is filed as a co-reactant (a base
        # filed as the catalyst, piperidine in a Knoevenagel, is no reason to look there)
        out["reagents"] = [
            p
            for p in record.get("reactants") or []
            if of_kind(p.get("smiles"), kind_smiles, kind_text)
        ]
    return out


_EXCLUDING_BEFORE = re.compile(
    r"\b(besides|other than|apart from|aside from|except(?: for)?|excluding|instead of|rather "
    r"than|alternatives? (?:to|for)|in place of|substitutes? for|replacements? for|not|"
    # "swapping 2,6-lutidine for sym-collidine", "replacing DCM with ...": the one set aside
    r"swap(?:ping)?(?: out)?|replac(?:e|ing))\s+"
    # ("not racemic ibuprofen's key": the form set aside)
    r"(?:the |a |an |using |with )?(?:(?:racemic|plain|regular|ordinary|anhydrous) )?$",
    re.IGNORECASE,
)


# what a compound was replaced by, for a question of a reaction's condition or outcome
_REPLACED_BEFORE = re.compile(
    r"\b(instead of|rather than|in place of)\s+(?:the |a |an |using )?$", re.IGNORECASE
)


def split_excluded(
    text: str, mentions: list[Mention], aspect: Aspect | None
) -> tuple[list[QueryMention], list[Mention]]:
    """The mentions the question names to leave out of a role answer ("besides DCM"), and the
    mentions left to match.

    Args:
        text: the question.
        mentions: its mentions, in order.
        aspect: the aspect the rules read; role questions leave compounds out of the answer,
            and a fact of a compound is not asked of one the question sets aside ("molar mass
            of X (the free base, not the besylate salt)") when it names another; a question of
            another reaction aspect does not match the compound another replaced ("in MeCN
            instead of CCl4").

    Returns:
        (the excluded mentions, the others).
    """
    compound_fact = aspect is not None and aspect.level == "compound"
    before = _EXCLUDING_BEFORE
    if aspect not in ROLE_ASPECTS and not compound_fact:
        if aspect is None or aspect.level != "reaction":
            return [], mentions
        # "NBS/AIBN in MeCN instead of CCl4 – what temperature?": the record that ran it in
        # MeCN cannot also hold the CCl4 it replaced, so CCl4 is not matched
        before = _REPLACED_BEFORE
    excluded = [m for m in mentions if m.resolved and before.search(text[: m.start].rstrip() + " ")]
    if not excluded or (compound_fact and len(excluded) == len(mentions)):
        return [], mentions
    return (
        [QueryMention.from_mention(m) for m in excluded],
        [m for m in mentions if all(m is not e for e in excluded)],
    )


def without(record: dict[str, Any], excluded: list[QueryMention]) -> dict[str, Any]:
    """``record`` with the excluded compounds taken out of its solvents, catalysts and reagents.

    Args:
        record: a reaction record.
        excluded: the compounds the question leaves out (matched by InChIKey skeleton).

    Returns:
        A shallow copy with the role lists filtered (the record itself is not changed).
    """
    skeletons = {m.inchikey[:14] for m in excluded if m.inchikey}
    if not skeletons:
        return record
    return _filtered_roles(record, lambda p: participant_skeleton(p) not in skeletons)


def participant_skeleton(participant: dict[str, Any]) -> str | None:
    """The InChIKey skeleton (first block) of a record's participant, or None when its SMILES
    is missing or does not parse: how a question's compound and a record's participant meet
    whatever their salt or stereo form.

    Args:
        participant: a participant of a reaction record (``name``, ``smiles``).

    Returns:
        The 14-character connectivity key, or None.
    """
    from chemground.chem.structure import try_structure_from_smiles

    structure = try_structure_from_smiles(participant.get("smiles") or "")
    return structure.connectivity_key if structure is not None else None


def _filtered_roles(
    record: dict[str, Any], keep: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """A shallow copy of ``record`` whose solvents, catalysts and reagents are those ``keep``
    accepts (the record itself is not changed)."""
    out = dict(record)
    for key in ("solvents", "catalysts", "reagents"):
        out[key] = [p for p in record.get(key) or [] if keep(p)]
    return out


def product_class_asked(query):
    """The class of compound a reaction question wants made ("reagent to make an acid chloride
    from benzoic acid", "conditions to turn X into an amide"), when it is not the class of a
    compound the question names; else None.

    Args:
        query: the parsed question (a QueryTuple).

    Returns:
        The ``GroupQuestion`` (class, SMARTS, role PRODUCT) or None.
    """
    from chemground.kb.functional_groups import class_name, match_group_question
    from chemground.kb.records import Role

    if query.aspect in (None, Aspect.PRODUCT, Aspect.ROUTE, Aspect.REACTIONS, Aspect.REACTANTS):
        return None
    found = match_group_question(query.question, reaction_word=False)
    if found is None or found.role != Role.PRODUCT:
        return None
    if any(class_name(m.text) for m in query.mentions):
        return None  # the class word is itself a mention ("a boronic acid")
    return found


def makes_class(record: dict[str, Any], smarts: str) -> bool:
    """Whether a reaction record has a product with the class's substructure.

    Args:
        record: a reaction record (as the KB's evidence carries it).
        smarts: the class's SMARTS.

    Returns:
        True when one of its products matches.
    """
    from rdkit import Chem

    pattern = Chem.MolFromSmarts(smarts)
    for product in record.get("products") or []:
        mol = Chem.MolFromSmiles(product.get("smiles") or "")
        if mol is not None and pattern is not None and mol.HasSubstructMatch(pattern):
            return True
    return False
