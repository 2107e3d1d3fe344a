"""Finding chemical mentions in free text: SMILES tokens, dictionary names, systematic names.

A question writes compounds in many ways: a SMILES anywhere ("CC(=O)Nc1ccc(O)cc1?"), a
systematic name with commas, brackets and primes ("N'-benzylidenebenzohydrazide"), a common
name or synonym ("aspirin"), an abbreviation ("THF"), or a name with a typo ("benzaldehyd").
The finder tries, at each position, the longest span first:
  1. SMILES tokens (parsed by RDKit);
  2. dictionary names over spans of up to ``MAX_SPAN_WORDS`` words (one batched SQL query);
  3. OPSIN for runs of words that look systematic;
  4. fuzzy matching (rapidfuzz, with a similarity floor) for words that look like names
     but matched nothing, reporting the correction.
Common English and question words never count as compounds on their own (one stop list,
``data/stopwords.txt``, for every path).

The same finder reads papers' passages for the literature index (``passages=True``): there
the dictionary's names come from a ``MemoryNameIndex`` (every name in memory, as thousands of
passages are read) rather than one SQL query per text, no typo is corrected, and running text
is read more strictly (``_plausible_in_passage``, formulas, SMILES syntax), because a paper,
unlike a question, is not written to the tool. The literature retriever reads its question
the same way, so both sides name the same compounds.

The work is linear in the length of the text and bounded whatever the text: at most
``MAX_MENTIONS`` mentions, ``MAX_OPSIN_ATTEMPTS`` OPSIN calls (``MAX_OPSIN_CHARS`` characters in
all), ``MAX_FUZZY_ATTEMPTS`` typo look-ups and ``MAX_SMILES_ATTEMPTS`` SMILES parses per text,
and only the first ``MAX_SCAN_CHARS`` characters are read (questions are shorter: see
``reasoning.parser``; LLM answers may not be).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Protocol

from rdkit import Chem

from chemground.chem.formula import SYMBOLS
from chemground.chem.names import (
    SURFACTANT_NAME,
    NameResolver,
    deuterium_label_last,
    deuterium_label_reading,
    expanded_substituents,
    guess_name_format,
    heavy_label_reading,
    heavy_label_stripped,
    normalize_name,
    not_one_compound,
    recase_name,
    subscript_digits,
)
from chemground.chem.peptide_notation import (
    SALT_ACIDS,
    looks_like_peptide_shorthand,
    peptide_to_smiles,
)
from chemground.chem.stereo_names import StereoMismatch, reconcile_stereo
from chemground.chem.structure import (
    MAX_NAME_CHARS,
    Structure,
    looks_like_smiles,
    mol_from_smiles,
    structure_from_smiles,
    unassigned_stereocentres,
)
from chemground.errors import ChemgroundError, StructureError, StructureLimitError

MAX_SPAN_WORDS = 10
MAX_OPSIN_ATTEMPTS = 24
MAX_FUZZY_WORDS = 4
# Bounds per text (see the module docstring); a normal question uses at most 4 mentions,
# 3 OPSIN calls and 7 typo look-ups (the 677 user-style questions of benchmarks/user_questions).
MAX_MENTIONS = 32
MAX_OPSIN_CHARS = 3_000
MAX_FUZZY_ATTEMPTS = 12  # ~15 ms each over the default KB's names
MAX_SMILES_ATTEMPTS = 64
MAX_SCAN_CHARS = 20_000
CONTINUATION_MIN_SCORE = 90.0
_LOCANT_SUBSTITUENT = re.compile(r"\d+(?:,\d+)*-[a-z]+yl(?:idene)?", re.IGNORECASE)
_BUFFER_AFTER = re.compile(r"\s+buffers?\b", re.IGNORECASE)
NEAR_MISS_MIN_LETTERS = 7  # shorter words one letter from a name are often words or other names


def _word_list(resource: str) -> frozenset[str]:
    """The words of a list in ``chem/data`` (whitespace-separated; '#' starts a comment line).

    Args:
        resource: the file name inside ``chemground/chem/data``.

    Returns:
        The words, lower case.
    """
    text = (resources.files("chemground.chem") / "data" / resource).read_text(encoding="utf-8")
    lines = (line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return frozenset(word.lower() for line in lines for word in line.split())


# Words that are never a compound on their own (some are junk PubChem synonyms, e.g. "product"):
# one list, kept as data, for questions and papers' passages alike.
STOPWORDS = _word_list("stopwords.txt")

# Function words never start or end a name of several words ("of aspirin", "ethanol and").
FUNCTION_WORDS = set(
    """
a all also among an and any are as at be been between both but by can could did do does each
few for from give gives had has have he her here his how however if in into is it its just many
may might more most much must never new no nor not now of off on once one only or other our out
over per same she should since so some still such than that the their them then there these
they this those three through thus to too two under up used using very versus via vs was we well
were what when where whether which while who why will with within without would yet you
""".split()
)

# Named reactions and reaction words: in a question they name a reaction, not a compound
# ("Appel", "aldol", "Swern"); never a mention on their own, nor a typo of some name.
REACTION_WORDS = set(
    """
aldol appel arndt baeyer barton baylis beckmann biginelli birch buchwald cannizzaro chan claisen
clemmensen corey crafts cuaac curtius dakin darzens dess diels alder fischer friedel gabriel
glaser grignard grubbs hartwig heck henry hiyama hofmann horner hwe jones julia knoevenagel
kolbe kumada luche mannich martin michael mitsunobu miyaura mukaiyama nazarov negishi nef
ozonolysis passerini paal knorr pictet spengler pinnick prins reformatsky ritter robinson
sandmeyer schmidt sharpless shapiro sonogashira staudinger steglich stille strecker suzuki swern
tebbe ullmann ugi vilsmeier villiger wadsworth emmons williamson wittig wolff kishner wurtz
""".split()
)
# Class words that PubChem also files as one ion or compound ("amide" = the amide anion,
# "hydrochloride" = proguanil): alone in a question they name a class, so they are only a
# compound when nothing else in the question is (see ``Mention.ambiguous``).
GENERIC_WORDS = set(
    # (natural-product classes too: "salicin, the glucoside from willow bark" was read as glucose)
    """
amide azide isocyanate isothiocyanate cyanate nitro hydrochloride hydrobromide borohydride
hydride diene dienophile alkyne alkene alkane arene epoxide nitrile imine enamine enol enolate
ylide carbanion carbocation halide carbamate anhydride azo diazo peroxide hydroperoxide oxidant
reductant thiol sulfonamide lactone lactam carbodiimide azodicarboxylate acetonide acetonides
glucoside glycoside alkaloid flavonoid terpene terpenoid steroid saponin polyphenol
amino-acid amino-acids diacid diacids diol diols
monohydrate dihydrate trihydrate hemihydrate sesquihydrate dihydrochloride dihydrobromide
""".split()
) | {  # class names of two words: "the acid chloride of benzoic acid" is not one compound
    f"{name}{plural}"
    for name in (
        "amino acid",
        "fatty acid",  # "coconut fatty acids" were read as formic acid
        "acid chloride",
        "acyl chloride",
        "boronic acid",
        "boronic ester",
        "aryl bromide",
        "aryl chloride",
        "aryl iodide",
        "aryl halide",
        "alkyl halide",
        "benzylic bromide",  # "we need the benzylic bromide": a class, not benzyl bromide
        "benzylic halide",
        "allylic bromide",
        "phosphine ligand",  # "which phosphine ligand": not PH3
        "free acid",  # "MW of MOPS free acid": the form, filed as some compound
        "free base",
        "palladium source",
        "sulfonyl chloride",
        "grignard reagent",
        "carboxylic acid",
        "primary amine",
        "secondary amine",
        "tertiary amine",
        "terminal alkyne",
    )
    for plural in ("", "s")
}
# Words a question uses for a bond or an atom, not a compound: "hydrogen bond", "carbon atom".
_NOT_COMPOUND_AFTER = re.compile(
    r"^[\s-]*(?:bond|bonds|bonding|atom|atoms|count|counts|nmr|isotope|isotopes)\b", re.IGNORECASE
)
# the second word of a two-word name ("4-MeO-phenylboronic acid", "4-Cl-benzoyl chloride")
_NAME_SECOND_WORDS = frozenset(
    "acid anhydride chloride bromide iodide fluoride ester alcohol aldehyde amine amide ether "
    "ketone nitrile hydrochloride acetate oxide sulfonate carbonate".split()
)
# "the 400 MHz queue ... jump it for one quick proton?": a spectrum by its nucleus, not the ion
_NMR_NUCLEI = frozenset({"proton", "protons", "carbon", "fluorine", "phosphorus"})
_NMR_CONTEXT = re.compile(r"\b(nmr|mhz|spectr\w*|queue|shim\w*|cdcl3|dmso-d6|1h|13c)\b", re.I)
_ION_ASKED = re.compile(r"\b(mass|weight|charge|smiles)\s+of\s+(a|the)\s+proton\b", re.I)
# "to ethylate paracetamol", "to benzylate the amine": an -ylate word after "to" is a verb, not
# the salt some dictionary synonym makes of it ("ethylate" is filed under acetic acid).
_VERB_BEFORE = re.compile(r"\bto\s*$", re.IGNORECASE)
_ALKYLATE_VERB = re.compile(r"^[a-z]+(?:yl|oyl)ate$", re.IGNORECASE)
# "thiophenol is methylated", "after benzylating the amine": the participle is never a compound
_ALKYLATE_PARTICIPLE = re.compile(r"^[a-z]+(?:yl|oyl)at(?:ed|ing)$", re.IGNORECASE)
# "Which urea forms from ...?", "what ester do you get": the class of the answer, not a compound
# the question names (urea is filed as a compound, and was taken for a reactant)
_ANSWER_DETERMINER = re.compile(r"\b(?:which|what)\s*$", re.IGNORECASE)
_ANSWER_VERB = re.compile(
    r"^\s*(?:forms?|is formed|are formed|results?|is produced|is obtained|comes out|"
    r"(?:do|would|will|can|should) (?:i|you|we|one) (?:get|obtain|expect)|would form|will form)\b",
    re.IGNORECASE,
)
# Contractions and possessives: "I'm", "it's", "don't", "ibuprofen's" (the word is its base).
_CONTRACTION = re.compile(r"^(.+?)(?:n['’]t|['’](?:s|m|re|ve|ll|d))$", re.IGNORECASE)
# "ca. 1", "rt; 2 h. E": a name does not run across sentences or clauses
_CLAUSE_BREAK = re.compile(r"[.;:!?]\s")
_ARROW_BETWEEN = re.compile(r"->|→|⟶|=>|<-|←|\s\+\s")
_ACIDS_SHARING_NOUN = re.compile(
    r"\b([a-z]+ic)\s+(?:and|&|or|/)\s+([a-z]+ic)\s+acids\b", re.IGNORECASE
)
_EVERYDAY_NAME = re.compile(r"\bvitamin\s+[A-K]\d{0,2}\b|\btable\s+(?:salt|sugar)\b", re.IGNORECASE)
_CAS_TOKEN = re.compile(r"^\d{2,7}-\d{2}-\d$")
_INCHIKEY_TOKEN = re.compile(r"^[A-Z]{14}-[A-Z]{10}-[A-Z]$")
# Letters-only SMILES chemists type for small halogen compounds ("BrBr", "ClCCl", "BrCCBr").
_HALOGEN_SMILES = re.compile(r"^(?:Br|Cl|C|N|O|S|F|I)+$")
# How a fuzzy correction may not change a name's ending: "…hydrazone" is not "…hydrazine".
_SUFFIXES = (
    "amine",
    "amide",
    "one",
    "ine",
    "ane",
    "ene",
    "yne",
    "ol",
    "al",
    "ide",
    "ate",
    "ite",
    "yl",
)
# verbs of what is done to a compound, in the third person ("brominates", "deprotonates")
_WHAT_IS_DONE = re.compile(
    r"^(?:de)?(?:brominat|chlorinat|iodinat|fluorinat|halogenat|hydrogenat|protonat|formylat|"
    r"acetylat|acylat|alkylat|arylat|carboxylat|oxidi[sz]|reduc|epoxidi[sz]|hydrogenolys|"
    r"sulfonat|nitrat|aminat|hydrat|esterifi|saponifi)(?:es|s)$",
    re.IGNORECASE,
)
_PROCESS_WORD = re.compile(
    r"(?:ation|ations|ing|ysis|yses|yse|yze|yzed|ise|ize|ised|ized|ant|ants|"
    # participles of what is done: "hydrolysed" was corrected to "hydrolysine"
    r"ysed|ated|uced|ified)$",
    re.IGNORECASE,
)

# Symbols that are also English words or too ambiguous to be read as elements in a question.
AMBIGUOUS_SHORT = {
    "in",
    "as",
    "at",
    "be",
    "he",
    "no",
    "i",
    "es",
    "am",
    "ho",
    "bi",
    "co",
    "cs",
    "ca",
    "s",
    "b",
    "c",
    "n",
    "o",
    "p",
    "f",
    "k",
    "u",
    "v",
    "w",
    "y",
    "ar",
    "ne",
    "pa",
    "ga",
    "la",
    "ac",
    "h",
    "d",
    "t",
}
SHORT_SYNONYM_LETTERS = 4  # a PubChem synonym this short ("IM", "EQ", "TPSA") is a word first
_ELEMENT_SYMBOL = re.compile(r"^[A-Z][a-z]?$")
_WORD = re.compile(r"\S+")
_OUTER_LEFT = "\"'`“”‘’([{<"
_OUTER_RIGHT = "\"'`“”‘’)]}>?!.,;:"
_SMILES_SYNTAX = re.compile(r"[\[\]=#@()/\\]|\d")
_SYSTEMATIC = re.compile(
    r"\d|[(\[]|yl\b|ylidene|oxy|amino|amido|oxo|hydroxy|chloro|bromo|fluoro|iodo|nitro|cyano|methyl|ethyl|propyl|"
    r"butyl|pentyl|hexyl|phenyl|benz|naphth|pyri|pyrr|furan|thiophen|indol|quinolin|piperid|piperaz|morpholin|"
    r"imidazol|triazol|azol|azin|oic\b|amide\b|amine\b|ane\b|ene\b|yne\b|ol\b|one\b|al\b|ate\b|ite\b|ide\b|ium\b",
    re.IGNORECASE,
)
CHEMICAL_CLASS_WORDS = {
    "acid",
    "anhydride",
    "chloride",
    "bromide",
    "iodide",
    "fluoride",
    "ester",
    "ether",
    "oxide",
    "hydrochloride",
    "hydrobromide",
    "sulfate",
    "nitrate",
    "acetate",
    "hydrate",
    "monohydrate",
    "dihydrate",
    "sodium",
    "potassium",
    "lithium",
    "salt",
    "amide",
    "alcohol",
    "aldehyde",
    "ketone",
    "carbonate",
    "phosphate",
    "hydroxide",
    "cyanide",
    "hydrazide",
    "hydrazone",
    "oxime",
    "nitrile",
    "imine",
    "azide",
    "imide",
    "lactone",
    "lactam",
    "anilide",
    "methyl",
    "ethyl",
    "propyl",
    "butyl",
    "benzyl",
    "phenyl",
}
# Alkyl/aryl words that open a two-word ester or salt name ("butyl N-phenylcarbamate",
# "trioctyl borate", "tris(3-chloranylpropyl) phosphate").
_ALKYL_WORD = re.compile(r"^[\w,'()\[\]-]*(?:yl|yl\)|ylidene)$", re.IGNORECASE)


# The last word of a salt or ester name ("benzoate", "sulfite", "chloride"): alone, an anion.
_ANION_WORD = re.compile(r"[a-z]{3,}(?:ate|ite|ide)")


def _alkyl_word(word: str) -> bool:
    word = word.strip(
        _OUTER_LEFT.replace("(", "").replace("[", "")
        + _OUTER_RIGHT.replace(")", "").replace("]", "")
    )
    return len(word) >= 4 and bool(_ALKYL_WORD.match(word)) and word.lower() not in STOPWORDS


def _element_names() -> frozenset[str]:
    table = (
        Chem.GetPeriodicTable()
    )  # RDKit's names; `chemicals` had the same 118 but cost ~75 ms to import
    names = frozenset(table.GetElementName(number).lower() for number in range(1, 119))
    return names | {"aluminum", "sulphur", "cesium"}


# Element names ("tungsten"): OPSIN reads them, but they match no systematic-name pattern.
ELEMENT_NAMES = _element_names()


@dataclass
class Mention:
    """A chemical mention in a text, resolved to a structure or with the reason it is not."""

    text: str
    start: int
    end: int
    input_format: str  # smiles | iupac | common_name | inchi | cas
    structure: Structure | None = None
    compound_id: int | None = None
    resolved_by: str = ""  # smiles | dictionary | opsin | fuzzy
    matched_name: str | None = None
    correction: str | None = None  # the name a typo was corrected to
    confidence: float = 1.0
    reason: str | None = None  # why it could not be resolved
    notes: list[str] = field(default_factory=list)
    # why the text may not mean a compound at all ("IM", "azide"): such a mention is dropped
    # when the question names another compound (see ``MentionFinder.find_detailed``)
    ambiguous: str | None = None

    @property
    def resolved(self) -> bool:
        return self.structure is not None or self.compound_id is not None

    @property
    def inchikey(self) -> str:
        """The structure's InChIKey ("" without a structure): how papers and questions meet."""
        return self.structure.inchikey if self.structure is not None else ""

    @property
    def connectivity(self) -> str:
        """InChIKey skeleton (first block): same compound up to stereo, isotopes, charge."""
        return self.inchikey[:14]

    @property
    def source(self) -> str:
        """How it was resolved (dictionary, smiles, opsin, abbreviation...), as papers store it."""
        return self.resolved_by

    def unresolved(self, reason: str) -> Mention:
        """The same words, read as no structure, with why (said, never dropped silently).

        Args:
            reason: why the structure found for the words is not what they name here.

        Returns:
            A copy without structure or compound, carrying ``reason``.
        """
        return replace(self, structure=None, compound_id=None, resolved_by="", reason=reason)


class NameIndex(Protocol):
    """Which normalised names the compound dictionary knows, and their best rank.

    The one finder reads questions and papers alike; only this look-up differs: one SQL query
    per text (``SQLNameIndex``) for a question or a few texts, or every name in memory
    (``MemoryNameIndex``) when thousands of passages are read while papers are added.
    """

    def ranks(self, norms: Iterable[str]) -> dict[str, int]:
        """Normalised name -> best rank (negative: a curated abbreviation), for known names."""
        ...


class SQLNameIndex:
    """One indexed look-up per batch of candidate spans: right for a question or a few texts."""

    def __init__(self, kb) -> None:
        self.kb = kb

    def ranks(self, norms: Iterable[str]) -> dict[str, int]:
        """Normalised name -> best rank, for those of ``norms`` the KB knows.

        Args:
            norms: normalised candidate spans.

        Returns:
            The known ones with their best rank.
        """
        return self.kb.name_ranks(n for n in norms if n)


class MemoryNameIndex:
    """Every normalised dictionary name in a Python set, for reading many passages: most
    candidate spans are not names, and a set answers that without a query; the few that are
    names get their ranks in one query."""

    def __init__(self, kb) -> None:
        self.kb = kb
        self.names = kb.all_name_norms()

    def ranks(self, norms: Iterable[str]) -> dict[str, int]:
        """Normalised name -> best rank, for those of ``norms`` the KB knows.

        Args:
            norms: normalised candidate spans.

        Returns:
            The known ones with their best rank.
        """
        known = [n for n in norms if n in self.names]
        return self.kb.name_ranks(known) if known else {}


@dataclass
class _Word:
    text: str
    start: int
    end: int


def _strip(text: str, start: int) -> tuple[str, int]:
    """Strip outer quotes/brackets/punctuation a name or SMILES does not own."""
    while text:
        if text[-1] in _OUTER_RIGHT and not (
            text[-1] in ")]}"
            and text.count(text[-1]) <= text.count({")": "(", "]": "[", "}": "{"}[text[-1]])
        ):
            text = text[:-1]
        elif text[0] in _OUTER_LEFT and not (
            text[0] in "([{"
            and text.count(text[0]) <= text.count({"(": ")", "[": "]", "{": "}"}[text[0]])
        ):
            text, start = text[1:], start + 1
        else:
            break
    return text, start


def _words(text: str) -> list[_Word]:
    out = []
    for match in _WORD.finditer(text):
        word, start = _strip(match.group(), match.start())
        contraction = _CONTRACTION.match(word)
        if contraction and contraction.group(1).isalpha():
            word = contraction.group(1)  # "I'm" -> "I", "ibuprofen's" -> "ibuprofen"
            word, start = _strip(word, start)
        if len(word) > 2 and word[0] == "(" and closing_paren(word) == len(word) - 1:
            word, start = word[1:-1], start + 1  # "(THF)", "(green)": the brackets are the text's
        if _PLURAL_MARK.fullmatch(word):
            continue  # "solvent(s)?": a role word with its plural marker, never a compound
        glued = _GLUED_FORM.fullmatch(word)
        if glued:  # "citric acid·H2O": the name's last word, then its waters (or acid)
            out.append(_Word(glued.group(1), start, start + glued.end(1)))
            word, start = glued.group(2), start + glued.start(2)
        if word:
            out.append(_Word(word, start, start + len(word)))
    return out


# substituent prefixes misspelt the same length as spelt ("flouro"): respelt before reading, so
# every offset still points into the question as asked
_PREFIX_SPELLING = {"flouro": "fluoro"}
_PREFIX_SLIP = re.compile("|".join(_PREFIX_SPELLING), re.IGNORECASE)
# a locant written apart ("1 fluoro 4 nitro benzene"), and a name piece that follows one
_LOCANT_WORD = re.compile(r"\d{1,2}(?:,\d{1,2})*'?")
_PREFIX_FIRST = re.compile(
    r"(?:nitro|amino|chloro|bromo|iodo|fluoro|methyl|ethyl|propyl|butyl|hydroxy|methoxy|"
    r"ethoxy|cyano|formyl|acetyl|phenyl|vinyl|allyl|oxo|dimethyl|dichloro|dibromo|dinitro)",
    re.IGNORECASE,
)
# the words a compound's fact is asked with, which a typo may bring one or two letters from a
# compound's name ("formual" had been corrected to a compound)
_FACT_WORDS = ("formula", "weight", "structure", "smiles", "molecular", "density", "melting")
_CLASS_WORDS_SHORT = ("acid", "ester", "ether", "amine", "oxide", "alcohol")


def _misspelt_fact_word(word: str) -> bool:
    """Whether ``word`` is a fact word with a slip or two ("formual", "weigth", "strucutre")."""
    from rapidfuzz.distance import OSA

    low = word.lower()
    return len(low) >= 5 and any(
        0 < OSA.distance(low, fact) <= (1 if len(fact) <= 6 else 2) for fact in _FACT_WORDS
    )


def _misspelt_class_word(word: str) -> bool:
    """Whether ``word`` is a class word of a name with a slip ("acd", "estr", "alchol")."""
    from rapidfuzz.distance import OSA

    low = word.lower()
    return (
        len(low) >= 3
        and low.isalpha()
        and any(OSA.distance(low, cls) == 1 for cls in _CLASS_WORDS_SHORT)
    )


# an enzyme, named after its substrate: "oxidase", "dehydrogenase", "reductases"
_ENZYME = re.compile(
    r"(?:oxid|reduct|dehydrogen|kin|phosphat|transfer|synth|isomer|hydrol|lip|prote|peptid|"
    r"ester|amyl|lact|nucle|polymer|lig|mut|peroxid|carboxyl|decarboxyl|amin|deamin|hydrat|"
    r"cycl|glucosid|galactosid|transamin|epimer|catal)ases?"
)
# a word with its plural marker: "solvent(s)?", "catalyst(s)" (read as SMILES, it hid the role)
_PLURAL_MARK = re.compile(r"[A-Za-z]{3,}\(s\)")
# an atom's locant ("C-4", "N-1", "C-3'") or an isotope ("79Br", "13C", "15N") written alone
_ATOM_LABEL = re.compile(r"[CNOSPH]-\d{1,2}'{0,2}|\d{1,3}(?:Br|Cl|C|N|O|H|F|S|P|I)")
# a word of a name with a hydrate's waters or an acid glued on by a dot: "acid·H2O", "acetate·3H2O",
# "2-amino-N-benzylacetamide·TFA" (a token that is all one abbreviation or formula, "HOBt·H2O",
# "CuSO4·5H2O", ends in a capital or a digit and is read whole)
_GLUED_FORM = re.compile(r"(\S*[a-z])[·•](\d*\s*(?:H2O|HCl|HBr|TFA))")


def closing_paren(token: str) -> int:
    """Where the bracket that opens ``token`` closes (-1: it does not)."""
    depth = 0
    for index, char in enumerate(token):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return index
    return -1


_ACID_SALT = re.compile(r"(?P<base>[^.·•\s]{2,})[.·•](?P<count>[23])?(?P<acid>HCl|HBr|HI|TFA)")


def _acid_salt(token: str) -> Structure | None:
    """The salt a curated abbreviation written with its acid names ("NH2OH.HCl", "NH2OH·HCl",
    "H2NNH2·2HCl"); None when the token is no such salt, or the curated list already holds it
    whole ("EDC·HCl"). "NH2OH.HCl" was dropped from the question without a word."""
    from chemground.kb.abbreviations import curated_abbreviation, curated_structure

    match = _ACID_SALT.fullmatch(token)
    if match is None or curated_abbreviation(token) is not None:
        return None
    if curated_abbreviation(match.group("base")) is None:
        return None
    base = curated_structure(match.group("base"))
    acid = ".".join([SALT_ACIDS[match.group("acid")]] * int(match.group("count") or 1))
    try:
        return structure_from_smiles(f"{base.smiles}.{acid}")
    except ChemgroundError:
        return None


def _split_lists(words: list[_Word], dots: bool = False) -> list[_Word]:
    """ "HNO3/H2SO4", "TFA/DCM", "4-iodoanisole/phenylacetylene": two names joined by a slash
    (not a SMILES with stereo bonds, an InChI, or one abbreviation such as "Pd/C"); and a
    hydrate's dot, "NaOAc·3H2O" (the salt forms read the water after the name)."""
    from chemground.kb.abbreviations import curated_abbreviation

    out = []
    for word in words:
        token = word.text
        parts = re.split(r"[/·•]" if dots else "/", token)
        if dots and "/" not in token and curated_abbreviation(parts[0]) is None:
            # "CuCl2·H2O": a formula with its waters, for the formula-mass tool as written (its
            # water alone was answered); "NaOAc·3H2O" is an abbreviation with its waters
            out.append(word)
            continue
        if (
            len(parts) < 2
            or any(len(p) < 2 for p in parts)
            or re.search(r"[=#\[\]@\\]", token)
            or token.startswith("InChI")
            or curated_abbreviation(token) is not None
        ):
            out.append(word)
            continue
        start = word.start
        for part in parts:
            text, begin = _strip(part, start)
            if text:
                out.append(_Word(text, begin, begin + len(text)))
            start += len(part) + 1
    return out


def _punctuation(word: _Word) -> bool:
    return not any(ch.isalnum() for ch in word.text)


# A word rarer than this in English (wordfreq Zipf) is no adjective before a salt or ester word
# ("anhydrous", "racemic", "ethanolic" are above it; "phthelic", "bnezyl" are not in English).
UNKNOWN_WORD_ZIPF = 1.0
COMMON_WORD_ZIPF = 4.0  # wordfreq Zipf frequency: 4 = once per 100,000 words of English
FUZZY_WORD_ZIPF = 3.0
# An element this frequent in English ("carbon", "copper", "sodium"; not "palladium") names, alone
# in a paper, the element as a material or an atom rather than a compound to index.
PLAIN_ELEMENT_ZIPF = 3.4


def is_common_word(word: str, threshold: float = COMMON_WORD_ZIPF) -> bool:
    """Is ``word`` frequent English (wordfreq's Zipf scale)? Loaded lazily (~0.2 s once)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word.lower(), "en") >= threshold


def is_stop_word(text: str) -> bool:
    """A word that is never a compound on its own: a stop word, or a verb of what is done to one
    ("methylated", "brominates": PubChem lists "bromates", and typo correction reached it)."""
    low = text.lower().strip("'")
    return low in STOPWORDS or bool(_ALKYLATE_PARTICIPLE.match(low) or _WHAT_IS_DONE.match(low))


@dataclass
class _Budget:
    """What one ``find`` may still spend (one per call: a finder is shared between threads)."""

    mentions: int
    found: int = 0  # mentions of finished stages
    opsin: int = MAX_OPSIN_ATTEMPTS
    opsin_chars: int = MAX_OPSIN_CHARS
    fuzzy: int = MAX_FUZZY_ATTEMPTS
    smiles: int = MAX_SMILES_ATTEMPTS
    exhausted: bool = False  # whether a bound stopped the search early
    memo: dict = field(default_factory=dict)  # per-text results of repeated look-ups

    def full(self, out: list) -> bool:
        if self.found + len(out) >= self.mentions:
            self.exhausted = True
            return True
        return False

    def take_opsin(self, name: str) -> bool:
        """Whether OPSIN may be asked about ``name`` (and charge it if so)."""
        if len(name) > MAX_NAME_CHARS:
            return False  # OPSIN refuses it anyway
        if self.opsin <= 0 or self.opsin_chars < len(name):
            self.exhausted = True
            return False
        self.opsin -= 1
        self.opsin_chars -= len(name)
        return True

    def take(self, kind: str) -> bool:
        left = getattr(self, kind)
        if left <= 0:
            self.exhausted = True
            return False
        setattr(self, kind, left - 1)
        return True


class MentionFinder:
    """Finds and resolves chemical mentions in a question or a paper's passage (see the module
    docstring).

    One finder, with the same rules, for both: what differs between a question and a bulk
    reading of papers is passed in, not a second class. ``names`` is how dictionary names
    are looked up (``SQLNameIndex`` by default, ``MemoryNameIndex`` for many passages); a
    resolver without OPSIN reads no systematic names the dictionary lacks, and no ``fuzzy``
    index means no typo correction (papers are not corrected).
    """

    def __init__(
        self,
        resolver: NameResolver | None = None,
        fuzzy=None,
        *,
        kb=None,
        names: NameIndex | None = None,
        passages: bool = False,
    ) -> None:
        """Set up a finder over one KB.

        Args:
            resolver: resolves identifiers and (with OPSIN) systematic names; its dictionary is
                the KB read unless ``kb`` is given. None: a resolver over ``kb`` without OPSIN.
            fuzzy: a ``FuzzyNameIndex``, or None to skip typo correction.
            kb: the compound dictionary, when it is not the resolver's.
            names: the name look-up; None: ``SQLNameIndex`` over the KB.
            passages: read a paper's running text rather than a question written to the tool:
                a dictionary synonym must look like a name there (``_plausible_in_passage``:
                not a generic class word, nor an element common in English, alone), a
                formula-like token names only a compound of that formula, a SMILES must show
                SMILES syntax, a carbene ("methylene") is kept, and look-alikes nothing
                resolves are not reported.

        Raises:
            ValueError: with neither a resolver nor a KB.
        """
        if resolver is None and kb is None:
            raise ValueError("a MentionFinder needs a resolver or a KB")
        self.kb = kb if kb is not None else resolver.dictionary  # type: ignore[union-attr]
        self.resolver = resolver if resolver is not None else NameResolver(self.kb)
        self.names = names or (SQLNameIndex(self.kb) if self.kb is not None else None)
        self.fuzzy = fuzzy  # a FuzzyNameIndex, or None to skip typo correction
        self.passages = passages

    def find_compounds(self, text: str, max_mentions: int = MAX_MENTIONS) -> list[Mention]:
        """The mentions of ``find`` that have a structure, so an InChIKey: what a paper's passage
        is indexed by and what a question is matched to passages with.

        Args:
            text: a question or a passage.
            max_mentions: at most this many mentions are looked for.

        Returns:
            The resolved mentions with a structure, in order.
        """
        return [m for m in self.find(text, max_mentions) if m.structure is not None]

    def find(self, text: str, max_mentions: int = MAX_MENTIONS) -> list[Mention]:
        """The mentions in ``text`` (its first ``MAX_SCAN_CHARS`` characters), in order; at most
        ``max_mentions`` (see ``find_bounded`` to know whether a bound cut the search short)."""
        return self.find_bounded(text, max_mentions)[0]

    def find_bounded(
        self, text: str, max_mentions: int = MAX_MENTIONS
    ) -> tuple[list[Mention], bool]:
        """``find``, and whether a bound (mentions, OPSIN or typo look-ups, text length) stopped
        the search before the whole text was read."""
        mentions, exhausted, _ = self.find_detailed(text, max_mentions)
        return mentions, exhausted

    def find_detailed(
        self, text: str, max_mentions: int = MAX_MENTIONS
    ) -> tuple[list[Mention], bool, list[str]]:
        """``find_bounded``, and notes on words that were read as words although the dictionary
        also knows them as a compound ("IM" for imipramine beside "caffeine")."""
        budget = _Budget(max_mentions)
        if len(text) > MAX_SCAN_CHARS:
            text, budget.exhausted = text[:MAX_SCAN_CHARS], True
        # "PhSO₂Cl", "Na₂S₂O₃" as pasted from a paper: subscript digits read as digits (one
        # character for one, so every offset still points into the question as asked)
        text = subscript_digits(text)
        respelt = _PREFIX_SLIP.findall(text)
        if respelt:  # "1 flouro 4 nitro benzene": OPSIN reads the prefix spelt right
            text = _PREFIX_SLIP.sub(lambda m: _PREFIX_SPELLING[m.group(0).lower()], text)
        words = _words(text)
        # "xanthine oxidase", "alcohol dehydrogenase": an enzyme's name holds no compound
        taken = [
            k + 1 < len(words) and bool(_ENZYME.fullmatch(words[k + 1].text.lower()))
            for k in range(len(words))
        ]
        blocked = {(w.start, w.end) for w, t in zip(words, taken) if t}
        mentions: list[Mention] = []
        for stage in (
            self._identifiers,
            self._curated,
            self._everyday,
            self._smiles,
            "split",
            self._curated,
            self._dictionary,
            "split dots",
            self._curated,
            self._condensed,
            self._shorthand_names,
            self._systematic,
            self._fuzzy,
            self._unresolved,
        ):
            if stage in ("split", "split dots"):
                # the whole tokens were tried; now the parts of "HNO3/H2SO4", and after the
                # dictionary (which knows "CuSO4·5H2O" whole) those of "NaOAc·3H2O"
                kept = [w for w, t in zip(words, taken) if not t]
                parts = _split_lists(kept, dots=stage == "split dots")
                words = [w for w, t in zip(words, taken) if t] + parts
                words.sort(key=lambda w: w.start)
                spans = {(m.start, m.end) for m in mentions} | blocked
                taken = [
                    any(m_start <= w.start and w.end <= m_end for m_start, m_end in spans)
                    for w in words
                ]
                continue
            if budget.full(mentions):
                break
            mentions += stage(text, words, taken, budget)
            budget.found = len(mentions)
        mentions = [
            _with_named_isotopes(_with_named_counter_ion(self._with_named_stereo(m)))
            for m in mentions
        ]
        mentions = [_salt_of_an_unknown(text, m, mentions) for m in mentions]
        notes = [
            f"read {word!r} as a word, not as a compound ({why})"
            for word, why in budget.memo.get("skipped", {}).items()
        ] + [f"read {slip!r} as {_PREFIX_SPELLING[slip.lower()]!r}" for slip in set(respelt)]
        # "SMILES of HMF", "MW of TBAI?", "5-HMF": the question asks a fact of the word, or a
        # locant stands before it, which makes it chemical (HMF had been read as a word and the
        # SMILES of fructose, named beside it, given instead)
        mentions = [
            replace(m, ambiguous=None)
            if m.ambiguous
            and m.ambiguous != _CLASS_OF_COMPOUNDS  # "MW of the fatty acids": still a class
            and (_chemical_context(text, m) or _compared_with_a_compound(text, m, mentions))
            else m
            for m in mentions
        ]
        if any(not m.ambiguous for m in mentions):  # another compound, resolved or not
            for m in mentions:
                if m.ambiguous:
                    notes.append(f"read {m.text!r} as a word, not as a compound ({m.ambiguous})")
            mentions = [m for m in mentions if not m.ambiguous]
        else:
            for k, m in enumerate(mentions):
                if m.ambiguous == _CLASS_OF_COMPOUNDS:
                    # "Bac anhydride smiles": "anhydride" alone names no compound (PubChem gives
                    # the word to chromic anhydride); said, not answered
                    mentions[k] = m.unresolved(m.ambiguous)
                elif m.ambiguous:
                    notes.append(
                        f"{m.text!r} may not mean a compound ({m.ambiguous}); "
                        "read it as one because the question names no other"
                    )
        return sorted(mentions[:max_mentions], key=lambda m: m.start), budget.exhausted, notes

    # -- 0. identifiers and curated reagents ---------------------------------------------------
    def _identifiers(
        self, text: str, words: list[_Word], taken: list[bool], budget: _Budget
    ) -> list[Mention]:
        """CAS numbers (check digit verified), InChIKeys and InChI strings anywhere in the text."""
        from chemground.chem.names import is_valid_cas

        out = []
        for i, word in enumerate(words):
            if budget.full(out):
                break
            token = word.text
            if _CAS_TOKEN.match(token):
                fmt = "cas"
                if not is_valid_cas(token):
                    out.append(
                        Mention(
                            token,
                            word.start,
                            word.end,
                            fmt,
                            confidence=0.0,
                            reason=f"{token} is not a valid CAS number (its check digit is wrong)",
                        )
                    )
                    taken[i] = True
                    continue
            elif _INCHIKEY_TOKEN.match(token):
                fmt = "inchikey"
            elif token.startswith("InChI="):
                fmt = "inchi"
            else:
                continue
            try:
                resolution = self.resolver.resolve(token)
            except ChemgroundError as error:
                out.append(
                    Mention(token, word.start, word.end, fmt, confidence=0.0, reason=str(error))
                )
            else:
                out.append(
                    Mention(
                        token,
                        word.start,
                        word.end,
                        fmt,
                        structure=resolution.structure,
                        compound_id=resolution.compound_id,
                        resolved_by=fmt,
                        matched_name=resolution.matched_name,
                    )
                )
            taken[i] = True
        return out

    def _curated(
        self, text: str, words: list[_Word], taken: list[bool], budget: _Budget
    ) -> list[Mention]:
        """Laboratory abbreviations and reagent formulas as chemists write them ("Br2", "PhMgBr",
        "NaBH4", "Pd(PPh3)4", "Boc2O"), from the curated list, whatever KB is open."""
        from chemground.kb.abbreviations import (
            ambiguous_abbreviation,
            curated_abbreviation,
            curated_structure,
        )

        out = []
        for i, word in enumerate(words):
            if taken[i] or budget.full(out):
                continue
            salt = _acid_salt(word.text)
            if salt is not None:  # "NH2OH.HCl", "EDC·HCl": the abbreviation as its salt
                out.append(
                    self._structure_mention(
                        word.text, word.start, "common_name", salt, "abbreviation", word.text
                    )
                )
                taken[i] = True
                continue
            entry = curated_abbreviation(word.text)
            meanings = (
                None if entry is not None or self.passages else ambiguous_abbreviation(word.text)
            )
            if meanings:  # "DEA MW?": diethylamine or diethanolamine, not deethylatrazine
                why = f"the abbreviation may mean {' or '.join(meanings)}; name the compound meant"
                out.append(Mention(word.text, word.start, word.end, "common_name", reason=why))
                taken[i] = True
                continue
            if entry is None:
                continue
            structure = curated_structure(word.text)
            formula = formula_counts(word.text) if self.passages else None
            if formula is not None and formula != formula_counts(structure.formula, strict=False):
                continue  # in a paper "PCC" is rarely pyridinium chlorochromate
            out.append(
                self._structure_mention(
                    word.text,
                    word.start,
                    "common_name",
                    structure,
                    "abbreviation",
                    entry.abbreviation,
                )
            )
            taken[i] = True
        return out

    def _everyday(
        self, text: str, words: list[_Word], taken: list[bool], budget: _Budget
    ) -> list[Mention]:
        """Vitamins by letter ("vitamin C", "vitamin B12") and "table salt": names made of words
        the stop list keeps from being names on their own ("vitamin", "table", "C"). A letter
        the dictionary files under several compounds ("vitamin B3": nicotinic acid and
        nicotinamide) or under none ("vitamin D", a family) is named, unresolved, with why."""
        if self.kb is None or self.passages:
            return []
        out = []
        for match in SURFACTANT_NAME.finditer(text):  # "Triton X-100": no single structure
            span = _free_words(words, taken, match, end_inside_word=True)
            if span is None:
                continue
            first, last = span
            raw = match.group(0)
            out.append(
                Mention(
                    raw, match.start(), match.end(), "common_name", reason=not_one_compound(raw)
                )
            )
            for k in range(first, last + 1):
                taken[k] = True
        for match in _EVERYDAY_NAME.finditer(text):
            span = _free_words(words, taken, match, end_inside_word=False)
            if span is None:
                continue
            first, last = span
            raw = match.group(0)
            hits = [h for h in self.kb.lookup_name(normalize_name(raw)) if h.structure is not None]
            keys = {h.structure.inchikey for h in hits}
            if len(keys) == 1:
                mention = self._structure_mention(
                    raw, match.start(), "common_name", hits[0].structure, "dictionary", raw
                )
                mention = replace(mention, compound_id=hits[0].compound_id)
            else:
                names = ", ".join(dict.fromkeys(self._common_name(h) for h in hits))
                why = (
                    f"the dictionary files {raw!r} under several compounds ({names}); name the "
                    "one you mean"
                    if hits
                    else f"{raw!r} names no one compound in the dictionary (a vitamin letter "
                    "without its number can name a family, such as D2 and D3)"
                )
                mention = Mention(raw, match.start(), match.end(), "common_name", reason=why)
            out.append(mention)
            for k in range(first, last + 1):
                taken[k] = True
        out.extend(self._acids_sharing_their_noun(text, words, taken))
        return out

    def _acids_sharing_their_noun(
        self, text: str, words: list[_Word], taken: list[bool]
    ) -> list[Mention]:
        """ "a mixture of nitric and sulfuric acids": two acids named with one noun. Read word by
        word, "sulfuric" was a compound nothing resolved and nitric acid was lost."""
        out = []
        for match in _ACIDS_SHARING_NOUN.finditer(text):
            span = _free_words(words, taken, match, end_inside_word=False)
            if span is None:
                continue
            found = []
            for group in (1, 2):
                name = match.group(group) + " acid"
                hits = [h for h in self.kb.lookup_name(normalize_name(name)) if h.structure]
                if not hits:
                    break
                raw = match.group(group) if group == 1 else text[match.start(2) : match.end()]
                mention = self._structure_mention(
                    raw, match.start(group), "common_name", hits[0].structure, "dictionary", name
                )
                found.append(replace(mention, compound_id=hits[0].compound_id))
            if len(found) == 2:
                out.extend(found)
                for k in range(span[0], span[1] + 1):
                    taken[k] = True
        return out

    # -- 1. SMILES -----------------------------------------------------------------------------
    def _smiles(
        self, text: str, words: list[_Word], taken: list[bool], budget: _Budget
    ) -> list[Mention]:
        out = []
        for i, word in enumerate(words):
            if budget.full(out):
                break
            if taken[i]:
                continue
            token = word.text
            if is_stop_word(token):
                continue  # "o/n", "r.t.": lab shorthand that only looks like SMILES
            if _ATOM_LABEL.fullmatch(token):
                taken[i] = True  # "C-4 of X", "(79Br)": an atom's locant or isotope, no compound
                continue
            stray = _stray_closing_bracket(text, word)
            if stray and looks_like_smiles(token) and _SMILES_SYNTAX.search(token):
                # "MW of O=C(Cl)OCc1ccccc1) please": no bracket before it opens the ")", so it
                # is the SMILES's own, and the SMILES as written is invalid (it was answered for
                # the SMILES without it)
                out.append(
                    Mention(
                        token + ")",
                        word.start,
                        word.end + 1,
                        "smiles",
                        reason="its parentheses do not balance: a ')' closes no '(' (check the "
                        "SMILES as copied)",
                        confidence=0.0,
                    )
                )
                taken[i] = True
                continue
            quoted = word.start > 0 and text[word.start - 1] in "\"'`“‘"
            letters_only = token.isalpha()
            if not looks_like_smiles(token) or (self.passages and not _smiles_syntax(token)):
                continue  # in a passage "CO", "SCN" or "C-S" are formulas and bonds, not SMILES
            halogen = (
                letters_only
                and bool(_HALOGEN_SMILES.match(token))
                and ("Br" in token or "Cl" in token)
                and len(token) >= 4
            )
            if letters_only and not (quoted or halogen or (token.isupper() and len(token) >= 3)):
                continue  # "CO", "NO", "I": words, unless quoted
            if letters_only and not quoted and not halogen and "C" not in token:
                continue  # "SOP", "NIS", "PIN": acronyms; a bare chain of heteroatoms is no SMILES
            if letters_only and self.kb is not None:
                if ("abbreviation", token) not in budget.memo:
                    hits = self.kb.lookup_name(normalize_name(token))
                    budget.memo["abbreviation", token] = bool(hits and hits[0].name_rank < 0)
                if budget.memo["abbreviation", token]:
                    continue  # a curated abbreviation (NBS, PCC): the dictionary pass takes it
            if ("smiles", token) not in budget.memo:
                if not budget.take("smiles"):
                    break
                try:
                    budget.memo["smiles", token] = structure_from_smiles(token)
                except StructureError as error:
                    budget.memo["smiles", token] = error
            structure = budget.memo["smiles", token]
            if isinstance(structure, StructureError):
                # over a limit ("SMILES has 1,500 heavy atoms"), or with SMILES syntax: say why
                if isinstance(structure, StructureLimitError) or (
                    not letters_only and _SMILES_SYNTAX.search(token)
                ):
                    out.append(
                        Mention(
                            token,
                            word.start,
                            word.end,
                            "smiles",
                            reason=str(structure),
                            confidence=0.0,
                        )
                    )
                    taken[i] = True
                continue
            out.append(self._structure_mention(token, word.start, "smiles", structure, "smiles"))
            taken[i] = True
        return out

    # -- 2. dictionary names -------------------------------------------------------------------
    def _dictionary(
        self, text: str, words: list[_Word], taken: list[bool], budget: _Budget
    ) -> list[Mention]:
        if self.kb is None:
            return []
        # every span of words that may be a name, normalised once: (first, last) -> (raw, start,
        # norm); a span never starts or ends with punctuation ("EtOH -", "+ NaBH4": arrows) nor,
        # with several words, with a function word, and never runs across a sentence or clause
        punctuation = [_punctuation(w) for w in words]
        function = [w.text.lower() in FUNCTION_WORDS for w in words]
        spans: dict[tuple[int, int], tuple[str, int, str]] = {}
        for i in range(len(words)):
            if punctuation[i]:
                continue
            for j in range(i, min(len(words), i + MAX_SPAN_WORDS)):
                if (
                    taken[j]
                    or (j > i and _CLAUSE_BREAK.search(text, words[j - 1].end, words[j].start))
                    # "benzoic acid -> methyl" is no name (the dictionary lists "benzoic acid,
                    # methyl-", which normalises to the same letters)
                    or (j > i and _ARROW_BETWEEN.search(text, words[i].start, words[j].end))
                ):
                    break
                if punctuation[j] or (j > i and (function[i] or function[j])):
                    continue
                raw, start = _strip(text[words[i].start : words[j].end], words[i].start)
                if raw.count("(") > raw.count(")") and text[start + len(raw) :].startswith(")"):
                    raw += ")"  # "paclitaxel (Taxol)": the last word's bracket was stripped
                # "d6-DMSO" is looked up as the dictionary files it, "DMSO-d6"
                norm = normalize_name(deuterium_label_last(raw) or heavy_label_stripped(raw) or raw)
                if norm:
                    spans[i, j] = (raw, start, norm)
        known = self._known_names(list({norm for _, _, norm in spans.values()}))
        ends: dict[int, list[int]] = {}  # first word -> last words of known names, longest first
        for i, j in sorted(spans, key=lambda span: (span[0], -span[1])):
            if spans[i, j][2] in known:
                ends.setdefault(i, []).append(j)
        out = []
        i = 0
        while i < len(words) and not budget.full(out):
            best = None
            for j in ends.get(i, ()):
                if any(taken[i : j + 1]):
                    continue
                raw, start, norm = spans[i, j]
                if j > i and norm.isalpha() and is_common_word(norm):
                    # "°C (Heck)" normalises to "check", a dictionary synonym: words joined
                    # into an English word are no compound's name
                    continue
                hit = self._name_hit(text, words, i, j, raw, norm, known[norm])
                if hit is not None:
                    best = (j, raw, start, hit)
                    break
                if (
                    not self.passages
                    and j == i
                    and known[norm] >= 1
                    and raw.isalpha()
                    and raw.isupper()
                    and len(raw) >= 2
                    and not is_stop_word(raw)
                ):
                    hits = self.kb.lookup_name(norm)  # "IM": say why it is not read as imipramine
                    if hits:
                        budget.memo.setdefault("skipped", {})[raw] = (
                            "a short capitalised word; the dictionary also lists it as a synonym "
                            "of "
                            f"{self._common_name(hits[0])}"
                        )
            if best is None:
                i += 1
                continue
            j, raw, start, hit = best
            why_not = not_one_compound(raw)
            if why_not is None and j == i and (slip := self._slip_of_another(raw, [hit])):
                why_not = (
                    f"the dictionary files it as a synonym of {self._common_name(hit)}, but it is "
                    f"one letter from {slip!r}, another compound; write the name meant"
                )
            buffer = _BUFFER_AFTER.match(text, start + len(raw))
            if why_not is None and buffer:  # "acetate buffer pH 4.7": no compound asked
                why_not = not_one_compound(raw + buffer.group(0))
            from chemground.kb.abbreviations import group_abbreviation

            group = group_abbreviation(raw) if hit.name_rank >= 1 else None
            if group is not None:  # "Ts mw?": the tosyl group, not tennessine
                why_not = (
                    f"it names a group, as in {group.abbreviation} ({group.name}), not a compound"
                )
            if why_not is not None:  # polymers and mixtures, filed under a monomer or component
                if buffer and j + 1 < len(words) and words[j + 1].start < buffer.end():
                    raw, j = raw + buffer.group(0), j + 1  # the mention is "acetate buffer"
                out.append(
                    Mention(
                        raw,
                        start,
                        start + len(raw),
                        "common_name",
                        reason=why_not,
                    )
                )
                for k in range(i, j + 1):
                    taken[k] = True
                i = j + 1
                continue
            if (
                hit.structure is not None
                and _substituent(hit.structure.smiles, self.passages)
                and "radical" not in text.lower()
            ):
                # "propan-2-yl", "phenylmethyl": a substituent, i.e. part of a longer (misspelt)
                # name
                i += 1
                continue
            extended = self._extend_with_opsin(text, words, taken, i, j, budget)
            if (
                extended is not None
            ):  # "benzoic acid hydrazide", "trioctyl borate": a longer systematic name
                mention, first, last = extended
                out.append(mention)
                for k in range(first, last + 1):
                    taken[k] = True
                i = last + 1
                continue
            longer = self._misspelt_prefix(text, words, taken, i, j, budget)
            if longer is not None:  # "bnezyl benzoate": one misspelt name, not "benzoate"
                out.append(longer)
                for k in range(i - 1, j + 1):
                    taken[k] = True
                i = j + 1
                continue
            if (
                i == j
                and i > 0
                and not taken[i - 1]
                and (raw.lower() in CHEMICAL_CLASS_WORDS or _ANION_WORD.fullmatch(raw))
                and (
                    _alkyl_word(words[i - 1].text)
                    or (
                        self._fuzzy_word(words[i - 1].text)
                        and not is_common_word(words[i - 1].text, threshold=UNKNOWN_WORD_ZIPF)
                    )
                    # "zorvapitant mesylate": a drug name ending like "oxidant" is still a name
                    or (
                        words[i - 1].text.isalpha()
                        and len(words[i - 1].text) >= 8
                        and words[i - 1].text.lower() not in REACTION_WORDS
                        and not is_common_word(words[i - 1].text, threshold=UNKNOWN_WORD_ZIPF)
                    )
                )
            ):
                # "xyzzyl chloride", "phthelic anhydride": OPSIN could not read the two words
                # (tried just above) nor are they a misspelt known name, so the name is
                # unknown; "chloride" alone would answer for the chloride ion, "anhydride" for
                # chromic anhydride
                full, first_start = _strip(
                    text[words[i - 1].start : words[j].end], words[i - 1].start
                )
                out.append(
                    Mention(
                        full,
                        first_start,
                        first_start + len(full),
                        "iupac",
                        reason=f"{full!r} is not in the compound dictionary and OPSIN could not "
                        "read it",
                    )
                )
                taken[i - 1] = taken[i] = True
                i = j + 1
                continue
            longer = self._misspelt_continuation(text, words, taken, i, j, budget)
            if (
                longer is not None
            ):  # "acetic anhydrde": "acetic" is a name, but the two words are one
                out.append(longer[0])
                for k in range(i, longer[1] + 1):
                    taken[k] = True
                i = longer[1] + 1
                continue
            fmt = (
                "iupac"
                if hit.name_rank == 0 or guess_name_format(raw) == "iupac"
                else "common_name"
            )
            out.append(
                Mention(
                    raw,
                    start,
                    start + len(raw),
                    fmt,
                    structure=hit.structure,
                    compound_id=hit.compound_id,
                    resolved_by="dictionary",
                    matched_name=recase_name(hit.matched_name),
                    # in a passage ``_name_hit`` has already asked whether a word is a name
                    ambiguous=None
                    if self.passages
                    else _ambiguity(raw, hit.name_rank, hit.matched_name),
                )
            )
            for k in range(i, j + 1):
                taken[k] = True
            i = j + 1
        return out

    def _condensed(
        self, text: str, words: list[_Word], taken: list[bool], budget: _Budget
    ) -> list[Mention]:
        """Condensed structural formulas ("CH3COOCH2CH3", "(CH3)3CCOCl"): unlike a molecular
        formula they name one isomer (:mod:`chemground.chem.condensed`)."""
        from chemground.chem.condensed import condensed_to_smiles

        out = []
        for i, word in enumerate(words):
            if taken[i] or budget.full(out):
                continue
            token = word.text.rstrip(".,;:?!")
            smiles = condensed_to_smiles(token)
            if smiles is None:
                continue
            try:
                structure = structure_from_smiles(smiles)
            except StructureError:
                continue
            mention = self._structure_mention(
                token, word.start, "formula", structure, "condensed formula"
            )
            out.append(mention)
            taken[i] = True
        return out

    def _with_named_stereo(self, mention: Mention) -> Mention:
        """``mention`` with the stereoisomer its name asks for ("(S)-ibuprofen" is filed under
        racemic ibuprofen), or unresolved, with the reason, when that isomer cannot be told
        (see ``chem.stereo_names``). Structures read from SMILES or by OPSIN carry their own
        stereo and pass."""
        if mention.resolved_by not in ("dictionary", "fuzzy") or mention.structure is None:
            return mention
        try:
            structure = reconcile_stereo(mention.text, mention.structure)
        except StereoMismatch as mismatch:
            # "(2R,3S)-2,3-dibromobutane": the dictionary's record defines no stereo, OPSIN's
            # reading of the name does
            read = self._stereo_by_opsin(mention)
            if read is not None:
                return read
            return Mention(
                mention.text,
                mention.start,
                mention.end,
                mention.input_format,
                reason=mismatch.reason,
            )
        if structure is mention.structure or structure.inchikey == mention.structure.inchikey:
            if _STEREO_WORD.search(mention.text) and unassigned_stereocentres(structure.smiles):
                # "alpha-D-glucopyranose" was given the record's SMILES with no stereo at all
                return self._stereo_by_opsin(mention) or mention
            if _D_OR_L.search(mention.text) and "@" in structure.smiles:
                # "D-lactic acid" was given the record's L-lactic acid: OPSIN reads D and L
                return self._stereo_by_opsin(mention, other_isomer=True) or mention
            return mention
        hits = self.kb.lookup_structure(structure) if self.kb is not None else []
        return replace(
            mention,
            structure=structure,
            compound_id=hits[0].compound_id if hits else None,
            matched_name=hits[0].matched_name if hits else mention.text,
            notes=[
                *mention.notes,
                f"{mention.text!r}: the dictionary files this name under "
                f"{mention.matched_name or 'a structure'} without its stereo; used the "
                f"stereoisomer the name asks for ({structure.smiles})",
            ],
        )

    def _stereo_by_opsin(self, mention: Mention, other_isomer: bool = False) -> Mention | None:
        """``mention`` as OPSIN reads its name, when that is the dictionary's compound (same
        skeleton) with stereocentres the dictionary's record leaves open, or, with
        ``other_isomer``, with every centre set and another configuration than the record's
        ("D-lactic acid" is filed under L-lactic acid, and a D/L prefix cannot be checked
        against a structure); else None."""
        opsin = self.resolver.opsin
        if opsin is None or mention.structure is None:
            return None
        try:
            result = opsin.translate(mention.text)
            read = structure_from_smiles(result.smiles) if result.ok else None
        except ChemgroundError:
            return None
        if other_isomer:
            better = (
                read is not None
                and read.inchikey != mention.structure.inchikey
                and not unassigned_stereocentres(read.smiles)
            )
        else:
            better = read is not None and unassigned_stereocentres(
                read.smiles
            ) < unassigned_stereocentres(mention.structure.smiles)
        if (
            read is None
            or read.connectivity_key != mention.structure.connectivity_key
            or not better
        ):
            return None
        hits = self.kb.lookup_structure(read) if self.kb is not None else []
        return replace(
            mention,
            structure=read,
            resolved_by="opsin",
            compound_id=hits[0].compound_id if hits else None,
            matched_name=hits[0].matched_name if hits else mention.text,
            notes=[
                *mention.notes,
                f"{mention.text!r}: the dictionary files this name under a structure without "
                f"its stereo; used OPSIN's reading of the name ({read.smiles})",
            ],
        )

    def _name_hit(
        self, text: str, words: list[_Word], i: int, j: int, raw: str, norm: str, rank: int
    ):
        """The dictionary's compound for the known name ``raw`` (words i..j), or None when the
        words are not read as that name here: English words, function words at its ends, "bond"
        or "atom" after it, a verb ("to ethylate"); in a passage also what ``_plausible_in_passage``
        refuses, and a formula ("CO2", "TiO 2") names only a compound of that formula."""
        if i > 0 and _LOCANT_WORD.fullmatch(words[i - 1].text) and _PREFIX_FIRST.match(raw):
            return None  # "1 fluoro 4 nitro benzene": "nitro benzene" is part of the name
        if i > 0 and f"{words[i - 1].text.lower()} {raw.lower()}" in GENERIC_WORDS:
            return None  # "which aryl bromide": a class of compounds, not the bromide ion
        if j + 1 < len(words) and f"{raw.lower()} {words[j + 1].text.lower()}" in GENERIC_WORDS:
            return None  # "which phosphine ligand": a class, not PH3
        if self.passages:
            formula = formula_counts(re.sub(r"\s+", "", raw))
            if formula is not None:  # "CO2" is carbon dioxide, not the Co2+ ion
                return next(
                    (
                        h
                        for h in self.kb.lookup_name(norm)
                        if h.structure is not None
                        and formula_counts(h.structure.formula, strict=False) == formula
                    ),
                    None,
                )
        if (
            not self._acceptable(raw, rank, j - i + 1)
            or (rank >= 0 and _NOT_COMPOUND_AFTER.match(text[words[j].end :]))
            or (
                j == i and _ALKYLATE_VERB.match(raw) and _VERB_BEFORE.search(text[: words[i].start])
            )
            or (j == i and _ALKYLATE_PARTICIPLE.match(raw))
            or (
                j == i
                and raw.lower() in _NMR_NUCLEI
                and _NMR_CONTEXT.search(text)
                and not _ION_ASKED.search(text)
            )
            or (
                _ANSWER_DETERMINER.search(text[: words[i].start])
                and _ANSWER_VERB.match(text[words[j].end :])
            )
        ):
            return None
        hits = self.kb.lookup_name(norm)
        # (a formula with a count: "NHS", "PCC" are abbreviations the symbols happen to spell)
        written = (
            formula_counts(re.sub(r"\s+", "", raw))
            if not self.passages and re.search(r"\d", raw)
            else None
        )
        if written is not None:
            # "C3H8O" is a propanol, never the formaldehyde the dictionary files under that text
            hits = [
                h
                for h in hits
                if h.structure is None
                or formula_counts(h.structure.formula, strict=False) == written
            ]
        if self.passages:
            hits = [h for h in hits if h.structure is not None]
            if not hits or not _plausible_in_passage(raw, norm, min(h.name_rank for h in hits)):
                return None
        if hits and j == i and _condensed_isomer_differs(raw, hits[0]):
            return None  # "C6H5NO2" is nitrobenzene as written, not the nicotinic acid filed so
        return hits[0] if hits else None

    def _slip_of_another(self, raw: str, hits: list) -> str | None:
        """The name of another compound that ``raw``, filed only as a synonym, is one slip (a
        wrong, missing, extra or swapped letter) from, or None: "nicotene" is a PubChem synonym
        of nicotinic acid, and was answered as it with an exact label, where a chemist means
        nicotine. The names one slip away are looked up in one batch."""
        if (
            self.passages
            or self.names is None
            or min(h.name_rank for h in hits) < 2
            or not raw.isalpha()
            or not raw.islower()
            or len(raw) < 6
        ):
            return None
        norm = normalize_name(raw)
        # (only a name in common use counts: PubChem files obscure synonyms one slip from
        # almost anything, "asplin" from "asprin")
        known = [
            name
            for name in self._known_names(sorted(_one_slip(norm) - {norm}))
            if is_common_word(name, threshold=SLIP_TARGET_ZIPF)
            and not is_common_word(name, threshold=SLIP_TARGET_MAX_ZIPF)
            and name not in ELEMENT_NAMES
            and not is_common_word(raw, 1.0)
        ]
        return next(
            (
                name
                for name in known
                for h in self.kb.lookup_name(name)
                if h.structure is not None
                and not any(
                    h.structure.inchikey == f.structure.inchikey for f in hits if f.structure
                )
            ),
            None,
        )

    def _structure_mention(
        self,
        raw: str,
        start: int,
        fmt: str,
        structure: Structure,
        resolved_by: str,
        matched_name: str | None = None,
    ) -> Mention:
        """A mention of a structure read from the text (SMILES, OPSIN, a curated reagent), with
        the KB's compound of that structure when there is one (and its name, unless given)."""
        hits = self.kb.lookup_structure(structure) if self.kb is not None else []
        return Mention(
            raw,
            start,
            start + len(raw),
            fmt,
            structure=structure,
            compound_id=hits[0].compound_id if hits else None,
            resolved_by=resolved_by,
            matched_name=matched_name or (hits[0].matched_name if hits else None),
        )

    def _common_name(self, hit) -> str:
        """The name a note shows for a dictionary hit ("imipramine" for the synonym "im")."""
        try:
            return self.kb.get_compound(hit.compound_id, with_reactions=0).name
        except Exception:
            return hit.matched_name

    def _misspelt_continuation(
        self, text: str, words: list[_Word], taken: list[bool], i: int, j: int, budget: _Budget
    ):
        """A dictionary name followed by a misspelt word that, with it, is a longer known name
        (similarity >= ``CONTINUATION_MIN_SCORE``)."""
        end = j + 1
        if (
            self.fuzzy is None
            or end >= len(words)
            or taken[end]
            or not self._fuzzy_word(words[end].text)
        ):
            return None
        raw, start = _strip(text[words[i].start : words[end].end], words[i].start)
        if normalize_name(raw) in self._known_names([normalize_name(raw)]):
            return None  # spelt right: the dictionary stage takes it
        match = self._correct(raw, CONTINUATION_MIN_SCORE, budget)
        mention = self._fuzzy_mention(raw, start, match) if match else None
        return (mention, end) if mention is not None else None

    @staticmethod
    def _near_miss(raw: str, start: int, names: list[str]) -> Mention | None:
        """An unresolved mention for a name one letter from a known one whose ending (or charge)
        it does not share: "amlodipene", "ethyl acetite", "atrazene" are no believable spelling
        of amlodipine, ethyl acetate or atrazine, but they are no word either; left out, the
        question was answered for what else it named ("ethyl" alone, "the besylate salt")."""
        from rapidfuzz.distance import OSA

        if raw.lower() in CHEMICAL_CLASS_WORDS:
            return None  # "make the anilide from ...": a class word, not a misspelt "aniline"
        norm = normalize_name(raw)
        near = [
            name
            for name in names
            if len(norm) >= NEAR_MISS_MIN_LETTERS
            and OSA.distance(norm, normalize_name(name)) == 1
            and norm not in normalize_name(name)
        ]
        if not near:
            return None
        return _unresolved_name(
            raw,
            start,
            f"it is not in the dictionary; the nearest name, {near[0]!r}, differs in a letter "
            "that changes what it names",
        )

    def _misspelt_prefix(
        self, text: str, words: list[_Word], taken: list[bool], i: int, j: int, budget: _Budget
    ) -> Mention | None:
        """A dictionary name after a misspelt word that, with it, is a longer known name
        (similarity >= ``CONTINUATION_MIN_SCORE``): "bnezyl benzoate" is benzyl benzoate, not
        benzoate; "phthelic anhydride" is phthalic anhydride. The mirror of
        :meth:`_misspelt_continuation`."""
        first = i - 1
        if self.fuzzy is None or first < 0 or taken[first]:
            return None
        before = words[first].text
        tail = words[i].text if i == j else ""
        short = (  # "ethy bromoacetate": a clipped word before an ester or salt word
            before.isalpha()
            and before.islower()
            and len(before) >= 3
            and not is_common_word(before, threshold=UNKNOWN_WORD_ZIPF)
            and bool(tail)
            and (tail.lower() in CHEMICAL_CLASS_WORDS or _ANION_WORD.fullmatch(tail) is not None)
        )
        if not (self._fuzzy_word(before) or _alkyl_word(before) or short):
            return None
        raw, start = _strip(text[words[first].start : words[j].end], words[first].start)
        if normalize_name(raw) in self._known_names([normalize_name(raw)]):
            return None  # spelt right: the dictionary stage takes it
        match = self._correct(raw, CONTINUATION_MIN_SCORE, budget)
        return self._fuzzy_mention(raw, start, match) if match else None

    def _fuzzy_mention(
        self, raw: str, start: int, matches: list[tuple[str, int, float]]
    ) -> Mention | None:
        """The mention a misspelt ``raw`` stands for, from the equally close known names of
        ``FuzzyNameIndex.corrections``: resolved when they name one compound, unresolved (with
        the candidates named) when they name several, None when none is a believable spelling."""
        from chemground.kb.functional_groups import class_name

        if " ".join(raw.lower().split()) in GENERIC_WORDS or class_name(" ".join(raw.split())):
            # "which carboxylic acid": a class, not a misspelt "carbolic acid"; "an alkyl
            # bromide" is no allyl bromide
            return None
        if _LOCANT_SUBSTITUENT.fullmatch(raw):
            return None  # "5-benzylidene": a substituent of a longer name, not bibenzylidene
        why_not = not_one_compound(raw)
        if why_not is not None:  # "xylenes" is no typo of "o-xylenes": a mixture, said so
            return Mention(raw, start, start + len(raw), "common_name", reason=why_not)
        found: dict[str, tuple[str, float, object]] = {}  # structure key -> (name, score, hit)
        slips: list[str] = []  # one letter away, but not a believable spelling of it
        for name, compound_id, score in matches:
            if " ".join(name.lower().split()) in GENERIC_WORDS:
                continue  # "anhydrride" is no typo of chromic anhydride's synonym "anhydride"
            if not _plausible_correction(raw, name):
                # "p-anisaldehyd" is closest to o-anisaldehyde: the name corrected with the
                # locant written ("p-anisaldehyde") is the compound, if the dictionary has it
                relocated = _with_written_prefix(raw, name)
                if (
                    relocated is None
                    or self.kb is None
                    or not self.kb.lookup_name(normalize_name(relocated))
                ):
                    slips.append(name)
                    continue
                name, compound_id = relocated, None  # the first hit below
            hits = self.kb.lookup_name(normalize_name(name)) if self.kb is not None else []
            hit = next((h for h in hits if h.compound_id == compound_id), hits[0] if hits else None)
            if hit is None or (hit.structure is not None and _carbon_radical(hit.structure.smiles)):
                continue  # a substituent ("methoxymethyl") is no correction for a misspelt compound
            key = hit.structure.inchikey if hit.structure is not None else f"id:{hit.compound_id}"
            found.setdefault(key, (name, score, hit))
        if len(found) > 1:  # "azbenzene": azabenzene (pyridine) or azobenzene?
            names = " or ".join(repr(name) for name, _, _ in list(found.values())[:3])
            return _unresolved_name(
                raw,
                start,
                f"it is equally close to {names}, which are different compounds; name the one "
                "meant",
            )
        if not found:
            return self._near_miss(raw, start, slips)
        name, score, hit = next(iter(found.values()))
        return Mention(
            raw,
            start,
            start + len(raw),
            guess_name_format(name),
            structure=hit.structure,
            compound_id=hit.compound_id,
            resolved_by="fuzzy",
            matched_name=name,
            correction=name,
            confidence=score / 100.0,
            notes=[f"read {raw!r} as {name!r} (similarity {score:.0f}%)"],
        )

    def _extend_with_opsin(
        self, text: str, words: list[_Word], taken: list[bool], i: int, j: int, budget: _Budget
    ):
        """ "benzoic acid hydrazide", "trioctyl borate": a dictionary name with class words after
        it, or an alkyl word before it, may be part of a longer systematic name; OPSIN decides
        (longest first). Returns (mention, first word, last word)."""
        if self.resolver.opsin is None:
            return None
        end = j
        while (
            end + 1 < len(words)
            and end + 1 < i + MAX_SPAN_WORDS
            and not taken[end + 1]
            and (
                words[end + 1].text.lower() in CHEMICAL_CLASS_WORDS
                or self._chemical_word(words[end + 1].text, first=False)
            )
        ):
            end += 1
        firsts = (
            [i - 1, i] if i > 0 and not taken[i - 1] and _alkyl_word(words[i - 1].text) else [i]
        )
        for first in firsts:
            for last in range(end, j if first == i else j - 1, -1):
                raw, start = _strip(text[words[first].start : words[last].end], words[first].start)
                if not budget.take_opsin(raw):
                    continue
                structure = _opsin_compound(self.resolver.opsin.translate(raw))
                if structure is None:
                    continue
                return self._structure_mention(raw, start, "iupac", structure, "opsin"), first, last
        return None

    def _known_names(self, norms: list[str]) -> dict[str, int]:
        return self.names.ranks(norms)  # type: ignore[union-attr]

    @staticmethod
    def _acceptable(raw: str, rank: int, n_words: int) -> bool:
        if n_words == 1 and is_stop_word(raw) and rank >= 0:
            return False
        if n_words == 1 and rank >= 0 and raw.lower() in REACTION_WORDS:
            return False  # "aldol", "Appel": a reaction name
        if (
            n_words == 1
            and rank >= 2
            and raw.isalpha()
            and raw.islower()
            and len(raw) <= SHORT_SYNONYM_LETTERS
            and raw.lower() not in ELEMENT_NAMES
        ):
            return False  # "im", "rt", "eq": lower-case short synonyms are words or units
        if (
            n_words == 1
            and rank >= 2
            and raw.isalpha()
            and not raw.isupper()
            and is_common_word(raw)
        ):
            # "moon", "ice", "speed" are PubChem synonyms, but in a question they are words
            return False
        words = raw.split()
        if all(is_stop_word(w) for w in words) or (
            len(words) == 2 and is_stop_word(words[0]) and words[1].isdigit()
        ):
            # "rt 2" (of "rt 2 h") is a dictionary synonym of magnesium silicate: a stop word and
            # a number name no compound (a dye's "acid green 5" has two words and stays)
            return False
        if n_words > 1 and (
            words[0].lower() in FUNCTION_WORDS or words[-1].lower() in FUNCTION_WORDS
        ):
            # "in 3", "of aspirin": a name does not start or end with a function word, and "N is"
            # is not NIS (a curated abbreviation is written as one word)
            return False
        letters = re.sub(r"[^A-Za-z]", "", raw)
        if len(raw) <= 2:
            if rank < 0:
                return True
            return bool(_ELEMENT_SYMBOL.match(raw)) and raw.lower() not in AMBIGUOUS_SHORT
        return len(letters) >= 2 or rank < 0

    # -- 3. systematic names via OPSIN ---------------------------------------------------------
    def _shorthand_names(
        self, text: str, words: list[_Word], taken: list[bool], budget: _Budget
    ) -> list[Mention]:
        """Names in a chemist's shorthand that no other stage reads: substituents written as
        formulas ("4-F-phenol", "p-MeO-benzaldehyde"; the fuzzy stage read phenol and
        4-hydroxybenzaldehyde, one or two edits away) and protected amino acids and peptides in
        three-letter notation ("Boc-Gly-NHBn"; lost from the question without a word)."""
        out = []
        for i, word in enumerate(words):
            if taken[i] or budget.full(out):
                continue
            raw, start = _strip(word.text, word.start)
            mention = None
            smiles = peptide_to_smiles(raw)
            expanded = expanded_substituents(raw)
            if smiles is not None:
                structure = structure_from_smiles(smiles)
                mention = self._structure_mention(raw, start, "common_name", structure, "notation")
            elif expanded != raw:
                # "4-MeO-phenylboronic acid": the name may run on into the next word
                runs_on = (
                    i + 1 < len(words)
                    and not taken[i + 1]
                    and words[i + 1].text.lower() in _NAME_SECOND_WORDS
                )
                spans = [(i + 1, text[word.start : words[i + 1].end])] if runs_on else []
                for last, span in [*spans, (i, raw)]:
                    span, start = _strip(span, word.start)
                    mention = self._expanded_mention(span, start, budget)
                    if mention is not None:
                        for k in range(i, last + 1):
                            taken[k] = True
                        break
            if mention is not None:
                out.append(mention)
                taken[i] = True
        return out

    def _expanded_mention(self, raw: str, start: int, budget: _Budget) -> Mention | None:
        """A mention of ``raw`` read with its abbreviated substituents written out (the
        resolver writes them out, and notes so), or None."""
        expanded = expanded_substituents(raw)
        if expanded == raw or not budget.take_opsin(expanded):
            return None
        try:
            resolution = self.resolver.resolve(raw)
        except ChemgroundError:
            return None
        if resolution.structure is None:
            return None
        mention = self._structure_mention(
            raw, start, "iupac", resolution.structure, resolution.source, expanded
        )
        mention.notes.extend(resolution.notes)
        return mention

    def _systematic(
        self, text: str, words: list[_Word], taken: list[bool], budget: _Budget
    ) -> list[Mention]:
        if self.resolver.opsin is None:
            return []
        out = []
        i = 0
        while i < len(words) and budget.opsin > 0 and not budget.full(out):
            prefix = not taken[i] and self._ester_prefix(words, taken, i)
            if taken[i] or not (prefix or self._chemical_word(words[i].text, first=True)):
                i += 1
                continue
            j = i
            while (
                j + 1 < len(words)
                and j + 1 < i + MAX_SPAN_WORDS
                and not taken[j + 1]
                and self._chemical_word(words[j + 1].text, first=False)
            ):
                j += 1
            found = None
            shortest = i + 1 if prefix else i  # a bare "butyl" is not a compound
            for end in range(j, shortest - 1, -1):  # longest run first
                raw, start = _strip(text[words[i].start : words[end].end], words[i].start)
                element = raw.lower() in ELEMENT_NAMES and not (
                    self.passages and _plain_element(raw)
                )  # "tungsten" is read; in a passage "copper" alone is the metal
                if not (_SYSTEMATIC.search(raw) or element):
                    continue
                if not budget.take_opsin(raw):
                    if budget.opsin <= 0:
                        break
                    continue
                structure = _opsin_compound(self.resolver.opsin.translate(raw))
                if structure is not None:
                    found = (end, raw, start, structure)
                    break
            if found is None:
                i += 1  # "Translate 4-(aminomethyl)...": the name may start at the next word
                continue
            end, raw, start, structure = found
            longer = self._misspelt_prefix(text, words, taken, i, end, budget)
            if longer is not None:  # "ethy bromoacetate": ethyl bromoacetate, not the anion
                out.append(longer)
                for k in range(i - 1, end + 1):
                    taken[k] = True
                i = end + 1
                continue
            out.append(self._structure_mention(raw, start, "iupac", structure, "opsin"))
            for k in range(i, end + 1):
                taken[k] = True
            i = end + 1
        return out

    def _ester_prefix(self, words: list[_Word], taken: list[bool], i: int) -> bool:
        """Whether words[i] is an alkyl word opening a longer name: "butyl N-phenylcarbamate"."""
        return (
            _alkyl_word(words[i].text)
            and i + 1 < len(words)
            and not taken[i + 1]
            and self._chemical_word(words[i + 1].text, first=False)
        )

    @staticmethod
    def _chemical_word(word: str, first: bool) -> bool:
        lowered = word.lower()
        if lowered in GENERIC_WORDS:
            return False  # "the acetonide protocol": OPSIN reads the class word as an enolate
        if lowered.strip(_OUTER_RIGHT) in ELEMENT_NAMES:
            return lowered.strip(_OUTER_RIGHT) not in STOPWORDS
        if lowered in CHEMICAL_CLASS_WORDS:
            return not first or lowered in ("sodium", "potassium", "lithium")
        if is_stop_word(word) or len(word) < 3:
            return False
        return bool(_SYSTEMATIC.search(word))

    # -- 4. typos ------------------------------------------------------------------------------
    def _correct(
        self, raw: str, min_score: float | None, budget: _Budget
    ) -> list[tuple[str, int, float]]:
        """``fuzzy.corrections``, remembered per text and charged to the budget (empty when
        spent)."""
        key = ("fuzzy", normalize_name(raw), min_score)
        if key not in budget.memo:
            if not budget.take("fuzzy"):
                return []
            budget.memo[key] = (
                self.fuzzy.corrections(raw)
                if min_score is None
                else self.fuzzy.corrections(raw, min_score=min_score)
            )
        return budget.memo[key]

    def _fuzzy(
        self, text: str, words: list[_Word], taken: list[bool], budget: _Budget
    ) -> list[Mention]:
        """Typos: spans of up to ``MAX_FUZZY_WORDS`` name-like words, longest first, so that a
        misspelt two-word name ("butyl N-phenylcarbamae") is corrected as a whole rather than
        one of its words being matched to some shorter name."""
        if self.fuzzy is None:
            return []
        out = []
        fuzzy_word: dict[int, bool] = {}  # per word, computed once

        def name_like(k: int, first: bool = True) -> bool:
            if not first and words[k].text.lower() in CHEMICAL_CLASS_WORDS:
                return True  # "vanilyl alcohol": a class word continues a misspelt name
            if not first and _misspelt_class_word(words[k].text):
                return True  # "isovaleric acd": a misspelt class word continues one too
            if k not in fuzzy_word:
                fuzzy_word[k] = self._fuzzy_word(words[k].text)
            return fuzzy_word[k]

        i = 0
        while i < len(words) and budget.fuzzy > 0 and not budget.full(out):
            found = None
            for j in range(min(len(words), i + MAX_FUZZY_WORDS) - 1, i - 1, -1):
                if any(taken[i : j + 1]) or not all(name_like(k, k == i) for k in range(i, j + 1)):
                    continue
                raw, start = _strip(text[words[i].start : words[j].end], words[i].start)
                # several words must be closer to a known name to count as one misspelt name
                match = self._correct(raw, CONTINUATION_MIN_SCORE if j > i else None, budget)
                mention = self._fuzzy_mention(raw, start, match) if match else None
                if mention is not None:
                    found = (j, mention)
                    break
            if found is None:
                i += 1
                continue
            j, mention = found
            out.append(mention)
            for k in range(i, j + 1):
                taken[k] = True
            i = j + 1
        return out

    @staticmethod
    def _fuzzy_word(word: str) -> bool:
        """A word that may be (part of) a misspelt name: not a question word, not plain English."""
        if is_stop_word(word) or len(word) < 3:
            return False
        if len(word) < 5 and not _SYSTEMATIC.search(word):
            return False
        if not re.search(r"[a-z]{3}", word.lower()):
            return False
        if re.search(r"\d", word) and len(re.findall(r"[A-Z]", word)) >= 2:
            return False  # "PhCH2COOH": a condensed formula is no misspelt name (not HOCH2COOH)
        if word.lower() in REACTION_WORDS or word.lower() in GENERIC_WORDS:
            return False
        if word.lower().endswith("s") and word.lower()[:-1] in ELEMENT_NAMES:
            return False  # "got the hydrogens wrong": atoms counted, not a misspelt compound
        if _misspelt_fact_word(word):
            return False  # "molecular formual", "moleculr weigth": the fact asked, misspelt
        if word.isalpha() and _ENZYME.fullmatch(word.lower()):
            return False  # "xanthine oxidase", "reductases": an enzyme, no misspelt compound
        if word.isalpha() and _PROCESS_WORD.search(word):
            # "nitration", "hydrolysis", "nitrating", "oxidant": what is done, not a compound
            return False
        return not (word.isalpha() and is_common_word(word, threshold=FUZZY_WORD_ZIPF))

    # -- 5. what still looks like a compound ---------------------------------------------------
    def _unresolved(
        self, text: str, words: list[_Word], taken: list[bool], budget: _Budget
    ) -> list[Mention]:
        if self.passages:
            return []  # a passage is not asked about: what it names without a structure is moot
        out = []
        for i, word in enumerate(words):
            if budget.full(out):
                break
            if taken[i] or is_stop_word(word.text) or len(word.text) < 6:
                continue
            inner = (
                word.text[1:-1] if word.text[:1] in "([" and word.text[-1:] in ")]" else word.text
            )
            if _made_up_name(word.text):  # "flurbozamine": a name nothing here knows, not English
                fmt, reason = "common_name", _UNKNOWN_NAME
            elif looks_like_peptide_shorthand(word.text):
                fmt, reason = "common_name", _SHORTHAND
            elif (
                _REAGENT_FORMULA.fullmatch(word.text)
                and (re.search(r"\d", word.text) or _SHORTHAND_GROUP.search(word.text))
                # a plain molecular formula ("C8H10N4O2") is no reagent: a formula the tools
                # read, or one a question checks
                and formula_counts(word.text) is None
            ):
                # "Ph3PCH2CH3Br": a reagent written as a formula that nothing here reads (it
                # was dropped from the question without a word)
                fmt, reason = "formula", _FORMULA_UNREAD
            elif re.search(r"\d.*-|-.*\d|.\(.+\)", inner) and _SYSTEMATIC.search(inner):
                fmt, reason = "iupac", _UNKNOWN_SYSTEMATIC
            else:
                continue
            out.append(Mention(word.text, word.start, word.end, fmt, confidence=0.0, reason=reason))
            taken[i] = True
        return out


# a counter-ion a name spells out, and the element it brings
_COUNTER_ION_WORD = re.compile(
    r"\b(?:mono|di|tri|tetra)?(sodium|potassium|lithium|calcium|magnesium|zinc|ammonium|"
    r"aluminium|aluminum|titanium|zirconium|copper|nickel|cobalt|silver|barium|caesium|cesium)\b"
    r"|\b(hydrochloride|dihydrochloride|hcl|hydrobromide|hbr)\b",
    re.IGNORECASE,
)
_ION_ELEMENT = {
    "sodium": "Na",
    "potassium": "K",
    "lithium": "Li",
    "calcium": "Ca",
    "magnesium": "Mg",
    "zinc": "Zn",
    "ammonium": "N",
    # a metal a name spells ("aluminium isopropoxide" is filed under isopropanol)
    "aluminium": "Al",
    "aluminum": "Al",
    "titanium": "Ti",
    "zirconium": "Zr",
    "copper": "Cu",
    "nickel": "Ni",
    "cobalt": "Co",
    "silver": "Ag",
    "barium": "Ba",
    "caesium": "Cs",
    "cesium": "Cs",
    "hydrochloride": "Cl",
    "dihydrochloride": "Cl",
    "hcl": "Cl",
    "hydrobromide": "Br",
    "hbr": "Br",
}


def _with_named_counter_ion(mention: Mention) -> Mention:
    """``mention`` unresolved when its name spells a counter-ion its dictionary structure lacks:
    PubChem files "EDTA disodium salt" among the free acid's synonyms, and the weight of EDTA
    (with two waters) was given for the disodium salt dihydrate."""
    words = list(_COUNTER_ION_WORD.finditer(mention.text))
    if not words or mention.resolved_by not in ("dictionary", "fuzzy") or mention.structure is None:
        return mention  # most names spell no counter-ion: no SMILES parsed for them
    mol = mol_from_smiles(mention.structure.smiles)
    symbols = {atom.GetSymbol() for atom in mol.GetAtoms()}
    for found in words:
        word = (found.group(1) or found.group(2)).lower()
        if _ION_ELEMENT[word] not in symbols:
            built = _acid_addition_salt(mention, word, found)
            if built is not None:
                return built
            return Mention(
                mention.text,
                mention.start,
                mention.end,
                mention.input_format,
                reason=(
                    f"{mention.text!r} names a {word} salt, but the dictionary files it under "
                    f"{mention.structure.smiles}, which has no {word}: the salt's own structure "
                    "is not known"
                ),
            )
    return mention


def _with_named_isotopes(mention: Mention) -> Mention:
    """``mention`` read with the isotope label its name carries ("pyridine-d5",
    "L-lysine-13C6,15N2"), which its dictionary structure lacks: every atom of the element
    labelled when the label counts them all, otherwise unresolved (see
    ``names.deuterium_label_reading`` and ``names.heavy_label_reading``)."""
    if mention.resolved_by not in ("dictionary", "fuzzy") or mention.structure is None:
        return mention
    reading = deuterium_label_reading(mention.text, mention.structure)
    if reading is None:  # "L-lysine-13C6,15N2": found as L-lysine, labelled as named
        reading = heavy_label_reading(mention.text, mention.structure)
    if reading is None:
        return mention
    if isinstance(reading, str):
        return Mention(
            mention.text, mention.start, mention.end, mention.input_format, reason=reading
        )
    return replace(
        mention,
        structure=reading,
        compound_id=None,
        matched_name=mention.text,
        notes=[
            *mention.notes,
            f"{mention.text!r}: the dictionary files this name under {mention.structure.smiles}; "
            f"read its label as every atom of the element labelled ({reading.smiles})",
        ],
    )


# acid addition salts, whose composition the name fixes: the acid and how many of it
_ACID_ADDED = {"hydrochloride": ("Cl", 1), "hcl": ("Cl", 1), "dihydrochloride": ("Cl", 2)}
_ACID_ADDED |= {"hydrobromide": ("Br", 1), "hbr": ("Br", 1)}


def _acid_addition_salt(mention: Mention, word: str, found: re.Match) -> Mention | None:
    """``mention`` as the acid addition salt its name ends with ("4-bromopyridine
    hydrochloride", filed under the free base), built as the base with the acid; None for
    another counter-ion (a metal salt's composition is not fixed by its name)."""
    if word not in _ACID_ADDED or mention.text[found.end() :].strip():
        return None
    acid, count = _ACID_ADDED[word]
    try:
        structure = structure_from_smiles(".".join([mention.structure.smiles, *[acid] * count]))
    except StructureError:
        return None
    return replace(
        mention,
        structure=structure,
        compound_id=None,
        notes=[
            *mention.notes,
            f"{mention.text!r}: the dictionary files it under the free base "
            f"({mention.structure.smiles}); built the {word} as the base with {count} H{acid} "
            f"({structure.smiles})",
        ],
    )


_CLASS_OF_COMPOUNDS = "a class of compounds rather than one compound"
# words of a name that ask for a stereoisomer ("alpha-D-glucopyranose", "(2R,3S)-", "L-", "cis-")
_STEREO_WORD = re.compile(
    r"(?:^|[\s(-])(?:alpha|beta|α|β)-[DL]-|(?:^|[\s(,-])[DL]-(?=[a-z])|"
    r"\((?:\d+[a-z]?)?[RSEZ](?:,\s*(?:\d+[a-z]?)?[RSEZ])*\)|\b(?:cis|trans)-|(?:^|[\s(])[EZ]-"
)


SLIP_TARGET_ZIPF = 2.5  # "nicotine" 3.5, "metformin" 2.6: a drug or solvent name in common use
SLIP_TARGET_MAX_ZIPF = 4.2  # ... but not an everyday word ("carvon" is carvone, not "carbon")


def _one_slip(norm: str) -> set[str]:
    """Every string one slip from ``norm``: a letter left out, swapped with the next, replaced
    or added (a-z and 0-9)."""
    letters = "abcdefghijklmnopqrstuvwxyz0123456789"
    splits = [(norm[:k], norm[k:]) for k in range(len(norm) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + c + b[1:] for a, b in splits if b for c in letters}
    out |= {a + c + b for a, b in splits for c in letters}
    return out


# a D/L configuration prefix, which no structure can be checked against without reading the name
_D_OR_L = re.compile(r"(?:^|[\s(,-])[DL]-(?=[a-z])")
# a compound fact asked of what follows: "SMILES of the", "MW for", "molar mass of" (the
# parser finds the one compound a fact is asked of with it, too)
FACT_OF = re.compile(
    r"\b(?:smiles|mw|mol\.? ?wt\.?|molecular weight|molar mass|formula|cas(?: number| no\.?)?|"
    r"iupac name|structure|inchi(?: ?key)?|logp|tpsa|exact mass|monoisotopic mass)\s+"
    # ("what MW should I use for X", "the MW of my product, X")
    r"(?:(?:should|do|would|must|can)\s+(?:i|we)\s+use\s+)?(?:of|for)\s+"
    r"(?:(?:the|that|this|our|my)\s+(?:(?:product|compound|sample|intermediate|salt),?\s+)?)?",
    re.IGNORECASE,
)
_FACT_OF_BEFORE = re.compile(FACT_OF.pattern + "$", re.IGNORECASE)  # just before a mention


_SAME_AS = re.compile(
    r"\b(?:same (?:compound |thing |chemical |substance )?as|identical to|another name for|"
    r"also called|aka)\s+(?:the\s+)?$",
    re.IGNORECASE,
)


def _compared_with_a_compound(text: str, mention: Mention, mentions: list[Mention]) -> bool:
    """Whether a short capitalised synonym is set beside a compound the question names ("MEK or
    THF – which is more polar?": MEK had been read as a word and THF alone answered)."""
    return any(
        other.resolved
        and not other.ambiguous
        and (
            _JOINED_TO.fullmatch(text[mention.end : other.start])
            or _JOINED_TO.fullmatch(text[other.end : mention.start])
        )
        for other in mentions
        if other is not mention
    )


_JOINED_TO = re.compile(r"\s*(?:,\s*)?(?:or|vs\.?|versus|compared (?:with|to))\s+", re.IGNORECASE)


def _chemical_context(text: str, mention: Mention) -> bool:
    """Whether the words around a short capitalised synonym make it a compound: a fact asked of
    it ("MW of TBAI?") or a locant before it ("5-HMF")."""
    if re.match(r"\d+-[A-Z]", mention.text):
        return True
    if text[: mention.start].rstrip().endswith("(") and text[mention.end :].lstrip()[:1] == ")":
        return True  # "methyl isobutyl ketone (MIBK)": the abbreviation of the name before it
    if _SAME_AS.search(text[max(0, mention.start - 40) : mention.start]):
        return True  # "is 2-butanone the same as MEK?": compared with a compound
    return bool(_FACT_OF_BEFORE.search(text[max(0, mention.start - 40) : mention.start]))


def _ambiguity(raw: str, rank: int, matched: str) -> str | None:
    """Why a dictionary hit may be a word rather than a compound (None when it is a name)."""
    if rank < 0:
        return None  # a curated abbreviation
    letters = re.sub(r"[^A-Za-z]", "", raw)
    if (
        rank >= 1
        and len(letters) <= SHORT_SYNONYM_LETTERS
        and raw.isupper()
        and len(raw.split()) == 1
    ):
        return f"a short capitalised word; the dictionary also lists it as a synonym of {matched}"
    if raw.lower() in GENERIC_WORDS:
        return _CLASS_OF_COMPOUNDS
    return None


_NAME_ENDING = re.compile(
    r"(?:amine|azine|azole|idine|oline|amide|mycin|cillin|pril|sartan|olol|azepam|oxacin|"
    r"tinib|vir|zamine|xetine|pine|done|pam|ine|ol|one)$"
)


def _made_up_name(word: str) -> bool:
    """A long, unknown word with a drug-like ending ("flurbozamine"): a compound nobody here
    knows."""
    low = word.lower()
    return (
        word.isalpha()
        and len(word) >= 8
        and bool(_NAME_ENDING.search(low))
        and low not in STOPWORDS
        and low not in REACTION_WORDS
        and low not in GENERIC_WORDS
        and not is_common_word(low, threshold=2.0)
    )


# A reagent written as a formula with groups: "Ph3PCH2CH3Br", "(EtO)2P(O)CH2CO2Et"
_REAGENT_FORMULA = re.compile(
    r"(?:(?:Ph|Me|Et|Pr|Bu|Bn|Ac|Ts|Boc|Cbz|Fmoc|Piv|TBS|TMS|[A-Z][a-z]?)\d*|\(|\)\d*|=){3,}"
)
# a lab shorthand group in a formula-style word ("BocNHCH2Ph" has no digit, but is no word)
_SHORTHAND_GROUP = re.compile(r"(?:Ph|Bn|Ac|Ts|Boc|Cbz|Fmoc|Piv|TBS|TMS)(?![a-z])")
_FORMULA_UNREAD = (
    "looks like a formula or a reagent written as one, which chemground cannot read; give the "
    "compound's name or SMILES"
)
# Why a word that looks like a compound is listed as unresolved.
_UNKNOWN_NAME = "looks like a compound name but is not in the dictionary, and OPSIN cannot read it"
_SHORTHAND = (
    "looks like protecting-group or amino-acid shorthand, which chemground cannot read; give the "
    "compound's name or SMILES"
)
_UNKNOWN_SYSTEMATIC = (
    "looks like a systematic name but neither the dictionary nor OPSIN could resolve it"
)
# A Greek-letter or sign prefix that a name may carry or drop ("ε-caprolactam", "alpha-pinene").
_GREEK_PREFIX = re.compile(
    r"^(?:[a-zα-ω]|alpha|beta|gamma|delta|epsilon|omega|\([+-]\)|[+-])-(?=[a-z]{4})"
)


def _free_words(words: list[_Word], taken: list[bool], match: re.Match, end_inside_word: bool):
    """The first and last of ``words`` a pattern's match covers, None when a word there is taken
    or the match does not start at a word (nor end at one; with ``end_inside_word`` it may end
    inside the last word)."""
    first = next((i for i, w in enumerate(words) if w.start == match.start()), None)
    if end_inside_word:
        last = next((i for i, w in enumerate(words) if w.end >= match.end()), None)
    else:
        last = next((i for i, w in enumerate(words) if w.end == match.end()), None)
    if first is None or last is None or any(taken[first : last + 1]):
        return None
    return first, last


_WORD_BEFORE = re.compile(r"([A-Za-z]{8,})\s+$")


def _salt_of_an_unknown(text: str, mention: Mention, mentions: list[Mention]) -> Mention:
    """ "quorbaxetant tosylate": a salt of a drug nothing here knows. The anion read alone (by
    the dictionary or OPSIN) would answer for the tosylate ion: the salt is named unresolved."""
    if not mention.resolved or not _ANION_WORD.fullmatch(mention.text.lower()):
        return mention
    before = _WORD_BEFORE.search(text[: mention.start])
    if before is None or any(m.start <= before.start(1) < m.end for m in mentions):
        return mention  # the word before is a compound named on its own
    word = before.group(1)
    low = word.lower()
    if (
        low in STOPWORDS
        or low in REACTION_WORDS
        or low in GENERIC_WORDS
        or is_common_word(low, threshold=UNKNOWN_WORD_ZIPF)
    ):
        return mention
    raw = text[before.start(1) : mention.end]
    return _unresolved_name(
        raw,
        before.start(1),
        f"{raw!r} names a salt of {word!r}, which is no compound I know; the {mention.text} ion "
        "alone is not that salt",
    )


def _unresolved_name(raw: str, start: int, reason: str) -> Mention:
    """A name read as a compound that nothing here resolves, with why (said, not dropped)."""
    return Mention(raw, start, start + len(raw), "common_name", confidence=0.0, reason=reason)


def _stray_closing_bracket(text: str, word: _Word) -> bool:
    """Whether the ")" right after a word (stripped from it as punctuation) closes no "(" before
    it in the text: then it belongs to the word."""
    if not text.startswith(")", word.end) or text.startswith("))", word.end):
        return False
    before = text[: word.start]
    inside = word.text.count("(") - word.text.count(")")
    return before.count("(") - before.count(")") <= 0 and inside <= 0


def _condensed_isomer_differs(raw: str, hit) -> bool:
    """Whether ``raw`` is a condensed formula ("C6H5NO2") naming another isomer than the one the
    dictionary files under that formula as a synonym (nicotinic acid): written group by group,
    it names one isomer, which the condensed-formula stage reads."""
    if hit.structure is None or not re.fullmatch(r"(?:[A-Z][a-z]?\d*)+", raw):
        return False
    from chemground.chem.condensed import condensed_to_smiles

    smiles = condensed_to_smiles(raw)
    if smiles is None:
        return False
    try:
        return structure_from_smiles(smiles).inchikey != hit.structure.inchikey
    except StructureError:
        return False


def _swapped_letters(a: str, b: str) -> bool:
    """Whether ``a`` is ``b`` with two adjacent letters swapped ("deine" for "diene")."""
    if len(a) != len(b) or a == b:
        return False
    diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    return (
        len(diff) == 2
        and diff[1] == diff[0] + 1
        and a[diff[0]] == b[diff[1]]
        and (a[diff[1]] == b[diff[0]])
    )


_ISOMER_PREFIX = re.compile(r"^(?:(o|m|p|ortho|meta|para)-|(\d+(?:,\d+)*)-)")
_ISOMER_WORDS = {"ortho": "o", "meta": "m", "para": "p"}


def _isomer_prefix(name: str) -> str | None:
    """The positional prefix a name opens with ("p-", "para-", "2,4-"), as one form, or None."""
    found = _ISOMER_PREFIX.match(name)
    if found is None:
        return None
    return _ISOMER_WORDS.get(found.group(1), found.group(1)) or found.group(2)


def _with_written_prefix(raw: str, name: str) -> str | None:
    """``name`` with the positional prefix ``raw`` opens with in place of its own ("p-anisaldehyd",
    "o-anisaldehyde" -> "p-anisaldehyde"), or None when either has none or they agree."""
    mine, theirs = _ISOMER_PREFIX.match(raw.lower()), _ISOMER_PREFIX.match(name.lower())
    if (
        mine is None
        or theirs is None
        or _isomer_prefix(raw.lower()) == _isomer_prefix(name.lower())
    ):
        return None
    return raw[: mine.end()] + name[theirs.end() :]


def _plausible_correction(raw: str, name: str) -> bool:
    """Whether ``name`` is a believable spelling of ``raw``: it keeps the name's class ending
    ("…hydrazone" is not "…hydrazine") and adds no charge or radical the text did not write."""
    low, target = raw.lower(), name.lower()
    if _isomer_prefix(low) != _isomer_prefix(target) and _isomer_prefix(low):
        # "p-anisaldehyd" is no typo of o-anisaldehyde: a locant written is meant
        return False
    if _swapped_letters(normalize_name(raw), normalize_name(name)):
        return True  # "1,3-butadeine": two letters typed in the wrong order, not another ending
    core = _GREEK_PREFIX.sub("", target)
    if core != target and (
        normalize_name(raw) == normalize_name(core) or _plausible_correction(raw, core)
    ):
        return True  # "caprolactum" for the dictionary's "e-caprolactum": the same name, prefixed
    if normalize_name(raw) in normalize_name(name) and not (
        # "fluconazol", "maleic anhydrid": the name without its final e (German, Dutch, ...),
        # however it is spaced ("cyclohexane carboxaldehyd")
        normalize_name(name) == normalize_name(raw) + "e" and len(low) >= 6
    ):
        return False  # "carboxylic acid" is part of "dicarboxylic acid", not a typo of it
    for word in ("ion", "cation", "anion", "radical", "ylium", "ide ion"):
        if re.search(rf"\b{word}\b", target) and not re.search(rf"\b{word}\b", low):
            return False
    end = next((s for s in _SUFFIXES if low.endswith(s)), None)
    target_end = next((s for s in _SUFFIXES if target.endswith(s)), None)
    if end and target_end and end != target_end and not target_end.endswith(end):
        # "…hydrazone" is not "…hydrazine"; but "metoclopromide" is "metoclopramide" (the
        # typo is in the letters before "ide")
        return False
    if end == "yl" and target_end != "yl":
        return False  # "vanilyl" alone is a substituent word, not "vanilla"
    return True


def _list_of_compounds(smiles: str) -> bool:
    """Whether OPSIN read a list of compounds ("iodobenzene methyl acrylate", "octanol-water"):
    several neutral fragments of two or more heavy atoms, or a neutral fragment with water."""
    fragments = smiles.split(".")
    if len(fragments) < 2 or any(ch in smiles for ch in "+-"):
        return False
    heavy = [len(re.findall(r"Cl|Br|[BCNOPSFI]|[cnops]|\[[^\]]+\]", f)) for f in fragments]
    return sum(1 for n in heavy if n >= 2) >= 2 or ("O" in fragments and any(n >= 2 for n in heavy))


@lru_cache(maxsize=4096)
def _carbon_radical(smiles: str) -> bool:
    try:
        mol = mol_from_smiles(smiles)  # the size limits apply to what OPSIN returns, too
    except StructureError:
        return False
    return any(a.GetSymbol() == "C" and a.GetNumRadicalElectrons() for a in mol.GetAtoms())


def _substituent(smiles: str, passage: bool) -> bool:
    """Whether a dictionary compound is a substituent rather than a compound the text names: a
    carbon radical ("propan-2-yl", "phenylmethyl"). In a paper a carbene ("methylene",
    "carbene": two unpaired electrons on one carbon) is a species or a CH2 unit named alike in
    the passages and in the question put to them, so it is kept there."""
    if not _carbon_radical(smiles):
        return False
    if not passage:
        return True
    mol = mol_from_smiles(smiles)
    return any(a.GetSymbol() == "C" and a.GetNumRadicalElectrons() == 1 for a in mol.GetAtoms())


def _opsin_compound(result) -> Structure | None:
    """The structure OPSIN read, if it is a compound a question can mean. A substituent name
    on its own ("propan-2-yl", "phenylmethyl") parses to a carbon radical: that is a piece
    of a longer name (perhaps misspelt), not the compound asked about."""
    if not result.ok or _carbon_radical(result.smiles or ""):
        return None
    if _list_of_compounds(result.smiles or ""):
        return None
    try:
        structure = structure_from_smiles(result.smiles or "")
    except StructureError:
        return None
    if "." in structure.smiles and Chem.GetFormalCharge(Chem.MolFromSmiles(structure.smiles)):
        # "toluen diisocyanate" read as toluene beside two cyanate anions: a salt balances its
        # charges, so an unbalanced set of fragments is a misreading, not a compound
        return None
    return structure


# -- passages of papers ---------------------------------------------------------------------------
# A paper's running text, unlike a question, is not written to the tool: PubChem's synonym lists
# hold brand names and stray words ("optimal", "challenge", "DFT") that a passage uses as words.

# Kept although they are plain words: each names one well-defined compound.
KEEP_WORDS = frozenset(
    """
water ethanol methanol acetone benzene toluene urea glucose sucrose ammonia ozone methane ethane
propane butane caffeine aspirin glycerol chloroform phenol
""".split()
)
_CHEMICAL_ENDING = re.compile(
    r"(?:ane|ene|yne|ol|one|anal|enal|ide|ate|ite|ine|ium|amine|amide|ose|yl|ile|azole|azine|"
    r"ether|ester|acid|oxide|mer)$"
)
_SYSTEMATIC_MARKS = re.compile(r"[\d,()\[\]]|^[a-z]{1,3}-")


def _plausible_in_passage(surface: str, norm: str, rank: int) -> bool:
    """Whether a dictionary name is plausibly a compound in a paper's running text.

    A curated abbreviation (rank < 0) always is; several words need a preferred name or a
    chemical last word; one word needs a chemical ending, systematic marks ("2-butanol",
    "n-hexane") or, with capitals inside, to be a preferred name ("HEPES" yes, "DFT" no); a
    class word ("amide") or an element common in English ("hydrogen", "copper": the element as a
    material or an atom) alone names no compound to index.
    """
    if rank < 0:
        return True  # curated names and abbreviations (benzoic acid, THF, DMSO, MeCN...)
    if len(norm) < 3:
        return False  # "Cu", "Gd": a symbol in a paper is the element or a label
    words = surface.lower().split()
    if len(words) > 1:
        return rank <= 1 or bool(_CHEMICAL_ENDING.search(words[-1]))
    lower = words[0]
    if lower in KEEP_WORDS:
        return True
    if lower in GENERIC_WORDS or _plain_element(lower) or surface.isdigit():
        return False
    if _SYSTEMATIC_MARKS.search(surface) and re.search(r"[a-z]{3}", surface):
        return True  # "2-butanol", "n-hexane", "N,N-dimethylformamide": names, not words
    if any(c.isupper() for c in surface[1:]):
        return rank <= 1  # abbreviations: "HEPES" (a common name) yes, "DFT" (a synonym) no
    chemical = bool(_CHEMICAL_ENDING.search(lower))
    if rank <= 1:
        return chemical or len(lower) >= 12
    return chemical and len(lower) >= 7


def _plain_element(word: str) -> bool:
    """An element name common in English ("carbon", "copper", "sodium"; not "palladium"): alone
    in a paper it names the element as a material or an atom, not a compound to index."""
    lower = word.lower()
    return lower in ELEMENT_NAMES and is_common_word(lower, PLAIN_ELEMENT_ZIPF)


def _smiles_syntax(token: str) -> bool:
    """In running text, a SMILES must show SMILES syntax (bonds, rings, branches, charges);
    bare capitals such as "CO", "NO" or "CCl" are formulas or abbreviations far more often."""
    return bool(re.search(r"[=#@\[\]()/\\%]|\d", token)) and not re.fullmatch(
        r"[A-Z][a-z]?\d*(?:[A-Z][a-z]?\d*)*", token
    )


_ELEMENT_SYMBOLS = SYMBOLS
_NOT_ELEMENTS = {"D", "T"}  # deuterium/tritium symbols are abbreviations more often ("DFT")
_ELEMENT_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*)")
_FORMULA_LIKE = re.compile(r"^(?:[A-Z][a-z]?\d*){1,12}(?:\d*[+\-−])?$")
_CHARGE = re.compile(r"(?:\d*[+\-]+|[+\-]\d+)$")


def formula_counts(text: str, strict: bool = True) -> dict[str, int] | None:
    """Element counts of a formula-like token ("CO2", "NH3", "Zn2+"), or None if it is not one.

    Args:
        text: the token, or a stored formula.
        strict: a token from text: every symbol must be a real element (not D or T) and a lone
            symbol needs a count or a charge ("C" and "I" are letters). Without it (a stored
            formula such as "H3N" or "C6H6FNO2S") any formula parses, charges and hydrates
            ignored.

    Returns:
        Element symbol -> count, or None.
    """
    text = text.strip().replace("−", "-")
    if strict and not _FORMULA_LIKE.match(text):
        return None
    body = re.split(r"[.·*]", text)[0] if not strict else text
    charged = bool(_CHARGE.search(body))  # a sign, with or without a number: "Zn2+", "Cl-", "Zn+2"
    body = _CHARGE.sub("", body)
    counts: dict[str, int] = {}
    position = 0
    for match in _ELEMENT_TOKEN.finditer(body):
        if match.start() != position:
            return None
        symbol, count = match.group(1), match.group(2)
        if symbol not in _ELEMENT_SYMBOLS or (strict and symbol in _NOT_ELEMENTS):
            return None
        counts[symbol] = counts.get(symbol, 0) + (int(count) if count else 1)
        position = match.end()
    if position != len(body) or not counts:
        return None
    if strict and len(counts) < 2 and sum(counts.values()) < 2 and not charged:
        return None
    return counts
