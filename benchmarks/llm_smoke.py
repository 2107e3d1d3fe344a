"""Smoke run of every LLM path against a real (local) model (issue 20).

    python benchmarks/llm_smoke.py --base-url http://127.0.0.1:8080/v1 [--model NAME] [--only
    ask-rag-direct,...]

Runs a handful of fixed questions per path through the real command line (``chemground ... --json``)
against an OpenAI-compatible server, e.g. the packaged Qwen2.5-Coder-1.5B-Instruct GGUF served with
``chemground llm serve --threads 1``. Each row: model, path, question, correct?, seconds, status,
LLM calls and tokens, the answer's start. Bounded: every command has a wall-clock limit. Resumable:
rows already in ``<work>/rows.jsonl`` are not run again (``--fresh`` starts over). Uses a copy of
the
benchmark KB and a temporary literature KB under ``--work``, never the user's default data.
Writes benchmarks/results/llm_smoke.md.

"Correct" is a fixed check per question (a number within a tolerance, or a word that must appear);
it is a smoke test of behaviour (crash, citations, tool calls, time), not a benchmark score.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine_line, markdown_table, write_section

from chemground.jsonl import read_jsonl

SOURCE_KB = Path("/tmp/chemground-bench/kb-default.sqlite")
PAPER = """Synthesis of acetylsalicylic acid (aspirin) in a teaching laboratory

Salicylic acid (2.0 g) was treated with acetic anhydride (5 mL) and five drops of 85% phosphoric acid as \
the catalyst. The mixture was heated in a water bath at 85 °C for 15 minutes, then cooled in ice, and \
water was added to decompose the excess acetic anhydride. The crude aspirin was collected by vacuum \
filtration and recrystallised from ethanol and water. The isolated yield was 72% and the melting point \
was 135 °C.

Ferric chloride test. A solution of iron(III) chloride gives a violet colour with phenols. The purified \
aspirin gave no violet colour, which shows that no salicylic acid remained in the product.
"""


def number_near(target: float, tol: float) -> Callable[[dict[str, Any]], bool]:
    def check(data: dict[str, Any]) -> bool:
        value = data.get("value")
        if isinstance(value, (int, float)) and abs(value - target) <= tol:
            return True
        return any(
            abs(float(n) - target) <= tol
            for n in re.findall(r"\d+(?:\.\d+)?", str(data.get("answer", "")))
        )

    check.rescorable = True  # type: ignore[attr-defined]
    return check


def mentions(*words: str) -> Callable[[dict[str, Any]], bool]:
    def check(data: dict[str, Any]) -> bool:
        text = (
            str(data.get("answer", "")) + " " + json.dumps(data.get("value"), default=str)
        ).lower()
        return all(w.lower() in text for w in words)

    check.rescorable = True  # type: ignore[attr-defined]
    return check


def graph_has(*alternatives: str) -> Callable[[dict[str, Any]], bool]:
    """The query ran and its rows hold one of ``alternatives`` (a name or a SMILES of the
    product)."""

    def check(data: dict[str, Any]) -> bool:
        rows = (
            (data.get("result") or {}).get("rows") if isinstance(data.get("result"), dict) else None
        )
        text = json.dumps(rows, default=str).lower()
        return bool(data.get("ok")) and bool(rows) and any(w.lower() in text for w in alternatives)

    return check


@dataclass
class Case:
    path: str
    qid: str
    question: str
    check: Callable[[dict[str, Any]], bool]
    args: list[str]
    kb: str = "main"  # main | lit


TABLE = [
    (
        "mw-aspirin",
        "What is the molecular weight of aspirin?",
        number_near(180.16, 0.06),
    ),  # not the exact mass 180.04
    ("formula-caffeine", "What is the molecular formula of caffeine?", mentions("C8H10N4O2")),
    (
        "yield-ethyl-acetate",
        "What is the yield of the Fischer esterification of acetic acid with ethanol to "
        "ethyl acetate?",
        number_near(65, 0.5),
    ),
    (
        "temp-benzocaine",
        "At what temperature is benzocaine made from 4-aminobenzoic acid and ethanol?",
        number_near(78, 0.5),
    ),
]
LIT = [
    (
        "lit-temperature",
        "At what temperature was the aspirin synthesis mixture heated?",
        mentions("85"),
    ),
    (
        "lit-catalyst",
        "Which catalyst was used to make aspirin from salicylic acid?",
        mentions("phosphoric"),
    ),
]
AGENT = [
    (
        "qed-aspirin",
        "What is the QED drug-likeness of aspirin (SMILES CC(=O)Oc1ccccc1C(=O)O)?",
        number_near(0.55, 0.02),
    ),
    (
        "mw-caffeine",
        "What is the molecular weight of caffeine (SMILES CN1C=NC2=C1C(=O)N(C(=O)N2C)C)?",
        number_near(194.19, 0.06),
    ),
]
GRAPH = [
    (
        "graph-ethyl-acetate",
        "Which reactions produce ethyl acetate?",
        graph_has("ethyl acetate", "CCOC(C)=O"),
    ),
    (
        "graph-benzocaine",
        "Which reactions give benzocaine, and with which reactants?",
        graph_has("benzocaine", "CCOC(=O)c1ccc(N)cc1"),
    ),
]


def cases() -> list[Case]:
    out = []
    for reasoner in ("rag-direct", "cot", "adaptive", "direct"):
        for qid, question, check in TABLE:
            out.append(
                Case(
                    f"ask --reasoner {reasoner}",
                    qid,
                    question,
                    check,
                    ["ask", question, "--reasoner", reasoner, "--json"],
                )
            )
    for qid, question, check in LIT:
        out.append(
            Case(
                "lit ask",
                qid,
                question,
                check,
                ["lit", "ask", question, "--llm", "--json"],
                kb="lit",
            )
        )
    for qid, question, check in AGENT:
        out.append(
            Case(
                "agent ask --mode cot",
                qid,
                question,
                check,
                ["agent", "ask", question, "--mode", "cot", "--max-steps", "4", "--json"],
            )
        )
    qid, question, check = AGENT[0]
    out.append(
        Case(
            "agent ask --mode mcts",
            qid,
            question,
            check,
            [
                "agent",
                "ask",
                question,
                "--mode",
                "mcts",
                "--iterations",
                "2",
                "--depth",
                "2",
                "-k",
                "2",
                "--max-llm-calls",
                "16",
                "--json",
            ],
        )
    )
    for qid, question, check in GRAPH:
        out.append(Case("graph ask", qid, question, check, ["graph", "ask", question, "--json"]))
    return out


def environment(base: str, model: str, work: Path, limit_s: float) -> dict[str, str]:
    """The environment of the CLI runs: the model server, a cache under ``work``, the LLM
    response cache off, and deadlines inside the wall-clock limit of one command."""
    return dict(
        os.environ,
        CHEMGROUND_LLM_BASE_URL=base,
        CHEMGROUND_LLM_MODEL=model,
        CHEMGROUND_CACHE_DIR=str(work / "cache"),
        CHEMGROUND_LLM_CACHE="false",
        CHEMGROUND_LLM_CALL_DEADLINE_S="300",
        CHEMGROUND_LLM_ANSWER_DEADLINE_S=str(limit_s - 20),
        HF_HUB_OFFLINE="1",
    )


def prepare(work: Path, env: dict[str, str]) -> dict[str, Path]:
    """A copy of the benchmark KB (with its graph) and a literature KB holding one short paper."""
    work.mkdir(parents=True, exist_ok=True)
    main_kb = work / "kb.sqlite"
    if not main_kb.exists():
        if not SOURCE_KB.exists():
            sys.exit(f"no benchmark KB at {SOURCE_KB}; build one first (see benchmarks/_kb.py)")
        shutil.copy(SOURCE_KB, main_kb)
        graph = SOURCE_KB.with_name(SOURCE_KB.name + ".graph")
        if graph.is_dir():
            shutil.copytree(graph, work / "kb.sqlite.graph")
    lit_kb = work / "lit" / "kb.sqlite"
    if not lit_kb.exists():
        paper = work / "lit" / "aspirin_note.txt"
        paper.parent.mkdir(parents=True, exist_ok=True)
        paper.write_text(PAPER, encoding="utf-8")
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from chemground.cli import entry; entry()",
                "--kb",
                str(lit_kb),
                "lit",
                "add",
                str(paper),
            ],
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )
    return {"main": main_kb, "lit": lit_kb}


def faithfulness_summary(report: dict[str, Any]) -> dict[str, Any]:
    """The faithfulness report of an answer (``reasoning.faithfulness``), kept short for a row:
    whether it is supported, the kinds of what is not, and the first unsupported claims."""
    claims = report.get("claims") or []
    return {
        "supported": bool(report.get("supported")),
        "kinds": report.get("kinds") or [],
        "claims": len(claims),
        "unsupported": [
            {k: c.get(k) for k in ("kind", "text", "problem", "reason") if c.get(k) is not None}
            for c in claims
            if not c.get("supported")
        ][:3],
        "reason": report.get("reason") or "",
        "corrected_answer": report.get("corrected_answer"),
    }


def run_case(
    case: Case, kbs: dict[str, Path], env: dict[str, str], limit_s: float
) -> dict[str, Any]:
    command = [
        sys.executable,
        "-c",
        "from chemground.cli import entry; entry()",
        "--kb",
        str(kbs[case.kb]),
        *case.args,
    ]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=limit_s)
    except subprocess.TimeoutExpired:
        return {
            "status": "timeout",
            "seconds": round(time.perf_counter() - started, 1),
            "correct": False,
            "error": f"no result within {limit_s:g} s",
        }
    seconds = round(time.perf_counter() - started, 1)
    try:  # a failed answer is still a JSON answer (status "error", exit 1), with the reason in it
        data = json.loads(done.stdout)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return {
            "status": f"exit {done.returncode}",
            "seconds": seconds,
            "correct": False,
            "error": ((done.stderr.strip() or done.stdout.strip()).splitlines() or ["?"])[-1][:300],
        }
    usage = data.get("usage") or {}
    status = data.get("status") or ("supported" if data.get("supported") else data.get("ok", ""))
    if done.returncode != 0:
        status = f"{status or 'failed'} (exit {done.returncode})"
    row = {
        "status": str(status),
        "seconds": seconds,
        "correct": bool(case.check(data)),
        "method": data.get("method") or data.get("mode"),
        "answer": str(data.get("answer", ""))[:160],
        "value": data.get("value") if isinstance(data.get("value"), (int, float, str)) else None,
        "calls": usage.get("calls"),
        "tokens": usage.get("total_tokens"),
        "notes": (data.get("notes") or [])[:3],
    }
    if (
        isinstance(data.get("result"), dict) and "query" in data
    ):  # graph ask: the query and its row count
        rows = data["result"].get("rows") or []
        row["answer"] = f"{len(rows)} rows: {data.get('query') or ''}"[:160]
    if "steps" in data:
        row["tools"] = [s.get("tool") for s in data["steps"]]
    if isinstance(data.get("trace"), dict) and "faithfulness" in data["trace"]:
        row["faithfulness"] = faithfulness_summary(data["trace"]["faithfulness"])
    if "citations" in data:
        row["citations"] = [
            c.get("chunk_id") if isinstance(c, dict) else c for c in data["citations"]
        ]
    return row


def open_run(
    args: argparse.Namespace,
) -> tuple[str, dict[str, str], Any, Path, dict[tuple[str, str, str], dict[str, Any]]]:
    """Set up a resumable run against the model server of ``args`` (shared with faithfulness.py).

    Returns:
        The model label, the CLI environment, the prepared KBs, the rows file and the rows
        already done, by (model, path, question id).
    """
    base = args.base_url.rstrip("/")
    model = args.model or httpx.get(f"{base}/models", timeout=10).json()["data"][0]["id"]
    env = environment(base, model, args.work, args.limit_s)
    kbs = prepare(args.work, env)
    rows_file = args.work / "rows.jsonl"
    if args.fresh:
        rows_file.unlink(missing_ok=True)
    done: dict[tuple[str, str, str], dict[str, Any]] = {}
    if rows_file.exists():
        for _, row in read_jsonl(rows_file, torn_tail_ok=True):
            done[(row["model"], row["path"], row["qid"])] = row
    return args.label or model, env, kbs, rows_file, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--base-url",
        default=os.environ.get("CHEMGROUND_TEST_LLM_URL")
        or os.environ.get("CHEMGROUND_LLM_BASE_URL")
        or "http://127.0.0.1:8080/v1",
    )
    parser.add_argument(
        "--model", default=None, help="model name (default: the first the server lists)"
    )
    parser.add_argument(
        "--label", default=None, help="model label for the report (default: --model)"
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/chemground-llm-smoke"))
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated path prefixes, e.g. 'ask --reasoner rag-direct,lit'",
    )
    parser.add_argument(
        "--limit-s", type=float, default=420.0, help="wall-clock limit of one command"
    )
    parser.add_argument("--fresh", action="store_true", help="forget earlier rows")
    parser.add_argument(
        "--no-write", action="store_true", help="do not rewrite benchmarks/results/llm_smoke.md"
    )
    parser.add_argument(
        "--rescore",
        action="store_true",
        help="re-apply the answer checks to the stored rows (after a check was corrected)",
    )
    args = parser.parse_args()
    label, env, kbs, rows_file, done = open_run(args)
    if args.rescore:
        checks = {(c.path, c.qid): c for c in cases()}
        for row in done.values():
            case = checks.get((row["path"], row["qid"]))
            if case is not None and getattr(case.check, "rescorable", False) and "error" not in row:
                row["correct"] = bool(
                    case.check({"answer": row.get("answer", ""), "value": row.get("value")})
                )
        rows_file.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in done.values()),
            encoding="utf-8",
        )
    wanted = [p.strip() for p in args.only.split(",") if p.strip()]
    todo = [c for c in cases() if not wanted or any(c.path.startswith(w) for w in wanted)]
    for number, case in enumerate(todo, 1):
        key = (label, case.path, case.qid)
        if key in done:
            continue
        print(f"[{number}/{len(todo)}] {case.path} :: {case.qid} ...", file=sys.stderr, flush=True)
        row = {
            "model": label,
            "path": case.path,
            "qid": case.qid,
            "question": case.question,
            **run_case(case, kbs, env, args.limit_s),
        }
        print(
            f"    {'right' if row['correct'] else 'WRONG'} {row['seconds']} s {row['status']}: "
            f"{row.get('answer') or row.get('error', '')}"[:300],
            file=sys.stderr,
            flush=True,
        )
        done[key] = row
        with open(rows_file, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    rows = sorted(
        done.values(),
        key=lambda r: (
            r["model"],
            [c.path for c in cases()].index(r["path"])
            if r["path"] in [c.path for c in cases()]
            else 99,
            r["qid"],
        ),
    )
    table = markdown_table(
        [
            "model",
            "path",
            "question",
            "correct",
            "s",
            "status",
            "LLM calls",
            "tokens",
            "answer / error",
        ],
        [
            [
                r["model"],
                r["path"],
                r["qid"],
                "yes" if r["correct"] else "no",
                r["seconds"],
                r["status"],
                r.get("calls") if r.get("calls") is not None else "",
                r.get("tokens") if r.get("tokens") is not None else "",
                (r.get("answer") or r.get("error") or "")
                .replace("|", "/")
                .replace("\n", " ")[:110],
            ]
            for r in rows
        ],
    )
    print(table)
    if not args.no_write:
        text = [
            "# LLM paths against a real local model (smoke run, issue 20)",
            "",
            "`python benchmarks/llm_smoke.py --base-url URL` - every LLM path through the real "
            "CLI, a handful "
            "of fixed questions each, against a llama.cpp server (`chemground llm serve --threads "
            "1`). "
            "'correct' is a fixed check per question (number within tolerance or a required word); "
            "this is a "
            "smoke test, not a benchmark score.",
            "",
            machine_line(),
            "",
            table,
        ]
        print(f"wrote {write_section('llm_smoke', chr(10).join(text))}", file=sys.stderr)


if __name__ == "__main__":
    main()
