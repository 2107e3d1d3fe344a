"""The role a question implies for each compound it names.

"what forms when A reacts with B" -> A, B reactants; "how is C made" -> C product;
"A to give C" -> A reactant, C product; "in THF" -> solvent; "using Pd(PPh3)4" -> catalyst.
Local cue words decide first, then the aspect's default.
"""

from __future__ import annotations

import re

from chemground.chem.solvents import (
    has_transition_metal,
    is_acid_base_or_lewis_acid,
    is_common_solvent,
    is_radical_initiator,
)
from chemground.kb.records import Role
from chemground.reasoning.query import Aspect, QueryMention

_BEFORE_PRODUCT = re.compile(
    r"(to (give|form|make|afford|yield|produce|obtain|prepare|synthesi[sz]e|get|reach)"
    r"|->|-->|→|=>|reactions? (that |which )?(give|make|form|produce|yield|afford)"
    r"|into|giving|gives|forming|forms|"
    r"yielding|affording|producing|synthesis of|preparation of|route "
    r"to|synthesi[sz]e|prepare|make|made|obtain|making|preparing|synthesi[sz]ing|"
    r"towards?|target|product|products of|reactants of|precursors of|starting materials for|make "
    r"up|"
    r"(yield|amount|synthesis|formation|preparation) of)\s*(the |a |an )?$"
)
# "the Williamson ether synthesis of phenol with benzyl bromide": a named synthesis is done on
# its substrate (phenol was read as the product)
_NAMED_SYNTHESIS_OF = re.compile(r"\bether synthesis of$")


def _is_ether(smiles: str | None) -> bool:
    """Whether ``smiles`` holds an ether linkage ("the Williamson ether synthesis of
    2-butoxynaphthalene" names the ether made, "... of phenol" the phenol it is made from)."""
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles) if smiles else None
    return mol is not None and mol.HasSubstructMatch(Chem.MolFromSmarts("[#6][OX2][#6]"))


_BEFORE_REACTANT = re.compile(
    r"(from|starting (from|with)|react(s|ed|ing)?|react (with)?|reacts with|reacting "
    r"with|mix(ing)?|mixed|combine|combining|"
    r"treat(ed|ing)?|between|of|when|if|coupling of|condensation of|alkylation of|acylation "
    r"of|reduction of|"
    r"oxidation of|hydrolysis of|esterification of|nitration of|hydrogenation of|protection "
    r"of|deprotection of|"
    r"reaction of|add(ing)?|added "
    r"to|with|and|\+|conver(t|ts|ted|ting)|transform(s|ed)?|turn(s|ed)?|"
    r"reduc(e|es|ed|ing)|oxidi[sz](e|es|ed|ing)|hydrogenat(e|es|ed|ing)|alkylat(e|es|ed|ing)|acylat(e|es|ed|ing)|"
    r"protect(s|ed|ing)?|deprotect(s|ed|ing)?|brominat(e|es|ed|ing)|nitrat(e|es|ed|ing)|hydrolys(e|es|ed|ing)|"
    r"couple(s|d)?|condense(s|d)?)\s*(the |a |an )?$"
)
_BEFORE_SOLVENT = re.compile(
    r"(in|solvent|dissolved in|in the solvent|using solvent)\s*(the |a |an )?"
    # "in refluxing ethanol", "in dry THF", "in boiling toluene"
    r"(\s*\b(refluxing|boiling|hot|warm|cold|ice-cold|dry|anhydrous|aqueous|absolute|degassed|"
    r"wet))?$"
)
_BEFORE_AGENT = re.compile(
    r"(using|over|catalys[eiz]+d by|cataly[sz]ed by|in (the )?presence of|with (a |the )?catalyst|"
    r"promoted by|mediated by|by|cat\.|catalytic)\s*(the |a |an )?$"
)
# "with a bit of sulfuric acid", "with a few drops of conc. HCl": an amount before the agent
# (the text before a mention is read with its trailing space stripped)
_SMALL_AMOUNT = (
    r"(\b(a|an|the|catalytic|cat\.?|some|a (little )?bit of|a little|a trace of|traces of"
    r"|a (few )?drops? of|a pinch of|a spatula of|a catalytic amount of|conc\.?|"
    r"concentrated|dilute|aq\.?|aqueous)(\s+|$))*"
)
# "refluxed in ethanol with H2SO4", "heated with a catalytic amount of TsOH": a compound added
# "with" a heating or stirring verb, or after the solvent, is an agent (reagent or catalyst);
# "reacts with B" and "treated with B" keep B a reactant
_BEFORE_AGENT_WITH = re.compile(
    r"(\b(reflux(ed|ing)?|heat(ed|ing)?|stir(red|ring)?|warm(ed|ing)?|boil(ed|ing)?|"
    r"shak(en|ing)|sonicat(ed|ing))\b[^,;.]*|\bin \S+(?: \S+)?)"
    r" with\s*" + _SMALL_AMOUNT + "$"
)
# what separates two compounds of one list: ", " or " (1.1 eq), " in a notebook line
_LIST_SEPARATOR = re.compile(r"\s*(\([^()]{0,30}\)\s*)?,\s*")
_WITH_AFTER_REACT = re.compile(r"\breact(s|ed|ing)?\b[^,;.]*\bwith\s*(a |an |the )?$")
_ENDS_WITH_WITH = re.compile(r"\bwith\s*" + _SMALL_AMOUNT + "$")


def _acid_or_base_added_with(before: str, smiles: str | None) -> bool:
    """'from A and B with TsOH', 'A treated with NaOH': an acid, base or Lewis acid added
    'with' is an agent, unless the question says the compounds react with one another."""
    if not _ENDS_WITH_WITH.search(before) or _WITH_AFTER_REACT.search(before):
        return False
    return is_acid_base_or_lewis_acid(smiles)


def _added_with(before: str, smiles: str | None, roles: list[Role | None]) -> bool:
    """'the product of A and B with CuSO4 and sodium ascorbate', 'A with Pd(OAc)2': a compound
    added 'with' after two reactants are named, or a transition-metal compound added 'with', is
    an agent, unless the question says the compounds react with one another."""
    if not _ENDS_WITH_WITH.search(before) or _WITH_AFTER_REACT.search(before):
        return False
    return roles.count(Role.REACTANT) >= 2 or (smiles is not None and has_transition_metal(smiles))


_AFTER_ROLE = re.compile(
    # "MeOH (solvent)", not "acetophenone (solvent + temp)?"
    r"^\s*(?:,?\s*(?:is |was |are )?(?:used )?as (?:the |a |an )?|\(\s*(?:as )?(?:the )?"
    r"(?=[a-z ]+\)))"
    r"(solvents?|catalysts?|reagents?|bases?|reactants?|starting materials?|substrates?|"
    r"products?)\b"
)
_CATALYTIC_AFTER = re.compile(r"^\s*\(\s*(cat\.?|catalytic|catalyst|cat\. amount)\s*\)")
_AFTER_PRODUCT = re.compile(
    r"^\s*(is|was|were|are)?\s*(formed|obtained|produced|made|prepared|synthesi[sz]ed)"
    # "ethyl nicotinate synthesis: which acid?": the compound made
    r"|^\s*(synthesis|preparation|prep|formation)\b"
)


def infer_roles(
    question: str, mentions: list[QueryMention], aspect: Aspect | None
) -> list[Role | None]:
    roles: list[Role | None] = []
    lowered = question.lower()
    for index, mention in enumerate(mentions):
        before = lowered[max(0, mention.start - 40) : mention.start].rstrip()
        after = lowered[mention.end : mention.end + 30]
        # the text since the compound before: ", " in a list, " (1.1 eq), " in a notebook line
        between = lowered[mentions[index - 1].end : mention.start] if index else ""
        listed = bool(_LIST_SEPARATOR.fullmatch(between))
        role: Role | None = None
        either = False  # a role left open on purpose: no default fills it
        named = _AFTER_ROLE.search(after)
        if _CATALYTIC_AFTER.match(after):  # "conc. H2SO4 (cat.)": the acid catalyst
            role = Role.CATALYST
        elif named:  # "which reactions use DMF as solvent"
            role = Role.parse(named.group(1))  # "bases" -> REAGENT, "substrates" -> REACTANT
        elif (
            index > 0
            and roles[-1] == Role.PRODUCT
            and re.fullmatch(r"\s*\(\s*", between)
            and mention.smiles
            # "isoamyl acetate (banana oil)": the product named again
            and (mention.inchikey or "")[:14] != (mentions[index - 1].inchikey or "")[:14]
            and not _AFTER_PRODUCT.search(after)
        ):
            # "? + ? → X (PdCl2(PPh3)2, CuI, Et3N, THF, rt)": the conditions in brackets after
            # the product (the palladium complex was read as a second product)
            role = (
                Role.CATALYST
                if has_transition_metal(mention.smiles)
                else Role.SOLVENT
                if is_common_solvent(mention.smiles)
                else Role.REAGENT
            )
        elif _NAMED_SYNTHESIS_OF.search(before) and not _is_ether(mention.smiles):
            role = Role.REACTANT
        elif (
            _AFTER_PRODUCT.search(after)
            and aspect
            in (
                Aspect.REACTANTS,
                Aspect.CONDITIONS,
                Aspect.CATALYST,
                Aspect.SOLVENT,
                Aspect.REAGENT,
                Aspect.YIELD,
                Aspect.TEMPERATURE,
                Aspect.TIME,
            )
        ) or _BEFORE_PRODUCT.search(before):
            role = Role.PRODUCT
        elif (
            _BEFORE_SOLVENT.search(before) and mention.smiles and is_common_solvent(mention.smiles)
        ):
            role = Role.SOLVENT
        elif (
            _BEFORE_AGENT.search(before)
            or _BEFORE_AGENT_WITH.search(before)
            or _acid_or_base_added_with(before, mention.smiles)
            or _added_with(before, mention.smiles, roles)
        ) and mention.smiles:
            role = Role.CATALYST if has_transition_metal(mention.smiles) else Role.REAGENT
        elif (
            index > 0
            and re.search(r",\s*$", before)
            and mention.smiles
            and is_common_solvent(mention.smiles)
        ):
            # a notebook line "A + B, HATU/DIPEA, DMF, rt": the solvent; an acid or base that is
            # also a solvent ("NaBH(OAc)3, AcOH, DCE") is filed as solvent or catalyst alike
            either = is_acid_base_or_lewis_acid(mention.smiles)
            role = None if either else Role.SOLVENT
        elif (
            listed
            and mention.smiles
            and (
                roles[-1] in (Role.REAGENT, Role.CATALYST)
                or "+" in lowered[: mentions[index - 1].start]
            )
        ):
            # "using Pd2(dba)3, BINAP and Cs2CO3": the list of agents goes on; "A + B (1.1 eq),
            # EDC·HCl / HOBt, DIPEA": after the reactants joined by "+", the listed agents
            role = Role.CATALYST if has_transition_metal(mention.smiles) else Role.REAGENT
        elif (
            (re.search(r"(?<!\s)/\s*$", before) or re.fullmatch(r"\s*/\s*", between))
            and roles
            and mention.smiles
        ):
            # "dioxane/H2O", "HATU/DIPEA": the same role as the one before; "HCl/dioxane" (HCl in
            # dioxane): a solvent after a reagent is the solvent
            solvent = is_common_solvent(mention.smiles)
            role = Role.SOLVENT if solvent else roles[-1] if roles[-1] != Role.SOLVENT else None
            if role is None:
                role = _default(aspect, index, len(mentions), mention.smiles)
        elif re.search(r"\band\s*$", before) and roles:
            role = roles[-1]  # "A and B": same role as A
        elif _BEFORE_REACTANT.search(before):
            role = Role.REACTANT
        if role is None and not either:
            role = _default(aspect, index, len(mentions), mention.smiles)
        if role == Role.REACTANT and is_radical_initiator(mention.smiles):
            role = Role.CATALYST  # "with NBS/AIBN", "NBS and BPO": the initiator reacts with none
        roles.append(role)
    if Role.PRODUCT in roles:
        # "A ... to give P": the other unassigned compounds are what P is made from, but for a
        # metal ("A>>P, H2 balloon, 10% Pd/C"): the catalyst
        # ("A>>P (DCM, rt)": a common solvent may be the solvent or a reactant, as records file it)
        roles = [
            r
            if r is not None
            else Role.CATALYST
            if m.smiles and has_transition_metal(m.smiles)
            else None
            if m.smiles and is_common_solvent(m.smiles)
            else Role.REACTANT
            for m, r in zip(mentions, roles)
        ]
    return roles


# The roles a chemist accepts for one another when matching a question to a record: a Lewis
# acid or a base is filed as a reagent in one source and as a catalyst in another, and a
# co-reactant the question names ("A reacts with HCl") is often filed as a reagent. A product
# is never a starting material, and a solvent asked for stays a solvent.
_ACCEPTED: dict[Role, frozenset[Role]] = {
    Role.REACTANT: frozenset({Role.REACTANT, Role.REAGENT}),
    Role.REAGENT: frozenset({Role.REAGENT, Role.CATALYST, Role.REACTANT}),
    Role.CATALYST: frozenset({Role.CATALYST, Role.REAGENT}),
    Role.PRODUCT: frozenset({Role.PRODUCT}),
    Role.SOLVENT: frozenset({Role.SOLVENT}),
}


def role_accepts(wanted: Role | None, found: Role | None) -> bool:
    """Whether a record's role answers the role a question implies.

    Args:
        wanted: the role the question implies for a compound (None: any role).
        found: the role the compound has in the record.

    Returns:
        True when the same, or when chemists use the two for one another (reagent and
        catalyst; a named co-reactant filed as a reagent).
    """
    if wanted is None:
        return True
    if found is None:
        return False
    return found in _ACCEPTED[wanted]


def _default(
    aspect: Aspect | None, index: int, count: int, smiles: str | None = None
) -> Role | None:
    if aspect == Aspect.PRODUCT:
        if (
            index > 0
            and smiles
            and (is_acid_base_or_lewis_acid(smiles) or has_transition_metal(smiles))
        ):
            # "benzoic acid, MeOH, H2SO4, reflux -> product?": in a list that names no roles an
            # acid, a base or a metal is an agent (reagent or catalyst), not a reactant
            return Role.REAGENT
        if index > 0 and smiles and is_common_solvent(smiles):
            # "2-nitroanisole H2 Pd/C MeOH product": a solvent in such a list may be the solvent
            # or a reactant (methanol of an esterification); either role matches
            return None
        return Role.REACTANT
    if aspect == Aspect.REACTANTS:
        return Role.PRODUCT
    if count >= 2 and aspect in (
        Aspect.SOLVENT,
        Aspect.CATALYST,
        Aspect.REAGENT,
        Aspect.TEMPERATURE,
        Aspect.TIME,
        Aspect.CONDITIONS,
        Aspect.YIELD,
    ):
        return None  # participants of unknown role; retrieval matches any role
    return None
