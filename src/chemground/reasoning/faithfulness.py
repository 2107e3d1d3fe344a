"""Is an LLM answer faithful to its evidence? One deterministic check for every LLM path.

Every path that lets a model write the answer text (the table-RAG reasoners, literature answers,
Text2Cypher answers, the CoT agent and HE-MCTS) runs :func:`check_faithfulness` on the final
text before calling it ``answered``. Extractive (no-LLM) answers are not checked: they only
copy the evidence.

The check extracts the answer's *claims* and looks for each in the evidence:

- **numbers** with their unit and the words before them ("QED ... 0.985", "180.16 g/mol",
  "80 °C"): a number is supported when it is a number of the evidence records or tool results,
  allowing the rounding the answer shows (``0.55`` for ``0.5501``, ``180.16`` for
  ``180.159``), a small relative tolerance (0.5 %), the unit conversions the quantity allows
  (°C/K/°F, h/min/days, fraction/percent of a yield) and numbers computable from a structure in
  the evidence (molecular weight and exact mass of each SMILES there). Citation markers, numbers
  inside names, SMILES and formulas, numbers of the question and bare integers below 10 (list
  positions, counts written as digits) are not claims;
- **structures** (SMILES, InChI in the text): compared with the evidence's structures by
  InChIKey (or its skeleton block, ignoring stereo and isotopes);
- **names** of compounds found by the mention finder (``chem.mentions``, which resolves them
  through ``chem.names``): supported when the name is written in the evidence, or names a
  structure of the evidence (by InChIKey), or one the evidence text names. Typo-corrected
  (fuzzy) mentions are not claims (too uncertain to blame a model for); a name that looks
  chemical but nothing resolves is a claim that must be written in the evidence;
- **the typed value** a table-RAG reasoner read for the question's aspect (a number, SMILES,
  names, a formula), checked as before this module existed, with the aspect's own rules (a
  molecular weight must match a weight, not the exact mass beside it).

Each unsupported claim has a kind (:data:`KINDS`): ``number-not-in-evidence``,
``contradicts-evidence`` (the evidence gives another value for the same quantity: the words
before the number, or its unit, name a field or tool of the evidence),
``structure-not-in-evidence``, ``name-not-in-evidence``, ``formula-not-in-evidence``; and an
answer as a whole may be ``garbled`` (empty, no words), give ``no-value`` for the aspect asked,
or have ``no-evidence`` to stand on. Where the evidence determines a contradicted value (one
value for that quantity, e.g. a single tool result), the report carries the answer rewritten
from the evidence (``corrected_answer``); the answer keeps the status ``unsupported`` (the
status judges what the model wrote, and the benchmarks count it), and a note gives the
evidence's value.

It is deliberately simple: it catches made-up and contradicted values, it does not judge whether
a supported value answers the question.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chemground.chem.mentions import Mention, MentionFinder
from chemground.chem.names import subscript_digits
from chemground.chem.structure import Structure, looks_like_smiles, structure_from_smiles
from chemground.evidence import Evidence
from chemground.reasoning.query import Aspect, QueryTuple
from chemground.reasoning.values import NAMES, NUMERIC, STRUCTURES, split_names

KINDS = (
    "number-not-in-evidence",
    "contradicts-evidence",
    "structure-not-in-evidence",
    "name-not-in-evidence",
    "formula-not-in-evidence",
    "no-value",
    "garbled",
    "no-evidence",
    "unchecked",
)

MAX_CHECKED_ITEMS = 20
MAX_CHECKED_CHARS = 400
MAX_CLAIM_TEXT = 4000
MAX_EVIDENCE_SCAN_CHARS = 6000  # evidence text the mention finder reads for names (lazily)

_NUMBER = re.compile(r"(?<![A-Za-z\d])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_FORMULA = re.compile(r"(?:[A-Z][a-z]?\d*){2,}")
_NAME_KEYS = ("name", "synonym", "title")
_NO_NUMBER_KEYS = ("name", "synonym", "smiles", "inchi", "formula", "title", "url", "path", "doi")
_SKIPPED_NUMBER_KEYS = ("score", "rank", "cid", "elapsed_ms", "elapsed", "start", "end", "page")
_WORDED_ASPECTS = {Aspect.TEMPERATURE, Aspect.TIME, Aspect.YIELD}  # may be given in words
_DERIVED_FROM_QUESTION = {
    Aspect.MOLECULAR_WEIGHT,
    Aspect.EXACT_MASS,
    Aspect.FORMULA,
    Aspect.NAME_TO_SMILES,
    Aspect.SMILES_TO_NAME,
}


# -- the report
# ---------------------------------------------------------------------------------


@dataclass
class Claim:
    """One claim of an answer and what the evidence says about it.

    ``kind`` is what was claimed (number, structure, name, formula, value); ``problem`` is None
    when the claim is supported, else one of :data:`KINDS`. ``source`` names the evidence that
    supports or contradicts it; ``expected`` is the evidence's value for a contradicted number.
    """

    kind: str
    text: str
    supported: bool
    problem: str | None = None
    reason: str = ""
    unit: str | None = None
    label: str | None = None
    source: str | None = None
    expected: Any = None
    span: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "text": self.text,
            "supported": self.supported,
        }
        for key in ("problem", "reason", "unit", "label", "source", "expected"):
            value = getattr(self, key)
            if value not in (None, ""):
                data[key] = value
        return data


@dataclass
class FaithfulnessReport:
    """What was checked in one answer and which claims the evidence does not support.

    ``supported`` is False when any claim is unsupported or the answer as a whole has a
    ``problem`` (garbled, no value for the aspect, no evidence). ``reason`` is the first
    reason (the note an answer carries); ``checked`` says what kinds of claim were read.
    """

    supported: bool = True
    claims: list[Claim] = field(default_factory=list)
    problem: str | None = None
    reason: str = ""
    checked: str = "garbage only"
    garbled: bool = False
    corrected_answer: str | None = None

    @property
    def unsupported(self) -> list[Claim]:
        """The claims the evidence does not support."""
        return [c for c in self.claims if not c.supported]

    @property
    def kinds(self) -> list[str]:
        """The kinds of what is wrong, the answer's own problem first, once each."""
        found = ([self.problem] if self.problem else []) + [
            c.problem for c in self.unsupported if c.problem
        ]
        return list(dict.fromkeys(found))

    def notes(self) -> list[str]:
        """One ``unsupported: ...`` note per unsupported claim (or the answer's problem), with
        its kind, and one for the answer rewritten from the evidence, if any.

        Returns:
            The notes, for ``Answer.notes``.
        """
        if self.supported:
            return []
        notes = []
        if self.problem:
            notes.append(f"unsupported: {self.reason} [{self.problem}]")
        for claim in self.unsupported:
            notes.append(f"unsupported: {claim.reason} [{claim.problem}]")
        if self.corrected_answer:
            notes.append(f"the evidence says: {self.corrected_answer}")
        return list(dict.fromkeys(notes))

    def to_json(self) -> dict[str, Any]:
        return {
            "supported": self.supported,
            "checked": self.checked,
            "reason": self.reason,
            "garbled": self.garbled,
            "problem": self.problem,
            "kinds": self.kinds,
            "claims": [c.to_json() for c in self.claims],
            "corrected_answer": self.corrected_answer,
            "notes": self.notes(),
        }

    def _close(self) -> FaithfulnessReport:
        """Sets ``supported`` and ``reason`` from the claims; returns itself."""
        bad = self.unsupported
        self.supported = self.problem is None and not bad
        if not self.reason and bad:
            self.reason = bad[0].reason
        return self


def failed_check(error: Exception) -> FaithfulnessReport:
    """The report of a check that raised: unsupported, with kind ``unchecked``.

    Args:
        error: what the check raised.

    Returns:
        A report saying the answer could not be checked.
    """
    return FaithfulnessReport(
        supported=False,
        problem="unchecked",
        reason=f"the answer could not be checked against the evidence ({type(error).__name__})",
        checked="failed",
    )


# -- what the evidence says
# ---------------------------------------------------------------------


@dataclass
class _Fact:
    value: float
    key: str  # the record field it came from
    label: frozenset[str]  # words naming the quantity: the field path and the tool
    source: str  # the evidence id


class Facts:
    """What the evidence (and, for the compound aspects, the question's compound) says.

    Numbers with the field and tool they came from, structures (every SMILES of the records,
    the molecular weight and exact mass computed from each), names (name fields) and the text of
    the records (for names written anywhere in them).
    """

    def __init__(
        self,
        evidence: Sequence[Evidence],
        *,
        query: QueryTuple | None = None,
        use_question: bool = False,
        question: str = "",
        finder: MentionFinder | None = None,
    ) -> None:
        self.facts: list[_Fact] = []
        self.smiles: list[tuple[str, str]] = []  # (SMILES, evidence id)
        self.names: set[str] = set()
        self.formulas: list[str] = []
        self.question_numbers: list[float] = [
            float(m.replace(",", "")) for m in _NUMBER.findall(question or "")
        ]
        self.finder = finder
        texts: list[str] = []
        for e in evidence:
            tool = str(e.record.get("tool") or e.provenance.get("tool") or "")
            self._walk(e.record, (), texts, e.id, _words_of(tool))
            texts.append(e.why or "")
        if use_question and query is not None:
            for mention in query.resolved_mentions:
                smiles = getattr(mention, "smiles", None)
                if smiles:
                    self.smiles.append((smiles, "question"))
                for attr in ("text", "matched_name"):
                    value = getattr(mention, attr, None)
                    if isinstance(value, str) and value:
                        self.names.add(_norm(value))
        self.raw_text = " ".join(texts)
        self.text = _norm(self.raw_text)
        self.structures: list[tuple[Structure, str]] = []
        seen: set[str] = set()
        for smiles, source in self.smiles:
            for part in [smiles, *smiles.split(".")] if "." in smiles else [smiles]:
                if part in seen:
                    continue
                seen.add(part)
                structure = _structure(part)
                if structure is not None:
                    self.structures.append((structure, source))
        for structure, source in self.structures:
            self.facts.append(
                _Fact(structure.molecular_weight, "molecular_weight", _MW_LABEL, source)
            )
            self.facts.append(_Fact(structure.exact_mass, "exact_mass", _EXACT_LABEL, source))
            self.formulas.append(structure.formula)
        self.keys = {s.inchikey for s, _ in self.structures}
        self.skeletons = {s.connectivity_key for s, _ in self.structures}
        self.canonical = {s.smiles for s, _ in self.structures}
        self._text_keys: set[str] | None = None  # InChIKeys of compounds the evidence text names
        self.given_names: set[str] = set()  # the question's compounds (not claims of the model)
        self.given_keys: set[str] = set()

    @property
    def numbers(self) -> list[float]:
        return [f.value for f in self.facts]

    def _walk(
        self, value: Any, path: tuple[str, ...], texts: list[str], source: str, tool: frozenset
    ) -> None:
        k = path[-1].lower() if path else ""
        if isinstance(value, dict):
            for child_key, child in value.items():
                self._walk(child, (*path, str(child_key)), texts, source, tool)
        elif isinstance(value, (list, tuple)):
            for child in value[:200]:
                self._walk(child, path, texts, source, tool)
        elif isinstance(value, bool) or value is None:
            return
        elif isinstance(value, (int, float)):
            if not _skipped_number(k, path):
                self._add(float(value), k, path, source, tool)
        elif isinstance(value, str):
            text = value[:5000]
            texts.append(text)
            if "smiles" in k:
                for side in re.split(r">+", text):
                    if side.strip():
                        self.smiles.append((side.strip(), source))
                return
            if "formula" in k:
                self.formulas.append(text)
            if any(n in k for n in _NAME_KEYS):
                self.names.add(_norm(text))
            if not any(n in k for n in _NO_NUMBER_KEYS) and not _skipped_number(k, path):
                for m in _NUMBER.findall(text)[:200]:
                    self._add(float(m), k, path, source, tool)

    def _add(
        self, number: float, key: str, path: tuple[str, ...], source: str, tool: frozenset
    ) -> None:
        label = frozenset().union(*(_words_of(p) for p in path)) | tool
        self.facts.append(_Fact(number, key, label - _GENERIC_WORDS, source))

    # -- numbers
    def match_number(
        self, value: float, aspect: Aspect | None, decimals: int | None = None
    ) -> _Fact | None:
        """The evidence number ``value`` stands for, in a unit the aspect allows, or None.

        A molecular weight must match a weight (not the exact mass beside it, which a model
        confuses with it: 180.04 for aspirin's 180.16), an exact mass an exact mass; a fraction
        becomes a percentage only for a yield field (a 1.0 g amount is not a 100 % yield).

        Args:
            value: the number of the answer.
            aspect: the quantity it is (None: any).
            decimals: how many decimals the answer wrote (its rounding), if known.

        Returns:
            The matching fact, or None.
        """
        for fact in self.facts:
            if not _fits(fact, aspect):
                continue
            for candidate in _conversions(fact.value, aspect, fact.key):
                if abs(value - candidate) <= _tolerance(candidate, aspect, decimals):
                    return fact
        return None

    def has_number(self, value: float, aspect: Aspect | None) -> bool:
        """Whether ``value`` is a number of the evidence, in a unit the aspect allows
        (see :meth:`match_number`)."""
        return self.match_number(value, aspect) is not None

    def same_quantity(self, label: frozenset[str]) -> list[_Fact]:
        """The evidence numbers whose field or tool is named by ``label`` (the words before a
        number of the answer, or its unit)."""
        if not label:
            return []
        aspect = _unit_aspect(None, label)
        return [f for f in self.facts if f.label & label and _fits(f, aspect)]

    # -- structures and names
    def structure_source(self, smiles: str) -> str | None:
        """The evidence id holding ``smiles`` (by InChIKey, canonical SMILES or skeleton), or
        None."""
        structure = _structure(smiles)
        if structure is None:
            return None
        return self.structure_key_source(structure)

    def structure_key_source(self, structure: Structure) -> str | None:
        for known, source in self.structures:
            if (
                known.inchikey == structure.inchikey
                or known.smiles == structure.smiles
                or known.connectivity_key == structure.connectivity_key
            ):
                return source
        if (
            "." in structure.smiles
        ):  # a mixture or salt written as one SMILES: every part must be there
            parts = [self.structure_source(p) for p in structure.smiles.split(".")]
            return parts[0] if all(parts) else None
        return None

    def has_structure(self, smiles: str) -> bool:
        """Whether ``smiles`` is a structure of the evidence (see :meth:`structure_source`)."""
        return self.structure_source(smiles) is not None

    def mentions_name(self, text: str, reverse: bool = True) -> bool:
        """``text`` appears in the evidence, or (``reverse``) an evidence name appears in ``text``
        (an answer may wrap the name in a sentence)."""
        norm = _norm(text)
        if not norm:
            return False
        if norm in self.names or _contains(self.text, norm):
            return True
        return reverse and any(len(name) >= 3 and _contains(norm, name) for name in self.names)

    def text_names_structure(self, structure: Structure) -> bool:
        """Whether the evidence text names a compound with ``structure``'s skeleton (read once
        with the mention finder, first ``MAX_EVIDENCE_SCAN_CHARS`` characters)."""
        if self.finder is None:
            return False
        if self._text_keys is None:
            self._text_keys = set()
            for m in _find(self.finder, self.raw_text[:MAX_EVIDENCE_SCAN_CHARS]):
                if m.structure is not None and m.resolved_by != "fuzzy":
                    self._text_keys.add(m.structure.connectivity_key)
        return structure.connectivity_key in self._text_keys

    def has_formula(self, text: str) -> bool:
        wanted = [
            _formula_counts(f) for f in _FORMULA.findall(subscript_digits(text).replace(" ", ""))
        ]
        known = [_formula_counts(subscript_digits(f).replace(" ", "")) for f in self.formulas]
        return any(w and w in known for w in wanted)


def _fits(fact: _Fact, aspect: Aspect | None) -> bool:
    """Whether an evidence number can be the quantity ``aspect``: a molecular weight is not the
    exact mass beside it (a field or tool named exact or monoisotopic), nor the reverse."""
    key = fact.key
    if aspect == Aspect.MOLECULAR_WEIGHT:
        return not ("exact" in key or "monoisotopic" in key or "exact" in fact.label)
    if aspect == Aspect.EXACT_MASS:
        return not (
            "molecular_weight" in key
            or "molar" in key
            or ("weight" in fact.label and "exact" not in fact.label)
        )
    return True


def _skipped_number(key: str, path: tuple[str, ...]) -> bool:
    """Fields whose numbers are not facts: ids, scores, timings, offsets, and the arguments a
    model passed to a tool (the model's own numbers, not the tool's)."""
    return (
        key == "id"
        or key.endswith(("_id", "_start", "_end", "_offset"))
        or key in _SKIPPED_NUMBER_KEYS
        or "arguments" in (p.lower() for p in path)
    )


# -- words naming a quantity
# ----------------------------------------------------------------------

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# one word per quantity, so "molecular weight", "MW" and a MolWt tool meet
_ALIASES = {
    "mw": "weight",
    "molwt": "weight",
    "wt": "weight",
    "weight": "weight",
    "molar": "weight",
    "exactmolwt": "exact",
    "monoisotopic": "exact",
    "exact": "exact",
    "psa": "tpsa",
    "tpsa": "tpsa",
    "clogp": "logp",
    "logp": "logp",
    "mp": "melting",
    "bp": "boiling",
    "temp": "temperature",
    "temperature": "temperature",
    "yields": "yield",
    "hbd": "donors",
    "hba": "acceptors",
}
_GENERIC_WORDS = frozenset(
    """calculate calculated compute computed get result results value values tool cactus
    chemground chemcrow compound molecule smiles the of is a an for and approximately about around
    roughly its it this that was are be which with in to has have give gives given by from at on
    or as answer final number data record records mol molecular mass ok""".split()
)
_MW_LABEL = frozenset({"weight"})
_EXACT_LABEL = frozenset({"exact"})
_UNIT_LABELS = {
    "g/mol": _MW_LABEL,
    "g mol-1": _MW_LABEL,
    "g·mol−1": _MW_LABEL,
    "°c": frozenset({"temperature"}),
    "°f": frozenset({"temperature"}),
    "k": frozenset({"temperature"}),
    "h": frozenset({"time"}),
    "min": frozenset({"time"}),
    "%": frozenset({"yield"}),
}


def _words_of(text: str) -> frozenset[str]:
    """The words of a field path or tool name, split at case changes and separators,
    aliased (``CalculateMolWt`` -> calculate, weight; ``molecular_weight`` -> weight)."""
    words: set[str] = set()
    for part in re.split(r"[^A-Za-z0-9]+", text or ""):
        if not part:
            continue
        whole = part.lower()
        if whole in _ALIASES:
            words.add(_ALIASES[whole])
            continue
        pieces = [p.lower() for p in _CAMEL.findall(part)]
        joined = "".join(pieces[-2:]) if len(pieces) >= 2 else ""
        if joined in _ALIASES:  # "MolWt", "ExactMolWt"
            words.add(_ALIASES[joined])
            pieces = pieces[:-2]
        for piece in pieces:
            if not piece.isdigit():
                words.add(_ALIASES.get(piece, piece))
    return frozenset(words)


# -- claims of the answer text
# --------------------------------------------------------------------


_CITATION = re.compile(
    r"\[(?:E\d+|doc[-_][^\]\s]*|[\w:/.-]*#[\w-]*|\d+(?:\s*[,;-]\s*\d+)*|"
    r"(?:compound|reaction|chunk|graph_row|graph_path|tool_result|computed)\s[^\]]*)\]"
)
_CLAIM_NUMBER = re.compile(
    r"(?<![\w.,\-/#^])(?P<sign>[-−])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s*(?:[x×]\s*10\^?|[eE])(?P<exp>[-+−]?\d+))?"
)
_UNIT = re.compile(
    r"\s?(?P<unit>°\s?[CF]\b|K\b|%|g\s?/\s?mol\b|g\s?mol-1|g·mol−1|kDa\b|Da\b|amu\b|"
    r"hours?\b|hrs?\b|h\b|minutes?\b|mins?\b|seconds?\b|s\b|days?\b|mg\b|g\b|kg\b|mL\b|ml\b|"
    r"L\b|mmol\b|mol\b|mM\b|M\b|equiv\.?|eq\.?|bar\b|atm\b|psi\b|kPa\b|MPa\b|Pa\b|ppm\b|nm\b|"
    r"Å²|Å\b|kcal/mol\b|kJ/mol\b|g/mL\b|g/cm3|g/cm³)"
)
_RANGE = re.compile(r"(?<=\d)\s*[-–~]\s*(?=\d)")
_CLAUSE_END = re.compile(r"[.;!?\n](?:\s|$)")  # not ":", which introduces a value
_STOP_LABEL = frozenset(
    "is are was were be of the a an approximately about around roughly nearly close to its it "
    "this that which with in at on for and or value equals equal".split()
)


@dataclass
class _NumberClaim:
    value: float
    text: str
    decimals: int
    unit: str | None
    label: frozenset[str]
    span: tuple[int, int]


def _mask(text: str, spans: Sequence[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        for i in range(max(0, start), min(len(chars), end)):
            chars[i] = " "
    return "".join(chars)


def number_claims(text: str, masked: Sequence[tuple[int, int]] = ()) -> list[_NumberClaim]:
    """The numbers ``text`` claims, with their unit and the words before them.

    Citation markers and the ``masked`` spans (names, SMILES and formulas found in the text)
    are blanked first; numbers glued to letters or hyphens ("C9H8O4", "4-bromo", "E1") and
    bare integers below 10 without a unit are not claims.

    Args:
        text: the answer text.
        masked: character spans that are not read for numbers.

    Returns:
        The number claims, in order.
    """
    text = text[:MAX_CLAIM_TEXT]
    spans = [m.span() for m in _CITATION.finditer(text)] + list(masked)
    spans += [m.span() for m in _FORMULA.finditer(text) if re.search(r"\d", m.group())]
    clean = _mask(text, spans)
    clean = _RANGE.sub(lambda m: " " * len(m.group()), clean)  # "80-90 °C": two numbers
    out: list[_NumberClaim] = []
    for m in _CLAIM_NUMBER.finditer(clean):
        after = clean[m.end() : m.end() + 12]
        if re.match(r"-[A-Za-z(]|,\d|\.\d|[A-Za-z]", after) and not _UNIT.match(after):
            continue  # part of a name or an identifier ("2H-pyran", "1,4-", "3a")
        number = m.group("num").replace(",", "")
        value = float(number)
        if m.group("exp"):
            value *= 10 ** int(m.group("exp").replace("−", "-"))
        if m.group("sign"):
            value = -value
        unit_match = _UNIT.match(after)
        unit = unit_match.group("unit").replace(" ", "") if unit_match else None
        decimals = len(number.split(".", 1)[1]) if "." in number else 0
        if decimals == 0 and unit is None and not m.group("exp") and abs(value) < 10:
            continue
        start = m.start()
        clause_start = 0
        for end in _CLAUSE_END.finditer(clean, 0, start):
            clause_start = end.end()
        before = clean[clause_start:start]
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", before)][-6:]
        label = frozenset().union(*(_words_of(w) for w in words)) if words else frozenset()
        label = label - _STOP_LABEL - _GENERIC_WORDS
        if unit:
            label = label | _UNIT_LABELS.get(unit.lower(), frozenset())
        out.append(
            _NumberClaim(value, m.group().strip(), decimals, unit, label, (m.start(), m.end()))
        )
    return out[: MAX_CHECKED_ITEMS * 2]


def _unit_aspect(unit: str | None, label: frozenset[str]) -> Aspect | None:
    """The quantity a unit (and the words before it) says a number is, for conversions."""
    if unit is None or unit.lower() in ("da", "amu"):  # Da: a weight or an exact mass
        if "exact" in label:
            return Aspect.EXACT_MASS
        if "weight" in label:
            return Aspect.MOLECULAR_WEIGHT
        if unit is not None:
            return None
        if "temperature" in label:
            return Aspect.TEMPERATURE
        return Aspect.YIELD if "yield" in label else None
    u = unit.lower()
    if u in ("°c", "°f", "k"):
        return Aspect.TEMPERATURE
    if u.rstrip("s") in ("h", "hr", "hour", "min", "minute", "second", "day") or u in ("s", "d"):
        return Aspect.TIME
    if u == "%":
        return Aspect.YIELD if "yield" in label or not label - {"yield"} else None
    if u in ("g/mol", "gmol-1", "g·mol−1"):
        return Aspect.EXACT_MASS if "exact" in label else Aspect.MOLECULAR_WEIGHT
    return None


# -- the check
# ---------------------------------------------------------------------------------


def check_faithfulness(
    answer: str,
    evidence: Sequence[Evidence],
    *,
    question: str = "",
    query: QueryTuple | None = None,
    value: Any = None,
    finder: MentionFinder | None = None,
    require_evidence: bool = True,
) -> FaithfulnessReport:
    """Check an LLM answer's claims against its evidence.

    Args:
        answer: the final answer text (what the user reads).
        evidence: what the answer must stand on: records, passages, rows, tool results.
        question: the question; its numbers and compounds are given, not claims.
        query: the parsed question; with it, ``value`` is checked with its aspect's rules, and
            for the compound aspects (weight, mass, formula, SMILES <-> name) the question's
            resolved compound counts as evidence (the value follows from it).
        value: the typed value read from the answer for ``query.aspect`` (None: none).
        finder: the mention finder for names and SMILES in the text (None: numbers, formulas
            and the typed value only).
        require_evidence: an answer with no evidence at all is unsupported (``no-evidence``);
            False for paths where no evidence means nothing to contradict (an agent that called
            no tool).

    Returns:
        The report: every claim with whether it is supported, and the kinds of what is wrong.
    """
    text = (answer or "").strip()
    question = question or (query.question if query is not None else "")
    report = FaithfulnessReport()
    if not re.search(r"[^\W_]", text):
        report.problem, report.garbled = "garbled", True
        report.reason = "the model's answer is empty or has no words or numbers"
        return report._close()
    aspect = query.aspect if query is not None else None
    use_question = aspect in _DERIVED_FROM_QUESTION
    has_given = use_question and query is not None and bool(query.resolved_mentions)
    if not evidence and not has_given:
        if require_evidence:
            report.problem, report.checked = "no-evidence", "nothing to check against"
            report.reason = "no evidence was retrieved, so the answer rests on the model alone"
        else:
            report.checked = "nothing (no evidence)"
        return report._close()
    facts = Facts(
        evidence, query=query, use_question=use_question, question=question, finder=finder
    )
    _given(facts, question, query, finder)
    checked: list[str] = []
    covered: list[tuple[int, int]] = []  # spans of the text the typed value already accounts for
    if query is not None and aspect is not None:
        if _check_value(report, facts, query, text, value, finder, checked):
            report.checked = ", ".join(dict.fromkeys(checked))
            return report._close()
        # the value's own number is not checked twice
        covered = [c.span for c in report.claims if c.kind == "value" and c.span is not None]
    mentions = _mentions(finder, text)
    _check_mentions(report, facts, _not_the_value(mentions, report), checked)
    masked = [(m.start, m.end) for m in mentions] + covered
    numbers = number_claims(text, masked)
    if numbers:
        checked.append("numbers")
    for claim in numbers:
        report.claims.append(_check_number(facts, claim))
    report.checked = ", ".join(dict.fromkeys(checked)) or "garbage only"
    report._close()
    if not report.supported:
        report.corrected_answer = _rewrite(text, report)
    return report


def _given(
    facts: Facts, question: str, query: QueryTuple | None, finder: MentionFinder | None
) -> None:
    """The question's compounds: an answer naming them claims nothing new."""
    mentions = list(query.resolved_mentions) if query is not None else []
    if not mentions and finder is not None and question:
        mentions = _find(finder, question)
    for mention in mentions:
        for attr in ("text", "matched_name"):
            name = getattr(mention, attr, None)
            if isinstance(name, str) and name:
                facts.given_names.add(_norm(name))
        structure = getattr(mention, "structure", None)
        if structure is None and getattr(mention, "smiles", None):
            structure = _structure(mention.smiles)
        if structure is not None:
            facts.given_keys.add(structure.connectivity_key)


def _check_number(facts: Facts, claim: _NumberClaim) -> Claim:
    aspect = _unit_aspect(claim.unit, claim.label)
    base = Claim(
        "number",
        claim.text + (f" {claim.unit}" if claim.unit else ""),
        True,
        unit=claim.unit,
        label=" ".join(sorted(claim.label)) or None,
        span=claim.span,
    )
    fact = facts.match_number(claim.value, aspect, claim.decimals)
    if fact is not None:
        base.source = fact.source
        return base
    if any(
        abs(claim.value - n) <= _tolerance(n, None, claim.decimals) for n in facts.question_numbers
    ):
        base.source = "question"
        return base
    base.supported = False
    same = facts.same_quantity(claim.label)
    if same:
        values = _distinct([f.value for f in same])
        shown = ", ".join(_format(v, claim.decimals) for v in values[:3])
        sources = ", ".join(dict.fromkeys(f.source for f in same[:3]))
        base.problem = "contradicts-evidence"
        base.reason = (
            f"{claim.text} is not in the evidence, which gives {shown} for "
            f"{' '.join(sorted(claim.label & frozenset().union(*(f.label for f in same))))} "
            f"({sources})"
        )
        base.source = same[0].source
        if len(values) == 1:
            base.expected = values[0]
        return base
    base.problem = "number-not-in-evidence"
    base.reason = f"{claim.text} is not in the evidence (nor computed from a structure in it)"
    return base


def _not_the_value(mentions: list[Mention], report: FaithfulnessReport) -> list[Mention]:
    """The mentions the typed value's claims do not already account for (the names or SMILES
    the value was read from are not checked twice)."""
    values = [c.text for c in report.claims if c.kind in ("value", "formula")]
    if not values:
        return mentions
    norms = [_norm(v) for v in values]
    out = []
    for m in mentions:
        norm = _norm(m.text)
        if any(norm and norm in v for v in norms):
            continue
        if m.structure is not None and m.structure.smiles in values:
            continue
        out.append(m)
    return out


def _check_mentions(
    report: FaithfulnessReport, facts: Facts, mentions: list[Mention], checked: list[str]
) -> None:
    for mention in mentions[:MAX_CHECKED_ITEMS]:
        if mention.resolved_by == "fuzzy" or mention.correction:
            continue  # a typo correction may be an English word read as a compound
        is_structure = mention.input_format in ("smiles", "inchi")
        kind = "structure" if is_structure else "name"
        checked.append("structures" if is_structure else "names")
        claim = Claim(kind, mention.text, True, span=(mention.start, mention.end))
        structure = mention.structure or _unwrapped(mention.text)
        norm = _norm(mention.text)
        if norm in facts.given_names or (
            structure is not None and structure.connectivity_key in facts.given_keys
        ):
            claim.source = "question"
        elif not is_structure and facts.mentions_name(mention.text, reverse=False):
            claim.source = "evidence text"
        elif structure is not None and (source := facts.structure_key_source(structure)):
            claim.source = source
        elif (
            mention.matched_name and facts.mentions_name(mention.matched_name, reverse=False)
        ) or (structure is not None and facts.text_names_structure(structure)):
            claim.source = "evidence text"
        else:
            claim.supported = False
            claim.problem = f"{kind}-not-in-evidence"
            what = "structure" if is_structure else "compound"
            claim.reason = f"the {what} {mention.text!r} is not in the evidence"
            if structure is None:
                claim.reason += " (and nothing resolves it)"
        report.claims.append(claim)


def _check_value(
    report: FaithfulnessReport,
    facts: Facts,
    query: QueryTuple,
    text: str,
    value: Any,
    finder: MentionFinder | None,
    checked: list[str],
) -> bool:
    """The typed value read for the question's aspect, checked with the aspect's rules (as the
    table-RAG reasoners always were). Returns True when the answer has a problem as a whole and
    nothing more is worth checking."""
    aspect = query.aspect
    if aspect in NUMERIC:
        checked.append("numbers")
        if not isinstance(value, (int, float)):
            # "room temperature", "overnight", as the record says; never a name for a mass
            if aspect in _WORDED_ASPECTS and facts.mentions_name(text, reverse=False):
                checked[-1] = "text"
                return True
            report.problem, report.garbled = "no-value", True
            report.reason = (
                f"the answer gives no number to check against the evidence: {text[:80]!r}"
            )
            return True
        number = float(value)
        written = _written(text, number)
        decimals = written.decimals if written is not None else None
        fact = facts.match_number(number, aspect, decimals)
        claim = Claim(
            "value",
            written.text if written is not None else f"{value:g}",
            fact is not None,
            label=aspect.value,
            span=written.span if written is not None else None,
        )
        if fact is not None:
            claim.source = fact.source
        else:
            keyed = [f for f in facts.facts if _aspect_key(aspect, f.key)]
            values = _distinct([f.value for f in keyed])
            claim.problem = "contradicts-evidence" if keyed else "number-not-in-evidence"
            claim.reason = (
                f"the value {value:g} is not in the evidence (nor computed from a structure in it)"
            )
            if keyed:
                shown = ", ".join(_format(v, decimals) for v in values[:3])
                claim.reason += f"; it gives {shown} for the {aspect.value.replace('_', ' ')}"
                claim.source = keyed[0].source
                if len(values) == 1:
                    claim.expected = values[0]
        report.claims.append(claim)
        return False
    if aspect in STRUCTURES:
        checked.append("structures")
        smiles = [value] if isinstance(value, str) else list(value or [])
        smiles = [s for s in smiles if isinstance(s, str)][:MAX_CHECKED_ITEMS]
        if isinstance(value, str) and _structure(value) is None:  # a name, not SMILES
            _check_names(report, facts, [value], finder, checked)
            return False
        if not smiles:
            if facts.mentions_name(text[:MAX_CHECKED_CHARS]):
                checked[-1] = "names"
                return False
            report.problem, report.garbled = "no-value", True
            report.reason = f"no compound in the answer could be recognised: {text[:80]!r}"
            return True
        missing = [s for s in smiles if not facts.has_structure(s)]
        for s in smiles:
            ok = s not in missing
            report.claims.append(
                Claim(
                    "value",
                    s,
                    ok,
                    None if ok else "structure-not-in-evidence",
                    "" if ok else "not in the evidence: " + ", ".join(missing[:5]),
                    source=facts.structure_source(s) if ok else None,
                )
            )
        return False
    if aspect in NAMES:
        names = value if isinstance(value, list) else split_names(text) or [text]
        names = [n for n in names if isinstance(n, str)][:MAX_CHECKED_ITEMS]
        return _check_names(report, facts, names, finder, checked)
    if aspect == Aspect.FORMULA:
        checked.append("formula")
        if not _FORMULA.search(subscript_digits(text).replace(" ", "")):
            report.problem, report.garbled = "no-value", True
            report.reason = (
                f"the answer gives no formula to check against the evidence: {text[:80]!r}"
            )
            return True
        ok = facts.has_formula(text)
        report.claims.append(
            Claim(
                "formula",
                text[:80],
                ok,
                None if ok else "formula-not-in-evidence",
                ""
                if ok
                else "the formula in the answer is not that of a compound in the evidence: "
                f"{text[:80]!r}",
            )
        )
        return False
    if aspect == Aspect.SMILES_TO_NAME:
        # each name on its own: the real 1.5B model answered "arsine; O[As](O)O" for arsorous
        # acid, and the whole text passed because it holds the question's SMILES
        return _check_names(report, facts, split_names(text) or [text], finder, checked)
    return False


def _check_names(
    report: FaithfulnessReport,
    facts: Facts,
    names: list[str],
    finder: MentionFinder | None,
    checked: list[str],
) -> bool:
    checked.append("names")
    names = [n for n in names if n.strip()]
    if not names:
        report.problem, report.garbled = "no-value", True
        report.reason = "the answer names nothing"
        return True
    missing = []
    for name in names:
        item = name[:MAX_CHECKED_CHARS]
        if facts.mentions_name(item):
            continue
        if looks_like_smiles(item.strip()) and facts.has_structure(item.strip()):
            continue
        if finder is not None and any(
            m.structure is not None and facts.has_structure(m.structure.smiles)
            for m in _find(finder, item)
        ):
            continue
        missing.append(name)
    reason = "not in the evidence: " + "; ".join(repr(m[:60]) for m in missing[:5])
    for name in names:
        ok = name not in missing
        report.claims.append(
            Claim(
                "value",
                name[:120],
                ok,
                None if ok else "name-not-in-evidence",
                "" if ok else reason,
            )
        )
    return False


def _rewrite(text: str, report: FaithfulnessReport) -> str | None:
    """The answer with each contradicted number replaced by the one value the evidence gives
    for it, when every unsupported claim is such a number (else None)."""
    bad = report.unsupported
    if report.problem or not bad:
        return None
    if any(c.problem != "contradicts-evidence" or c.expected is None for c in bad):
        return None
    out = text
    for claim in sorted(bad, key=lambda c: c.span[0] if c.span else -1, reverse=True):
        number = claim.text.split(" ", 1)[0]
        decimals = len(number.split(".", 1)[1]) if "." in number else 0
        replacement = _format(claim.expected, decimals)
        if claim.span is not None and out[claim.span[0] : claim.span[1]].strip() == number:
            start = claim.span[0] + out[claim.span[0] : claim.span[1]].index(number)
            out = out[:start] + replacement + out[start + len(number) :]
            continue
        whole = re.search(r"(?<![\d.])" + re.escape(number) + r"(?![\d])", out)
        if whole is None:
            return None
        out = out[: whole.start()] + replacement + out[whole.end() :]
    return out if out != text else None


# -- helpers
# ---------------------------------------------------------------------------------------


def _aspect_key(aspect: Aspect, key: str) -> bool:
    """Whether a record field holds the quantity ``aspect`` asks for."""
    words = _words_of(key)
    if aspect == Aspect.MOLECULAR_WEIGHT:
        return "weight" in words and "exact" not in words
    if aspect == Aspect.EXACT_MASS:
        return "exact" in words
    return aspect.value.split("_")[0] in words


def _written(text: str, value: float) -> _NumberClaim | None:
    """The number of ``text`` that ``value`` was read from (as written: its digits, place)."""
    for claim in number_claims(text):
        if abs(claim.value - value) < 1e-9:
            return claim
    return None


def _distinct(values: list[float]) -> list[float]:
    out: list[float] = []
    for v in values:
        if not any(abs(v - o) <= 1e-6 * max(1.0, abs(o)) for o in out):
            out.append(v)
    return out


def _format(value: float, decimals: int | None) -> str:
    """``value`` with the answer's decimals, but no more than the evidence has (0.550 for
    0.5501 where the answer wrote 0.985; 180.159, not 180.159000000, for 180.042258736)."""
    if decimals is None:
        return f"{value:g}"
    shown = f"{float(value):.10g}"  # the evidence's own digits, without float noise
    if "e" not in shown:
        decimals = min(decimals, len(shown.split(".", 1)[1]) if "." in shown else 0)
    return f"{value:.{max(decimals, 0)}f}"


def _norm(text: str) -> str:
    return " ".join(text.lower().replace("\u2019", "'").split()).strip(" .;:,*`'\"")


def _contains(haystack: str, needle: str) -> bool:
    if not needle:
        return False
    return re.search(r"(?<![a-z0-9])" + re.escape(needle) + r"(?![a-z0-9])", haystack) is not None


def _structure(smiles: str) -> Structure | None:
    if not smiles or len(smiles) > 500:
        return None
    try:
        return structure_from_smiles(smiles)
    except Exception:
        return None


def _unwrapped(text: str) -> Structure | None:
    """The structure of a SMILES the finder could not read because the answer wrapped it in
    brackets or punctuation ("aspirin (CC(=O)Oc1ccccc1C(=O)O)."), or None."""
    token = text.strip().rstrip(".,;:")
    if len(token) > 2 and token[0] + token[-1] in ("()", "[]", "{}"):
        token = token[1:-1]
    if token == text or not looks_like_smiles(token):
        return None
    return _structure(token)


def _formula_counts(formula: str) -> dict[str, int]:
    """Element counts of a formula in an answer or the evidence; empty when it is none."""
    from chemground.chem.formula import element_counts
    from chemground.errors import ChemgroundError

    try:
        return element_counts(formula, charge=True)
    except ChemgroundError:
        return {}


def _tolerance(candidate: float, aspect: Aspect | None, decimals: int | None = None) -> float:
    """How far an answer may be from an evidence number: the rounding the answer shows (half a
    unit of its last decimal), else rounding to one decimal for masses (0.5 % would take
    aspirin's exact mass 180.04 for its weight 180.16) and 0.5 % for the rest."""
    rounding = 0.5 * 10 ** (-decimals) + 1e-9 if decimals is not None else 0.0
    if aspect in (Aspect.MOLECULAR_WEIGHT, Aspect.EXACT_MASS):
        return max(0.06, min(rounding, 0.5))
    return max(0.005 * abs(candidate), rounding, 1e-9)


def _conversions(n: float, aspect: Aspect | None, key: str = "") -> tuple[float, ...]:
    """``n`` and what it becomes in another unit the answer may use for this aspect."""
    if aspect == Aspect.TEMPERATURE:
        return (n, n + 273.15, n - 273.15, n * 9 / 5 + 32)
    if aspect == Aspect.TIME:
        return (n, n * 60, n / 60, n / 24, n * 24)
    if aspect == Aspect.YIELD:
        return (n, n * 100, n / 100) if "yield" in key else (n,)
    return (n,)


_FIELD_KEY = re.compile(r"(?<![\w=\[(@#])([a-z_][a-z0-9_.]+)=")


def _mentions(finder: MentionFinder | None, text: str) -> list[Mention]:
    """The compounds the text names. Citation markers are blanked and ``key=`` before a value
    ("reactant_smiles=O=[N+]([O-])c1ccccc1", as rows are shown) becomes ``key `` (offsets
    stay)."""
    if finder is None:
        return []
    text = text[:MAX_CLAIM_TEXT]
    text = _FIELD_KEY.sub(lambda m: m.group(1) + " ", text)
    return _find(finder, _mask(text, [m.span() for m in _CITATION.finditer(text)]))


def _find(finder: MentionFinder, text: str) -> list:
    try:
        return finder.find(text)
    except Exception:
        return []


__all__ = [
    "KINDS",
    "Claim",
    "Facts",
    "FaithfulnessReport",
    "check_faithfulness",
    "failed_check",
    "number_claims",
]
