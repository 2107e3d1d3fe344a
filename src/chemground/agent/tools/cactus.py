"""Drug-likeness and medicinal-chemistry tools on one molecule (the ``cactus/*`` family).

Descriptors come from RDKit: Crippen logP, TPSA, QED, exact mass, the PAINS and Brenk
filter catalogues, and the Ertl-Schuffenhauer synthetic accessibility score from RDKit's
Contrib. Absorption (GI) and brain penetration (BBB) follow the BOILED-Egg model of
Daina & Zoete (2016): a point (TPSA, logP) inside the "white" ellipse predicts high
gastrointestinal absorption, inside the "yolk" blood-brain-barrier permeation. Return
conventions (strings "Yes"/"No", "High"/"Low", the Lipinski violation list) are those of
the benchmark's calling chains.
"""

from __future__ import annotations

import math
from functools import lru_cache

from chemground.agent.registry import P, tool
from chemground.agent.tools._common import mol

SMILES = P(
    "compound_SMILES",
    "string",
    "The molecule as a SMILES string.",
    examples=["CC(=O)OC1=CC=CC=C1C(=O)O", "CCO"],
)

# BOILED-Egg ellipses in (TPSA, logP) space: centre, full width, full height, angle (degrees).
HIA_ELLIPSE = ((71.051, 2.292), 142.081, 8.740, -1.031325)
BBB_ELLIPSE = ((38.117, 3.177), 82.061, 5.557, -0.171887)


def inside_ellipse(x: float, y: float, ellipse: tuple) -> bool:
    (cx, cy), width, height, angle = ellipse
    theta = math.radians(angle)
    dx, dy = x - cx, y - cy
    u = dx * math.cos(theta) + dy * math.sin(theta)
    v = -dx * math.sin(theta) + dy * math.cos(theta)
    return (u / (width / 2)) ** 2 + (v / (height / 2)) ** 2 <= 1.0


def _logp_tpsa(smiles: str) -> tuple[float, float]:
    from rdkit.Chem import Crippen, rdMolDescriptors

    m = mol(smiles)
    return Crippen.MolLogP(m), rdMolDescriptors.CalcTPSA(m)


@tool(
    "cactus/CalculateMolWt",
    "Molecular weight of a molecule from its SMILES, computed as the monoisotopic (exact) mass "
    "from the most abundant isotopes.",
    [SMILES],
    ("number", "monoisotopic molecular mass", "Da (g/mol)"),
    tags=["descriptor", "mass"],
)
def calculate_mol_wt(compound_SMILES: str) -> float:
    from rdkit.Chem import Descriptors

    return Descriptors.ExactMolWt(mol(compound_SMILES))


@tool(
    "cactus/CalculateLogP",
    "Octanol-water partition coefficient logP (Wildman-Crippen method) of a molecule: a measure of "
    "lipophilicity / hydrophobicity.",
    [SMILES],
    ("number", "Crippen logP (dimensionless)"),
    tags=["descriptor", "lipophilicity"],
)
def calculate_logp(compound_SMILES: str) -> float:
    from rdkit.Chem import Crippen

    return Crippen.MolLogP(mol(compound_SMILES))


@tool(
    "cactus/CalculateTPSA",
    "Topological polar surface area (TPSA) of a molecule, the summed surface of polar atoms (N, "
    "O); "
    "used to predict membrane permeability and oral absorption.",
    [SMILES],
    ("number", "topological polar surface area", "Å²"),
    tags=["descriptor", "polarity"],
)
def calculate_tpsa(compound_SMILES: str) -> float:
    from rdkit.Chem import rdMolDescriptors

    return rdMolDescriptors.CalcTPSA(mol(compound_SMILES))


@tool(
    "cactus/CalculateQED",
    "Quantitative Estimate of Drug-likeness (QED, Bickerton 2012) of a molecule: a 0-1 "
    "desirability "
    "score combining molecular weight, logP, H-bond donors/acceptors, polar surface area, "
    "rotatable bonds, "
    "aromatic rings and structural alerts; higher is more drug-like.",
    [SMILES],
    ("number", "QED score between 0 and 1"),
    tags=["druglikeness"],
)
def calculate_qed(compound_SMILES: str) -> float:
    from rdkit.Chem import QED

    return QED.qed(mol(compound_SMILES))


@lru_cache(maxsize=1)
def _sa_fragment_scores() -> dict[int, float]:
    """The SA-score fragment contributions shipped with RDKit's Contrib (fpscores.pkl.gz).

    The file is RDKit's own data, a list of lists of numbers in pickle format. It is read
    with an unpickler that refuses every class and function, so only numbers and lists can
    come out of it and no code can run.
    """
    import gzip
    import os
    import pickle

    from rdkit import RDConfig

    class _NumbersOnly(pickle.Unpickler):
        def find_class(self, module: str, name: str):
            raise pickle.UnpicklingError(
                f"refusing to load {module}.{name}: only numbers and lists are allowed"
            )

    path = os.path.join(RDConfig.RDContribDir, "SA_Score", "fpscores.pkl.gz")
    with gzip.open(path, "rb") as handle:
        data = _NumbersOnly(handle).load()
    scores: dict[int, float] = {}
    for row in data:
        for fragment in row[1:]:
            scores[int(fragment)] = float(row[0])
    return scores


@tool(
    "cactus/CalculateSA",
    "Synthetic accessibility score (Ertl & Schuffenhauer 2009) of a molecule, from 1 (easy to "
    "make) to "
    "10 (very hard to make), based on fragment frequencies and molecular complexity.",
    [SMILES],
    ("number", "SA score from 1 (easy) to 10 (hard)"),
    tags=["synthesis"],
)
def calculate_sa(compound_SMILES: str) -> float:
    import sys

    from rdkit import RDConfig

    contrib = f"{RDConfig.RDContribDir}/SA_Score"
    if contrib not in sys.path:
        sys.path.append(contrib)
    import sascorer  # RDKit Contrib

    sascorer._fscores = _sa_fragment_scores()
    return float(sascorer.calculateScore(mol(compound_SMILES)))


@tool(
    "cactus/CalculateDruglikeness",
    "Check a molecule against Lipinski's Rule of Five (H-bond donors <= 5, H-bond acceptors <= 10, "
    "molecular mass <= 500 Da, logP <= 5) and list the violated rules.",
    [SMILES],
    ("string or array", "'No violations found', or a list of violations such as 'LOGP 5.24>5'"),
    tags=["druglikeness", "Lipinski"],
)
def calculate_druglikeness(compound_SMILES: str) -> str | list[str]:
    from rdkit.Chem import Crippen, Descriptors, Lipinski

    m = mol(compound_SMILES)
    violations = []
    donors = Lipinski.NumHDonors(m)
    if donors > 5:
        violations.append(f"H Bond Donors {donors}>5")
    acceptors = Lipinski.NumHAcceptors(m)
    if acceptors > 10:
        violations.append(f"H Bond Acceptors {acceptors}>10")
    weight = Descriptors.ExactMolWt(m)
    if weight > 500:
        violations.append(f"Molecular Weight {weight}>500")
    logp = Crippen.MolLogP(m)
    if logp > 5:
        violations.append(f"LOGP {logp}>5")
    return violations or "No violations found"


@tool(
    "cactus/CalculateGIAbsorption",
    "Predict gastrointestinal (GI) absorption of a molecule with the BOILED-Egg model (TPSA vs "
    "logP): "
    "'High' when the molecule falls inside the human intestinal absorption ellipse, else 'Low'.",
    [SMILES],
    ("string", "'High' or 'Low'"),
    tags=["ADME", "absorption"],
)
def calculate_gi_absorption(compound_SMILES: str) -> str:
    logp, tpsa = _logp_tpsa(compound_SMILES)
    return "High" if inside_ellipse(tpsa, logp, HIA_ELLIPSE) else "Low"


@tool(
    "cactus/CalculateBBBPermeant",
    "Predict whether a molecule permeates the blood-brain barrier (BBB) with the BOILED-Egg model "
    "(TPSA vs logP 'yolk' ellipse).",
    [SMILES],
    ("string", "'Yes' if predicted BBB permeant, else 'No'"),
    tags=["ADME", "brain"],
)
def calculate_bbb_permeant(compound_SMILES: str) -> str:
    logp, tpsa = _logp_tpsa(compound_SMILES)
    return "Yes" if inside_ellipse(tpsa, logp, BBB_ELLIPSE) else "No"


@lru_cache(maxsize=2)
def _catalog(name: str):
    from rdkit.Chem import FilterCatalog

    params = FilterCatalog.FilterCatalogParams()
    params.AddCatalog(getattr(FilterCatalog.FilterCatalogParams.FilterCatalogs, name))
    return FilterCatalog.FilterCatalog(params)


@tool(
    "cactus/PainsFilter",
    "Check whether a molecule matches a PAINS (pan-assay interference compounds, Baell & Holloway "
    "2010) "
    "substructure alert, i.e. is likely to give false positives in screening assays.",
    [SMILES],
    ("boolean", "true if a PAINS alert matches"),
    tags=["medicinal chemistry", "filter"],
)
def pains_filter(compound_SMILES: str) -> bool:
    return bool(_catalog("PAINS").HasMatch(mol(compound_SMILES)))


@tool(
    "cactus/BrenkFilter",
    "Check whether a molecule matches a Brenk (2008) structural alert: fragments that are "
    "putatively "
    "toxic, chemically reactive, metabolically unstable or bad for pharmacokinetics.",
    [SMILES],
    ("boolean", "true if a Brenk alert matches"),
    tags=["medicinal chemistry", "filter", "toxicity"],
)
def brenk_filter(compound_SMILES: str) -> bool:
    return bool(_catalog("BRENK").HasMatch(mol(compound_SMILES)))
