"""Natural language -> Cypher with an LLM, checked and corrected before its rows are trusted.

One question goes through:

1. **generation** with the schema and rules in the prompt and, by mode, no example, a fixed
   example, a random one or the semantically nearest one (``exemplars``);
2. **read-only guard**: a write/admin clause ends the run with ReadOnlyViolation; nothing runs;
3. **deterministic fixes**: edges written against the synthesis flow are flipped
   (``patterns.fix_direction``) and SMILES literals are put in RDKit canonical form, the form
   the graph stores;
4. **compile check** (EXPLAIN, i.e. the engine's own parser and binder) and execution; an
   engine error goes back to the LLM word for word for a corrected query;
5. **checklist validator**: the LLM reviews the query against task-specific checks (missing
   reaction components, wrong endpoint anchoring, direction, step count) and may correct it.

Steps 4-5 use at most ``max_corrections`` (3) LLM corrections in total. Every step is
recorded in ``trace`` so a reader can see what was generated, what was wrong and what changed.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from chemground.errors import ChemgroundError
from chemground.evidence import Evidence
from chemground.graph.backend import GraphBackend, GraphQueryError, QueryResult, is_path
from chemground.graph.exemplars import MODES, Exemplar, ExemplarSelector, parameterized
from chemground.graph.lexer import CypherSyntaxError, quote_string
from chemground.graph.linking import (
    LinkedCompound,
    anchoring_problems,
    bind_parameters,
    in_question_order,
    link_anchors,
    move_anchors_as_example,
    parameter_lines,
    parameterize_question,
    parameters,
    repair_doubled_anchors,
    unbind_parameters,
)
from chemground.graph.patterns import analyse, direction_issues, fix_direction
from chemground.graph.readonly import ReadOnlyViolation, read_only_problem
from chemground.graph.schema import describe_schema_compact
from chemground.llm.base import LLM, LLMError
from chemground.llm.prompts import render
from chemground.protocols import Retrieval
from chemground.reasoning.answer import Answer

MAX_CORRECTIONS = 3
_FENCE = re.compile(r"```(?:cypher|sql)?\s*\n?(.*?)```", re.DOTALL | re.IGNORECASE)


def extract_cypher(text: str) -> str:
    """The query in a model reply: the first fenced block, else the whole reply."""
    match = _FENCE.search(text)
    query = (match.group(1) if match else text).strip()
    return query.rstrip(";").strip()


def canonicalize_smiles_literals(query: str) -> tuple[str, list[str]]:
    """Replace SMILES literals compared with ``.smiles`` by RDKit canonical SMILES."""
    from chemground.chem.structure import try_structure_from_smiles

    try:
        patterns = analyse(query)
    except CypherSyntaxError:
        return query, []
    literals = {value for _, prop, value in patterns.anchors if prop == "smiles"}
    replacements = {}
    for literal in literals:
        structure = try_structure_from_smiles(literal)
        if structure is not None and structure.smiles != literal:
            replacements[literal] = structure.smiles
    if not replacements:
        return query, []
    edits = [
        (t.start, t.end, quote_string(replacements[t.value]))
        for t in patterns.tokens
        if t.kind == "string" and t.value in replacements
    ]
    for start, end, new in sorted(edits, reverse=True):
        query = query[:start] + new + query[end:]
    return query, [f"{old} -> {new}" for old, new in replacements.items()]


class ChecklistProblem(BaseModel):
    check: str = "other"
    detail: str = ""


class ChecklistVerdict(BaseModel):
    ok: bool
    problems: list[ChecklistProblem] = Field(default_factory=list)
    corrected_query: str | None = None


@dataclass
class Text2CypherResult:
    question: str
    mode: str
    query: str
    first_query: str
    ok: bool
    result: QueryResult | None = None
    error: str | None = None
    error_kind: str | None = None  # refused | invalid | llm | anchor
    corrections: int = 0
    direction_fixes: list[str] = field(default_factory=list)
    anchor_fixes: list[str] = field(default_factory=list)  # anchors tied to resolved compounds
    unresolved_checklist: list[str] = field(default_factory=list)
    exemplar_id: str | None = None
    trace: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    model: str = ""
    seconds: float = 0.0

    @property
    def rows(self) -> list[dict[str, Any]]:
        return self.result.rows if self.result else []

    def notes(self) -> list[str]:
        """What a user should know: why no rows came back, and the directions corrected."""
        notes = [f"direction fixed: {fix}" for fix in self.direction_fixes]
        if not self.ok:
            notes.append(f"the generated Cypher failed ({self.error_kind}): {self.error}")
        elif not self.rows:
            notes.append("the Cypher query ran and returned no rows")
        notes += [f"the checklist still reports: {p}" for p in self.unresolved_checklist]
        return notes

    def summary(self) -> dict[str, Any]:
        """The run without its rows (they are the evidence): query, corrections, model, trace."""
        data = self.to_json()
        data.pop("result", None)
        data.pop("question", None)
        return data

    def to_answer(self, evidence: list[Evidence]) -> Answer:
        """The one ``Answer`` of ``chemground ask``, for ``graph ask --json`` and the API.

        Args:
            evidence: the rows as evidence (``result_to_evidence``).

        Returns:
            An Answer whose value is the rows, method ``graph`` and reasoner ``text2cypher``;
            the query and its corrections are in ``trace["retrieval"]``.
        """
        rows = self.rows
        if not self.ok:
            text, status = f"The graph query failed: {self.error}", "error"
        elif not rows:
            text, status = "The graph query returned no rows.", "no_evidence"
        else:
            more = "+" if self.result is not None and self.result.truncated else ""
            # rows the validator still finds fault with are not an answer to trust
            text, status = (
                f"{len(rows)}{more} row(s) from the reaction graph: {_rows_text(rows)}",
                "partial" if self.unresolved_checklist else "answered",
            )
        return Answer(
            question=self.question,
            answer=text,
            value=rows if self.ok else None,
            aspect="graph_query",
            status=status,
            evidence=evidence,
            citations=[e.id for e in evidence],
            method="graph",
            reasoner=f"text2cypher:{self.mode}",
            timings_ms={"total": round(self.seconds * 1000, 3)},
            usage={**self.usage, "model": self.model} if self.model else dict(self.usage),
            notes=self.notes(),
            trace={"retrieval": self.summary()},
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "mode": self.mode,
            "query": self.query,
            "first_query": self.first_query,
            "ok": self.ok,
            "error": self.error,
            "error_kind": self.error_kind,
            "corrections": self.corrections,
            "direction_fixes": self.direction_fixes,
            "anchor_fixes": self.anchor_fixes,
            "unresolved_checklist": self.unresolved_checklist,
            "exemplar_id": self.exemplar_id,
            "model": self.model,
            "usage": self.usage,
            "seconds": round(self.seconds, 3),
            "result": self.result.to_json() if self.result else None,
            "trace": self.trace,
        }


def _rows_text(rows: list[dict[str, Any]], limit: int = 5) -> str:
    """The first rows in a line each, as a user reads them ("product=CCO; yield=92")."""
    shown = ["; ".join(f"{k}={v}" for k, v in row.items()) for row in rows[:limit]]
    return " | ".join(shown) + (" | ..." if len(rows) > limit else "")


def _summarise(result: QueryResult, limit: int = 5) -> str:
    head = result.rows[:limit]
    text = (
        f"{len(result.rows)}{'+' if result.truncated else ''} rows; columns {result.columns}; "
        f"first rows: {head}"
    )
    return text[:2500]


class Text2Cypher:
    """Question -> validated read-only Cypher -> rows, over one graph backend."""

    def __init__(
        self,
        graph: GraphBackend,
        llm: LLM,
        *,
        mode: str = "one-shot-semantic",
        max_corrections: int = MAX_CORRECTIONS,
        validate: bool = True,
        selector: ExemplarSelector | None = None,
        row_limit: int = 200,
        timeout_s: float = 30.0,
    ) -> None:
        if mode not in MODES:
            raise ChemgroundError(
                f"unknown Text2Cypher mode {mode!r}; choose one of {', '.join(MODES)}"
            )
        if not 0 <= max_corrections <= MAX_CORRECTIONS:
            raise ChemgroundError(f"max_corrections must be between 0 and {MAX_CORRECTIONS}")
        self.graph = graph
        self.llm = llm
        self.mode = mode
        self.max_corrections = max_corrections
        self.validate = validate
        self.selector = selector or ExemplarSelector()
        self.row_limit = row_limit
        self.timeout_s = timeout_s
        self._schema = describe_schema_compact()

    # -- prompts -------------------------------------------------------------------------
    def system_prompt(self, linked: bool = False) -> str:
        dialect = render(f"graph/dialect_{self.graph.dialect}")
        anchoring = render("graph/anchor_parameters" if linked else "graph/anchor_literal")
        return render("graph/system", schema=self._schema, dialect=dialect, anchoring=anchoring)

    def user_prompt(
        self,
        question: str,
        exemplar: Exemplar | None,
        compounds: list[LinkedCompound] | None = None,
    ) -> str:
        example = ""
        if exemplar is not None:
            shown_question, cypher = (
                parameterized(exemplar) if compounds else (exemplar.question, exemplar.cypher)
            )
            example = render("graph/example", question=shown_question, cypher=cypher)
        if compounds:
            question = parameterize_question(question, compounds)
        return render(
            "graph/generate",
            example=example,
            entities=parameter_lines(compounds or []),
            question=question,
        )

    # -- the loop ------------------------------------------------------------------------
    def run(
        self, question: str, compounds: list[LinkedCompound] | None = None
    ) -> Text2CypherResult:
        """Write, check, correct and run a query for ``question``.

        Args:
            question: the question.
            compounds: the question's compounds as chemground resolved them; given, the model
                is told their keys and every molecule anchor is tied to them (``graph.linking``).

        Returns:
            The run: the query that ran, its rows, corrections and trace.
        """
        started = time.perf_counter()
        before = self.llm.ledger.snapshot()
        compounds = in_question_order(question, list(compounds or []))
        exemplar = self.selector.select(question, self.mode, n_compounds=len(compounds) or None)
        ran: list[tuple[str, QueryResult]] = []  # the queries that ran and returned rows
        messages = [
            {"role": "system", "content": self.system_prompt(linked=bool(compounds))},
            {"role": "user", "content": self.user_prompt(question, exemplar, compounds)},
        ]
        out = Text2CypherResult(
            question,
            self.mode,
            "",
            "",
            False,
            exemplar_id=exemplar.id if exemplar else None,
            model=getattr(self.llm, "model", ""),
        )
        try:
            query = self._ask(messages)
            out.first_query = query
            out.trace.append({"step": "generate", "query": query, "exemplar": out.exemplar_id})
            example = parameterized(exemplar)[1] if exemplar and compounds else None
            self._loop(question, query, messages, out, compounds, example, ran)
        except LLMError as error:
            out.ok, out.error, out.error_kind = False, str(error), "llm"
            out.trace.append({"step": "llm_error", "detail": str(error)})
        if (not out.ok or not out.rows) and ran:
            # a correction must not lose rows a query already returned: a reviewer's complaint
            # the model could not fix (or a fix the engine rejects) leaves the last query that
            # answered, and the complaint stays in unresolved_checklist
            out.query, out.result = ran[-1]
            out.ok, out.error, out.error_kind = True, None, None
            out.trace.append({"step": "kept_last_answer", "query": out.query})
        out.usage = self.llm.ledger.since(before).to_dict()
        out.seconds = time.perf_counter() - started
        return out

    def _ask(self, messages: list[dict[str, Any]]) -> str:
        reply = self.llm.chat(messages)
        messages.append({"role": "assistant", "content": reply.text})
        return extract_cypher(reply.text)

    def _correct(
        self, messages, prompt: str, out: Text2CypherResult, step: str, detail: str
    ) -> str | None:
        if out.corrections >= self.max_corrections:
            return None
        out.corrections += 1
        messages.append({"role": "user", "content": prompt})
        query = self._ask(messages)
        out.trace.append(
            {"step": step, "detail": detail, "query": query, "correction": out.corrections}
        )
        return query

    def _loop(
        self,
        question: str,
        query: str,
        messages,
        out: Text2CypherResult,
        compounds: list[LinkedCompound],
        example: str | None = None,
        ran: list[tuple[str, QueryResult]] | None = None,
    ) -> None:
        # with linking the model saw the question with parameters in place of its compounds:
        # corrections and the review speak the same language
        params = parameters(compounds)
        asked = parameterize_question(question, compounds) if compounds else question
        tried_example_anchors = False
        while True:
            out.query = written = query  # as the model wrote it
            engine_error = None
            problem = read_only_problem(query)
            if problem is not None:
                clause, reason = problem
                if clause != "syntax":
                    out.ok, out.error_kind = False, "refused"
                    out.error = str(
                        ReadOnlyViolation(
                            f"refused to run the generated query: {reason}. Graph queries are "
                            "read-only; "
                            "nothing was executed.",
                            clause,
                        )
                    )
                    out.trace.append({"step": "refused", "detail": reason})
                    return
                engine_error = reason
            else:
                query, unknown_params = bind_parameters(query, params)
                if unknown_params:
                    engine_error = f"unknown parameter(s) {', '.join(unknown_params)}; " + (
                        f"the parameters are {', '.join(f'${n}' for n in params)}"
                        if params
                        else "there are no parameters: write the molecules as literals"
                    )
            if engine_error is None:
                query, flips = fix_direction(query)
                if flips:
                    out.direction_fixes.extend(issue.describe() for issue in flips)
                    out.trace.append(
                        {
                            "step": "direction_fix",
                            "fixes": [i.describe() for i in flips],
                            "query": query,
                        }
                    )
                query, canon = canonicalize_smiles_literals(query)
                if canon:
                    out.trace.append(
                        {"step": "smiles_canonicalized", "fixes": canon, "query": query}
                    )
                linked = link_anchors(query, compounds)
                if linked.refused is not None:
                    out.trace.append({"step": "anchors_refused", "detail": linked.refused})
                    fixed = self._correct(
                        messages,
                        render(
                            "graph/fix_error",
                            error=f"{linked.refused}. {parameter_lines(compounds)}".strip(),
                            question=asked,
                        ),
                        out,
                        "fix_anchors",
                        linked.refused,
                    )
                    if fixed is None:
                        out.ok, out.error_kind = False, "anchor"
                        out.error = f"refused to run the generated query: {linked.refused}"
                        return
                    query = fixed
                    continue
                if linked.rewritten or linked.unknown:
                    query = linked.query
                    out.anchor_fixes.extend(linked.rewritten)
                    out.trace.append(
                        {
                            "step": "anchors_linked",
                            "rewritten": linked.rewritten,
                            "unknown": linked.unknown,
                            "query": query,
                        }
                    )
                query, undoubled = repair_doubled_anchors(query, compounds, example)
                if undoubled:
                    out.anchor_fixes.extend(f"dropped {u}" for u in undoubled)
                    out.trace.append(
                        {"step": "anchors_undoubled", "removed": undoubled, "query": query}
                    )
                out.query = query
                try:
                    self.graph.explain(query)
                    result = self.graph.query(query, limit=self.row_limit, timeout_s=self.timeout_s)
                except GraphQueryError as error:
                    engine_error = error.engine_message
            if engine_error is not None:
                out.trace.append({"step": "engine_error", "detail": engine_error})
                fixed = self._correct(
                    messages,
                    render("graph/fix_error", error=engine_error, question=asked),
                    out,
                    "fix_error",
                    engine_error,
                )
                if fixed is None or fixed == written:
                    # the same failing query again (the real 1.5B model, told "Variable m is not
                    # in scope", wrote it three times): asking once more would only cost time
                    out.ok, out.error_kind = False, "invalid"
                    out.error = (
                        f"the query still fails after {out.corrections} corrections: {engine_error}"
                    )
                    return
                query = fixed
                continue
            out.result, out.ok = result, True
            out.trace.append(
                {"step": "executed", "rows": len(result.rows), "truncated": result.truncated}
            )
            if result.rows and ran is not None:
                ran.append((query, result))
            if not result.rows and not tried_example_anchors:
                tried_example_anchors = True
                moved, moves = move_anchors_as_example(query, compounds, example)
                if moves:
                    out.anchor_fixes.extend(f"moved {m}" for m in moves)
                    out.trace.append({"step": "anchors_moved", "moved": moves, "query": moved})
                    query = moved
                    continue
            if not self.validate:
                return
            # deterministic checks of where the question's compounds are anchored: precise
            # feedback, no review call
            problems = anchoring_problems(query, compounds)
            if problems:
                out.trace.append({"step": "anchoring_check", "problems": problems})
            elif out.corrections >= self.max_corrections:
                return
            else:
                verdict = self._checklist(
                    asked, unbind_parameters(query, params), result, out, compounds
                )
                if verdict is None or verdict.ok:
                    return
                complaints = [
                    p
                    for p in verdict.problems
                    if not (p.check == "direction" and _directions_verified(query))
                ]
                if verdict.problems and not complaints:
                    # the reviewer only doubted edge directions, which were checked (and fixed)
                    # against the schema already: a 1.5B reviewer says so of correct queries
                    out.trace.append({"step": "checklist_overruled", "detail": "direction"})
                    return
                problems = [f"{p.check}: {p.detail}" for p in complaints] or [
                    "the reviewer rejected the query"
                ]
                if verdict.corrected_query and extract_cypher(verdict.corrected_query) != query:
                    out.corrections += 1
                    query = extract_cypher(verdict.corrected_query)
                    out.trace.append(
                        {
                            "step": "checklist_correction",
                            "detail": problems,
                            "query": query,
                            "correction": out.corrections,
                        }
                    )
                    continue
            fixed = self._correct(
                messages,
                render(
                    "graph/fix_checklist",
                    problems="\n".join(f"- {p}" for p in problems),
                    question=asked,
                ),
                out,
                "fix_checklist",
                "; ".join(problems),
            )
            if fixed is None or fixed in (query, unbind_parameters(query, params), written):
                out.unresolved_checklist = problems
                return
            query = fixed

    def _checklist(
        self,
        question: str,
        query: str,
        result: QueryResult,
        out: Text2CypherResult,
        compounds: list[LinkedCompound] | None = None,
    ) -> ChecklistVerdict | None:
        prompt = render(
            "graph/checklist",
            schema=self._schema,
            entities=parameter_lines(compounds or []),
            question=question,
            query=query,
            result=_summarise(result),
        )
        try:
            verdict, _ = self.llm.chat_json(
                [{"role": "user", "content": prompt}], schema=ChecklistVerdict
            )
        except LLMError as error:
            out.trace.append({"step": "checklist_unusable", "detail": str(error)})
            return None
        out.trace.append(
            {
                "step": "checklist",
                "ok": verdict.ok,
                "problems": [f"{p.check}: {p.detail}" for p in verdict.problems],
            }
        )
        return verdict


def _directions_verified(query: str) -> bool:
    """True when every typed edge of ``query`` has end labels that show it follows the schema's
    direction (so a reviewer's "wrong direction" is wrong)."""
    from chemground.graph.schema import REL_BY_TYPE

    try:
        patterns = analyse(query)
        if direction_issues(query, patterns):
            return False
    except CypherSyntaxError:
        return False
    for rel in patterns.rels:
        if not rel.types or rel.direction == "none" or rel.variable_length:
            return False
        if any(t not in REL_BY_TYPE for t in rel.types):
            return False
        sources = {REL_BY_TYPE[t].source for t in rel.types}
        targets = {REL_BY_TYPE[t].target for t in rel.types}
        if len(sources) != 1 or len(targets) != 1:
            return False
        if not (
            sources <= patterns.labels_of(rel.source) and targets <= patterns.labels_of(rel.target)
        ):
            return False
    return True


# -- evidence ------------------------------------------------------------------------------
def _reaction_path(row: dict[str, Any]) -> list[str] | None:
    for key, value in row.items():
        if is_path(value):
            return [n["id"] for n in value["nodes"] if n.get("label") == "Reaction" and "id" in n]
        if (
            key.lower() in ("path", "route", "reaction_path", "reaction_ids")
            and isinstance(value, list)
            and all(isinstance(v, str) for v in value)
        ):
            return list(value)
    return None


def result_to_evidence(result: Text2CypherResult, backend: str = "") -> list[Evidence]:
    """Rows as ``graph_row`` evidence; rows holding a path or an ordered reaction list as
    ``graph_path``."""
    if not result.ok or result.result is None:
        return []
    digest = hashlib.sha1(result.query.encode("utf-8")).hexdigest()[:10]
    provenance = {
        "cypher": result.query,
        "backend": backend,
        "question": result.question,
        "mode": result.mode,
        "corrections": result.corrections,
        "model": result.model,
    }
    evidence = []
    for i, row in enumerate(result.result.rows):
        path = _reaction_path(row)
        kind = "graph_path" if path else "graph_row"
        evidence.append(
            Evidence(
                kind=kind,
                id=f"cypher:{digest}#{i}",
                score=1.0,
                match="exact",
                record=row,
                why=(
                    f"route through reactions {' > '.join(path)}"
                    if path
                    else f"row {i + 1} of the Cypher answer"
                )
                + f" to: {result.question}",
                retriever="graph",
                provenance={**provenance, **({"reactions": path} if path else {})},
            )
        )
    return evidence


def graph_evidence(
    question: str,
    *,
    workspace=None,
    llm: LLM | None = None,
    graph: GraphBackend | None = None,
    mode: str = "one-shot-semantic",
    validate: bool = True,
    row_limit: int = 50,
    compounds: list[LinkedCompound] | None = None,
) -> Retrieval:
    """Retriever entry point: the graph rows answering ``question`` as Evidence.

    Opens the graph of the workspace's KB (read-only) and the configured LLM unless given.
    The result is a ``Retrieval``: a failed query leaves a note saying why, and the trace keeps
    the Cypher that ran.

    Raises:
        LLMUnavailable: no LLM is configured.
        ReadOnlyViolation: the model wrote a query that would change the graph.
    """
    from chemground.graph.config import open_graph
    from chemground.llm.config import llm_from_settings
    from chemground.workspace import Workspace

    workspace = workspace or Workspace()
    llm = llm or llm_from_settings(workspace.settings)
    owned = graph is None
    graph = graph or open_graph(workspace.settings.kb.path, settings=workspace.settings.graph)
    try:
        result = Text2Cypher(graph, llm, mode=mode, validate=validate, row_limit=row_limit).run(
            question, compounds
        )
        if result.error_kind == "refused":
            raise ReadOnlyViolation(result.error or "refused", "generated")
        return Retrieval(
            result_to_evidence(result, backend=graph.name), result.notes(), result.summary()
        )
    finally:
        if owned:
            graph.close()
