"""Readings of a question's text around its compound mentions, which the parser applies.

Before the mentions are found, forms the mention finder cannot read are rewritten: a reaction
SMILES is spelt out as a reaction, and a protecting group with its locant is joined to the name it
protects. After, mentions that name no participant the record must hold are set aside, each with a
note (never silently): the quench or work-up after a reaction, and the target of a multi-step
synthesis when one step is asked about. (The answers a question offers are read by
``reasoning.options``.)
"""

from __future__ import annotations

import re

from chemground.errors import ChemgroundError

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


def _set_aside(mentions: list, why) -> tuple[list, list[str]]:
    """The mentions ``why`` keeps (it gives None for them, given those kept so far), and its note
    for each it leaves out: what a question names but does not ask about is said, never dropped
    silently."""
    kept: list = []
    notes: list[str] = []
    for mention in mentions:
        note = why(mention, kept)
        if note is None:
            kept.append(mention)
        else:
            notes.append(note)
    return kept, notes


# "Heck of A with B - Pd source + ligand?": the metal names the catalyst asked, not a compound
_SOURCE_ASKED_AFTER = re.compile(r"^\s+(source|salt|precursor)s?\b(?!\s+of\b)", re.IGNORECASE)
# "A + CBr4, DCM - and which phosphine?": a compound's name used for the class asked (PH3 was
# required of the record)
_CLASS_ASKED = re.compile(
    r"\b(which|what)\s+(phosphine|amine|borane|silane|alkoxide)\s*[?.]?\s*$", re.IGNORECASE
)


# "lidocaine synthesis, step 1: 2,6-dimethylaniline + chloroacetyl chloride -> ?": the target of
# a multi-step synthesis, not a compound of the step asked about
_STEP_OF_SYNTHESIS_AFTER = re.compile(
    r"^\s*(total\s+)?(synthesis|synth|route|prep(aration)?)\s*[,:;(–—-]?\s*(step|stage)\s*\d+\b",
    re.IGNORECASE,
)
# "first step of the ibuprofen route, A + B -> ?": the same, named before
_ONE_STEP_OF = (
    r"\b(first|second|third|last|final|next|\d+(st|nd|rd|th))\s+(step|stage)\s+(of|in|towards?)"
    r"\s+(the\s+|my\s+|our\s+|your\s+|an?\s+)?"
)
_STEP_OF_BEFORE = re.compile(_ONE_STEP_OF + "$", re.IGNORECASE)
# "first step of the ibuprofen route, A + B - solvent and temp?": one step is asked, not a route
_STEP_OF_ROUTE = re.compile(_ONE_STEP_OF + r"[\w-]+\s+(route|synthesis|sequence)\b", re.IGNORECASE)


def one_step_named(text: str) -> str:
    """``text`` with "the first step of the X route" written as "this step", for the rules that
    read what is asked: the word "route" there asks no route."""
    return _STEP_OF_ROUTE.sub("this step", text)


_ROUTE_AFTER = re.compile(r"^\s*(total\s+)?(synthesis|route|prep(aration)?|sequence)\b", re.I)


def mentions_not_asked(text: str, mentions: list) -> tuple[list, list[str]]:
    """Mentions a question names without asking about them, left out of the compounds a record
    must hold, each with a note (said, never dropped silently):

    - the quench or work-up ("then sat. NH4Cl", "quenched with water"): the records list what
      reacted, not how it was worked up;
    - the target of a multi-step synthesis one step of which is asked ("lidocaine synthesis,
      step 1: A + B -> ?": the step makes an intermediate, and lidocaine was required of it);
    - a metal whose "source" is asked ("Pd source + ligand?": palladium metal was required),
      and a compound's name used for the class asked ("which phosphine?": PH3 was required);
    - the solvent of a stock solution ("a 100 mM stock in water").

    Args:
        text: the question.
        mentions: its mentions, in order.

    Returns:
        The mentions kept, and a note per mention left out.
    """

    def why(mention, kept: list) -> str | None:
        if kept and _WORKUP_BEFORE.search(text[max(0, mention.start - 60) : mention.start]):
            return f"read {mention.text!r} as the work-up, not as a reaction participant"
        if len(mentions) > 2 and (
            _STEP_OF_SYNTHESIS_AFTER.match(text[mention.end :])
            or (
                _STEP_OF_BEFORE.search(text[: mention.start])
                and _ROUTE_AFTER.match(text[mention.end :])
            )
        ):
            return (
                f"read {mention.text!r} as the target of the synthesis, not a compound of the "
                "step asked about"
            )
        if _SOURCE_ASKED_AFTER.match(text[mention.end : mention.end + 20]) and re.fullmatch(
            r"[A-Z][a-z]?", mention.text
        ):
            return f"read '{mention.text} source' as the catalyst asked, not a compound given"
        if (found := _CLASS_ASKED.search(text)) and found.start(2) == mention.start:
            return f"read 'which {mention.text}' as the reagent asked, not a compound given"
        if kept and _STOCK_SOLVENT_BEFORE.search(text[max(0, mention.start - 60) : mention.start]):
            return f"read {mention.text!r} as the solvent of a stock solution, not a compound asked"
        if kept and (
            _REPLACED_AFTER.match(text[mention.end :])
            or _REPLACED_BEFORE.search(text[max(0, mention.start - 40) : mention.start])
        ):
            # "DBDMH as a cheaper NBS replacement - CAS number?": NBS's CAS was given beside
            return f"read {mention.text!r} as what the compound asked about replaces"
        if (
            kept
            and (generated := _GENERATED_BEFORE.search(text[: mention.start]))
            and re.search(r"\b(ion|cation|anion|radical|carbene)s?$", mention.text, re.IGNORECASE)
        ):
            # "which acid is mixed with nitric acid to generate the nitronium ion?"
            verb = generated.group(1)
            return f"read {mention.text!r} as what the reagents {verb}, not a compound given"
        if kept and (device := _DEVICE_AFTER.match(text[mention.end :])):
            return f"read '{mention.text} {device.group(1)}' as a device, not a compound asked"
        return None

    return _set_aside(mentions, why)


# "a cheaper NBS replacement", "as a substitute for NBS": the compound replaced
_REPLACED_AFTER = re.compile(r"^[\s-]*(replacements?|substitutes?|alternatives?)\b", re.I)
_REPLACED_BEFORE = re.compile(
    r"\b(replacements?|substitutes?|alternatives?|instead) (for|to|of)\s+(the\s+)?$", re.I
)
# "... mixed with nitric acid to generate the nitronium ion": a species the reagents make
_GENERATED_BEFORE = re.compile(
    r"\bto (generate|form|produce|make|give)\s+(an?\s+|the\s+)?(active\s+)?$", re.I
)


# "the carbonate used in lithium-ion battery electrolytes", "a lead-acid battery": a device the
# compound is used in (lithium(1+) was given an IUPAC name beside the carbonate asked)
_DEVICE_AFTER = re.compile(
    r"^[\s-]*(batter(?:y|ies)|cells?(?! (?:cultures?|lines?|walls?|membranes?))|"
    r"electrolytes?|cathodes?|anodes?|accumulators?)\b",
    re.IGNORECASE,
)


# "which MW do I use for metformin HCl when I make a 100 mM stock in water?": the stock's solvent
# (water was compared with the salt as a second compound asked)
_STOCK_SOLVENT_BEFORE = re.compile(
    r"(\bstock( solution)?s?\b|\b\d+(\.\d+)?\s*(mm|µm|um|nm|mg/ml|mg ml-1)\b)[^.?!;]{0,30}"
    r"\b(in|with)\s+$",
    re.IGNORECASE,
)


# "the urea from A and B", "the fragrance ester we made from A + B": a compound described by its
# class and what it was made from ("the tablets my uncle brought back from Poland contain X",
# "my crown is made from X" describe no compound: no class word heads them)
_MADE_FROM = re.compile(
    r"\b(?:the|a|an|this|that|our|my)\s+(?:[\w-]+\s+){0,2}?(?:ureas?|esters?|amides?|ethers?|"
    r"amines?|alcohols?|ketones?|aldehydes?|imines?|salts?|acids?|carbamates?|sulfonamides?|"
    r"lactones?|lactams?|acetals?|compounds?|molecules?|intermediates?|adducts?|derivatives?|"
    r"drugs?|dyes?|fragrances?)\s+"
    r"(?:(?:that\s+)?(?:we|i|they|you)\s+)?(?:(?:made|prepared|synthesi[sz]ed|obtained|formed|"
    r"got)\s+)?from\s+(?:the\s+|an?\s+)?",
    re.IGNORECASE,
)


# "2,6-xylidine CAS? (the lidocaine starting material)": what the compound asked about is used to
# make, named to say which compound is meant (lidocaine's CAS number was answered)
_USED_TO_MAKE = re.compile(
    r"\bthe\s+(?P<name>[^\s()]+)\s+(starting material|precursor|intermediate|building block|"
    r"side[- ]product|by-?product|impurity|reagent)s?\b",
    re.IGNORECASE,
)


def _description_end(text: str, start: int) -> int:
    """Where a description that starts at ``start`` ends: at a sentence's end, or at the bracket
    that closes an aside it stands in (brackets inside a name, "3-(trifluoromethyl)", nest)."""
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char in "?!;" or (char == "." and text[index + 1 : index + 2] in (" ", "")):
            return index
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return index
            depth -= 1
    return len(text)


def precursor_mentions(text: str, mentions: list) -> tuple[list, list[str]]:
    """Mentions of what the compound asked about was made from, or is used to make, left out of
    a compound question ("how many Ro5 violations does sorafenib have? (the urea from A and B)",
    "clogP of menthyl acetate? the ester we made from menthol + Ac2O": the precursors' values
    were answered; "2,6-xylidine CAS? (the lidocaine starting material)": lidocaine's).

    Args:
        text: the question.
        mentions: its mentions, in order.

    Returns:
        The mentions kept, and one note naming those left out (none when nothing is).
    """
    left_out: list = []
    for found in _MADE_FROM.finditer(text):
        stop = _description_end(text, found.end())
        precursors = [m for m in mentions if found.end() <= m.start < stop]
        if not precursors or precursors[0].start != found.end():
            continue  # "the ester from the bottle": no compound follows "from"
        # the class word may itself be a compound's name ("the urea from ..."): not asked either
        left_out += [m for m in mentions if found.start() <= m.start < stop and m not in left_out]
    made = [
        m
        for found in _USED_TO_MAKE.finditer(text)
        for m in mentions
        if m.start == found.start("name") and m is not mentions[0]
    ]
    notes = [
        f"read {m.text!r} as what the compound asked about is used to make, not as the compound "
        "asked about"
        for m in made
    ]
    mentions = [m for m in mentions if m not in made]
    if not left_out:
        return mentions, notes
    names = ", ".join(repr(m.text) for m in left_out)
    note = (
        f"read {names} as what the compound asked about was made from, not as the compound "
        "asked about"
    )
    return [m for m in mentions if m not in left_out], [*notes, note]


# "CCOC(=O)C1CCNCC1 – IUPAC name? it's a piperidine building block": a ring or parent named as
# the class of the compound asked about (piperidine's name was answered beside it)
_CLASS_NOUN_AFTER = re.compile(
    r"^[\s-]*(building[- ]blocks?|derivatives?|scaffolds?|analogu?es?|cores?|fragments?|motifs?|"
    r"-?based (compounds?|molecules?|drugs?)|-?containing (compounds?|molecules?|drugs?)|"
    r"(ring )?systems?)\b",
    re.IGNORECASE,
)
_ARTICLE_BEFORE = re.compile(r"\b(a|an|the|this|our|my)\s*$", re.IGNORECASE)
_ARTICLE_AND_ADJECTIVES_BEFORE = re.compile(
    r"\b(a|an|the|this|our|my)\s+(?:[a-z]+\s+){0,2}$|\b(a|an|the|this|our|my)\s*$",
    re.IGNORECASE,
)


def holds_structure(whole, part) -> bool:
    """Whether ``whole``'s structure holds ``part``'s, charges aside ("carbonate" in ethylene
    carbonate), and more atoms besides.

    Args:
        whole: a mention with a structure (or None).
        part: another mention with a structure (or None).

    Returns:
        False when either has no structure.
    """
    from rdkit import Chem
    from rdkit.Chem.MolStandardize import rdMolStandardize

    if whole.structure is None or part.structure is None:
        return False
    big = Chem.MolFromSmiles(whole.structure.smiles)
    small = Chem.MolFromSmiles(part.structure.smiles)
    if big is None or small is None:
        return False
    small = rdMolStandardize.Uncharger().uncharge(small)
    return big.GetNumHeavyAtoms() > small.GetNumHeavyAtoms() and big.HasSubstructMatch(small)


def class_named_by_parent(text: str, mentions: list) -> tuple[list, list[str]]:
    """Mentions that name the class of another compound of the question ("it's a piperidine
    building block", "a pyridine derivative") rather than a compound asked about: left out,
    with a note, when the compound they describe holds their structure.

    Args:
        text: the question.
        mentions: its mentions, in order.

    Returns:
        The mentions kept, and one note per mention left out.
    """
    resolved = [m for m in mentions if m.structure is not None]
    kept, notes = [], []
    for k, mention in enumerate(mentions):
        others = [m for m in resolved if m is not mention]
        following = mentions[k + 1] if k + 1 < len(mentions) else None
        # "the cyclic carbonate O=C1OCCO1": a class word set before the structure it describes
        apposed = (
            following is not None
            and following.input_format == "smiles"
            and following.structure is not None
            and not text[mention.end : following.start].strip()
            and _ARTICLE_AND_ADJECTIVES_BEFORE.search(text[: mention.start])
        )
        if apposed:
            others = [following]
        if (
            mention.structure is None
            or not others
            or not (apposed or _CLASS_NOUN_AFTER.match(text[mention.end :]))
            or not _ARTICLE_AND_ADJECTIVES_BEFORE.search(text[: mention.start])
            or (not apposed and not _ARTICLE_BEFORE.search(text[: mention.start]))
        ):
            kept.append(mention)
            continue
        holders = [m for m in others if holds_structure(m, mention)]
        if not holders:
            kept.append(mention)
            continue
        notes.append(
            f"read {mention.text!r} as the class of {holders[0].text!r}, not as a compound asked "
            "about"
        )
    return kept, notes


# "I dissolved aspirin in ethanol, what's its MW?", "after recrystallising ibuprofen from
# hexane", "menthol in an ethanol solution": the medium a compound is handled in
_MEDIUM_BEFORE = re.compile(
    r"\b(dissolv\w+|recrystalli[sz]\w+|crystalli[sz]\w+|extract\w*|suspend\w*|stored|kept|"
    r"diluted?|washed|triturated?|(in)?solub\w+|miscib\w+|dissolves?)\b[^,.;?!]{0,40}\b(in|from|with)"
    r"\s+(an?\s+|the\s+|some\s+)?$"
    # "100 µg/mL in methanol", "a 0.1 M solution in water": the medium of a concentration given
    r"|\b\d+(?:[.,]\d+)?\s*(?:µg|ug|mg|ng|g|mmol|mol|m|mm|µm)\s*(?:/\s*m?l)?\s+(?:solution\s+)?in\s+$",
    re.IGNORECASE,
)
_MEDIUM_AFTER = re.compile(r"^\s+(solution|solvent)\b", re.IGNORECASE)


def medium_mentions(text: str, mentions: list) -> tuple[list, list[str]]:
    """For a fact of a compound: the mentions that name the medium another compound is handled
    in (dissolved in, recrystallised from, "an ethanol solution"), set aside with a note; the
    weight of ethanol was given beside aspirin's for "I dissolved aspirin in ethanol, what's
    its MW?".

    Args:
        text: the question.
        mentions: its mentions, in order.

    Returns:
        The mentions kept (all of them when no other mention would be left), and one note per
        mention set aside.
    """
    medium = [
        m
        for m in mentions
        if _MEDIUM_BEFORE.search(text[max(0, m.start - 60) : m.start])
        or _MEDIUM_AFTER.match(text[m.end :])
        or re.search(r"\ssolution$", m.text, re.IGNORECASE)  # "an ethanol solution"
    ]
    kept = [m for m in mentions if m not in medium]
    # (an unresolved compound handled in the medium is still the one asked: "atrazine-d5, 100
    # µg/mL in methanol – exact mass?" had been answered with methanol's)
    if not medium or not kept:
        return mentions, []
    return kept, [f"read {m.text!r} as the medium, not a compound asked about" for m in medium]


# where a clause of a question ends: "?", "!", ";", a full stop before a space or at the end, a
# dash between spaces (not a comma or colon: "for the SI, what's the CAS of X" is one clause)
CLAUSE_END = re.compile(r"[?!;]|\.(?:\s|$)|\s[–—-]\s")


def clause_span(text: str, at: int) -> tuple[int, int]:
    """The span of the clause of ``text`` that holds position ``at``.

    Args:
        text: a question.
        at: a position in it.

    Returns:
        (start, end) of the clause, its ending mark left out.
    """
    start = 0
    for end in CLAUSE_END.finditer(text):
        if end.start() >= at:
            return start, end.start()
        start = end.end()
    return start, len(text)


def asking_clause(text: str) -> str:
    """The clause of ``text`` that asks: the last question ("...?") when only remarks follow it
    ("what's the CAS of X? our shelf only has the 3-isomer"), otherwise the last clause.

    Args:
        text: a question.

    Returns:
        That clause's text, stripped (the whole text when it has one clause).
    """
    clauses, start = [], 0
    for end in CLAUSE_END.finditer(text):
        clauses.append((text[start : end.start()], end.group(0).strip()))
        start = end.end()
    clauses.append((text[start:], ""))
    clauses = [(body.strip(), mark) for body, mark in clauses if body.strip()]
    if not clauses:
        return text.strip()
    questions = [i for i, (_, mark) in enumerate(clauses) if mark == "?"]
    if questions and all(mark != "?" for _, mark in clauses[questions[-1] + 1 :]):
        return clauses[questions[-1]][0]
    return clauses[-1][0]


# a process a reagent names: "the NaBH3CN reductive amination", "the DCC coupling", "our HATU step"
PROCESS_NAMED = re.compile(
    r"^\s+(?:(?:reductive|oxidative|catalytic|asymmetric)\s+)?(?:aminations?|reductions?|"
    r"oxidations?|couplings?|acylations?|alkylations?|esterifications?|hydrogenations?|"
    r"deprotections?|protections?|condensations?|reactions?|steps?|work-?ups?|quench(?:es)?)\b",
    re.IGNORECASE,
)


def process_reagents(text: str, mentions: list) -> tuple[list, list[str]]:
    """Mentions that name the reagent of a process ("the racemate from the NaBH3CN reductive
    amination – what is its CAS number?"), set aside when the question names another compound
    to ask a compound's fact of: the fact is not asked of the reagent.

    Args:
        text: the question.
        mentions: its mentions, in order.

    Returns:
        The mentions kept, and a note per mention set aside.
    """
    resolved = [m for m in mentions if m.resolved]
    named = [m for m in resolved if PROCESS_NAMED.match(text[m.end : m.end + 40])]
    if not named or len(named) == len(resolved):
        return mentions, []
    notes = [
        f"read {m.text!r} as the reagent of the process it names, not a compound asked about"
        for m in named
    ]
    return [m for m in mentions if m not in named], notes
