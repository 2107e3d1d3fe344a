"""How many LLM answers does the faithfulness check flag, per path? (issue 20)

    python benchmarks/faithfulness.py --base-url http://127.0.0.1:8012/v1 [--label NAME]
        [--per-path 2] [--only 'ask --reasoner rag-direct,lit']

Runs the fixed questions of ``benchmarks/llm_smoke.py`` through the real command line
(``chemground ... --json``) against an OpenAI-compatible model server, and reads each answer's
faithfulness report (``Answer.trace["faithfulness"]``, see ``chemground.reasoning.faithfulness``):
whether its numbers, structures and names stand on its evidence, and the kind of each claim that
does not. Per path: answers, answers checked (declined, failed and extractive answers are not),
answers flagged unsupported, the kinds, and how the flags agree with the fixed correctness check
of each question (a flagged answer that is right is a false alarm; an unflagged answer that is
wrong is one the check cannot see, e.g. a value that is in the evidence but answers another
question). Resumable (``<work>/rows.jsonl``; ``--fresh`` starts over); every command has a
wall-clock limit. Writes benchmarks/results/faithfulness.md (``--no-write`` to only print).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine_line, markdown_table, write_section
from llm_smoke import cases, open_run, run_case


def per_path(rows: list[dict[str, Any]], order: list[str]) -> list[list[Any]]:
    """One table row per (model, path): the counts of the faithfulness check."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["model"], row["path"]), []).append(row)
    out = []
    for (model, path), items in sorted(
        groups.items(),
        key=lambda kv: (kv[0][0], order.index(kv[0][1]) if kv[0][1] in order else 99),
    ):
        checked = [r for r in items if r.get("faithfulness")]
        flagged = [r for r in checked if not r["faithfulness"]["supported"]]
        kinds = Counter(k for r in flagged for k in r["faithfulness"]["kinds"])
        out.append(
            [
                model,
                path,
                len(items),
                len(checked),
                len(flagged),
                ", ".join(f"{k} {n}" for k, n in kinds.most_common()) or "-",
                sum(1 for r in flagged if r["correct"]),
                sum(1 for r in checked if r["faithfulness"]["supported"] and not r["correct"]),
                sum(1 for r in checked if r["faithfulness"]["supported"] and r["correct"]),
            ]
        )
    return out


def flagged_rows(rows: list[dict[str, Any]]) -> list[list[Any]]:
    """Each flagged answer with its first unsupported claim and what the evidence says."""
    out = []
    for r in rows:
        report = r.get("faithfulness")
        if not report or report["supported"]:
            continue
        claim = (report.get("unsupported") or [{}])[0]
        out.append(
            [
                r["model"],
                r["path"],
                r["qid"],
                "yes" if r["correct"] else "no",
                _cell(r.get("answer") or "", 80),
                ", ".join(report["kinds"]),
                _cell(claim.get("reason") or report.get("reason") or "", 110),
                _cell(report.get("corrected_answer") or "", 60),
            ]
        )
    return out


def _cell(text: str, limit: int) -> str:
    return " ".join(str(text).replace("|", "/").split())[:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--base-url",
        default=os.environ.get("CHEMGROUND_TEST_LLM_URL")
        or os.environ.get("CHEMGROUND_LLM_BASE_URL")
        or "http://127.0.0.1:8080/v1",
    )
    parser.add_argument("--model", default=None, help="model name (default: the server's first)")
    parser.add_argument("--label", default=None, help="model label for the report")
    parser.add_argument("--work", type=Path, default=Path("/tmp/chemground-faithfulness"))
    parser.add_argument("--only", default="", help="comma-separated path prefixes")
    parser.add_argument("--per-path", type=int, default=0, help="at most N questions per path")
    parser.add_argument("--limit-s", type=float, default=300.0, help="limit of one command")
    parser.add_argument("--fresh", action="store_true", help="forget earlier rows")
    parser.add_argument("--no-write", action="store_true", help="do not write the results file")
    args = parser.parse_args()
    label, env, kbs, rows_file, done = open_run(args)
    wanted = [p.strip() for p in args.only.split(",") if p.strip()]
    todo, taken = [], Counter()
    for case in cases():
        if wanted and not any(case.path.startswith(w) for w in wanted):
            continue
        if args.per_path and taken[case.path] >= args.per_path:
            continue
        taken[case.path] += 1
        todo.append(case)
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
        report = row.get("faithfulness")
        verdict = (
            "not checked"
            if not report
            else "faithful"
            if report["supported"]
            else "UNSUPPORTED " + ",".join(report["kinds"])
        )
        print(
            f"    {'right' if row['correct'] else 'wrong'} {row['seconds']} s {row['status']} "
            f"[{verdict}]: {row.get('answer') or row.get('error', '')}"[:300],
            file=sys.stderr,
            flush=True,
        )
        done[key] = row
        with open(rows_file, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    order = list(dict.fromkeys(c.path for c in cases()))
    rows = list(done.values())
    counts = markdown_table(
        [
            "model",
            "path",
            "answers",
            "checked",
            "unsupported",
            "kinds",
            "unsupported but right",
            "faithful but wrong",
            "faithful and right",
        ],
        per_path(rows, order),
    )
    flagged = markdown_table(
        [
            "model",
            "path",
            "question",
            "right",
            "answer",
            "kinds",
            "first unsupported claim",
            "rewritten from the evidence",
        ],
        flagged_rows(rows),
    )
    print(counts)
    print(flagged)
    if args.no_write:
        return
    seconds = sum(float(r.get("seconds") or 0) for r in rows)
    text = [
        "# Faithfulness of LLM answers, per path (issue 20)",
        "",
        "`python benchmarks/faithfulness.py --base-url URL` - the fixed questions of "
        "`llm_smoke.py` through the real CLI against a llama.cpp server; each answer's "
        '`trace["faithfulness"]` (`chemground.reasoning.faithfulness`) says whether its '
        "numbers, structures and names stand on its evidence. 'checked': answers the check ran "
        "on (declined, failed and extractive answers are not checked); 'unsupported': answers "
        "it flagged; 'right' is the fixed per-question check of `llm_smoke.py`. A handful of "
        "questions per path: counts, not rates.",
        "",
        machine_line() + f" {len(rows)} answers, {seconds:,.0f} s in all.",
        "",
        counts,
        "",
        "Flagged answers:",
        "",
        flagged,
    ]
    print(f"wrote {write_section('faithfulness', chr(10).join(text))}", file=sys.stderr)


if __name__ == "__main__":
    main()
