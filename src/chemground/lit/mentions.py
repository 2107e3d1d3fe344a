"""Finding compounds named in free text, so a question and a passage meet by structure.

A SMILES in a question and an IUPAC or common name in a paper only match once both are
turned into an InChIKey. The finder scans word n-grams (longest first) for names the
compound dictionary knows, and tokens that parse as SMILES. It is deliberately simple and
conservative: English words that happen to be compound synonyms ("lead", "water" is kept)
are filtered, and short all-lowercase words are ignored; systematic names the dictionary
lacks can be sent to OPSIN through the :class:`NameResolver` (at question time).

Name look-ups go through a :class:`NameIndex`: an in-memory set for bulk ingestion, or one
SQL query per text for questions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from chemground.chem.names import NameResolver, guess_name_format, normalize_name
from chemground.chem.structure import (
    Structure,
    looks_like_smiles,
    rdkit_messages,
    structure_from_smiles,
)
from chemground.errors import ChemgroundError, StructureError
from chemground.kb.store import KnowledgeBase

MAX_WORDS = 5
_TOKEN = re.compile(r"\S+")
_EDGE_PUNCT = ".,;:!?\"'“”‘’"
_ALNUM = re.compile(r"[A-Za-z0-9]")
_SMILES_SYNTAX = re.compile(r"[=#@\[\]()/\\%]|\d")
# Function words never start or end a name ("the", "of"...).
FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "how",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "may",
        "might",
        "more",
        "most",
        "much",
        "must",
        "no",
        "nor",
        "not",
        "of",
        "on",
        "once",
        "one",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "two",
        "under",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "why",
        "will",
        "with",
        "would",
        "yet",
        "you",
        "all",
        "also",
        "any",
        "both",
        "each",
        "few",
        "however",
        "here",
        "just",
        "many",
        "never",
        "new",
        "now",
        "off",
        "per",
        "since",
        "still",
        "three",
        "thus",
        "well",
        "whether",
        "via",
        "using",
        "used",
        "between",
        "among",
        "within",
        "without",
        "versus",
        "vs",
    ]
)
# Plain or generic words that PubChem lists as some compound's name or synonym; alone, in
# running text, they almost never mean that one compound.
PLAIN_WORDS = frozenset(
    [
        "lead",
        "lime",
        "potash",
        "soda",
        "salt",
        "salts",
        "acid",
        "acids",
        "base",
        "bases",
        "oil",
        "oils",
        "product",
        "products",
        "control",
        "light",
        "heat",
        "fire",
        "air",
        "gas",
        "gases",
        "mixture",
        "mixtures",
        "solution",
        "solutions",
        "compound",
        "compounds",
        "material",
        "materials",
        "sample",
        "samples",
        "standard",
        "standards",
        "active",
        "agent",
        "agents",
        "blank",
        "buffer",
        "carrier",
        "catalyst",
        "catalysts",
        "complex",
        "complexes",
        "crystal",
        "crystals",
        "dust",
        "element",
        "elements",
        "fuel",
        "glass",
        "gold",
        "silver",
        "copper",
        "iron",
        "tin",
        "zinc",
        "mercury",
        "ice",
        "iodine",
        "carbon",
        "oxygen",
        "nitrogen",
        "hydrogen",
        "sulfur",
        "chlorine",
        "steam",
        "vapor",
        "vapour",
        "wax",
        "resin",
        "rubber",
        "soap",
        "sugar",
        "sugars",
        "starch",
        "protein",
        "proteins",
        "enzyme",
        "enzymes",
        "dye",
        "dyes",
        "ink",
        "paint",
        "plastic",
        "plastics",
        "polymer",
        "polymers",
        "monomer",
        "monomers",
        "metal",
        "metals",
        "alloy",
        "alloys",
        "ore",
        "ores",
        "mineral",
        "minerals",
        "rock",
        "rocks",
        "sand",
        "clay",
        "cement",
        "concrete",
        "charcoal",
        "coal",
        "coke",
        "tar",
        "pitch",
        "sol",
        "gel",
        "foam",
        "paste",
        "powder",
        "liquid",
        "liquids",
        "solid",
        "solids",
        "fluid",
        "fluids",
        "vitamin",
        "hormone",
        "hormones",
        "drug",
        "drugs",
        "medicine",
        "toxin",
        "toxins",
        "venom",
        "poison",
        "antidote",
        "solvent",
        "solvents",
        "reagent",
        "reagents",
        "ligand",
        "ligands",
        "ion",
        "ions",
        "cation",
        "cations",
        "anion",
        "anions",
        "radical",
        "radicals",
        "oxide",
        "oxides",
        "hydride",
        "hydrides",
        "halide",
        "halides",
        "ester",
        "esters",
        "ether",
        "ethers",
        "alcohol",
        "alcohols",
        "amine",
        "amines",
        "amide",
        "amides",
        "ketone",
        "ketones",
        "aldehyde",
        "aldehydes",
        "phenols",
        "alkene",
        "alkenes",
        "alkane",
        "alkanes",
        "alkyne",
        "alkynes",
        "arene",
        "arenes",
        "ethyl",
        "methyl",
        "propyl",
        "butyl",
        "phenyl",
        "benzyl",
        "acetyl",
        "hydroxyl",
        "amino",
        "nitro",
        "cyano",
        "oxo",
        "formyl",
        "carboxyl",
        "carbonyl",
        "vinyl",
        "allyl",
        "aryl",
        "alkyl",
        "plant",
        "plants",
        "cell",
        "cells",
        "table",
        "figure",
        "scheme",
        "equation",
        "model",
        "models",
        "unit",
        "units",
        "type",
        "types",
        "form",
        "forms",
        "state",
        "states",
        "phase",
        "phases",
        "film",
        "films",
        "layer",
        "layers",
        "surface",
        "surfaces",
        "bond",
        "bonds",
        "ring",
        "rings",
        "chain",
        "chains",
        "group",
        "groups",
        "line",
        "lines",
        "zone",
        "accelerate",
        "alleviate",
        "metabolite",
        "metabolites",
        "green",
        "yellow",
        "magenta",
        "blue",
        "red",
        "orange",
        "cyan",
        "violet",
        "purple",
        "black",
        "white",
        "brown",
        "pink",
        "gray",
        "grey",
        "dark",
        "bright",
    ]
)
# Words that never make a name together ("light yellow", "blue line", "control sample").
NON_NAME_WORDS = frozenset(
    [
        "green",
        "yellow",
        "magenta",
        "blue",
        "red",
        "orange",
        "cyan",
        "violet",
        "purple",
        "black",
        "white",
        "brown",
        "pink",
        "gray",
        "grey",
        "dark",
        "bright",
        "light",
        "line",
        "lines",
        "zone",
        "control",
        "standard",
        "sample",
        "samples",
        "model",
        "models",
        "figure",
        "table",
        "scheme",
        "panel",
        "curve",
        "band",
        "peak",
    ]
)
# Kept although they are plain words: each names one well-defined compound.
KEEP_WORDS = frozenset(
    {
        "water",
        "ethanol",
        "methanol",
        "acetone",
        "benzene",
        "toluene",
        "urea",
        "glucose",
        "sucrose",
        "ammonia",
        "ozone",
        "methane",
        "ethane",
        "propane",
        "butane",
        "caffeine",
        "aspirin",
        "glycerol",
        "chloroform",
        "phenol",
    }
)
CHEMICAL_WORD = re.compile(
    r"(?:ane|ene|yne|ol|one|anal|enal|ide|ate|ite|ine|ium|amine|amide|ose|yl|ile|azole|azine|ether|ester|"
    r"acid|oxide|ane|ol|mer)$"
)
_ELEMENT_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*)")
_FORMULA_LIKE = re.compile(r"^(?:[A-Z][a-z]?\d*){1,12}(?:\d*[+\-−])?$")
_SYSTEMATIC_MARKS = re.compile(r"[\d,()\[\]]|^[a-z]{1,3}-")


@dataclass(frozen=True)
class Mention:
    """A compound named in a text, with where and how it was recognised."""

    text: str
    start: int
    end: int
    inchikey: str
    compound_id: int | None
    source: str  # dictionary | smiles | opsin
    name: str | None = None  # the dictionary's name for it, when known

    @property
    def connectivity(self) -> str:
        """InChIKey skeleton (first block): same compound up to stereo, isotopes, charge."""
        return self.inchikey[:14]


class NameIndex(Protocol):
    def known(self, norms: Iterable[str]) -> set[str]: ...


class MemoryNameIndex:
    """All normalised dictionary names in a Python set: fast membership for bulk ingestion."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.names = kb.all_name_norms()

    def known(self, norms: Iterable[str]) -> set[str]:
        return {n for n in norms if n in self.names}


class SQLNameIndex:
    """One indexed look-up per batch of candidates: right for a question or a few texts."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb

    def known(self, norms: Iterable[str]) -> set[str]:
        return set(self.kb.name_ranks(n for n in norms if n))


@dataclass
class _Token:
    text: str
    start: int
    end: int


def _matching_paren(token: str) -> int:
    depth = 0
    for index, char in enumerate(token):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return index
    return -1


def _tokens(text: str) -> list[_Token]:
    out = []
    for match in _TOKEN.finditer(text):
        token, start, end = match.group(0), match.start(), match.end()
        while token and token[-1] in _EDGE_PUNCT:
            token, end = token[:-1], end - 1
        while token and token[0] in _EDGE_PUNCT:
            token, start = token[1:], start + 1
        # unbalanced brackets at the edges belong to the sentence, not the name
        for opening, closing in ("()", "[]"):
            while token.endswith(closing) and token.count(closing) > token.count(opening):
                token, end = token[:-1], end - 1
            while token.startswith(opening) and token.count(opening) > token.count(closing):
                token, start = token[1:], start + 1
        while token and token[-1] in _EDGE_PUNCT:
            token, end = token[:-1], end - 1
        if (
            len(token) > 2
            and token[0] == "("
            and token[-1] == ")"
            and _matching_paren(token) == len(token) - 1
        ):
            token, start, end = token[1:-1], start + 1, end - 1  # "(THF)" -> "THF"
        if token:
            out.append(_Token(token, start, end))
    return out


class MentionFinder:
    """Compound mentions in text, each resolved to an InChIKey."""

    def __init__(
        self,
        kb: KnowledgeBase,
        names: NameIndex | None = None,
        resolver: NameResolver | None = None,
        max_words: int = MAX_WORDS,
        strict_smiles: bool = True,
    ) -> None:
        self.kb = kb
        self.names = names or SQLNameIndex(kb)
        self.resolver = resolver  # with OPSIN: systematic names the dictionary lacks
        self.max_words = max_words
        self.strict_smiles = strict_smiles
        self._hits: dict[str, list[tuple[Structure, int, str, int]]] = {}
        self._smiles: dict[str, Structure | None] = {}

    # -- public ---------------------------------------------------------------------------
    def find(self, text: str) -> list[Mention]:
        tokens = _tokens(text)
        candidates: list[tuple[int, int, str]] = []  # (first token, n words, norm)
        for i in range(len(tokens)):
            for n in range(min(self.max_words, len(tokens) - i), 0, -1):
                span = text[tokens[i].start : tokens[i + n - 1].end]
                if n > 1 and re.search(r"[.;:!?]\s", span):
                    continue  # names do not run across sentences or clauses
                if not (_ALNUM.search(tokens[i].text) and _ALNUM.search(tokens[i + n - 1].text)):
                    continue  # "=", "%" or "(" alone do not start or end a name
                candidates.append((i, n, normalize_name(span)))
        known = self.names.known(c[2] for c in candidates if len(c[2]) >= 2)
        by_start: dict[int, list[tuple[int, str]]] = {}
        for i, n, norm in candidates:
            if norm in known:
                by_start.setdefault(i, []).append((n, norm))
        mentions: list[Mention] = []
        i = 0
        while i < len(tokens):
            taken = 0
            for n, norm in sorted(by_start.get(i, []), reverse=True):
                mention = self._dictionary_mention(text, tokens[i : i + n], norm)
                if mention is not None:
                    mentions.append(mention)
                    taken = n
                    break
            if not taken:
                mention = self._structure_mention(tokens[i])
                if mention is not None:
                    mentions.append(mention)
                taken = 1
            i += taken
        return mentions

    def find_many(self, texts: Iterable[str]) -> list[list[Mention]]:
        return [self.find(text) for text in texts]

    # -- names ----------------------------------------------------------------------------
    def _dictionary_mention(self, text: str, tokens: list[_Token], norm: str) -> Mention | None:
        """A mention if the dictionary name at ``tokens`` is plausibly a compound here.

        PubChem synonym lists hold brand names and stray words ("optimal", "challenge",
        "DFT"), so a match must earn its place: formula-like tokens must have the
        compound's formula ("CO2" is carbon dioxide, not Co2+); other single words need a
        curated, IUPAC or common name, or a chemical ending; abbreviations a curated or
        common name.
        """
        surface = text[tokens[0].start : tokens[-1].end]
        words = [t.text.lower() for t in tokens]
        if len(tokens) > 1 and (
            words[0] in FUNCTION_WORDS
            or words[-1] in FUNCTION_WORDS
            or all(w in NON_NAME_WORDS or w in FUNCTION_WORDS for w in words)
        ):
            return None
        hits = self._lookup(norm)
        if not hits:
            return None
        formula = formula_counts(re.sub(r"\s+", "", surface))
        if formula is not None:
            for structure, compound_id, name, _ in hits:
                if formula_counts(structure.formula, strict=False) == formula:
                    return Mention(
                        surface,
                        tokens[0].start,
                        tokens[-1].end,
                        structure.inchikey,
                        compound_id,
                        "dictionary",
                        name,
                    )
            return None
        structure, compound_id, name, _ = hits[0]
        best_rank = min(h[3] for h in hits)
        if not self._plausible_name(surface, words, norm, best_rank):
            return None
        return Mention(
            surface,
            tokens[0].start,
            tokens[-1].end,
            structure.inchikey,
            compound_id,
            "dictionary",
            name,
        )

    @staticmethod
    def _plausible_name(surface: str, words: list[str], norm: str, rank: int) -> bool:
        if rank < 0:
            return True  # curated abbreviations (THF, DMSO, MeCN...)
        if len(norm) < 3:
            return False
        if len(words) > 1:
            return rank <= 1 or bool(CHEMICAL_WORD.search(words[-1]))
        token = surface
        lower = words[0]
        if lower in KEEP_WORDS:
            return True
        if lower in FUNCTION_WORDS or lower in PLAIN_WORDS or token.isdigit():
            return False
        if _SYSTEMATIC_MARKS.search(token) and re.search(r"[a-z]{3}", token):
            return True  # "2-butanol", "n-hexane", "N,N-dimethylformamide": names, not words
        if any(c.isupper() for c in token[1:]):
            return rank <= 1  # abbreviations: "HEPES" (a common name) yes, "DFT" (a synonym) no
        chemical = bool(CHEMICAL_WORD.search(lower))
        if rank <= 1:
            return chemical or len(lower) >= 12
        return chemical and len(lower) >= 7

    def _lookup(self, norm: str) -> list[tuple[Structure, int, str, int]]:
        """(structure, compound id, name, name rank) of the compounds known by ``norm``, best
        first."""
        if norm not in self._hits:
            self._hits[norm] = [
                (h.structure, h.compound_id, h.matched_name, h.name_rank)
                for h in self.kb.lookup_name(norm)
                if h.structure is not None
            ]
        return self._hits[norm]

    # -- SMILES and systematic names --------------------------------------------------------
    def _structure_mention(self, token: _Token) -> Mention | None:
        text = token.text
        if (
            len(text) >= 3
            and looks_like_smiles(text)
            and (not self.strict_smiles or self._smiles_like(text))
        ):
            structure = self._parse_smiles(text)
            if structure is not None:
                hits = self.kb.lookup_structure(structure)
                compound_id = hits[0].compound_id if hits else None
                name = hits[0].matched_name if hits else None
                return Mention(
                    text, token.start, token.end, structure.inchikey, compound_id, "smiles", name
                )
        if (
            self.resolver is not None
            and self.resolver.opsin is not None
            and len(text) >= 6
            and guess_name_format(text) == "iupac"
            and re.search(r"[a-z]{3}", text)
        ):
            try:
                resolution = self.resolver.resolve_name(text)
            except ChemgroundError:
                return None  # not a name OPSIN can parse: an ordinary word
            if resolution.structure is not None:
                return Mention(
                    text,
                    token.start,
                    token.end,
                    resolution.structure.inchikey,
                    resolution.compound_id,
                    resolution.source,
                    resolution.matched_name,
                )
        return None

    @staticmethod
    def _smiles_like(text: str) -> bool:
        """In running text, a SMILES must show SMILES syntax (bonds, rings, branches, charges);
        bare capitals such as "CO", "NO" or "CCl" are abbreviations far more often."""
        return bool(_SMILES_SYNTAX.search(text)) and not re.fullmatch(
            r"[A-Z][a-z]?\d*(?:[A-Z][a-z]?\d*)*", text
        )

    def _parse_smiles(self, text: str) -> Structure | None:
        if text not in self._smiles:
            try:
                with rdkit_messages():
                    self._smiles[text] = structure_from_smiles(text)
            except StructureError:
                self._smiles[text] = None
        return self._smiles[text]


_NOT_ELEMENTS = {"D", "T"}  # deuterium/tritium symbols are abbreviations more often ("DFT")
_CHARGE = re.compile(r"(?:\d*[+\-]+|[+\-]\d+)$")


def _element_symbols() -> frozenset[str]:
    from rdkit.Chem import GetPeriodicTable

    table = GetPeriodicTable()
    return frozenset(table.GetElementSymbol(n) for n in range(1, 119))


_ELEMENTS: frozenset[str] | None = None


def formula_counts(text: str, strict: bool = True) -> dict[str, int] | None:
    """Element counts of a formula-like token ("CO2", "NH3", "Zn2+"), or None if it is not one.

    With ``strict`` (tokens from text) every symbol must be a real element (not D or T) and a
    lone symbol needs a count or a charge ("C" and "I" are letters); without it (a stored
    formula such as "H3N" or "C6H6FNO2S") any formula parses, charges and hydrates ignored.
    """
    global _ELEMENTS
    if _ELEMENTS is None:
        _ELEMENTS = _element_symbols()
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
        if symbol not in _ELEMENTS or (strict and symbol in _NOT_ELEMENTS):
            return None
        counts[symbol] = counts.get(symbol, 0) + (int(count) if count else 1)
        position = match.end()
    if position != len(body) or not counts:
        return None
    if strict and len(counts) < 2 and sum(counts.values()) < 2 and not charged:
        return None
    return counts
