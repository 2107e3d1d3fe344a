"""Hostile and damaged input files (issue 14): no traceback, no stall, no leak, nothing
half-written.

Covers the HTML reader's dependency, symbolic links and special files in `lit add FOLDER`,
the per-file size limit and linear-time cleaning/chunking, explicit text encodings for
imports and papers, import workers that die with their parent, the import summary's count
of repeated rows, control characters in row fields, and malformed files for every importer
and every paper reader.
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import tomllib
from pathlib import Path

import pytest
from ord_schema.proto import dataset_pb2
from rdkit import Chem

from chemground.chem.names import NameResolver, normalize_name
from chemground.cli import main
from chemground.errors import ImportFileError, NotFoundError
from chemground.kb.importers import import_file
from chemground.lit.chunking import chunk_text
from chemground.lit.cleaning import clean, strip_citations
from chemground.lit.errors import DocumentReadError
from chemground.lit.ingest import Ingestor
from chemground.lit.readers import read_document
from chemground.lit.records import TextSpan
from chemground.settings import get_settings
from tests.conftest import REPO, copy_kb
from tests.lit.papers import write_corpus
from tests.support.kbstate import kb_digest

CSV_HEADER = "id,text,reactants,reactants_smiles,products,products_smiles\n"


@pytest.fixture
def resolver(kb_copy, opsin):
    return NameResolver(kb_copy, opsin)


def _no_traceback(text: str) -> None:
    assert "Traceback" not in text, text


# -- 1. the HTML reader's dependencies ---------------------------------------------------------
def test_the_html_cleaner_that_trafilatura_needs_is_declared_and_importable():
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert any(d.replace("-", "_").startswith("lxml_html_clean") for d in dependencies)
    import lxml_html_clean  # noqa: F401
    import trafilatura  # noqa: F401  (fails without lxml_html_clean on lxml >= 5.2)


def test_a_missing_html_dependency_is_named_in_the_error(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<html><body><p>Benzaldehyde was reduced.</p></body></html>")
    script = textwrap.dedent(f"""
        import sys
        for name in ("lxml_html_clean", "lxml.html.clean"):
            sys.modules[name] = None  # as on a fresh install without the package
        from pathlib import Path
        from chemground.lit.errors import DocumentReadError
        from chemground.lit.readers.html import read_html
        try:
            read_html(Path({str(page)!r}))
        except DocumentReadError as error:
            print("ERROR", error)
    """)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert (
        "ERROR" in out.stdout
        and "lxml.html.clean" in out.stdout
        and "pip install lxml_html_clean" in out.stdout
    )
    assert "pip install trafilatura" not in out.stdout


# -- 2. symbolic links and special files in a folder ---------------------------------------------
def test_lit_add_folder_stays_inside_the_folder_and_skips_special_files(kb_copy, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("Secret outside text about palladium catalysts that must not be stored.\n")
    (outside / "more.txt").write_text("More outside text about toluene oxidation.\n")
    folder = tmp_path / "papers"
    (folder / "sub").mkdir(parents=True)
    (folder / "paper.txt").write_text(
        "Benzaldehyde was reduced to benzyl alcohol with sodium borohydride.\n"
    )
    (folder / "sub" / "other.txt").write_text(
        "Toluene was oxidised to benzoic acid by permanganate.\n"
    )
    (folder / "out-link.txt").symlink_to(secret)  # a file link leading out
    (folder / "passwd.txt").symlink_to("/etc/passwd")
    (folder / "out-dir").symlink_to(outside, target_is_directory=True)  # a folder link leading out
    (folder / "in-link.txt").symlink_to(folder / "paper.txt")  # inside: the same paper, once
    (folder / "loop.txt").symlink_to(folder / "loop.txt")
    os.mkfifo(folder / "pipe.txt")  # reading a FIFO would block for ever

    ingestor = Ingestor(kb_copy, find_mentions=False)
    started = time.monotonic()
    summary = ingestor.add([folder])
    assert time.monotonic() - started < 60
    assert sorted(Path(f.path).name for f in summary.files) == ["other.txt", "paper.txt"]
    assert all(f.status == "added" for f in summary.files), [f.error for f in summary.files]
    reasons = {Path(s.path).name: s.reason for s in summary.skipped}
    assert (
        "outside the folder" in reasons["out-link.txt"]
        and "outside the folder" in reasons["passwd.txt"]
    )
    assert "outside the folder" in reasons["out-dir"]
    assert "not a regular file" in reasons["pipe.txt"]
    assert "broken" in reasons["loop.txt"]
    texts = " ".join(d.text for d in ingestor.store.documents())
    assert "Secret outside" not in texts and "root:" not in texts and "More outside" not in texts
    assert summary.to_dict()["skipped"]


def test_a_fifo_named_directly_is_refused_without_blocking(kb_copy, tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    result = Ingestor(kb_copy, find_mentions=False).add_file(fifo)
    assert result.status == "failed" and "not a regular file" in result.error


def test_cli_lit_add_reports_skipped_links(kb_copy, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CHEMGROUND_KB", str(kb_copy.path))
    monkeypatch.setenv("CHEMGROUND_CACHE_DIR", str(tmp_path / "cache"))
    get_settings.cache_clear()
    kb_copy.close()
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "paper.txt").write_text("Benzaldehyde was reduced to benzyl alcohol.\n")
    (folder / "passwd.txt").symlink_to("/etc/passwd")
    code = main(["lit", "add", str(folder), "--no-index", "--no-mentions"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "skipped" in err and "passwd.txt" in err and "outside the folder" in err
    assert "1 added" in out and "1 skipped" in out


# -- 3. size limit, linear time and bounded memory -------------------------------------------------
def test_a_file_over_the_size_limit_is_refused_with_its_name_and_the_limit(kb_copy, tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("Benzaldehyde was reduced to benzyl alcohol.\n" * 50_000)  # 2.2 MB
    result = Ingestor(kb_copy, find_mentions=False, max_file_mb=1).add_file(big)
    assert result.status == "failed"
    assert "big.txt" in result.error and "2.2 MB" in result.error and "1 MB limit" in result.error
    assert "--max-file-mb" in result.error
    assert Ingestor(kb_copy, find_mentions=False, max_file_mb=5).add_file(big).status == "added"


def test_cli_max_file_mb(kb_copy, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CHEMGROUND_KB", str(kb_copy.path))
    monkeypatch.setenv("CHEMGROUND_CACHE_DIR", str(tmp_path / "cache"))
    get_settings.cache_clear()
    kb_copy.close()
    big = tmp_path / "big.txt"
    big.write_text("Toluene was oxidised to benzoic acid.\n" * 30_000)
    code = main(
        ["lit", "add", str(big), "--no-index", "--no-mentions", "--max-file-mb", "0.5", "--json"]
    )
    out, err = capsys.readouterr()
    assert code == 1
    data = json.loads(out[out.index("{") :])
    assert "big.txt" in data["files"][0]["error"] and "0.5 MB limit" in data["files"][0]["error"]
    _no_traceback(out + err)


@pytest.mark.parametrize(
    "text",
    [
        "(" + " " * 60_000 + "x",  # a bracket followed by a long run of spaces
        "a" + " " * 60_000 + "b",
        "(" + "\u2003" * 60_000 + ")",
        "[1," * 40_000,
        "(Smith 2020; " * 20_000,
    ],
)
def test_citation_stripping_is_linear_on_hostile_text(text):
    started = time.perf_counter()
    strip_citations(text)
    assert time.perf_counter() - started < 2.0  # 15 s and more before (quadratic)


def test_text_without_separators_is_chunked_in_bounded_segments(monkeypatch):
    import tracemalloc

    import chemground.lit.chunking as chunking

    monkeypatch.setattr(chunking, "SEGMENT_CHARS", 50_000)
    text = "x" * 600_000 + "\n\n" + "Benzaldehyde was reduced. " * 20_000
    tracemalloc.start()
    try:
        spans = chunk_text(text, [TextSpan(0, len(text), None, None)], 2000, 200)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 60e6  # one string per character of the whole text was 35 MB per 600k characters
    assert all(s.end - s.start <= 2000 for s in spans)
    assert all(a.start <= b.start for a, b in itertools.pairwise(spans))
    covered = bytearray(len(text))
    for s in spans:
        covered[s.start : s.end] = b"\x01" * (s.end - s.start)
    assert all(covered[i] or text[i].isspace() for i in range(0, len(text), 997))


def test_cleaning_and_chunking_scale_linearly(tmp_path):
    paragraph = (
        "Benzaldehyde was reduced with sodium borohydride in ethanol at 25 °C [12]. The yield was "
        "92 % "
        "(Smith et al., 2020). Palladium on carbon gave full conversion.\n"
    )
    timings = []
    for repeats in (2_000, 8_000):
        path = tmp_path / f"p{repeats}.txt"
        path.write_text("# Report\n\n" + "\n".join(paragraph for _ in range(repeats)))
        started = time.perf_counter()
        cleaned = clean(read_document(path))
        chunk_text(cleaned.text, cleaned.spans)
        timings.append(time.perf_counter() - started)
    assert timings[1] < 4 * timings[0] * 2.5 + 0.5  # 4x the text: about 4x the time, far from 16x


# -- 4. explicit encodings
# ---------------------------------------------------------------------------
LATIN1_CSV = CSV_HEADER + "e1,Réaction à 25 °C,ethanol,CCO,acetaldehyde,CC=O\n"


def test_a_latin1_csv_is_refused_with_offset_and_option_then_imported_with_encoding(
    kb_copy, resolver, tmp_path
):
    path = tmp_path / "latin.csv"
    path.write_bytes(LATIN1_CSV.encode("latin-1"))
    before = kb_digest(kb_copy)
    with pytest.raises(ImportFileError) as caught:
        import_file(kb_copy, path, resolver=resolver)
    message = str(caught.value)
    offset = LATIN1_CSV.encode("latin-1").index("é".encode("latin-1"))
    assert str(path) in message and f"byte {offset}" in message and "line 2" in message
    assert "--encoding" in message
    assert kb_digest(kb_copy) == before  # nothing half-written
    summary = import_file(kb_copy, path, resolver=resolver, encoding="latin-1")
    assert summary.reactions_added == 1
    assert kb_copy.get_reaction("e1").description == "Réaction à 25 °C"


@pytest.mark.parametrize(
    "encoding,bom",
    [("utf-16", b""), ("utf-8-sig", b""), ("utf-32", b""), ("utf-16-be", b"\xfe\xff")],
)
def test_a_byte_order_mark_chooses_the_encoding(kb_copy, resolver, tmp_path, encoding, bom):
    path = tmp_path / "marked.csv"
    path.write_bytes(bom + LATIN1_CSV.replace("e1,", "u1,").encode(encoding))
    summary = import_file(kb_copy, path, resolver=resolver)
    assert summary.reactions_added == 1
    assert kb_copy.get_reaction("u1").description == "Réaction à 25 °C"


def test_utf16_without_a_mark_needs_the_option(kb_copy, resolver, tmp_path):
    path = tmp_path / "plain16.jsonl"
    record = {"id": "j16", "reactants": ["CCO"], "products": ["CC=O"], "text": "Oxydation à l'air"}
    path.write_bytes((json.dumps(record, ensure_ascii=False) + "\n").encode("utf-16-le"))
    with pytest.raises(ImportFileError, match=r"binary data.*--encoding utf-16-le"):
        import_file(kb_copy, path, resolver=resolver)
    assert import_file(kb_copy, path, resolver=resolver, encoding="utf-16-le").reactions_added == 1
    with pytest.raises(ImportFileError, match="unknown text encoding"):
        import_file(kb_copy, path, resolver=resolver, encoding="no-such-codec")


def test_latin1_sdf_and_obo_are_read_with_the_option(kb_copy, resolver, tmp_path):
    mol = Chem.MolFromSmiles("OC(=O)c1ccccc1C(=O)O")
    mol.SetProp("_Name", "acide phtalique")
    mol.SetProp("Synonyms", "acide phtalique\nphtalate d'hydrogène")
    handle = io.StringIO()
    writer = Chem.SDWriter(handle)
    writer.write(mol)
    writer.close()
    sdf = tmp_path / "latin.sdf"
    sdf.write_bytes(handle.getvalue().encode("latin-1"))
    with pytest.raises(
        ImportFileError, match=r"latin\.sdf: not valid UTF-8 text at byte \d+.*--encoding"
    ):
        import_file(kb_copy, sdf, resolver=resolver)
    import_file(kb_copy, sdf, resolver=resolver, encoding="latin-1")
    (hit,) = kb_copy.lookup_name(normalize_name("phtalate d'hydrogène"))
    assert "phtalate d'hydrogène" in kb_copy.get_compound(hit.compound_id).all_names()
    obo = tmp_path / "latin.obo"
    obo.write_bytes("format-version: 1.2\n\n[Term]\nid: CHEBI:1\nname: éthanol\n".encode("latin-1"))
    with pytest.raises(
        ImportFileError, match=r"latin\.obo: not valid UTF-8 text at byte 46 \(line 5"
    ):
        import_file(kb_copy, obo, resolver=resolver)
    assert import_file(kb_copy, obo, resolver=resolver, encoding="latin-1").records_read == 1


def test_cli_kb_import_of_a_latin1_csv_is_a_clear_error_then_works_with_encoding(
    small_kb_path, tmp_path, capsys
):
    kb_path = copy_kb(small_kb_path, tmp_path)
    path = tmp_path / "latin.csv"
    path.write_bytes(LATIN1_CSV.encode("latin-1"))
    code = main(["--kb", str(kb_path), "kb", "import", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and "latin.csv" in err and "--encoding" in err
    _no_traceback(out + err)
    code = main(
        ["--kb", str(kb_path), "kb", "import", str(path), "--encoding", "latin-1", "--json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out[out.index("{") :])["reactions_added"] == 1


def test_lit_text_encodings(kb_copy, tmp_path):
    ingestor = Ingestor(kb_copy, find_mentions=False)
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Étude de la réduction du benzaldéhyde.\n".encode("latin-1"))
    failed = ingestor.add_file(latin)
    assert failed.status == "failed"
    assert "latin.txt" in failed.error and "byte 0" in failed.error and "--encoding" in failed.error
    added = Ingestor(kb_copy, find_mentions=False, encoding="latin-1").add_file(latin)
    assert added.status == "added"
    assert ingestor.store.document(added.document_id).text.startswith("Étude de la réduction")
    marked = tmp_path / "utf16.txt"
    marked.write_bytes("Hydrogénation du toluène.\n".encode("utf-16"))  # with its BOM
    result = ingestor.add_file(marked)
    assert result.status == "added", result.error
    assert ingestor.store.document(result.document_id).text == "Hydrogénation du toluène."


# -- 5. workers die with the import ----------------------------------------------------------------
def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie waits only for init to reap it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_killing_an_import_with_sigkill_takes_its_workers_with_it(small_kb_path, tmp_path):
    kb_path = copy_kb(small_kb_path, tmp_path)
    rows = ["id,reactants_smiles,products_smiles,reagents\n"]
    for i in range(20_000):  # distinct structures: minutes of work for the pool
        a, b = i % 97 + 1, i // 97 + 1
        reagent = (
            f"{i % 9 + 2}-methyl-{i % 7 + 3}-propylundecan-1-ol" if i < 400 else ""
        )  # names: OPSIN's JVM
        rows.append(f"k{i},{'C' * a}O{'C' * b}N,{'C' * a}OC(=O){'C' * b}N,{reagent}\n")
    path = tmp_path / "many.csv"
    path.write_text("".join(rows))
    env = {**os.environ, "CHEMGROUND_WORKERS": "2", "CHEMGROUND_KB": str(kb_path)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from chemground.cli import entry; entry()",
            "kb",
            "import",
            str(path),
            "--json",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        workers: list[int] = []
        while time.monotonic() < deadline and len([w for w in workers if _comm(w) != "java"]) < 2:
            assert proc.poll() is None, "the import ended before its workers started"
            workers = [c for c in _children(proc.pid) if _alive(c)]
            time.sleep(0.1)
        assert len(workers) >= 2, "the worker pool did not start"
        time.sleep(0.5)
        workers = [c for c in _children(proc.pid) if _alive(c)]  # the OPSIN JVM too, once it runs
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not [(w, _comm(w)) for w in workers if _alive(w)], (
            "workers outlived the killed import"
        )
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _children(proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_watchdog_alone_ends_a_worker_whose_parent_was_killed():
    """Without the kernel's parent-death signal (a pool forked from another thread)."""
    script = textwrap.dedent("""
        import os, sys, time
        from chemground.kb.workers import tie_to_parent
        parent = os.getpid()
        child = os.fork()
        if child == 0:
            tie_to_parent(parent, death_signal=False)
            time.sleep(60)
            os._exit(0)
        print(child, flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = int(proc.stdout.readline())
    try:
        assert _alive(child)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and _alive(child):
            time.sleep(0.1)
        assert not _alive(child)
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


def test_a_worker_whose_parent_is_already_gone_exits_at_once():
    script = textwrap.dedent("""
        import os, time
        from chemground.kb.workers import tie_to_parent
        child = os.fork()
        if child == 0:
            tie_to_parent(os.getppid() + 1_000_000, death_signal=False)  # not its parent: it exits
            time.sleep(30)
            os._exit(0)
        _, status = os.waitpid(child, 0)
        print("exit", os.waitstatus_to_exitcode(status))
    """)
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "exit 1" in out.stdout, out.stderr
    assert time.monotonic() - started < 20


# -- 6. the summary counts what was inserted
# ------------------------------------------------------------
def test_rows_repeated_in_one_file_are_counted_once(kb_copy, resolver, tmp_path):
    rows = [
        "d1,first,ethanol,CCO,acetaldehyde,CC=O\n",
        "d1,first,ethanol,CCO,acetaldehyde,CC=O\n",
        "d1,first,ethanol,CCO,acetaldehyde,CC=O\n",
        "d2,second,methanol,CO,formaldehyde,C=O\n",
    ]
    no_id = ",same text,propanol,CCCO,propanal,CCC=O\n"
    path = tmp_path / "repeats.csv"
    path.write_text(CSV_HEADER + "".join(rows) + no_id * 2)
    before = kb_copy.stats().reactions
    summary = import_file(kb_copy, path, resolver=resolver)
    inserted = kb_copy.stats().reactions - before
    assert inserted == 3
    assert summary.reactions_added == inserted and summary.reactions_unchanged == 3
    assert summary.participants == 6 and summary.rows_read == 6


# -- 7. control characters in fields
# ----------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_nul_byte_in_a_name_is_a_reported_row_error_and_never_stored(
    kb_copy, resolver, tmp_path, fmt
):
    if fmt == "csv":
        path = tmp_path / "nul.csv"
        path.write_text(
            CSV_HEADER + "n1,ok,ethanol,CCO,acetaldehyde,CC=O\n"
            "n2,bad,benz\x00aldehyde,O=Cc1ccccc1,benzyl alcohol,OCc1ccccc1\n",
            encoding="utf-8",
        )
    else:
        path = tmp_path / "nul.jsonl"
        path.write_text(
            json.dumps({"id": "n1", "reactants": ["CCO"], "products": ["CC=O"]})
            + "\n"
            + json.dumps(
                {
                    "id": "n2",
                    "reactants": [{"name": "benz\x00aldehyde", "smiles": "O=Cc1ccccc1"}],
                    "products": ["OCc1ccccc1"],
                }
            )
            + "\n"
        )
    before = kb_digest(kb_copy)
    line = 3 if fmt == "csv" else 2
    with pytest.raises(
        ImportFileError, match=rf"line {line}: control character U\+0000 \(NUL\).*reactant name"
    ):
        import_file(kb_copy, path, resolver=resolver)
    assert kb_digest(kb_copy) == before
    summary = import_file(kb_copy, path, resolver=resolver, skip_bad_rows=True)
    assert summary.reactions_added == 1 and len(summary.errors) == 1
    assert "NUL" in summary.errors[0][1]
    (participants,) = kb_copy.execute(
        "SELECT count(*) FROM participants WHERE instr(name, char(0)) > 0"
    ).fetchone()
    (names,) = kb_copy.execute(
        r"SELECT count(*) FROM compounds WHERE instr(synonyms, char(0)) > 0 OR instr(synonyms, "
        r"'\u0000') > 0"
    ).fetchone()
    assert participants == 0 and names == 0
    with pytest.raises(NotFoundError):
        kb_copy.get_reaction("n2")


def test_control_characters_in_free_text_are_refused_but_line_breaks_are_kept(
    kb_copy, resolver, tmp_path
):
    path = tmp_path / "text.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "t1",
                "reactants": ["CCO"],
                "products": ["CC=O"],
                "text": "Step one.\nStep two.\tDone.",
            }
        )
        + "\n"
        + json.dumps(
            {"id": "t2", "reactants": ["CO"], "products": ["C=O"], "text": "bell \x07 here"}
        )
        + "\n"
    )
    summary = import_file(kb_copy, path, resolver=resolver, skip_bad_rows=True)
    assert summary.reactions_added == 1 and "U+0007" in summary.errors[0][1]
    assert kb_copy.get_reaction("t1").description == "Step one.\nStep two.\tDone."


def test_a_nul_byte_in_an_sdf_name_is_refused(kb_copy, resolver, tmp_path):
    mol = Chem.MolFromSmiles("CCCCCCCCCCO")
    mol.SetProp("_Name", "dec\x01anol")
    handle = io.StringIO()
    writer = Chem.SDWriter(handle)
    writer.write(mol)
    writer.close()
    path = tmp_path / "ctl.sdf"
    path.write_text(handle.getvalue())
    with pytest.raises(ImportFileError, match=r"control character U\+0001 .* in name"):
        import_file(kb_copy, path, resolver=resolver)


def test_control_characters_in_a_paper_are_removed_not_stored(kb_copy, tmp_path):
    path = tmp_path / "stray.txt"
    filler = (
        b"Palladium on carbon gave full conversion within two hours at room temperature.\n\n" * 20
    )
    path.write_bytes(
        b"Benzaldehyde was re\x00duced\x1b[0m to benzyl alcohol.\x0cPage two: toluene.\n\n" + filler
    )
    ingestor = Ingestor(kb_copy, find_mentions=False)
    result = ingestor.add_file(path)
    assert result.status == "added", result.error  # a stray NUL in a text file is not binary data
    text = ingestor.store.document(result.document_id).text
    assert text.startswith(
        "Benzaldehyde was reduced[0m to benzyl alcohol.\nPage two: toluene.\n\nPalladium"
    )
    assert all(
        ch in "\n" or ch.isprintable()
        for c in ingestor.store.chunks_of(result.document_id)
        for ch in c.text
    )


# -- 8. malformed files, every importer and reader
# ------------------------------------------------------
def _sdf_bytes() -> bytes:
    mol = Chem.MolFromSmiles("CCO")
    mol.SetProp("_Name", "ethanol")
    handle = io.StringIO()
    writer = Chem.SDWriter(handle)
    writer.write(mol)
    writer.close()
    return handle.getvalue().encode()


def _ord_bytes() -> bytes:
    dataset = dataset_pb2.Dataset(name="t")
    reaction = dataset.reactions.add(reaction_id="ord-x")
    component = reaction.inputs["a"].components.add(reaction_role=1)
    component.identifiers.add(type="SMILES", value="CCO")
    return dataset.SerializeToString()


GOOD = {
    "x.csv": (CSV_HEADER + "g1,good,ethanol,CCO,acetaldehyde,CC=O\n").encode(),
    "x.jsonl": b'{"reactants": ["CCO"], "products": ["CC=O"]}\n',
    "x.smi": b"CCO>>CC=O\n",
    "x.pb": _ord_bytes(),
    "x.sdf": _sdf_bytes(),
    "x.obo": b"format-version: 1.2\n\n[Term]\nid: CHEBI:1\nname: ethanol\n",
}
BINARY = bytes(range(256)) * 8  # NUL bytes and every other byte


def _truncated_gzip(data: bytes) -> bytes:
    packed = gzip.compress(data * 200)
    return packed[: len(packed) // 2]


IMPORT_CASES = (
    [
        (name + ".gz", _truncated_gzip(data), "truncated or corrupt gzip")
        for name, data in GOOD.items()
    ]
    + [(name, BINARY, "binary data|not a readable ORD") for name in GOOD]
    + [(name, b"", "empty file") for name in GOOD]
    + [
        (
            name,
            b"\xff\xfe" + "\x01\x02 not this format \x03".encode("utf-16-le") * 5,
            "could not be read|no SDF records|not a readable",
        )
        for name in GOOD
    ]
    + [
        (
            "x.csv",
            GOOD["x.csv"].replace(b"good", b"g\xe9d"),
            r"not valid UTF-8 text at byte 64 \(line 2: 0xe9\)",
        ),
        ("x.pbtxt", b'name: "t"\nreactions { reaction_id: "\xe9" }\n', "not valid UTF-8"),
        ("x.pbtxt", b"reactions { this is not protobuf text", "not a readable ORD dataset"),
        (
            "x.json",
            b'{"reactions": [ {"reactionId": 5',
            "could not be read|not a readable ORD dataset",
        ),
        ("x.jsonl.gz", b"plain text, not gzip", "named .gz but not gzip"),
    ]
)


@pytest.mark.parametrize(
    "name,data,expected", IMPORT_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(IMPORT_CASES)]
)
def test_a_malformed_import_file_is_a_clear_error_naming_it(
    kb_copy, resolver, tmp_path, name, data, expected
):
    path = tmp_path / name
    path.write_bytes(data)
    before = kb_digest(kb_copy)
    with pytest.raises(ImportFileError, match=expected) as caught:
        import_file(kb_copy, path, resolver=resolver)
    assert str(path) in str(caught.value)
    assert len(str(caught.value)) < 2000
    assert kb_digest(kb_copy) == before


def test_the_good_files_of_the_malformed_cases_do_import(kb_copy, resolver, tmp_path):
    for name, data in GOOD.items():
        path = tmp_path / name
        path.write_bytes(data)
        import_file(kb_copy, path, resolver=resolver)
        packed = tmp_path / (name + ".gz")
        packed.write_bytes(gzip.compress(data))
        import_file(kb_copy, packed, resolver=resolver)


def test_special_files_and_folders_are_refused_by_import(kb_copy, resolver, tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with pytest.raises(ImportFileError, match="not a regular file"):
        import_file(kb_copy, fifo, resolver=resolver)
    with pytest.raises(ImportFileError, match="is a folder"):
        import_file(kb_copy, tmp_path, resolver=resolver, fmt="csv")


@pytest.fixture(scope="module")
def good_papers(tmp_path_factory) -> dict[str, bytes]:
    corpus = write_corpus(tmp_path_factory.mktemp("papers"))
    return {fmt: path.read_bytes() for fmt, path in corpus.items()}


PAPER_SUFFIX = {"pdf": ".pdf", "xml": ".xml", "html": ".html", "text": ".txt"}
PAPER_CASES = [
    (fmt, case)
    for fmt in ("pdf", "xml", "html", "text")
    for case in ("empty", "binary", "truncated", "gzip", "latin1-as-utf8")
]


@pytest.mark.parametrize("fmt,case", PAPER_CASES, ids=[f"{f}-{c}" for f, c in PAPER_CASES])
def test_a_malformed_paper_is_a_clear_error_naming_it(kb_copy, tmp_path, good_papers, fmt, case):
    good = good_papers[fmt]
    data = {
        "empty": b"",
        "binary": BINARY,
        "truncated": good[: len(good) // 3],
        "gzip": _truncated_gzip(good),
        "latin1-as-utf8": "Étude du benzaldéhyde; réduction à 25 °C.\n".encode("latin-1") * 5,
    }[case]
    path = tmp_path / f"paper-{case}{PAPER_SUFFIX[fmt]}"
    path.write_bytes(data)
    ingestor = Ingestor(kb_copy, find_mentions=False)
    before = kb_digest(kb_copy)
    result = ingestor.add_file(path)
    if case == "truncated" and fmt in ("html", "text"):
        assert result.status in (
            "added",
            "failed",
        )  # a cut text or page can still be a (short) paper
    else:
        assert result.status == "failed"
        assert kb_digest(kb_copy) == before
    if result.status == "failed":
        assert path.name in result.error and "while reading" not in result.error, result.error
    with pytest.raises(DocumentReadError) if result.status == "failed" else _nothing():
        read_document(path)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_cli_gives_one_line_errors_for_malformed_files(small_kb_path, tmp_path, capsys):
    kb_path = copy_kb(small_kb_path, tmp_path)
    bad_csv = tmp_path / "binary.csv"
    bad_csv.write_bytes(BINARY)
    truncated = tmp_path / "cut.jsonl.gz"
    truncated.write_bytes(_truncated_gzip(GOOD["x.jsonl"]))
    code = main(["--kb", str(kb_path), "kb", "import", str(bad_csv), str(truncated)])
    out, err = capsys.readouterr()
    assert code == 2 and "binary.csv" in err and "cut.jsonl.gz" in err
    _no_traceback(out + err)
    empty_pdf = tmp_path / "empty.pdf"
    empty_pdf.write_bytes(b"")
    code = main(["--kb", str(kb_path), "lit", "add", str(empty_pdf), "--no-index"])
    out, err = capsys.readouterr()
    assert code == 1 and "empty.pdf: empty file" in err
    _no_traceback(out + err)
