"""Fast start (issues 16 and 17): a command imports only what it needs, and what it skips changes
no result.

Imports are checked in fresh interpreters (this test process has imported everything already).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from chemground.lit.index import TermScores
from chemground.retrieval.bm25 import BM25Index

SRC = Path(__file__).resolve().parents[1] / "src"


def _fresh(code: str, tmp_path: Path) -> dict:
    """Run ``code`` in a new interpreter (it prints one JSON line) and return what it printed."""
    env = {
        **os.environ,
        "PYTHONPATH": str(SRC),
        "CHEMGROUND_CACHE_DIR": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_searching_bm25_imports_no_scipy_and_indexing_still_works(tmp_path):
    out = _fresh(
        """
import json, os, sys
from chemground.retrieval.bm25 import BM25Index, bm25s_module
bm25s_module()
searched = "scipy.sparse" in sys.modules or "tqdm" in sys.modules
env_left = "DISABLE_TQDM" in os.environ
index = BM25Index(["benzaldehyde and hydrazine", "suzuki coupling of aryl bromides"], ["a", "b"])
print(json.dumps({"searched": searched, "env_left": env_left,
                  "hits": index.search("suzuki coupling", 2),
                  "scipy_after_indexing": "scipy.sparse" in sys.modules}))
""",
        tmp_path,
    )
    assert out["searched"] is False and out["env_left"] is False
    assert out["scipy_after_indexing"] is True
    assert [hit[0] for hit in out["hits"]] == ["b"]


def test_a_saved_bm25_index_searches_like_the_built_one(tmp_path):
    texts = [
        "Benzaldehyde reacts with benzohydrazide in ethanol to give the hydrazone.",
        "The Suzuki coupling of 4-bromotoluene with phenylboronic acid used Pd(PPh3)4.",
        "Micromixing affects the selectivity of fast competitive reactions.",
        "Aspirin is acetylsalicylic acid; its molecular weight is 180.16 g/mol.",
    ]
    built = BM25Index(texts, ["a", "b", "c", "d"])
    built.save(tmp_path / "bm25")
    loaded = BM25Index.load(tmp_path / "bm25")
    for query in ("suzuki coupling", "selectivity of reactions", "molecular weight", "zzz"):
        assert loaded.search(query, 4) == built.search(query, 4)


def test_term_scores_sum_rows_exactly_as_scipy(tmp_path):
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(7)
    for trial in range(60):
        n, width = int(rng.integers(1, 200)), int(rng.integers(2, 120))
        matrix = sparse.random(
            n,
            width,
            density=float(rng.uniform(0.02, 0.6)),
            format="csc",
            dtype=np.float32,
            random_state=trial,
        ).tocsr()
        path = tmp_path / f"m{trial}.npz"
        sparse.save_npz(path, matrix)
        scores = TermScores.load(path)
        assert scores.shape == matrix.shape
        rows = rng.integers(0, n, size=int(rng.integers(1, 3 * n)))
        columns = sorted(set(rng.integers(1, width, size=int(rng.integers(1, 14))).tolist()))
        expected = np.asarray(matrix[rows][:, columns].sum(axis=1), dtype=np.float32).ravel()
        got = scores.row_sums(rows, columns)
        assert got.dtype == np.float32
        assert np.array_equal(got.view(np.uint32), expected.view(np.uint32))  # bit for bit


def test_tool_bm25_index_is_kept_on_disk_and_ranks_the_same(tmp_path):
    from chemground.agent.retriever import ToolRetriever

    in_memory = ToolRetriever()
    first = ToolRetriever(cache_dir=tmp_path)
    assert first.bm25 is not None  # built and kept
    (kept,) = (tmp_path / "tool-index").iterdir()
    assert (kept / "ids.json").is_file()
    second = ToolRetriever(cache_dir=tmp_path)
    for query in (
        "molecular weight of a SMILES string",
        "is this molecule likely to cross into the brain?",
        "band gap of a crystal structure",
    ):
        expected = in_memory.search(query, k=10, method="bm25")
        assert second.search(query, k=10, method="bm25") == expected
        assert first.search(query, k=10, method="bm25") == expected


def test_tools_search_needs_neither_the_kb_nor_rdkit_nor_scipy(tmp_path):
    code = """
import contextlib, io, json, sys
from chemground.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    main(["tools", "search", "molecular weight of a SMILES string", "--method", "bm25", "--json"])
loaded = {name: name in sys.modules
          for name in ("rdkit", "scipy.sparse", "chemground.workspace", "rich.progress")}
print(json.dumps({"hits": json.loads(out.getvalue()), "loaded": loaded}))
"""
    first = _fresh(code, tmp_path)  # builds the tool index (with scipy) and keeps it
    second = _fresh(code, tmp_path)  # loads it
    assert second["hits"] == first["hits"] and first["hits"]
    assert second["loaded"] == {
        "rdkit": False,
        "scipy.sparse": False,
        "chemground.workspace": False,
        "rich.progress": False,
    }
