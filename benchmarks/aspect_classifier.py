"""Aspects robust to paraphrase (issue 13, item 2): rules only vs rules + exemplar k-NN.

    python benchmarks/aspect_classifier.py            # held-out paraphrases + latency; writes
                                                      # benchmarks/results/aspect_classifier.md
    python benchmarks/aspect_classifier.py --tune     # also the leave-one-out threshold grid
    python benchmarks/aspect_classifier.py --no-write

The held-out sets (benchmarks/aspect_paraphrases/paraphrases*.jsonl) are hand-written with real
compound names and gold aspects and are never used as exemplars; the thresholds are chosen by
leave-one-out over the exemplars (--tune), never on them. Each question is parsed by the QA's
rule parser (mentions found and masked on the default KB, as `chemground ask` does) and refined
for routing; the aspect read is compared with the gold:

- right: the gold aspect; for gold ``out_of_scope`` no aspect (nothing is looked up), for gold
  ``explanation`` (why/how) no aspect and not classified out of scope (the papers may answer);
- wrong aspect: an aspect other than the gold (the answer would be about something else);
- abstained: no aspect for a question that has one (the user is told it was not understood).

Latency: ``QA.retrieve`` in a warm process over the same questions, split by who read the aspect.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from _common import latency_summary, machine_line, markdown_table, write_section  # noqa: E402

DATA = HERE / "aspect_paraphrases"
# set 1 was written after the first exemplars, set 2 after the second round (see HISTORY)
SETS = {"1": DATA / "paraphrases.jsonl", "2": DATA / "paraphrases_2.jsonl"}
SECTION = "aspect_classifier"
DEFAULT_KB = Path("/tmp/chemground-bench/kb-default.sqlite")
# What changed after the held-out set was first run (kept so the figures above can be judged).
HISTORY = (
    "History. The exemplars were written first, then set 1. Its first run (cosine-weighted vote "
    "of 7, both thresholds 0.55, chosen before any tuning) gave rules + k-NN accuracy 0.780 with "
    "18 wrong aspects (0.073); the thresholds and the softmax weighting were then chosen by "
    "leave-one-out on the exemplars only, and why/mechanism questions were excluded from "
    "classification (two set-1 why/how questions had been read as catalyst and solvent). A first "
    "draft of more exemplars (168) was discarded unused: 66 of its lines lay within cosine 0.85 "
    "of set-1 questions, some verbatim. A second draft (102 lines, none within 0.85 of set 1) "
    "was tried and not kept: set 2, written after it, read 0.827 with it against 0.820 without "
    "(13 wrong aspects against 12), set 1 0.804 against 0.792, and one user-question dev "
    "question became confidently wrong ('what gives X?' read as a description). So the "
    "exemplars are those set 1 was first run against, and both sets are blind to them."
)


def load_items(path: Path) -> list[dict]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def predicted(query) -> tuple[str | None, bool]:
    """(the aspect read, whether the classifier called it out of scope)."""
    from chemground.routing import classified_out_of_scope

    return (query.aspect.value if query.aspect else None), classified_out_of_scope(query)


def judge(gold: str, aspect: str | None, out_of_scope: bool) -> str:
    if gold == "out_of_scope":
        return "right" if aspect is None else "wrong aspect"
    if gold == "explanation":
        if aspect is not None:
            return "wrong aspect"
        return "abstained" if out_of_scope else "right"
    if aspect == gold:
        return "right"
    return "abstained" if aspect is None else "wrong aspect"


def evaluate(items: list[dict], parser) -> list[dict]:
    from chemground.routing import refine

    rows = []
    for item in items:
        query = refine(parser.parse(item["question"]))
        aspect, out = predicted(query)
        source = "exemplars" if query.aspect_classifier and aspect else "rules"
        if aspect is None:
            source = "classifier: out of scope" if out else "none"
        rows.append(
            {
                "item": item,
                "aspect": aspect,
                "out_of_scope": out,
                "source": source,
                "outcome": judge(item["aspect"], aspect, out),
                "decision": query.aspect_classifier,
            }
        )
    return rows


def summary(rows: list[dict]) -> dict:
    n = len(rows)
    count = Counter(r["outcome"] for r in rows)
    in_scope = [r for r in rows if r["item"]["aspect"] not in ("out_of_scope", "explanation")]
    off = [r for r in rows if r["item"]["aspect"] == "out_of_scope"]
    return {
        "n": n,
        "accuracy": count["right"] / n,
        "wrong": count["wrong aspect"],
        "wrong_rate": count["wrong aspect"] / n,
        "abstained": count["abstained"],
        "in_scope_accuracy": sum(r["outcome"] == "right" for r in in_scope) / len(in_scope),
        "off_topic_flagged": sum(r["out_of_scope"] for r in off),
        "off_topic": len(off),
    }


# --------------------------------------------------------------------------- tuning


def tune(embedder) -> tuple[list[list[object]], dict]:
    """Leave-one-out over the exemplars no rule reads: each votes without itself."""
    from chemground.reasoning.aspect_classifier import AspectClassifier, load_exemplars
    from chemground.reasoning.aspects import classify_aspect

    exemplars = load_exemplars()
    vectors = embedder.encode([e.text for e in exemplars])
    missed = [i for i, e in enumerate(exemplars) if classify_aspect(e.text) is None]
    grid = []
    n = len(missed)
    for temperature in (None, 0.02, 0.05, 0.1):
        for k in (3, 5, 7, 9):
            classifier = AspectClassifier(
                exemplars, embedder, k=k, temperature=temperature, vectors=vectors
            )
            votes = [classifier.vote(exemplars[i].text, vectors[i], exclude=i) for i in missed]
            for min_similarity in (0.4, 0.45, 0.5, 0.55, 0.6):
                for min_share in (0.4, 0.5, 0.6, 0.7, 0.8):
                    right = wrong = 0
                    for i, vote in zip(missed, votes):
                        if vote.similarity < min_similarity or vote.score < min_share:
                            continue
                        if vote.label == exemplars[i].label:
                            right += 1
                        else:
                            wrong += 1
                    grid.append(
                        [
                            temperature or "linear",
                            k,
                            min_similarity,
                            min_share,
                            right / n,
                            wrong / n,
                            right - 3 * wrong,
                        ]
                    )
    grid.sort(key=lambda row: -row[6])
    best = dict(zip(("temperature", "k", "min_similarity", "min_share"), grid[0][:4]))
    return grid, {"best": best, "n": len(missed), "of": len(exemplars)}


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, default=DEFAULT_KB)
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/chemground-bench/cache"))
    parser.add_argument("--tune", action="store_true", help="also run the leave-one-out grid")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()

    from user_questions_benchmark import open_qa

    from chemground.reasoning import aspect_classifier as ac
    from chemground.reasoning.parser import RuleParser
    from chemground.retrieval.embeddings import Embedder

    qa, workspace = open_qa(args.kb, args.cache_dir)
    sets = {name: load_items(path) for name, path in SETS.items()}
    items = [item for group in sets.values() for item in group]
    golds = {name: Counter(i["aspect"] for i in group) for name, group in sets.items()}
    print(f"{len(items)} held-out questions in {len(sets)} sets", file=sys.stderr)

    rules_only = RuleParser(workspace.resolver, qa.fuzzy, aspect_classifier=False)
    combined = RuleParser(
        workspace.resolver, qa.fuzzy, aspect_classifier=True, cache_dir=args.cache_dir
    )
    started = time.perf_counter()  # a first start: every exemplar embedded (no cache)
    ac.AspectClassifier(embedder=Embedder(None))
    build_ms = (time.perf_counter() - started) * 1000
    ac.reset_default_classifier()
    if ac.default_classifier(args.cache_dir) is None:  # fills the cache if it is empty
        sys.exit(f"the classifier is unavailable: {ac.unavailable_reason()}")
    ac.reset_default_classifier()  # a later start: the exemplar vectors come from the cache
    started = time.perf_counter()
    classifier = ac.default_classifier(args.cache_dir)
    cached_ms = (time.perf_counter() - started) * 1000

    results = {}
    for set_name, group in sets.items():
        for name, engine in (("rules only", rules_only), ("rules + k-NN", combined)):
            rows = evaluate(group, engine)
            results[(set_name, name)] = (rows, summary(rows))
    all_combined = [
        r for (_, name), (rows, _) in results.items() if name != "rules only" for r in rows
    ]

    # latency of QA.retrieve (warm): questions the rules read vs those the classifier reads
    for item in items[:5]:
        qa.retrieve(item["question"], k=5)
    by_source: dict[str, list[float]] = {"not consulted": [], "consulted": []}
    classify_ms = []
    for row in all_combined:
        question = row["item"]["question"]
        started = time.perf_counter()
        qa.retrieve(question, k=5)
        ms = (time.perf_counter() - started) * 1000
        by_source["consulted" if row["decision"] else "not consulted"].append(ms)
        if row["decision"]:
            started = time.perf_counter()
            classifier.classify(row["decision"]["text"])
            classify_ms.append((time.perf_counter() - started) * 1000)

    # retrieve on the generated template questions (as benchmarks/retrieval_benchmark.py times
    # it), classifier on and off in the same warm process
    from chemground.bench.generate import ALL_TASKS, generate

    generated = [
        item.question for item in generate(workspace.kb, per_task=10, seed=7, tasks=ALL_TASKS)
    ]
    for question in generated[:10]:
        qa.retrieve(question, k=5)
    generated_ms = {}
    consulted = 0
    for switch in (False, True, False, True):
        qa.parser.aspect_classifier = switch
        values = []
        for question in generated:
            started = time.perf_counter()
            query, _ = qa.retrieve(question, k=5)
            values.append((time.perf_counter() - started) * 1000)
            consulted += bool(switch and query.aspect_classifier)
        generated_ms.setdefault(switch, []).extend(values)
    qa.parser.aspect_classifier = workspace.settings.aspect_classifier

    header = [
        "set",
        "reader",
        "n",
        "accuracy",
        "in-scope accuracy",
        "wrong aspect",
        "wrong-aspect rate",
        "abstained",
        "off-topic flagged out of scope",
    ]
    table = [
        [
            set_name,
            name,
            s["n"],
            f"{s['accuracy']:.3f}",
            f"{s['in_scope_accuracy']:.3f}",
            s["wrong"],
            f"{s['wrong_rate']:.3f}",
            s["abstained"],
            f"{s['off_topic_flagged']} of {s['off_topic']}",
        ]
        for (set_name, name), (_, s) in results.items()
    ]
    print(markdown_table(header, table))
    by_reader = []
    overlaps = []
    failures = []
    for set_name in sets:
        combined_rows = results[(set_name, "rules + k-NN")][0]
        failures += [r for r in combined_rows if r["outcome"] != "right"]
        for source in ("rules", "exemplars", "classifier: out of scope", "none"):
            group = [r for r in combined_rows if r["source"] == source]
            if group:
                right = sum(r["outcome"] == "right" for r in group)
                by_reader.append([set_name, source, len(group), right, len(group) - right])
        # how close the questions the classifier decided are to an exemplar: a gain made only
        # on near-copies would not be generalisation
        decided = [r for r in combined_rows if r["decision"] and r["decision"]["accepted"]]
        near = [r for r in decided if r["decision"]["neighbours"][0]["cosine"] >= 0.95]
        rest = [r for r in decided if r not in near]
        if rest:
            cosines = sorted(r["decision"]["neighbours"][0]["cosine"] for r in rest)
            overlaps.append(
                f"Set {set_name}: of the {len(decided)} questions the classifier decided, "
                f"{len(near)} have an exemplar at cosine >= 0.95 (near-verbatim; "
                f"{sum(r['outcome'] == 'right' for r in near)} right); of the other {len(rest)}, "
                f"{sum(r['outcome'] == 'right' for r in rest)} are right (median nearest cosine "
                f"{cosines[len(cosines) // 2]:.2f})."
            )
    by_reader_header = ["set", "who decided (rules + k-NN)", "n", "right", "not right"]
    print(markdown_table(by_reader_header, by_reader))
    overlap = "\n\n".join(overlaps)
    print(overlap)
    lat_rows = []
    for source, values in by_source.items():
        if values:
            s = latency_summary(values)
            lat_rows.append(
                [
                    f"QA.retrieve, classifier {source}",
                    s["n"],
                    f"{s['p50']:.1f}",
                    f"{s['p95']:.1f}",
                ]
            )
    for switch, values in generated_ms.items():
        s = latency_summary(values)
        lat_rows.append(
            [
                f"QA.retrieve, `bench generate` questions, classifier {'on' if switch else 'off'}"
                + (f" (consulted for {consulted // 2} of {len(generated)})" if switch else ""),
                s["n"],
                f"{s['p50']:.1f}",
                f"{s['p95']:.1f}",
            ]
        )
    if classify_ms:
        s = latency_summary(classify_ms)
        lat_rows.append(
            ["classifier alone (embed + vote)", s["n"], f"{s['p50']:.1f}", f"{s['p95']:.1f}"]
        )
    lat_rows.append(
        ["classifier start-up, first ever (exemplars embedded)", 1, f"{build_ms:.0f}", ""]
    )
    lat_rows.append(
        ["classifier start-up, later (vectors from the cache)", 1, f"{cached_ms:.0f}", ""]
    )
    print(markdown_table(["latency (warm process)", "n", "p50 ms", "p95 ms"], lat_rows))

    kinds = Counter((r["outcome"], r["source"]) for r in failures)
    fail_lines = []
    for r in failures:
        nearest = ""
        if r["decision"]:
            d = r["decision"]
            nearest = (
                f" (k-NN {d['label']} {d['score']:.2f}/{d['similarity']:.2f}"
                f"{'' if d['accepted'] else ', below threshold'})"
            )
        fail_lines.append(
            f"- {r['item']['id']} {r['outcome']}: {r['item']['question']!r} gold "
            f"{r['item']['aspect']}, read {r['aspect'] or 'none'}{nearest}"
        )
    print("\n".join(fail_lines))

    tune_text = ""
    if args.tune:
        grid, info = tune(Embedder(args.cache_dir / "embeddings.sqlite"))
        grid_header = [
            "temperature",
            "k",
            "min cosine",
            "min share",
            "right",
            "wrong",
            "right - 3 wrong",
        ]
        grid_rows = [[t, a, b, c, f"{d:.3f}", f"{e:.3f}", f] for t, a, b, c, d, e, f in grid]
        print(markdown_table(grid_header, grid_rows[:12]))
        print(f"best {info['best']} over {info['n']} of {info['of']} exemplars no rule reads")
        in_use = [
            ac.DEFAULT_TEMPERATURE or "linear",
            ac.DEFAULT_K,
            ac.DEFAULT_MIN_SIMILARITY,
            ac.DEFAULT_MIN_SHARE,
        ]
        chosen = [row for row in grid if row[:4] == in_use]
        tune_text = (
            "\nThresholds by leave-one-out over the "
            f"{info['n']} exemplars (of {info['of']}) that no rule reads, each voting without "
            "itself; objective right - 3 x wrong (precision first). Best rows:\n\n"
            + markdown_table(grid_header, grid_rows[:5])
            + (
                f"\n\nIn use: temperature {in_use[0]}, k={ac.DEFAULT_K}, min cosine "
                f"{ac.DEFAULT_MIN_SIMILARITY}, min share {ac.DEFAULT_MIN_SHARE} (leave-one-out "
                f"right {chosen[0][4]:.3f}, wrong {chosen[0][5]:.3f}).\n"
                if chosen
                else ""
            )
        )

    exemplars = ac.load_exemplars()
    labels = Counter(e.label for e in exemplars)
    text = "\n".join(
        [
            "## Aspect classifier (rules + exemplar k-NN)",
            "",
            machine_line(),
            "",
            f"Exemplars: {len(exemplars)} hand-written phrasings "
            f"(`src/chemground/reasoning/data/aspect_exemplars.tsv`), {len(labels)} labels "
            f"(every aspect, `out_of_scope`, `explanation`), at least {min(labels.values())} per "
            "label. Held-out: two sets of hand-written questions with real compound names "
            "(`benchmarks/aspect_paraphrases/`, never exemplars; "
            + "; ".join(
                f"set {name}: {sum(g.values())} questions, {g['out_of_scope']} out of scope, "
                f"{g['explanation']} why/how"
                for name, g in golds.items()
            )
            + "), parsed on the default KB as `ask` parses them. The classifier is consulted "
            "only when no rule reads the question.",
            "",
            markdown_table(header, table),
            "",
            markdown_table(by_reader_header, by_reader),
            "",
            overlap,
            "",
            markdown_table(["latency (warm process)", "n", "p50 ms", "p95 ms"], lat_rows),
            "",
            HISTORY,
            "",
            "Questions still not right with rules + k-NN, by kind: "
            + ", ".join(f"{o} ({s}) {c}" for (o, s), c in sorted(kinds.items())),
            "",
            *fail_lines,
            tune_text,
        ]
    )
    if not args.no_write:
        print(f"wrote {write_section(SECTION, text)}")


if __name__ == "__main__":
    main()
