"""HE-MCTS: hierarchical Monte Carlo tree search over tool calls, separating what to do next
(the policy step, choosing tools) from how to do it (the execution step, filling arguments).

One iteration:
1. **selection**: from the root, follow UCT (Q/N + c·sqrt(ln N_parent / N)) over children that
   are still open, preferring unvisited ones; finished branches are not re-entered;
2. **expansion**: the *policy step* asks the LLM for k distinct next actions among the
   retrieved tools (or FINISH); the *execution step* fills each tool's arguments, runs it and,
   on an error, reflects (shows the model the failed call and the error) and retries;
   siblings whose execution results are identical are merged into one node;
3. **process reward**: the LLM scores every new step (0-1), which seeds the node values;
   **adaptive pruning** marks children far below their best sibling as pruned, but keeps them
   (soft retention): they are revived when every other branch is exhausted;
4. **simulation**: from the best new child, a greedy rollout (policy with k=1, execution)
   continues to a FINISH node, whose answer gets an LLM **outcome reward**;
5. **backpropagation** of that reward to the root.
Budgets cap iterations, depth and LLM calls, every reply is capped at ``max_tokens`` and all the
calls of one search share one wall-clock budget. Tool names are matched tolerantly (a model
copies "cactus/CalculateQED(compound_SMILES: string)" from the list; each mapping is an event in
the trace). The answer comes from the finished trajectory with the best outcome reward, checked
against the tool results by the faithfulness check (status ``unsupported`` when its numbers,
structures or names are not in them; ``trace["faithfulness"]``); the whole tree and the best
path are in the trace.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from chemground.agent.core import (
    AgentAnswer,
    AgentStep,
    Stopwatch,
    check_agent_answer,
    describe_tools,
    match_tool_name,
)
from chemground.agent.manifest import ToolManifest
from chemground.agent.retriever import ToolRetriever
from chemground.agent.runner import ToolResult, ToolRunner
from chemground.chem.mentions import MentionFinder
from chemground.errors import ChemgroundError
from chemground.llm.base import LLM, LLMBadOutput, LLMDeadlineExceeded
from chemground.llm.prompts import render

FINISH = "FINISH"


class BudgetExhausted(Exception):
    pass


@dataclass
class MCTSConfig:
    k: int = 3  # actions proposed per expansion
    k_tools: int = 8  # tools retrieved for the question
    max_iterations: int = 6
    max_depth: int = 4  # tool calls on a path
    max_llm_calls: int = 60
    retries: int = 2  # reflections after a failed call
    c_uct: float = 1.0
    prune_margin: float = 0.4  # prune children scoring this far below their best sibling ...
    prune_floor: float = 0.2  # ... or below this
    result_chars: int = 1500
    max_tokens: int = (
        512  # per LLM reply: a looping small model stops here, not at the end of its context
    )


@dataclass
class Node:
    id: int
    parent: int | None
    depth: int
    tool: str | None = None  # None for the root, FINISH for an answer
    purpose: str = ""
    arguments: Any = None
    result: ToolResult | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)  # failed calls before the kept one
    answer: str | None = None
    process_reward: float | None = None
    outcome_reward: float | None = None
    visits: int = 0
    value_sum: float = 0.0
    status: str = "open"  # open | terminal | pruned | failed | exhausted
    expanded: bool = False
    simulated: bool = False
    revived: bool = False
    children: list[int] = field(default_factory=list)
    merged: list[dict[str, Any]] = field(default_factory=list)

    @property
    def q(self) -> float:
        if self.visits:
            return self.value_sum / self.visits
        return self.process_reward if self.process_reward is not None else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "parent": self.parent,
            "depth": self.depth,
            "tool": self.tool,
            "purpose": self.purpose,
            "arguments": self.arguments,
            "result": self.result.to_json() if self.result else None,
            "attempts": self.attempts,
            "answer": self.answer,
            "process_reward": self.process_reward,
            "outcome_reward": self.outcome_reward,
            "visits": self.visits,
            "q": round(self.q, 4),
            "status": self.status,
            "simulated": self.simulated,
            "revived": self.revived,
            "children": self.children,
            "merged": self.merged,
        }


class HEMCTSAgent:
    """Tree search over tool calls (see the module docstring)."""

    name = "mcts"

    def __init__(
        self,
        llm: LLM,
        runner: ToolRunner,
        retriever: ToolRetriever | None = None,
        config: MCTSConfig | None = None,
        tools: list[str] | None = None,
        finder: MentionFinder | None = None,
    ) -> None:
        self.llm = llm
        self.finder = finder  # names and SMILES of the final answer are checked with it
        self.runner = runner
        self.retriever = retriever
        self.config = config or MCTSConfig()
        self.fixed_tools = tools

    # -- bookkeeping -----------------------------------------------------------------------
    def _reset(self, question: str) -> None:
        self.question = question
        self.nodes: list[Node] = [Node(0, None, 0, status="open")]
        self.events: list[dict[str, Any]] = []
        self._calls_at_start = self.llm.ledger.snapshot().calls

    def _llm_calls(self) -> int:
        return self.llm.ledger.snapshot().calls - self._calls_at_start

    def _ask_json(self, prompt: str, check=None) -> Any:
        if self._llm_calls() >= self.config.max_llm_calls:
            raise BudgetExhausted("LLM-call budget used up")
        value, _ = self.llm.chat_json(
            [{"role": "user", "content": prompt}], check=check, max_tokens=self.config.max_tokens
        )
        return value

    def _add(self, node: Node) -> Node:
        node.id = len(self.nodes)
        self.nodes.append(node)
        self.nodes[node.parent].children.append(node.id)
        return node

    def path(self, node: Node) -> list[Node]:
        out = []
        current: Node | None = node
        while current is not None and current.parent is not None:
            out.append(current)
            current = self.nodes[current.parent]
        return list(reversed(out))

    def _history(self, node: Node) -> str:
        lines = []
        for number, step in enumerate(
            (n for n in self.path(node) if n.tool not in (None, FINISH)), 1
        ):
            outcome = (
                step.result.observation(self.config.result_chars) if step.result else "(not run)"
            )
            lines.append(
                f"{number}. {step.tool}({json.dumps(step.arguments, ensure_ascii=False)}) -> "
                f"{outcome}"
            )
        return "\n".join(lines) or "(none yet)"

    # -- the four phases ---------------------------------------------------------------------
    def select(self) -> Node | None:
        """Descend by UCT over open children to a node not expanded yet; None when nothing is
        open."""
        while True:
            node = self.nodes[0]
            while node.expanded:
                children = [self.nodes[c] for c in node.children if self.nodes[c].status == "open"]
                if not children:
                    if node.parent is None:
                        return None
                    node.status = "exhausted"  # close this branch and start again from the root
                    break
                unvisited = [c for c in children if c.visits == 0]
                if unvisited:
                    node = max(unvisited, key=lambda c: c.process_reward or 0.0)
                    continue
                total = max(1, node.visits)
                node = max(
                    children,
                    key=lambda c: c.q + self.config.c_uct * math.sqrt(math.log(total) / c.visits),
                )
            else:
                return node

    def revive(self) -> bool:
        """Soft retention: reopen pruned nodes when nothing else is open."""
        pruned = [n for n in self.nodes if n.status == "pruned"]
        for node in pruned:
            node.status, node.revived = "open", True
            ancestor = node.parent
            while ancestor is not None and self.nodes[ancestor].status == "exhausted":
                self.nodes[ancestor].status = "open"
                ancestor = self.nodes[ancestor].parent
        if pruned:
            self.events.append({"event": "revived", "nodes": [n.id for n in pruned]})
        return bool(pruned)

    def propose(self, node: Node, k: int) -> list[dict[str, str]]:
        """Policy step: up to k distinct next actions (tool names or FINISH)."""
        known = [m.name for m in self.manifests]
        mapped: list[dict[str, Any]] = []

        def check(value: Any) -> list[dict[str, str]]:
            actions = value.get("actions") if isinstance(value, dict) else value
            if isinstance(actions, dict):  # one action instead of a list of them
                actions = [actions]
            if not isinstance(actions, list):
                raise ValueError("expected {'actions': [...]}")
            out, seen, unknown = [], set(), []
            mapped.clear()
            for action in actions:
                raw = (
                    str(action.get("tool", "")).strip()
                    if isinstance(action, dict)
                    else str(action).strip()
                )
                # the model copies names as listed: "cactus/CalculateQED(compound_SMILES: string)"
                if raw.strip("`'\" ").upper().startswith(FINISH):
                    tool, note = FINISH, None
                else:
                    tool, note = match_tool_name(raw, known)
                if tool is None:
                    unknown.append(raw)
                    continue
                if note:
                    mapped.append(
                        {"event": "tool_name_mapped", "from": raw, "to": tool, "note": note}
                    )
                if tool in seen:
                    continue
                seen.add(tool)
                out.append(
                    {
                        "tool": tool,
                        "purpose": str(action.get("purpose", ""))
                        if isinstance(action, dict)
                        else "",
                    }
                )
            if not out:
                raise ValueError(
                    f"no known tool among the proposed actions {unknown[:5]}; give tool names "
                    "exactly "
                    f"as listed (the part before the parenthesis), or FINISH"
                )
            return out[:k]

        prompt = render(
            "agent/mcts_policy",
            k=k,
            question=self.question,
            history=self._history(node),
            tools=self.tool_text,
        )
        actions = self._ask_json(prompt, check=check)
        self.events.extend(mapped)
        return actions

    def execute(self, parent: Node, tool: str, purpose: str) -> Node:
        """Execution step: fill the arguments, run, reflect on errors and retry."""
        node = Node(0, parent.id, parent.depth + 1, tool=tool, purpose=purpose)
        if tool == FINISH:
            node.answer = self.finish(parent)
            node.status = "terminal"
            return node
        manifest = self.runner.registry.get(tool)
        feedback = ""
        for _attempt in range(self.config.retries + 1):
            prompt = render(
                "agent/mcts_execute",
                question=self.question,
                history=self._history(parent),
                tool=describe_tools([manifest]),
                purpose=purpose or "(not given)",
                feedback=feedback,
            )
            try:
                value = self._ask_json(prompt, check=_arguments)
            except LLMBadOutput as error:
                node.attempts.append({"arguments": None, "error": str(error)})
                feedback = ""
                continue
            result = self.runner.call(tool, value)
            node.arguments, node.result = value, result
            if result.ok or result.error_kind in ("offline", "timeout"):
                break  # nothing a different argument would fix
            node.attempts.append(
                {"arguments": value, "error": result.error, "error_kind": result.error_kind}
            )
            feedback = "\n" + render(
                "agent/mcts_reflect",
                call=f"{tool}({json.dumps(value, ensure_ascii=False)})",
                error=result.error,
            )
        if node.result is None or not node.result.ok:
            node.status = "failed"
            node.process_reward = 0.0
        elif node.attempts:
            self.events.append(
                {"event": "repaired", "tool": tool, "failed_attempts": len(node.attempts)}
            )
        return node

    def finish(self, node: Node) -> str:
        prompt = render("agent/mcts_final", question=self.question, history=self._history(node))
        value = self._ask_json(prompt, check=_final_answer)
        return value

    def score_steps(self, parent: Node, children: list[Node]) -> None:
        """Process reward for the new (successful tool) children, in one LLM call."""
        scored = [c for c in children if c.status == "open"]
        if not scored:
            return
        candidates = "\n".join(
            f"{i}. {c.tool}({json.dumps(c.arguments, ensure_ascii=False)}) -> "
            f"{c.result.observation(self.config.result_chars)}"
            for i, c in enumerate(scored, 1)
        )
        prompt = render(
            "agent/mcts_process_reward",
            question=self.question,
            history=self._history(parent),
            candidates=candidates,
        )

        def check(value: Any) -> list[float]:
            scores = value.get("scores") if isinstance(value, dict) else value
            if not isinstance(scores, list) or len(scores) != len(scored):
                raise ValueError(f"expected {len(scored)} scores")
            return [min(1.0, max(0.0, float(s))) for s in scores]

        for child, score in zip(scored, self._ask_json(prompt, check=check)):
            child.process_reward = score

    def outcome(self, node: Node) -> float:
        prompt = render(
            "agent/mcts_outcome_reward",
            question=self.question,
            history=self._history(node),
            answer=node.answer,
        )

        def check(value: Any) -> float:
            if not isinstance(value, dict) or "score" not in value:
                raise ValueError("expected {'score': number}")
            return min(1.0, max(0.0, float(value["score"])))

        node.outcome_reward = self._ask_json(prompt, check=check)
        return node.outcome_reward

    def expand(self, node: Node) -> list[Node]:
        node.expanded = True
        if node.depth >= self.config.max_depth:
            actions = [{"tool": FINISH, "purpose": "depth limit reached"}]
        else:
            actions = self.propose(node, self.config.k)
        children: list[Node] = []
        by_result: dict[str, Node] = {}
        for action in actions:
            child = self.execute(node, action["tool"], action["purpose"])
            if child.result is not None and child.result.ok:
                key = json.dumps(child.result.value, sort_keys=True, default=str)
                if (
                    key in by_result
                ):  # sibling merge: an identical execution result adds nothing new
                    kept = by_result[key]
                    kept.merged.append(
                        {"tool": child.tool, "purpose": child.purpose, "arguments": child.arguments}
                    )
                    self.events.append(
                        {
                            "event": "merged",
                            "tool": child.tool,
                            "into": kept.tool,
                            "arguments": child.arguments,
                        }
                    )
                    continue
                by_result[key] = child
            children.append(self._add(child))
        self.score_steps(node, children)
        self.prune(children)
        if not any(c.status == "open" or c.status == "terminal" for c in children):
            node.status = "exhausted"
        return children

    def prune(self, children: list[Node]) -> None:
        """Adaptive pruning: below max(floor, best sibling - margin) -> pruned (kept, revivable)."""
        scored = [c for c in children if c.status == "open" and c.process_reward is not None]
        if len(scored) < 2:
            return
        best = max(c.process_reward for c in scored)
        threshold = max(self.config.prune_floor, best - self.config.prune_margin)
        for child in scored:
            if child.process_reward < threshold:
                child.status = "pruned"
                self.events.append(
                    {
                        "event": "pruned",
                        "node": child.id,
                        "tool": child.tool,
                        "score": child.process_reward,
                        "threshold": round(threshold, 3),
                    }
                )

    def simulate(self, node: Node) -> Node:
        """Greedy rollout to a FINISH node (rollout calls are real and stay in the tree)."""
        current = node
        while current.tool != FINISH:
            if current.depth >= self.config.max_depth:
                action = {"tool": FINISH, "purpose": "depth limit reached"}
            else:
                action = self.propose(current, 1)[0]
            child = self._add(self.execute(current, action["tool"], action["purpose"]))
            child.simulated = True
            if child.status == "failed":
                return child
            current = child
        self.outcome(current)
        return current

    def backpropagate(self, node: Node, value: float) -> None:
        current: Node | None = node
        while current is not None:
            current.visits += 1
            current.value_sum += value
            current = self.nodes[current.parent] if current.parent is not None else None

    # -- the search -------------------------------------------------------------------------
    def run(self, question: str, item_id: str | None = None) -> AgentAnswer:
        clock = Stopwatch()
        before = self.llm.ledger.snapshot()
        self._reset(question)
        registry = self.runner.registry
        if self.fixed_tools is not None:
            self.manifests: list[ToolManifest] = [registry.get(n) for n in self.fixed_tools]
        else:
            retriever = self.retriever or ToolRetriever(registry)
            self.manifests = [
                registry.get(n) for n, _ in retriever.search(question, k=self.config.k_tools)
            ]
        self.tool_text = describe_tools(self.manifests)
        with self.llm.answer_budget():  # every call of the search shares one wall-clock budget
            iterations, stop_reason = self._search()
        best = self.best_terminal()
        status = "answered" if best is not None else "budget_exhausted"
        if best is None:
            answer = "No answer was reached within the search budget."
            path: list[Node] = []
        else:
            answer = best.answer or ""
            path = self.path(best)
        steps = [
            AgentStep(n.purpose, n.tool, n.arguments, n.result, attempt=len(n.attempts) + 1)
            for n in path
            if n.tool not in (None, FINISH)
        ]
        trace = {
            "tree": [n.to_json() for n in self.nodes],
            "best_path": [n.id for n in path],
            "iterations": iterations,
            "llm_calls": self._llm_calls(),
            "stop_reason": stop_reason,
            "events": self.events,
            "tools_offered": [m.name for m in self.manifests],
            "config": self.config.__dict__,
        }
        if best is not None:
            if not any(n.result is not None for n in self.nodes):
                trace["note"] = "answered without calling any tool"
            report = check_agent_answer(question, answer, steps, self.finder)
            trace["faithfulness"] = report.to_json()
            if not report.supported:
                status = "unsupported"
        return AgentAnswer(
            question=question,
            answer=answer,
            reasoner=self.name,
            steps=steps,
            status=status,
            trace=trace,
            usage=self.llm.ledger.since(before).to_dict(),
            timings_ms={"total": clock.ms()},
            id=item_id,
        )

    def _search(self) -> tuple[int, str]:
        """The iterations of the search: (how many ran, why it stopped)."""
        iterations = 0
        stop_reason = "iterations"
        try:
            while iterations < self.config.max_iterations:
                node = self.select()
                if node is None:
                    if self.revive():
                        continue
                    stop_reason = "tree exhausted"
                    break
                iterations += 1
                children = self.expand(node)
                for child in children:
                    if child.tool == FINISH and child.answer is not None:
                        self.backpropagate(child, self.outcome(child))
                open_children = [c for c in children if c.status == "open"]
                if open_children:
                    end = self.simulate(max(open_children, key=lambda c: c.process_reward or 0.0))
                    self.backpropagate(
                        end, end.outcome_reward if end.outcome_reward is not None else 0.0
                    )
                elif not any(c.tool == FINISH for c in children):
                    self.backpropagate(node, 0.0)
                best = self.best_terminal()
                if best is not None and best.outcome_reward >= 0.999:
                    stop_reason = "perfect answer found"
                    break
        except BudgetExhausted as error:
            stop_reason = str(error)
        except LLMDeadlineExceeded as error:
            stop_reason = f"time budget used up: {error}"
            self.events.append({"event": "deadline", "error": str(error)})
        except ChemgroundError as error:
            stop_reason = f"error: {error}"
            self.events.append({"event": "error", "error": str(error)})
        return iterations, stop_reason

    def best_terminal(self) -> Node | None:
        finished = [
            n for n in self.nodes if n.tool == FINISH and n.answer and n.outcome_reward is not None
        ]
        if not finished:
            return None

        def key(node: Node):
            path = self.path(node)
            rewards = [n.process_reward for n in path if n.process_reward is not None]
            return (
                node.outcome_reward,
                sum(rewards) / len(rewards) if rewards else 0.0,
                -len(path),
            )

        return max(finished, key=key)


def _arguments(value: Any) -> Any:
    if isinstance(value, dict) and "arguments" in value:
        value = value["arguments"]
    if not isinstance(value, (dict, list)):
        raise ValueError("expected {'arguments': {...}}")
    return value


def _final_answer(value: Any) -> str:
    if isinstance(value, dict) and value.get("final_answer") is not None:
        answer = value["final_answer"]
        return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
    raise ValueError("expected {'final_answer': '...'}")
