"""Which aspect a question asks about, from its wording (compound mentions masked out).

Rules are ordered from specific to general: "molecular weight" before "what is", "yield"
(the noun) before "yields" (the verb, meaning product). Each rule is a regular expression
over the lower-cased question in which every chemical mention is replaced by ``X``.
"""

from __future__ import annotations

import re

from chemground.reasoning.atom_counts import ATOM_COUNT
from chemground.reasoning.query import Aspect

_MASS_UNIT = r"(?:mg|g|kg|grams?|milligrams?|kilograms?|gram)(?![/\w])"
_MOL_UNIT = r"(?:mol|moles?|mmol|millimoles?|millimol|kmol)(?![/\w])"
_NUM = r"\d+(?:[.,]\d+)?(?:\s*[x×*]\s*10\^?-?\d+|e-?\d+)?"
_TARGET = (
    r"(?:moles?|mol|mmol|millimoles?|grams?|mass|weigh\w*|molecules|amount of substance|mg|kg|g)"
)
# Tool-computable properties (chemground.routing sends them to the tools channel). They come first:
# "how much does 2 mol of X weigh" is a conversion, not a molecular weight; "bp in °C" is a boiling
# point.
TOOL_RULES: list[tuple[Aspect, str]] = [
    (
        Aspect.AMOUNT,
        rf"\b{_NUM}\s*{_MASS_UNIT}.*\b(?:moles?|mol|mmol|millimoles?|molecules|amount of "
        r"substance)\b"
        rf"|\b{_NUM}\s*{_MOL_UNIT}.*\b(?:grams?|g|mg|kg|mass|weigh\w*|molecules)\b(?!/)"
        r"|\b(?:how many|number "
        rf"of|what|convert|express|calculate)\b.*\b{_TARGET}\b.*\b{_NUM}\s*(?:{_MASS_UNIT}|{_MOL_UNIT})"
        rf"|\b{_NUM}\s*(?:{_MASS_UNIT}|{_MOL_UNIT})\s*(?:of\s+)?x\s*(?:->|→|=|to|in|into|as)\s*{_TARGET}\b"
        rf"|\b(?:moles?|mol|mmol)\s+(?:in|of|are in|is)\s+{_NUM}\s*{_MASS_UNIT}"
        rf"|\bgrams?\s+(?:in|of|are in|is)\s+{_NUM}\s*{_MOL_UNIT}"
        rf"|\b(?:moles?|mol|mmol|millimoles?|molecules)\b.*\b{_NUM}\s*{_MASS_UNIT}"
        rf"|\b(?:grams?|mass|mg)\b.*\b{_NUM}\s*{_MOL_UNIT}"
        # "200 mg of x hydrochloride is how much x base?": one form's mass as another's
        rf"|\b{_NUM}\s*{_MASS_UNIT}\s+(?:of\s+)?(?:the\s+)?x\b.*\b(?:how much|how many "
        r"(?:mg|g|grams|milligrams)|what mass|equivalent to)\b.*\bx\b",
    ),
    (
        Aspect.BALANCE,
        # ("checking my mass balance" weighs what was recovered: no equation)
        r"(?<!\bmass )(?<!\bmaterial )\bbalanc(e|es|ed|ing)\b|\bstoichiometric coefficients\b"
        r"|\bcoefficients (of|for|in) (the|this)",
    ),
    (
        Aspect.QED,
        r"\bqed\b|\bquantitative estimate of drug|\bdrug-?likeness score\b|\bdrug-?likeness "
        r"\(qed\)",
    ),
    (
        Aspect.LIPINSKI,
        r"\blipinski|\brule of (5|five)\b|\bro5\b|\bdrug-?like(ness)?\b|\borally "
        r"(bioavailable|active)\b"
        r"|\brule-of-(5|five)\b|\bfive rules?\b",
    ),
    (
        Aspect.LOGP,
        r"\b[cx]?log ?p(ow)?\b|\blog ?k ?ow\b|\bpartition coeff?icient\b|\blipophil|\bhydrophob"
        r"|\boctanol[- /]?(water|h2o)\b|\bcrippen\b|\bfat[- ]solub|\bgreasy\b|\bgreasier\b",
    ),
    (
        Aspect.TPSA,
        r"\btpsa\b|\bpsa\b|\bpolar surface\b|\bsurface area\b|\bmore polar\b|\bless polar\b",
    ),
    (
        Aspect.HBD,
        r"\b(h|hydrogen)[- ]?bond(ing)?[- ]donors?\b|\bdonors?\b.{0,12}\b(h|hydrogen)[- "
        r"]?bond|\bhbds?\b|\b(h|hydrogen)[- ]donors?\b|\bdonor (atoms|groups|count)\b"
        r"|\b(how many|number of|count of|no\. of|#)\s*(h-?bond |hydrogen[- ]bond(ing)? "
        r")?donors?\b",
    ),
    (
        Aspect.HBA,
        r"\b(h|hydrogen)[- ]?bond(ing)?[- ]acceptors?\b|\bacceptors?\b.{0,12}\b(h|hydrogen)[- "
        r"]?bond|\bhbas?\b|\b(h|hydrogen)[- ]acceptors?\b|\bacceptor (atoms|groups|count)\b"
        r"|\b(how many|number of|count of|no\. of|#)\s*(h-?bond |hydrogen[- ]bond(ing)? "
        r")?acceptors?\b",
    ),
    (
        Aspect.ROTATABLE_BONDS,
        r"\brotat(a|e)ble\b|\brotor(s)?\b|\bfreely rotating\b|\bn ?rot ?b\b|\brot\.? bonds?\b"
        r"|\bhow flexible\b|\bflexibility\b",
    ),
    (
        Aspect.STEREOCENTRES,
        r"\bstereo[- ]?(cent(re|er)s?|genic|isomers?|atoms?)\b|\bchiral "
        r"(cent(re|er)s?|carbons?|atoms?)\b|\bchirality cent"
        r"|\b(is|are) x (\w+ )?chiral\b|\bhow many chiral\b|\bchiral\?|\bchirality\b(?! of the)"
        r"|\basymmetric (carbons?|cent(re|er)s?|atoms?)\b|\b(r|s)/(s|r) cent",
    ),
    (
        Aspect.HEAVY_ATOMS,
        r"\bheavy[- ]atoms?\b|\bnon-?(hydrogen|x|h) atoms\b|\bheavy atom count\b"
        r"|\batoms (other than|except|besides) (h|x|hydrogens?)\b",
    ),
    (Aspect.ATOM_COUNT, "(?i)" + ATOM_COUNT.pattern),
    (
        Aspect.RING_COUNT,
        r"\b(how many|number of|count|counts?|no\. of|#|num)\b.*\brings?\b(?!-)"
        r"|\bring count\b|\brings? (does|do|has|have|are there|in)\b|\brings\?"
        r"|\baromatic rings\b|\baromatic ring count\b",  # "aromatic rings fluorene"
    ),
    (Aspect.INCHIKEY, r"\b(standard )?inchi ?-?key\b(?!\s*:?\s*([a-z]{14}-|x\b))"),
    (
        Aspect.INCHI,
        r"\b(standard )?inchi\b(?!=)(?!\s*:?\s*x\b)|\binternational chemical identifier\b",
    ),
    (
        Aspect.FUNCTIONAL_GROUPS,
        r"\bfunctional (groups?|groupings)\b|\bfunctionalit(y|ies)\b|\bmoiet(y|ies)\b"
        r"|\bwhich groups\b|\bwhat groups\b|\bfunctional grps?\b|\bfg'?s\b",
    ),
    (Aspect.FLASH_POINT, r"\bflash ?-?points?\b|\bflashpoint\b"),
    (
        Aspect.BOILING_POINT,
        r"\bboil(s|ing|ed)?\b|\bb\.?\s?p\.?(?=\s|$|\?)|\bbpt\b|\bvapou?ri[sz](es|ation) "
        r"temperature\b",
    ),
    (
        Aspect.MELTING_POINT,
        r"\bmelt(s|ing|ed)?\b|\bm\.?\s?p\.?(?=\s|$|\?)|\bmpt\b|\bfreez(e|es|ing) point\b|\bfusion "
        r"point\b",
    ),
    (
        Aspect.DENSITY,
        r"\bdensit(y|ies)\b|\bdenser\b|\bg/ml\b|\bg/cm3\b|\bg ?cm-3\b|\bspecific gravity\b|\bhow "
        r"dense\b",
    ),
    (
        Aspect.HAZARDS,
        r"\bghs\b|\bhazard(s|ous)?\b|\bsafety (data|information|info)\b|\bis x "
        r"(safe|dangerous|toxic)\b"
        r"|\bcarcinogen(ic|icity)?\b|\bexposure limits?\b|\bpictograms?\b|\bh-?statements?\b"
        r"|\bsignal word\b|\bhow (toxic|dangerous)\b|\btoxicity\b",
    ),
]

# Nouns for a kind of reaction ("how many couplings"): a count of "Pd-catalysed couplings" is not
# a count of every reaction with palladium, which is all a compound-class search can give
_KINDS_OF_REACTION = (
    r"couplings|reductions|oxidations|condensations|esterifications|additions|protections|"
    r"deprotections|alkylations|acylations|hydrogenations|nitrations|olefinations|"
    r"substitutions|cycloadditions|aminations|hydrolyses|cyclisations|cyclizations"
)
KIND_OF_REACTION = re.compile(r"\b(" + _KINDS_OF_REACTION + r")\b", re.IGNORECASE)

# Phrasings that must win over the generic rules below: an arrow or "gives?" asks for the
# product ("rxn: PhCHO + NaBH4 in EtOH -> ?"), "which reactions use X as solvent" lists reactions
# (not the solvent), "what do people call X" asks for the common name, "mol wt" is a weight.
_FIRST_RULES: list[tuple[Aspect, str]] = [
    # "C6H5NO2 → ? → PhNHAc": the step between two compounds, not a product of one
    # "X → ? → Y", "benzene -> ? -> ? -> ? -> 4-nitroacetanilide"
    (Aspect.ROUTE, r"x\s*(->|→|=>)\s*\?\s*(->|→|=>)\s*(\?\s*(->|→|=>)\s*)*x"),
    (
        Aspect.REACTANTS,
        r"<-\s*\?|\bfrom\s*\??\s*$|\b(which|what) (\w+ )?and (\w+ )?(give|gives|form|forms)\b"
        r"|\bwhat goes in(to)?( to)? (make|give|form|prepare)\b"
        # "what reacts with ethanol to make ethyl acetate?": the co-reactant is asked for
        r"|\b(what |which (\w+ )?)(reacts?|do (i|you|we) (react|need to react|combine|mix)|"
        r"should (i|you|we) (react|combine|mix)|is (reacted|combined|mixed)) with x to "
        r"(make|give|form|produce|yield|afford|get|obtain|prepare)\b"
        r"|\b(the )?\w+ and (the )?\w+ (that|which) (give|form|make|produce|yield)s?\b"
        # "which two compounds does your record condense to make x?", "? + ? → x – the two
        # coupling partners?"
        r"|\b(which|what) (two |\w+ )?(compounds|reactants|starting materials|partners|things) "
        r"(does|do|did) (your|the|this) (record|records|reaction|kb) (\w+ )?(condense|combine|"
        r"react|couple|join|use|need) (to|in order to) (make|give|form|get|prepare)\b"
        r"|\bcoupling partners?\b|^\s*\?\s*\+\s*\?"
        # "which aldehyde and which ketone are condensed in the stored procedure to make x?"
        r"|\bwhich [\w -]{2,30}? and which [\w -]{2,30}? (are|were|get|got|is|was) (condensed|"
        r"coupled|combined|reacted|joined|used|mixed)\b"
        # "which aryl halide and which boronic acid does the stored record couple?"
        r"|\bwhich [\w -]{2,30}? and which [\w -]{2,30}? (does|do|did) (your|ur|the|this) (\w+ )?"
        r"(record|records|reaction|entry|kb) (\w+ )?(condense|combine|react|couple|join|use)\b"
        # "which two compounds would I react to make it?"
        r"|\b(which|what) (\w+ )?(compounds|chemicals|reactants|starting materials|materials|"
        r"reagents|things) (would|should|do|could|can|must) (i|you|we|one) (react|combine|mix|"
        r"couple|use|need)( together)? (to|in order to) (make|get|prepare|form|produce|obtain|"
        r"synthesi[sz]e)\b",
    ),
    (
        Aspect.PRODUCT,
        # (a note in brackets may follow: "-> ? (SMILES of the biaryl please)")
        r"(->|→|=>)\s*(\?|(the |what |which )?products?\s*\??|what\s*\??)\s*"
        r"(\([^)]*\)\s*[?.!]?\s*)?$"
        # "A + NaBH4 in MeOH -> ? smiles pls": a note on the form of the answer may follow
        r"|(->|→|=>)\s*(\?|(the |main |major )?products?\s*\??)\s*[,;:-]?\s*"
        r"((give|as|in|its|the|me|please|pls|plz|adduct|product|compound|it)\s+)*"
        r"(smiles|structure|formula|name|iupac name|mw|weight|mass|product)\b[^?]{0,20}\??\s*$"
        # "the SMILES of what you get from benzaldehyde + NaBH4" (the reactants' SMILES were
        # answered)
        # ("what can I make from X (in two steps)" is a route)
        r"|\bwhat (do |would |will |did )?(i|you|we|one) ('d |'ll )?(get|obtain|form) "
        r"(from|when|by|if|on|after|with)\b(?![^?]*\bsteps?\b)"
        r"|^(?!.*\b(yields?|temp\w*|solvents?|catalysts?|reagents?|conditions|how "
        r"long|time|base)\b).*\bgives?\s*\??\s*$"
        r"|\bgives? (which|what)\b|\bwhat'?s? (is )?left after\b|\bwhat comes out\b"
        r"|\bwhat (\w+ )?(do|did|will|would|should) (i|you|we) end up with\b"
        # a notebook line that ends in its arrow: "benzalacetone, H2, Pd/C, EtOAc ->"
        r"|(->|→|=>)\s*$"
        # "an HWE on x with x – which alkene comes out, E or Z?"
        r"|\bwhich (\w+ )?(comes? out|is formed|forms)\b"
        # "reductive amination of x with x – which amine should I isolate? SMILES if you can"
        r"|\bwhich (\w+ )?(should|will|would|do|did|can|could) (i|we|you|one) (isolate|obtain|"
        r"expect|get|end up with)\b"
        # "PhCHO + PhCONHNH2, AcOH (cat.), EtOH, reflux, ppt filtered – structure?"
        r"|\s\+\s[^?]*\s[–—-]\s*(the |its )?(product'?s? )?(structure|product|smiles)"
        r"( (please|pls|plz))?\s*\?\s*$"
        # "what is made from salicylic acid" (answered with the reactants of aspirin)
        r"|\bwhat (is|are|can be|could be|gets?|will be) (made|produced|formed|obtained|prepared) "
        r"from x\b"
        r"|\bwhat (did|have) (i|you|we) (get|got|made|make|obtain|obtained)\b"
        r"|(^|[.?!;:]\s)\s*(give|name|predict|draw|identify|show|write|what "
        r"is|what's)"
        r" (me )?(the )?(main |major |organic |final |expected |desired )?products?\b"
        r"(?!\s+(yields?|ratios?)\b)"
        # "the SMILES (formula, name, MW) of the product of X + Y": the product is asked for,
        # not a fact of X
        r"|\b(smiles|formula|structure|name|weight|mw|mass)\b.{0,30}\b(the )?(main |major )?"
        r"products? (of|from|when|formed)\b"
        r"|\b(smiles|formula|structure|name|weight|mw|mass) of (the |its )?((main|major|organic|"
        r"final|desired|expected|isolated) )?products?\s*[.?]?\s*$"
        # "give the SMILES of the triazole formed" (the SMILES of every reagent was answered)
        r"|\b(smiles|formula|structure|name|weight|mw|mass)( string| notation)? of (the )?"
        r"(\w+ ){1,2}(formed|obtained|"
        r"produced|isolated|generated|that (forms|is formed|results))\b"
        # "... then 2 M HCl → white ppt. what is it?": what a reaction gave
        r"|(->|→|=>|\bthen\b|\bgave\b|\bformed\b)[^?]{0,40}\b(ppt|precipitate|solid|crystals)\b"
        r"[.,:;!]?\s*(so )?what (is|was|'s) (it|this|that)\b"
        # "the MW of the amide made from x and x" (the MW of both acid and amine was answered)
        r"|\b(smiles|formula|structure|weight|mw|mass) of (the )?([\w-]+ ){1,2}((we|i|you) )?"
        r"(made|prepared|formed|obtained) from x\b",
    ),
    (
        Aspect.REACTIONS,
        # "how many reactions use THF", "number of Suzuki couplings in the KB": a count of records
        r"\b(how many|number of|count( of)?( the)?|total( of)?)( [\w-]+){0,2} (reactions|rxns|"
        r"examples|records|entries|" + _KINDS_OF_REACTION + r")\b"
        r"(?! (steps?|in (the|a|this|that) (route|sequence|synthesis))\b)"
        r"|^\s*(which|what) reactions\b|\b(list|show|find)( me)?( all)?( the)? reactions\b"
        r"|^\s*(any |all )?(reactions|rxns) (with|using|that use|involving)\b"
        r"|^\s*(what|which \w+) (reacts?|can react|will react) with x\s*[?.]?\s*$"
        # ("which solvent do your Mitsunobu reactions use?" asks the role, not the records)
        r"|^(?!.*\b(which|what|wich|wat) (solvents?|catalysts?|reagents?|bases?|acids?|ligands?|"
        r"temp\w*|yields?|conditions)\b).*\breactions (that |which )?(use|used|using|involve|"
        r"involving|employ|have)\b",
    ),
    (
        Aspect.MOLECULAR_WEIGHT,
        r"\bnot (the )?(exact|monoisotopic|accurate) mass\b|\bmol\.? ?wts?\b|\bm\.? "
        r"?wt\b|\bmolwt\b|\bgrams? (per|a|/) ?mole?s?\b|\bg (per|/) ?mol\b"
        r"|\bg ?mol-1\b|\bg·mol"
        # "how many mg per mmol is papaverine?": g/mol by another name (no amount to convert)
        r"|\bmg ?/ ?mmol\b|\bmg (per|a) mmol\b|\bmg ?mmol-1\b"
        # "mass of one mole of table salt": the molar mass (an amount to convert is "2 mol")
        r"|\b(mass|weight) of (one|1|a single|a) mole?\b(?! ?(%|fraction|ratio))",
    ),
    (
        Aspect.SYNONYMS,
        r"\bwhat (do|does|did|would) (people|chemists|we|you|they|most "
        r"people|everyone|pharmacists) "
        r"(usually |normally |commonly "
        r")?call\b|\b(usual|everyday|common|trivial|familiar|popular|street|"
        r"colloquial|household|non-systematic|lay) names?\b|\bbetter known as\b|\bknown as what\b"
        # "HMPA - full name? ... spelled out", "what else is it called?"
        r"|\bfull (chemical )?names?\b|\bspel(led|t|l) (it |them )?out\b"
        r"|\bwhat else (is|are) (it|they|x) (called|known as)\b"
        # "what's vanillic aldehyde usually called?"
        r"|\bwhat('s| is| are) x (usually|commonly|normally|generally|mostly) called\b"
        # "what is pethidine called in the United States?", "what do Americans call X": another
        # name, not the IUPAC one (the systematic name was answered)
        r"|\bwhat('s| is| are) x called (in|by|among|over)\b|\bwhat (do|does|did|would) "
        r"(the )?\w+ call x\b"
        # "it has another, older name - what is it?", "the US name of X", "its former name"
        r"|\b(another|an? (old|older|former|earlier|previous|different|alternative|second))"
        r"(,? (old|older|former|earlier|previous|different|alternative|common|trade|usual|"
        r"trivial))* names?\b|\b(older|old|former|previous|earlier) names?\b"
        r"|\b(us|u\.s\.|usan|american|british|uk|ban|inn|european|international) names?\b",
    ),
    (
        Aspect.SMILES_TO_NAME,
        r"\bname the following\b|\bname (this|the following|that) "
        r"(molecule|compound|structure|smiles)\b"
        r"|\bsystematically\b|\bsystematic(al)? nam",
    ),
    (
        Aspect.DESCRIPTION,
        r"^\s*(please )?(summari[sz]e|give (me )?(a |an )?(summary|overview) of)\b|\bsummary of "
        r"what\b"
        # "which compound has CAS number 50-78-2?", "identify LFQSCWFLJHTTHZ-...": name it
        r"|^\s*(please )?identify (this |the following )?(compound |molecule |substance )?:?\s*x"
        r"\s*[?.]?\s*$"
        r"|\b(which|what) (compound|chemical|substance|molecule) (has|is|carries) (the )?(cas|inchi"
        r"|registry|smiles)"
        r"|^\s*(which|what) (compound|chemical|substance|molecule) is x\s*\??\s*$"
        # "what's the difference between ethanol and methanol?": each described (it was
        # answered with a reaction that holds one of them)
        r"|\bdiff(e|er)rences? between x and x\b"
        r"|\bhow (does|do|is|are) x (differ|different) from x\b"
        # "my crown is made from x - what is that chemical?": the compound named, described
        r"|\bwhat('s| is| are) (that|this|these|those) (chemical|compound|substance|stuff|"
        r"molecule|material)s?\s*\??\s*$",
    ),
    # a CAS number asked for ("aspirin CAS", "CAS no. of toluene?"), not given ("CAS number x")
    (Aspect.CAS, r"\bcas\b(?!\s*(no\.?|number|#|registry number|rn)?\s*:?\s*x\b)"),
]

# "which acid?" asked of a reaction: the acid among its reagents or catalysts ("which acid and how
# long?", "what acid do you use?"), not "which acid forms"
_WHICH_ACID = (
    r"|\b(which|what) acids?\s*(\?|$|,|\band\b|(is|was|are|were) (used|added|needed)\b|"
    r"do (i|you|we) (use|add|need)\b)"
)

# What closes a notebook line before its question: an arrow, a stop or comma, or a spaced dash
# ("reflux – how many h?")
# "... → benzaldoxime; cat. HCl is the additive, right? reagent?": a closing word after a question
_ENDING_SEPARATOR = r"(->|→|=>|[.:;,?]|\s[–—-])"
# A notebook line that ends in its question ("benzoic acid (1.22 g, 10 mmol), MeOH, H2SO4,
# reflux 4 h -> product?"): its amounts and temperatures are the record of what was done, and the
# last word is what is asked (the amounts were converted to moles). A reaction SMILES whose
# product is a question mark ("CCO.CC(=O)O>>? (H2SO4)", spelled out by the parser as
# "CCO + CC(=O)O -> ?") asks for the product too.
_ENDING_RULES: list[tuple[Aspect, str]] = [
    (
        Aspect.PRODUCT,
        _ENDING_SEPARATOR + r"\s*(the |what |which )?(main |major )?(products?|regio-?isomers?)"
        r"\s*\??\s*$|\bx\s*(>>|->|→)\s*\?(?!\s*(->|→|=>)\s*(x|\?))"
        # "PCC oxidation of menthol – product smiles?" (was answered with PCC's SMILES)
        + r"|"
        + _ENDING_SEPARATOR
        + r"\s*(the )?(main |major )?products?('s)?\s+(smiles|structure|"
        r"iupac name|name)\s*\??\s*$",
    ),
    (
        Aspect.YIELD,
        _ENDING_SEPARATOR
        + r"\s*(the |what )?(isolated |typical |expected |usual )?yield\s*\??\s*$",
    ),
    (Aspect.SOLVENT, _ENDING_SEPARATOR + r"\s*(the |which |what )?solvent\s*\?\s*$"),
    # "Suzuki of 2-bromopyridine - ligand?": the ligand is part of the catalyst system
    (
        Aspect.CATALYST,
        _ENDING_SEPARATOR + r"\s*(the |which |what )?(catalyst|ligand|pre-?catalyst|"
        # "Heck of x with x - Pd source + ligand?"
        r"((x|pd|palladium|metal|cu|copper|ni|nickel) )?source( (\+|and|&) ligand)?)\s*[?.]?\s*$",
    ),
    (
        Aspect.REAGENT,
        _ENDING_SEPARATOR + r"\s*(and )?(the |which |what )?(stoichiometric |amine |inorganic )?"
        r"(reagents?|base|additive|phosphine)\s*[?.]?\s*$",
    ),
    (
        Aspect.TIME,
        _ENDING_SEPARATOR + r"\s*(how many (h|hrs?|hours|min|minutes)|how long|(reaction )?time)"
        r"\s*\??\s*$",
    ),
    # "anisole + Ac2O, AlCl3, DCM – 0 °C, right?": a temperature or a time checked
    (
        Aspect.TEMPERATURE,
        _ENDING_SEPARATOR + r"\s*(at )?[-−]?\d+(\.\d+)?\s*°\s*c\s*,?\s*(right|correct|yes|no|"
        r"isn'?t it|wasn'?t it|ok)\s*\?\s*$",
    ),
    (
        Aspect.TIME,
        _ENDING_SEPARATOR + r"\s*(for )?\d+(\.\d+)?\s*(h|hrs?|hours?|min|minutes)\s*,?\s*"
        r"(right|correct|yes|no|isn'?t it|wasn'?t it|ok)\s*\?\s*$",
    ),
    # "... (Boc2O in DCM, no added base) – what temperature does your record use?": the last
    # clause asks; the base in brackets was read as the reagent asked
    (
        Aspect.TEMPERATURE,
        _ENDING_SEPARATOR + r"\s*(so |and )?(what|which) (temperature|temp)\b[^?–—]*\?\s*$",
    ),
    # "caffeine is C8H10N4O3, isn't it?": a formula put forward to check (the answer gives the
    # record's; no aspect was read)
    (
        Aspect.FORMULA,
        r"^\s*x\s+(is|=|has (the )?(molecular |chemical )?formula)\s+[cC]\d*[hH]\d*[A-Za-z0-9]*"
        r"\s*,?\s*(isn'?t it|right|correct|no|yes|true)?\s*\??\s*$",
    ),
    # "in a nitration, which acid is mixed with nitric acid?": the other reagent asked
    (
        Aspect.REAGENT,
        r"\bwhich (acid|base|salt|reagent|oxidant|reductant|additive) (is|are|do (you|i|we)) "
        r"(mixed|combined|used|added|paired|mix|combine|use|add|pair) (with|to|together with)\b",
    ),
    # "2-naphthol + n-BuBr → ...: NaH in DMF as usual? base per your record?"
    (
        Aspect.REAGENT,
        _ENDING_SEPARATOR + r"\s*(and )?(the |which |what )?base (per|in|according to|from) "
        r"(your|the) (record|records|kb|data)\s*\??\s*$",
    ),
]

# "is paracetamol the same as acetaminophen?", "is CCO ethanol?": two compounds compared
_IDENTITY_RULES: list[tuple[Aspect, str]] = [
    (
        Aspect.SAME_COMPOUND,
        # ("is the MW of glucose the same as fructose?" compares a property: answered "No:
        # different compounds" where both weigh 180.16)
        r"^(?!.*\b(mw|mol\.? ?wt|molecular weight|molar mass|mass|weight|formula|logp|tpsa|"
        r"boiling point|melting point|bp|mp|density|pka|solubility|polarity|charge|"
        r"number of|how many)\b)(?:.*?)"
        r"(\bx (and|&) x (the )?same\b|\bx (the )?same (as|compound as|thing as|molecule as) x\b"
        r"|\bx (and|&) x identical\b|\bx identical (to|with) x\b|\bx (just )?another name "
        r"for x\b|^\s*(is|are) x (also )?(called |known as )?x\s*[?.]?\s*$"
        r"|\b(same|identical) (compound|molecule|substance|drug|chemical)s?\b.*\bx\b.*\bx\b)",
    ),
]

_RULES: list[tuple[Aspect, str]] = (
    _ENDING_RULES
    + _IDENTITY_RULES
    + TOOL_RULES
    + _FIRST_RULES
    + [
        (
            Aspect.CONDITIONS,
            r"\b(under|at|in) (what|which) (reaction |experimental )?conditions\b"
            r"|\bcond\w*ons?\b[^?()]{0,80}\(\s*\w+\s*(,|\+|&|/|\band\b)",
        ),
        (
            Aspect.ROUTE,
            r"\broutes?\b|\bpath(way)?s? (from|to|between)\b|\bsynthetic (route|path|sequence)\b"
            r"|\bhow (can|do|could|would) (i|we|you|one) (get|go) from x to x\b|\bfrom x to x in\b"
            # "get from toluene to norvaxibrom": a target nothing resolved is still a route's end
            r"|\bhow (can|do|could|would) (i|we|you|one) (get|go) from x (all the way )?to\b"
            # "is there a path in your reactions from X to Y", "X → ? → Y", "in how many steps"
            r"|\bpath(way)?s?\b[^?]{0,30}\bfrom x (all the way )?to\b"
            r"|x\s*(->|→|=>)\s*\?\s*(->|→|=>)\s*x|\bin how many steps\b|\bhow many steps\b"
            # "the only thing in stock is x – we need x, how?"
            r"|\bonly (thing|compound|material|starting material)s? (in stock|on (the )?shelf|"
            r"(we|i) have( left)?) (is|are) x\b[^?]*\b(need|want|make|get)\b"
            # "how to get X starting from Y", "make X from Y": both ends named, so a route
            # (unless it asks for one fact of that step: "which solvent to make X from Y")
            r"|^(?!.*\b(solvents?|catalysts?|reagents?|bases?|oxidants?|reductants?|temp\w*|"
            r"yields?|conditions?|how long|time)\b)"
            r".*\b(get|make|prepare|synthesi[sz]e|obtain|reach|access) x,? (starting )?from x\b"
            r"|\bin (two|three|four|\d) steps\b|\b(two|three|four|\d)[- ]steps?\b"
            # "SM ethyl benzoate -> target methyl 3-nitrobenzoate. steps?"
            r"|[.:;,–—-]\s*(which |what |the )?steps\s*\?\s*$"
            # "... only cyclohexanol in the cupboard - how do I get there with your reactions?"
            r"|\bhow (do|would|can|could|should) (i|we|you|one) get there\b"
            r"|\b(reactions?|steps?) (would |will |can |could )?gets? (me|us) there\b"
            # "can I get to x with your reactions?", "take us from x all the way to x"
            r"|\b(can|could) (i|we|you|one) (get|go|reach) to x\b|\btake (us|me|you|one) from x\b"
            r"|\bget (me|us) to x\b"
            # "all I've got in the cupboard is x and x – how do I get to x?"
            r"|\bhow (do|would|can|could|should) (i|we|you|one) (get|go) to x\b"
            r"|\b(all|only)( that)? (i've|i have|we've|we have)( got)?\b[^?]{0,40}\b(is|are) x\b"
            r"[^?]*\bhow\b"
            r"|\bfrom x all the way to x\b"
            # "I've got benzyl alcohol and phenol - how would I make benzyl phenyl ether?"
            r"|\b(i've|i have|we've|we have)( only)?( got)? x\b[^?]*\bhow (do|would|can|could|"
            r"should) (i|we) (make|get|prepare|synthesi[sz]e|obtain|reach) x\b"
            r"|\bhow (do|would|can|could|should) (i|we|you|one) (make|get|prepare|synthesi[sz]e|"
            r"obtain) x,? (with|using|from|by) (your|the|these|those) (reactions|records)\b"
            r"|\bx\s*(->|→|=>)\s*x\b[^?]*\bsteps?\b"
            r"|\bmulti-?step\b|\bwhat can (i|we|you|one) make "
            r"from x\b"
            r"|\bintermediates? (between|from)\b"
            # "I've got ethyl benzoate left over - can I turn it into 3-nitrobenzoic acid using
            # the reactions you know?"
            r"|\b(can|could) (i|we|you|one) (turn|convert|transform|change) (it|them|this|that|x) "
            r"(in)?to x\b(?![^?]*\b(reagents?|solvents?|catalysts?|conditions|temp\w*|yields?)\b)"
            # "the stockroom has x and x - how would I get x out of those?"
            r"|\b(get|make|prepare|obtain|synthesi[sz]e) x (out )?(of|from) (those|these|them)\b",
        ),
        (Aspect.EXACT_MASS, r"\b(exact|monoisotopic|accurate)\b[^.?;]{0,20}\bmass\b"),
        # an ion's m/z: "[M+H]+ for x", "m/z of x plus a proton" (see reasoning.adducts)
        (
            Aspect.EXACT_MASS,
            r"[\[(]\s*\d*m\s*[+-]\s*\d*(h|na|k|li|nh4|cl|br|hcoo|ch3coo)\b"
            # ("proton" may be masked: it is a mention, which the parser then leaves out)
            r"|\b(m/z|mass)\b.*\b(protonated|plus (a|one) (proton|x))\b"
            r"|\b(protonated|plus (a|one) proton)\b.*\b(m/z|mass)\b",
        ),
        (
            Aspect.MOLECULAR_WEIGHT,
            r"\b(molecular|molar|formula|mol\.?)\s*(weight|mass)\b|\bmw\b|\bm\.w\.|\bhow heavy\b"
            r"|\bf\.?w\.?(?=\s|$|[?!,;:)])"
            r"|\bweigh(s|t)?\b|\bg/mol\b|\bheavier\b|\blighter\b|\bheaviest\b|\blightest\b",
        ),
        # a bare "mass of x" is the molar mass, unless mass spectra are the context
        (
            Aspect.EXACT_MASS,
            r"\b(hrms|lc-?ms|gc-?ms|orbitrap|m/z|mass spec\w*)\b.*\bmass of x\b"
            r"|\bmass of x\b.*\b(hrms|lc-?ms|gc-?ms|orbitrap|m/z|mass spec\w*)\b",
        ),
        (Aspect.MOLECULAR_WEIGHT, r"^(?!.*\b(isotop\w*|ms)\b).*\bmass of x\b"),
        (Aspect.FORMULA, r"\b(molecular|chemical|empirical|sum)\s+formula\b|\bformula\b"),
        (
            Aspect.SMILES_TO_NAME,
            r"\biupac\b|\bsystematic name\b|\bchemical name\b|\bname (of|for) (the |this |that "
            r")?(compound|molecule|structure|smiles)\b"
            r"|\bwhat is (the )?name\b|\bname (this|it)\b|\bwhat is x called\b|\bx is "
            r"called\b|\bhow is x named\b"
            r"|\bconvert x (in)?to (a |its |the )?(iupac )?name\b|\bwhat'?s x called\b"
            r"|^\s*(what is |what's |give )?(the |a )?name (of|for) x\s*[?.]?\s*$"
            # "Clc1ncccn1 – what's this called?"
            r"|\bwhat('s| is) (this|it|that)( compound| molecule| structure| one)? called\b",
        ),
        (
            Aspect.NAME_TO_SMILES,
            r"\bsmiles\b|\bsmi\b|\bstructure (of|for)\b|\bdraw\b|\bconvert x (in)?to (a "
            r")?(structure|smiles)\b"
            r"|\bstructural formula\b",
        ),
        (
            Aspect.SYNONYMS,
            r"\bsynonyms?\b|\bother names?\b|\bcommon name\b|\btrade names?\b"
            r"|\babbreviat(ion|ed)\b|\bshort(hand)?[- ]names?\b|\bacronym\b"
            r"|\bwhat else (is|are) x (called|known as)\b|\bx (is )?(also )?known as what\b|\balso "
            r"(known|called)\b"
            r"|\b(does|do) [\"'“‘]?x[\"'”’]? stand for\b|\bx[\"'”’]? stands? for\b"
            r"|\bx (is )?short for\b"
            r"|\baka\b|\bbrand names?\b|\balternative names?\b|\banother name (for|of)\b",
        ),
        (
            Aspect.SIMILAR,
            r"\bsimilar\b|\banalog(ue)?s?\b|\bresembl|\blook(s)? like\b|\brelated "
            r"(compounds|structures|molecules)\b"
            r"|\bstructurally close\b|\bneighbou?rs?\b",
        ),
        (
            Aspect.YIELD,
            r"\by(ei|ie)ld\b(?!s)(?! of x)|\byeild|\bwhat (percent|percentage)\b"
            # "what forms from x + x and how much do I get?"
            r"|\bhow much (product )?(do|did|will|would|should|can) (i|we|you|one) "
            r"(get|obtain|isolate)\b"
            r"|\bhow much "
            r"(product|of x) (was|is) (obtained|formed|isolated)\b"
            r"|\b(percent|%) yield\b|\byield of\b|\bhow efficient\b|\bconversion\b(?! of x (in)?to "
            r"x)",
        ),
        (
            Aspect.REAGENT,
            r"^\s*(what|which)?\s*('s |is |are )?(the )?bases?\b(?! (peak|pair|metal))|\bbase "
            r"(for|in|used)\b"
            # a notebook line that ends in its question: "A + B -> C. base?"
            r"|[.:;,–—-]\s*(the |which |what )?(bases?|acids?|oxidants?|reductants?|"
            r"reducing agents?|oxidi[sz]ing agents?)"
            # "... — reductant + acid?": the first of the roles the line closes with
            r"(\s*(\+|&|\band\b|/)\s*(the )?[\w-]+)*\s*\??\s*$"
            # "heck reaction base?" (not "is it a base?")
            r"|(?<!\ba )(?<!\ban )\breaction bases?\s*\?\s*$"
            r"|\b(which|what) (oxidant|reductant|borohydride|hydride|reducing agent|oxidi[sz]ing "
            r"agent)s?\b"
            # "A + mCPBA -> epoxide. what buffer/base is added?": the notebook line's question
            r"|\b(which|what) (\w+ )?((\w+)/)?(buffer|base|additive|acid scavenger|desiccant)s?\b"
            r"(/\w+)?\s+(is|are|was|were|do|does|did|should)\b"
            # "which salt is added to buffer the mixture?": what is added for a purpose
            r"|\b(which|what) (\w+ ){0,2}(is|are|was|were) (added|used) to (buffer|neutrali[sz]e|"
            r"scavenge|trap|mop up|take up)\b"
            r"|\b(oxidant|reductant)s? (for|in|used)\b" + _WHICH_ACID,
            # "ethyl nicotinate synthesis: which acid and how long?" (not "which acid forms")
        ),
        (
            Aspect.CATALYST,
            r"\bcataly[sz](t|ts|ed|es|ing|is)\b|\bcatalytic\b|\bcatalist\b|\bcat\.?\s*\?\s*$"
            # a radical initiator (AIBN, BPO) is filed as the catalyst of its records
            r"|\b(radical )?initiators?\b"
            # "– Pd source / ligand?": the metal precatalyst
            r"|\b(pd|pt|ni|cu|rh|ru|ir|fe|co|au|ag|palladium|nickel|copper|rhodium|ruthenium) "
            r"(sources?|precatalysts?|pre-catalysts?)\b",
        ),
        (
            Aspect.SOLVENT,
            r"\bsolvents?\b|\bmedium\b|\bdissolved in\b|\bin what (liquid|medium)\b"
            # "what do I run a Swern oxidation in?"
            r"|\b(what|which \w+) (do|should|would|can|could) (i|we|you|one|people) (usually |"
            r"normally |typically )?(run|do|perform|carry out|set up) (it|this|that|[^?]{3,60}?) "
            r"in\s*\??\s*$",
        ),
        (
            Aspect.REAGENT,
            r"\breagents?\b|\bwhich base\b|\bwhat base\b|\boxidi[sz]ing agent\b|\breducing "
            r"agent\b|\bcoupling agent\b"
            # "what do I use to turn 9-fluorenone into 9-fluorenol?"
            r"|\bwhat (do|should|can|could|would|must) (i|we|you|one) (use|add|need) (to|for) "
            r"(turn|turning|convert|converting|transform|reduce|reducing|oxidi[sz]e|change)\b"
            r"|\bactivat(or|ing agent)\b",
        ),
        (
            Aspect.TEMPERATURE,
            # "is aspirin stable at room temperature?" asks no temperature
            r"(?<!room )(?<!ambient )(\btemperature\b|\btemps?\b|\btemp(er|re)a?ture\b"
            r"|\btempreature\b)|\bhow "
            r"(hot|warm|cold)\b|\bat what temp|\b°c\b|\bdegrees\b|\bheated to\b"
            # "does the Wittig of x with x need heating?": the temperature it was run at says
            r"|\b(need|needs|needed|require|requires|required)\s+(heating|cooling|reflux(ing)?|"
            r"to be (heated|cooled|refluxed))\b|\b(heating|cooling|reflux(ing)?) (is |was )?"
            r"(needed|required|necessary)\b",
        ),
        (
            Aspect.TIME,
            r"\bhow long\b|\b(reaction|rxn|rx) time\b|\bduration\b|\btime\s*\??\s*$|\bhow many "
            r"(hours|minutes|days)\b|\bfor how long\b",
        ),
        (
            Aspect.CONDITIONS,
            r"\bconditions?\b|\bcondit?ons?\b|\bcondtions?\b|\bhow "
            r"(can|could|do|does|is|are|would) (i |you |we |one )?(convert|transform|turn)\b"
            r"|\bhow (can|could|is|are) x (be )?(converted|transformed|turned)\b|\bhow "
            r"(is|was|are|were|do|does|can|could|should) (the |this |that )?(reaction|coupling|"
            r"esterification|alkylation|step|it) (be )?(run|done|carried "
            r"out|performed|conducted)\b|\bprocedure\b|\bprotocol\b"
            r"|^\s*(please )?(convert|transform|turn) x (in)?to x\b",
        ),
        (
            Aspect.REACTANTS,
            r"\breactants?\b|\bstarting materials?\b|\bprecursors?\b|\bhow "
            r"(is|are|was|were|can|could|do|does|would) (i |you |one |we )?"
            r"(make|made|prepare|prepared|synthesi[sz]e|synthesi[sz]ed|produce|produced|obtain|obtained|get)\b"
            r"|\b(synthesis|preparation|route) (of|to)\b|\bwhat (is|are) (needed|required) to "
            r"(make|prepare|synthesi[sz]e)\b"
            # "what gives benzyl alcohol?": what it is made from
            r"|^\s*(what|which \w+) (gives|makes|forms|produces|affords|yields) x\s*[?.]*\s*$"
            r"|\bfrom what\b|\bmade from\b|\bwhat reacts to (give|form)\b|\bwhich "
            r"(compounds?|reactants?|materials?) (give|form|gives|forms)\b"
            r"|\bhow to (make|prepare|synthesi[sz]e)\b|\bretrosynthe"
            r"|\bwhat do (i|you|we|one) need to (make|synthesi[sz]e|prepare|produce|obtain)\b"
            r"|\b(which|what) (materials|compounds|reactants|chemicals|reagents|substances) (are "
            r"|were )?"
            r"(combined|react|reacted|used|needed|required|mixed) to "
            r"(give|produce|make|form|prepare|obtain)\b"
            r"|\bhow (is|are|was|were|can|could|do|does|would|should) (i |you |one |we )?x (be )?"
            r"(made|prepared|synthesi[sz]ed|produced|obtained|formed|accessed)\b",
        ),
        (
            Aspect.REACTIONS,
            r"\b(which|what|list( the)?|all( the)?|show( me)?( the)?) reactions\b|\breactions "
            r"(of|involving|with|using|that use|where)\b"
            r"|\bin which reactions?\b|\bwhere is x used\b|\breactions? x (takes|take) part in\b",
        ),
        (
            Aspect.PRODUCT,
            r"\bproducts?\b|\badducts?\b|\bwhat'?s (formed|produced|obtained)\b"
            # "what ester forms from ...", "which urea is formed ..."
            r"|\b(what|which) (\w+ )?(forms|is formed|will form|would form|is produced)\b"
            r"|\bwhat (do (i|you|we) get|happens)\b"
            r"|\bwhat (does|do|will|would) x (and x )?(give|form|produce|yield|afford|become|turn "
            r"into|make)\b|\bwhat (does|do|will|would) x do to x\b"
            r"|\b(gives|forms|affords|yields|produces) what\b|\bresult(s|ing)? "
            r"(of|from)\b|\boutcome\b"
            r"|\breacts? with\b|\bwhat do i get\b|\bif (i|you|we) "
            r"(mix|combine|react|treat|heat)\b|\bwhen x (and x )?(react|is treated|are mixed|are "
            r"combined)\b"
            r"|\bx \+ x\b|\bx (and|with) x\b.*\?|\bget from\b",
        ),
        (
            Aspect.DESCRIPTION,
            r"\bdescri(be|ption)\b|\btell me (a (bit|little) |something |more )?about\b"
            r"|\bwhat (actually |exactly |really )?(is|are) x\b|\bwhat kind of\b|\bwhat "
            r"type of\b"
            r"|\binformation (on|about)\b|\bused for\b|\bwhat do you know "
            r"about\b|\bexplain\b|\bwho is\b|\bwhat's x\b"
            r"|\bwhat is known about\b|^\s*(please )?characteri[sz]e\b"
            # what a reagent is for: "... TBAB (10 mol%) added - what does TBAB do?"
            r"|\bwhat (does|do) (the )?x (actually |really |exactly )?do\b"
            r"|\bwhat (is|are) (the )?x (actually |really |exactly )?doing\b"
            r"|\bwhat('s| is| are) (the )?x (used )?for\b"
            r"|\b(role|function|purpose|job) of (the )?x\s*[?.]?\s*$",
        ),
    ]
)
# Each rule is compiled when the classifier first reaches it: compiling all of them on import
# cost ~10 ms of every start, and most questions stop at an early rule (issue 16).
_COMPILED: list[re.Pattern | None] = [None] * len(_RULES)


def _compiled_rules():
    """(aspect, compiled rule), in the rules' order."""
    for i, (aspect, pattern) in enumerate(_RULES):
        compiled = _COMPILED[i]
        if compiled is None:
            compiled = _COMPILED[i] = re.compile(pattern)
        yield aspect, compiled


def mask_mentions(question: str, spans: list[tuple[int, int]]) -> str:
    """The question, lower-cased, with each mention span replaced by ``x``."""
    out, last = [], 0
    for start, end in sorted(spans):
        out.append(question[last:start])
        out.append("X")
        last = end
    out.append(question[last:])
    return re.sub(r"\s+", " ", "".join(out)).lower().strip()


# "got a lead on a new route, what's the MW of x": the clause that asks decides, not a word
# of the preamble (the route was answered)
# a clause ends at a comma, semicolon, colon, dash or the end of a sentence ("... owes its
# toxicity to x. what's the molecular formula of x?" asks for the formula)
_CLAUSE_BREAK = re.compile(r"[,;:]\s+|\s[-–—]\s|(?<=[.!?])\s+")
_ASKING_CLAUSE = re.compile(
    r"^\s*(what|which|how|give|tell|find|calculate|name|list|show)\b.*\bx\b", re.IGNORECASE
)


_ASKING_ROLE_CLAUSE = re.compile(
    # "..., is the base x or x?" asks for the base as well
    r"^\s*((what|which)( \w+)?|(is|was|are|were) the) (solvent|catalyst|reagent|base|acid|"
    r"oxidant|reductant|ligand|"
    r"additive|temperature|product|yield)s?\b",
    re.IGNORECASE,
)


# Pleasantries and asides around the question ("hey, quick one - ...", "... thx in advance",
# "... (need it for a calc)"): many rules read the question's first or last words, and a
# greeting or a thank-you there turned right answers into refusals or wrong ones
_CHATTER_START = re.compile(
    r"^\s*(?:(?:hey|hi|hello|ok|okay|so|quick (?:one|question|q)|q|urgent|question|"
    r"sorry if this is (?:basic|dumb|a (?:dumb|silly|basic) question)(?:,? but)?|"
    r"for (?:my|a|our|the) (?:[\w-]+ ){0,3}?(?:report|notebook|eln|thesis|homework|assignment|"
    r"exam|class|records?|sop))\b[\s,:;!.-]*)+",
    re.IGNORECASE,
)
# "cat." is the catalyst asked ("which cat. is used"), not the amount of a compound named
# after it ("cat. HCl is the additive", masked "cat. x")
_CAT = re.compile(
    # ("cat. conc. H2SO4": an amount word may stand between)
    r"\bcat\.(?=\s|$)(?!\s+(?:(?:conc\.?|concd\.?|aq\.?|dil\.?|few|some)\s+)?(?:x\b|"
    r"(?-i:\S*[A-Z0-9])))|\bcat\b(?=\s*(?:\?|$)|\s+(?:system|loading|used|for)\b)",
    re.I,
)
_WHATS = re.compile(r"\b([Ww])h?ats\b(?!\s+(?:up|app)\b)")  # not "was"
_CHATTER_END = re.compile(
    r"(?:[\s,;:.!-]*(?:thanks(?: (?:a lot|so much|in advance))?|thank you(?: (?:so much|in "
    r"advance))?|thx(?: in advance)?|ty|cheers|pls|plz|please|asap|:\)|!+)\s*[?.!]*)+\s*$",
    re.IGNORECASE,
)
_ASIDE_END = re.compile(
    r"\s*\((?:i )?(?:need(?:ed)? (?:it|this|them|the \w+)|for (?:a|an|my|the|our) |just |asking |"
    r"it'?s for |thanks|thx)[^()]*\)\s*[?.!]*\s*$",
    re.IGNORECASE,
)


def without_chatter(text: str) -> str:
    """The question without greetings, thanks and asides about why it is asked, and with
    "whats" and "cat." written out.

    Args:
        text: the question (or its masked form, compounds replaced by "x").

    Returns:
        The text with those removed from its start and end and repeated "??" made one; a
        question mark closes it where a removed thank-you stood in for one. The text itself
        when nothing is removed, or when removing would leave nothing.
    """
    out = re.sub(r"([?!])[?!]+", r"\1", text)
    out = _WHATS.sub(lambda m: m.group(1) + "hat's", out)  # "whats", "wats": typed fast
    out = _CAT.sub("catalyst", out)  # "which cat. is used", "cat. system", "MeNO2 + chalcone, cat."
    start = _CHATTER_START.match(out)
    if start and start.end() < len(out):
        out = out[start.end() :]
    for pattern in (_ASIDE_END, _CHATTER_END, _ASIDE_END):
        found = pattern.search(out)
        if found and found.start() > 0:
            out = out[: found.start()]
    out = out.rstrip()
    if out != text.rstrip() and out and out[-1] not in "?.!)":
        out += "?"
    return out if out.strip() else text


# a line that ends in its arrow and a question mark, with perhaps the form of the answer asked
_ARROW_ASKS_PRODUCT = re.compile(
    r"(->|→|=>)\s*\?\s*[,;:-]?\s*((give|as|in|its|the|me|please|pls|plz|as)\s+)*"
    r"((smiles|structure|formula|name|iupac name)\b[^?]{0,20})?\??\s*$"
)


# What a notebook line's last words add to the fact they ask, read without it: "reaction time
# per your record?", "yield in ur record?", "time = ?", and a comparison after the question
# ("... – yield in your record? like our other Suzukis at 90 %?")
_RECORD_ASKED = re.compile(
    r"\s+(?:per|in|of|from|for|according to|by) (?:your|ur|the|this) (?:records?|kb|entry|"
    r"database)(?=\s*[?.]?\s*(?:$|\?))|\s*=\s*(?=\?\s*$)"
    r"|(?<=\?)\s*(?:like|as with|as in|same as|similar to) [^?]*\?\s*$"
)


def _asking_clause(clauses: list[str]) -> str | None:
    """The clause that asks, when the question has several: the last one, or the last one that
    is a question when a remark follows it ("... – what's the CAS number of x? our shelf only
    has the 3-isomer": the amounts of the clauses before were read as a conversion asked)."""
    if len(clauses) < 2:
        return None
    last = clauses[-1]
    if _ASKING_CLAUSE.search(last) or (
        # "in the CuI-catalysed click of x with x, which amine base is added?": the compounds
        # are in the clause before; the last one asks
        _ASKING_ROLE_CLAUSE.search(last) and re.search(r"\bx\b", " ".join(clauses[:-1]))
    ):
        return last
    if last.rstrip().endswith("?"):
        return None
    asked = [
        i for i, c in enumerate(clauses) if c.rstrip().endswith("?") and _ASKING_CLAUSE.search(c)
    ]
    if not asked or any(
        pattern.search(clause)
        for clause in clauses[asked[-1] + 1 :]
        for _, pattern in _compiled_rules()
    ):
        return None  # "how drug-like is x? (QED score)": the remark says what is asked
    return clauses[asked[-1]]


def classify_aspect(masked: str) -> Aspect | None:
    """The first aspect whose rule matches, or None. A question no rule reads is read once more
    with its misspelt aspect words corrected ("molecular wieght", "exact mas").

    When a later clause is the question itself ("..., what's the MW of x"), its reading
    decides; a word in the clauses before it ("route", "yield") does not."""
    masked = correct_aspect_words(masked, rare_only=True)  # "which sovlent": read as written
    # "solvent(s)?", "catalyst(s)": the plural marker of a role asked
    masked = re.sub(r"(?<=[a-z])\(s\)", "s", masked)
    masked = _RECORD_ASKED.sub("", masked)
    if _ARROW_ASKS_PRODUCT.search(masked):
        # "L-Phe (1.65 g, 10 mmol), Boc2O (1.1 eq), ... rt o/n → ? SMILES please": a notebook
        # line's amounts are what was done, not a conversion asked (read as one, it was refused)
        return Aspect.PRODUCT
    clauses = _CLAUSE_BREAK.split(masked)
    asking = _asking_clause(clauses)
    if asking is not None:
        for aspect, pattern in _compiled_rules():
            if pattern.search(asking):
                return aspect
    for aspect, pattern in _compiled_rules():
        if pattern.search(masked):
            return aspect
    corrected = correct_aspect_words(masked)  # only now: it loads rapidfuzz
    for aspect, pattern in _compiled_rules():
        if pattern.search(corrected):
            return aspect
    return None


# The words the rules are written with, for correcting typos in them (only ever tried when no
# rule matched the question as written, so a correct question is never re-read).
ASPECT_WORDS = frozenset(
    """
weight mass molecular molar exact monoisotopic formula smiles structure synonyms solvent
solvents catalyst catalysts reagent reagents temperature yield product products reactants
conditions melting boiling point density describe description similar route reactions donors
acceptors rotatable stereocentres stereocenters rings aromatic inchi inchikey functional groups
lipinski balance hazards toxicity name names synthesis
""".split()
)


# English words one or two edits from an aspect word ("reaction", "heating", "polar"): never a
# typo of it. Listed so that the common ones do not load wordfreq (see ``correct_aspect_words``).
_NEAR_ASPECT_ENGLISH = frozenset(
    """
reaction reductions group ring donor acceptor named molecule molecules polar solar pass heating
setting meeting meaning project field samples seminar joint exactly prescription function
predict catalysed catalysis catalyses catalyzed wait mas solved produce produced cosolvent
structures structural products yielded yielding conditioned rates ratings reactant routes
""".split()
)
_RARE_WORD_ZIPF = 1.5  # wordfreq: a typo is (nearly) never written; "yeild" is 1.33


# question words as they are mistyped (none of them an English word)
_QUESTION_WORD_SLIPS = {
    "wich": "which",
    "whcih": "which",
    "whihc": "which",
    "wat": "what",
    "waht": "what",
    "wht": "what",
    "whta": "what",
}


def correct_aspect_words(text: str, rare_only: bool = False) -> str:
    """``text`` with each word that is one edit (a swap of neighbours counts as one) from an
    aspect word (two for long words) replaced by it; aspect words and short words stay.

    Args:
        text: the (masked) question.
        rare_only: correct only words that are not English ("sovlent", "catlayst"), so that the
            rules can read the corrected question first: a misspelt "sovlent" left the
            question to a generic product rule, and the product was answered confidently.

    Returns:
        The corrected text.
    """

    def fix(match: re.Match) -> str:
        word = match.group(0)
        low = word.lower()
        if low in _QUESTION_WORD_SLIPS:  # "wich base", "wat is the product"
            return _QUESTION_WORD_SLIPS[low]
        if len(low) < 3 or low in ASPECT_WORDS or low == "x":
            return word
        if rare_only and (len(low) < 5 or low in _NEAR_ASPECT_ENGLISH):
            return word
        from rapidfuzz.distance import OSA  # here: most questions never need it (start-up)
        from rapidfuzz.process import extractOne

        limit = 1 if len(low) < 7 else 2
        best = extractOne(low, ASPECT_WORDS, scorer=OSA.distance, score_cutoff=limit)
        if best is None:
            return word
        if rare_only:
            from chemground.chem.mentions import is_common_word

            if is_common_word(low, _RARE_WORD_ZIPF):
                return word
        return best[0]

    text = _HOMOPHONE_WEIGHT.sub(r"\1 weight", text)  # sounds alike: no edit distance finds it
    return re.sub(r"[A-Za-z]+", fix, text)


# Dictated questions ("whats the molecular wait of quinine"): the words that sound like "weight"
_HOMOPHONE_WEIGHT = re.compile(r"\b(molecular|molar)\s+(wait|wate|weigh|way|wheat)\b", re.I)


# Compound facts a question may ask for together ("the SMILES and MW of paracetamol", "CAS and
# MW of toluene"): the rules read one aspect, and the others were dropped silently.
_ALSO_ASKED: tuple[tuple[Aspect, re.Pattern], ...] = (
    (
        Aspect.MOLECULAR_WEIGHT,
        # ("I'll look for the MW, 278.19, as the monoisotopic mass": a value given, not asked)
        re.compile(
            r"\b(mw|m\.w\.|molecular weight|molar mass|mol\.? ?wt)\b(?!\s*[,:=]?\s*(is\s+)?\d)"
        ),
    ),
    (Aspect.EXACT_MASS, re.compile(r"\b(exact|monoisotopic) mass\b")),
    (Aspect.FORMULA, re.compile(r"\b(molecular |chemical |sum )?formula\b(?! weight)")),
    (Aspect.NAME_TO_SMILES, re.compile(r"\bsmiles\b")),
    (Aspect.SMILES_TO_NAME, re.compile(r"\b(iupac|systematic) name\b")),
    # a CAS number given ("CAS 129-00-0") is no CAS number asked
    (Aspect.CAS, re.compile(r"\bcas\b(?!\s*(no\.?|number|#|rn)?\s*:?\s*\d)")),
    # facts of one reaction: "the yield and temperature of the Suzuki coupling of A with B"
    (
        Aspect.YIELD,
        re.compile(
            r"\byields?\b|\bhow much (product )?(do|did|will|would|should|can) (i|we|you|one) "
            r"(get|obtain|isolate)\b"
        ),
    ),
    # "... in CH2Cl2 at room temperature. Give the structure of the product": given, not asked
    (
        Aspect.TEMPERATURE,
        re.compile(r"(?<!room )(?<!ambient )(?<!elevated )(?<!the same )\btemp(erature)?s?\b"),
    ),
    (Aspect.TIME, re.compile(r"\b(reaction )?time\b|\bhow long\b")),
    (Aspect.SOLVENT, re.compile(r"\bsolvents?\b")),
    # "— reductant + acid?": the acid, asked beside another role, is the acid catalyst
    (Aspect.CATALYST, re.compile(r"\bcatalysts?\b|(\+|&|\band\b)\s*(the )?acids?\s*\??\s*$")),
    (
        Aspect.REAGENT,
        re.compile(
            # "the Schiff base 2-[(phenylimino)methyl]phenol": an imine, not a base asked for
            r"\breagents?\b|(?<!no )(?<!without )(?<!schiff )\bbases?\b(?! (peak|pair|metal))"
            + _WHICH_ACID
            + r"|\b(oxidant|reductant)s?\b"
            r"|\b(reducing|oxidi[sz]ing) agents?\b"
        ),
    ),
    # "give the product SMILES and the yield for A + B" (the yield was dropped); "the product
    # yield" and "the yield of the product of ..." ask for the yield only
    (
        Aspect.PRODUCT,
        re.compile(
            r"\b(main |major )?products?\b(?!\s+(of|from|when|formed|yields?|ratio)\b)"
            # "what forms, and at what temperature?", "what do I get ..., and how long?"
            r"|\bwhat (forms|is formed|will form|do (i|we|you) get|comes out)\b"
        ),
    ),
)
# Computed facts asked beside another ("the formula of artemisinin, and how many stereocentres
# does it have?", "logP and TPSA of caffeine"): the tool channel computes them, so the answer is
# put together by ``QA.ask`` (chemground.qa); before, all but one were dropped silently. Each
# pattern is the fact *asked*: "SMILES with both stereocentres (3S,4R) defined" asks no count.
COMPUTED_ALSO_ASKED: tuple[tuple[Aspect, re.Pattern], ...] = (
    # ("SMILES and InChIKey for paracetamol" was answered with the InChIKey alone; a key given,
    # "InChIKey BSYN...-N", is no key asked)
    # ("...-N? (InChIKey from our ELN)": a label of the key given)
    (Aspect.INCHIKEY, re.compile(r"(?<!\()\binchi ?-?keys?\b(?!\s*:?\s*[a-z]{14}-)")),
    (Aspect.INCHI, re.compile(r"\binchi\b(?! ?-?key)(?!\s*:?\s*=?\s*1s?/)")),
    (Aspect.LOGP, re.compile(r"\b[cx]?log ?p\b|\bpartition coefficient\b")),
    (Aspect.TPSA, re.compile(r"\btpsa\b|\bpolar surface area\b")),
    (
        Aspect.HBD,
        re.compile(
            r"\b(h|hydrogen)[- ]?bond(ing)?[- ]donors?\b|\bhbds?\b|\bacceptors? and donors?\b"
        ),
    ),
    (
        Aspect.HBA,
        re.compile(
            r"\b(h|hydrogen)[- ]?bond(ing)?[- ]acceptors?\b|\bhbas?\b|\bdonors? and acceptors?\b"
        ),
    ),
    (Aspect.ROTATABLE_BONDS, re.compile(r"\brotatable bonds?\b")),
    (
        Aspect.STEREOCENTRES,
        re.compile(
            r"\b(how many|number of|count of|no\. of)\s+(\w+\s+)?(stereo[- ]?cent(re|er)s|"
            r"chiral (cent(re|er)s|carbons|atoms)|stereogenic)|\b(is|are) (it|they|\w+) chiral\b"
        ),
    ),
    (
        Aspect.RING_COUNT,
        re.compile(r"\b(how many|number of|count of|no\. of)\s+(\w+\s+)?rings\b"),
    ),
    (Aspect.HEAVY_ATOMS, re.compile(r"\bheavy[- ]atoms?\b")),
    (Aspect.QED, re.compile(r"\bqed\b")),
)
COMPUTED_ASPECTS = frozenset(a for a, _ in COMPUTED_ALSO_ASKED)
# physical properties the tools look up ("MW and density of toluene" was answered with the
# density alone, the molar mass dropped without a word)
LOOKED_UP_ALSO_ASKED: tuple[tuple[Aspect, re.Pattern], ...] = (
    (Aspect.BOILING_POINT, re.compile(r"\bboiling points?\b|\bb\.p\.|\bbp\b")),
    (Aspect.MELTING_POINT, re.compile(r"\bmelting points?\b|\bm\.p\.|\bmp\b")),
    (Aspect.DENSITY, re.compile(r"\bdensit(y|ies)\b")),
    (Aspect.FLASH_POINT, re.compile(r"\bflash points?\b")),
)
LOOKED_UP_ASPECTS = frozenset(a for a, _ in LOOKED_UP_ALSO_ASKED)
_ASKED_TOGETHER = _ALSO_ASKED + COMPUTED_ALSO_ASKED + LOOKED_UP_ALSO_ASKED
_JOINED = re.compile(r"\b(and|plus|as well as|together with)\b|&|,|\s\+\s")


# "PhCO2H + MeOH (solvent), cat. H2SO4 ... typical yield?": a label of a compound's role
_ROLE_LABEL = re.compile(
    r"\(\s*(as )?(the )?(solvents?|catalysts?|reagents?|bases?)\s*\)"
    # "(Boc2O in DCM, no added base)", "without a catalyst": a role said to be absent
    r"|\b(no|without)( added| extra| any| an?)? (solvents?|catalysts?|reagents?|bases?|acids?)\b"
)


def _without_role_labels(low: str) -> str:
    """The question without the role labels it gives its compounds and the roles it says are
    absent: a role given is no fact asked."""
    return _ROLE_LABEL.sub(" ", low)


def also_asked(question: str, aspect: Aspect | None) -> list[Aspect]:
    """The other facts a question asks for beside ``aspect``, in the question's order.

    Args:
        question: the question as asked.
        aspect: the aspect the rules read.

    Returns:
        Further aspects of the same level that the question names and joins with "and" or a
        comma (molecular weight, exact mass, formula, SMILES, IUPAC name and CAS number of a
        compound, and the computed ones of ``COMPUTED_ALSO_ASKED``: logP, TPSA, H-bond donors
        and acceptors, rotatable bonds, stereocentres, rings, heavy atoms, QED; yield,
        temperature, time, solvent, catalyst and reagent of a reaction); empty otherwise.
    """
    if aspect not in {a for a, _ in _ASKED_TOGETHER}:
        return []
    low = _without_role_labels(question.lower())
    if not _JOINED.search(low):
        return []
    found = sorted(
        (m.start(), a)
        for a, pattern in _ASKED_TOGETHER
        if a != aspect and a.level == aspect.level and (m := pattern.search(low))
    )
    return [a for _, a in found]


def names_fact(question: str, aspect: Aspect | None) -> re.Match | None:
    """Where ``question`` names ``aspect`` among the facts that are asked together ("logP" in
    "logP of caffeine and how soluble is it?"), or None.

    Args:
        question: the question as asked.
        aspect: the aspect the rules read.

    Returns:
        The match of the aspect's words, or None when it has none here or is no such fact.
    """
    pattern = dict(_ASKED_TOGETHER).get(aspect)  # type: ignore[arg-type]
    return pattern.search(_without_role_labels(question.lower())) if pattern else None


def first_asked(question: str, aspect: Aspect | None) -> Aspect | None:
    """Of the facts a question asks for together, the one it names first: "solvent and base for
    the Sonogashira coupling" asks for the solvent first, though the rules read the base.

    A computed fact whose word the question uses without asking for it gives way to the fact
    asked: "isomeric SMILES for paroxetine, with both stereocentres (3S,4R) defined" asks for
    the SMILES (it was answered with the count of stereocentres).

    Args:
        question: the question as asked.
        aspect: the aspect the rules read.

    Returns:
        The aspect named first among ``aspect`` and ``also_asked``; ``aspect`` itself when the
        question names no other, or its own words cannot be placed.
    """
    low = _without_role_labels(question.lower())
    patterns = dict(_ASKED_TOGETHER)
    if aspect in COMPUTED_ASPECTS and not patterns[aspect].search(low):
        # "sitagliptin as an isomeric SMILES with its (R) stereocentre specified": the fact
        # asked is the SMILES, whether or not the sentence joins the two words with "and"
        named = [
            (m.start(), a)
            for a, pattern in _ALSO_ASKED
            if a.level == aspect.level and (m := pattern.search(low))
        ]
        if named:
            return min(named)[1]
    others = also_asked(question, aspect)
    if not others:
        return aspect
    own = patterns[aspect].search(low)  # type: ignore[index]
    if own is None:
        return others[0] if aspect in COMPUTED_ASPECTS else aspect
    first = min(others, key=lambda a: patterns[a].search(low).start())
    return first if patterns[first].search(low).start() < own.start() else aspect


_COUNT_ASKED = re.compile(r"\b(how many|number of|count|total)\b", re.IGNORECASE)


def count_asked(question: str) -> bool:
    """Whether a question about reactions asks how many there are ("how many reactions use
    THF?", "number of Suzuki couplings in the KB"): the count is then the answer, and the
    records listed are its evidence.

    Args:
        question: the question as asked.

    Returns:
        True when the question asks for a number of records.
    """
    return bool(_COUNT_ASKED.search(question))
