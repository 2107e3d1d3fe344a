"""An ion's m/z asked for HRMS ("[M+H]+ of caffeine"): the neutral monoisotopic mass is 1.0073
off for a protonated molecule, a wrong answer at any ppm a chemist works to."""

from __future__ import annotations

import pytest

from chemground.reasoning.adducts import asked_ion, ion_words

CAFFEINE = 194.080376  # monoisotopic, C8H10N4O2


@pytest.mark.parametrize(
    "question, label, mz",
    [
        ("[M+H]+ of caffeine?", "[M+H]+", 195.087652),
        ("calc. m/z for (M+Na)+", "(M+Na)+", 217.069594),
        ("[M-H]- please", "[M-H]-", 193.073100),
        ("[M+2H]2+ of it", "[M+2H]2+", 98.047464),
        ("[2M+H]+", "[2M+H]+", 389.168028),
        ("[M+H-H2O]+", "[M+H-H2O]+", 177.077087),
        ("the m/z of the protonated molecule", "[M+H]+", 195.087652),
    ],
)
def test_an_ion_named_is_read_with_its_charge_and_parts(question, label, mz):
    ion = asked_ion(question)
    assert ion is not None and ion.label == label
    assert ion.mz(CAFFEINE) == pytest.approx(mz, abs=2e-5)


@pytest.mark.parametrize("question", ["[M+H]- of caffeine", "the m/z of caffeine", "mass of x"])
def test_an_ion_whose_composition_is_not_fixed_is_not_read(question):
    """A charge its parts do not carry, or a bare m/z: no ion to compute."""
    assert asked_ion(question) is None


def test_the_ion_words_are_blanked_for_the_routing():
    assert "m/z" not in ion_words("calc m/z [M+Na]+ of aspirin") and "[" not in ion_words("[M+H]+")


def test_an_ion_asked_of_a_compound_is_answered_with_its_m_z(ask_json):
    """'what's the [M+H]+ for caffeine' was declined as a property no tool holds."""
    out = ask_json("HRMS check: what's the [M+Na]+ for aspirin?")
    assert out["status"] == "answered" and out["value"] == pytest.approx(203.0315, abs=1e-4)
    out = ask_json("exact mass of aspirin")  # the neutral mass, as before
    assert out["value"] == pytest.approx(180.0423, abs=1e-4)


def test_an_ion_whose_composition_is_not_fixed_is_declined(ask_json):
    out = ask_json("what's the [M+H]- of aspirin?")
    assert out["status"] != "answered", out["answer"]
