"""Compound classes named in questions, as SMARTS: the hook for "reactions that use a boronic acid".

A question such as "Which reactions in the KB use a boronic acid?" names a class of compounds,
not a compound: no name look-up can answer it, a substructure search can. This module maps
the class names chemists use to SMARTS patterns and reads the role a question asks for
("use"/"from"/"with" -> reactant, "give"/"make" -> product, "in"/"solvent" -> solvent...), so
the question router can send such a question to
:meth:`~chemground.kb.store.KnowledgeBase.search_reactions_by_structure`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from chemground.kb.records import Role

# name (singular, lower case) -> SMARTS. Patterns follow the usual definitions (Daylight's
# SMARTS examples): the class's defining group with the neighbours that make it that class.
GROUPS: dict[str, str] = {
    "boronic acid": "[CX4,c][BX3]([OX2H])[OX2H]",
    "boronic ester": "[CX4,c][BX3]([OX2][#6])[OX2][#6]",
    "boronate": "[CX4,c][BX3]([OX2])[OX2]",
    "acyl chloride": "[CX3](=[OX1])[Cl]",
    "acid chloride": "[CX3](=[OX1])[Cl]",
    "carboxylic acid": "[CX3](=O)[OX2H1]",
    "aldehyde": "[CX3H1](=O)[#6]",
    "ketone": "[#6][CX3](=O)[#6]",
    "ester": "[#6][CX3](=O)[OX2H0][#6;!$([CX3]=O)]",  # not an anhydride
    "amide": "[NX3][CX3](=[OX1])[#6]",
    "primary amine": "[NX3;H2;!$(NC=O)][CX4,c]",
    "secondary amine": "[NX3;H1;!$(NC=O)]([CX4,c])[CX4,c]",
    "amine": "[NX3;!$(NC=O);!$(N=*);!$(N#*);!$([N]-[!#6;!#1])]",
    "alcohol": "[#6][OX2H]",
    "phenol": "c[OX2H]",
    "aryl bromide": "cBr",
    "aryl chloride": "cCl",
    "aryl iodide": "cI",
    "aryl halide": "c[Cl,Br,I]",
    "alkyl halide": "[CX4][Cl,Br,I]",
    "alkyl bromide": "[CX4]Br",
    "alkyl chloride": "[CX4]Cl",
    "alkyl iodide": "[CX4]I",
    "nitrile": "[NX1]#[CX2]",
    "nitro compound": "[$([NX3](=O)=O),$([NX3+](=O)[O-])]",
    "sulfonyl chloride": "[SX4](=O)(=O)Cl",
    "isocyanate": "N=C=O",
    "azide": "[$(N=[N+]=[N-]),$([N-][N+]#N)]",
    "alkyne": "[CX2]#[CX2]",
    "terminal alkyne": "[CX2H1]#[CX2]",
    "alkene": "[CX3]=[CX3]",
    "epoxide": "C1OC1",
    "thiol": "[#6][SX2H]",
    "grignard reagent": "[#6][Mg][Cl,Br,I]",
    "organolithium": "[#6][Li]",
    "pyridine": "c1ccncc1",
    "indole": "c1ccc2[nH]ccc2c1",
    "thiophene": "c1ccsc1",
    "furan": "c1ccoc1",
    # reagent classes a question names as the kind of answer ("which carbodiimide is used?")
    "carbodiimide": "[#6][NX2]=[CX2]=[NX2][#6]",
    "azodicarboxylate": "[CX3](=O)[NX2]=[NX2][CX3](=O)",
    "phosphine": "[PX3;!$(P=*)]([#6])([#6])[#6]",
    "borohydride": "[#5-;!H0]",
    # what a reagent does, by structure: "what is the reducing agent in the nitration of
    # benzene?" was answered with sulfuric acid; only hydrides, H2 and metals reduce
    "reducing agent": "[$([#5,#13,#14;!H0]),$([#1]~[#1]),$([Li,Na,K,Mg,Zn,Fe,Sn,Sm;X0;+0])]",
    # chromium, manganese, osmium, ruthenium, hypervalent iodine, peroxides, N-oxides and
    # nitroxyls, hypochlorite and chlorite, DMSO and oxalyl chloride (Swern), O2, selenium
    "oxidising agent": "[$([Cr,Mn,Os,Ru,Se]),$([I;X3,X4,X5]),$([#8]-[#8]),$([#8]=[#8]),"
    "$([#8;X1]~[#7]),$([#8;X1]~[Cl]),$([#8]=[#16;X3]([#6])[#6]),$(O=C(Cl)C(Cl)=O),"
    "$([N+](=O)[O-]),$([#7](=O)=O)]",
}

# "reactions with Pd catalysts": a catalyst that contains the metal, not the bare metal alone (Pd/C
# is [Pd]; Pd(PPh3)4 and Pd(OAc)2 are palladium catalysts too). Always asked in the catalyst role.
_CATALYST_METALS = {  # name -> (symbol, atomic number)
    "palladium": ("Pd", 46),
    "platinum": ("Pt", 78),
    "nickel": ("Ni", 28),
    "copper": ("Cu", 29),
    "rhodium": ("Rh", 45),
    "ruthenium": ("Ru", 44),
    "iridium": ("Ir", 77),
    "iron": ("Fe", 26),
    "gold": ("Au", 79),
    "silver": ("Ag", 47),
    "cobalt": ("Co", 27),
    "zinc": ("Zn", 30),
}
CATALYST_CLASS_SUFFIX = " catalyst"
# by atomic number: "[Cu]" read as SMILES is copper with no neighbour, and missed CuI
GROUPS.update(
    {m + CATALYST_CLASS_SUFFIX: f"[#{number}]" for m, (_, number) in _CATALYST_METALS.items()}
)

_PLURALS = {
    **{  # "Pd catalysts", "palladium catalysts", "Pd-catalysed": the palladium catalyst class
        f"{word}{form}": metal + CATALYST_CLASS_SUFFIX
        for metal, (symbol, _) in _CATALYST_METALS.items()
        for word in (metal, symbol.lower())
        for form in (" catalyst", " catalysts", "-catalysed", "-catalyzed", " catalysed")
        if (word, form) != (metal, " catalyst")
    },
    "boronic acids": "boronic acid",
    "boronic esters": "boronic ester",
    "boronates": "boronate",
    "acid chlorides": "acid chloride",
    "acyl chlorides": "acyl chloride",
    "aldehydes": "aldehyde",
    "ketones": "ketone",
    "esters": "ester",
    "amides": "amide",
    "amines": "amine",
    "primary amines": "primary amine",
    "secondary amines": "secondary amine",
    "carboxylic acids": "carboxylic acid",
    "alcohols": "alcohol",
    "phenols": "phenol",
    "aryl bromides": "aryl bromide",
    "aryl chlorides": "aryl chloride",
    "aryl iodides": "aryl iodide",
    "aryl halides": "aryl halide",
    "alkyl halides": "alkyl halide",
    "alkyl bromides": "alkyl bromide",
    "alkyl chlorides": "alkyl chloride",
    "alkyl iodides": "alkyl iodide",
    "nitriles": "nitrile",
    "nitro compounds": "nitro compound",
    "sulfonyl chlorides": "sulfonyl chloride",
    "isocyanates": "isocyanate",
    "azides": "azide",
    "alkynes": "alkyne",
    "terminal alkynes": "terminal alkyne",
    "alkenes": "alkene",
    "epoxides": "epoxide",
    "thiols": "thiol",
    "grignard reagents": "grignard reagent",
    "organolithiums": "organolithium",
    "pyridines": "pyridine",
    "indoles": "indole",
    "thiophenes": "thiophene",
    "furans": "furan",
    "carbodiimides": "carbodiimide",
    "azodicarboxylates": "azodicarboxylate",
    "phosphines": "phosphine",
    "borohydrides": "borohydride",
    "reducing agents": "reducing agent",
    "reductant": "reducing agent",
    "reductants": "reducing agent",
    "oxidizing agent": "oxidising agent",
    "oxidizing agents": "oxidising agent",
    "oxidising agents": "oxidising agent",
    "oxidant": "oxidising agent",
    "oxidants": "oxidising agent",
    "oxidiser": "oxidising agent",
    "oxidizer": "oxidising agent",
}
_NAMES = sorted(
    {*GROUPS, *_PLURALS}, key=len, reverse=True
)  # longest first: "aryl bromide" before "amine"
_GROUP = re.compile(r"\b(" + "|".join(re.escape(n) for n in _NAMES) + r")\b", re.IGNORECASE)
# "diisopropyl azodicarboxylate", "sodium borohydride", "1-ethyl-3-(...)carbodiimide": a class
# word ending a compound's name is that compound, not the class
_PART_OF_A_NAME = re.compile(
    r"(?:[\w)\]-]|\b\w*yl\s|\b(?:sodium|lithium|potassium|calcium|magnesium|zinc|copper|"
    r"ammonium|tetrabutylammonium|cesium|caesium)\s)$",
    re.IGNORECASE,
)
# "an amide coupling", "ester hydrolysis", "alcohol oxidation": the class word names the
# reaction (what is made or changed), not a participant of that class
_NAMES_A_REACTION = re.compile(
    r"[\s-]*(couplings?|formations?|bond formations?|synthes[ie]s|hydrolys[ie]s|reductions?|"
    r"oxidations?|condensations?|protections?|deprotections?|cleavages?)\b",
    re.IGNORECASE,
)
_REACTION_WORDS = re.compile(
    r"\breactions?\b|\bsynthes[ie]s\b|\bprepar|\bcouplings?\b", re.IGNORECASE
)
_ROLE_CUES: list[tuple[re.Pattern, Role]] = [
    (
        re.compile(r"\b(?:as|the)\s+(?:a\s+)?solvents?\b|\bin\s+(?:an?\s+)?$", re.IGNORECASE),
        Role.SOLVENT,
    ),
    (
        re.compile(r"\b(?:as|the)\s+(?:a\s+)?catalysts?\b|\bcataly[sz]ed\s+by\b", re.IGNORECASE),
        Role.CATALYST,
    ),
    (re.compile(r"\b(?:as|the)\s+(?:a\s+)?(?:reagents?|bases?)\b", re.IGNORECASE), Role.REAGENT),
    # "reagent to convert an alcohol to an alkyl bromide": what is converted is the reactant (the
    # "to" before "convert" had made the alcohol the product asked)
    (
        re.compile(
            r"\b(?:convert|converts|converting|turn|turns|turning|transform|transforms|"
            r"transforming|change|changes|changing)\s+(?:an?\s+|the\s+|all\s+|my\s+)?$",
            re.IGNORECASE,
        ),
        Role.REACTANT,
    ),
    (
        re.compile(
            r"\b(?:give|gives|giving|make|makes|making|produce|produces|producing|form|forms|forming|"
            # ... unless "from" follows: "make a urea from an amine" uses the amine
            r"yield|yields|to|into|products?|prepared?|synthesi[sz]e[sd]?)\b"
            r"(?:(?!\bfrom\b)[^.?!])*$",
            re.IGNORECASE,
        ),
        Role.PRODUCT,
    ),
]


_AFTER = re.compile(
    r"\s*(?:as|for)\s+(?:the\s+|an?\s+)?(solvent|catalyst|reagent|base|product|reactant)s?\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GroupQuestion:
    """A question about reactions whose participant (in ``role``) belongs to a compound class."""

    group: str
    smarts: str
    role: Role


def class_name(text: str) -> str | None:
    """The class a phrase is the name of ("boronic acids" -> "boronic acid"), or None.

    Args:
        text: a phrase, such as a compound mention's text.

    Returns:
        The key of :data:`GROUPS` the whole phrase names, singular, or None.
    """
    name = text.strip().lower()
    name = _PLURALS.get(name, name)
    return name if name in GROUPS else None


def match_group_question(question: str, reaction_word: bool = True) -> GroupQuestion | None:
    """The compound class and role a reaction question asks about, or None.

    Only questions about reactions that name a class in :data:`GROUPS` match ("Which
    reactions use a boronic acid?", "reactions in the KB that give an aldehyde", "couplings
    with aryl bromides"). The role is read from the words before the class name: "give",
    "make", "form", "to" -> product; "as solvent"/"in" -> solvent; "as catalyst" -> catalyst;
    otherwise (use, with, from, of, starting from) -> reactant.

    Args:
        question: the question as asked.
        reaction_word: require a word such as "reaction" or "synthesis" (False when the caller
            knows the question is about a reaction, e.g. its aspect is a reagent).

    Returns:
        The class, its SMARTS and the role, or None when the question names no class or is not
        about reactions.
    """
    if not question or len(question) > 2000:
        return None
    if reaction_word and not _REACTION_WORDS.search(question):
        return None
    found = next(
        (
            m
            for m in _class_matches(question)
            if _catalyst_class(m.group(1)) or not _NAMES_A_REACTION.match(question[m.end() :])
        ),
        None,
    )
    if found is None:
        return None
    name = found.group(1).lower()
    name = _PLURALS.get(name, name)
    before = question[: found.start()]
    clause = re.split(r"[,;:]|\bthat\b|\bwhich\b|\bwhere\b", before)[-1]
    role = Role.REACTANT
    for cue, cue_role in _ROLE_CUES:
        if cue.search(clause):
            role = cue_role
            break
    after = _AFTER.match(question[found.end() :])  # "... pyridine as the solvent"
    if after:
        role = Role.parse(after.group(1))
    if _catalyst_class(name):  # "with Pd catalysts": the catalyst asked
        role = Role.CATALYST
    return GroupQuestion(name, GROUPS[name], role)


def class_phrase_spans(text: str) -> list[tuple[int, int]]:
    """Where the text names a compound class ("aryl bromides", "Pd catalysts").

    A compound mention inside such a phrase ("bromides", "Pd") is part of the class, not a
    compound asked about.

    Args:
        text: the question.

    Returns:
        (start, end) of each class phrase, in order.
    """
    return [m.span() for m in _class_matches(text)]


def _catalyst_class(name: str) -> bool:
    """ "Pd-catalysed", "copper catalysts": a catalyst class, which a reaction noun may follow
    ("Pd-catalysed couplings")."""
    return _PLURALS.get(name.lower(), name.lower()).endswith(CATALYST_CLASS_SUFFIX)


def _class_matches(text: str) -> Iterator[re.Match]:
    """The class names in ``text`` that do not end a compound's name ("sodium borohydride")."""
    return (m for m in _GROUP.finditer(text) if not _PART_OF_A_NAME.search(text[: m.start()]))


@dataclass(frozen=True)
class Transformation:
    """A change from one compound class to another that a question asks about ("convert an
    alcohol to an alkyl bromide"), and where the question says it."""

    source: str  # the class converted (a key of GROUPS)
    target: str  # the class made
    start: int
    end: int

    @property
    def name(self) -> str:
        """How answers name it: "alcohol to alkyl bromide"."""
        return f"{self.source} to {self.target}"


_ARTICLE = r"(?:an?\s+|the\s+|all\s+|my\s+|(?:a\s+)?primary\s+|(?:a\s+)?secondary\s+)?"
_CLASS = r"(" + "|".join(re.escape(n) for n in _NAMES) + r")"
_TRANSFORMATION = (
    # "convert an alcohol to an alkyl bromide", "turning esters into acids"
    re.compile(
        r"\b(?:convert|converts|converting|conversion of|turn|turns|turning|transform|"
        r"transforms|transforming|change|changes|changing)\s+"
        + _ARTICLE
        + _CLASS
        + r"\s+(?:in)?to\s+"
        + _ARTICLE
        + _CLASS
        + r"\b",
        re.IGNORECASE,
    ),
    # "make an alkyl bromide from an alcohol"
    re.compile(
        r"\b(?:make|makes|making|prepare|prepares|preparing|get|synthesi[sz]e)\s+"
        + _ARTICLE
        + _CLASS
        + r"\s+from\s+"
        + _ARTICLE
        + _CLASS
        + r"\b",
        re.IGNORECASE,
    ),
)


def transformation_asked(question: str) -> Transformation | None:
    """The change between two compound classes a question asks about, or None.

    Args:
        question: the question as asked.

    Returns:
        The classes (keys of :data:`GROUPS`, singular) and the span that names them; None when
        the question names no such change, or the two classes are the same.
    """
    if not question or len(question) > 2000:
        return None
    for number, pattern in enumerate(_TRANSFORMATION):
        found = pattern.search(question)
        if found is None:
            continue
        first, second = (class_name(g) for g in found.groups())
        source, target = (first, second) if number == 0 else (second, first)
        if source and target and source != target:
            return Transformation(source, target, found.start(), found.end())
    return None
