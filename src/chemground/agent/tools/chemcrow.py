"""Safety, identity and structure tools in the style of ChemCrow (the ``chemcrow/*`` family).

Similarity is Tanimoto on Morgan fingerprints (radius 2, 2048 bits). The controlled-chemical
checks compare against our own compilation of the CWC schedules and the Australia Group list
of chemical-weapons precursors (``agent/data/controlled_chemicals.tsv``, see
``agent/data/README.md``). Look-ups that ChemCrow made online (CAS numbers, GHS explosive
classification, SureChEMBL patents) are answered from the offline compound dictionary where it
can; beyond it, CAS numbers, structures and GHS classifications come from PubChem
(``chemground.pubchem``) when the user allows the network (``CHEMGROUND_ALLOW_NETWORK=1``),
and otherwise the call fails with a ``ToolOffline`` error saying what is missing.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

from chemground.agent.registry import P, ToolContext, tool
from chemground.agent.tools._common import mol
from chemground.errors import ChemgroundError

SMILES = P(
    "compound_SMILES", "string", "The molecule as a SMILES string.", examples=["CCO", "OCCSCCO"]
)
MULTIPLE = "Multiple SMILES strings detected, input one molecule at a time."


CONTROLLED_COLUMNS = ("cas", "lists", "name", "smiles")


@lru_cache(maxsize=1)
def controlled_chemicals() -> list[dict[str, str]]:
    """Rows of ``data/controlled_chemicals.tsv`` (our compilation of the CWC schedules and the
    Australia Group
    list) as dicts with keys cas, lists, name, smiles (and ``source``, the same as lists); a
    malformed row
    raises ValueError naming its line."""
    resource = "data/controlled_chemicals.tsv"
    text = resources.files("chemground.agent").joinpath(resource).read_text(encoding="utf-8")
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = [field.strip() for field in line.split("\t")]
        if len(fields) != len(CONTROLLED_COLUMNS) or not all(fields):
            raise ValueError(
                f"{resource} line {number}: expected {len(CONTROLLED_COLUMNS)} non-empty "
                f"tab-separated fields ({', '.join(CONTROLLED_COLUMNS)}), got {len(fields)}"
            )
        row = dict(zip(CONTROLLED_COLUMNS, fields))
        row["source"] = row["lists"]
        rows.append(row)
    return rows


@lru_cache(maxsize=1)
def _controlled_fingerprints() -> list:
    from chemground.chem.fingerprints import morgan_fingerprint

    out = []
    for row in controlled_chemicals():
        try:
            out.append(morgan_fingerprint(row["smiles"]))
        except ChemgroundError:
            out.append(None)  # a list entry RDKit cannot parse scores 0, as in ChemCrow
    return out


@lru_cache(maxsize=1)
def _controlled_keys() -> set[str]:
    from chemground.chem.structure import structure_from_smiles

    keys = set()
    for row in controlled_chemicals():
        try:
            keys.add(structure_from_smiles(row["smiles"]).inchikey)
        except ChemgroundError:
            keys.add(row["smiles"])
    return keys


def _is_smiles(text: str) -> bool:
    from rdkit import Chem

    from chemground.chem.structure import check_smiles, rdkit_messages
    from chemground.errors import ChemgroundError

    try:
        check_smiles(text)  # the size limits every structure path keeps
    except ChemgroundError:
        return False
    with rdkit_messages():
        return Chem.MolFromSmiles(text, sanitize=False) is not None


def max_controlled_similarity(smiles: str) -> float:
    from rdkit import DataStructs

    from chemground.chem.fingerprints import morgan_fingerprint

    fp = morgan_fingerprint(mol(smiles))
    return max(
        (
            DataStructs.TanimotoSimilarity(fp, other)
            for other in _controlled_fingerprints()
            if other is not None
        ),
        default=0.0,
    )


def similarity_message(smiles: str) -> str:
    similarity = max_controlled_similarity(smiles)
    if similarity > 0.35:
        return f"{smiles} has a high similarity ({similarity:.4}) to a known controlled chemical."
    return (
        f"{smiles} has a low similarity ({similarity:.4}) to a known controlled chemical. "
        "This is substance is safe, you may proceed with the task."
    )


@tool(
    "chemcrow/SimilarControlChemCheck",
    "Maximum Tanimoto similarity of a molecule to a list of controlled chemicals (chemical-weapon "
    "precursors "
    "under export control); above 0.35 the molecule is flagged as highly similar.",
    [SMILES],
    ("string", "a sentence with the maximum similarity and whether it is high (> 0.35) or low"),
    tags=["safety", "controlled chemicals", "similarity"],
)
def similar_control_chem_check(compound_SMILES: str) -> str:
    return similarity_message(compound_SMILES.strip())


def _cas_to_smiles(ctx: ToolContext, cas: str) -> str | None:
    try:
        resolution = ctx.workspace.resolver.resolve(cas)
    except ChemgroundError:
        return None
    return resolution.structure.smiles if resolution.structure else None


@tool(
    "chemcrow/ControlChemCheck",
    "Check whether a molecule (SMILES or CAS number) is a controlled chemical: on a list of "
    "chemical-weapon "
    "precursors under export control, or highly similar to one.",
    [
        P(
            "compound_SMILES",
            "string",
            "The molecule as SMILES, or its CAS number.",
            examples=["O=P(Cl)(Cl)Cl", "10025-87-3"],
        )
    ],
    (
        "string",
        "a sentence saying it appears on the list, or its maximum similarity to listed chemicals",
    ),
    needs_kb=True,
    tags=["safety", "controlled chemicals"],
)
def control_chem_check(ctx: ToolContext, compound_SMILES: str) -> str:
    from chemground.agent.tools._common import offline_error
    from chemground.chem.names import is_cas_number
    from chemground.chem.structure import structure_from_smiles
    from chemground.pubchem import PubChem, network_allowed

    query = compound_SMILES.strip()
    if not is_cas_number(query) and _is_smiles(query):
        try:
            key = structure_from_smiles(query).inchikey
        except ChemgroundError:
            key = None
        if key in _controlled_keys() or any(
            row["smiles"] == query for row in controlled_chemicals()
        ):
            return f"The molecule {query} appears in a list of controlled chemicals."
        if "." in query:
            raise ChemgroundError(MULTIPLE)
        return similarity_message(query)
    if any(row["cas"].strip("()") == query for row in controlled_chemicals()):
        return f"The molecule {query} appears in a list of controlled chemicals."
    if not is_cas_number(query):
        raise ChemgroundError(f"{query!r} is neither a SMILES string nor a CAS number")
    smiles = _cas_to_smiles(ctx, query)
    if smiles is None:
        if not network_allowed(ctx.settings):
            raise offline_error(
                "chemcrow/ControlChemCheck",
                f"CAS {query} is not on the list and not in the offline "
                "compound dictionary, so its structure (needed for the similarity check) needs an "
                "online PubChem look-up",
            )
        with PubChem.from_settings(ctx.settings) as pubchem:
            cid = pubchem.cids(query, "cas")[0]
            smiles = pubchem.properties(cid)["SMILES"]
        if not smiles:
            raise ChemgroundError(f"PubChem has no structure (SMILES) for CAS {query} (CID {cid})")
    return similarity_message(smiles)


@tool(
    "chemcrow/MolSimilarity",
    "Tanimoto similarity of two molecules (Morgan fingerprints, radius 2, 2048 bits) with a verbal "
    "rating "
    "(very similar >= 0.9, similar >= 0.8, somewhat similar >= 0.7, not very similar >= 0.6, else "
    "not similar).",
    [
        P("compound_SMILES_1", "string", "First molecule as SMILES.", examples=["CCO"]),
        P("compound_SMILES_2", "string", "Second molecule as SMILES.", examples=["CCCO"]),
    ],
    ("string", "sentence with the similarity (4 decimals) and its rating"),
    tags=["similarity", "fingerprint"],
)
def mol_similarity(compound_SMILES_1: str, compound_SMILES_2: str) -> str:
    from chemground.chem.fingerprints import tanimoto

    a, b = compound_SMILES_1.strip(), compound_SMILES_2.strip()
    similarity = tanimoto(mol(a), mol(b))
    ratings = {
        0.9: "very similar",
        0.8: "similar",
        0.7: "somewhat similar",
        0.6: "not very similar",
        0: "not similar",
    }
    rating = ratings[max(key for key in ratings if key <= round(similarity, 1))]
    return (
        f"The Tanimoto similarity between {a} and {b} is {round(similarity, 4)}, "
        f"indicating that the two molecules are {rating}."
    )


@tool(
    "chemcrow/SMILES2Weight",
    "Molecular weight of a molecule from its SMILES, as the monoisotopic (exact) mass.",
    [SMILES],
    ("number", "monoisotopic mass", "Da (g/mol)"),
    tags=["mass", "descriptor"],
)
def smiles_to_weight(compound_SMILES: str) -> float:
    from rdkit.Chem import rdMolDescriptors

    return rdMolDescriptors.CalcExactMolWt(mol(compound_SMILES))


# name -> SMARTS, in the order they are reported. ChemCrow's list (RDKit's FunctionalGroups.txt
# plus common groups), with the patterns that named the wrong thing corrected: its "alcohol groups"
# ([OH]) and "side-chain hydroxyls" matched the OH of every carboxylic acid, its "terminal aldehyde"
# matched any acetyl group and its "primary amines" any primary amide, so aspirin was reported
# to hold an alcohol and an aldehyde. Phenols, ethers, alkenes and secondary and tertiary amines
# are added because chemists ask for them.
FUNCTIONAL_GROUPS = {
    "furan": "o1cccc1",
    "aldehydes": "[CX3H1](=O)[#6]",
    "esters": "[#6][CX3](=O)[OX2H0][#6]",
    "ketones": "[#6][CX3](=O)[#6]",
    "amides": "[#6X3](=O)[#7X3]",
    "thiol groups": "[SX2H]",
    "alcohol groups": "[OX2H][CX4]",
    "phenols": "[OX2H]c",
    "ethers": "[OD2;!$(O[#6]=[O,S,N])]([#6;!$([#6]=[O,S,N])])[#6;!$([#6]=[O,S,N])]",
    "alkenes": "[CX3;!$(C=[!#6])]=[CX3;!$(C=[!#6])]",
    "methylamide": "*-[N;D2]-[C;D3](=O)-[C;D1;H3]",
    "carboxylic acids": "[CX3](=O)[OX2H1,OX1-]",
    "carbonyl methylester": "*-C(=O)[O;D2]-[C;D1;H3]",
    "terminal aldehyde": "*-[CX3;H1]=[O;D1]",
    "amide": "*-C(=O)-[N;D1]",
    "carbonyl methyl": "*-C(=O)-[C;D1;H3]",
    "isocyanate": "*-[N;D2]=[C;D2]=[O;D1]",
    "isothiocyanate": "*-[N;D2]=[C;D2]=[S;D1]",
    "nitro": "[N+](=O)[O-]",
    "nitroso": "*-[N;R0;X2]=[O;D1]",
    "oximes": "[CX3]=[NX2;R0]-[OX2H1]",
    "Imines": "*-[N;R0]=[C;D1;H2]",
    "terminal azo": "*-[N;D2]=[N;D2]-[C;D1;H3]",
    "hydrazines": "[NX3][NX3]",
    "diazo": "*-[N;D2]#[N;D1]",
    "cyano": "*-[C;D2]#[N;D1]",
    "primary sulfonamide": "*-[S;D4](=[O;D1])(=[O;D1])-[N;D1]",
    "methyl sulfonamide": "*-[N;D2]-[S;D4](=[O;D1])(=[O;D1])-[C;D1;H3]",
    "sulfonic acid": "*-[S;D4](=O)(=O)-[O;D1]",
    "methyl ester sulfonyl": "*-[S;D4](=O)(=O)-[O;D2]-[C;D1;H3]",
    "methyl sulfonyl": "*-[S;D4](=O)(=O)-[C;D1;H3]",
    "sulfonyl chloride": "*-[S;D4](=O)(=O)-[Cl]",
    "methyl sulfinyl": "*-[S;D3](=O)-[C;D1]",
    "methyl thio": "*-[S;D2]-[C;D1;H3]",
    "thio carbonyls": "*=[S;D1]",
    "halogens": "*-[#9,#17,#35,#53]",
    "t-butyl": "*-[C;D4]([C;D1])([C;D1])-[C;D1]",
    "tri fluoromethyl": "*-[C;D4](F)(F)F",
    "acetylenes": "*-[C;D2]#[C;D1;H]",
    "cyclopropyl": "*-[C;D3]1-[C;D2]-[C;D2]1",
    "ethoxy": "*-[O;D2]-[C;D2]-[C;D1;H3]",
    "methoxy": "*-[O;D2]-[C;D1;H3]",
    "primary amines": "[NX3;H2;!$(N[#6,#16]=[O,S,N]);!$(N[#7,#8])][#6]",
    "secondary amines": "[NX3;H1;!$(N[#6,#16]=[O,S,N]);!$(N[#7,#8]);!$(Na)]([#6])[#6]",
    "tertiary amines": "[NX3;H0;!$(N[#6,#16]=[O,S,N]);!$(N[#7,#8]);!$(N~[!#6])]([#6])([#6])[#6]",
    "nitriles": "*#[N;D1]",
}


@lru_cache(maxsize=1)
def _group_patterns() -> list[tuple[str, object]]:
    from rdkit import Chem

    return [(name, Chem.MolFromSmarts(smarts)) for name, smarts in FUNCTIONAL_GROUPS.items()]


@tool(
    "chemcrow/FuncGroups",
    "Identify the functional groups of a molecule (esters, ketones, amides, alcohols, carboxylic "
    "acids, amines, "
    "nitro, nitriles, halogens, ethers such as methoxy, and more) by substructure matching.",
    [SMILES],
    ("string", "sentence listing the functional groups found"),
    tags=["functional groups", "structure"],
)
def func_groups(compound_SMILES: str) -> str:
    m = mol(compound_SMILES)
    found = [name for name, pattern in _group_patterns() if m.HasSubstructMatch(pattern)]
    if not found:
        return "This molecule contains none of the listed functional groups."
    if len(found) == 1:
        return f"This molecule contains {found[0]}."
    return f"This molecule contains {', '.join(found[:-1])}, and {found[-1]}."


@tool(
    "chemcrow/Query2CAS",
    "CAS registry number of a molecule given as SMILES or name; also warns when the molecule is, "
    "or closely "
    "resembles, a controlled chemical.",
    [
        P(
            "compound_SMILES",
            "string",
            "The molecule as SMILES (or a name).",
            examples=["CCO", "caffeine"],
        )
    ],
    ("string", "CAS number such as '64-17-5' (with a warning appended for controlled chemicals)"),
    needs_network=True,
    needs_kb=True,
    offline_note="answers from the offline compound dictionary (~76k PubChem compounds with CAS "
    "numbers); other "
    "compounds are looked up online in PubChem when CHEMGROUND_ALLOW_NETWORK=1, otherwise reported "
    "as "
    "not available offline",
    tags=["identifier", "CAS"],
)
def query_to_cas(ctx: ToolContext, compound_SMILES: str) -> str:
    from chemground.agent.tools._common import offline_error
    from chemground.chem.names import is_cas_number
    from chemground.pubchem import PubChem, network_allowed

    query = compound_SMILES.strip()
    if _is_smiles(query) and "." in query:
        raise ChemgroundError(MULTIPLE)
    try:
        resolution = ctx.workspace.resolver.resolve(query)
    except ChemgroundError as error:
        if not network_allowed(ctx.settings):
            raise offline_error(
                "chemcrow/Query2CAS",
                f"{query!r} is not in the offline compound dictionary "
                f"({error}); its CAS number needs an online PubChem look-up",
            ) from None
        resolution = None
    cas = None
    if resolution is not None and resolution.compound_id is not None:
        cas = ctx.workspace.kb.get_compound(resolution.compound_id, with_reactions=0).cas
    smiles = (
        resolution.structure.smiles if resolution is not None and resolution.structure else None
    )
    if not cas:
        if not network_allowed(ctx.settings):
            raise offline_error(
                "chemcrow/Query2CAS",
                f"the offline compound dictionary has no CAS number for "
                f"{query!r}; that needs an online PubChem look-up",
            )
        if smiles:
            identifier, kind = smiles, "smiles"
        else:
            identifier, kind = (
                query,
                ("cas" if is_cas_number(query) else "smiles" if _is_smiles(query) else "name"),
            )
        with PubChem.from_settings(ctx.settings) as pubchem:
            cid = pubchem.cids(identifier, kind)[0]
            numbers = pubchem.cas_numbers(cid)
            if not numbers:
                raise ChemgroundError(f"PubChem lists no CAS number for {query!r} (CID {cid})")
            cas = numbers[0]
            smiles = smiles or pubchem.properties(cid)["SMILES"]
    message = control_chem_check(ctx, smiles or query)
    if "high similarity" in message or "appears" in message:
        return f"CAS number {cas}found, but " + message
    return cas


# GHS hazard statements of explosives: H200-H205 (unstable explosive, divisions 1.1-1.5), EUH001
# "Explosive when dry"
EXPLOSIVE_CODE = re.compile(r"\bH20[0-5]\b")
EXPLOSIVE_TEXT = re.compile(r"\bExplosive\b")


def is_explosive(statements: list[str]) -> bool:
    """Whether GHS hazard statements classify a chemical as explosive (code H200-H205, or the word
    'Explosive')."""
    return any(EXPLOSIVE_CODE.search(s) or EXPLOSIVE_TEXT.search(s) for s in statements)


@tool(
    "chemcrow/ExplosiveCheck",
    "Check whether a chemical (by CAS number) is explosive according to its GHS hazard "
    "classification.",
    [P("compound_CAS", "string", "CAS registry number.", examples=["118-96-7"])],
    ("string", "'Molecule is explosive' or 'Molecule is not known to be explosive'"),
    needs_network=True,
    offline_note="needs PubChem's GHS classification, which is online only: with "
    "CHEMGROUND_ALLOW_NETWORK=1 it "
    "asks PubChem, otherwise it says it cannot answer offline",
    tags=["safety", "explosive", "GHS"],
)
def explosive_check(ctx: ToolContext, compound_CAS: str) -> str:
    from chemground.agent.tools._common import offline_error
    from chemground.chem.names import is_cas_number
    from chemground.pubchem import PubChem, network_allowed

    query = compound_CAS.strip()
    if not is_cas_number(query):
        raise ChemgroundError(f"please give a CAS number (like 118-96-7), got {query!r}")
    if not network_allowed(ctx.settings):
        raise offline_error(
            "chemcrow/ExplosiveCheck",
            "the GHS hazard classification comes from PubChem, which is "
            "online only; no offline source of explosive classifications is available",
        )
    with PubChem.from_settings(ctx.settings) as pubchem:
        statements = pubchem.ghs_hazard_statements(pubchem.cids(query, "cas")[0])
    return (
        "Molecule is explosive"
        if is_explosive(statements)
        else "Molecule is not known to be explosive"
    )


@tool(
    "chemcrow/PatentCheck",
    "Check whether a molecule appears in patents (SureChEMBL), i.e. is 'Patented' or 'Novel'; "
    "several molecules "
    "may be given separated by '.'.",
    [SMILES],
    ("string", "mapping of each SMILES to 'Patented' or 'Novel'"),
    needs_network=True,
    offline_note="needs the SureChEMBL bloom filter of the molbloom package, downloaded once when "
    "the network is "
    "allowed; without it the tool says it cannot answer offline",
    tags=["patent", "novelty"],
)
def patent_check(ctx: ToolContext, compound_SMILES: str) -> str:
    from chemground.agent.runner import ToolOffline

    query = compound_SMILES.strip()
    for part in query.split("."):
        mol(part)
    try:
        import molbloom
    except ImportError:
        raise ToolOffline(
            "chemcrow/PatentCheck",
            "needs the molbloom package and its SureChEMBL patent filter; "
            "install molbloom (pip install molbloom) and allow the network once to download the "
            "filter",
        ) from None
    filter_file = Path.home() / ".cache" / "molbloom" / "surechembl.bloom"
    allow = bool(getattr(ctx.settings, "allow_network", False))
    if not filter_file.exists() and not allow:
        raise ToolOffline(
            "chemcrow/PatentCheck",
            f"the SureChEMBL patent filter is not downloaded ({filter_file}); "
            "set CHEMGROUND_ALLOW_NETWORK=1 once so molbloom can fetch it",
        )
    result = {
        part: (
            "Patented" if molbloom.buy(part, canonicalize=True, catalog="surechembl") else "Novel"
        )
        for part in query.split(".")
    }
    return str(result)
