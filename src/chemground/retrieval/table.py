"""The table retriever: compound rows by structure identity, reaction rows by relational mapping.

Compound questions: the record with the same structure (InChIKey, so any naming finds it);
then, when asked for or when nothing matches exactly, records sharing the parent compound
(salt forms), the skeleton (stereo variants), similar names (character ROUGE-L) and similar
structures (Morgan/Tanimoto). Reaction questions: the question's compounds are mapped to the
reactions they take part in through the link table, and reactions are ranked by how fully
they cover ALL the question's compounds in the roles the question implies, then by how the
compounds matched, then by whether the reaction holds the data the aspect asks for.

Work is linear in the number of question compounds (the parser reads at most
``chem.mentions.MAX_MENTIONS``): each compound's links are read once, and the same compound
named twice is looked up once.
"""

from __future__ import annotations

from dataclasses import dataclass

from rdkit import DataStructs

from chemground.chem.fingerprints import morgan_fingerprint
from chemground.chem.structure import release_memory, structure_from_smiles
from chemground.evidence import Evidence
from chemground.kb.records import Role
from chemground.kb.store import KnowledgeBase
from chemground.reasoning.query import Aspect, QueryMention, QueryTuple
from chemground.reasoning.reaction_classes import (
    ClassMention,
    class_reaction_ids,
    find_classes,
    has_marker,
    in_class_span,
    indefinite_article,
    reaction_noun,
)
from chemground.reasoning.roles import role_accepts
from chemground.retrieval.fuzzy import FuzzyNameIndex
from chemground.retrieval.records import compound_record, reaction_record

SIMILARITY_FLOOR = 0.35  # Tanimoto below this is not "similar" enough to show
PARENT_WEIGHT = 0.85  # a salt form of the asked compound
_AGENT_ROLES = (Role.REAGENT, Role.CATALYST)
WRONG_ROLE_WEIGHT = 0.5  # the compound is in the reaction, but not in the role asked
MAX_LINKS_PER_COMPOUND = 5000
SIMILAR_REACTION_FLOOR = (
    0.5  # Tanimoto (or salt/stereo form) for showing a similar compound's reactions
)
MAX_CLASS_REACTIONS = 30  # reactions of a named class shown when the question names no compound

_ASPECT_FIELD = {
    Aspect.TEMPERATURE: lambda r: r["temperature_c"] is not None or bool(r["temperature_text"]),
    Aspect.TIME: lambda r: r["time_h"] is not None,
    Aspect.YIELD: lambda r: r["yield_percent"] is not None,
    Aspect.SOLVENT: lambda r: bool(r["solvents"]),
    Aspect.CATALYST: lambda r: bool(r["catalysts"]),
    Aspect.REAGENT: lambda r: bool(r["reagents"] or r["catalysts"]),
    Aspect.CONDITIONS: lambda r: (
        r["temperature_c"] is not None or r["time_h"] is not None or bool(r["solvents"])
    ),
}


@dataclass
class _Target:
    """One question compound and the KB compounds that stand for it, with weights."""

    mention: QueryMention
    compound_weights: dict[int, float]


# products of the class asked searched at most (then their reactants checked)
MAX_TRANSFORMATION_SEARCH = 500


class TableRetriever:
    name = "table"

    def __init__(self, kb: KnowledgeBase, fuzzy: FuzzyNameIndex | None = None, routes=None) -> None:
        self.kb = kb
        self.fuzzy = fuzzy
        self.routes = routes  # a RouteRetriever: route questions need paths, not rows

    def retrieve(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        if query.aspect == Aspect.ROUTE and self.routes is not None:
            return self.routes.retrieve(query, k)
        if query.level == "reaction":
            return self.reactions(query, k)
        return self.compounds(query, k)

    # -- compounds -----------------------------------------------------------------------------
    def compounds(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        exact: list[Evidence] = []
        similar: list[Evidence] = []
        seen: set[str] = set()

        def add(target: list[Evidence], evidence: Evidence) -> None:
            if evidence.id not in seen:
                seen.add(evidence.id)
                target.append(evidence)

        for mention in query.mentions:
            if mention.compound_id is not None:
                compound = self.kb.get_compound(mention.compound_id, with_reactions=0)
                record = compound_record(compound)
                if query.aspect == Aspect.DESCRIPTION:
                    record = self._described_stereoisomer(record)
                how = {
                    "smiles": "same structure as the SMILES",
                    "dictionary": "name in the dictionary",
                    "opsin": "same structure as the systematic name",
                    "fuzzy": "corrected name",
                }.get(mention.resolved_by, mention.resolved_by)
                add(
                    exact,
                    Evidence(
                        kind="compound",
                        id=str(compound.id),
                        score=mention.confidence,
                        match="exact" if mention.resolved_by != "fuzzy" else "similar",
                        record=record,
                        retriever=self.name,
                        why=f"{how} {mention.text!r}"
                        + (f" (InChIKey {compound.inchikey})" if compound.inchikey else ""),
                        provenance={"source": compound.source},
                    ),
                )
            elif mention.smiles:
                s = structure_from_smiles(mention.smiles)
                add(
                    exact,
                    Evidence(
                        kind="computed",
                        id=f"structure:{s.inchikey}",
                        score=1.0,
                        match="exact",
                        retriever="computation",
                        record={
                            "smiles": s.smiles,
                            "inchikey": s.inchikey,
                            "formula": s.formula,
                            "molecular_weight": s.molecular_weight,
                            "exact_mass": s.exact_mass,
                            "name": mention.text if mention.input_format != "smiles" else None,
                        },
                        why=f"{mention.text!r} is not in the knowledge base; identifiers "
                        "computed from "
                        f"its structure ({mention.resolved_by})",
                    ),
                )
            if query.aspect == Aspect.SIMILAR or (mention.compound_id is None):
                for evidence in self._similar_compounds(mention, k):
                    add(similar, evidence)
        if not exact and self.fuzzy is not None:
            for mention in query.mentions:
                if not mention.resolved:
                    for name, compound_id, score in self.fuzzy.similar(mention.text, limit=k):
                        compound = self.kb.get_compound(compound_id, with_reactions=0)
                        add(
                            similar,
                            Evidence(
                                kind="compound",
                                id=str(compound_id),
                                score=score / 100,
                                match="similar",
                                record=compound_record(compound),
                                retriever=self.name,
                                why=f"name {name!r} resembles {mention.text!r} (ROUGE-L "
                                f"{score:.0f}%)",
                            ),
                        )
        similar.sort(key=lambda e: -e.score)
        return (exact + similar)[: max(k, len(exact))]

    def _described_stereoisomer(self, record: dict) -> dict:
        """``record`` with the description of a stereoisomer of the same skeleton when it has
        none of its own: "what is nicotine?" finds the dictionary's record without stereo, and
        descriptions.tsv describes (S)-nicotine (the answer said there was no description).
        ``description_of`` names the stereoisomer, so the answer says whose text it is."""
        if record.get("description") or not record.get("inchikey"):
            return record
        for hit in self.kb.lookup_connectivity(record["inchikey"][:14]):
            if hit.compound_id == record.get("id"):
                continue
            other = self.kb.get_compound(hit.compound_id, with_reactions=0)
            if other.description:
                return {**record, "description": other.description, "description_of": other.name}
        return record

    def _similar_compounds(self, mention: QueryMention, k: int) -> list[Evidence]:
        if not mention.smiles:
            return []
        structure = structure_from_smiles(mention.smiles)
        out: list[Evidence] = []
        related = {
            h.compound_id: "same parent compound (salt or charge form)"
            for h in self.kb.lookup_parent(structure.parent_inchikey)
        }
        related.update(
            {
                h.compound_id: "same skeleton, different stereo or isotopes"
                for h in self.kb.lookup_connectivity(structure.connectivity_key)
                if h.compound_id not in related
            }
        )
        related.pop(mention.compound_id, None)  # type: ignore[arg-type]
        for compound_id, why in list(related.items())[:k]:
            compound = self.kb.get_compound(compound_id, with_reactions=0)
            out.append(
                Evidence(
                    kind="compound",
                    id=str(compound_id),
                    score=0.9,
                    match="similar",
                    record=compound_record(compound),
                    retriever=self.name,
                    why=why,
                )
            )
        ids, fingerprints = self.kb.fingerprints()
        if ids:
            query_fingerprint = morgan_fingerprint(structure.smiles)
            if len(structure.smiles) > 500:
                release_memory()  # ring perception of a large structure: see chem.structure
            scores = DataStructs.BulkTanimotoSimilarity(query_fingerprint, fingerprints)
            # the best k + len(related) + 1, best first and ties in KB order (a stable sort of all
            # scores did this in Python, 35 ms for 76k compounds); those under the floor were
            # skipped anyway, and they sort after all the others
            import numpy as np  # ~50 ms to import; only similarity look-ups need it

            values = np.asarray(scores, dtype=float)
            above = np.flatnonzero(values >= SIMILARITY_FLOOR)
            ranked = above[np.argsort(-values[above], kind="stable")][
                : k + len(related) + 1
            ].tolist()
            for i in ranked:
                if (
                    ids[i] == mention.compound_id
                    or ids[i] in related
                    or scores[i] < SIMILARITY_FLOOR
                ):
                    continue
                compound = self.kb.get_compound(ids[i], with_reactions=0)
                out.append(
                    Evidence(
                        kind="compound",
                        id=str(ids[i]),
                        score=round(scores[i], 4),
                        match="similar",
                        record=compound_record(compound),
                        retriever=self.name,
                        why=f"structurally similar to {mention.text!r} (Tanimoto "
                        f"{scores[i]:.2f}, Morgan r=2)",
                    )
                )
        return out

    # -- reactions -----------------------------------------------------------------------------
    def _targets(
        self, query: QueryTuple, classes: list[ClassMention] | None = None
    ) -> list[_Target]:
        """One target per compound the question names, resolved or not: an unresolved compound
        still counts as asked for, so a reaction can never match the question fully without it.
        Words of a named reaction class ("Appel", "Boc") are not compounds."""
        targets = []
        looked_up: dict[
            str, tuple[list[int], list[int]]
        ] = {}  # smiles -> (same structure, same parent)
        for mention in query.mentions:
            if classes and in_class_span(mention, classes):
                continue
            weights: dict[int, float] = {}
            if not mention.resolved:
                targets.append(_Target(mention, weights))
                continue
            if mention.compound_id is not None:
                weights[mention.compound_id] = (
                    1.0 if mention.resolved_by != "fuzzy" else mention.confidence
                )
            if mention.smiles:
                if mention.smiles not in looked_up:
                    structure = structure_from_smiles(mention.smiles)
                    same_ids = [hit.compound_id for hit in self.kb.lookup_structure(structure)]
                    if structure.inchikey.split("-")[1] == "UHFFFAOYSA":
                        # no stereo given ("stilbene"): every stereoisomer is what was asked
                        # for, as a chemist reads it; a question that gives (Z) is not (E)
                        same_ids += [
                            hit.compound_id
                            for hit in self.kb.lookup_connectivity(structure.connectivity_key)
                        ]
                    looked_up[mention.smiles] = (
                        same_ids,
                        [
                            hit.compound_id
                            for hit in self.kb.lookup_parent(structure.parent_inchikey)
                        ],
                    )
                same, parent = looked_up[mention.smiles]
                for compound_id in same:
                    weights.setdefault(compound_id, 1.0)
                for compound_id in parent:
                    weights.setdefault(compound_id, PARENT_WEIGHT)
            targets.append(
                _Target(mention, weights)
            )  # a compound the KB lacks still counts as asked for
        return targets

    def reactions(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        classes = find_classes(query.question)
        targets = self._targets(query, classes)
        if classes:
            return self._class_reactions(query, classes, targets, k)
        return self._ranked(query, targets, k)

    def _class_reactions(
        self, query: QueryTuple, classes: list[ClassMention], targets: list[_Target], k: int
    ) -> list[Evidence]:
        """The question names a reaction class: only reactions of that class answer it.

        With compounds, the class's reactions are ranked as usual; when none of them holds any of
        the compounds, the class's reactions come back as ``similar`` (the answer says so). Without
        compounds ("reagent for Boc deprotection?"), every reaction of the class is evidence. A
        class the KB holds no reaction of gives no evidence: the reactions of another class never
        stand in for it."""
        allowed: dict[str, None] = {}
        for c in classes:
            if not c.known:
                continue
            if c.reaction_class.transformation:
                allowed.update(
                    dict.fromkeys(self._transformation_ids(*c.reaction_class.transformation))
                )
                continue
            ids = [
                rid
                for cid in c.reaction_class.class_ids
                for rid in class_reaction_ids(self.kb, cid)
            ]
            if c.reaction_class.markers and ids:
                records = self.kb.get_reactions(ids[:MAX_LINKS_PER_COMPOUND])
                ids = [
                    rid
                    for rid in ids
                    if rid in records
                    and has_marker(reaction_record(records[rid]), c.reaction_class.markers)
                ]
            allowed.update(dict.fromkeys(ids))
        if not allowed:
            return []
        named = " / ".join(c.name for c in classes if c.known)
        if any(t.compound_weights for t in targets):
            ranked = self._ranked(query, targets, k, allowed=set(allowed))
            if ranked:
                for e in ranked:
                    e.why = f"{indefinite_article(named)} {reaction_noun(named)}; " + e.why
                return ranked
        class_only = not targets
        ids = list(allowed)[: MAX_CLASS_REACTIONS if class_only else k]
        reactions = self.kb.get_reactions(ids)
        curated_first = (
            sorted(ids, key=lambda rid: (0 if reactions[rid].dataset == "starter" else 1, rid))
            if reactions
            else []
        )
        asked = ", ".join(repr(t.mention.text) for t in targets)
        out = []
        for rid in curated_first:
            if rid not in reactions:
                continue
            reaction = reactions[rid]
            kind = f"{indefinite_article(named)} {reaction_noun(named)}"
            why = (
                f"{kind} (the question names the class and no compound)"
                if class_only
                else f"{kind}, but no {reaction_noun(named)} in the knowledge base involves {asked}"
            )
            out.append(
                Evidence(
                    kind="reaction",
                    id=rid,
                    score=1.0 if class_only else 0.1,
                    match="exact" if class_only else "similar",
                    record=reaction_record(reaction),
                    retriever=self.name,
                    why=why,
                    provenance={
                        "source": reaction.source,
                        "dataset": reaction.dataset,
                        "reaction_class": named,
                        # the class's size: only MAX_CLASS_REACTIONS of them are evidence
                        **({"class_reactions_in_kb": len(allowed)} if class_only else {}),
                    },
                )
            )
        return out

    def _transformation_ids(self, source: str, target: str) -> list[str]:
        """The reactions that make a compound of class ``target`` from one of class ``source``
        (keys of ``GROUPS``): products searched by substructure, then their reactants checked."""
        from rdkit import Chem

        from chemground.kb.functional_groups import GROUPS

        made = self.kb.search_reactions_by_structure(
            GROUPS[target], roles=[Role.PRODUCT], limit=MAX_TRANSFORMATION_SEARCH
        )
        source_group = Chem.MolFromSmarts(GROUPS[source])
        target_group = Chem.MolFromSmarts(GROUPS[target])
        records = self.kb.get_reactions([m.reaction_id for m in made])
        ids = []
        for match in made:
            reaction = records.get(match.reaction_id)
            if reaction is None:
                continue
            reactants = reaction_record(reaction).get("reactants") or []
            # a reactant of the class converted that is not yet of the class made (salicylic
            # acid acetylated to aspirin makes no carboxylic acid from an ester)
            if any(
                (mol := Chem.MolFromSmiles(p.get("smiles") or "")) is not None
                and mol.HasSubstructMatch(source_group)
                and not mol.HasSubstructMatch(target_group)
                for p in reactants
            ):
                ids.append(match.reaction_id)
        return ids

    def _ranked(
        self, query: QueryTuple, targets: list[_Target], k: int, allowed: set[str] | None = None
    ) -> list[Evidence]:
        if not any(t.compound_weights for t in targets):
            if allowed is not None:
                return []
            return self._reactions_of_similar(query, targets, k) if targets else []
        # reaction id -> per-target best (score, role found); each row is updated in place (a
        # copy per link made this quadratic in the number of question compounds)
        coverage: dict[str, list[tuple[float, Role | None]]] = {}
        links_of: dict[tuple[int, ...], list] = {}  # the same compound named twice is read once
        for index, target in enumerate(targets):
            if not target.compound_weights:
                continue
            key = tuple(target.compound_weights)
            if key not in links_of:
                links = self.kb.reaction_links(target.compound_weights)
                links_of[key] = links[: MAX_LINKS_PER_COMPOUND * 4]
            for link in links_of[key]:
                if allowed is not None and link.reaction_id not in allowed:
                    continue
                weight = target.compound_weights[link.compound_id]
                wanted = target.mention.role
                if (
                    weight == PARENT_WEIGHT
                    and link.role in _AGENT_ROLES
                    and wanted not in (Role.REACTANT, Role.PRODUCT)
                    and target.mention.resolved_by != "fuzzy"  # a corrected name is no salt named
                ):
                    # "EDC·HCl" for a record's EDC: a reagent's salt form is the same reagent
                    # to a chemist; a reactant's or product's salt is another compound
                    weight = 1.0
                if not role_accepts(wanted, link.role):
                    weight *= WRONG_ROLE_WEIGHT
                row = coverage.get(link.reaction_id)
                if row is None:
                    row = coverage[link.reaction_id] = [(0.0, None)] * len(targets)
                if weight > row[index][0]:
                    row[index] = (weight, link.role)
        if not coverage:
            return [] if allowed is not None else self._reactions_of_similar(query, targets, k)
        scored = []
        core_of: dict[str, int] = {}
        for reaction_id, row in coverage.items():
            total = sum(score for score, _ in row) / len(targets)
            exact = sum(1 for score, _ in row if score >= 1.0)
            # of two records that hold as many question compounds, the one that holds those the
            # question has react or form: "benzaldehyde with NaBH4 in methanol" is the reduction
            # of benzaldehyde (in ethanol), not that of acetophenone (in methanol)
            core_of[reaction_id] = sum(
                1
                for target, (score, _) in zip(targets, row)
                if score > 0 and target.mention.role in (Role.REACTANT, Role.PRODUCT)
            )
            scored.append((total, exact, reaction_id))
        scored.sort(key=lambda t: (-t[0], -t[1], -core_of[t[2]], t[2]))
        # "how many reactions use THF?": the answer lists k records and says how many hold
        # every compound asked, in the roles asked
        held_by = sum(1 for _, exact, _ in scored if exact == len(targets))
        shortlist = scored[: max(k * 20, 50)]
        reactions = self.kb.get_reactions([rid for _, _, rid in shortlist])
        records = {rid: reaction_record(r) for rid, r in reactions.items()}
        has_field = _ASPECT_FIELD.get(query.aspect)  # type: ignore[arg-type]
        curated_first = lambda rid: 0 if reactions[rid].dataset == "starter" else 1  # noqa: E731
        shortlist.sort(
            key=lambda t: (
                -t[0],
                -t[1],
                0 if has_field is None or has_field(records[t[2]]) else 1,
                -core_of[t[2]],
                curated_first(t[2]),
                t[2],
            )
        )
        out = []
        for total, exact, reaction_id in shortlist[:k]:
            row = coverage[reaction_id]
            found = [
                f"{t.mention.text} as {role.value}"
                for t, (score, role) in zip(targets, row)
                if role is not None
            ]
            missing = [
                t.mention.text + ("" if t.mention.resolved else " (not resolved to a structure)")
                for t, (score, _) in zip(targets, row)
                if score == 0
            ]
            held = sum(1 for s, _ in row if s > 0)
            if (
                query.aspect == Aspect.PRODUCT
                and exact == len(targets)
                and _agent_stands_for_a_reactant(reactions[reaction_id], targets, row)
            ):
                # "what does H2SO4 give?", "benzaldehyde treated with piperidine": a record
                # where a compound asked is only an agent, beside a reactant the question does
                # not name, tells what that other reactant gives, not what was asked
                exact = 0
            why = "has " + ", ".join(found) + f" ({held} of {len(targets)} question compounds"
            # a misspelt name read as the one it was corrected to ("1-bromonapthalene"): the
            # only reason such a record is not an exact match, said as such
            corrected = [
                t.mention
                for t, (score, role) in zip(targets, row)
                if 0 < score < 1
                and t.mention.resolved_by == "fuzzy"
                and role_accepts(t.mention.role, role)
            ]
            only_corrected = bool(corrected) and exact + len(corrected) == len(targets)
            if exact == len(targets):
                why += ", in the roles asked)"
            elif only_corrected:
                why += (
                    ", in the roles asked, reading "
                    + ", ".join(
                        f"{m.text!r} as {m.correction or m.matched_name}" for m in corrected
                    )
                    + ")"
                )
            elif held == len(targets):
                why += ", not all in the roles asked or as the same structure)"
            else:
                why += ")"
            if missing:
                why += "; lacks " + ", ".join(missing)
            out.append(
                Evidence(
                    kind="reaction",
                    id=reaction_id,
                    score=round(total, 4),
                    match="exact" if exact == len(targets) else "similar",
                    record=records[reaction_id],
                    retriever=self.name,
                    why=why,
                    provenance={
                        "source": reactions[reaction_id].source,
                        "dataset": reactions[reaction_id].dataset,
                        **({"only_corrected_names": True} if only_corrected else {}),
                        **(
                            {"exact_matches_in_kb": held_by}
                            if query.aspect == Aspect.REACTIONS and exact == len(targets)
                            else {}
                        ),
                    },
                )
            )
        return out

    def _reactions_of_similar(
        self, query: QueryTuple, targets: list[_Target], k: int
    ) -> list[Evidence]:
        """No reaction has the question's compounds: reactions of structurally similar ones."""
        out: list[Evidence] = []
        similar: dict[tuple, list[Evidence]] = {}  # the same compound named twice is compared once
        for target in targets:
            key = (target.mention.smiles, target.mention.compound_id, target.mention.text)
            if key not in similar:
                similar[key] = self._similar_compounds(target.mention, 3)
            for evidence in similar[key]:
                if evidence.score < SIMILAR_REACTION_FLOOR:
                    continue  # a loosely similar compound's reactions are unrelated chemistry
                compound_id = int(evidence.id)
                for link in self.kb.reaction_links([compound_id])[:k]:
                    if not role_accepts(target.mention.role, link.role):
                        continue
                    reaction = self.kb.get_reaction(link.reaction_id)
                    out.append(
                        Evidence(
                            kind="reaction",
                            id=reaction.id,
                            score=round(evidence.score * 0.5, 4),
                            match="similar",
                            record=reaction_record(reaction),
                            retriever=self.name,
                            why=f"no reaction has {target.mention.text!r}; this one has "
                            f"{evidence.record['name']!r} ({evidence.why}) as {link.role.value}",
                        )
                    )
        out.sort(key=lambda e: -e.score)
        seen, unique = set(), []
        for e in out:
            if e.id not in seen:
                seen.add(e.id)
                unique.append(e)
        return unique[:k]


def _agent_stands_for_a_reactant(reaction, targets: list[_Target], row: list) -> bool:
    """Whether a question compound found only as an agent may stand for a reactant the question
    does not name: no compound asked is a reactant, or one is an agent while the record has a
    reactant the question never named."""
    found_roles = [role for score, role in row if score > 0]
    if not any(role == Role.REACTANT for role in found_roles):
        return True
    if not any(role in (Role.REAGENT, Role.CATALYST) for role in found_roles):
        return False
    asked = {cid for t in targets for cid in t.compound_weights}
    return any(
        p.role == Role.REACTANT and p.compound_id is not None and p.compound_id not in asked
        for p in reaction.participants
    )
