"""The extractive reasoner (no LLM): read the answer off the evidence, or compute it.

Reaction aspects are read from the best-matching reaction (products, reactants, solvents,
catalysts, temperature, time, yield); compound aspects are read from the matched record or
computed exactly from the resolved structure (molecular weight, exact mass, formula, SMILES).
When the KB holds no evidence it says so plainly, and says what it found that is similar.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from chemground.chem.solvents import has_transition_metal, is_acid_base_or_lewis_acid
from chemground.evidence import Evidence
from chemground.reasoning.adducts import asked_ion, ion_sentence
from chemground.reasoning.asked_kind import (
    ROLE_ASPECTS,
    makes_class,
    only_kind,
    participant_skeleton,
    product_class_asked,
    without,
)
from chemground.reasoning.aspects import (
    COMPUTED_ASPECTS,
    KIND_OF_REACTION,
    LOOKED_UP_ASPECTS,
    also_asked,
    count_asked,
)
from chemground.reasoning.query import Aspect, QueryTuple
from chemground.reasoning.reaction_classes import (
    ClassMention,
    find_classes,
    indefinite_article,
    reaction_noun,
    without_class_words,
)
from chemground.routing import TOOL_ASPECTS

# a SMILES asked with its configuration: "isomeric SMILES", "with stereo", "(S)-configured"
_STEREO_ASKED = re.compile(
    r"\bisomeric\b|\bstereo\w*|\bchiral\w*|\bconfigurations?\b|\babsolute\b", re.IGNORECASE
)
# "what's the molecular weight of the product when ...", "formula of the product of ..."
_FACT_OF_PRODUCT = re.compile(
    r"\b(?P<fact>molecular weight|molar mass|mol\.? ?wt|mw|exact mass|monoisotopic mass|"
    r"molecular formula|formula)\b.{0,30}\b(?:(?:the )?(?:main |major )?products?\b|what "
    r"(?:do |would |will |did )?(?:i|you|we|one) (?:get|obtain|form)\b"
    r"|the (?:[\w-]+ ){1,2}(?:(?:we|i|you) )?(?:made|prepared|formed|obtained) from\b)"
    # "A + B -> ? MW please": the fact is named after the arrow
    r"|(?:->|→|=>)\s*\?\W*(?:\w+\s+){0,3}(?P<fact_after>molecular weight|molar mass|mw|exact mass|"
    r"monoisotopic mass|molecular formula|formula)\b",
    re.IGNORECASE,
)


def _unnamed_agents(query: QueryTuple, record: dict[str, Any]) -> list[str]:
    """The record's reagents and catalysts, when the question names none of its own.

    Args:
        query: the parsed question.
        record: the reaction record that answers it.

    Returns:
        The names of the record's agents when no compound of the question is an agent (by role
        or in the record); empty otherwise.
    """
    # an acid, a base or a metal catalyst left unnamed does not change what forms ("ethanol and
    # acetic acid" give ethyl acetate with any acid); a reagent such as NaBH4 or PCC does
    agents = [
        p
        for p in (record.get("reagents") or []) + (record.get("catalysts") or [])
        if p.get("smiles")
        and not is_acid_base_or_lewis_acid(p["smiles"])
        and not has_transition_metal(p["smiles"])
    ]
    if not agents:
        return []
    if any(m.role is not None and m.role.value in ("reagent", "catalyst") for m in query.mentions):
        return []
    asked = {m.inchikey[:14] for m in query.mentions if m.inchikey}
    if any(participant_skeleton(p) in asked for p in agents):
        return []  # "benzaldehyde and NaBH4": the question names one of them
    return [str(p.get("name") or p.get("smiles")) for p in agents]


def _only_as_agents(query: QueryTuple, evidence: Evidence) -> bool:
    """Whether no compound the question gives as a reactant (or in no role) is a reactant or
    product of the record: it holds them only as reagents, catalysts or solvents."""
    given = {
        m.inchikey[:14]
        for m in query.mentions
        if m.inchikey and (m.role is None or m.role.value == "reactant")
    }
    record = evidence.record
    held = {
        participant_skeleton(p)
        for key in ("reactants", "products")
        for p in record.get(key) or []
        if p.get("smiles")
    }
    return bool(given) and not given & held


def _unnamed_co_reactants(query: QueryTuple, record: dict[str, Any]) -> list[str]:
    """The record's reactants the question does not name, when it names a reactant of the
    record: a chemist counts them among the reagents ("benzyl bromide from benzyl alcohol -
    what reagents?": the Appel record files CBr4 as a reactant and PPh3 as a reagent).

    Args:
        query: the parsed question.
        record: the reaction record that answers it.

    Returns:
        Their names (empty when the question names no reactant of the record, or all of them).
    """
    from rdkit import Chem

    asked = {m.inchikey[:14] for m in query.mentions if m.inchikey}
    reactants = [p for p in record.get("reactants") or [] if p.get("smiles")]
    named = [p for p in reactants if participant_skeleton(p) in asked]
    if not named:
        return []
    products = [
        mol
        for p in record.get("products") or []
        if (mol := Chem.MolFromSmiles(p.get("smiles") or ""))
    ]

    def substrate(p: dict) -> bool:
        """Whether a product holds the whole reactant ("wich base for a Boc protection with Boc
        anhydride?": benzylamine is the substrate, not a reagent)."""
        mol = Chem.MolFromSmiles(p["smiles"])
        return mol is not None and any(product.HasSubstructMatch(mol) for product in products)

    return [
        str(p.get("name") or p.get("smiles"))
        for p in reactants
        if p not in named and not substrate(p)
    ]


def _product_fact(question: str, record: dict[str, Any]) -> tuple[str, Any] | None:
    """(text, value) of the fact the question asks of the reaction's product, or None.

    Args:
        question: the question as asked.
        record: the reaction record whose first product is the main one.

    Returns:
        "its molecular weight is 108.14 g/mol" and the number (or the formula), computed by
        RDKit from the product's SMILES; None when no fact of the product is asked.
    """
    from chemground.chem.structure import try_structure_from_smiles

    found = _FACT_OF_PRODUCT.search(question)
    products = record.get("products") or []
    if found is None or not products:
        return None
    main = products[0]
    structure = try_structure_from_smiles(main.get("smiles") or "")
    if structure is None:
        return None
    name = main.get("name") or structure.smiles
    fact = (found.group("fact") or found.group("fact_after")).lower()
    if "formula" in fact:
        return f"the molecular formula of {name} is {structure.formula}", structure.formula
    if "exact" in fact or "monoisotopic" in fact:
        mass = round(structure.exact_mass, 4)
        return f"the monoisotopic mass of {name} is {mass} Da", mass
    weight = round(structure.molecular_weight, 2)
    return f"the molecular weight of {name} is {weight:.2f} g/mol", weight


# what a dictionary record's name adds to a name that does not say which isomer it means:
# "xylene" -> "o-xylene", "butanol" -> "1-butanol", "2-butene" -> "trans-2-butene"
_ISOMER_PREFIX = re.compile(
    r"^(?:o|m|p|ortho|meta|para|n|sec|tert|t|iso|cis|trans|[\d,]+|\([ez]\)|\d+h)-$", re.IGNORECASE
)
# what a molecular formula fixes whichever isomer it names
SAME_FOR_EVERY_ISOMER = frozenset(
    {
        Aspect.MOLECULAR_WEIGHT,
        Aspect.EXACT_MASS,
        Aspect.FORMULA,
        Aspect.ATOM_COUNT,
        Aspect.HEAVY_ATOMS,
        Aspect.AMOUNT,
        Aspect.BALANCE,
    }
)


def several_structures(text: str) -> bool:
    """Is ``text`` a molecular formula that fits more than one compound ("C2H6O", "C6H12O6")?
    At least two carbons and three heavy atoms: "CO2", "H2O", "C2H6" name one compound."""
    from chemground.chem.mentions import formula_counts

    counts = formula_counts(text.strip())
    if not counts:
        return False
    heavy = sum(n for element, n in counts.items() if element != "H")
    return counts.get("C", 0) >= 2 and heavy >= 3


def unnamed_isomer_hedge(mention, chosen: str | None = None) -> tuple[str, str]:
    """(answer prefix, note) for a value computed for one of the positional isomers a name
    without locants may mean ("logP of aminopyridine": 2-, 3- or 4-aminopyridine); ``chosen``
    names that isomer when a record does ("1-butanol")."""
    others = ", ".join(mention.isomers)
    which = f"{chosen} ({mention.smiles})" if chosen else f"the isomer {mention.smiles}"
    return (
        f"(for {which}; {mention.text!r} gives no locant) ",
        f"{mention.text!r} gives no locant and may mean any of {len(mention.isomers)} positional "
        f"isomers ({others}); computed for {mention.smiles}, the one it was resolved to: ask "
        "with the locant for another",
    )


def _hedge_unnamed_isomer(query: QueryTuple, evidence: list[Evidence], reasoned: Reasoned):
    """``reasoned``, hedged when the name asked ("xylene", "cresol", "2-butene") does not say
    which isomer it means and the dictionary's record is one of them ("o-xylene"), or when a
    molecular formula fits several compounds ("C2H6O": ethanol or dimethyl ether).

    A formula or a molecular weight is the same for every isomer: the answer stands, with a
    note. A structure, a name or an identifier belongs to the isomer the dictionary chose, not
    to what was asked: the answer is given as ``partial``, saying which isomer it is for.
    """
    mentions = query.resolved_mentions
    if len(mentions) != 1 or reasoned.status != "answered":
        return reasoned
    exact = [e for e in evidence if e.match == "exact" and e.kind == "compound"]
    asked = mentions[0].text.strip().lower()
    name = str(exact[0].record.get("name") or "").strip() if exact else ""
    if len(mentions[0].isomers) > 1 and query.aspect not in SAME_FOR_EVERY_ISOMER:
        # "pinene smiles": the name means alpha- or beta-pinene, whatever record answered
        chosen = name if name and name.lower() != asked else None
        prefix, said = unnamed_isomer_hedge(mentions[0], chosen)
        reasoned.status = "partial"
        reasoned.answer = prefix + reasoned.answer
        reasoned.notes.append(said)
        return reasoned
    if not exact or mentions[0].resolved_by == "condensed formula":
        return reasoned  # "CH3COOCH2CH3" names one isomer, unlike "C4H8O2"
    if several_structures(mentions[0].text):  # "smiles of C2H6O": ethanol or dimethyl ether
        said = (
            f"the formula {mentions[0].text} fits more than one compound; the dictionary files "
            f"it under {name}"
        )
    elif name.lower().endswith(asked) and len(name) > len(asked):
        if not _ISOMER_PREFIX.match(name[: len(name) - len(asked)]):
            return reasoned
        said = f"{mentions[0].text!r} does not say which isomer it means; the record is {name}"
    else:
        return reasoned
    if query.aspect in SAME_FOR_EVERY_ISOMER:
        reasoned.notes.append(f"{said}, and the value is the same for each isomer")
        if several_structures(mentions[0].text) and name:
            # "MW of C6H12O6" is the formula's, not myo-inositol's (the record it is filed under)
            reasoned.answer = reasoned.answer.replace(name, mentions[0].text, 1)
        return reasoned
    reasoned.status = "partial"
    reasoned.answer = f"(for {name}; {mentions[0].text!r} does not name one compound) " + (
        reasoned.answer
    )
    reasoned.notes.append(said)
    return reasoned


def _offered_verdict(query: QueryTuple, record: dict[str, Any]) -> str | None:
    """What the record says of each compound a question offers or checks ("did it use Cs2CO3 or
    K2CO3?"): the role it has there, or that the record does not have it."""
    if not query.offered:
        return None
    roles = {}
    asked = CONDITION_KEYS.get(query.aspect)  # type: ignore[arg-type]
    # the role asked first: methanol of a Fischer esterification in methanol is its solvent
    keys = ("solvents", "catalysts", "reagents", "reactants", "products")
    for key in sorted(keys, key=lambda k: k != asked):
        for participant in record.get(key) or []:
            skeleton = participant_skeleton(participant)
            if skeleton is not None:
                roles.setdefault(skeleton, key[:-1])
    said = []
    for mention in query.offered:
        if not mention.inchikey:  # a name no resolver reads: nothing to check it against
            said.append(f"{mention.text!r}: not resolved to a structure, so not checked")
            continue
        role = roles.get(mention.inchikey[:14])
        said.append(f"{mention.text!r}: {'yes, as the ' + role if role else 'not in this record'}")
    if len(query.offered) == 1:
        return ("Yes" if "yes," in said[0] else "No") + f" ({said[0]})."
    return "Of the compounds asked about: " + "; ".join(said) + "."


# A record's facts asked together, keyed as the conditions value (``_read(Aspect.CONDITIONS)``)
# keys them (the product as "products"): a question asking several of them gets one value
# holding each.
CONDITION_KEYS = {
    Aspect.PRODUCT: "products",
    Aspect.SOLVENT: "solvents",
    Aspect.CATALYST: "catalysts",
    Aspect.REAGENT: "reagents",
    Aspect.TEMPERATURE: "temperature_c",
    Aspect.TIME: "time_h",
    Aspect.YIELD: "yield_percent",
}
_ABBREVIATION_ASKED = re.compile(r"\babbreviat|\bshort(hand)?[- ]names?\b|\bacronym", re.I)


@dataclass
class Reasoned:
    answer: str
    value: Any
    status: str
    citations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    trace: dict[str, Any] = field(default_factory=dict)


def _label(p: dict[str, Any]) -> str:
    name, smiles = p.get("name"), p.get("smiles")
    if name and smiles and name != smiles:
        return f"{name} ({smiles})"
    return name or smiles or "?"


def _temperature(record: dict[str, Any]) -> str | None:
    if record.get("temperature_c") is not None:
        text = f"{record['temperature_c']:g} °C"
        if record.get("temperature_text"):
            text += f" ({record['temperature_text']})"
        return text
    return record.get("temperature_text")


_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9 ,'()\[\]-]*")


def _typed_name(query: QueryTuple, record: dict) -> str | None:
    """The name the question gave for ``record``'s compound, when it is one of the record's own
    names, written out: the dictionary's display name can be a brand or another language's
    ("pepcid" for famotidine, "nikotin" for nicotine), and the chemist's word is the clearer
    one. Abbreviations, formulas, SMILES and corrected typos keep the record's name."""
    from chemground.chem.names import normalize_name

    for mention in query.resolved_mentions:
        text = mention.text.strip()
        if (
            mention.compound_id is not None
            and mention.compound_id == record.get("id")
            and mention.resolved_by == "dictionary"
            and not mention.correction
            and _PLAIN_NAME.fullmatch(text)
            and not text.isupper()
            and sum(c.isalpha() for c in text) >= 4
            # "nicotine" found as the record's "(-)-nicotine": the same name once normalized
            and normalize_name(mention.matched_name or "") == normalize_name(text)
        ):
            return text
    return None


class ExtractiveReasoner:
    """Answers read from the evidence records by rules, with no LLM.

    Args:
        opsin: OPSIN, to check a conventional IUPAC name among a record's synonyms (see
            ``chem.names.preferred_iupac_name``); None answers with the record's own name.
    """

    name = "extractive"

    def __init__(self, opsin=None) -> None:
        self.opsin = opsin

    def reason(self, query: QueryTuple, evidence: list[Evidence]) -> Reasoned:
        chunks = [e for e in evidence if e.kind == "chunk"]
        if chunks:
            return self._passages(chunks)
        by_class = [e for e in evidence if e.retriever == "structure"]
        if by_class:  # "which reactions use a boronic acid?" (retrieval.compound_classes)
            return self._class_of_compounds(query, by_class)
        if query.aspect is None:
            from chemground.routing import is_chemistry

            if not is_chemistry(query):
                return Reasoned(
                    "This question is out of scope: it names no compound, reaction or chemistry "
                    "property that the knowledge base, the tools or the papers could answer.",
                    None,
                    "not_understood",
                    notes=["out of scope"],
                )
            hint = (
                query.problems[0] if query.problems else "could not tell what the question asks for"
            )
            return Reasoned(f"I {hint}.", None, "not_understood")
        if query.aspect == Aspect.SAME_COMPOUND:
            from chemground.reasoning.identity import identity_answer

            return identity_answer(query, evidence)
        classes = find_classes(query.question)
        if classes:
            query = without_class_words(query, classes)
        tools = [e for e in evidence if e.kind == "tool_result"]
        if tools or (
            query.aspect in TOOL_ASPECTS
            and not any(e.kind in ("compound", "computed") for e in evidence)
        ):
            from chemground.reasoning.tool_answers import tool_answer
            from chemground.retrieval.tools import unresolved_mentions

            return tool_answer(query, tools, [m.text for m in unresolved_mentions(query)])
        if classes and query.level == "reaction" and query.aspect != Aspect.ROUTE:
            return self._reaction(query, evidence, classes)
        if not query.resolved_mentions:
            problems = "; ".join(query.problems) or "no compound was recognised"
            similar = self._similar_note(evidence)
            return Reasoned(
                f"I could not identify the compound(s) in the question: {problems}.{similar}",
                None,
                "not_understood",
            )
        if query.level == "reaction":
            return self._reaction(query, evidence, classes)
        reasoned = _hedge_unnamed_isomer(query, evidence, self._compound(query, evidence))
        for other in also_asked(query.question, query.aspect):
            if other in COMPUTED_ASPECTS or other in LOOKED_UP_ASPECTS:
                continue  # the tool channel computes or looks it up: QA.ask adds it
            # "the SMILES and MW of paracetamol": each fact from the same record
            more = self._compound(query.model_copy(update={"aspect": other}), evidence)
            reasoned.answer += " " + more.answer
            reasoned.citations += [c for c in more.citations if c not in reasoned.citations]
            if more.status != "answered" and reasoned.status == "answered":
                reasoned.status = "partial"
        unresolved = [m.text for m in query.mentions if not m.resolved]
        if unresolved and reasoned.status == "answered":
            reasoned.status = "partial"
            reasoned.notes.append(
                "could not resolve "
                + ", ".join(repr(u) for u in unresolved)
                + " to a compound; the answer is about the compound(s) that were resolved"
            )
            reasoned.answer += " (Not resolved: " + ", ".join(repr(u) for u in unresolved) + ".)"
        return reasoned

    @staticmethod
    def _passages(chunks: list[Evidence], snippets: int = 3) -> Reasoned:
        """Literature passages: the best sentences of the top chunks, each cited."""
        lines = []
        for e in chunks[:snippets]:
            text = " ".join(str(e.record.get("snippet") or e.record.get("text") or "").split())
            where = e.record.get("title") or e.record.get("path", "")
            lines.append(f"{text} [{e.id}{', ' + str(where) if where else ''}]")
        return Reasoned(
            "From the papers:\n" + "\n".join(lines),
            [e.id for e in chunks[:snippets]],
            "answered",
            [e.citation() for e in chunks[:snippets]],
            [
                "extractive: the passages are quoted, not summarised; use an LLM reasoner for a "
                "synthesis"
            ],
        )

    # -- compounds -----------------------------------------------------------------------------
    def _compound(self, query: QueryTuple, evidence: list[Evidence]) -> Reasoned:
        aspect = query.aspect
        exact = [e for e in evidence if e.match == "exact" and e.kind in ("compound", "computed")]
        if aspect == Aspect.SIMILAR:
            similar = [e for e in evidence if e.match == "similar" and e.kind == "compound"]
            if not similar:
                return Reasoned(
                    "The knowledge base holds no structurally similar compound.", [], "no_evidence"
                )
            names = [f"{e.record.get('name') or e.record.get('smiles')} ({e.why})" for e in similar]
            return Reasoned(
                "Similar compounds: " + "; ".join(names) + ".",
                [e.record.get("smiles") for e in similar],
                "answered",
                [e.citation() for e in similar],
            )
        if not exact:
            fuzzy = [e for e in evidence if e.kind == "compound"]
            if fuzzy:
                top = fuzzy[0]
                inner = self._compound(query, [top.model_copy(update={"match": "exact"})])
                inner.status = "partial"
                inner.notes.append(f"no exact match; answered for the closest record: {top.why}")
                inner.answer = f"(closest match: {top.record.get('name')}) " + inner.answer
                return inner
            return Reasoned(
                "The knowledge base holds no record for this compound.", None, "no_evidence"
            )
        each = self._per_compound(query, exact)
        if each is not None:
            return each
        top = exact[0]
        r = top.record
        name = _typed_name(query, r) or (
            r.get("name") or r.get("common_name") or r.get("iupac_name") or r.get("smiles")
        )
        cite = [top.citation()]
        if aspect == Aspect.MOLECULAR_WEIGHT:
            if r.get("molecular_weight") is None:
                return Reasoned(
                    f"No molecular weight is known for {name}.", None, "no_evidence", cite
                )
            mw = round(float(r["molecular_weight"]), 2)
            label = "mean molar mass" if r.get("kind") == "mixture" else "molecular weight"
            formula = f", {r['formula']}" if r.get("formula") else ""
            return Reasoned(
                f"The {label} of {name} is {mw:.2f} g/mol{formula}.",
                mw,
                "answered",
                cite,
                ["computed by RDKit from the structure (average atomic weights)"],
            )
        if aspect == Aspect.EXACT_MASS:
            if r.get("exact_mass") is None:
                return Reasoned(f"No exact mass is known for {name}.", None, "no_evidence", cite)
            mass = round(float(r["exact_mass"]), 4)
            ion = asked_ion(query.question)
            if ion is not None:  # "[M+H]+ of caffeine": the ion's m/z, not the neutral mass
                mz, sentence = ion_sentence(name, float(r["exact_mass"]), ion)
                return Reasoned(sentence, mz, "answered", cite)
            return Reasoned(
                f"The monoisotopic (exact) mass of {name} is {mass:.4f} Da.", mass, "answered", cite
            )
        if aspect == Aspect.FORMULA:
            if not r.get("formula"):
                return Reasoned(f"No formula is known for {name}.", None, "no_evidence", cite)
            return Reasoned(
                f"The molecular formula of {name} is {r['formula']}.",
                r["formula"],
                "answered",
                cite,
            )
        if aspect == Aspect.NAME_TO_SMILES:
            if not r.get("smiles"):
                return Reasoned(
                    f"{name} has no single structure in the knowledge base (kind: "
                    f"{r.get('kind')}).",
                    None,
                    "no_evidence",
                    cite,
                )
            open_centres = 0
            if _STEREO_ASKED.search(query.question):
                from chemground.chem.structure import unassigned_stereocentres

                open_centres = unassigned_stereocentres(r["smiles"])
            if open_centres:
                # "isomeric SMILES with stereo for tyrosine": the record (DL-tyrosine) leaves
                # its stereocentre open, so the SMILES does not give what was asked
                note = (
                    f"the record leaves {open_centres} stereocentre"
                    f"{'s' if open_centres > 1 else ''} undefined, so this SMILES does not give "
                    "the configuration asked for; name the stereoisomer (e.g. L- or (S)-) to "
                    "get it"
                )
                return Reasoned(
                    f"The SMILES of {name} is {r['smiles']} ({note}).",
                    r["smiles"],
                    "partial",
                    cite,
                    [note],
                )
            return Reasoned(
                f"The SMILES of {name} is {r['smiles']}.", r["smiles"], "answered", cite
            )
        if aspect == Aspect.SMILES_TO_NAME:
            iupac = r.get("iupac_name")
            if iupac:
                from chemground.chem.names import preferred_iupac_name, recase_name

                iupac = recase_name(iupac)  # "N,N-", "(2R)": the dictionary stores lower case
                stored = iupac
                iupac = preferred_iupac_name(
                    iupac, r.get("synonyms") or [], r.get("smiles"), self.opsin
                )
                # the chemist's own word before the dictionary's first synonym ("nikotin")
                common = recase_name(_typed_name(query, r) or r.get("common_name") or "")
                extra = [f"common name: {common}"] if common and common != iupac else []
                if iupac != stored:
                    extra.append(f"also written {stored}")
                extra = f" ({'; '.join(extra)})" if extra else ""
                return Reasoned(
                    f"The IUPAC name of {r.get('smiles')} is {iupac}{extra}.",
                    iupac,
                    "answered",
                    cite,
                )
            other = r.get("common_name") or (r.get("synonyms") or [None])[0] or r.get("name")
            if other:
                return Reasoned(
                    f"The knowledge base has no IUPAC name for {r.get('smiles')}; it is known as "
                    f"{other}.",
                    other,
                    "partial",
                    cite,
                )
            return Reasoned(
                f"The knowledge base holds no name for {r.get('smiles')} (formula "
                f"{r.get('formula')}).",
                None,
                "no_evidence",
                cite,
            )
        if aspect == Aspect.CAS:
            if not r.get("cas"):
                return Reasoned(
                    f"No CAS number is recorded for {name} in the knowledge base.",
                    None,
                    "no_evidence",
                    cite,
                )
            return Reasoned(
                f"The CAS registry number of {name} is {r['cas']}.", r["cas"], "answered", cite
            )
        if aspect == Aspect.SYNONYMS:
            from chemground.chem.names import is_cas_number, recase_name
            from chemground.kb.abbreviations import abbreviations_of

            abbreviations = abbreviations_of(r["inchikey"]) if r.get("inchikey") else []
            names = [
                recase_name(n)
                for n in [r.get("iupac_name"), r.get("common_name"), *(r.get("synonyms") or [])]
                if n and not is_cas_number(n)  # a CAS number is an identifier, not a name
            ]
            if _ABBREVIATION_ASKED.search(query.question):  # "abbreviation for DMF?": those first
                names = abbreviations + names
            else:
                names += abbreviations
            names = list(dict.fromkeys(names))
            # the name the answer is given under is no other name ("(S)-nicotine is also known
            # as: (S)-nicotine" was 'answered')
            seen = {str(name).lower()}
            others = []
            for n in names:  # "DMF" and "dmf" are one name
                if n.lower() not in seen:
                    seen.add(n.lower())
                    others.append(n)
            if not others:
                return Reasoned(
                    f"The knowledge base records no other name for {name} ({r.get('smiles')}).",
                    names,
                    "no_evidence",
                    cite,
                )
            return Reasoned(
                f"{name} is also known as: " + "; ".join(others[:12]) + ".",
                names,
                "answered",
                cite,
            )
        if aspect == Aspect.DESCRIPTION:
            # "identify ethyl hydroxide": the record's common name says what it is
            shown = r.get("name") or r.get("common_name")
            also = f"{shown}; " if shown and shown.lower() != str(name).lower() else ""
            facts = also + ", ".join(
                x
                for x in [
                    r.get("formula"),
                    f"{r['molecular_weight']:.2f} g/mol" if r.get("molecular_weight") else None,
                    f"SMILES {r['smiles']}" if r.get("smiles") else None,
                ]
                if x
            )
            if r.get("description"):
                text = f"{name} ({facts}): {r['description']}"
                if r.get("description_of"):
                    text += f" (Described under its stereoisomer {r['description_of']}.)"
                return Reasoned(text, r["description"], "answered", cite)
            return Reasoned(
                f"{name}: {facts}. The knowledge base has no descriptive text for it.",
                None,
                "partial",
                cite,
            )
        return Reasoned(
            f"{name}: {r.get('formula')}, SMILES {r.get('smiles')}.",
            r.get("smiles"),
            "partial",
            cite,
        )

    def _per_compound(self, query: QueryTuple, exact: list[Evidence]) -> Reasoned | None:
        """ "Formula of aspirin and caffeine": one answer per compound the question names.

        Answering the first alone would drop the rest of the question silently. None when the
        question names fewer than two distinct compounds with an exact record each.
        """
        by_id = {e.id: e for e in reversed(exact)}  # the best-ranked record of each compound
        wanted = list(
            dict.fromkeys(
                str(m.compound_id)
                for m in query.mentions
                if m.resolved and m.compound_id is not None
            )
        )
        if len(wanted) < 2 or any(cid not in by_id for cid in wanted):
            return None
        parts = [self._compound(query, [by_id[cid]]) for cid in wanted]
        rank = {"answered": 0, "partial": 1, "no_evidence": 2}
        worst = max((p.status for p in parts), key=lambda status: rank.get(status, 3))
        return Reasoned(
            " ".join(p.answer for p in parts),
            [p.value for p in parts],
            worst,
            [c for p in parts for c in p.citations],
            list(dict.fromkeys(n for p in parts for n in p.notes)),
        )

    # -- reactions -----------------------------------------------------------------------------
    def _reaction(
        self, query: QueryTuple, evidence: list[Evidence], classes: list[ClassMention] | None = None
    ) -> Reasoned:
        classes = classes or []
        asked = [m for m in query.mentions]
        names = " and ".join(repr(m.text) for m in asked) or "the compounds asked"
        unresolved = [m.text for m in asked if not m.resolved]
        graph = [e for e in evidence if e.kind in ("graph_path", "graph_row")]
        if query.aspect == Aspect.ROUTE or (
            graph and not any(e.kind == "reaction" for e in evidence)
        ):
            # a compound nothing resolves is named too ("between 'benzaldehyde' and 'unobtainol'
            # (not resolved)"), never dropped from the answer
            return self._graph(
                query,
                graph,
                " and ".join(
                    repr(m.text) + ("" if m.resolved else " (not resolved to a structure)")
                    for m in query.mentions
                ),
            )
        reactions = [e for e in evidence if e.kind == "reaction"]
        # the records as stored: the kind asked ("which oxidant") cuts only the asked role
        unfiltered = {e.id: e.record for e in reactions}
        kind = query.asked_kind
        kind_note = ""
        if kind is not None and query.aspect in ROLE_ASPECTS:
            # "which copper co-catalyst": only the role's participants of that kind answer
            reactions = [
                e.model_copy(update={"record": only_kind(e.record, kind.smiles, kind.text)})
                for e in reactions
            ]
            kind_note = f" of the kind asked ({kind.text!r})"
        if query.excluded and query.aspect in ROLE_ASPECTS:
            # "besides DCM, which solvent ...": DCM is no answer
            reactions = [
                e.model_copy(update={"record": without(e.record, query.excluded)})
                for e in reactions
            ]
            left_out = ", ".join(repr(m.text) for m in query.excluded)
            kind_note += f" other than {left_out}"
        target = product_class_asked(query)
        if target is not None and reactions:
            # "reagent to make an acid chloride from benzoic acid": only records whose product is
            # of that class answer (an amide coupling of benzoic acid was given)
            reactions = [e for e in reactions if makes_class(e.record, target.smarts)]
            if not reactions:
                made = f"{indefinite_article(target.group)} {target.group}"
                return Reasoned(
                    f"The knowledge base holds no reaction that makes {made} from {names}.",
                    None,
                    "no_evidence",
                )
        class_names = " / ".join(c.name for c in classes)
        unresolved_note = (
            " I could not resolve " + ", ".join(repr(u) for u in unresolved) + " to a compound."
            if unresolved
            else ""
        )
        if not reactions:
            if classes:
                known = [c for c in classes if c.known]
                what = (
                    f"no {reaction_noun(class_names)}"
                    if not known
                    else f"no {reaction_noun(class_names)}"
                    + (f" involving {names}" if asked else "")
                )
                return Reasoned(
                    f"The knowledge base holds {what}.{unresolved_note}", None, "no_evidence"
                )
            if not query.resolved_mentions:
                problems = "; ".join(query.problems) or "no compound was recognised"
                return Reasoned(
                    f"I could not identify the compound(s) in the question: {problems}.",
                    None,
                    "not_understood",
                )
            return Reasoned(
                f"The knowledge base holds no reaction involving {names}.{unresolved_note}",
                None,
                "no_evidence",
            )
        if classes and not asked:
            if all(c.broad for c in classes):
                # "which reagent reduces an ester?": the KB's reductions (of ketones, nitro
                # groups, alkenes) say nothing of esters
                return Reasoned(
                    f"'{class_names}' covers reactions of many kinds, and the question names "
                    "no compound and no named reaction the knowledge base holds, so no record "
                    "answers it; name the compound or the reaction (e.g. 'borohydride "
                    "reduction', 'Swern oxidation').",
                    None,
                    "no_evidence",
                )
            return self._class_answer(query.aspect, reactions, class_names, query.question)
        top = reactions[0]
        partial = top.match != "exact"
        aspect = query.aspect
        if partial and aspect == Aspect.PRODUCT and not classes and _only_as_agents(query, top):
            # "what forms from NaOH and HCl?" was answered with an ester hydrolysis that uses
            # both as reagents: a record in which no compound asked reacts says nothing of what
            # they give
            return Reasoned(
                f"No reaction in the knowledge base has {names} reacting: where they appear, "
                f"they are reagents, catalysts or solvents of other reactions (e.g. {top.id}: "
                f"{self._summary(top.record)}).{unresolved_note}",
                None,
                "no_evidence",
                [top.citation()],
            )
        if aspect == Aspect.REACTIONS:
            shown = [e for e in reactions if e.match == "exact"] or reactions
            listed = [f"{e.id}: {self._summary(e.record)}" for e in shown]
            roles = [f"{m.text!r} as {m.role.value}" for m in asked if m.role is not None]
            head = f"Reactions with {', '.join(roles)}" if roles else f"Reactions involving {names}"
            held = top.provenance.get("exact_matches_in_kb", len(shown))
            if partial:
                head = f"No reaction matches all of {names}; the closest ({top.why})"
            elif count_asked(query.question):
                # "how many reactions use THF as solvent?": the count is the answer
                what = f"with {', '.join(roles)}" if roles else f"involving {names}"
                listed_note = f" (the first {len(shown)})" if held > len(shown) else ""
                narrower = None if classes else KIND_OF_REACTION.search(query.question)
                if narrower:  # "how many couplings use THF?" names no class the KB files
                    what += f", of every kind: the count is not narrowed to {narrower.group(0)!r}"
                noun = reaction_noun(class_names if classes else "", plural=held != 1).strip()
                return Reasoned(
                    f"The knowledge base holds {held} {noun} {what}"
                    f"{listed_note}: " + " | ".join(listed) + "." + unresolved_note,
                    held,
                    "partial" if narrower else "answered",
                    [e.citation() for e in shown],
                )
            elif held > len(shown):
                head += f" ({held} in the knowledge base; the first {len(shown)} shown)"
            return Reasoned(
                head + ": " + " | ".join(listed) + "." + unresolved_note,
                [e.id for e in shown],
                "partial" if partial else "answered",
                [e.citation() for e in shown],
            )
        result = self._read(aspect, top.record)
        notes = []
        if result is None:
            for other in reactions[1:]:
                if other.match == top.match and self._read(aspect, other.record) is not None:
                    notes.append(
                        f"the best-matching reaction {top.id} records no {aspect.value}; "
                        f"taken from {other.id}, which has the same compounds"
                    )
                    top, result = other, self._read(aspect, other.record)
                    break
        used_only = (
            result is None
            and aspect == Aspect.REAGENT
            and not partial
            and query.asked_kind is None  # "the reducing agent in the nitration": none
        )
        if used_only and (used := _unnamed_co_reactants(query, top.record)):
            # "reagent for the Boc protection of aniline": the record lists no reagent, and
            # files Boc2O, which a chemist calls the reagent, as a reactant
            items = [p for p in top.record.get("reactants") or [] if p.get("name") in used]
            result = (
                "Reagent: " + "; ".join(_label(p) for p in items or []) + ".",
                used,
                f"the record lists no reagent; {', '.join(used)} "
                f"{'is' if len(used) == 1 else 'are'} filed as "
                f"{'a reactant' if len(used) == 1 else 'reactants'}",
            )
        if result is None:
            what = "best-matching" if not partial else "closest"
            return Reasoned(
                f"The {what} reaction ({top.id}: {self._summary(top.record)}) records no "
                f"{aspect.value}{kind_note}.{unresolved_note}",
                None,
                "no_evidence",
                [top.citation()],
            )
        text, value, filed = result
        if aspect == Aspect.REAGENT and not partial and not used_only:
            used = _unnamed_co_reactants(query, top.record)
            if used:  # "benzyl bromide from benzyl alcohol - what reagents?": CBr4 and PPh3
                text = (
                    text[:-1] + f"; with {', '.join(used)}, which the record files as "
                    f"{'a reactant' if len(used) == 1 else 'reactants'}."
                )
                notes.append(f"the record also uses {', '.join(used)} as a reactant")
        if kind_note:
            notes.append(f"only the {aspect.value} participants{kind_note} are given")
        if filed:
            notes.append(filed)
            text = text[:-1] + f" ({filed})."
        if aspect == Aspect.PRODUCT:
            fact = _product_fact(query.question, top.record)
            if fact is not None:  # "the MW of the product of ...": the number is the answer
                text, value = text[:-1] + f"; {fact[0]}.", fact[1]
                notes.append("computed from the product's SMILES by RDKit")
        variants = self._variants(aspect, reactions, top)
        if variants:
            notes.append(variants)
        unnamed = _unnamed_agents(query, top.record) if aspect == Aspect.PRODUCT else []
        if unnamed and not partial and not classes:
            # "what forms from benzaldehyde in ethanol?": the record's product needs NaBH4,
            # which the question does not name; another reagent gives another product
            partial = True
            text = (
                f"The question names no reagent; the matching record uses {', '.join(unnamed)}, "
                f"and with it: {text}"
            )
            notes.append(f"the record also uses {', '.join(unnamed)}, not named in the question")
        elif partial and top.provenance.get("only_corrected_names"):
            # every compound is there in its role, one of them read from a misspelt name
            text = f"The matching reaction ({top.why}) gives: {text}"
            notes.append(f"a misspelt name was corrected: {top.why}")
        elif partial:
            text = (
                f"No reaction in the knowledge base matches all of {names} in the roles asked; the "
                "closest "
                f"({top.why}) gives: {text}"
            )
            notes.append(f"closest match only: {top.why}")
        verdict = _offered_verdict(query, unfiltered.get(top.id, top.record))
        if verdict is not None:
            text = f"{verdict} {text}"
        others = also_asked(query.question, aspect)
        if others and aspect in CONDITION_KEYS and all(o in CONDITION_KEYS for o in others):
            # "what solvent and what temperature?": the value holds both, keyed as a conditions
            # value is ({"solvents": [...], "temperature_c": 80.0}), not the first one alone
            value = {CONDITION_KEYS[aspect]: value}
        for other in others:
            # "the yield and temperature of ...": each fact from the same record
            more = self._read(other, unfiltered.get(top.id, top.record))
            text += " " + (more[0] if more else f"The record gives no {other.value}.")
            if isinstance(value, dict) and other in CONDITION_KEYS:
                value[CONDITION_KEYS[other]] = more[1] if more else None
        if isinstance(value, dict) and isinstance(value.get("temperature_c"), str):
            value["temperature_text"] = value.pop("temperature_c")  # "reflux", no number
        source = top.record.get("source") or top.record.get("dataset")
        text += f" [reaction {top.id}" + (f", {source}" if source else "") + "]" + unresolved_note
        return Reasoned(text, value, "partial" if partial else "answered", [top.citation()], notes)

    def _class_of_compounds(self, query: QueryTuple, by_class: list[Evidence]) -> Reasoned:
        """Reactions with a participant of a compound class: the first records, and how many
        there are ("how many reactions use a boronic acid?" is answered with the count)."""
        listed = [f"{e.id}: {self._summary(e.record)}" for e in by_class]
        cite = [e.citation() for e in by_class]
        found = by_class[0].provenance
        total, capped = found.get("class_matches_in_kb"), found.get("class_search_capped")
        if total is None:
            return Reasoned(
                "Reactions in the knowledge base: " + " | ".join(listed) + ".",
                [e.id for e in by_class],
                "answered",
                cite,
            )
        group, role = found.get("group", ""), found.get("role", "")
        held = (
            f"{'at least ' if capped else ''}{total} reaction{'s' if total != 1 else ''} with "
            f"{indefinite_article(group)} {group}" + ("" if group.endswith(role) else f" as {role}")
        )
        shown = f" (the first {len(listed)})" if total > len(listed) else ""
        value: Any = [e.id for e in by_class]
        status = "answered"
        if count_asked(query.question):
            value = total
            narrower = KIND_OF_REACTION.search(query.question)
            if narrower:  # "how many Pd-catalysed couplings": the search cannot tell couplings
                held += (
                    f", of every kind: the count is not narrowed to {narrower.group(0)!r}, which "
                    "a structure search cannot tell apart"
                )
            status = "partial" if capped or narrower else "answered"
        return Reasoned(
            f"The knowledge base holds {held}{shown}: " + " | ".join(listed) + ".",
            value,
            status,
            cite,
        )

    def _class_answer(
        self, aspect: Aspect | None, reactions: list[Evidence], class_names: str, question: str
    ) -> Reasoned:
        """A class and no compound ("reagent for Boc deprotection?"): what the class's reactions
        record,
        most common first, with counts."""
        n = len(reactions)
        kinds = reaction_noun(class_names, plural=True)
        held = reactions[0].provenance.get("class_reactions_in_kb", n) if reactions else n
        cite = [e.citation() for e in reactions]
        ids = ", ".join(e.id for e in reactions[:8]) + (", ..." if n > 8 else "")
        role_key = {
            Aspect.SOLVENT: "solvents",
            Aspect.CATALYST: "catalysts",
            Aspect.REAGENT: "reagents",
        }.get(aspect)  # type: ignore[arg-type]
        if role_key:
            counts: Counter = Counter()
            smiles: dict[str, str] = {}
            filed_as: dict[str, str] = {}
            for e in reactions:
                read = self._read(aspect, e.record)
                if read is None:
                    continue
                items = read[1] or []
                for item in dict.fromkeys(items):
                    counts[item] += 1
                    if read[2]:
                        filed_as[item] = read[2]
                for key in ("reagents", "catalysts", "solvents"):
                    for p in e.record.get(key) or []:
                        smiles.setdefault(p.get("name") or p.get("smiles"), p.get("smiles"))
            if not counts:
                return Reasoned(
                    f"None of the {n} {kinds} in the knowledge base records a {role_key[:-1]}.",
                    None,
                    "no_evidence",
                    cite,
                )
            ranked = [name for name, _ in counts.most_common()]
            top_count = counts[ranked[0]]
            tied = [name for name in ranked if counts[name] == top_count]
            rest = [f"{name} ({counts[name]} of {n})" for name in ranked[len(tied) : 6]]
            label = role_key[:-1]
            head = (
                f"{tied[0]} ({top_count} of {n})"
                if len(tied) == 1
                else " and ".join(tied) + f" (each in {top_count} of {n})"
            )
            text = (
                f"Across the {n} {kinds} in the knowledge base, the {label} is "
                "most often "
                f"{head}" + ("; also " + ", ".join(rest) if rest else "") + f". [reactions {ids}]"
            )
            notes = [f"counted over the {n} reactions of the class; no compound was named"]
            if filed_as:
                notes.append("; ".join(sorted(set(filed_as.values()))))
            return Reasoned(text, ranked, "answered", cite, notes)
        if aspect in (Aspect.TEMPERATURE, Aspect.TIME, Aspect.YIELD):
            key, unit = {
                Aspect.TEMPERATURE: ("temperature_c", " °C"),
                Aspect.TIME: ("time_h", " h"),
                Aspect.YIELD: ("yield_percent", "%"),
            }[aspect]
            values = [e.record.get(key) for e in reactions if e.record.get(key) is not None]
            if not values:
                return Reasoned(
                    f"None of the {n} {kinds} records a {aspect.value}.",
                    None,
                    "no_evidence",
                    cite,
                )
            counts = Counter(values)
            common, _times = counts.most_common(1)[0]
            spread = (
                f" (range {min(values):g}–{max(values):g}{unit} over {len(values)} reactions)"
                if len(counts) > 1
                else f" (all {len(values)} reactions)"
            )
            return Reasoned(
                f"{kinds} in the knowledge base are typically run at "
                f"{common:g}{unit}{spread}. [reactions {ids}]"
                if aspect == Aspect.TEMPERATURE
                else f"{aspect.value.capitalize()} of {kinds} in the knowledge "
                "base: most often "
                f"{common:g}{unit}{spread}. [reactions {ids}]",
                common,
                "answered",
                cite,
                [f"most common value over the {n} reactions of the class"],
            )
        if aspect == Aspect.CONDITIONS:
            temps = Counter(
                e.record.get("temperature_c")
                for e in reactions
                if e.record.get("temperature_c") is not None
            )
            solvents: Counter = Counter()
            for e in reactions:
                for p in e.record.get("solvents") or []:
                    solvents[p.get("name") or p.get("smiles")] += 1
            value: dict[str, Any] = {}
            parts = []
            if temps:
                value["temperature_c"] = temps.most_common(1)[0][0]
                parts.append(f"most often {value['temperature_c']:g} °C")
            if solvents:
                top_count = solvents.most_common(1)[0][1]
                value["solvents"] = [name for name, c in solvents.most_common() if c == top_count]
                parts.append(
                    "solvent "
                    + ", ".join(f"{name} ({c} of {n})" for name, c in solvents.most_common(3))
                )
            if not parts:
                return Reasoned(
                    f"None of the {n} {kinds} records conditions.",
                    None,
                    "no_evidence",
                    cite,
                )
            return Reasoned(
                f"Typical conditions of the {n} {kinds} in the knowledge base: "
                + "; ".join(parts)
                + f". [reactions {ids}]",
                value,
                "answered",
                cite,
            )
        listed = [f"{e.id}: {self._summary(e.record)}" for e in reactions[:10]]
        shown = f" (the first {len(listed)})" if held > len(listed) else ""
        if count_asked(question):
            # "how many Suzuki couplings are in the KB?": the count is the answer
            return Reasoned(
                f"The knowledge base holds {held} {kinds}{shown}: " + " | ".join(listed),
                held,
                "answered",
                cite,
            )
        return Reasoned(
            f"The knowledge base holds {held} {kinds}; name a compound to ask about "
            f"one of them{shown}: " + " | ".join(listed),
            [e.id for e in reactions],
            "partial",
            cite,
        )

    @staticmethod
    def _graph(query: QueryTuple, graph: list[Evidence], names: str) -> Reasoned:
        paths = [e for e in graph if e.kind == "graph_path"]
        if paths:
            lines = []
            for i, e in enumerate(paths, 1):
                lines.append(
                    f"{i}. ({e.record['length']} step{'s' if e.record['length'] > 1 else ''}) "
                    f"{e.why.split(': ', 1)[-1]}"
                )
                lines += [
                    f"     {step['id']}: {step['recipe']}"
                    for step in e.record.get("steps", [])
                    if step["recipe"]
                ]
            value = [e.record["reaction_ids"] for e in paths]
            return Reasoned(
                "Routes found in the reaction graph:\n" + "\n".join(lines),
                value,
                "answered",
                [e.citation() for e in paths],
            )
        if graph:
            rows = [str(e.record) for e in graph[:10]]
            return Reasoned(
                f"The graph query returned {len(graph)} row(s): " + "; ".join(rows),
                [e.record for e in graph],
                "answered",
                [e.citation() for e in graph],
            )
        if query.aspect == Aspect.ROUTE:
            return Reasoned(
                f"No route between {names} within the searched number of steps was found in the "
                "reaction graph of this knowledge base.",
                [],
                "no_evidence",
            )
        return Reasoned("The graph query returned no rows.", [], "no_evidence")

    @staticmethod
    def _read(aspect: Aspect | None, r: dict[str, Any]) -> tuple[str, Any, str | None] | None:
        """(text, value, note on how the record files it) for ``aspect``, or None."""
        out = ExtractiveReasoner._read_plain(aspect, r)
        if out is not None or aspect not in (Aspect.CATALYST, Aspect.REAGENT):
            return None if out is None else (*out, None)
        if aspect == Aspect.CATALYST:
            # a chemist calls the acid, base or Lewis acid of a record without a catalyst its
            # catalyst
            items = [
                p for p in (r.get("reagents") or []) if is_acid_base_or_lewis_acid(p.get("smiles"))
            ]
            if not items:
                return None
            label = "catalyst" if len(items) == 1 else "catalysts"
            names = ", ".join(p.get("name") or p.get("smiles") for p in items)
            return (
                f"{label.capitalize()}: " + "; ".join(_label(p) for p in items) + ".",
                [p.get("name") or p.get("smiles") for p in items],
                f"the record lists {names} as {'a reagent' if len(items) == 1 else 'reagents'} and "
                "no catalyst",
            )
        items = (
            r.get("catalysts") or []
        )  # a reagent question: a record with only a catalyst answers with that
        if not items:
            return None
        names = ", ".join(p.get("name") or p.get("smiles") for p in items)
        return (
            "Reagent: " + "; ".join(_label(p) for p in items) + ".",
            [p.get("name") or p.get("smiles") for p in items],
            f"the record lists no reagent; {names} {'is' if len(items) == 1 else 'are'} filed as "
            f"{'the catalyst' if len(items) == 1 else 'catalysts'}",
        )

    @staticmethod
    def _read_plain(aspect: Aspect | None, r: dict[str, Any]) -> tuple[str, Any] | None:
        if aspect == Aspect.PRODUCT:
            products = r.get("products") or []
            if not products:
                return None
            return "Product: " + "; ".join(_label(p) for p in products) + ".", [
                p.get("smiles") for p in products
            ]
        if aspect == Aspect.REACTANTS:
            reactants = r.get("reactants") or []
            if not reactants:
                return None
            text = "Reactants: " + "; ".join(_label(p) for p in reactants)
            agents = (r.get("reagents") or []) + (r.get("catalysts") or [])
            if agents:
                text += "; with " + "; ".join(_label(p) for p in agents)
            return text + ".", [p.get("smiles") for p in reactants]
        for key, role_aspect in (
            ("solvents", Aspect.SOLVENT),
            ("catalysts", Aspect.CATALYST),
            ("reagents", Aspect.REAGENT),
        ):
            if aspect == role_aspect:
                items = r.get(key) or []
                if not items:
                    return None
                label = key[:-1] if len(items) == 1 else key
                return f"{label.capitalize()}: " + "; ".join(_label(p) for p in items) + ".", [
                    p.get("name") or p.get("smiles") for p in items
                ]
        if aspect == Aspect.TEMPERATURE:
            text = _temperature(r)
            if text is None:
                return None
            return f"Temperature: {text}.", r.get("temperature_c") if r.get(
                "temperature_c"
            ) is not None else text
        if aspect == Aspect.TIME:
            if r.get("time_h") is None:
                return None
            return f"Reaction time: {r['time_h']:g} h.", r["time_h"]
        if aspect == Aspect.YIELD:
            if r.get("yield_percent") is None:
                return None
            return f"Yield: {r['yield_percent']:g}%.", r["yield_percent"]
        if aspect == Aspect.CONDITIONS:
            parts, value = [], {}
            if _temperature(r):
                parts.append(_temperature(r))
                value["temperature_c"] = r.get("temperature_c")
            if r.get("time_h") is not None:
                parts.append(f"{r['time_h']:g} h")
                value["time_h"] = r["time_h"]
            for key in ("solvents", "catalysts", "reagents"):
                if r.get(key):
                    parts.append(f"{key}: " + ", ".join(_label(p) for p in r[key]))
                    value[key] = [p.get("name") or p.get("smiles") for p in r[key]]
            if r.get("atmosphere"):
                parts.append(f"under {r['atmosphere']}")
                value["atmosphere"] = r["atmosphere"]
            if r.get("pressure_bar") is not None:
                parts.append(f"{r['pressure_bar']:g} bar")
                value["pressure_bar"] = r["pressure_bar"]
            if r.get("yield_percent") is not None:
                parts.append(f"yield {r['yield_percent']:g}%")
                value["yield_percent"] = r["yield_percent"]
            if not parts:
                return None
            return "Conditions: " + "; ".join(parts) + ".", value
        return None

    def _variants(
        self, aspect: Aspect | None, reactions: list[Evidence], top: Evidence
    ) -> str | None:
        """Other equally good reactions that record a different value (patents often disagree)."""
        others = []
        for e in reactions:
            if e is top or e.match != top.match or e.score < top.score:
                continue
            read = self._read(aspect, e.record)
            if read and read[0] != self._read(aspect, top.record)[0]:  # type: ignore[index]
                others.append(f"{e.id}: {read[0]}")
        if not others:
            return None
        return "other reactions with the same compounds report: " + " | ".join(others[:3])

    @staticmethod
    def _summary(r: dict[str, Any]) -> str:
        reactants = " + ".join(
            p.get("name") or p.get("smiles") or "?" for p in (r.get("reactants") or [])[:3]
        )
        products = " + ".join(
            p.get("name") or p.get("smiles") or "?" for p in (r.get("products") or [])[:2]
        )
        return f"{reactants} -> {products}"

    @staticmethod
    def _similar_note(evidence: list[Evidence]) -> str:
        similar = [
            e.record.get("name") for e in evidence if e.match == "similar" and e.record.get("name")
        ]
        return f" Similar names in the knowledge base: {', '.join(similar[:5])}." if similar else ""
