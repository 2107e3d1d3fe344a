"""``chemground bench tools-run|tools-retrieval|tools-generate``: the tool-learning benchmark.

``tools-run FILE.jsonl`` without an LLM measures execution fidelity (every gold step run
with its gold parameters and compared with the gold return); with an LLM configured it
runs an agent on every query and scores it with the published metrics.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import typer

from chemground.cli.common import (
    JSONOutput,
    LLMBaseURL,
    LLMModel,
    console,
    err_console,
    print_json,
    stage_progress,
    state,
)
from chemground.errors import ChemgroundError


def _settings(ctx: typer.Context, llm_base_url: str | None, llm_model: str | None):
    return state(ctx).with_llm(llm_base_url, llm_model)


def tools_run(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        ..., help="Benchmark JSONL file(s): {query, calling_chain: [{tool, params, return}]}."
    ),
    limit: int | None = typer.Option(None, "--limit", help="Only the first N items of each file."),
    rel_tol: float = typer.Option(1e-4, "--rel-tol", help="Relative tolerance for numbers."),
    agent: str = typer.Option("cot", "--agent", help="With an LLM: cot or mcts."),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    judge: bool = typer.Option(
        True, "--judge/--no-judge", help="With an LLM: judge the final answers (pass rate)."
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Write per-step (or per-item) records as JSONL."
    ),
    markdown: Path | None = typer.Option(
        None, "--markdown", help="Write the report table as Markdown."
    ),
    as_json: JSONOutput = False,
    fixtures: bool = typer.Option(
        True,
        "--fixtures/--no-fixtures",
        help="Create stand-in inputs for gold steps that "
        "name files nobody wrote (materials steps).",
    ),
) -> None:
    """Execution fidelity of our tools on gold calls, or (with --llm-*) an agent scored with the
    published metrics."""
    from chemground.agent.dataset import load_benchmark, write_jsonl
    from chemground.llm.config import llm_configured

    settings = _settings(ctx, llm_base_url, llm_model)
    datasets = [(path, load_benchmark(path, limit)) for path in files]
    if llm_configured(settings) and (llm_base_url or llm_model):
        _run_agent(settings, datasets, agent, judge, out, as_json)
        return
    from chemground.agent.fidelity import report_markdown, run_fidelity
    from chemground.agent.runner import ToolRunner
    from chemground.cli.common import build_progress
    from chemground.workspace import ensure_kb

    ensure_kb(settings.kb.path, build_progress())
    total = sum(len(items) for _, items in datasets)
    summaries, sections, records = {}, [], []
    with (
        tempfile.TemporaryDirectory(prefix="chemground-fidelity-") as folder,
        ToolRunner(settings=settings, files_dir=Path(folder)) as runner,
        stage_progress({"run": "gold steps"}) as bar,
    ):
        runner.warm_up()
        for path, items in datasets:
            report = run_fidelity(
                items,
                runner,
                rel_tol=rel_tol,
                use_fixtures=fixtures,
                progress=(lambda n: bar("run", n, total)) if bar else None,
            )
            summaries[str(path)] = report.summary()
            sections.append(report_markdown(report, path.name))
            records += [
                {
                    "file": path.name,
                    "item": o.item_id,
                    "step": o.index,
                    "tool": o.tool,
                    "status": o.status,
                    "how": o.how,
                    "error_kind": o.error_kind,
                    "error": o.error,
                    "elapsed_ms": round(o.elapsed_ms, 2),
                    "gold": o.gold,
                    "ours": o.ours,
                    "fixtures": o.fixtures,
                }
                for o in report.outcomes
            ]
    if out:
        write_jsonl(records, out)
    if markdown:
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text("\n".join(sections), encoding="utf-8")
    if as_json:
        print_json(summaries)
        return
    console.print("\n".join(sections), highlight=False, markup=False)


def _run_agent(
    settings, datasets, agent: str, judge: bool, out: Path | None, as_json: bool
) -> None:
    from chemground.agent.dataset import write_jsonl
    from chemground.agent.evaluation import evaluate_agent
    from chemground.llm.config import llm_from_settings

    llm = llm_from_settings(settings)
    results, records = {}, []
    for path, items in datasets:
        with stage_progress({"run": f"{path.name}: questions"}) as bar:
            evaluation = evaluate_agent(
                items,
                llm,
                settings=settings,
                agent=agent,
                judge=judge,
                progress=(lambda n, total=len(items): bar("run", n, total)) if bar else None,
            )
        results[str(path)] = evaluation.summary()
        records += [dict(r, file=path.name) for r in evaluation.records]
    if out:
        write_jsonl(records, out)
    if as_json:
        print_json(results)
        return
    for path, summary in results.items():
        console.print(f"[bold]{path}[/] ({summary['model']}, agent {summary['agent']})")
        for key, value in summary.items():
            if isinstance(value, float):
                console.print(f"  {key:28s} {value:.3f}")
            elif key not in ("model", "agent"):
                console.print(f"  {key:28s} {value}")


def tools_retrieval(
    ctx: typer.Context,
    files: list[Path] = typer.Argument(
        ..., help="Benchmark JSONL file(s) whose queries and gold tools are used."
    ),
    k: int = typer.Option(5, "-k", help="Recall@k."),
    methods: str = typer.Option(
        "bm25,dense,hybrid", "--methods", help="Comma-separated: bm25, dense, hybrid."
    ),
    as_json: JSONOutput = False,
) -> None:
    """Tool-retrieval Recall@k of the gold tools for the benchmark's queries."""
    from chemground.agent.dataset import load_benchmark
    from chemground.agent.metrics import retrieval_recall
    from chemground.agent.retriever import ToolRetriever

    retriever = ToolRetriever(cache_dir=state(ctx).settings.cache_dir)
    results = {}
    for path in files:
        items = load_benchmark(path)
        for method in [m.strip() for m in methods.split(",") if m.strip()]:
            hits = retriever.search_many([i.query for i in items], k=k, method=method)
            results[f"{path.name}:{method}"] = retrieval_recall(
                [i.tools for i in items], [[n for n, _ in h] for h in hits]
            )
    if as_json:
        print_json(results)
        return
    for key, value in results.items():
        console.print(
            f"{key:40s} Recall@{k} {value['recall']:.3f}  (all gold tools in top {k}: "
            f"{value['all_found']:.3f})"
        )


def tools_generate(
    ctx: typer.Context,
    out_dir: Path = typer.Option(
        ..., "--out", help="Folder for train.jsonl, dev.jsonl and test.jsonl."
    ),
    single: int = typer.Option(20, "--single", help="How many single-tool items to try to make."),
    multiple: int = typer.Option(
        10, "--multiple", help="How many multi-tool items to try to make."
    ),
    tools: str | None = typer.Option(
        None,
        "--tools",
        help="Comma-separated tool names or namespaces to use "
        "(default: all tools that need no files or network).",
    ),
    seed: int = typer.Option(0, "--seed", help="Random seed (tool and value choice, splits)."),
    split: str = typer.Option("0.8,0.1,0.1", "--split", help="train,dev,test fractions."),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
) -> None:
    """Generate tool-learning data (LLM): real parameter values, every call executed, bad chains
    dropped with a reason."""
    from chemground.agent.curation import CurationConfig, generate_dataset
    from chemground.llm.config import llm_from_settings

    settings = _settings(ctx, llm_base_url, llm_model)
    llm = llm_from_settings(settings)
    fractions = tuple(float(x) for x in split.split(","))
    if len(fractions) != 3 or abs(sum(fractions) - 1) > 1e-6:
        raise ChemgroundError("--split needs three fractions that add up to 1, e.g. 0.8,0.1,0.1")
    config = CurationConfig(
        single=single,
        multiple=multiple,
        seed=seed,
        split=fractions,
        tools=[t.strip() for t in tools.split(",")] if tools else None,
    )
    with stage_progress({"single": "single-tool items", "multiple": "multi-tool items"}) as bar:
        summary = generate_dataset(llm, config, out_dir, settings=settings, progress=bar)
    err_console.print(
        f"kept {summary['kept']} items ({summary['splits']}), dropped {summary['dropped']}: "
        f"{json.dumps(summary['drop_reasons'])}"
    )
    print_json(summary)


def register(app: typer.Typer) -> None:
    app.command("tools-run")(tools_run)
    app.command("tools-retrieval")(tools_retrieval)
    app.command("tools-generate")(tools_generate)
