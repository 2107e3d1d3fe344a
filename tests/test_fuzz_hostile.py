"""A bounded fuzz of the core parsing path (issue 14): a few hundred hostile inputs.

Each input goes through ``QA.ask`` (method table, extractive reasoner) and ``lookup_compound``
on the default KB, in a subprocess watched from here, and must end in an Answer or a
ChemgroundError with a short message: no other exception, no signal (RDKit's stack overflow
was a SIGSEGV), no input over 5 s. The inputs are generated from a fixed seed.

Run by hand: ``python tests/test_fuzz_hostile.py KB_PATH CACHE_DIR`` prints one JSON line per
step (the subprocess's side of the test).
"""

from __future__ import annotations

import json
import queue
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

SEED = 14
PER_INPUT_S = 5.0  # the limit asserted for each input (per path)
WATCHDOG_S = 15.0  # a step silent this long is killed (and reported) rather than waited for
STARTUP_S = 180.0  # imports, the KB, the fuzzy index and OPSIN's JVM
MAX_MESSAGE_CHARS = 600


# --- inputs ---------------------------------------------------------------------------------------


def _carbon_graph_smiles(n: int, edges: set[tuple[int, int]]) -> str:
    """SMILES of n carbons bonded by ``edges`` (a < b): a bond to the next atom is written as a
    chain, every other one as a ring closure (no RDKit needed to make the input)."""
    later: dict[int, list[int]] = {}
    for a, b in sorted(edges):
        if b > a + 1:
            later.setdefault(a, []).append(b)
    closing: dict[int, list[int]] = {}  # atom -> labels of ring closures it ends
    free = list(range(99, 0, -1))
    parts = []
    for atom in range(n):
        if atom and (atom - 1, atom) not in edges:
            parts.append(".")
        parts.append("C")
        for label in closing.pop(atom, []):
            parts.append(str(label) if label < 10 else f"%{label}")
            free.append(label)
        free.sort(reverse=True)
        for other in later.get(atom, []):
            label = free.pop()
            closing.setdefault(other, []).append(label)
            parts.append(str(label) if label < 10 else f"%{label}")
    return "".join(parts)


def _grid_smiles(width: int, height: int, closed: bool) -> str:
    """Carbon grid (closed: a torus, every atom alike: InChI's worst case)."""
    edges = set()
    for x in range(width):
        for y in range(height):
            for nx, ny in ((x + 1, y), (x, y + 1)):
                if closed:
                    nx, ny = nx % width, ny % height
                elif nx >= width or ny >= height:
                    continue
                edges.add(tuple(sorted((x * height + y, nx * height + ny))))
    return _carbon_graph_smiles(width * height, edges)


def _prism_smiles(n: int) -> str:
    """Two n-rings joined rung by rung (a closed ladder): 2n atoms, all alike."""
    # atom 2i on one ring, 2i + 1 on the other (few ring closures open at once)
    edges = {
        tuple(sorted((2 * i + side, 2 * ((i + 1) % n) + side))) for side in (0, 1) for i in range(n)
    }
    edges |= {(2 * i, 2 * i + 1) for i in range(n)}
    return _carbon_graph_smiles(2 * n, edges)


def hostile_inputs(seed: int = SEED) -> list[str]:
    """A few hundred hostile inputs, the same ones for the same seed."""
    rng = random.Random(seed)
    out: list[str] = []
    # huge chains, rings, branches (RDKit recursion, ring perception, memory)
    for n in (999, 1000, 1001, 5000, 20_000, 100_000):
        out.append("C" * n)
    for n in (500, 999, 1200, 5000):
        out.append("C1" + "C" * n + "1")
    for n in (300, 999, 5000):
        out.append("C(" * n + "C" + ")" * n)
    out += [
        "(" * 10_000,
        ")" * 10_000,
        "C" + "(" * 5000,
        "C" + "(C" * 3000,
        "C" + ")" * 3000,
        "[" * 5000,
        "[C" * 3000,
        "[" + "C" * 5000 + "]",
        "[[[[C]]]]",
        "C[" * 2000 + "]" * 2000,
        "c1ccccc1" * 150,
        "c" * 1000,
        "n1" * 500,
        "C=C" * 400,
        "C#C" * 400,
        "C/C=C/" * 300,
    ]
    # many ring closures, ring-closure digits up to 99
    out += [
        "C1" * 1000,
        "C%99" * 999,
        "C"
        + "".join(f"%{10 + i}" for i in range(90))
        + "C"
        + "".join(f"%{10 + i}" for i in range(90)),
        "C" + "123456789" * 11 + "C" + "123456789" * 11,
        "C%99C%99" * 300,
        "C1CC1" * 250,
        "C12C3C4C1C5C2C3C45" * 125,
        "C%00C%00",
        "C%1",
        "C%%99C",
        "C" + "%" * 500,
    ]
    # symmetric ring systems (InChI's worst case), with and without defined stereo
    torus = _grid_smiles(22, 22, closed=True)
    out += [
        torus,
        torus + ".C[C@H](N)O",
        _grid_smiles(31, 31, closed=True),
        _grid_smiles(31, 32, closed=False),
        _prism_smiles(250),
        _prism_smiles(500),
        _prism_smiles(250) + ".C/C=C/C",
        "C1=C" + "C=C" * 499 + "1",
        "[C@H]1(O)" + "[C@@H](O)" * 400 + "C1",
    ]
    # absurd charges, valences, isotopes
    out += [
        "[Xe+99]",
        "[Xe-99]",
        "[Xe+999]",
        "[C+15]",
        "[U-15]",
        "[Fe+9999999999]",
        "[H+99]",
        "[999C]",
        "[FeH99]",
        "[XeH99]",
        "[CH5]",
        "[C:-1]",
        "[12345678901234567890C]",
        "[C@@@@@H](F)(Cl)Br",
        "[*+99]",
        "[#6+99]",
        "[C+1+1]",
        "[Xe+99].[Xe-99]",
        "[Co+9]",
        "[ReH9-2]",
        "[" + "Xe+9]." * 200 + "C",
        "[CH3:99999999999]",
        "[Na+]" * 900,
        "[O-2]." * 600 + "[U+9]",
    ]
    # InChI garbage
    out += [
        "InChI=",
        "InChI=1S/",
        "InChI=1S/C1000000H",
        "InChI=1S/C6H6/c" + "1-" * 5000,
        "InChI=1S/Xe/q+99",
        "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3/q+99",
        "InChI=1S/" + "C" * 50_000,
        "InChI=1S/C999H2000",
        "InChI=1S/2000C2H6O/c1-2-3",
        "InChI=1S/CH4/c1H4/t" + "1-" * 3000,
        "InChI=1S/C6H6/c1-2-4-6-5-3-1/h1-6H" + "/b" * 1000,
        "InChI=1S/H2O/h1H2\x00",
        "1S/C2H6O/c1-2-3",
    ]
    out += [
        "InChI=1S/" + "".join(rng.choice("CHNO0123456789/-,()") for _ in range(rng.randint(5, 400)))
        for _ in range(10)
    ]
    # control characters and lone surrogates
    out += [
        "eth\x00anol",
        "ethanol\x00",
        "\x00",
        "CC\x00O",
        "benz\x1bene",
        "\x1b[31maspirin\x1b[0m",
        "aspirin\x7f",
        "caf\x85feine",
        "CC\ud800O",
        "\udfff",
        "aspirin\udc80",
        "molecular weight of eth\x00anol",
        "what is the MW of\x0bcaffeine",
        "\ud83d\ude00 aspirin",
    ]
    # random bytes (latin-1 keeps every byte; surrogateescape makes lone surrogates of invalid
    # UTF-8)
    for _ in range(20):
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(1, 2000)))
        out.append(raw.decode("latin-1"))
        out.append(raw.decode("utf-8", errors="surrogateescape"))
    # repeated tokens: the super-linear parses of the issue, at and beyond the question limit
    for n in (10, 180, 5000):
        out += [
            "tert-butyl " * n,
            "°C " * n,
            "aspirin " * n,
            "CCO " * n,
            "c1ccccc1 " * n,
            "2-methyl" * n,
            "chloro" * n + "benzene",
            "of the " * n,
            "and " * n,
            "reflux at 80 °C for 2 h " * n,
        ]
    out += [("tert-butyl " * 200)[:2000], ("°C " * 700)[:2000], ("benzaldehyd " * 200)[:2000]]
    # word salad with chemistry in it
    words = [
        "the",
        "of",
        "acid",
        "benzene",
        "tert-butyl",
        "chloride",
        "ethanol",
        "heated",
        "at",
        "reflux",
        "yield",
        "°C",
        "2-methyl",
        "water",
        "sodium",
        "hydroxide",
        "pyridine",
        "toluene",
        "with",
        "and",
        "in",
        "mmol",
        "g",
        "aspirin",
        "CCO",
        "c1ccccc1",
        "benzaldehyd",
        "N'-benzylidene",
        "4-(aminomethyl)benzoic",
        "butyl",
        "N-phenylcarbamate",
        "what",
        "is",
        "the",
        "product",
        "of",
    ]
    for size in (100, 500, 1999, 2001, 20_000):
        out.append(" ".join(rng.choice(words) for _ in range(size // 6))[:size])
    # unicode confusables and odd forms
    out += [
        "ａｓｐｉｒｉｎ",
        "аспирин",
        "benzene".replace("e", "е"),
        "eth\u200banol",
        "\u202eloNahte",
        "e\u0301thanol",
        "ﬁnd the MW of aspirin",
        "CＣO",
        "Ｃ" * 3000,
        "ΑΒΓ" * 500,
        "⁰¹²³" * 300,
        "\u0301" * 2000,
        "C\u0338C",
        "molecular weight of ᴄᴄᴏ",
        "\ufeffaspirin",
        "\u00a0aspirin\u00a0",
    ]
    # very long names and name-like garbage
    out += [
        "a" * 1001,
        "methyl" * 200,
        "poly(" * 500,
        "(" * 1000 + "methane" + ")" * 1000,
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(5000)),
        "2,3,4,5,6,7,8,9,10,11,12-" * 80 + "undecachlorododecane",
        "N'-" * 700 + "benzylidene",
        "-".join(str(i) for i in range(1500)) + "-ane",
        "[" * 300 + "benzene" + "]" * 300,
        "1,1'-" * 400 + "biphenyl",
        "sodium " * 300 + "chloride",
        "flubber-" * 7500,
    ]
    # random SMILES-like strings
    alphabet = "CCCCccNnOoSsPFClBrI()()[]==#@@++--123456789%/\\.*H"
    for _ in range(40):
        out.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 600))))
    # questions around the structures
    for text in list(out[:40]):
        out.append(f"what is the molecular weight of {text}?")
    out += [
        "what is the yield of " + "".join(rng.choice(alphabet) for _ in range(300)),
        "What forms when " + " reacts with ".join(["benzaldehyde", "benzohydrazide"] * 20) + "?",
        "What is the product of " + " and ".join(["bromobenzene", "phenylboronic acid"] * 16) + "?",
        "",
        " ",
        "?" * 2000,
        "\n" * 3000,
        "CC(=O)Oc1ccccc1C(=O)O " * 90,
    ]
    return out


# --- the subprocess -------------------------------------------------------------------------------


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _emit(**fields) -> None:
    sys.stdout.write(json.dumps(fields) + "\n")  # ASCII: surrogates come out as escapes
    sys.stdout.flush()


def worker(kb_path: str, cache_dir: str) -> None:
    from chemground.errors import ChemgroundError
    from chemground.kb.lookup import lookup_compound
    from chemground.qa import QA
    from chemground.settings import Settings
    from chemground.workspace import Workspace

    workspace = Workspace(
        Settings(kb={"path": Path(kb_path)}, cache_dir=Path(cache_dir)), readonly=True
    )
    qa = QA(workspace)
    for question in (
        "What is the molecular weight of aspirin?",
        "What forms when benzaldehyde reacts with benzohydrazide?",
        "what is 4-(2-methylpropyl)benzoic acid? benzaldehyd",  # OPSIN, the typo index
        "What is the boiling point of the moon?",  # what a question not understood loads
        "Who first made aspirin?",  # no rule reads it: the aspect classifier (MiniLM) loads
        "molecular weight of C1CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC1",
    ):
        qa.ask(question, method="table", reasoner="extractive")
    qa.fuzzy.correct("benzaldehyd")  # the typo index, loaded on first use
    lookup_compound(workspace.kb, workspace.resolver, "2-methylbutan-1-ol")
    inputs = hostile_inputs()
    _emit(ready=len(inputs), rss_mb=_rss_mb())
    for index, text in enumerate(inputs):
        for path in ("ask", "compound"):
            _emit(start=index, path=path)
            started = time.perf_counter()
            try:
                if path == "ask":
                    answer = qa.ask(text, method="table", reasoner="extractive")
                    kind, kind_type, message = "answer", answer.status, ""
                else:
                    lookup_compound(workspace.kb, workspace.resolver, text)
                    kind, kind_type, message = "answer", "compound", ""
            except ChemgroundError as error:
                kind, kind_type, message = "error", type(error).__name__, str(error)
            except BaseException as error:
                kind, kind_type, message = "exception", type(error).__name__, repr(error)
            _emit(
                done=index,
                path=path,
                kind=kind,
                type=kind_type,
                message=message[:300],
                message_chars=len(message),
                seconds=round(time.perf_counter() - started, 3),
                rss_mb=_rss_mb(),
            )
    _emit(end=len(inputs), rss_mb=_rss_mb())


# --- the test -------------------------------------------------------------------------------------


def _preview(text: str) -> str:
    return repr(text[:60]) + (f"… ({len(text):,} characters)" if len(text) > 60 else "")


def test_hostile_inputs_end_in_answers_or_short_errors(full_kb_path, tmp_path):
    inputs = hostile_inputs()
    assert 300 <= len(inputs) <= 500 and inputs == hostile_inputs()  # deterministic
    log = tmp_path / "worker-stderr.txt"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, __file__, str(full_kb_path), str(tmp_path / "cache")],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in process.stdout:  # type: ignore[union-attr]
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    results, current, ready, end = [], None, None, None
    started = time.perf_counter()
    try:
        while True:
            try:
                line = lines.get(timeout=STARTUP_S if ready is None else WATCHDOG_S)
            except queue.Empty:
                where = (
                    "starting up"
                    if current is None
                    else f"on input #{current['start']} ({current['path']}): "
                    f"{_preview(inputs[current['start']])}"
                )
                pytest.fail(f"the worker was silent for too long {where}")
            if line is None:
                break
            event = json.loads(line)
            if "ready" in event:
                ready = event
            elif "start" in event:
                current = event
            elif "done" in event:
                results.append(event)
            elif "end" in event:
                end = event
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
    elapsed = time.perf_counter() - started
    tail = log.read_text(errors="replace")[-2000:]
    assert process.returncode == 0, (
        f"worker exited with {process.returncode} (negative: killed by a signal) on input "
        f"#{current and current['start']} ({current and current['path']}): "
        f"{current and _preview(inputs[current['start']])}\n{tail}"
    )
    assert end is not None and len(results) == 2 * len(inputs)

    problems = []
    for event in results:
        text = _preview(inputs[event["done"]])
        if event["kind"] not in ("answer", "error"):
            problems.append(
                f"#{event['done']} {event['path']} {text}: {event['type']}: {event['message']}"
            )
        if event["seconds"] > PER_INPUT_S:
            problems.append(f"#{event['done']} {event['path']} {text}: took {event['seconds']} s")
        if event["message_chars"] > MAX_MESSAGE_CHARS:
            problems.append(
                f"#{event['done']} {event['path']} {text}: a {event['message_chars']}-character "
                "message"
            )
    assert not problems, "\n".join(problems)
    slowest = max(results, key=lambda e: e["seconds"])
    print(
        f"{len(inputs)} inputs x 2 paths in {elapsed:.1f} s; slowest {slowest['seconds']} s "
        f"(#{slowest['done']} {slowest['path']}); RSS {ready['rss_mb']:.0f} MB after warm-up, "
        f"{end['rss_mb']:.0f} MB after"
    )
    assert end["rss_mb"] <= 1.5 * ready["rss_mb"], (ready, end)


if __name__ == "__main__":
    worker(sys.argv[1], sys.argv[2])
