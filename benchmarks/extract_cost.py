"""Tokens and cost of `chemground kb extract` per 1,000 snippets, from our real prompts.

Prompt tokens: the actual stage-1 and stage-2 messages (our prompt files filled with real
patent paragraphs, and for stage 2 the record to check) counted with the o200k_base BPE
(GPT-4o family; offline via the `bpe-openai` package) plus 4 tokens of chat framing per
message; without that package, characters / 4. Completion tokens: the gold record of the
same paragraph written in our output schema (what a correct stage-1 reply is), and the
stage-2 reply that keeps it ("ok" with the record). A model that re-asks, reasons aloud or
emits several reactions spends more; these are the counts of one clean pass.

    python benchmarks/extract_cost.py [--sample N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from extract_common import DATA, write_section

from chemground.extract import gold as gold_data
from chemground.extract.bench import gold_as_extraction
from chemground.extract.stages import check_messages, extraction_messages

MESSAGE_OVERHEAD = (
    4  # chat framing per message (role markers), as OpenAI documents for its chat models
)
# (label, USD per 1M input tokens, USD per 1M output tokens): examples, not any vendor's quote
PRICES = [
    ("small hosted model, e.g. $0.15 in / $0.60 out per 1M", 0.15, 0.60),
    ("mid-size hosted model, e.g. $1.00 in / $4.00 out per 1M", 1.00, 4.00),
    ("large hosted model, e.g. $2.50 in / $10.00 out per 1M", 2.50, 10.00),
]


def tokenizer():
    try:
        import bpe_openai
    except ImportError:
        return (lambda text: max(1, len(text) // 4)), "characters / 4 (bpe-openai not installed)"
    encoding = bpe_openai.get_encoding("o200k_base")
    return (lambda text: len(encoding.encode(text))), "o200k_base BPE (bpe-openai, offline)"


def reply_json(gold) -> str:
    record = gold_as_extraction(gold).model_dump()
    record["conditions"] = {"temperature_c": gold.temperature_c, "time_h": gold.time_h, "ph": None}
    return json.dumps({"reactions": [record]}, ensure_ascii=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--sample", type=int, default=500, help="paragraphs per dataset")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    found = gold_data.find_datasets(args.data) if args.data.is_dir() else {}
    if len(found) < 2:
        print(f"skipped: the gold datasets are not under {args.data}")
        return 0
    count, how = tokenizer()
    rows = {}
    for name in (gold_data.TEXT2JSON, gold_data.USPTO_GRANTS):
        records = gold_data.load(name, found[name], args.sample, seed=1)
        stats = {"extract_in": [], "extract_out": [], "check_in": [], "check_out": [], "chars": []}
        for gold in records:
            snippet = gold.snippet()
            messages = extraction_messages(snippet)
            stats["extract_in"].append(
                sum(count(m["content"]) + MESSAGE_OVERHEAD for m in messages)
            )
            reply = reply_json(gold)
            stats["extract_out"].append(count(reply))
            record = gold_as_extraction(gold)
            check = check_messages(snippet, record)
            stats["check_in"].append(sum(count(m["content"]) + MESSAGE_OVERHEAD for m in check))
            stats["check_out"].append(
                count(
                    json.dumps(
                        {"verdict": "ok", "reaction": record.model_dump(), "issues": []},
                        ensure_ascii=False,
                    )
                )
            )
            stats["chars"].append(len(gold.text))
        rows[name] = {k: statistics.mean(v) for k, v in stats.items()} | {"n": len(records)}
    lines = [
        "## Tokens and cost per 1,000 snippets",
        "",
        f"From our prompt files filled with real paragraphs ({args.sample} per set, seed 1), "
        "counted with "
        f"{how}, +{MESSAGE_OVERHEAD} tokens of chat framing per message. Completion = the gold "
        "record in our "
        'output schema (stage 1) and an "ok" verdict echoing it (stage 2): one clean pass, no '
        "re-asks, "
        "one reaction per snippet, no reasoning tokens.",
        "",
        "| dataset | paragraph chars | stage 1 in | stage 1 out | stage 2 in | stage 2 out | "
        "tokens / 1,000 snippets (in + out) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, r in rows.items():
        total_in = (r["extract_in"] + r["check_in"]) * 1000
        total_out = (r["extract_out"] + r["check_out"]) * 1000
        r["per_1000_in"], r["per_1000_out"] = total_in, total_out
        lines.append(
            f"| {name} | {r['chars']:.0f} | {r['extract_in']:.0f} | {r['extract_out']:.0f} | "
            f"{r['check_in']:.0f} | {r['check_out']:.0f} | {total_in / 1e6:.2f} M + "
            f"{total_out / 1e6:.2f} M |"
        )
    lines += [
        "",
        "Cost per 1,000 snippets, both stages on the same model, at example prices (substitute "
        "your "
        "provider's; a stronger check model costs stage 2 at its own price):",
        "",
        "| price assumption | " + " | ".join(rows) + " |",
        "| --- |" + " ---: |" * len(rows),
    ]
    for label, price_in, price_out in PRICES:
        cells = [
            f"${(r['per_1000_in'] * price_in + r['per_1000_out'] * price_out) / 1e6:.2f}"
            for r in rows.values()
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "On a self-hosted vLLM server the cost is GPU time: the token counts above are the load "
        "(prefill-heavy: about 10 prompt tokens per completion token). No GPU throughput was "
        "measured for "
        "this report.",
    ]
    text = "\n".join(lines)
    print(text)
    (Path("/tmp/chemground-extract-bench") / "cost.json").write_text(
        json.dumps(rows, indent=1), encoding="utf-8"
    )
    if not args.no_write:
        write_section("cost", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
