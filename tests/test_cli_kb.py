"""The command line for the KB: compound, kb stats, kb import; exit codes and messages."""

from __future__ import annotations

import json

import pytest

from chemground.cli import main
from tests.conftest import copy_kb


@pytest.fixture
def kb_env(small_kb_path, tmp_path, monkeypatch):
    path = copy_kb(small_kb_path, tmp_path)
    monkeypatch.setenv("CHEMGROUND_KB", str(path))
    from chemground.settings import get_settings

    get_settings.cache_clear()
    return path


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_name_and_smiles_show_the_same_record(kb_env, capsys):
    code, out, _ = run(capsys, "compound", "2,5-dichloropyrimidine", "--json")
    assert code == 0
    by_name = json.loads(out)
    code, out, _ = run(capsys, "compound", "Clc1ncc(Cl)cn1", "--json")
    by_smiles = json.loads(out)
    for key in ("smiles", "inchikey", "formula", "molecular_weight", "exact_mass"):
        assert by_name[key] == by_smiles[key]
    assert by_name["formula"] == "C4H2Cl2N2" and round(by_name["molecular_weight"], 2) == 148.98
    assert by_name["resolved_by"] == "opsin" and by_smiles["resolved_by"] == "smiles"


def test_human_output_lists_names_ids_and_reactions(kb_env, capsys):
    code, out, _ = run(capsys, "compound", "Aspirin")
    assert code == 0
    assert "CC(=O)Oc1ccccc1C(=O)O" in out and "180.16 g/mol" in out and "CAS 50-78-2" in out
    assert "starter:" in out  # linked starter reactions


def test_nonsense_input_is_a_clear_error_and_nonzero_exit(kb_env, capsys):
    code, out, err = run(capsys, "compound", "qwertyuiop-zzz")
    assert code == 2 and out == ""
    assert "could not resolve 'qwertyuiop-zzz'" in " ".join(err.split()) and "Traceback" not in err


def test_kb_stats_json(kb_env, capsys):
    code, out, _ = run(capsys, "kb", "stats", "--json")
    data = json.loads(out)
    assert code == 0 and data["reactions"] == 274 and data["meta"]["starter_reactions"] == "274"


def test_kb_import_reports_summary_and_is_idempotent(kb_env, capsys, tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "cli-1",
                "reactants": ["benzaldehyde", "hydroxylamine"],
                "products": ["benzaldehyde oxime"],
                "yield": "91%",
            }
        )
        + "\n"
    )
    code, out, _ = run(capsys, "kb", "import", str(path), "--json")
    first = json.loads(out)
    assert code == 0 and first["reactions_added"] == 1
    code, out, _ = run(capsys, "kb", "import", str(path))
    assert code == 0 and "already imported, nothing changed" in " ".join(out.split())


def test_kb_import_says_how_many_reactants_were_refiled(kb_env, capsys, tmp_path):
    path = tmp_path / "patent.smi"  # mapped: DIPEA and HCl give no atom to the amide
    path.write_text(
        "[CH3:1][C:2](Cl)=[O:3].[NH2:4][CH2:5][c:6]1[cH:7][cH:8][cH:9][cH:10][cH:11]1"
        ".CCN(C(C)C)C(C)C.Cl>ClCCl>[CH3:1][C:2](=[O:3])[NH:4][CH2:5][c:6]1[cH:7][cH:8][cH:9]"
        "[cH:10][cH:11]1\tUS-TEST\n"
    )
    code, out, _ = run(capsys, "kb", "import", str(path))
    text = " ".join(out.split())
    assert code == 0 and "re-filed as reagents, solvents or catalysts: 2 (atom-map 2;" in text
    copy = tmp_path / "copy.smi"
    copy.write_text(path.read_text().replace("US-TEST", "US-TEST-2"))
    code, out, _ = run(capsys, "kb", "import", str(copy), "--json")
    assert code == 0 and json.loads(out)["roles_reassigned"] == {"atom-map": 2}


def test_kb_import_of_a_bad_file_exits_nonzero(kb_env, capsys, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("id,text\n1,x\n")
    code, _out, err = run(capsys, "kb", "import", str(path), "--format", "csv")
    assert code == 2 and "missing columns" in " ".join(err.split())
