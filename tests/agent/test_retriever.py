"""The tool retriever finds the right tool for requests phrased in a chemist's words."""

from __future__ import annotations

import pytest

from chemground.agent.retriever import ToolRetriever, split_request
from chemground.errors import ChemgroundError

REQUESTS = {
    "Will this molecule cross the blood-brain barrier? CCN(CC)CC": "cactus/CalculateBBBPermeant",
    "balance the chemical equation Fe + O2 --> Fe2O3": "chem_lib/balance_the_reaction",
    "what is the space group of my crystal structure file": "Crystal_Structure_Manipulation/analyze_symmetry",  # noqa: E501 - test data
    "find the CAS registry number of this compound": "chemcrow/Query2CAS",
    "pH of 3.2: what are the hydroxide and hydronium concentrations": "chem_lib/acidity_calculation",  # noqa: E501 - test data
}


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return ToolRetriever(cache_dir=tmp_path_factory.mktemp("emb"))


@pytest.mark.parametrize("method", ["bm25", "dense", "hybrid"])
def test_right_tool_in_top_5(retriever, method):
    found = sum(
        tool in [n for n, _ in retriever.search(q, k=5, method=method)]
        for q, tool in REQUESTS.items()
    )
    assert found >= 4, method


def test_multi_step_requests_are_split():
    parts = split_request(
        "Find the CID of aspirin. Then get its molecular weight from PubChem. Also check "
        "druglikeness please."
    )
    assert len(parts) == 3
    assert split_request("What is the logP of CCO?") == []


def test_hybrid_covers_each_task_of_a_multi_step_request(retriever):
    query = (
        "Calculate the empirical formula of a compound with 40% carbon, 6.7% hydrogen and 53.3% "
        "oxygen. "
        "Then compute the molar mass of that formula."
    )
    names = [n for n, _ in retriever.search(query, k=5)]
    assert "chem_lib/get_empirical_formula_by_percent_composition" in names
    assert any(n.endswith("calculate_compound_molar_mass") for n in names)


def test_unknown_method_is_an_error(retriever):
    with pytest.raises(ChemgroundError, match="unknown retrieval method"):
        retriever.search("x", method="magic")
