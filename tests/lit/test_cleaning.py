"""Cleaning rules on hand-made text: what counts as a citation, a running header, a heading."""

from __future__ import annotations

from chemground.lit.cleaning import (
    drop_trailing_reference_entries,
    heading_of,
    is_reference_heading,
    reflow,
    remove_running_lines,
    strip_citations,
)
from chemground.lit.sentences import sentence_spans, sentence_windows


def test_citation_markers_are_removed_but_chemistry_brackets_and_exponents_stay():
    text, removed = strip_citations(
        "Earlier studies¹² used Pd [12]. Others [3–5] and [1, 7] followed (Smith et al., 2020; "
        "Lee, 2019). "
        "A [4+2] cycloaddition of bicyclo[2.2.2]octene, a [1,3]-shift, 3.2 cm⁻¹, 12 m², Fe³⁺ and "
        "Cu²⁺ ions."
    )
    assert (
        "[12]" not in text
        and "[3–5]" not in text
        and "[1, 7]" not in text
        and "studies used" in text
    )
    assert "Smith et al." not in text and "followed." in text
    for kept in ("[4+2]", "bicyclo[2.2.2]octene", "[1,3]-shift", "cm⁻¹", "m²", "Fe³⁺", "Cu²⁺"):
        assert kept in text, kept
    assert removed == 5


def test_running_headers_footers_and_page_numbers_are_dropped():
    bodies = [
        [
            "Toluene was oxidised.",
            "The yield was high.",
            "Water was removed.",
            "The solid was dried.",
            "Spectra were recorded.",
            "All runs were repeated.",
        ],
        [
            "Palladium was used.",
            "Hydrogen was bubbled.",
            "The mixture was stirred.",
            "Ethanol was added.",
            "Filtration followed.",
            "The product was pure.",
        ],
        [
            "Benzene is toxic.",
            "Phenol was formed.",
            "Kinetics were slow.",
            "The rate doubled.",
            "Heat was released.",
            "Cooling helped.",
        ],
    ]
    pages = [
        f"J. Test Chem. 2024, 12, {100 + i}\n" + "\n".join(body) + f"\n{i + 1}"
        for i, body in enumerate(bodies)
    ]
    cleaned, removed = remove_running_lines(pages)
    assert removed == 6
    assert all("J. Test Chem." not in p for p in cleaned)
    assert [p.split("\n") for p in cleaned] == bodies


def test_a_line_on_only_one_page_is_not_a_header():
    pages = ["Introduction\nText one.", "Other start\nText two.", "Third\nText three."]
    cleaned, removed = remove_running_lines(pages)
    assert removed == 0 and cleaned == pages


def test_headings_and_reference_sections_are_recognised():
    assert heading_of("2.1 Synthesis of the catalyst") == "2.1 Synthesis of the catalyst"
    assert heading_of("RESULTS AND DISCUSSION") is not None
    assert heading_of("## Methods") == "Methods"
    assert heading_of("1. Add 5 g of NaCl to the flask and stir") is None
    assert heading_of("The results show that the yield is high.") is None
    assert is_reference_heading("References") and is_reference_heading("5. REFERENCES")
    assert not is_reference_heading("Referenced works show")


def test_unheaded_reference_list_at_the_end_is_dropped():
    text = (
        "Body.\n\n1. A. Smith, J. Chem. 2001, 3, 4.\n\n2. B. Lee, Org. Lett. 2005, 1, "
        "2.\n\n3. C. Wu, Nature 2010, 4, 5."
    )
    cleaned, dropped = drop_trailing_reference_entries(text)
    assert cleaned == "Body." and dropped == 3


def test_reflow_joins_wrapped_lines_and_hyphenation():
    text = (
        "The hydro-\ngenation of benzaldehyde was carried out in ethanol under one bar of "
        "hydrogen gas at\n"
        "room temperature for two hours.\nA new paragraph starts here."
    )
    assert reflow(text) == (
        "The hydrogenation of benzaldehyde was carried out in ethanol under one bar of hydrogen "
        "gas at room temperature for two hours.\n\nA new paragraph starts here."
    )


def test_sentences_and_windows_keep_offsets():
    text = (
        "Toluene was used (see Fig. 2). The yield was 95 %. Smith et al. found it "
        "first.\n\nNew paragraph"
    )
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == [
        "Toluene was used (see Fig. 2).",
        "The yield was 95 %.",
        "Smith et al. found it first.",
        "New paragraph",
    ]
    windows = sentence_windows(text, 2)
    assert len(windows) == 3 and text[windows[0][0] : windows[0][1]].startswith("Toluene was used")
