"""Assemble benchmarks/RESULTS.md from the sections the benchmark scripts write.

    python benchmarks/compile_results.py

Each script writes benchmarks/results/<area>.md; this joins them in a fixed order.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = [
    ("kb", "python benchmarks/kb_benchmark.py"),
    ("kb_scale", "python benchmarks/kb_scale.py"),
    ("retrieval", "python benchmarks/retrieval_benchmark.py"),
    ("table_rag", "python benchmarks/table_rag_benchmark.py"),
    ("table_rag_llm", "chemground bench run SUBSET --reasoner rag-direct (see the section)"),
    ("user_questions", "python benchmarks/user_questions_benchmark.py --split all"),
    ("aspect_classifier", "python benchmarks/aspect_classifier.py --tune"),
    ("reaction_roles", "python benchmarks/reaction_roles.py"),
    ("tool_properties", "python benchmarks/tool_properties_benchmark.py"),
    ("api_load", "python benchmarks/api_load.py"),
    ("startup", "python benchmarks/startup.py --baseline 7d4aec7"),
    ("llm_smoke", "python benchmarks/llm_smoke.py --base-url URL"),
    ("faithfulness", "python benchmarks/faithfulness.py --base-url URL"),
    ("extract", "python benchmarks/extract_gold_ceiling.py; python benchmarks/extract_cost.py"),
    (
        "graph",
        "python benchmarks/graph_build.py; python benchmarks/graph_routes.py; python "
        "benchmarks/graph_tasks.py",
    ),
    (
        "lit",
        "python benchmarks/lit_retrieval.py; python benchmarks/lit_scale.py; "
        "python benchmarks/lit_compare.py --llm-base-url URL --llm-model M; "
        "python benchmarks/lit_cold_start.py",
    ),
    ("tools", "python benchmarks/tools_fidelity.py; python benchmarks/tools_retrieval.py"),
]


def main() -> None:
    parts = [
        "# Benchmark results",
        "",
        "Measured by the scripts in `benchmarks/` (each section names its script). Figures for LLM",
        "reasoners and agents are absent on purpose: no LLM endpoint was reachable where these "
        "were",
        "measured, and no accuracy is reported for a model that was not run.",
        "",
    ]
    for name, command in ORDER:
        path = HERE / "results" / f"{name}.md"
        if not path.exists():
            parts += [f"## {name}", "", f"_Not measured yet: run `{command}`._", ""]
            continue
        text = path.read_text(encoding="utf-8").strip()
        if text.startswith("# "):  # a section written as its own document: one level down
            text = "\n".join(
                "#" + line if line.startswith("#") else line for line in text.splitlines()
            )
        parts += [text, "", f"_Reproduce: `{command}`._", ""]
    (HERE / "RESULTS.md").write_text("\n".join(parts), encoding="utf-8")
    print(f"wrote {HERE / 'RESULTS.md'}")


if __name__ == "__main__":
    main()
