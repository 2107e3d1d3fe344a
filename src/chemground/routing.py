"""The one routing table: which channel answers a parsed question.

A parsed question (``QueryTuple``) goes to one channel:

========== =============================================================================
table      facts read from (or computed exactly on) the compound / reaction records
tools      properties a tool computes from the structure, a formula or an equation
           (logP, TPSA, QED, H-bond donors, Tb/Tm, grams <-> moles, balancing...), and
           comparisons of several compounds
routes     multi-step routes: paths in the reaction graph
papers     why / how questions: passages of the papers (``chemground lit add``)
out_of_scope  nothing here can answer it; the answer says what was understood
========== =============================================================================

``ROUTING_TABLE`` is read top to bottom; the first rule whose condition holds decides, and
its reason goes into ``Answer.trace["route"]``. ``--method`` overrides the table (a user who
names a retrieval method gets exactly that method). The table is data, so a new channel is
one rule here plus one retriever registered on ``QA``.

Before routing, :func:`refine` repairs what the mention finder cannot know about property
questions: a property word taken for a compound ("TPSA", "QED" are also abbreviations of
chemicals) is un-masked and the aspect re-read; and a balancing question does not need its
formulas resolved to structures.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from chemground.reasoning.aspects import classify_aspect, mask_mentions, names_fact
from chemground.reasoning.query import Aspect, QueryMention, QueryTuple
from chemground.reasoning.question_text import asking_clause
from chemground.reasoning.salt_forms import names_a_form
from chemground.retrieval.tools import VITAMIN

CHANNELS = ("table", "tools", "routes", "structure", "papers", "out_of_scope")
# The retrieval method (QA.retriever name) behind each channel.
CHANNEL_METHOD = {
    "table": "table",
    "tools": "tools",
    "routes": "routes",
    "structure": "structure",  # reactions by compound class (substructure search)
    "papers": "lit",
    "out_of_scope": "none",
}

TOOL_ASPECTS = frozenset(
    {
        Aspect.LOGP,
        Aspect.TPSA,
        Aspect.QED,
        Aspect.HBD,
        Aspect.HBA,
        Aspect.ROTATABLE_BONDS,
        Aspect.RING_COUNT,
        Aspect.HEAVY_ATOMS,
        Aspect.ATOM_COUNT,
        Aspect.STEREOCENTRES,
        Aspect.INCHI,
        Aspect.INCHIKEY,
        Aspect.FUNCTIONAL_GROUPS,
        Aspect.LIPINSKI,
        Aspect.AMOUNT,
        Aspect.BALANCE,
        Aspect.BOILING_POINT,
        Aspect.MELTING_POINT,
        Aspect.DENSITY,
        Aspect.FLASH_POINT,
        Aspect.HAZARDS,
    }
)
# Table aspects a tool can also compute: used when several compounds are compared, or when the
# question gives a bare formula that resolves to no structure ("molar mass of Fe2O3").
COMPARABLE_TABLE_ASPECTS = frozenset({Aspect.MOLECULAR_WEIGHT, Aspect.EXACT_MASS})
NO_STRUCTURE_NEEDED = frozenset({Aspect.BALANCE, Aspect.AMOUNT})

# Words that name a property or a unit but are also names or abbreviations of chemicals in the
# dictionary ("TPSA", "Kow", "b.p", "per mole"), and "H"/"hydrogen" in "H-bond donors".
PROPERTY_WORD = re.compile(
    r"(?:c|x)?log ?p|log ?k ?ow|kow|t?psa|qed|hb[da]s?|mw|b\.?p\.?|m\.?p\.?|bpt|mpt|inchi "
    r"?(?:key)?|ro5|ghs|pka|rotb"
    r"|(?:per )?(?:moles?|mol|mmol)|grams?|mg|kg|(?:h|hydrogen)[- ]?bond(?:ing)?"
    r"|(?:1-)?octanol[- /]?(?:water|h2o)|water[- /](?:1-)?octanol",
    re.IGNORECASE,
)
BOND_WORD = re.compile(r"^[- ]?bond", re.IGNORECASE)


# The same words inside a question: a mention lying within one ("octanol" and "water" of
# "the octanol/water logP") is part of a property's name, not a compound asked about.
PROPERTY_PHRASE = re.compile(rf"(?<![\w-])(?:{PROPERTY_WORD.pattern})(?![\w-])", re.IGNORECASE)


def is_property_word(question: str, mention) -> bool:
    """Whether a mention is (part of) a property's name or unit, not a compound asked about."""
    text = mention.text.strip()
    if PROPERTY_WORD.fullmatch(text):
        return True
    if text.lower() in ("h", "hydrogen") and BOND_WORD.match(question[mention.end :]):
        return True
    return any(
        match.start() <= mention.start and mention.end <= match.end() and match.group() != text
        for match in PROPERTY_PHRASE.finditer(question)
    )


COMPARISON = re.compile(
    r"\b(compare|comparison|versus|vs\.?|which (one |compound |molecule "
    r")?(is|has|of)|higher|lower|greater|smaller|"
    r"larger|bigger|more|less|heavier|lighter|difference between|rank|order)\b",
    re.IGNORECASE,
)
WHY_HOW = re.compile(
    r"^\s*(why|how come|how does|how do|how is|how are|explain|what is the mechanism|what causes)\b"
    r"|\bmechanism\b|\bwhy\b|\baccording to (the )?(papers?|literature)\b|\bper the papers\b",
    re.IGNORECASE,
)
# Words that make a question chemistry even when it names no compound: the papers are searched
# only for such a question ("What is the capital of France?" is out of scope, papers or not).
CHEMISTRY_WORD = re.compile(
    r"\b(chemi\w*|reactions?|react\w*|synthe\w*|cataly\w*|mechanis\w*|molecul\w*|compounds?|bonds?|bonding|acids?|"
    r"acidic|bases?|basic|solvents?|yields?|oxidi\w*|reduc\w*|polymer\w*|ions?|ionic|atoms?|atomic|electron\w*|orbital\w*|"
    r"spectr\w*|nmr|chromatograph\w*|crystal\w*|enzym\w*|proteins?|drugs?|elements?|metals?|organic|inorganic|"
    r"stereo\w*|chiral\w*|isomer\w*|esters?|amines?|alcohols?|ketones?|aldehydes?|hydrogenat\w*|functional|"
    r"substituent\w*|aromatic\w*|rings?|equilibri\w*|kinetic\w*|thermodynam\w*|ph|pka|salts?|dissolv\w*|solub\w*|"
    r"precipitat\w*|titrat\w*|concentrations?|molar\w*|moles?|formulas?|structures?|smiles|inchi\w*|papers?|"
    r"literature|experiment\w*|labs?|laborator\w*|reagents?|products?|yield|temperature|electrophil\w*|"
    r"nucleophil\w*|radical\w*|carbon\w*|hydrogen\w*|oxygen\w*|nitrogen\w*|sulfur\w*|halogen\w*|"
    r"photo\w*|electrochem\w*|distill\w*|purif\w*|toxic\w*|hazard\w*)\b",
    re.IGNORECASE,
)
FORMULA_TOKEN = re.compile(
    r"(?<![A-Za-z0-9])(?:[A-Z][a-z]?\d*|\((?:[A-Z][a-z]?\d*)+\)\d*){2,}(?![A-Za-z0-9])"
)


def candidate_name(question: str) -> str | None:
    """What a question that names no known compound seems to ask about ("... of flurbozamine?")."""
    text = re.sub(
        r"\s+in\s+(°\s?c|celsius|kelvin|k|fahrenheit|g/mol)\b.*$", "", question.strip(), flags=re.I
    )
    text = re.sub(r"[?!.]+\s*$", "", text)
    parts = re.split(r"\b(?:of|for|in|does|do|is|are)\s+", text, flags=re.I)
    if len(parts) < 2:
        return None
    tail = re.sub(r"^(?:the|a|an)\s+", "", parts[-1], flags=re.I)
    tail = re.sub(r"\s+(?:have|has|got|contain|contains)\b.*$", "", tail, flags=re.I).strip(" '\"")
    return tail[:60] or None


@dataclass(frozen=True)
class Signals:
    """Cheap facts about a question that the routing rules read (computed once)."""

    resolved: int
    mentions: int
    comparison: bool
    why_how: bool
    formula_token: bool
    has_papers: bool
    chemistry: bool = True  # the question names a compound, a reaction class or a chemistry word
    compound_class: bool = False  # it names a class of compounds in reactions ("a boronic acid")


@dataclass(frozen=True)
class Rule:
    name: str
    channel: str
    when: Callable[[QueryTuple, Signals], bool]
    why: Callable[[QueryTuple, Signals], str]
    # the question is understood, but nothing here holds its answer: it is declined with the
    # rule's reason ("I cannot answer this: ...") instead of being called not understood
    declines: bool = False


@dataclass(frozen=True)
class Route:
    """The decision: a channel, the retrieval method behind it, and why."""

    channel: str
    method: str
    rule: str
    why: str
    comparison: bool = False

    def to_json(self) -> dict:
        return {
            "channel": self.channel,
            "method": self.method,
            "rule": self.rule,
            "why": self.why,
            **({"comparison": True} if self.comparison else {}),
        }


def _aspect(q: QueryTuple) -> str:
    return q.aspect.value if q.aspect else "none"


# Data no record, tool or paper here holds: statistics, news, prices, markets, dated figures
# ("Tell me about dihydrogen monoxide poisoning statistics in 2023" is not water's description).
DATA_NOT_HELD = re.compile(
    # ("in stock", "stock solution": the lab's shelf, not a share price)
    r"\b(statistics?|statistical|news|prices?|pricing|costs?|market|sales|revenue|"
    r"(?<!\bin )stock(?! solutions?\b)|"
    r"in (?:19|20)\d\d|this year|last year|today|nowadays|currently)\b",
    re.IGNORECASE,
)


# The asker's own experiment ("what yield did my Suzuki coupling give?", "the compound in flask
# 3", "what I made last Tuesday"): no record holds it. Only when the question names no compound
# we resolve: "MW of my compound, aspirin" is still aspirin's molecular weight.
OWN_EXPERIMENT = re.compile(
    r"\b(my|our)\s+(own\s+)?(\w+[- ]?){0,2}\b(samples?|reactions?|couplings?|products?|"
    r"compounds?|batch(es)?|runs?|experiments?|flasks?|crude|materials?|synthes[ie]s|preps?|"
    r"columns?|tlcs?|nmrs?|spectr(um|a)|mixtures?|vials?|results?)\b"
    r"|\b(in|from) (flask|vial|tube|beaker|jar|bottle|fraction) #?\d+\b"
    r"|\blast (monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|night|month)\b"
    r"|\b(i|we) (just )?(made|synthesi[sz]ed|ran|isolated|prepared|obtained|got)\b[^?]*"
    r"\b(yesterday|this morning|last)\b",
    re.IGNORECASE,
)


# Solvents for purification and work-up ("three solvents for recrystallising acetanilide",
# "eluent for the column"): the records hold the solvent a reaction is run in, and answering
# that one would be confidently wrong.
WORKUP_SOLVENT = re.compile(
    r"\b(re-?crystalli[sz]\w*|purif\w*|chromatograph\w*|columns?|eluents?|eluants?|"
    r"extract(ion|ions|ing|ed)?|work-?ups?|wash(ing|ed)?|triturat\w*|tlc)\b",
    re.IGNORECASE,
)

# A question about the work-up itself: "grignard of PhMgBr + benzophenone: workup?" was answered
# with the product
WORKUP_ASKED = re.compile(
    r"(?<!after )(?<!before )(?<!without )\b(work-?ups?|purification|isolation)\s*\??\s*$"
    r"|\bhow (do|should|would|can|did) (i|you|we|one|they) (purify|isolate|work (it |this )?up|"
    r"re-?crystalli[sz]e)\b|\bwhat('s| is| was) the (work-?up|purification)\b",
    re.IGNORECASE,
)


# Properties no record or tool here holds: "What's aspirin's pKa?" was read as "what's X" and
# answered with aspirin's description, a confident answer to a question it did not answer.
PROPERTY_NOT_HELD = re.compile(
    r"\b(pk[ab]s?|solubilit\w*|soluble|miscib\w*|colou?rs?|odou?rs?|smells?|tastes?|ld50|"
    r"lethal dose|viscosit\w*|refractive index|vapou?r pressure|half-?li(fe|ves)|"
    r"dipole moments?|heats? of (formation|combustion)|enthalp\w*|entrop\w*|gibbs|"
    r"oxidation (state|number)s?|hybridi[sz]ation|ph of|conjugate (acid|base)|"
    r"(nmr|ir|uv|raman|mass) (spectr\w*|shifts?|peaks?|bands?)|chemical shifts?|"
    # "EI-MS ...: base peak m/z 43 – assign the fragments?" (the exact mass was answered)
    r"base peaks?|fragment(s|ation)( ions?| patterns?)?|ei-?ms|esi-?ms|ms/ms|"
    # "how heavy is a water molecule in grams": one molecule's mass, not the molar mass (18.02
    # g/mol was answered as the grams)
    r"(a|one|single|each|an) (\w+ )?molecule('s)? (weighs?|mass|in (grams?|g|kg|mg))|"
    r"(mass|weight) of (a|one|a single|each|an) (\w+ )?molecule|per molecule|"
    r"(one|a single|each) molecule of\b|"
    r"assign (the |each |these |all )?(peaks?|signals?|fragments?|bands?)|"
    r"crystal structures?|shelf[- ]li(fe|ves)|"
    # a TLC value: "Rf of benzaldehyde in 20% EtOAc/hexane" (Rf was read as rutherfordium)
    r"\brf (values?|of)\b|\bretention (factors?|times?)\b|"
    # counts and values no tool here computes, which a near rule answered with another one:
    # "stereoisomers" with the stereocentres, "double bonds" with the rotatable bonds, "molar
    # refractivity" with the molecular weight, "logD" and "XlogP3" with Crippen's logP, "[M+H]+"
    # with the neutral exact mass
    r"stereoisomers?|enantiomers? (count|number)|"
    # bonds counted or asked about, not named ("hydrogenating the triple bond - what catalyst?")
    r"(how many|number of|count( of| the)?) ([\w=#-]+ )?(double|triple|single) bonds?|"
    r"(has|have|contains?) (a|any) (double|triple) bonds?|(double|triple|single) bonds?\s*\?|"
    # isomer ratios and selectivities, which no record gives: "what E/Z ratio does the crude show"
    # was answered with the record's product
    r"(e/z|z/e|cis[/:]trans|trans[/:]cis|diastereomeric|enantiomeric|isomeric|regioisomeric) "
    r"ratios?|enantiomeric excess|"
    r"molar refractivit\w*|refractivit\w*|log ?d(7\.4)?|xlog ?p\d?|"
    r"fraction (sp3|csp3)|fsp3|degrees? of unsaturation|double bond equivalents?|"
    # (atoms of an element are counted: reasoning.atom_counts)
    r"(halogen|hetero) ?atoms|m/z|(ms|mass[- ]spec\w*|esi) adducts?|adducts? ions?|"
    # "specific rotation" was answered with the rotatable bonds
    r"(specific|optical) rotations?|optical activit\w*|"
    # structure and physics no tool here computes: "is water polar?" was answered with the TPSA,
    # "the bond angle in water" with the rotatable bonds
    r"polarity|(is|are) (?!more\b|less\b)\w+( (?!more\b|less\b)\w+)? polar(?! surface)|"
    r"bond (angles?|lengths?|energ\w*|orders?|dissociation)|"
    # ("SMILES with the geometry", "alkene geometry": E or Z, which a SMILES shows)
    r"bond strengths?|(molecular )?(?<!with the )(?<!alkene )(?<!double bond )geometry|vsepr|"
    r"shapes? of|lewis (structure|dot)\w*|"
    r"resonance (structures?|forms?)|point groups?|symmetry|homo[- ]lumo( gap)?|lumo|"
    r"homo (energy|level|orbital)|band ?gaps?|"
    r"ionization energ\w*|ionisation energ\w*|electron affinit\w*|electronegativit\w*|"
    r"atomic (number|radius|radii)|valence electrons?|electron configurations?|"
    r"heat capacit\w*|specific heat|surface tension|critical (temperature|pressure|point)|"
    r"triple point|k ?sp|solubility product|isoelectric point|lattice energ\w*|"
    r"(ir|infrared|uv|raman) (frequenc\w*|absorptions?|wavelengths?)|lambda ?max|"
    r"conductivit\w*|magnetic\w*|paramagnetic|diamagnetic)\b"
    r"|\[m ?[+-] ?\w+\][+-]?",
    re.IGNORECASE,
)

# the context before a question: "banana-smell practical tomorrow: A + B - what yield?"
_CONTEXT_BREAK = re.compile(r":\s|\s[-–—]\s")


def unheld_part(query) -> str | None:
    """The words of a property no record or tool holds, asked beside a fact that is held and
    named ("logP of caffeine and how soluble is it in water?": the logP is answered and the
    solubility said not to be; the whole question had been declined), or None.

    Args:
        query: a parsed question.

    Returns:
        The property's words as written, lower-cased; None when the question asks no such
        property, or asks nothing else.
    """
    text = query.asked_text
    held = names_fact(text, query.aspect)
    if held is None or not _JOINED_PART.search(text):
        return None
    for found in PROPERTY_NOT_HELD.finditer(text):
        if query.aspect == Aspect.TPSA and re.search(r"\bpolar\b", found.group(0), re.I):
            continue  # "is cytidine very polar? what's its polar surface area?": answered by it
        if found.end() <= held.start() or found.start() >= held.end():
            return found.group(0).lower()
    return None


# the parts of a question that asks several things: "X and Y", "X? Y?", "X; Y", "X, Y"
_JOINED_PART = re.compile(r"\b(and|plus|as well as|also)\b|[?;,]\s*\S", re.IGNORECASE)


def _asks_property_not_held(query) -> bool:
    """Whether the question asks for a property no record or tool holds. A property word in
    the context before a colon or dash does not count when the rules read what is asked after
    it ("banana-smell practical tomorrow: ... - what yield should we expect?"), nor "polar" when
    the polar surface area is asked ("is cytidine very polar? what's its polar surface area?")."""
    from chemground.reasoning.adducts import asked_ion, ion_words

    if unheld_part(query) is not None:
        return False  # the fact held is answered, the other part said (QA.ask)
    text = query.asked_text
    if query.aspect == Aspect.EXACT_MASS and asked_ion(text) is not None:
        text = ion_words(text)  # "[M+H]+ of caffeine": an ion's m/z, computed
    found = PROPERTY_NOT_HELD.search(text)
    if found is None:
        return False
    if query.aspect is None:
        return True
    if re.search(r"\bpolar\b", found.group(0), re.IGNORECASE) and re.search(
        r"\bpolar surface area\b|\bt?psa\b", text, re.IGNORECASE
    ):
        return PROPERTY_NOT_HELD.search(text, found.end()) is not None
    context = max((m.end() for m in _CONTEXT_BREAK.finditer(text)), default=0)
    return any(m.start() >= context for m in PROPERTY_NOT_HELD.finditer(text))


# "logP of domperidone? trying to explain why it doesn't get into the brain": why the user
# asks a fact, not a why-question (it was refused as one)
_OWN_PURPOSE = re.compile(
    r"\b(?:trying|try|want|wanting|need|needing|hoping|going|have|help(?:s|ing)? me|so i can|"
    r"use)(?: it| this| that| them)? to explain\b[^?]*"
)


def _explanation_asked(q: QueryTuple) -> re.Match | None:
    """The words that ask why or how (``EXPLANATION_ASKED``), or None; words of the user's own
    purpose after a fact asked ("... trying to explain why ...") do not count."""
    text = q.asked_text
    if q.aspect is not None:
        text = _OWN_PURPOSE.sub(lambda m: " " * len(m.group(0)), text)
    return EXPLANATION_ASKED.search(text)


_USE_ASKED = re.compile(r"\b(is|are) (\w+ ){0,3}used for\b|\bwhat (is|are) \w+ for\b", re.I)

# Why and how a reaction works, and who found it: "what is the mechanism of the Diels-Alder of
# butadiene and maleic anhydride?" was answered with the record's participants. The records hold
# what was done; the papers, when there are some, may hold why.
EXPLANATION_ASKED = re.compile(
    r"\bmechanis(m|ms|tic|tically)\b|^\s*why\b|\bwhy (is|are|does|do|did|would|should|can|not)\b"
    # ("explain what X is" asks for a description)
    r"|\bexplain\b(?! (to me )?what\b(?! (happens|causes|drives|makes|determines)\b))"
    r"|\brate[- ](determining|limiting) steps?\b|\btransition states?\b"
    # "draw the catalytic cycles of the Sonogashira and label each elementary step": the SMILES
    # of Pd and Cu were given
    r"|\bcatalytic cycles?\b|\belementary (steps?|reactions?)\b|\boxidative addition\b"
    r"|\breductive elimination\b|\btransmetal+ation\b|\bmigratory insertion\b"
    r"|\barrow[- ]pushing\b|\bstereospecific\w*|\bregioselectiv\w*|\bchemoselectiv\w*"
    r"|\bwho (discovered|invented|developed|first (made|reported|described))\b"
    # "when was aspirin first synthesized?" was answered with aspirin's description
    r"|\bwhen (was|were|did)\b[^?]{0,60}\b(first )?(synthesi[sz]ed|discovered|invented|isolated|"
    r"introduced|patented|approved)\b|\bhistory of\b",
    re.IGNORECASE,
)

# A value under conditions the tools do not model: the normal boiling point was given for "bp of
# DMSO at 10 mmHg", the 25 °C density for "density of ethanol at 0 °C", Crippen's computed logP
# for "experimental logP"
PROPERTY_AT_CONDITIONS = re.compile(
    r"\b(boiling point|b\.?p\.?|boils?)\b[^?]{0,40}?\b(at|under)\s+"
    r"(?!(1(\.0+)?\s*atm|760\s*(mm ?hg|torr)|101(\.\d+)?\s*kpa|1\.01\d*\s*bar)\b)(\d+(\.\d+)?\s*"
    r"(mm ?hg|torr|mbar|bar|kpa|pa|atm)\b|reduced pressure|(high )?vacuum)"
    r"|\bin vacuo\b"
    # "the boiling point of water on Mount Everest": at altitude, not at 1 atm
    r"|\b(boiling point|b\.?p\.?|boils?)\b[^?]{0,40}?\b(on (mount|mt\.?) \w+|at (high |an )?"
    r"altitude|in (the )?mountains|at \d[\d,]* ?(m|ft|metres|meters|feet)\b"
    # "the boiling point of water on Mars" (the normal boiling point was the answer)
    r"|on (mars|venus|the moon|titan|jupiter|another planet)|in space|in orbit|underwater|"
    r"in a pressure cooker|in an autoclave)"
    r"|\bdensity\b[^?]{0,40}?\bat\s+(?!25\s*(°\s*)?c\b)-?\d+(\.\d+)?\s*(°\s*c|c|k)\b"
    r"|\b(experimental|measured|shake[- ]flask|literature)\b[^?.]{0,40}\blog ?p\b"
    r"|\blog ?p\b[^?]{0,25}\b(experimental|measured|shake[- ]flask)\b"
    # "the conversion of the Swern oxidation" was answered with its isolated yield ("conversion
    # of A to B" names the transformation and stays a question about it)
    r"|\bconversion\b(?![^?]*\b(in)?to\b)",
    re.IGNORECASE,
)


# "which solvent is NOT suitable for a Grignard?" was answered with THF; "what is the product if
# I forget the catalyst?" with the catalysed product: the records say what was done
NEGATED_OR_HYPOTHETICAL = re.compile(
    r"\b(not|never|n't)\s+(be\s+)?(suitable|used|use|add|recommended|compatible|appropriate|work|"
    r"tolerated|allowed)\b|\b(unsuitable|incompatible|avoided)\b|\bshould(n't| not)\s+"
    r"((i|you|we|one)\s+)?(use|add)\b|\bavoid\b"
    r"|\bwhat (would|will|could|might) happen if\b|\bwhat if\b"
    # "if I ran the Sonogashira copper-free, what yield would I get?"
    r"|\bif (i|you|we|one) (ran|run|did|tried|were to)\b[^?]*\bwould\b"
    r"|\b(copper|palladium|metal|catalyst|base|ligand)[- ]free\b"
    # "... give if I left out the triethylamine?" (the record's yield was answered)
    r"|\bif (i|you|we|one) (forget|forgot|omit|omitted|skip|skipped|leave out|left out|"
    r"(don'?t|didn'?t|do not|did not) (add|use)|replace|replaced|swap|swapped|change|changed)\b"
    r"|\bwithout (the |a |an |any )?(catalyst|base|acid|reagent|solvent|ligand)\b"
    r"|\bin the absence of\b"
    # "what's the yield if I use 2 eq of NaBH4?": an amount the record did not use
    r"|\bif (i|you|we|one) (use|add|take|double|halve|increase|decrease) (only )?\d+(\.\d+)?\s*"
    r"(eq|equiv|equivalents|mol ?%|times)\b"
    # "at 50 C instead?", "in water instead of methanol", "would the Swern still work at rt?",
    # "in wet ether?", "at a higher temperature": a change to what the record did (its yield or
    # temperature was answered as if nothing had changed)
    r"|\bif\b[^?]{0,50}\b(were|was) (done|run|carried out|performed|heated|cooled)\b"
    r"|\binstead\b|\bstill (work|go|proceed|run|give|happen|be)\b|\bin wet\b"
    r"|\b(at|to) (a |an )?(higher|lower|elevated|reduced|different) (temp\w*|pressure)\b",
    re.IGNORECASE,
)


# "NBS/AIBN in MeCN instead of CCl4 – what temperature does your record run it at?": the change
# is the record's own (it names what the record did), and the question asks the record's value
ASKS_THE_RECORD = re.compile(
    r"\b(your|the|this|that) (records?|entry|entries|data|database|kb|knowledge base)\b[^?]{0,30}"
    r"\b(run|runs|use|uses|do|does|give|gives|say|says|report|reports|list|lists|have|has)\b"
    r"|\baccording to (your|the) (records?|data|database|kb)\b",
    re.IGNORECASE,
)


def _hypothetical(question: str) -> re.Match | None:
    """What makes ``question`` negated or hypothetical, or None; an "instead" that describes
    what the question's own record did is neither."""
    found = NEGATED_OR_HYPOTHETICAL.search(question)
    if found and found.group(0).lower() == "instead" and ASKS_THE_RECORD.search(question):
        return None
    return found


# Amounts the reaction records do not hold: "how much catalyst is used in the Suzuki coupling"
# was answered with the catalyst's name.
AMOUNT_NOT_HELD = re.compile(
    # ("how much do I get?" asks the yield)
    r"\bhow (much(?! (product )?(do|did|will|would|should|can) (i|we|you|one) (get|obtain|"
    r"isolate)\b)|many (equivalents|eq|grams|moles|mmol|ml|millilitres|milliliters))\b|"
    r"\bloadings?\b|\bequivalents?\b|\bmol ?%|\bmolar ratios?\b|\bratio of\b|"
    # ("stoichiometric base?" asks which base)
    r"\bstoichiometr\w*\b(?!\s+(bases?|oxidants?|reductants?|reagents?|acids?)\b)|\bconcentration\b|"
    # "the limiting reagent of ..." was answered with the record's sulfuric acid
    r"\blimiting (reagent|reactant)s?\b|"
    # "what's the yield if I use 2 eq of NaBH4?": an amount changed, which no record holds
    r"\b(if|when) (i|we|you) (use|add|take) \d+(\.\d+)?\s*(eq|equiv|mol ?%)",
    re.IGNORECASE,
)
# An amount to weigh out, whatever the rules read: "what mass of NaCl do I need for 100 mL of
# 0.9% saline?" was answered with NaCl's molecular weight
AMOUNT_TO_WEIGH = re.compile(
    r"\bwhat (mass|weight|amount|volume) of\b[^?]{0,60}\b(do|would|should|must|shall) (i|we|you) "
    r"(need|use|weigh|add|take|dissolve)\b",
    re.IGNORECASE,
)
# Amounts a notebook line gives ("PdCl2(PPh3)2 (2 mol%), CuI (4 mol%) ... -> product?"): what was
# used, not what is asked
AMOUNT_GIVEN = re.compile(
    r"\b\d+(?:[.,]\d+)?\s*(?:mol ?%|equivalents?|equiv\.?|eq\.?)(?!\w)", re.IGNORECASE
)


def _amount_asked(question: str) -> re.Match | None:
    """The amount the question asks for, with the amounts it only gives left out."""
    return AMOUNT_NOT_HELD.search(AMOUNT_GIVEN.sub(" ", question))


def _amount_words(question: str) -> str:
    """The words that ask for an amount, for the answer to quote."""
    found = _amount_asked(question) or AMOUNT_TO_WEIGH.search(question)
    return found.group(0).lower() if found else "an amount"


# "grams of A for / to react with / per 10 mmol of B": a stoichiometry question
AMOUNT_FOR_ANOTHER = re.compile(
    r"\b(for|to react with|to reduce|to convert|per|with|against)\b[^?]*\d", re.IGNORECASE
)
AMOUNT_WITH_UNIT = re.compile(
    r"\b\d+(?:[.,]\d+)?\s*(?:mg|g|kg|grams?|mmol|mol|moles?|millimoles?)(?![/\w])", re.IGNORECASE
)
AMOUNT_ASPECTS = frozenset(
    {
        None,
        Aspect.CATALYST,
        Aspect.REAGENT,
        Aspect.SOLVENT,
        Aspect.REACTANTS,
        Aspect.CONDITIONS,
        Aspect.PRODUCT,
    }
)


# Questions for a clinician, a regulator or an economist, whatever compound they name: "Is
# paracetamol safe during pregnancy?" was answered with its safety data, "Which country produces
# the most sulfuric acid?" with a nitration, "the legal limit of methanol in spirits" with a
# rule-of-five check.
NOT_CHEMISTRY_DATA = re.compile(
    r"\b(side[- ]effects?|dos(e|es|age|ing)(?<!\bhow long dose)(?<!\bhow much dose)"
    r"(?!\s+(it|this|that|the|a|an|x|one|i|you|we|they|cells|cultures|mice|rats|wells|plates)\b)"
    # "how many H-bond donors dose fluconazol have": 'does' mistyped
    r"(?!\s+[\w-]+( [\w-]+)? (have|has|contain|weigh|look like|mean)\b)"
    r"|pregnan\w*|breast-?feed\w*|overdos\w*|"
    r"prescri\w*|(bad|good|safe|healthy) for (you|me|us|skin|the skin|health|kids|children)|"
    # "is DMSO safe to put on my skin?" was answered with its flash point
    r"(on|onto|into) (my|your|the|his|her) (skin|body|hands?|face|hair|eyes?)|"
    r"addictive|addiction|withdrawal|out of (my|your) (system|body)|"
    r"legal(ly)?|illegal|regulat\w*|permitted|allowed limit|"
    r"countr(y|ies)|compan(y|ies)|manufacturers?|brand names? in|"
    r"(produces|makes|manufactures) the most|(global|world|annual|worldwide) production)\b",
    re.IGNORECASE,
)
# Requests no record answers although they name a compound: "tell me a joke about sodium" was
# answered with sodium's description, "the best brand of ibuprofen" with its synonyms, "can I
# mix bleach and ammonia to clean my bathroom?" with an unrelated reaction
NOT_A_DATA_REQUEST = re.compile(
    r"\b(jokes?|poems?|songs?|limericks?|haikus?|raps?|stor(y|ies)|essays?|ethic(s|al)|"
    # "discuss, in no more than 300 words, ...": an essay by another name
    r"(in|within|under) (no more than |at most |about )?\d+ words|"
    r"best (brand|make|supplier)s?|cheapest|prices?|costs?|how much (does|do|is) \w+ cost|"
    # "will my supervisor accept a 45 % yield ... or do I have to repeat it?": a judgement of
    # the asker's own work, not a record's fact (the record's yield had been answered)
    r"(will|would) (my|our|the) (supervisor|boss|pi|advisor|adviser|professor|prof|teacher|"
    r"reviewer|manager|examiner)s? (accept|be (ok|okay|happy|fine))|"
    r"(do|should|must) (i|we) (have to |need to )?(repeat|redo|rerun) (it|this|that|the)|"
    # "is it ok to weigh acrylamide on the open bench ... or do I need the fume hood?": advice
    # on handling (its molecular weight had been answered)
    r"is it (ok|okay|fine|alright|safe) to|(do|does|should) (i|we|you) (really )?need (a|the) "
    r"fume ?hood|"
    r"where (can|do|could) (i|you|we) (buy|get|order|find)|"
    r"to clean|for cleaning|household(?! names?)|"
    # "try your benzene nitration in our kitchen", "ok to do on the stove at home"
    r"in (my|the|our|a) (bathroom|kitchen|garden|garage|shed|pool|house|home|flat|apartment|"
    r"dorm(itory)? room)|at home|"
    # "scale the Swern oxidation to 20 kg in a pilot plant - what reactor size?": process
    # engineering, which no record holds (a record's amounts are a laboratory's)
    r"pilot[- ]plants?|reactor (size|volume)s?|cooling (capacity|duty)|heat removal|"
    r"scal(e|ing)[- ]up|scal(e|ing) (it|this|that|the [\w-]+( [\w-]+)?( of [\w-]+)?) (up )?"
    r"to \d[\d,.]* ?(kg|t|tons?|tonnes?|l|litres?|liters?)\b)\b",
    re.IGNORECASE,
)


def _not_a_data_request(q: QueryTuple) -> re.Match | None:
    """The words of ``NOT_A_DATA_REQUEST`` in what the question asks, or None. When a fact is
    asked, only the clause that asks it counts: "DBDMH as a cheaper NBS replacement for the
    scale-up – CAS number for the purchase request?" asks the CAS (it was declined as scale-up)."""
    text = q.asked_text
    if q.aspect is not None and q.aspect.level == "compound" and q.resolved_mentions:
        # a compound's own fact (its CAS, weight, formula) asked in the last clause; a reaction
        # question keeps every clause ("scale the Swern to 20 kg – which solvent?")
        text = asking_clause(text)
    return NOT_A_DATA_REQUEST.search(text)


def classified_out_of_scope(q: QueryTuple) -> bool:
    """Whether the exemplar classifier read the question, which no rule read, as out of scope.

    Args:
        q: the parsed (and refined) question.

    Returns:
        True when it has no aspect and the classifier's accepted decision is ``out_of_scope``:
        such a question is routed out of scope and gets no answer.
    """
    decision = q.aspect_classifier
    return (
        q.aspect is None
        and decision is not None
        and decision.get("accepted") is True
        and decision.get("label") == "out_of_scope"
    )


def _classified_why(q: QueryTuple) -> str:
    decision = q.aspect_classifier or {}
    nearest = (decision.get("neighbours") or [{}])[0].get("text", "")
    return (
        "the exemplar classifier reads it as not a question about a compound, a reaction or a "
        f"property (out of scope, score {decision.get('score', 0):.2f}; nearest exemplar "
        f"{nearest!r})"
    )


ROUTING_TABLE: tuple[Rule, ...] = (
    Rule(
        "classified_out_of_scope",
        "out_of_scope",
        lambda q, s: classified_out_of_scope(q),
        lambda q, s: _classified_why(q),
        declines=True,
    ),
    Rule(
        "data_not_held",
        "out_of_scope",
        lambda q, s: (
            q.aspect in (None, Aspect.DESCRIPTION) and bool(DATA_NOT_HELD.search(q.asked_text))
        ),
        lambda q, s: (
            f"it asks for {DATA_NOT_HELD.search(q.asked_text).group(0).lower()!r}-type data "
            "(statistics, news, prices, dated figures), which no record, tool or paper here holds"
        ),
        declines=True,
    ),
    Rule(
        "own_experiment",
        "out_of_scope",
        lambda q, s: s.resolved == 0 and bool(OWN_EXPERIMENT.search(q.asked_text)),
        lambda q, s: (
            "it asks about your own experiment "
            f"({OWN_EXPERIMENT.search(q.asked_text).group(0)!r}), "
            "and the knowledge base holds curated and published records, not your lab's results"
        ),
        declines=True,
    ),
    Rule(
        "not_chemistry_data",
        "out_of_scope",
        lambda q, s: bool(NOT_CHEMISTRY_DATA.search(q.asked_text)),
        lambda q, s: (
            f"it asks about {NOT_CHEMISTRY_DATA.search(q.asked_text).group(0).lower()!r}: medical, "
            "legal or economic matters, which no record, tool or paper here holds (for a drug's "
            "use and safety ask a clinician or pharmacist)"
        ),
        declines=True,
    ),
    Rule(
        "not_a_data_request",
        "out_of_scope",
        lambda q, s: _not_a_data_request(q) is not None,
        lambda q, s: (
            f"it asks for {_not_a_data_request(q).group(0).lower()!r}: creative "
            "writing, prices and suppliers, household use and safety, or process scale-up, which "
            "no record, tool or paper here holds (for mixing cleaning products, read their safety "
            "labels: some, such as bleach and ammonia, release toxic gases)"
        ),
        declines=True,
    ),
    Rule(
        "property_not_held",
        "out_of_scope",
        lambda q, s: (
            (q.aspect is not None or not s.has_papers)  # the papers may hold it
            and q.aspect != Aspect.ATOM_COUNT  # "how many carbon atoms": counted
            and _asks_property_not_held(q)
            # "what tetramethylsilane is used for in NMR spectroscopy": its use, described
            and not (q.aspect == Aspect.DESCRIPTION and _USE_ASKED.search(q.asked_text))
        ),
        lambda q, s: (
            f"it asks for {PROPERTY_NOT_HELD.search(q.asked_text).group(0).lower()!r}, which no "
            "record or tool here holds (the KB has structures, identifiers, names, descriptions "
            "and reactions; the tools compute descriptors and look up boiling and melting points, "
            "densities, flash points and hazards)"
        ),
        declines=True,
    ),
    Rule(
        "explanation_from_papers",
        "papers",
        lambda q, s: s.has_papers and _explanation_asked(q) is not None,
        lambda q, s: "it asks why or how (a mechanism, a selectivity): the papers' passages",
    ),
    Rule(
        "explanation_not_held",
        "out_of_scope",
        lambda q, s: _explanation_asked(q) is not None,
        lambda q, s: (
            f"it asks {_explanation_asked(q).group(0).strip().lower()!r}: why "
            "or how a reaction works, or its history; the records hold what was done and what it "
            "gave, and this knowledge base has no papers to explain it (add some with "
            "`chemground lit add FILES...`)"
        ),
        declines=True,
    ),
    Rule(
        "property_at_conditions",
        "out_of_scope",
        lambda q, s: bool(PROPERTY_AT_CONDITIONS.search(q.asked_text)),
        lambda q, s: (
            f"it asks for {PROPERTY_AT_CONDITIONS.search(q.asked_text).group(0)!r}: a value under "
            "conditions the tools do not model (they give normal boiling points at 1 atm, "
            "densities at 25 °C and Crippen's computed logP, not measured values; the reaction "
            "records give isolated yields, not conversions)"
        ),
        declines=True,
    ),
    Rule(
        "negated_or_hypothetical",
        "out_of_scope",
        lambda q, s: (
            (q.aspect is None or q.aspect.level == "reaction") and bool(_hypothetical(q.asked_text))
        ),
        lambda q, s: (
            f"it asks {_hypothetical(q.asked_text).group(0).lower()!r}: what is "
            "unsuitable, or what would happen under changed conditions, and the reaction records "
            "hold what was done and what it gave, not what fails"
        ),
        declines=True,
    ),
    Rule(
        "amount_not_held",
        "out_of_scope",
        lambda q, s: (
            (q.aspect in AMOUNT_ASPECTS and bool(_amount_asked(q.asked_text)))
            or bool(AMOUNT_TO_WEIGH.search(q.asked_text))
        ),
        lambda q, s: (
            f"it asks for an amount ({_amount_words(q.asked_text)!r}), "
            "and the reaction records name their reagents, catalysts and solvents without "
            "amounts, loadings or ratios (nor are solutions made up here: the tools convert a "
            "mass given with its unit to moles, and back)"
        ),
        declines=True,
    ),
    Rule(
        "amount_for_another",
        "out_of_scope",
        # "how many grams of NaBH4 for 10 mmol benzaldehyde?" was answered as 10 mmol of NaBH4
        lambda q, s: (
            q.aspect == Aspect.AMOUNT
            and len({m.inchikey for m in q.resolved_mentions if m.inchikey}) >= 2
            and (
                bool(AMOUNT_FOR_ANOTHER.search(q.asked_text))
                # "the yield of aspirin if 2.0 g salicylic acid gives 2.1 g aspirin": two
                # amounts of two compounds relate them (2.0 g was converted as aspirin's)
                or len(AMOUNT_WITH_UNIT.findall(q.question)) >= 2
            )
        ),
        lambda q, s: (
            "it asks for the amount of one compound that goes with an amount of another, which "
            "depends on the equivalents used; the records hold no equivalents (a molar-mass "
            "conversion of one compound's amount can be asked on its own)"
        ),
        declines=True,
    ),
    Rule(
        "workup_solvent",
        "out_of_scope",
        lambda q, s: q.aspect == Aspect.SOLVENT and bool(WORKUP_SOLVENT.search(q.asked_text)),
        lambda q, s: (
            "it asks for a solvent for "
            f"{WORKUP_SOLVENT.search(q.asked_text).group(0).lower()!r}, and the records hold the "
            "solvent a reaction is run in, not solvents for purification or work-up"
        ),
        declines=True,
    ),
    Rule(
        "workup_asked",
        "out_of_scope",
        lambda q, s: (
            (q.aspect is None or q.aspect.level == "reaction")
            and bool(WORKUP_ASKED.search(q.asked_text))
        ),
        lambda q, s: (
            f"it asks about {WORKUP_ASKED.search(q.asked_text).group(0).strip(' ?').lower()!r}: "
            "the records hold the reaction's participants, conditions and yield, not how the "
            "product was worked up or purified"
        ),
        declines=True,
    ),
    Rule(
        "no_compound",
        "out_of_scope",
        lambda q, s: (
            q.aspect in TOOL_ASPECTS and q.aspect not in NO_STRUCTURE_NEEDED and s.mentions == 0
        ),
        lambda q, s: (
            f"it asks for the {_aspect(q).replace('_', ' ')} "
            + (
                f"of {candidate_name(q.question)!r}, which I could not resolve to a compound"
                if candidate_name(q.question)
                else "but names no compound I could recognise"
            )
        ),
    ),
    Rule(
        "tool_aspect",
        "tools",
        lambda q, s: q.aspect in TOOL_ASPECTS,
        lambda q, s: f"aspect {_aspect(q)} is computed by a tool",
    ),
    Rule(
        "comparison",
        "tools",
        # "MW of water and ethanol" asks for both, as "which is heavier" does: answering the
        # first alone would drop half the question silently
        lambda q, s: q.aspect in COMPARABLE_TABLE_ASPECTS and s.resolved >= 2,
        lambda q, s: (
            f"a comparison of {_aspect(q)} over {s.resolved} compounds: one tool call per compound"
        ),
    ),
    Rule(
        "bare_formula",
        "tools",
        lambda q, s: q.aspect in COMPARABLE_TABLE_ASPECTS and s.resolved == 0 and s.formula_token,
        lambda q, s: (
            f"{_aspect(q)} of a formula that names no known structure: computed from the formula"
        ),
    ),
    Rule(
        "compound_class",
        "structure",
        lambda q, s: q.aspect in (None, Aspect.REACTIONS) and s.compound_class,
        lambda q, s: (
            "reactions with a class of compounds (not one compound): a substructure search"
        ),
    ),
    Rule(
        "route",
        "routes",
        lambda q, s: q.aspect == Aspect.ROUTE,
        lambda q, s: "a multi-step route: paths in the reaction graph",
    ),
    Rule(
        "table_fact",
        "table",
        lambda q, s: q.aspect is not None,
        lambda q, s: f"aspect {_aspect(q)} is read from the compound/reaction records",
    ),
    Rule(
        "why_how",
        "papers",
        lambda q, s: s.why_how and s.has_papers,
        lambda q, s: "a why/how question: answered from the papers' passages",
    ),
    Rule(
        "papers_fallback",
        "papers",
        lambda q, s: s.has_papers and s.chemistry,
        lambda q, s: "no table or tool aspect recognised: the papers may answer it",
    ),
    Rule(
        "out_of_scope",
        "out_of_scope",
        lambda q, s: True,
        lambda q, s: (
            "no aspect recognised and no papers to search"
            if not s.has_papers
            else "no compound, reaction or chemistry word recognised: not a chemistry question"
        ),
    ),
)
# Rules that decline a question they understood (see ``Rule.declines``).
DECLINING_RULES = frozenset(rule.name for rule in ROUTING_TABLE if rule.declines)


def signals(query: QueryTuple, has_papers: bool = True) -> Signals:
    text = query.question
    return Signals(
        resolved=len(query.resolved_mentions),
        mentions=len(query.mentions),
        comparison=bool(COMPARISON.search(text)),
        why_how=bool(WHY_HOW.search(text)),
        # "lidocaine HCl" asks for a salt: its HCl is no bare formula to compute
        formula_token=bool(FORMULA_TOKEN.search(VITAMIN.sub("", text)))
        and not any(names_a_form(m.reason) for m in query.mentions),
        has_papers=has_papers,
        chemistry=is_chemistry(query),
        compound_class=_names_compound_class(query),
    )


def _names_compound_class(query: QueryTuple) -> bool:
    """Whether the question names a class of compounds ("reactions that give an ester").

    A class word inside a compound the question names is not a class: "which reactions give
    benzyl alcohol?" asks about benzyl alcohol, not about alcohols (it listed unrelated esters).
    """
    from chemground.kb.functional_groups import (
        class_name,
        class_phrase_spans,
        match_group_question,
    )

    text = query.question
    spans = class_phrase_spans(text)
    named = False  # a compound named beside the class
    for mention in query.resolved_mentions:
        if class_name(mention.text) is not None:
            continue  # the mention is the class word itself ("a boronic acid")
        if any(start <= mention.start and mention.end <= end for start, end in spans):
            continue  # a word of the class's name: "bromides" of "aryl bromides", "Pd catalysts"
        text = text[: mention.start] + "X" * (mention.end - mention.start) + text[mention.end :]
        named = True
    if named and match_group_question(text) is not None:
        # "which reactions use a Pd catalyst and toluene?": the class search alone would drop
        # toluene (45 palladium reactions were listed); the records are matched compound by
        # compound instead, and the answer says what each holds
        return False
    return match_group_question(text) is not None


def is_chemistry(query: QueryTuple) -> bool:
    """Does the question name a compound, a reaction class or a chemistry word?"""
    from chemground.reasoning.reaction_classes import find_classes

    return (
        bool(query.mentions)
        or bool(CHEMISTRY_WORD.search(query.question))
        or bool(find_classes(query.question))
    )


def route(query: QueryTuple, has_papers: bool = True) -> Route:
    """The first rule of ``ROUTING_TABLE`` that holds for ``query``."""
    s = signals(query, has_papers)
    for rule in ROUTING_TABLE:
        if rule.when(query, s):
            return Route(
                rule.channel,
                CHANNEL_METHOD[rule.channel],
                rule.name,
                rule.why(query, s),
                comparison=s.comparison and s.resolved >= 2,
            )
    raise AssertionError("the routing table ends with a rule that always holds")  # pragma: no cover


def override(method: str, query: QueryTuple) -> Route:
    """The route a user forced with ``--method``."""
    channel = {v: k for k, v in CHANNEL_METHOD.items()}.get(method, method)
    return Route(
        channel,
        method,
        "override",
        f"--method {method} chosen by the user",
        comparison=bool(COMPARISON.search(query.question)) and len(query.resolved_mentions) >= 2,
    )


def refine(query: QueryTuple) -> QueryTuple:
    """``query`` with property words un-masked (when taken for compounds) and its aspect re-read.

    Only questions whose aspect could be a tool property change; all others come back as they are.
    """
    property_mentions = [m for m in query.mentions if is_property_word(query.question, m)]
    aspect = query.aspect
    mentions = query.mentions
    problems = list(query.problems)
    classifier = query.aspect_classifier
    if property_mentions:
        mentions = [m for m in query.mentions if m not in property_mentions]
        masked = mask_mentions(query.question, [(m.start, m.end) for m in mentions])
        new = classify_aspect(masked)
        if new is not None:
            aspect = new
            classifier = None  # a rule read it after all: rules win over the exemplars
            problems = [
                p
                for p in problems
                if not p.startswith("could not tell what the question asks for")
                and not any(repr(m.text) in p or m.text in p for m in property_mentions)
            ]
            if mentions and any(m.resolved for m in mentions):
                problems = [
                    p
                    for p in problems
                    if not p.startswith("no compound in the question could be resolved")
                ]
        else:
            mentions = query.mentions
    if aspect in NO_STRUCTURE_NEEDED:
        # Formulas in an equation or an amount are read from the text by the tools channel.
        problems = [p for p in problems if "could not be resolved" not in p]
    offered: list = []
    if aspect is None or aspect.level == "reaction":
        from chemground.reasoning.options import read_offered

        # "was the solvent DMF or DCM?", "did it use Pd(PPh3)4?": the choices offered or
        # checked are no compounds to match, and a check says what is asked
        read = read_offered(
            query.model_copy(update={"aspect": aspect, "mentions": mentions, "problems": problems})
        )
        if read.offered or read.aspect is not aspect:
            aspect, mentions, problems = read.aspect, read.mentions, read.problems
            offered = read.offered
    if aspect is not None and aspect.level == "reaction":
        from chemground.reasoning.reaction_classes import find_classes, without_class_words

        classes = find_classes(query.question)
        if classes:  # "reagent for Boc deprotection?": the class is what is asked about
            stripped = without_class_words(
                query.model_copy(update={"mentions": mentions, "problems": problems}), classes
            )
            mentions, problems = stripped.mentions, stripped.problems
            if not mentions:
                problems = [
                    p
                    for p in problems
                    if not p.startswith("no compound in the question could be resolved")
                ]
    if aspect == Aspect.ROUTE:
        from chemground.kb.records import Role
        from chemground.retrieval.graph import unnamed_route_ends

        # "how would I get from toluene to norvaxibrom?": an end the mention finder did not
        # take for a compound is named unresolved (the route from toluene alone was answered)
        for text, start, end, which in unnamed_route_ends(query.question, mentions):
            reason = "no compound I know by that name (not in the dictionary; OPSIN cannot read it)"
            mentions = sorted(
                [
                    *mentions,
                    QueryMention(
                        text=text,
                        start=start,
                        end=end,
                        input_format="common_name",
                        resolved=False,
                        reason=reason,
                        role=Role.REACTANT if which == "start" else Role.PRODUCT,
                    ),
                ],
                key=lambda m: m.start,
            )
            problems = [
                *problems,
                f"{text!r} looks like a compound but could not be resolved: {reason}",
            ]
    if (
        aspect is query.aspect
        and mentions is query.mentions
        and problems == query.problems
        and classifier is query.aspect_classifier
        and not offered
    ):
        return query
    level = aspect.level if aspect else query.level
    return query.model_copy(
        update={
            "aspect": aspect,
            "mentions": mentions,
            "problems": problems,
            "level": level,
            "aspect_classifier": classifier,
            "offered": offered,
        }
    )


__all__ = [
    "CHANNELS",
    "CHANNEL_METHOD",
    "COMPARABLE_TABLE_ASPECTS",
    "DECLINING_RULES",
    "ROUTING_TABLE",
    "TOOL_ASPECTS",
    "Route",
    "Rule",
    "Signals",
    "classified_out_of_scope",
    "override",
    "refine",
    "route",
    "signals",
]
