"""Robustness of the user-question benchmark's right answers (issue 13), on dev only.

    python benchmarks/user_questions_robustness.py [--seed 5] [--kinds name-typo,suffix]

Each dev question answered right is asked again, changed in a way that keeps its meaning: a
greeting before it, a thank-you or an aside after it, "whats" and no articles, one misspelt aspect
word, no question mark, an aspect word paraphrased, and (compound and property questions naming one
compound by a name) one slip in that name: two letters swapped, one dropped, doubled or replaced by
another vowel. A perturbed question is scored against the original's gold, as the benchmark scores
it (``outcome``): right, hedged right, refused (an honest "I could not"), hedged wrong or
confidently wrong. A misspelt name may spell another real compound ("phthalamide" for
phthalimide); answering that one is no error of the system, so those are listed for reading.

Only dev is perturbed: test is never read (see benchmarks/user_questions/README.md).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import markdown_table  # noqa: E402
from user_questions_benchmark import DEFAULT_KB, HITS, load, open_qa, outcome  # noqa: E402

PREFIX = ["hey, quick one - ", "For my lab report: ", "sorry if this is basic, but ", "Q: ", "hi! "]
SUFFIX = [" thanks!", " (need it for a calc)", " cheers", " pls", " - thx in advance", "??"]
ASPECT_WORDS = {
    "weight",
    "molecular",
    "formula",
    "solvent",
    "catalyst",
    "temperature",
    "yield",
    "product",
    "reagent",
    "conditions",
    "structure",
    "melting",
    "boiling",
    "density",
    "synonyms",
    "reactants",
    "route",
    "similar",
}
PARAPHRASES = [
    (r"\bmolecular weight\b", ["molar mass", "MW", "mol. wt.", "formula weight", "mol weight"]),
    (r"\bmolar mass\b", ["molecular weight", "MW", "g/mol value"]),
    (r"\bmolecular formula\b", ["chemical formula", "sum formula", "formula"]),
    (r"\bwhat solvent\b", ["which solvent", "what reaction solvent", "what medium"]),
    (r"\bwhich solvent\b", ["what solvent", "what solvent system"]),
    (r"\btemperature\b", ["temp", "reaction temperature", "temp."]),
    (r"\bthe yield\b", ["the % yield", "the isolated yield", "the yield (%)"]),
    (r"\bcatalyst\b", ["cat.", "catalytic system", "catalyst used"]),
    (r"\bthe product\b", ["the main product", "the major product", "the organic product"]),
    (r"\bSMILES\b", ["SMILES string", "smiles", "SMILES notation"]),
    (r"^what is\b", ["tell me", "give me", "I need", "what's"]),
    (r"\bIUPAC name\b", ["systematic name", "iupac name", "IUPAC"]),
]
KINDS = (
    "greeting",
    "thanks",
    "sloppy",
    "aspect-typo",
    "no-question-mark",
    "paraphrase",
    "name-typo",
)
OUTCOMES = ("right", "hedged right", "refused", "hedged wrong", "confidently wrong")
NAME = re.compile(r"[A-Za-z][a-z\- ]{4,}")


def slip(word: str, rng: random.Random) -> str | None:
    """``word`` with one typist's slip inside it (never its first or last letter)."""
    inner = [i for i, c in enumerate(word) if c.isalpha()][1:-1]
    if len(inner) < 3:
        return None
    i = rng.choice(inner)
    kind = rng.choice(["swap", "drop", "double", "vowel"])
    if kind == "vowel":
        vowels = [k for k in inner if word[k].lower() in "aeiou"]
        if vowels:
            k = rng.choice(vowels)
            return (
                word[:k] + rng.choice([v for v in "aeio" if v != word[k].lower()]) + word[k + 1 :]
            )
    if kind == "swap" and word[i + 1 : i + 2].isalpha() and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "double":
        return word[:i] + word[i] + word[i:]
    return word[:i] + word[i + 1 :]


def variants(qa, item: dict, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, perturbed question) pairs for one dev question."""
    q = item["question"]
    out = []
    lowered = q[:1].lower() + q[1:] if q[:1].isalpha() and q[1:2].islower() else q
    out.append(("greeting", rng.choice(PREFIX) + lowered))
    out.append(("thanks", q.rstrip("?. ") + rng.choice(SUFFIX)))
    sloppy = re.sub(r"\bwhat is\b", "whats", q, flags=re.I)
    sloppy = re.sub(r"\bthe\b ", "", sloppy)
    if sloppy != q:
        out.append(("sloppy", sloppy))
    words = [w for w in re.findall(r"[A-Za-z]+", q) if w.lower() in ASPECT_WORDS]
    if words:
        word = rng.choice(words)
        k = rng.randrange(1, len(word) - 2)
        out.append(
            ("aspect-typo", q.replace(word, word[:k] + word[k + 1] + word[k] + word[k + 2 :], 1))
        )
    if q.rstrip().endswith("?"):
        out.append(("no-question-mark", q.rstrip()[:-1].rstrip()))
    for pattern, alternatives in PARAPHRASES:
        if re.search(pattern, q, re.I):
            replaced = re.sub(pattern, rng.choice(alternatives), q, count=1, flags=re.I)
            out.append(("paraphrase", replaced))
            break
    if item.get("kind") in ("compound_fact", "property"):
        named = [
            m
            for m in qa.parse(q).mentions
            if m.resolved and m.compound_id and NAME.fullmatch(m.text)
        ]
        if len(named) == 1:
            typed = slip(named[0].text, rng)
            if typed and typed.lower() != named[0].text.lower():
                out.append(("name-typo", q[: named[0].start] + typed + q[named[0].end :]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=5, help="random draw of the perturbations")
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help="comma-separated, of: " + ", ".join(KINDS)
    )
    parser.add_argument("--kb", type=Path, default=DEFAULT_KB)
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/chemground-bench/cache"))
    parser.add_argument("--show", action="store_true", help="print every perturbed miss")
    args = parser.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"--kinds: unknown {', '.join(sorted(unknown))}")
    qa, _ = open_qa(args.kb, args.cache_dir)
    rng = random.Random(args.seed)
    counts: Counter = Counter()
    misses = []
    for item in load("dev"):
        first = qa.ask(item["question"], method="auto", reasoner="extractive").to_json()
        if outcome(item, first) not in HITS:
            continue
        for kind, question in variants(qa, item, rng):
            if kind not in kinds:
                continue
            try:
                answer = qa.ask(question, method="auto", reasoner="extractive").to_json()
            except Exception as error:  # a crash is a result to report, not to hide
                answer = {"status": "error", "answer": repr(error), "value": None}
            result = outcome(item, answer)
            counts[kind, result] += 1
            if result not in HITS:
                misses.append((result, kind, item["id"], question, answer))
    rows = []
    for kind in kinds:
        n = sum(v for (k, _), v in counts.items() if k == kind)
        rows.append([kind, n, *(counts[kind, o] for o in OUTCOMES)])
    print(f"\nseed {args.seed}: perturbed right dev answers, by outcome")
    print(markdown_table(["perturbation", "questions", *OUTCOMES], rows))
    for result, kind, ident, question, answer in misses:
        if args.show or result == "confidently wrong":
            print(f"\n{result.upper()} [{kind}] {ident}: {question}")
            print(f"    -> [{answer['status']}] {answer['answer'][:200]}")


if __name__ == "__main__":
    main()
