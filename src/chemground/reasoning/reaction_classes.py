"""Reaction classes named in a question ("Grignard", "Swern", "Boc deprotection", ...), with
synonyms.

A chemist names a transformation as often as its compounds: "What solvent is used for the
Grignard reaction of PhMgBr with benzophenone?", "reagent for Boc deprotection?". This module
is the vocabulary: each :class:`ReactionClass` has the starter class id it stands for (the KB
stores the class *name* in ``reactions.reaction_class``), the regular expressions that find it
in a question (synonyms and abbreviations), and optionally *markers*: participant names that
single out a named variant inside a broader class (a Swern oxidation is an alcohol oxidation
with oxalyl chloride and DMSO). Classes the KB holds no reaction of (ozonolysis, Birch reduction,
Sharpless epoxidation, ...) are known too, so that naming one is never answered with the
reactions of another class.

:func:`find_classes` returns the classes named in a question with their spans; longer matches
win over shorter ones they overlap ("Sharpless epoxidation" is not an mCPBA epoxidation,
"Horner-Wadsworth-Emmons" is not a Wittig). :func:`class_reaction_ids` reads which reactions of
a KB belong to the named classes (one scan of the reactions table, cached per KB state).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from chemground.reasoning.query import QueryMention, QueryTuple


@dataclass(frozen=True)
class ReactionClass:
    """A named reaction type: the starter classes it stands for and how questions name it."""

    name: str  # how answers name it ("Swern oxidation")
    class_ids: tuple[str, ...]  # starter class ids (empty: the KB has no class for it)
    patterns: tuple[str, ...]  # regular expressions over the lower-cased question
    markers: tuple[
        str, ...
    ] = ()  # participant names (lower case, substring) that single out the variant
    kb_names: tuple[
        str, ...
    ] = ()  # extra reaction_class strings (imported datasets) that mean this class
    # a change between compound classes ("alcohol", "alkyl bromide": keys of
    # kb.functional_groups.GROUPS), matched by substructure instead of by a class id
    transformation: tuple[str, ...] = ()


_C = ReactionClass
CLASSES: tuple[ReactionClass, ...] = (
    _C(
        "Fischer esterification",
        ("fischer_esterification",),
        (
            r"fischer(?:[- ]speier)? esterifications?",
            r"acid[- ]catalys[ez]d esterifications?",
            r"\besterifications?\b",
        ),
    ),
    _C(
        "amide coupling",
        ("amide_coupling",),
        (
            r"amide (?:bond )?(?:coupling|formation)s?",
            r"peptide couplings?",
            r"\bhatu coupling",
            r"\bedc(?:/hobt)? coupling",
            r"\bamidations?\b",
        ),
    ),
    _C(
        "Suzuki coupling",
        ("suzuki_coupling",),
        (r"\bsuzuki(?:[- ]miyaura)?(?: (?:cross[- ])?couplings?| reactions?)?",),
    ),
    _C(
        "Heck reaction",
        ("heck_reaction",),
        (r"\b(?:mizoroki[- ])?heck(?: (?:couplings?|reactions?|arylations?))?\b",),
    ),
    _C(
        "Sonogashira coupling",
        ("sonogashira_coupling",),
        (r"\bsonogashira(?: (?:couplings?|reactions?))?",),
    ),
    _C(
        "Grignard reaction",
        ("grignard_addition",),
        (r"\bgrignard(?: (?:reactions?|additions?|reagents?))?", r"organomagnesium additions?"),
    ),
    _C(
        "Wittig reaction",
        ("wittig_olefination",),
        (r"(?<!horner-)(?<!horner )\bwittig(?: (?:reactions?|olefinations?))?\b",),
    ),
    _C(
        "Horner-Wadsworth-Emmons olefination",
        ("horner_wadsworth_emmons",),
        (
            r"horner[- ]wadsworth[- ]emmons?(?: (?:reactions?|olefinations?))?",
            r"\bhwe\b",
            r"horner[- ]wittig",
            r"wadsworth[- ]emmons",
        ),
    ),
    _C(
        "Appel reaction",
        ("appel_reaction",),
        (r"\bappel(?: (?:reactions?|conditions|brominations?|chlorinations?))?\b",),
    ),
    _C(
        "Mitsunobu reaction",
        ("mitsunobu_reaction",),
        (r"\bmitsunobu(?: (?:reactions?|conditions|inversions?))?",),
    ),
    _C(
        "reductive amination",
        ("reductive_amination",),
        (r"reductive aminations?", r"reductive alkylations? of (?:an )?amines?"),
    ),
    _C(
        "Diels-Alder reaction",
        ("diels_alder",),
        (
            r"diels[- ]alder(?: (?:reactions?|cycloadditions?|adducts?))?",
            r"\[4\s*\+\s*2\] cycloadditions?",
        ),
    ),
    _C(
        "SN2 alkylation",
        ("sn2_alkylation",),
        (
            r"williamson(?: ether)?(?: synthesis)?",
            r"\bsn2(?: reactions?| alkylations?| substitutions?)?\b",
            r"\b[nos]-alkylations?\b",
        ),
    ),
    _C(
        "Boc protection",
        ("boc_protection",),
        (
            r"\b(?:n-)?boc[- ]protections?",
            r"\bboc[- ]protect(?:ing|ed)?\b",
            r"\b(?:install|introduc|put|add|attach)\w* (?:an? |the )?boc(?: group)?\b",
            r"protect(?:ion|ing)? \w+ (?:\w+ )?with (?:a )?boc\b",
        ),
    ),
    _C(
        "Boc deprotection",
        ("boc_deprotection",),
        (
            r"\b(?:n-)?boc[- ]?deprotections?",
            r"deprotect(?:ion|ing)? (?:of )?(?:the |an? )?(?:n-)?boc(?:[- ]\w+)?",
            r"(?:remov|cleav|strip|tak)\w* (?:off )?(?:of )?(?:the |a |an )?(?:n-)?boc"
            r"(?: protecting)?(?: groups?)?\b",
            r"\bboc removals?\b",
        ),
    ),
    _C(
        "nitro hydrogenation",
        ("nitro_hydrogenation",),
        (
            r"nitro(?: group)? (?:reductions?|hydrogenations?)",
            r"(?:reduction|hydrogenation) of (?:a |the )?nitro\w*",
            # "hydrogenate a nitro group to an amine", "reducing the nitroarene"
            r"(?:reduc|hydrogenat)\w* (?:an? |the )?(?:aromatic |aryl )?nitro(?:[- ]?(?:groups?|"
            r"compounds?|arenes?))?\b",
            r"\bnitro(?: group)? (?:in)?to (?:an? |the )?(?:aryl ?)?amines?\b",
        ),
    ),
    # the broad words: "the reduction of acetophenone", "reduce X", "oxidise Y"; a named
    # reduction or oxidation (Birch, Swern, borohydride, nitro) is longer and wins
    _C(
        "reduction",
        ("borohydride_reduction", "catalytic_hydrogenation", "nitro_hydrogenation"),
        (
            r"\breductions?\b",
            r"\breduc(?:e|es|ed|ing)\b(?! (?:agents?|pressure|vacuum|amount|yield|temperature))",
        ),
    ),
    _C(
        "oxidation",
        ("alcohol_oxidation", "mcpba_epoxidation"),
        (
            r"\boxidations?\b(?! (?:states?|numbers?|levels?))",
            r"\boxidi[sz](?:e|es|ed|ing)\b(?! (?:agents?))",
        ),
    ),
    _C(
        "catalytic hydrogenation",
        ("catalytic_hydrogenation", "nitro_hydrogenation"),
        (
            r"(?:catalytic )?hydrogenations?\b",
            r"\bh2/pd(?:-c|/c)?\b",
            r"\bhydrogenat(?:e|es|ed|ing)\b",  # "the catalyst to hydrogenate benzene"
        ),
    ),
    _C(
        "Buchwald-Hartwig amination",
        ("buchwald_hartwig_amination",),
        (
            r"buchwald(?:[- ]hartwig)?(?: (?:aminations?|couplings?|reactions?|aryl aminations?))?",
            r"hartwig aminations?",
        ),
    ),
    _C(
        "Claisen-Schmidt (aldol) condensation",
        ("claisen_schmidt_condensation",),
        (
            r"claisen[- ]schmidt(?: condensations?| reactions?)?",
            r"crossed aldol(?: condensations?)?",
            r"\baldol(?: condensations?| reactions?)?\b",
            r"chalcone (?:synthesis|formation|condensations?)",
        ),
    ),
    _C(
        "Knoevenagel condensation",
        ("knoevenagel_condensation",),
        (r"knoevenagel(?: condensations?| reactions?)?",),
    ),
    _C(
        "Friedel-Crafts acylation",
        ("friedel_crafts_acylation",),
        (
            r"friedel[- ]crafts? ac(?:et)?ylations?",
            r"friedel[- ]crafts?(?: reactions?)?(?! alkylation)",
        ),
    ),
    _C(
        "aromatic nitration",
        ("aromatic_nitration",),
        (r"(?:aromatic )?nitrations?\b", r"\bnitrat(?:ing|ed)\b"),
    ),
    _C(
        "ester hydrolysis (saponification)",
        ("ester_hydrolysis",),
        (
            r"saponif\w*",
            r"ester hydrolys[ie]s",
            r"hydrolys[ie]s of (?:the |an? )?(?:[\w-]+ )*?esters?\b",
            r"\bhydrolys[ie]s\b",
            r"\bhydroly[sz](?:ed|ing)\b",  # "ethyl acetate is hydrolysed with NaOH"
        ),
    ),
    _C(
        "N-acylation",
        ("amine_acylation",),
        (r"\bn-acylations?", r"\bn-acetylations?", r"acylations? of (?:an? |the )?amines?"),
    ),
    _C(
        "O-acylation",
        ("alcohol_acylation",),
        (
            r"\bo-acylations?",
            r"\bo-acetylations?",
            r"acylations? of (?:an? |the )?(?:alcohols?|phenols?)",
        ),
    ),
    _C(
        "acetylation",
        ("amine_acylation", "alcohol_acylation"),
        (r"\bacetylations?\b", r"\bacylations?\b"),
    ),
    _C(
        "borohydride reduction",
        ("borohydride_reduction",),
        (r"(?:sodium )?borohydride reductions?", r"\bnabh4 reductions?", r"\bluche reductions?"),
    ),
    _C(
        "Swern oxidation",
        ("alcohol_oxidation",),
        (r"\bswern(?: oxidations?)?",),
        markers=("oxalyl chloride",),
    ),
    _C(
        "Dess-Martin oxidation",
        ("alcohol_oxidation",),
        (r"dess[- ]martin(?: oxidations?| periodinane)?", r"\bdmp oxidations?"),
        markers=("benziodoxol",),
    ),
    _C(
        "PCC oxidation",
        ("alcohol_oxidation",),
        (r"\bpcc oxidations?",),
        markers=("chlorochromate",),
    ),
    _C(
        "alcohol oxidation",
        ("alcohol_oxidation",),
        (
            r"alcohol oxidations?",
            r"oxidations? of (?:an? |the )?(?:primary |secondary |benzylic |allylic )?alcohols?",
            # "oxidising a secondary alcohol to a ketone"
            r"oxidi[sz](?:e|es|ed|ing) (?:an? |the )?(?:primary |secondary |benzylic |allylic )?"
            r"alcohols?(?! (?:in)?to (?:an? |the )?(?:carboxylic )?acids?)",
            r"\balcohols? (?:in)?to (?:an? |the )?(?:aldehydes?|ketones?)\b",
        ),
    ),
    _C(
        "imine formation",
        ("imine_formation",),
        (
            r"(?:imine|oxime|hydrazone) formations?",
            r"schiff bases?(?: formation)?",
            r"condensations? with hydroxylamine",
        ),
    ),
    _C(
        "mCPBA epoxidation",
        ("mcpba_epoxidation",),
        (
            r"(?:mcpba |prilezhaev )?epoxidations?",
            r"prilezhaev(?: reactions?)?",
            r"\bepoxidi[sz](?:ed|ing)\b",
        ),
    ),
    _C(
        "CuAAC click reaction",
        ("cuaac_click",),
        (
            r"\bcuaac\b",
            r"click (?:reactions?|chemistry|cycloadditions?)",
            r"azide[- ]alkyne (?:click |huisgen )?cycloadditions?",
            r"huisgen cycloadditions?",
        ),
    ),
    _C(
        "sulfonamide formation",
        ("sulfonamide_formation",),
        (r"sulfonamide (?:formation|synthesis)", r"\bsulfonylations?"),
    ),
    _C(
        "urea formation",
        ("urea_formation",),
        (
            r"urea (?:formation|synthesis)",
            # "to make a urea from an amine and an isocyanate": a urea, not urea itself
            r"\b(?:make|making|form|forming|prepare|preparing|get) (?:a|an) (?:\w+ )?urea\b",
            r"\bisocyanates? (?:and|\+|with) (?:an? )?(?:primary |secondary )?amines?\b",
            r"\bamines? (?:and|\+|with) (?:an? )?isocyanates?\b",
        ),
    ),
    _C(
        "Wohl-Ziegler bromination",
        ("wohl_ziegler_bromination",),
        (
            r"wohl[- ]ziegler(?: brominations?| reactions?)?",
            r"\bnbs brominations?",
            r"(?:benzylic|allylic|radical) brominations?",
        ),
    ),
    _C(
        "Michael addition",
        ("michael_addition",),
        (r"\bmichael(?: additions?| reactions?)?\b", r"conjugate additions?", r"\b1,4-additions?"),
    ),
    _C(
        "Cbz protection",
        ("cbz_protection",),
        (
            r"\b(?:cbz|z)[- ]protections?",
            r"protect(?:ion|ing)? \w+ (?:\w+ )?with (?:a )?cbz\b",
            # "installs a Cbz group", "introduce the Cbz"
            r"\b(?:install|introduc|put|add|attach)\w* (?:an? |the )?(?:cbz|z)(?: group)?\b",
        ),
    ),
    # named reactions the starter set holds no example of: never answered from another class
    _C("ozonolysis", (), (r"ozonoly[sz]\w*", r"\bozonide\b")),
    # processes the KB has no reaction of: "what does burning ethanol produce?" was answered with
    # an esterification of ethanol
    _C("combustion", (), (r"\bcombust\w*", r"\bburn(?:s|ed|ing|t)?\b")),
    _C("electrolysis", (), (r"\belectroly[sz]\w*",)),
    _C("fermentation", (), (r"\bferment\w*",)),
    _C("pyrolysis", (), (r"\bpyroly[sz]\w*", r"\bthermal decomposition\b")),
    _C("polymerisation", (), (r"\bpolymeri[sz]\w*",)),
    _C("Birch reduction", (), (r"\bbirch(?: reductions?)?\b",)),
    _C(
        "Sharpless epoxidation",
        (),
        (r"sharpless(?: asymmetric)?(?: epoxidations?| dihydroxylations?| aminohydroxylations?)?",),
    ),
    _C("Friedel-Crafts alkylation", (), (r"friedel[- ]crafts? alkylations?",)),
    _C("Baeyer-Villiger oxidation", (), (r"baeyer[- ]villiger(?: oxidations?)?",)),
    _C("Stille coupling", (), (r"\bstille(?: couplings?| reactions?)?\b",)),
    _C("Negishi coupling", (), (r"\bnegishi(?: couplings?| reactions?)?\b",)),
    _C("Kumada coupling", (), (r"\bkumada(?: couplings?)?\b",)),
    _C("Ullmann coupling", (), (r"\bullmann(?: couplings?| reactions?)?\b",)),
    _C("Chan-Lam coupling", (), (r"chan[- ]lam(?: couplings?)?",)),
    _C("Cannizzaro reaction", (), (r"cannizzaro(?: reactions?)?",)),
    _C("Wolff-Kishner reduction", (), (r"wolff[- ]kishner(?: reductions?)?",)),
    _C("Clemmensen reduction", (), (r"clemmensen(?: reductions?)?",)),
    _C("Claisen condensation", (), (r"\bclaisen condensations?\b(?![- ]schmidt)",)),
    _C("Claisen rearrangement", (), (r"\bclaisen rearrangements?\b",)),
    _C("Dieckmann condensation", (), (r"dieckmann(?: condensations?| cyclizations?)?",)),
    _C("Robinson annulation", (), (r"robinson annulations?",)),
    _C("Mannich reaction", (), (r"\bmannich(?: reactions?)?\b",)),
    _C("Beckmann rearrangement", (), (r"beckmann(?: rearrangements?)?",)),
    _C("Curtius rearrangement", (), (r"curtius(?: rearrangements?)?",)),
    _C("Hofmann rearrangement", (), (r"hofmann(?: rearrangements?| eliminations?)?",)),
    _C("Sandmeyer reaction", (), (r"sandmeyer(?: reactions?)?",)),
    _C("Gabriel synthesis", (), (r"gabriel(?: synthesis)?",)),
    _C("Strecker synthesis", (), (r"strecker(?: synthesis| reactions?)?",)),
    _C("Corey-Chaykovsky reaction", (), (r"corey[- ]chaykovsky(?: reactions?)?",)),
    _C("Julia olefination", (), (r"\bjulia(?:[- ]kocienski|[- ]lythgoe)?(?: olefinations?)?\b",)),
    _C(
        "olefin metathesis",
        (),
        (r"(?:olefin|ring[- ]closing|cross) metathesis", r"\bgrubbs(?: catalyst)?\b", r"\brcm\b"),
    ),
    _C(
        "Simmons-Smith cyclopropanation",
        (),
        (r"simmons[- ]smith(?: reactions?| cyclopropanations?)?",),
    ),
    _C("hydroboration", (), (r"hydroborations?(?:[- ]oxidations?)?",)),
    _C("Jones oxidation", (), (r"\bjones(?: oxidations?| reagent)\b",)),
    _C("Staudinger reaction", (), (r"staudinger(?: reactions?| reductions?| ligations?)?",)),
    _C("Pinacol coupling", (), (r"pinacol(?: couplings?| rearrangements?)\b",)),
    _C("Cope rearrangement", (), (r"\b(?:oxy-)?cope(?: rearrangements?| eliminations?)\b",)),
)
_COMPILED: tuple[tuple[ReactionClass, re.Pattern], ...] = tuple(
    (c, re.compile("|".join(f"(?:{p})" for p in c.patterns))) for c in CLASSES
)


# The broad words ("oxidation", "reduction") after a name: "Pinnick oxidation", "CBS reduction",
# "Glorbnitz oxidation" name a reaction this vocabulary does not know, not any oxidation (the
# alcohol oxidations answered them)
_BROAD = {"oxidation", "reduction"}
# (a proper name: "Pinnick", "Parikh-Doering"; not a reagent written as a formula or an acronym,
# "NaBH4 reduction", "TEMPO oxidation", which the broad class reads with its compound)
_NAMED_BEFORE = re.compile(r"(?:^|[\s(])[A-Z][a-z]+(?:-[A-Z][a-z]+)*[\s-]+$")


# a proper name before a reaction noun ("Petrakis-Moreau olefination", "Fooble coupling")
_UNKNOWN_NAMED = re.compile(
    r"(?:^|(?<=[\s(]))(?P<name>[A-Z][a-z]{2,}(?:-[A-Z][a-z]{2,})*)[\s-]+(?:olefination|"
    r"coupling|reaction|rearrangement|cycli[sz]ation|condensation|amination|alkylation|"
    r"arylation|annulation|cycloaddition|esterification|etherification|metathesis|"
    r"fluorination|halogenation|homologation)s?\b"
)
_CHEMICAL_SUFFIX = re.compile(r"(yde|ane|ene|yne|ol|one|ide|ate|ine|ium|ic|yl|ole|ase)$")


def _plain_name(name: str) -> bool:
    """Whether the capitalised words before a reaction noun are a person's name, not an English
    word ("Which reaction", "Amide coupling") nor a compound's ("Benzaldehyde reduction")."""
    from chemground.chem.mentions import STOPWORDS, is_common_word

    # names may be common words ("Heck", "Smith"): only the most frequent are taken as English
    parts = name.split("-")
    return all(
        part.lower() not in STOPWORDS
        and part.lower() not in _NOT_NAMES
        and not is_common_word(part, threshold=5.0)
        # two names joined ("Garside") are people's, whatever their endings
        and (len(parts) > 1 or not _CHEMICAL_SUFFIX.search(part.lower()))
        for part in parts
    )


_NOT_NAMES = frozenset(
    "first second third next last same other typical standard classic classical usual general "
    "overall key main final cross radical catalytic asymmetric intramolecular intermolecular "
    "oxidative reductive aldol amide peptide".split()
)


@dataclass(frozen=True)
class ClassMention:
    """A reaction class named in a question, where."""

    reaction_class: ReactionClass
    text: str
    start: int
    end: int

    @property
    def known(self) -> bool:
        return bool(self.reaction_class.class_ids or self.reaction_class.transformation)

    @property
    def broad(self) -> bool:
        """A broad word ("reduction", "oxidation") rather than a named reaction: it narrows the
        reactions of a compound, but does not by itself stand for one kind of reaction."""
        return self.reaction_class.name in _BROAD

    @property
    def name(self) -> str:
        return self.reaction_class.name


# A reaction named as the step before or after the one asked about
_LATER_STEP = re.compile(
    r"\b(ahead of|prior to|in preparation for|to set up|before|after|followed by|then|later)\s+"
    r"(an?\s+|the\s+|my\s+)?$"
)


_PURPOSE = re.compile(
    r"\b(need|needs|needed|want|wants|wanted|require[sd]?|making)\b[^.;?()]{0,50}\bfor\s+"
    r"(an?|the next|a later|our next|a subsequent)\s+$"
)

_DASHES = str.maketrans({"–": "-", "—": "-", "‐": "-", "‑": "-", "‒": "-", "−": "-"})


def find_classes(question: str) -> list[ClassMention]:
    """The reaction classes a question names, in order; a longer match wins over a shorter one it
    overlaps.

    Linear in the question's length times the (fixed) number of classes. Named reactions are
    spelt with an en dash in print ("Diels–Alder", "Buchwald–Hartwig"): every dash reads as a
    hyphen (one character for one, so the offsets hold).
    """
    question = question.translate(_DASHES)
    text = question.lower()
    found: list[ClassMention] = []
    for cls, pattern in _COMPILED:
        for m in pattern.finditer(text):
            if m.end() <= m.start():
                continue
            if _LATER_STEP.search(text[: m.start()]) or _PURPOSE.search(text[: m.start()]):
                # "allylating X ahead of a Claisen rearrangement", "we need the bromide for an
                # N-alkylation": not this reaction
                continue
            named = _NAMED_BEFORE.search(question[: m.start()]) if cls.name in _BROAD else None
            if named:  # "Pinnick oxidation": a named reaction the KB holds no class of
                start = named.start() + (1 if question[named.start()] in " (" else 0)
                words = question[start : m.end()]
                unknown = ReactionClass(words, (), ())
                found.append(ClassMention(unknown, words, start, m.end()))
                continue
            found.append(ClassMention(cls, question[m.start() : m.end()], m.start(), m.end()))
    for m in _UNKNOWN_NAMED.finditer(question):
        # "the Petrakis–Moreau olefination of benzaldehyde": a named reaction no class holds
        # (answered with a nitration of benzaldehyde); a class of the vocabulary that covers the
        # same words wins
        # a class of the vocabulary that reads the name itself ("Mitsunobu etherification")
        # wins; one that reads only the noun ("Steglich esterification" is no Fischer) does not
        overlaps = any(c.start < m.end("name") and m.start("name") < c.end for c in found)
        later = _LATER_STEP.search(text[: m.start("name")])
        if not overlaps and not later and _plain_name(m.group("name")):
            words = question[m.start("name") : m.end()]
            found.append(
                ClassMention(ReactionClass(words, (), ()), words, m.start("name"), m.end())
            )
    # longest first; at equal length a class of the vocabulary wins over an unknown name
    found.sort(key=lambda c: (-(c.end - c.start), not c.known, c.start))
    kept: list[ClassMention] = []
    for c in found:
        if all(c.end <= k.start or c.start >= k.end for k in kept):
            kept.append(c)
    if not any(c.known for c in found):
        # "reagent to convert an alcohol to an alkyl bromide?": no named reaction, but a change
        # between two compound classes, which the records' structures show
        from chemground.kb.functional_groups import transformation_asked

        change = transformation_asked(question)
        if change is not None and all(c.end <= change.start or c.start >= change.end for c in kept):
            kind = ReactionClass(change.name, (), (), transformation=(change.source, change.target))
            kept.append(
                ClassMention(kind, question[change.start : change.end], change.start, change.end)
            )
    kept.sort(key=lambda c: c.start)
    unique: list[ClassMention] = []
    for c in kept:  # the same class named twice counts once
        if all(u.reaction_class is not c.reaction_class for u in unique):
            unique.append(c)
    return unique


def in_class_span(mention: QueryMention, classes: list[ClassMention]) -> bool:
    """Is the mention (a word such as "Appel" or "Boc" taken for a compound) part of a class
    name? A resolved compound that covers all the words the class was read from is not: the
    class was read from the reagent's name ("Dess-Martin periodinane": its MW was refused)."""
    return any(
        mention.start < c.end
        and mention.end > c.start
        and not (mention.resolved and mention.start <= c.start and mention.end >= c.end)
        # "deprotection of N-Boc-4-piperidinemethanol": the class was read from the start of a
        # compound's name, which goes on past it (the compound was dropped, and another Boc
        # deprotection answered as exact)
        and not (mention.resolved and mention.end > c.end)
        # "the hydrogenation of nitrobenzene": the class was read with its substrate, which is
        # a compound of the question (the 8 nitro hydrogenations were counted instead)
        and not (
            mention.resolved
            and mention.start > c.start
            and re.search(r"\b(of|on)\s+(the\s+|an?\s+)?$", c.text[: mention.start - c.start])
        )
        for c in classes
    )


def without_class_words(query: QueryTuple, classes: list[ClassMention]) -> QueryTuple:
    """``query`` without the mentions that are words of a named reaction class."""
    if not classes:
        return query
    kept = [m for m in query.mentions if not in_class_span(m, classes)]
    if len(kept) == len(query.mentions):
        return query
    dropped = [m.text for m in query.mentions if in_class_span(m, classes)]
    problems = [
        p
        for p in query.problems
        if not any(repr(d) in p or d in p.split("'")[1:2] for d in dropped)
    ]
    if any(m.resolved for m in kept) or not kept:
        problems = [
            p for p in problems if not p.startswith("no compound in the question could be resolved")
        ]
    return query.model_copy(update={"mentions": kept, "problems": problems})


_KB_CLASS_NAMES: dict[str, str] = {}  # starter class name (lower case) -> class id, filled lazily


def _starter_class_names() -> dict[str, str]:
    if not _KB_CLASS_NAMES:
        try:
            import tomllib
            from importlib import resources

            text = (
                resources.files("chemground.kb")
                .joinpath("data")
                .joinpath("starter_reactions.toml")
                .read_text("utf-8")
            )
            for c in tomllib.loads(text).get("class", []):
                _KB_CLASS_NAMES[str(c["name"]).lower()] = str(c["id"])
        except Exception:
            _KB_CLASS_NAMES["_"] = "_"
    return _KB_CLASS_NAMES


def reaction_class_ids(kb_class: str | None) -> set[str]:
    """The starter class ids a KB ``reaction_class`` string stands for (its name or a synonym)."""
    if not kb_class:
        return set()
    low = kb_class.lower().strip()
    names = _starter_class_names()
    if low in names:
        return {names[low]}
    if low in {i for i in names.values()}:
        return {low}
    out: set[str] = set()
    for cls, pattern in _COMPILED:
        if cls.class_ids and (low in cls.kb_names or pattern.search(low)):
            out.update(cls.class_ids[:1])
    return out


@dataclass
class _ClassIndex:
    state: tuple = ()
    by_class: dict[str, list[str]] = field(default_factory=dict)  # class id -> reaction ids


_INDEX: dict[int, _ClassIndex] = {}


def class_reaction_ids(kb, class_id: str) -> list[str]:
    """Ids of the KB's reactions of a starter class id (one scan of the reactions table, cached
    per KB until its reaction count or last row changes)."""
    state = kb.reaction_state()
    index = _INDEX.get(id(kb))
    if index is None or index.state != state:
        index = _ClassIndex(state)
        seen: dict[str, set[str]] = {}
        for reaction_id, kb_class in kb.reaction_classes():
            if kb_class not in seen:
                seen[kb_class] = reaction_class_ids(kb_class)
            for cid in seen[kb_class]:
                index.by_class.setdefault(cid, []).append(reaction_id)
        _INDEX[id(kb)] = index
    return index.by_class.get(class_id, [])


def has_marker(record: dict, markers: tuple[str, ...]) -> bool:
    """Does a reaction record name one of a variant's marker participants?"""
    if not markers:
        return True
    for key in ("reactants", "reagents", "catalysts", "solvents", "products"):
        for p in record.get(key) or []:
            name = str(p.get("name") or "").lower()
            if any(marker in name for marker in markers):
                return True
    return False


__all__ = [
    "CLASSES",
    "ClassMention",
    "ReactionClass",
    "class_reaction_ids",
    "find_classes",
    "has_marker",
    "in_class_span",
    "reaction_class_ids",
    "without_class_words",
]


def indefinite_article(word: str) -> str:
    """'an' before a vowel ("an amide coupling reaction", "an aldehyde"), else 'a'.

    Args:
        word: the word the article goes before.

    Returns:
        "an" or "a".
    """
    return "an" if word[:1].lower() in "aeiou" else "a"


def reaction_noun(names: str, plural: bool = False) -> str:
    """Class names with "reaction" after them, once: "Suzuki coupling reaction", but "Grignard
    reaction" and not "Grignard reaction reaction" (several class names end with the noun).

    Args:
        names: one class name, or several joined by " / ".
        plural: "reactions".

    Returns:
        The phrase to write where a sentence names the kind of reaction.
    """
    phrase = names if names.lower().endswith("reaction") else f"{names} reaction"
    return phrase + "s" if plural else phrase
