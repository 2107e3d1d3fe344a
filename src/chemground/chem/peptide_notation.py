"""Protected amino acids and short peptides as chemists write them: "Boc-Gly-NHBn",
"Cbz-Ala-OMe", "Fmoc-Phe-OH", "Ac-Gly-Gly-OEt".

No library reads this notation (OPSIN reads names, RDKit reads SMILES and one-letter sequences
without protecting groups), and the dictionary holds only a few such compounds, so a question
naming one lost it without a word. The reading is the textbook one: an N-terminal group, L-amino
acid residues by their three-letter codes (N to C), and a C-terminal group. Anything else gives
None: a notation that is not read is never guessed, and ``looks_like_peptide_shorthand`` lets
the mention finder name such a word as unresolved ("Fmoc-Lys(Boc)-OH") rather than drop it.
"""

from __future__ import annotations

import re

# the N-terminal groups, written to bond to the first residue's nitrogen
_N_TERMINAL = {
    "Boc": "CC(C)(C)OC(=O)",
    "Cbz": "c1ccccc1COC(=O)",
    "Z": "c1ccccc1COC(=O)",
    "Fmoc": "c1ccc2c(c1)-c1ccccc1C2COC(=O)",
    "Ac": "CC(=O)",
    "Bz": "c1ccccc1C(=O)",
    "Ts": "Cc1ccc(cc1)S(=O)(=O)",
    "H": "",
}
# L-amino acid residues, N to C, each ending in its carbonyl carbon
_RESIDUES = {
    "Gly": "NCC(=O)",
    "Ala": "N[C@@H](C)C(=O)",
    "Val": "N[C@@H](C(C)C)C(=O)",
    "Leu": "N[C@@H](CC(C)C)C(=O)",
    "Ile": "N[C@@H]([C@@H](C)CC)C(=O)",
    "Phe": "N[C@@H](Cc9ccccc9)C(=O)",
    "Pro": "N9CCC[C@H]9C(=O)",
    "Ser": "N[C@@H](CO)C(=O)",
    "Thr": "N[C@@H]([C@@H](C)O)C(=O)",
    "Tyr": "N[C@@H](Cc9ccc(O)cc9)C(=O)",
    "Trp": "N[C@@H](Cc9c[nH]c8ccccc98)C(=O)",
    "Met": "N[C@@H](CCSC)C(=O)",
    "Cys": "N[C@@H](CS)C(=O)",
    "Asp": "N[C@@H](CC(=O)O)C(=O)",
    "Glu": "N[C@@H](CCC(=O)O)C(=O)",
    "Asn": "N[C@@H](CC(N)=O)C(=O)",
    "Gln": "N[C@@H](CCC(N)=O)C(=O)",
    "Lys": "N[C@@H](CCCCN)C(=O)",
    "Arg": "N[C@@H](CCCNC(=N)N)C(=O)",
    "His": "N[C@@H](Cc9c[nH]cn9)C(=O)",
}
# the C-terminal groups, bonded to the last residue's carbonyl carbon
_C_TERMINAL = {
    "OH": "O",
    "OMe": "OC",
    "OEt": "OCC",
    "OtBu": "OC(C)(C)C",
    "OBn": "OCc1ccccc1",
    "NH2": "N",
    "NHMe": "NC",
    "NHBn": "NCc1ccccc1",
}
# the acids a salt is written with after its base ("H-Phe-OMe·HCl", "NH2OH.HCl"), as SMILES
SALT_ACIDS = {"HCl": "Cl", "HBr": "Br", "HI": "I", "TFA": "OC(=O)C(F)(F)F"}
_SALT = re.compile(r"[.·•](HCl|TFA|HBr)$")
_NOTATION = re.compile(
    r"(?:(?P<n>" + "|".join(_N_TERMINAL) + r")-)?"
    r"(?P<residues>(?:" + "|".join(_RESIDUES) + r")(?:-(?:" + "|".join(_RESIDUES) + r"))*)"
    r"-(?P<c>" + "|".join(_C_TERMINAL) + r")"
)


def peptide_to_smiles(text: str) -> str | None:
    """The SMILES of a protected amino acid or short peptide in three-letter notation.

    Args:
        text: the notation as written ("Boc-Gly-NHBn", "Cbz-Ala-Phe-OMe").

    Returns:
        A canonical SMILES (L residues), or None when ``text`` is not such a notation.
    """
    from rdkit import Chem

    text, salt = _SALT.sub("", text.strip()), _SALT.search(text.strip())
    match = _NOTATION.fullmatch(text)
    if match is None or (match.group("n") is None and len(match.group("residues")) == 3):
        return None  # "Gly-OH" alone is glycine as a name would say; a bare code is no notation
    residues = match.group("residues").split("-")
    smiles = _N_TERMINAL[match.group("n") or "H"]
    smiles += "".join(_RESIDUES[code] for code in residues) + _C_TERMINAL[match.group("c")]
    if salt is not None:  # "H-Phe-OMe·HCl": the salt isolated after a Boc removal
        smiles += "." + SALT_ACIDS[salt.group(1)]
    mol = Chem.MolFromSmiles(smiles)
    return Chem.MolToSmiles(mol) if mol is not None else None


# Peptide chemists' shorthand in general: "Boc-Phe-OMe", "Fmoc-Lys(Boc)-OH", "H-Pro-OtBu",
# "Cbz-Ala", "Boc-Gly-NHBn" (three-letter codes, side-chain protection in brackets, any group
# at either end): more than ``peptide_to_smiles`` reads
_AMINO_ACID_CODES = (
    "Ala|Arg|Asn|Asp|Cys|Gln|Glu|Gly|His|Ile|Leu|Lys|Met|Phe|Pro|Ser|Thr|Trp|Tyr|Val|Sar|Aib|Orn"
)
_SHORTHAND = re.compile(
    rf"^(?:[A-Z][A-Za-z]{{0,4}}-)?(?:{_AMINO_ACID_CODES})(?:\([A-Za-z]+\))?"
    rf"(?:-(?:{_AMINO_ACID_CODES})(?:\([A-Za-z]+\))?)*(?:-(?:O[A-Za-z]{{1,3}}|OH|NH2|NH[A-Z][a-z]?))?$"
)


def looks_like_peptide_shorthand(word: str) -> bool:
    """Whether ``word`` is written in peptide shorthand, read or not.

    Args:
        word: one word of a question.

    Returns:
        True for three-letter amino-acid codes joined by hyphens, with protecting groups.
    """
    return bool(_SHORTHAND.match(word))
