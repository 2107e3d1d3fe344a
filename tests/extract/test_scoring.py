"""Gold matching on hand-made gold/prediction pairs: exact P/R/F1 and tolerances."""

import pytest

from chemground.extract.gold import GoldCompound, GoldRecord
from chemground.extract.schema import ExtractedReaction
from chemground.extract.scoring import PRF, Item, Scoreboard, Tolerances, dedupe, match_count

KEYS = {
    "ethanol": "LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
    "EtOH": "LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
    "acetic acid": "QTBSBXVTEAMEQO-UHFFFAOYSA-N",
    "AcOH": "QTBSBXVTEAMEQO-UHFFFAOYSA-N",
    "ethyl acetate": "XEKOWRVHYACXOJ-UHFFFAOYSA-N",
    "sulfuric acid": "QAOWNCQODCNURD-UHFFFAOYSA-N",
    "toluene": "YXFVVABEGXRONW-UHFFFAOYSA-N",
    "water": "XLYOFNOQVPJJNP-UHFFFAOYSA-N",
}


def key_of(name):
    return KEYS.get(name)


def gold(**roles) -> GoldRecord:
    compounds = [GoldCompound(role, name) for role, names in roles.items() for name in names]
    return GoldRecord("g1", "test", "text", compounds)


def pred(**fields) -> ExtractedReaction:
    return ExtractedReaction(**fields)


def test_match_by_structure_then_by_name():
    g = [Item("ethanol", KEYS["ethanol"]), Item("Mystery-ol X", None)]
    p = [Item("EtOH", KEYS["EtOH"]), Item("mystery ol x", None), Item("water", KEYS["water"])]
    assert (
        match_count(g, p) == 2
    )  # EtOH = ethanol by InChIKey; the unresolved name by normalised spelling
    assert match_count(g, [Item("ethanol", None)]) == 1  # name match when the prediction has no key
    assert (
        match_count([Item("ethanol", KEYS["ethanol"])], [Item("EtOH", KEYS["EtOH"])] * 2) == 1
    )  # one-to-one


def test_dedupe_counts_a_compound_once():
    items = dedupe(
        [Item("ethanol", KEYS["ethanol"]), Item("EtOH", KEYS["EtOH"]), Item("Ethanol", None)]
    )
    assert len(items) == 1


def test_prf_arithmetic():
    prf = PRF()
    prf.add(2, 3, 4)
    assert (prf.precision, prf.recall) == (pytest.approx(2 / 3), 0.5)
    assert prf.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert PRF().f1 == 0.0 and PRF().precision == 0.0


def test_per_role_scores_on_a_hand_made_pair():
    board = Scoreboard()
    g = gold(
        reactant=["ethanol", "acetic acid", "sulfuric acid"],
        product=["ethyl acetate"],
        solvent=["toluene"],
    )
    p = pred(
        reactants=["EtOH", "AcOH"],
        products=["ethyl acetate"],
        solvents=["water"],
        catalysts=["sulfuric acid"],
    )
    board.add(g, [p], key_of)
    r = board.roles
    assert (r["reactant"].tp, r["reactant"].n_pred, r["reactant"].n_gold) == (2, 2, 3)
    assert r["reactant"].precision == 1.0 and r["reactant"].recall == pytest.approx(2 / 3)
    assert (r["product"].precision, r["product"].recall) == (1.0, 1.0)
    assert (r["solvent"].tp, r["solvent"].n_pred, r["solvent"].n_gold) == (0, 1, 1)
    assert (r["catalyst"].tp, r["catalyst"].n_pred, r["catalyst"].n_gold) == (0, 1, 0)
    # all roles: tp 3 of 5 predicted and 5 gold; role ignored, sulfuric acid counts too: 4 of 5
    assert (board.all_roles.tp, board.all_roles.n_pred, board.all_roles.n_gold) == (3, 5, 5)
    assert board.all_roles.f1 == pytest.approx(0.6)
    assert (board.any_role.tp, board.any_role.n_pred, board.any_role.n_gold) == (4, 5, 5)


def test_micro_average_over_snippets_and_no_prediction():
    board = Scoreboard()
    board.add(
        gold(reactant=["ethanol"], product=["ethyl acetate"]),
        [pred(reactants=["ethanol"], products=["ethyl acetate"])],
        key_of,
    )
    board.add(gold(reactant=["acetic acid"], product=["water"]), [], key_of)
    assert (board.all_roles.tp, board.all_roles.n_pred, board.all_roles.n_gold) == (2, 2, 4)
    assert board.all_roles.precision == 1.0 and board.all_roles.recall == 0.5
    assert board.with_prediction == 1 and board.snippets == 2


def test_the_best_matching_prediction_is_scored():
    board = Scoreboard()
    g = gold(reactant=["ethanol", "acetic acid"], product=["ethyl acetate"])
    wrong = pred(reactants=["toluene"], products=["water"])
    right = pred(reactants=["ethanol"], products=["ethyl acetate"])
    assert board.add(g, [wrong, right], key_of) == 1
    assert board.multiple_predictions == 1
    assert board.roles["product"].tp == 1


def test_condition_tolerances():
    board = Scoreboard(Tolerances(temperature_c=5, time_rel=0.1, time_abs_h=0.1, yield_points=1))
    g = gold(product=["ethyl acetate"])
    g.temperature_c, g.time_h, g.yield_percent = 80.0, 2.0, 85.0
    board.add(
        g,
        [
            pred(
                products=["ethyl acetate"],
                conditions={"temperature_c": 84, "time_h": 2.3},
                yield_percent=85.5,
            )
        ],
        key_of,
    )
    f = board.fields
    assert (f["temperature_c"].correct, f["time_h"].correct, f["yield_percent"].correct) == (
        1,
        0,
        1,
    )
    g2 = gold(product=["ethyl acetate"])
    g2.temperature_c = 25.0
    board.add(
        g2,
        [pred(products=["ethyl acetate"], conditions={"temperature_c": 40}, yield_percent=90)],
        key_of,
    )
    assert f["temperature_c"].gold == 2 and f["temperature_c"].correct == 1
    assert f["yield_percent"].spurious == 1 and f["time_h"].missing == 0
    assert f["temperature_c"].accuracy == 0.5
