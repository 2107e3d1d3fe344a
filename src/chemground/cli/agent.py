"""``chemground agent ask``: answer a question by calling tools (chain of thought or HE-MCTS)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from chemground.cli.common import JSONOutput, LLMBaseURL, LLMModel, console, print_json, state

app = typer.Typer(help="Tool-using agent (chain of thought, tree search).", no_args_is_help=True)


@app.command("ask")
def ask(
    ctx: typer.Context,
    question: str = typer.Argument(..., help="The question."),
    mode: str = typer.Option(
        "cot", "--mode", help="cot (chain of thought) or mcts (HE-MCTS tree search)."
    ),
    max_steps: int = typer.Option(6, "--max-steps", min=1, help="cot: tool-call budget."),
    iterations: int = typer.Option(6, "--iterations", help="mcts: search iterations."),
    depth: int = typer.Option(4, "--depth", help="mcts: tool calls on a path."),
    k: int = typer.Option(3, "-k", min=1, help="mcts: actions proposed per expansion."),
    max_llm_calls: int = typer.Option(60, "--max-llm-calls", help="mcts: LLM-call budget."),
    k_tools: int = typer.Option(8, "--k-tools", help="How many retrieved tools the model may use."),
    tools: str | None = typer.Option(
        None, "--tools", help="Comma-separated tools to use instead of retrieval."
    ),
    files_dir: Path | None = typer.Option(
        None, "--files-dir", help="Folder tools may read and write (default: a temporary folder)."
    ),
    export: Path | None = typer.Option(
        None, "--export", help="Append the trajectory as chat-format JSONL."
    ),
    llm_base_url: LLMBaseURL = None,
    llm_model: LLMModel = None,
    as_json: JSONOutput = False,
) -> None:
    """Answer a question with tools; the evidence is the tool results, the trace shows every step
    (and the tree)."""
    from chemground.cli.common import build_progress
    from chemground.qa_factory import build_qa

    settings = state(ctx).with_llm(llm_base_url, llm_model)
    chosen = [t.strip() for t in tools.split(",")] if tools else None
    with state(ctx).workspace_for(settings) as workspace:
        answer = build_qa(workspace).run_agent(
            question,
            mode=mode,
            tools=chosen,
            files_dir=files_dir,
            k_tools=k_tools,
            max_steps=max_steps,
            iterations=iterations,
            depth=depth,
            k=k,
            max_llm_calls=max_llm_calls,
            kb_progress=build_progress(),
        )
    if export:
        from chemground.agent.trajectory import to_chat

        export.parent.mkdir(parents=True, exist_ok=True)
        with open(export, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(to_chat(answer), ensure_ascii=False) + "\n")
    if as_json:  # the one Answer JSON of `chemground ask`
        print_json(answer.to_answer().to_json())
        return
    console.print(f"[bold]{answer.answer}[/]", highlight=False)
    table = Table(title=f"{answer.reasoner}: {answer.status}", title_justify="left")
    table.add_column("#")
    table.add_column("tool")
    table.add_column("arguments")
    table.add_column("result")
    for number, step in enumerate(answer.steps, 1):
        result = step.result.observation(200) if step.result else ""
        table.add_row(
            str(number), step.tool, json.dumps(step.arguments, ensure_ascii=False)[:80], result
        )
    console.print(table)
    console.print(
        f"LLM calls: {answer.usage.get('calls')}, tokens: {answer.usage.get('total_tokens')}, "
        f"{answer.timings_ms.get('total', 0):.0f} ms",
        highlight=False,
    )
