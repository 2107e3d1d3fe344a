"""A salt or hydrate form the question asks for, beside the compound it names.

"MW of the hydrochloride salt of lidocaine", "mw of TBAF trihydrate", "SMILES of the sodium
salt of aspirin": the mention finder resolves "lidocaine", "TBAF" and "aspirin" to the free
compounds, and answering for them gives a confidently wrong molecular weight (lidocaine is
234.34 g/mol, its hydrochloride 270.80). When the dictionary knows the form by name
("sodium acetate trihydrate", "CuSO4·5H2O") the mention already covers it; otherwise the
mention is marked unresolved, with the form named, so the answer says what it could not do.
"""

from __future__ import annotations

import dataclasses
import re

from chemground.chem.mentions import Mention
from chemground.chem.names import subscript_digits
from chemground.chem.peptide_notation import SALT_ACIDS
from chemground.reasoning.question_text import PROCESS_NAMED

_FORM = (
    r"(?:mono|di|tri|tetra|penta|hexa|hepta|octa|nona|deca|hemi|sesqui)?hydrates?|"
    r"hydrochlorides?|dihydrochlorides?|hydrobromides?|hydroiodides?|"
    r"mesylates?|tosylates?|besylates?|citrates?|maleates?|fumarates?|tartrates?|"
    r"succinates?|oxalate salt|acetate salt|sulfate salt|phosphate salt|"
    # "morphine sulfate", "estradiol benzoate": a name the dictionary knows is one mention
    # ("copper sulfate", "methyl salicylate"), so these words after a compound are its salt or
    # ester, which the compound alone is not
    r"sulfates?|bisulfates?|hydrogen sulfates?|phosphates?|acetates?|nitrates?|bitartrates?|"
    r"lactates?|gluconates?|stearates?|benzoates?|valerates?|propionates?|salicylates?|"
    r"(?:sodium|potassium|calcium|magnesium|lithium|ammonium|hcl|hbr|tfa) salts?"
)
# "lidocaine HCl", "lidocaine·HCl", "TBAF trihydrate", "aspirin sodium salt"
_FORM_AFTER = re.compile(
    rf"^\s*(?:[·.•*]\s*|\s)(?:\d\s*)?({_FORM}|hcl|hbr|2hcl|tfa|x ?h2o|\d?\s*h2o)\b", re.IGNORECASE
)
# Another compound named by its relation to the one named: "the enantiomer of L-alanine", "the
# dimer of acetic acid", "caffeine's metabolite" (each was answered for the compound itself)
_RELATION = (
    r"enantiomers?|diastereomers?|epimers?|racemates?|tautomers?|(?:di|tri|tetra|oligo)mers?|"
    r"metabolites?|prodrugs?|degradation products?|(?:radical )?(?:anions?|cations?)|radicals?|"
    # "the Grignard reagent from bromobenzene", "the conjugate base of phenol", "the N-oxide of
    # pyridine": formula of bromobenzene itself was the answer
    r"grignard(?: reagents?)?|organolithiums?|(?:lithium |sodium |potassium )?enolates?|"
    r"conjugate (?:acids?|bases?)|n-oxides?|derivatives?|precursors?|isomers?|analogu?es?|"
    r"(?:methyl |ethyl |benzyl |tert-butyl )?esters?|anhydrides?|acid chlorides?|ylides?"
)
# A charge or isotope state written after the name: "the ibuprofen anion", "caffeine radical
# cation" (TPSA and logP were answered for the neutral compound)
_STATE = (
    r"(?:radical )?(?:di|tri)?(?:anions?|cations?)|radicals?|ions?|zwitterions?|carbanions?|"
    r"carbocations?|dianions?"
)
_STATE_AFTER = re.compile(rf"^\s+({_STATE})\b(?!\s+(?:exchange|chromatography|channels?))", re.I)
# ... or before it: "protonated lidocaine", "the deprotonated form of phenol", "14C-labelled
# glucose", "deuterated benzene" (a name the dictionary knows whole, "deuterated chloroform",
# is one mention and never reaches this)
_STATE_BEFORE = re.compile(
    r"\b((?:de|di|mono|doubly |singly )?protonated|ioni[sz]ed|anionic|cationic|zwitterionic|"
    r"(?:per)?deuterated|tritiated|radio-?labell?ed|isotopically labell?ed|"
    r"\d{1,3}[A-Z][a-z]?[- ]labell?ed|[A-Z]-?\d{1,3}[- ]labell?ed)\s+(?:form\s+of\s+)?(?:the\s+)?$",
    re.IGNORECASE,
)
# "our citric acid is the monohydrate – MW?": the form the compound at hand is in (the weight of
# the anhydrous acid had been given beside a compound the dictionary files as "monohydrate")
_FORM_STATED = re.compile(
    r"^\s+(?:is|was|comes as|is supplied as|is bought as)\s+(?:the|a|an|its)\s+"
    r"((?:mono|di|tri|tetra|penta|hexa|hepta|hemi|sesqui)hydrate|hydrochloride|dihydrochloride|"
    r"hydrobromide|hcl salt|hydrochloride salt)\b",
    re.IGNORECASE,
)
# "the hydrochloride salt of lidocaine", "the trihydrate of TBAF", "the enantiomer of X"
_FORM_BEFORE = re.compile(
    rf"\b({_FORM}|{_RELATION}|hcl salt|hydrochloride salt|(?:mono|di|tri)?hydrate)\s+"
    r"(?:salt\s+)?(?:form\s+)?(?:of|from|derived from|made from)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
# "caffeine's metabolite", "L-alanine's enantiomer"
# "ethanol's oxidation product", "benzaldehyde's reduction product": the formula of ethanol
# itself was answered
_RELATION_AFTER = re.compile(
    rf"^['’]s\s+(?:(?:main|major|active|primary|principal|chief)\s+)?({_RELATION}|"
    r"(?:[a-z-]+\s+)?(?:by)?products?)\b",
    re.IGNORECASE,
)


FORM_REASON = "the question asks for the "  # how an unresolved form's reason begins
_FORM_WORD = re.compile(rf"(?:{_FORM}|hcl|hbr|free (?:base|acid))", re.IGNORECASE)
_SALT_AFTER = re.compile(r"^\s+(?:salts?|forms?|free (?:base|acid))\b", re.IGNORECASE)


def is_form_word(text: str, after: str = "") -> bool:
    """Whether a mention's ``text`` (with the words ``after`` it) names a salt or hydrate form
    rather than a compound: "the monohydrate", "the hydrochloride", "the sodium salt".

    Args:
        text: the mention as written.
        after: the question's text after the mention.

    Returns:
        True for a form word.
    """
    return bool(_FORM_WORD.fullmatch(text.strip()) or _SALT_AFTER.match(after))


def names_a_form(reason: str | None) -> bool:
    """Whether an unresolved mention's reason is a salt or hydrate form (see ``mark_salt_forms``).

    Args:
        reason: the mention's reason for being unresolved.

    Returns:
        True for a form this module marked: its acid or water is not a formula to compute.
    """
    return bool(reason) and reason.startswith(FORM_REASON)


# The element a salt's anion brings, by the word that names it.
_ANION_ELEMENT = {
    "sulfate": "S",
    "bisulfate": "S",
    "mesylate": "S",
    "tosylate": "S",
    "besylate": "S",
    "phosphate": "P",
    "hydrochloride": "Cl",
    "dihydrochloride": "Cl",
    "hydrobromide": "Br",
    "hydroiodide": "I",
    "nitrate": "N",
}
_LAST_WORD = re.compile(r"(\w+?)s?\s*$")
_HYDRATE_WORD = re.compile(
    r"(?:mono|di|tri|tetra|penta|hexa|hepta|octa|nona|deca|hemi|sesqui)?hydrate"
)


def _own_salt_word(mention: Mention) -> tuple[str, int, int] | None:
    """A salt the mention's own words name but its structure lacks: PubChem lists "morphine
    sulfate" among morphine's synonyms, so the dictionary answers the free base (285.34 g/mol)
    for the sulfate. A name whose structure carries the anion's element is the salt or ester
    itself ("dimethyl sulfate", "lidocaine hydrochloride")."""
    found = _LAST_WORD.search(mention.text.lower())
    if found is None or mention.structure is None or " " not in mention.text.strip():
        return None
    if _HYDRATE_WORD.fullmatch(found.group(1)):
        # "caffeine monohydrate" is a synonym of anhydrous caffeine (194.19 g/mol; the hydrate
        # is 212.21): a structure without a water component is not the hydrate
        waters = [part for part in mention.structure.smiles.split(".") if part == "O"]
        # ("tin(II) chloride dihydrate" is filed with one water: the name's count decides)
        if waters and len(waters) == _WATERS.get(found.group(1), len(waters)):
            return None
        return found.group(1), mention.start + found.start(1), mention.start + found.end(1)
    element = _ANION_ELEMENT.get(found.group(1))
    if element is None:
        return None
    atoms = set(re.findall(r"[A-Z][a-z]?", mention.structure.formula))
    if element in atoms:
        return None
    return found.group(1), mention.start + found.start(1), mention.start + found.end(1)


def _already_in_state(mention: Mention, state: str) -> bool:
    """Whether the mention's structure already is the ion or radical named after it ("the
    ammonium cation", "the acetate anion"): then the name and the structure agree."""
    if re.search(_STATE, mention.text, re.IGNORECASE) or mention.structure is None:
        return True
    found = _charge_and_radicals(mention.structure.smiles)
    if found is None:
        return True
    charge, radicals = found
    if "radical" in state and not radicals:
        return False
    if "anion" in state:
        return charge < 0
    if "cation" in state:
        return charge > 0
    if state.startswith("ion"):
        return charge != 0
    return "radical" in state


def _counter_ion_after(
    question: str, mentions: list[Mention], index: int
) -> tuple[str, int, int] | None:
    """ "ibuprofen lysinate", "naproxen sodium": a compound named right before an ion is that
    salt (it was answered as two compounds, ibuprofen and the lysinate anion)."""
    if index + 1 >= len(mentions):
        return None
    mention, ion = mentions[index], mentions[index + 1]
    if (
        not ion.resolved
        or ion.structure is None
        or question[mention.end : ion.start].strip()
        or mention.structure is None
        or (_charge_and_radicals(mention.structure.smiles) or (0, 0))[0] != 0
        or (_charge_and_radicals(ion.structure.smiles) or (0, 0))[0] == 0
    ):
        return None
    return f"{ion.text} salt", ion.start, ion.end


def _charge_and_radicals(smiles: str) -> tuple[int, int] | None:
    """(net formal charge, radical electrons) of a structure, or None when it does not parse."""
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    return Chem.GetFormalCharge(mol), sum(a.GetNumRadicalElectrons() for a in mol.GetAtoms())


def salt_form(question: str, mention: Mention) -> tuple[str, int, int] | None:
    """The salt or hydrate form the question asks for beside ``mention``, if its name lacks it.

    Args:
        question: the question as parsed.
        mention: a compound mention found in it.

    Returns:
        The form's words ("trihydrate", "hydrochloride salt") and their span in the question,
        when the question asks for a form that the mention's text and matched name do not
        carry; else None.
    """
    own = _own_salt_word(mention)
    if own is not None:
        return own
    window_start = max(0, mention.start - 40)
    state = _STATE_AFTER.match(question[mention.end : mention.end + 30])
    if state is not None and not _already_in_state(mention, state.group(1).lower()):
        return state.group(1).lower(), mention.end + state.start(1), mention.end + state.end(1)
    state = _STATE_BEFORE.search(question[window_start : mention.start])
    if state is not None:
        # an adjective ("protonated", "13C-labelled"): its case is the chemist's
        return f"{state.group(1)} form", window_start + state.start(1), window_start + state.end(1)
    after = (
        _FORM_AFTER.match(question[mention.end : mention.end + 30])
        or _RELATION_AFTER.match(question[mention.end : mention.end + 40])
        or _FORM_STATED.match(question[mention.end : mention.end + 40])
    )
    before = _FORM_BEFORE.search(question[window_start : mention.start])
    if after is not None:
        form, start, end = after.group(1), mention.end + after.start(1), mention.end + after.end(1)
    elif before is not None and PROCESS_NAMED.match(question[mention.end : mention.end + 40]):
        return None  # "the racemate from the NaBH3CN reductive amination": made with it, not of it
    elif before is not None:
        form, start, end = (
            before.group(1),
            window_start + before.start(1),
            window_start + before.end(1),
        )
    else:
        return None
    form = form.lower()
    if re.fullmatch(_RELATION, form, re.IGNORECASE):
        return form, start, end  # "the acid chloride of benzoic acid": another compound
    named = f"{mention.text} {mention.matched_name or ''}".lower()
    stem = form.split()[0].rstrip("s")
    if stem in named or (form in ("hcl", "2hcl") and "chloride" in named):
        return None
    return form, start, end


# Forms whose composition the name fixes: the free compound and n molecules of an acid or of
# water. "valacyclovir hydrochloride" is valacyclovir.HCl (360.80 g/mol) whether or not the
# dictionary lists it; "morphine sulfate" (2:1, and a pentahydrate) or "hydrate" (n unknown)
# are not built.
_ADDED = {"hydrochloride": "Cl", "hcl": "Cl", "hydrobromide": "Br", "hbr": "Br", "hydroiodide": "I"}
_TWICE = {"dihydrochloride": "Cl", "2hcl": "Cl"}
_WATERS = {
    "monohydrate": 1,
    "dihydrate": 2,
    "trihydrate": 3,
    "tetrahydrate": 4,
    "pentahydrate": 5,
    "hexahydrate": 6,
    "heptahydrate": 7,
    "octahydrate": 8,
    "nonahydrate": 9,
    "decahydrate": 10,
}


# how a built form's note ends; the parser says the record instead when the KB has one
NO_RECORD = "; the knowledge base has no record of that form"


def built_form(mention: Mention, form: str) -> Mention | None:
    """``mention`` as the salt or hydrate ``form`` names, when the name fixes its composition.

    Args:
        mention: a resolved mention of the free compound.
        form: the form's words ("hydrochloride", "hcl salt", "trihydrate").

    Returns:
        The mention with the form's structure (the compound and its acid or waters, as
        separate components), resolved by ``salt_form`` and with a note saying how it was
        built; None when the form's composition is not fixed by its name.
    """
    from chemground.chem.structure import structure_from_smiles
    from chemground.errors import StructureError

    word = re.sub(r"\s+salt$", "", form.lower().strip())
    word = re.sub(r"s$", "", word) if word.endswith(("ides", "ates")) else word
    waters = re.fullmatch(r"(\d{0,2})\s*h2o", word)  # "·3H2O" as written after the name
    if waters:
        count = int(waters.group(1) or 1)
        word = next((w for w, n in _WATERS.items() if n == count), word)
    if mention.structure is None:
        return None
    if "." in mention.structure.smiles and word not in _WATERS:
        return None  # a salt already ("TBAF"): which ion an acid would protonate is not known
    if "." not in mention.structure.smiles and re.search(r"[+-]\]", mention.structure.smiles):
        return None  # a lone ion ("our phosphate is the monohydrate"): its salt is not known
    if word in ("tfa", "tfa salt"):  # "X·TFA": one trifluoroacetic acid
        parts, what = [SALT_ACIDS["TFA"]], "one TFA"
    elif word in _ADDED:
        parts, what = [_ADDED[word]], f"one H{_ADDED[word]}"
    elif word in _TWICE:
        parts, what = [_TWICE[word]] * 2, f"two H{_TWICE[word]}"
    elif word in _WATERS:
        n = _WATERS[word]
        parts, what = ["O"] * n, f"{n} H2O"
    else:
        return None
    base = mention.structure.smiles
    if word in _WATERS:  # the waters the name counts, not those the record has besides
        base = ".".join(part for part in base.split(".") if part != "O")
    try:
        structure = structure_from_smiles(".".join([base, *parts]))
    except StructureError:
        return None
    name = mention.matched_name or mention.text
    return _as_form(
        mention,
        structure,
        f"the {form} of {name} was built as {name} with {what} ({structure.smiles}){NO_RECORD}",
    )


def _as_form(mention: Mention, structure, note: str) -> Mention:
    """``mention`` resolved to another form of its compound (no KB record), with a note saying
    how it was read."""
    return dataclasses.replace(
        mention,
        structure=structure,
        compound_id=None,
        resolved_by="salt_form",
        reason=None,
        notes=[*mention.notes, note],
    )


# An anion named after a word nothing resolves: "MW of unobtainium chloride" was answered with
# the chloride ion's 35.45 g/mol
_ANION_WORDS = frozenset(
    """chloride bromide iodide fluoride sulfate sulphate nitrate nitrite acetate carbonate
    bicarbonate phosphate hydroxide oxide cyanide perchlorate hydride sulfide sulphide chlorate
    permanganate chromate dichromate oxalate citrate tartrate borate""".split()
)
# (or a person's name: "Krasnov's borate" is an eponymous reagent, not the borate ion)
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z-]{3,}(?:['’]s|s['’])?)\s+$")
# ... and a cation before a word nothing resolves: "sodium bicarb"
_CATION_WORDS = frozenset(
    "sodium potassium lithium calcium magnesium ammonium caesium cesium barium zinc".split()
)
_WORD_AFTER = re.compile(r"^\s+([A-Za-z][A-Za-z-]{2,})\b")


# "bupropion free base MW (not the HCl)", "the free base of sertraline": the parent compound,
# though the dictionary files the name under a salt
_FREE_FORM_AFTER = re.compile(
    r"^\s*[,(]?\s*(free[- ](base|acid)|(the )?neutral (form|compound)|"
    r"\(?\s*not (the )?(hcl|hbr|salt|hydrochloride|hydrobromide|\w+ salt)\b)",
    re.IGNORECASE,
)
_FREE_FORM_BEFORE = re.compile(r"\bfree[- ](base|acid)( form)? of (the )?$", re.IGNORECASE)


def free_form(question: str, mention: Mention) -> Mention:
    """``mention`` as its parent compound when the question asks for the free base or acid and
    the dictionary's record for the name is a salt ("bupropion free base MW (not the HCl)" was
    answered with the hydrochloride's 276.21 g/mol).

    Args:
        question: the question as parsed.
        mention: a resolved mention.

    Returns:
        The mention with the parent's structure (the largest fragment, uncharged) and a note,
        or the mention unchanged when no free form is asked or its record is no salt.
    """
    if mention.structure is None or "." not in mention.structure.smiles:
        return mention
    if not (
        _FREE_FORM_AFTER.match(question[mention.end :])
        or _FREE_FORM_BEFORE.search(question[: mention.start])
    ):
        return mention
    from rdkit import Chem
    from rdkit.Chem.MolStandardize import rdMolStandardize

    from chemground.chem.structure import structure_from_mol

    mol = Chem.MolFromSmiles(mention.structure.smiles)
    if mol is None:
        return mention
    parent = structure_from_mol(rdMolStandardize.ChargeParent(mol))
    name = mention.matched_name or mention.text
    return _as_form(
        mention,
        parent,
        f"the dictionary files {name!r} under a salt ({mention.structure.smiles}); the "
        f"question asks for the free form, answered for the parent ({parent.smiles})",
    )


def _unknown_counter_ion(
    question: str, mentions: list[Mention], index: int
) -> tuple[str, bool] | None:
    """The unknown word beside an ion mention: before an anion ("unobtainium" of "unobtainium
    chloride", answered with the chloride ion's 35.45 g/mol) or after a cation ("bicarb" of
    "sodium bicarb", answered with sodium's formula, Na).

    Args:
        question: the question as parsed.
        mentions: the mentions found in it.
        index: the ion mention's place in ``mentions``.

    Returns:
        (the word, True when it comes before the ion), when it is no English word, no other
        mention and no stop word; else None.
    """
    from chemground.chem.mentions import FUZZY_WORD_ZIPF, is_common_word, is_stop_word

    mention = mentions[index]
    name = mention.text.lower()
    if name in _ANION_WORDS:
        found = _WORD_BEFORE.search(question[max(0, mention.start - 40) : mention.start])
        start = mention.start - len(found.group(0)) if found else 0
    elif name in _CATION_WORDS:
        found = _WORD_AFTER.match(question[mention.end : mention.end + 40])
        start = mention.end + found.start(1) if found else 0
    else:
        return None
    if found is None:
        return None
    word = found.group(1)
    if any(m.start <= start < m.end for m in mentions) or is_stop_word(word):
        return None
    if is_common_word(word, FUZZY_WORD_ZIPF):
        return None
    return word, name in _ANION_WORDS


def mark_salt_forms(question: str, mentions: list[Mention]) -> tuple[list[Mention], list[str]]:
    """Mentions with any salt or hydrate form the question asks for, and the dictionary lacks,
    built when the form's name fixes its composition (``built_form``) and marked unresolved
    otherwise; a compound named inside that form ("HCl", "sodium") is no mention of its own.

    Args:
        question: the question as parsed.
        mentions: the mentions found in it.

    Returns:
        The mentions to keep, in their order, and one note per form that could not be resolved.
    """
    # "NaOAc·3H₂O" as pasted: subscript digits read as digits (one character for one)
    question = subscript_digits(question)
    mentions = [free_form(question, m) if m.resolved else m for m in mentions]
    unknown = {}
    for index, mention in enumerate(mentions):
        found = _unknown_counter_ion(question, mentions, index) if mention.resolved else None
        if found is not None and found[1] and found[0][-2:] in ("'s", "’s", "s'", "s’"):
            unknown[index] = (
                f"'{found[0]} {mention.text}' names a reagent after a person that I do not "
                f"know; the {mention.text} ion alone is not that reagent"
            )
        elif found is not None and found[1]:
            unknown[index] = (
                f"'{found[0]} {mention.text}' names a salt of '{found[0]}', which is no element "
                f"or compound I know; the {mention.text} ion alone is not that salt"
            )
        elif found is not None:
            unknown[index] = (
                f"'{mention.text} {found[0]}' names a {mention.text} salt whose anion "
                f"'{found[0]}' I do not know; {mention.text} alone is not that salt"
            )
    if unknown:
        mentions = [m.unresolved(unknown[i]) if i in unknown else m for i, m in enumerate(mentions)]
    forms = {}
    for index, mention in enumerate(mentions):
        if mention.resolved:
            found = salt_form(question, mention) or _counter_ion_after(question, mentions, index)
            if found is not None:
                forms[index] = found
    if not forms:
        return mentions, []
    spans = [(start, end) for _, start, end in forms.values()]
    out: list[Mention] = []
    notes: list[str] = []
    for index, mention in enumerate(mentions):
        if index not in forms:
            inside = any(start <= mention.start and mention.end <= end for start, end in spans)
            if not inside:
                out.append(mention)
            continue
        form, form_start, form_end = forms[index]
        name = mention.matched_name or mention.text
        if mention.start <= form_start <= mention.end:  # "morphine sulfate": the base's words
            name = mention.text[: form_start - mention.start].strip() or name
        written = question[form_start:form_end]  # the form as typed: "HCl", not "hcl"
        count = re.search(r"(\d{1,2})\s*$", question[max(0, form_start - 3) : form_start])
        if written.lower() == "h2o" and count:  # "NaOAc·3H2O": three waters, not one
            written = count.group(1) + written
        built = built_form(dataclasses.replace(mention, matched_name=name), written)
        if built is not None:
            # the mention spans the form's words: answers name "valacyclovir hydrochloride"
            start, end = min(mention.start, form_start), max(mention.end, form_end)
            out.append(
                dataclasses.replace(
                    built,
                    text=question[start:end],
                    start=start,
                    end=end,
                    matched_name=question[start:end],
                )
            )
            continue
        named = next(
            (
                m
                for m in mentions
                if m is not mention
                and m.start >= max(form_end, mention.end)
                and not question[form_end : m.start].strip(" ,:(")
            ),
            None,
        )
        if named is not None and named.resolved:
            continue  # "codeine's metabolite morphine": the relation's compound is named after it
        reason = (
            f"{FORM_REASON}{form} of {name}; the knowledge base resolved {name} "
            "itself, not that form, and answering for it would give the wrong compound"
        )
        notes.append(reason)
        out.append(mention.unresolved(reason))
    return out, notes
