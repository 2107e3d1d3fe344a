"""Answers read off tool evidence (no LLM): values with sensible rounding and units.

Used by the extractive reasoner for tool-computable aspects. One compound gives one value;
several compounds give each value, and a comparison ("which is heavier, X or Y?") names the
winner. A compound that could not be resolved is named in the answer, never dropped.
"""

from __future__ import annotations

import re
from typing import Any

from chemground.chem.names import subscript_digits
from chemground.evidence import Evidence
from chemground.reasoning.adducts import asked_ion
from chemground.reasoning.query import Aspect, QueryTuple

_MIN_WORDS = re.compile(
    r"\b(lighter|lightest|lower|lowest|less|least|smaller|smallest|fewer|fewest|"
    r"hydrophilic|more polar than)\b",
    re.IGNORECASE,
)
_WHICH = re.compile(r"\b(which|who|what one)\b", re.IGNORECASE)
# "... give me the logP of the greasier one", "and its MW": the winner's value is asked
_VALUE_OF_THE_ONE = re.compile(
    r"\b(the\s+)?(value|number|log ?p|mw|molecular weight|tpsa|[\w-]+)\s+(of|for)\s+the\s+"
    r"(\w+er|more\s+\w+|less\s+\w+|bigger|smaller|winner)\s+(one|compound)\b"
    # "which is greasier by logP, and what's its value?"
    r"|\b(and|,)\s+(what'?s|what is|give( me)?|with)\s+(its|the|that)\s+(value|number|log ?p)\b",
    re.IGNORECASE,
)
_KELVIN = re.compile(r"\bkelvin\b|\bin k\b|\b(?<!°)k\?", re.IGNORECASE)
_FAHRENHEIT = re.compile(r"\bfahrenheit\b|°\s*f\b|\bin f\b|\bdeg(rees|\.)? ?f\b", re.IGNORECASE)
# a toxicity question: the offline tables answer it only with a carcinogen class or an exposure
# limit ("is DMSO toxic?" was 'answered' with its flash point)
_TOXICITY = re.compile(
    r"\btoxi(c|city)\b|\bpoison\w*|\bharmful\b|\bdangerous\b|\bcarcino\w*", re.IGNORECASE
)
_GHS = re.compile(
    r"\bghs\b|\bpictograms?\b|\bh-?statements?\b|\bsignal word\b|\bhazard (statements?|codes?)\b",
    re.IGNORECASE,
)


_COUNT_ASKED = re.compile(r"\b(how many|number of|count|no\. of|tally)\b", re.IGNORECASE)
# "RuPhos – rule-of-five violations?" asks them (counted); "does it have violations?" a verdict
_VIOLATIONS_ASKED = re.compile(r"\bviolations\b", re.IGNORECASE)
_YES_NO_ASKED = re.compile(
    r"(?:^|[.;:!?–—]\s*)(?:does|do|is|are|will|would|can|has|have)\b|\b(?:or not|pass(?:es)?)\b",
    re.IGNORECASE,
)
_LONG_DECIMAL = re.compile(r"\d+\.\d{3,}")


_IDENTIFIER_FORMATS = frozenset({"cas", "inchikey", "inchi", "smiles"})


def _round_numbers(text: str) -> str:
    """'LOGP 7.388700000000009>5' -> 'LOGP 7.39>5' (a tool's float noise is no chemist's figure)."""
    return _LONG_DECIMAL.sub(lambda m: f"{float(m.group()):.2f}", text)


def _num(value: float, digits: int) -> str:
    return f"{value:.{digits}f}"


def _sig(value: float, figures: int = 4) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 1e6 or abs(value) < 1e-3:
        return f"{value:.{figures - 1}e}"
    return f"{value:.{figures}g}"


def tidy_equation(text: str) -> str:
    """chemlib's '2H₂ + 1O₂ --> 2H₂O₁' as '2 H2 + O2 -> 2 H2O'."""
    sides = []
    for side in subscript_digits(text).split("-->"):
        terms = []
        for term in side.split("+"):
            match = re.match(r"\s*(\d*)\s*(.+?)\s*$", term)
            coefficient, formula = match.group(1), match.group(2)
            formula = re.sub(r"(?<=[A-Za-z)\]])1(?!\d)", "", formula)
            terms.append(f"{coefficient} {formula}" if coefficient not in ("", "1") else formula)
        sides.append(" + ".join(terms))
    return " -> ".join(sides)


def _value(query: QueryTuple, e: Evidence) -> tuple[Any, str]:
    """(typed value, text) of one successful call."""
    r = e.record
    raw = r.get("result")
    aspect = query.aspect
    if aspect == Aspect.LOGP:
        value = round(float(raw), 2) + 0.0  # no "-0.00"
        return value, _num(value, 2)
    if aspect == Aspect.TPSA:
        return round(float(raw), 2), f"{float(raw):.2f} Å²"
    if aspect == Aspect.QED:
        return round(float(raw), 3), _num(float(raw), 3)
    if aspect in (Aspect.HBD, Aspect.HBA, Aspect.ROTATABLE_BONDS, Aspect.HEAVY_ATOMS):
        return int(raw), str(int(raw))
    if aspect == Aspect.ATOM_COUNT:
        return _atom_count(query.question, raw)
    if aspect == Aspect.RING_COUNT:
        if re.search(r"\baromatic\b", query.question, re.IGNORECASE):
            return int(
                raw["aromatic_rings"]
            ), f"{raw['aromatic_rings']} aromatic (of {raw['rings']} rings)"
        return int(raw["rings"]), f"{raw['rings']} ({raw['aromatic_rings']} aromatic)"
    if aspect == Aspect.STEREOCENTRES:
        labels = ", ".join(f"{c['symbol']}{c['atom'] + 1} ({c['label']})" for c in raw["centres"])
        unassigned = sum(1 for c in raw["centres"] if c["label"] == "?")
        extra = f": {labels}" if labels else ""
        if unassigned:
            extra += f"; {unassigned} not specified by the SMILES"
        return int(raw["count"]), f"{raw['count']}{extra}"
    if aspect in (Aspect.INCHI, Aspect.INCHIKEY):
        return str(raw), str(raw)
    if aspect == Aspect.FUNCTIONAL_GROUPS:
        text = str(raw)
        if "none of the listed" in text:
            return [], "none of the groups the tool knows"
        body = re.sub(r"^This molecule contains\s+", "", text).rstrip(".")
        groups = [g.strip() for g in re.split(r",\s*(?:and\s+)?|\s+and\s+", body) if g.strip()]
        return groups, ", ".join(groups)
    if aspect == Aspect.LIPINSKI:
        violations = [] if isinstance(raw, str) else [_round_numbers(str(v)) for v in raw]
        passes = len(violations) <= 1
        # "how many violations?" is answered with the count; "does it pass?" with the verdict
        counted = _COUNT_ASKED.search(query.question) or (
            _VIOLATIONS_ASKED.search(query.question) and not _YES_NO_ASKED.search(query.question)
        )
        value = len(violations) if counted else passes
        if not violations:
            return value, "no violations of Lipinski's rule of five: it passes"
        listed = "; ".join(violations)
        verdict = "it still passes (at most one violation is allowed)" if passes else "it fails"
        return (
            value,
            f"{len(violations)} violation{'s' if len(violations) > 1 else ''} ({listed}): "
            f"{verdict}",
        )
    if aspect == Aspect.MOLECULAR_WEIGHT:
        weight = raw["molecular_weight"] if isinstance(raw, dict) else raw
        formula = f" ({raw['formula']})" if isinstance(raw, dict) and raw.get("formula") else ""
        return round(float(weight), 2), f"{float(weight):.2f} g/mol{formula}"
    if aspect == Aspect.EXACT_MASS:
        ion = asked_ion(query.question)
        if ion is not None:  # "[M+H]+ of X": the ion's m/z (see reasoning.adducts)
            mz = round(ion.mz(float(raw)), 4)
            return mz, f"{float(raw):.4f} Da; the calculated m/z of its {ion.label} is {mz:.4f}"
        return round(float(raw), 4), f"{float(raw):.4f} Da"
    if aspect in (Aspect.BOILING_POINT, Aspect.MELTING_POINT, Aspect.FLASH_POINT):
        kelvin = float(raw["value"])
        celsius = kelvin - 273.15
        estimate = "; an estimate" if raw.get("estimate") else ""
        text = f"{celsius:.1f} °C ({kelvin:.2f} K; source: {raw['source']}{estimate})"
        if _FAHRENHEIT.search(query.question):
            fahrenheit = celsius * 9 / 5 + 32
            return round(fahrenheit, 1), (
                f"{fahrenheit:.1f} °F ({celsius:.1f} °C; source: {raw['source']}{estimate})"
            )
        if _KELVIN.search(query.question):
            return round(
                kelvin, 2
            ), f"{kelvin:.2f} K ({celsius:.1f} °C; source: {raw['source']}{estimate})"
        return round(celsius, 1), text
    if aspect == Aspect.DENSITY:
        return round(
            float(raw["value"]), 3
        ), f"{float(raw['value']):.3f} g/cm³ ({raw.get('state', '')}; source: {raw['source']})"
    return raw, str(raw)


def _atom_count(question: str, counts: dict) -> tuple[int, str]:
    """(count, text) for the element the question counts, or all atoms ("how many atoms")."""
    from chemground.reasoning.atom_counts import asked_element, element_name

    asked = asked_element(question)
    symbol = asked[0] if asked else None
    formula = "".join(
        f"{element}{n if n > 1 else ''}"
        for element, n in sorted(
            ((e, n) for e, n in counts.items() if e != "total"),
            key=lambda item: (item[0] != "C", item[0] != "H" or "C" not in counts, item[0]),
        )
    )
    if symbol is None:
        heavy = counts["total"] - counts.get("H", 0)
        return counts["total"], (
            f"{counts['total']} atoms in all, hydrogens included ({formula}; {heavy} heavy atoms)"
        )
    n = counts.get(symbol, 0)
    return n, f"{n} {element_name(symbol)} atom{'s' if n != 1 else ''} ({formula})"


def _failure(e: Evidence, label: str, compound: str) -> str:
    error = str(e.record.get("error") or "the tool failed")
    if "not in the offline tables" in error:
        return f"No {label} of {compound} is in the offline tables of the 'chemicals' package."
    return f"The {label} of {compound} could not be computed: {error}"


def _isomer_chosen(query: QueryTuple, names: set[str]) -> tuple[str, str] | None:
    """(answer prefix, note) when a computed value is for one isomer of a molecular formula the
    question names ("TPSA of C2H6O": ethanol or dimethyl ether), None otherwise."""
    from chemground.reasoning.extractive import (
        SAME_FOR_EVERY_ISOMER,
        several_structures,
        unnamed_isomer_hedge,
    )

    if query.aspect in SAME_FOR_EVERY_ISOMER:
        return None
    for m in query.resolved_mentions:
        if m.text in names and len(m.isomers) > 1:
            return unnamed_isomer_hedge(m)
        if m.text in names and m.resolved_by != "condensed formula" and several_structures(m.text):
            named = m.matched_name and m.matched_name.replace(" ", "").lower() != m.text.lower()
            chosen = m.matched_name if named else f"the structure {m.smiles}"
            return (
                f"(for {chosen}; {m.text!r} does not name one compound) ",
                f"the formula {m.text} fits more than one compound; computed for {chosen}, "
                "the one the dictionary files it under",
            )
    return None


def tool_answer(query: QueryTuple, evidence: list[Evidence], unresolved: list[str]):
    """A ``Reasoned`` for a tool aspect from its tool evidence."""
    from chemground.reasoning.extractive import Reasoned

    aspect = query.aspect
    calls = [e for e in evidence if e.kind == "tool_result"]
    ok = [e for e in calls if e.record.get("ok")]
    failed = [e for e in calls if not e.record.get("ok")]
    cite = [e.citation() for e in calls]
    missing = ""
    if unresolved:
        names = ", ".join(repr(u) for u in unresolved)
        missing = (
            f" I could not resolve {names} to a structure, so "
            f"{'it was' if len(unresolved) == 1 else 'they were'}"
            " not computed."
        )
        from chemground.chem.names import names_no_one_compound
        from chemground.reasoning.salt_forms import names_a_form

        forms = [
            m.reason
            for m in query.unresolved_mentions
            if names_a_form(m.reason) or names_no_one_compound(m.reason)
        ]
        if forms:  # "the TPSA of the ibuprofen anion", "xylenes": say why nothing was computed
            missing += " (" + "; ".join(forms) + ")"
    if aspect == Aspect.BALANCE:
        return _balance(calls, cite)
    if aspect == Aspect.AMOUNT:
        return _amount(calls, cite, query)
    if not calls:
        if unresolved:
            return Reasoned(missing.strip(), None, "no_evidence")
        return Reasoned(
            f"I found no compound in the question to compute the {aspect.value.replace('_', ' ')} "
            "of.",
            None,
            "not_understood",
        )
    label = calls[0].record.get("label") or aspect.value
    if aspect == Aspect.HAZARDS:
        return _hazards(query, ok, failed, cite, missing)
    # a misspelt name computed for the compound its typo was corrected to is the closest match,
    # not the compound asked: named and labelled as the table channel does (it was 'answered')
    corrected = {m.text: m.correction for m in query.mentions if m.resolved and m.correction}
    # an identifier or a SMILES is shown with the name of its record: "caffeine (CAS 58-08-2)",
    # not "the logP of 58-08-2" (a CAS number is no name)
    shown = {
        m.text: f"{m.matched_name} ({'CAS ' if m.input_format == 'cas' else ''}{m.text})"
        for m in query.mentions
        if m.resolved
        and m.input_format in _IDENTIFIER_FORMATS
        and m.matched_name
        and m.matched_name != m.text
    }
    parts, values = [], {}
    for e in ok:
        value, text = _value(query, e)
        name = e.record.get("compound") or e.record.get("smiles")
        name = corrected.get(name) or shown.get(name, name)
        values[name] = value
        parts.append((name, value, text))
    isomer = _isomer_chosen(query, {name for name, _, _ in parts})
    failures = [_failure(e, label, e.record.get("compound") or "?") for e in failed]
    status = (
        "answered" if ok and not failed and not unresolved else ("partial" if ok else "no_evidence")
    )
    tool = ok[0].record["tool"] if ok else calls[0].record["tool"]
    notes = [f"computed by {tool} (chosen from the aspect; no LLM)"]
    named = {name for name, _, _ in parts}
    used = [(typed, name) for typed, name in corrected.items() if name in named]
    closest = ""
    if used:
        closest = "(closest match: " + ", ".join(name for _, name in used) + ") "
        notes += [
            f"no exact match; computed for the closest name: {typed!r} read as {name!r}"
            for typed, name in used
        ]
        if status == "answered":
            status = "partial"
    if isomer:
        # "logP of C2H6O": computed for the compound the dictionary files the formula under
        # (ethanol), not for dimethyl ether, which the formula names as well
        closest += isomer[0]
        notes.append(isomer[1])
        if status == "answered":
            status = "partial"
    if not parts:
        return Reasoned(" ".join(failures) + missing, None, status, cite, notes)
    if len(parts) == 1:
        name, value, text = parts[0]
        if aspect in (Aspect.LIPINSKI, Aspect.FUNCTIONAL_GROUPS):
            answer = f"{label[:1].upper() + label[1:]} of {name}: {text}."
        elif aspect == Aspect.ATOM_COUNT:
            answer = f"{name} has {text}."
        else:
            answer = f"The {label} of {name} is {text}."
        if aspect in (Aspect.INCHI, Aspect.INCHIKEY):
            from chemground.chem.structure import unassigned_stereocentres

            open_centres = unassigned_stereocentres(ok[0].record.get("smiles"))
            if open_centres:  # e.g. nicotine without (S): the key of no particular isomer
                status = "partial"
                notes.append(
                    f"the structure used for {name} leaves {open_centres} stereocentre"
                    f"{'s' if open_centres > 1 else ''} unspecified, so this {label} is for the "
                    "unspecified stereoisomer; a defined isomer (the natural one, a drug) has "
                    "another. Give its SMILES with stereo (@/@@) for that"
                )
        return Reasoned(
            closest + " ".join([answer, *failures]) + missing, value, status, cite, notes
        )
    listing = "; ".join(f"{name}: {text}" for name, _, text in parts)
    answer = f"{label[:1].upper() + label[1:]}: {listing}."
    value: Any = values
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for _, v, _ in parts)
    if numeric and len(parts) >= 2:
        pick_min = bool(_MIN_WORDS.search(query.question))
        if aspect == Aspect.TPSA and re.search(r"\bmore polar\b", query.question, re.I):
            pick_min = False  # a larger polar surface is the more polar compound
        ordered = sorted(parts, key=lambda p: p[1], reverse=not pick_min)
        best, runner_up = ordered[0], ordered[1]
        if best[1] == runner_up[1]:
            answer += f" {best[0]} and {runner_up[0]} have the same {label}."
        else:
            if aspect == Aspect.MOLECULAR_WEIGHT:
                answer += f" {best[0]} is {'lighter' if pick_min else 'heavier'}"
            else:
                answer += f" {best[0]} has the {'lower' if pick_min else 'higher'} {label}"
            answer += "."
            if _VALUE_OF_THE_ONE.search(query.question):
                # "which is more lipophilic, A or B? give me the logP of the greasier one": the
                # number asked, of the compound that wins
                value = best[1]
            elif _WHICH.search(query.question):
                value = best[0]
    return Reasoned(
        closest + " ".join([answer, *failures]) + missing,
        value,
        status,
        cite,
        notes,
        {"values": values},
    )


def _balance(calls: list[Evidence], cite: list[str]):
    from chemground.reasoning.extractive import Reasoned

    if not calls:
        return Reasoned(
            "I found no equation to balance in the question; write it with formulas, e.g. "
            "'balance H2 + O2 -> H2O'.",
            None,
            "not_understood",
        )
    e = calls[0]
    if not e.record.get("ok"):
        return Reasoned(
            f"The equation {e.record.get('equation')} could not be balanced: "
            f"{e.record.get('error')}",
            None,
            "no_evidence",
            cite,
        )
    equation = tidy_equation(str(e.record["result"]))
    return Reasoned(
        f"Balanced: {equation}.",
        equation,
        "answered",
        cite,
        [f"balanced by {e.record['tool']} (no LLM)"],
    )


# "200 mg of amiodarone hydrochloride - how many mg of amiodarone base is that?": a conversion
# between a salt and its free form, which the amount tool does not do (it converted 200 mg of the
# base to moles, a confident answer to another question)
_FORM_CONVERSION = re.compile(
    r"\b(how (much|many \w+)|what mass|equivalent)\b[^?]*\b(free[- ]?)?(base|acid)\b"
    r"(?! (peak|pair))|\b(free[- ]?(base|acid)|salt) equivalents?\b|\bas (the )?free (base|acid)\b",
    re.IGNORECASE,
)
_SALT_NAMED = re.compile(
    r"\b(hydrochloride|hydrobromide|hcl|hbr|salt|mesylate|tosylate|besylate|maleate|fumarate|"
    r"citrate|tartrate|succinate|sulfate|phosphate|sodium|potassium)\b",
    re.IGNORECASE,
)


def _between_forms(query: QueryTuple):
    """A mass of one form of a compound as the same moles of another: "200 mg of amiodarone
    hydrochloride - how many mg of amiodarone base?" is 200 mg x MW(base) / MW(salt). The
    given form is the compound named right after the amount; the other is a later mention whose
    structure is a component of it (or holds it), counted per formula unit (a sulfate of two
    morphines gives two). None when the question names no such pair.
    """
    from rdkit import Chem
    from rdkit.Chem import Descriptors
    from rdkit.Chem.MolStandardize import rdMolStandardize

    from chemground.reasoning.extractive import Reasoned
    from chemground.retrieval.tools import parse_amount

    amount = parse_amount(query.question)
    if amount is None or amount[1] != "grams":
        return None
    grams, _, written = amount
    at = query.question.find(written) + len(written)
    after = [m for m in query.resolved_mentions if m.smiles and m.start >= at]
    if len(after) < 2 or not re.fullmatch(
        r"\s*(of\s+)?(the\s+)?", query.question[at : after[0].start]
    ):
        return None
    given = after[0]

    def parts(smiles: str) -> list[str]:
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            return []
        uncharger = rdMolStandardize.Uncharger()
        return [
            Chem.MolToInchiKey(uncharger.uncharge(f))[:14]
            for f in Chem.GetMolFrags(mol, asMols=True)
        ]

    given_parts = parts(given.smiles)  # type: ignore[arg-type]
    for target in after[1:]:
        target_parts = parts(target.smiles)  # type: ignore[arg-type]
        if len(target_parts) == 1 and target_parts[0] in given_parts:
            per_unit = given_parts.count(target_parts[0])  # target units per given unit
        elif len(given_parts) == 1 and given_parts[0] in target_parts:
            per_unit = 1 / target_parts.count(given_parts[0])
        else:
            continue
        if target.inchikey == given.inchikey:
            continue
        given_mw = Descriptors.MolWt(Chem.MolFromSmiles(given.smiles))
        target_mw = Descriptors.MolWt(Chem.MolFromSmiles(target.smiles))
        moles = grams / given_mw
        target_grams = moles * per_unit * target_mw
        unit, factor = ("mg", 1000.0) if re.search(r"mg\b", written, re.IGNORECASE) else ("g", 1.0)
        value = float(_sig(target_grams * factor, 6))
        return Reasoned(
            f"{written} of {given.text} ({given_mw:.2f} g/mol) is {_sig(moles * 1000)} mmol, "
            f"the same as {_sig(target_grams * factor)} {unit} of {target.text} "
            f"({target_mw:.2f} g/mol"
            + (f", {per_unit:g} per formula unit" if per_unit != 1 else "")
            + ").",
            value,
            "answered",
            [],
            [
                "computed from the two structures' molecular weights by RDKit "
                f"({given.smiles}; {target.smiles})"
            ],
            {"unit": unit},
        )
    return None


def _amount(calls: list[Evidence], cite: list[str], query: QueryTuple):
    from chemground.reasoning.extractive import Reasoned

    between = _between_forms(query)
    if between is not None:
        return between
    if _FORM_CONVERSION.search(query.question) and _SALT_NAMED.search(query.question):
        return Reasoned(
            "I cannot tell which two forms of one compound the amount is to be converted "
            "between; name both (e.g. '200 mg of amiodarone hydrochloride - how many mg of "
            "amiodarone base?'), or ask for the molecular weight of each form and scale the mass "
            "by their ratio.",
            None,
            "not_understood",
        )
    if not calls:
        return Reasoned(
            "I need an amount with a unit (g, mg, mol, mmol) and a compound to convert, e.g. "
            "'how many moles are in 5 g of NaCl?'.",
            None,
            "not_understood",
        )
    e = calls[0]
    r = e.record
    if not r.get("ok"):
        return Reasoned(
            f"The amount of {r.get('compound')} could not be converted: {r.get('error')}",
            None,
            "no_evidence",
            cite,
        )
    result = r["result"]
    want = r.get("want", "moles")
    value = float(result[want])
    grams, moles = float(result["grams"]), float(result["moles"])
    molar = grams / moles if moles else None
    unit = {"grams": "g", "moles": "mol", "molecules": "molecules"}[want]
    formula = r.get("formula")
    name = r.get("compound")
    about = f"{name}" + (
        f" ({formula}" + (f", {molar:.2f} g/mol)" if molar else ")")
        if formula != name or molar
        else ""
    )
    if want == "grams" and value < 0.1:
        answer = f"{r.get('given')} of {about} is {_sig(value)} g ({_sig(value * 1000)} mg)."
    elif want == "moles" and value < 0.1:
        answer = f"{r.get('given')} of {about} is {_sig(value)} mol ({_sig(value * 1000)} mmol)."
    else:
        answer = f"{r.get('given')} of {about} is {_sig(value)} {unit}."
    return Reasoned(
        answer,
        float(_sig(value, 6)) if want != "molecules" else value,
        "answered",
        cite,
        [f"converted by {r['tool']} with the molar mass of {formula}"],
        {"unit": unit},
    )


def _hazards(
    query: QueryTuple, ok: list[Evidence], failed: list[Evidence], cite: list[str], missing: str
):
    from chemground.reasoning.extractive import Reasoned

    lines, value, without_data = [], {}, 0
    for e in ok:
        r = e.record["result"]
        facts = []
        if r.get("flash_point_c") is not None:
            facts.append(f"flash point {r['flash_point_c']:g} °C")
        if r.get("autoignition_c") is not None:
            facts.append(f"autoignition {r['autoignition_c']:g} °C")
        carcinogen = r.get("carcinogen")
        if isinstance(carcinogen, dict):
            iarc = carcinogen.get("International Agency for Research on Cancer")
            if iarc and iarc != "Unlisted":
                facts.append(f"IARC: {iarc}")
        for limit in ("TWA", "STEL"):
            if r.get(limit):
                facts.append(f"{limit} {r[limit]}")
        name = e.record.get("compound")
        value[name] = r
        without_data += not facts
        lines.append(
            f"{name} (CAS {r.get('cas')}): "
            + (", ".join(facts) if facts else "no offline safety data")
        )
    ghs = bool(_GHS.search(query.question))
    if _TOXICITY.search(query.question) and not any(
        "IARC" in line or "TWA" in line or "STEL" in line for line in lines
    ):
        ghs = True  # nothing here tells how toxic it is: the answer is partial
    network = (
        "GHS hazard statements and pictograms are not in the offline data; they need the network "
        "(PubChem: "
        "set CHEMGROUND_ALLOW_NETWORK=1)."
    )
    if not ok:
        text = " ".join(_failure(e, "safety data", e.record.get("compound") or "?") for e in failed)
        return Reasoned(f"{text} {network}{missing}".strip(), None, "no_evidence", cite)
    answer = "Offline safety data: " + "; ".join(lines) + ". " + network + missing
    if without_data == len(ok):
        # "an SOP for handling hydrazine hydrate": the tables hold nothing on it, which is no
        # answer ("answered" had been given to "no offline safety data")
        return Reasoned(answer, None, "no_evidence", cite)
    status = "partial" if ghs or failed or missing or without_data else "answered"
    return Reasoned(
        answer, value, status, cite, ["offline safety tables of the 'chemicals' package"]
    )
