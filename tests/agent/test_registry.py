"""The registry: one manifest format, every benchmark tool present, arguments validated before a
call."""

from __future__ import annotations

import json

import pytest

from chemground.agent.manifest import from_openai_name, openai_name
from chemground.agent.registry import P, ToolRegistry, default_registry, tool
from chemground.agent.validation import ToolArgumentError, ToolError, validate_arguments


def test_pool_has_at_least_137_tools_with_complete_manifests():
    registry = default_registry()
    assert len(registry) >= 137
    for manifest in registry.manifests():
        assert manifest.name == f"{manifest.namespace}/{manifest.tool}"
        assert len(manifest.description) >= 30, manifest.name
        assert manifest.returns.description, manifest.name
        for p in manifest.parameters:
            assert p.description, f"{manifest.name}.{p.name}"
            if p.required:
                assert p.examples, f"{manifest.name}.{p.name} has no example"
        json.dumps(manifest.openai_tool())  # serialisable schema


def test_every_benchmark_tool_is_implemented(shared_data):
    root = shared_data / "chemtoolbench"
    names = set()
    for manifest_file in root.glob("toolpool/**/tools.json"):
        namespace = manifest_file.parent.name
        names |= {f"{namespace}/{tool}" for tool in json.loads(manifest_file.read_text())}
    for data_file in root.glob("dataset/*/*.jsonl"):
        for line in data_file.read_text().splitlines():
            names |= {step["tool"] for step in json.loads(line)["calling_chain"]}
    assert len(names) >= 137
    assert names - set(default_registry().names()) == set()


def test_examples_in_manifests_pass_their_own_validation():
    for manifest in default_registry().manifests():
        example = {p.name: p.examples[0] for p in manifest.parameters if p.examples}
        if all(p.name in example or not p.required for p in manifest.parameters):
            validate_arguments(manifest, example)


def test_openai_names_round_trip():
    assert openai_name("cactus/CalculateLogP") == "cactus__CalculateLogP"
    assert from_openai_name("cactus__CalculateLogP") == "cactus/CalculateLogP"


@pytest.fixture
def logp():
    return default_registry().get("cactus/CalculateLogP")


def test_missing_parameter_is_named_with_an_example(logp):
    with pytest.raises(ToolArgumentError) as error:
        validate_arguments(logp, {})
    assert error.value.parameter == "compound_SMILES"
    assert "missing required parameter compound_SMILES" in str(error.value) and "e.g." in str(
        error.value
    )


def test_unknown_parameter_is_named(logp):
    with pytest.raises(ToolArgumentError, match="unknown parameter 'smiles'"):
        validate_arguments(logp, {"smiles": "CCO"})


def test_too_many_positional_arguments(logp):
    with pytest.raises(ToolArgumentError, match="takes at most 1 arguments"):
        validate_arguments(logp, ["CCO", "CCC"])


def test_types_are_checked_and_lightly_coerced():
    registry = default_registry()
    rydberg = registry.get("chem_lib/electromagnetic_wave_by_rydberg_equation")
    assert validate_arguments(rydberg, ["H", "2", 3.0]) == {"element": "H", "n1": 2, "n2": 3}
    with pytest.raises(ToolArgumentError, match="parameter 'n1' must be an integer, got 'two'"):
        validate_arguments(rydberg, ["H", "two", 3])
    with pytest.raises(ToolArgumentError, match="parameter 'n2' must be an integer, got a boolean"):
        validate_arguments(rydberg, ["H", 2, True])
    ph = registry.get("chem_lib/acidity_calculation")
    with pytest.raises(ToolArgumentError, match="must be <= 16"):
        validate_arguments(ph, [25])
    unit = registry.get("chem_lib/convert_compound_stoichiometry_amount")
    with pytest.raises(
        ToolArgumentError, match=r"must be one of \['grams', 'moles', 'molecules'\]"
    ):
        validate_arguments(unit, ["H2O", "liters", 1.0])
    spectra = registry.get("chemistrytools/calculate_spectrum_similarity")
    with pytest.raises(ToolArgumentError, match=r"parameter 'mz_top'\[1\] must be a number"):
        validate_arguments(spectra, [[1, "x"], [1, 2], [1], [1]])
    with pytest.raises(ToolArgumentError, match="must not be empty"):
        validate_arguments(registry.get("cactus/CalculateQED"), ["  "])


def test_unknown_tool_suggests_close_names():
    with pytest.raises(ToolError, match="did you mean cactus/CalculateLogP"):
        default_registry().get("cactus/CalculateLogp")


def test_bare_tool_name_resolves_when_unambiguous_and_explains_when_not():
    registry = default_registry()
    assert registry.get("CalculateLogP").name == "cactus/CalculateLogP"
    with pytest.raises(ToolError, match="several namespaces"):
        registry.get("create_structure")


def test_one_line_registration_of_another_area_tool():
    """Other areas add tools by decorating a function; registering its module is one line."""

    @tool(
        "graph/count_reactions",
        "Count the reactions of the graph that involve a compound (test tool).",
        [P("name", "string", "Compound name.", examples=["ethanol"])],
        ("integer", "number of reactions"),
    )
    def count_reactions(name: str) -> int:
        return len(name)

    registry = ToolRegistry()
    registry.register(count_reactions)
    assert registry.call_in_process("graph/count_reactions", {"name": "ethanol"}) == 7


def test_manifest_must_match_the_function_signature():
    with pytest.raises(TypeError, match="do not match"):

        @tool(
            "x/y",
            "A tool whose manifest lists the wrong parameters.",
            [P("a", "string", "A.", examples=["a"])],
            ("string", "s"),
        )
        def broken(b: str) -> str:
            return b
