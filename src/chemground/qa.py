"""The one path through chemground: question -> parse -> retrieve -> reason -> Answer.

``QA`` holds the parser, the retrievers (``--method``) and the reasoners (``--reasoner``);
the CLI, the HTTP API and the benchmarks call it. A retriever is a ``protocols.Retriever``
(``retrieve(query, k)`` returns evidence, or a ``Retrieval`` with notes and a trace); a reasoner
a ``protocols.Reasoner`` (``reason(query, evidence) -> Reasoned``, see
``reasoning.extractive``). Method ``auto`` (the default) lets the routing table
(``chemground.routing``) pick the channel: table, tools, routes, papers or out of scope; the
answer's ``trace["route"]`` says which and why.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import cached_property

from chemground.errors import ChemgroundError
from chemground.evidence import Evidence
from chemground.llm.base import LLMError
from chemground.protocols import Retrieval
from chemground.reasoning.answer import Answer
from chemground.reasoning.aspects import COMPUTED_ASPECTS, LOOKED_UP_ASPECTS, also_asked
from chemground.reasoning.extractive import ExtractiveReasoner, Reasoned
from chemground.reasoning.parser import RuleParser, check_question
from chemground.reasoning.query import QueryTuple
from chemground.retrieval.compound_classes import CompoundClassRetriever
from chemground.retrieval.fuzzy import FuzzyNameIndex
from chemground.retrieval.graph import GraphAccess, RouteRetriever
from chemground.retrieval.table import TableRetriever
from chemground.retrieval.tools import ToolChannel
from chemground.routing import DECLINING_RULES, Route, override, refine, route, unheld_part
from chemground.workspace import Workspace

TRANSFORMATION = re.compile(r"\b(turn|convert|transform|change)\b[^?]*\b(into|to)\b", re.I)


class QA:
    """Question answering over one workspace (KB, resolver, optional LLM)."""

    def __init__(self, workspace: Workspace, llm=None) -> None:
        self.workspace = workspace
        self.llm = llm
        self._retrievers: dict[str, Callable[[], object]] = {
            "auto": lambda: RoutedRetriever(self),
            "table": lambda: TableRetriever(
                self.workspace.kb, self.fuzzy, RouteRetriever(self.workspace, self.graph)
            ),
            "tools": lambda: ToolChannel(self.workspace.settings),
            "routes": lambda: RouteRetriever(self.workspace, self.graph),
            "structure": lambda: CompoundClassRetriever(self.workspace.kb),
        }
        self._reasoners: dict[str, Callable[[], object]] = {
            "extractive": lambda: ExtractiveReasoner(opsin=self.workspace.opsin)
        }
        self._cache: dict[str, object] = {}
        self._llm_parser = None

    @cached_property
    def fuzzy(self) -> FuzzyNameIndex:
        return FuzzyNameIndex(self.workspace.kb)

    @cached_property
    def graph(self) -> GraphAccess:
        return GraphAccess(self.workspace)

    @cached_property
    def parser(self) -> RuleParser:
        return RuleParser(
            self.workspace.resolver,
            self.fuzzy,
            max_chars=self.workspace.settings.max_question_chars,
            aspect_classifier=self.workspace.settings.aspect_classifier,
            cache_dir=self.workspace.settings.cache_dir,
        )

    @property
    def query_parser(self):
        return self._llm_parser or self.parser

    def require_llm(self):
        """The configured LLM, or LLMUnavailable saying how to configure one."""
        if self.llm is None:
            from chemground.llm.config import llm_from_settings

            self.llm = llm_from_settings(self.workspace.settings)  # raises a clear LLMUnavailable
        return self.llm

    def use_llm_parser(self) -> None:
        from chemground.reasoning.llm_parser import LLMParser

        self._llm_parser = LLMParser(self.require_llm(), self.parser)

    def register_retriever(self, name: str, factory: Callable[[], object]) -> None:
        self._retrievers[name] = factory

    def register_reasoner(self, name: str, factory: Callable[[], object]) -> None:
        self._reasoners[name] = factory

    def _component(self, kind: str, name: str, table: dict[str, Callable[[], object]]) -> object:
        key = f"{kind}:{name}"
        if key not in self._cache:
            if name not in table:
                raise ChemgroundError(f"unknown {kind} {name!r}; choose one of: {', '.join(table)}")
            self._cache[key] = table[name]()
        return self._cache[key]

    def retriever(self, method: str):
        return self._component("method", method, self._retrievers)

    def reasoner(self, name: str):
        return self._component("reasoner", name, self._reasoners)

    def check_choices(self, method: str, reasoner: str) -> None:
        """Refuse an unknown ``method`` or ``reasoner`` before any question is asked (a batch
        would otherwise record every item as an error and score it 0).

        Args:
            method: a retrieval method (``--method``): a registered retriever or ``none``.
            reasoner: a registered reasoner (``--reasoner``).

        Raises:
            ChemgroundError: either is unknown; the message lists the valid names.
        """
        methods = [*self._retrievers, "none"]
        if method not in methods:
            raise ChemgroundError(f"unknown method {method!r}; choose one of: {', '.join(methods)}")
        if reasoner not in self._reasoners:
            raise ChemgroundError(
                f"unknown reasoner {reasoner!r}; choose one of: {', '.join(self._reasoners)}"
            )

    def parse(self, question: str) -> QueryTuple:
        """Parse ``question``; an empty one, one longer than the setting ``max_question_chars``
        or one with control characters is refused (ChemgroundError) before any parser runs."""
        check_question(question, self.workspace.settings.max_question_chars)
        return self.query_parser.parse(question)

    def retrieve(
        self, question: str, method: str = "auto", k: int = 5
    ) -> tuple[QueryTuple, list[Evidence]]:
        query = self.parse(question)
        if method == "auto":
            query = refine(query)
        if method == "none":
            return query, []
        return query, self.retriever(method).retrieve(query, k)  # type: ignore[attr-defined]

    def route(self, query: QueryTuple, method: str = "auto") -> tuple[QueryTuple, Route]:
        """The question refined for routing and the channel that answers it
        (``chemground.routing``);
        any ``method`` but ``auto`` overrides the routing table."""
        if method != "auto":
            return query, override(method, query)
        query = refine(query)
        return query, route(query, has_papers="lit" in self._retrievers)

    def ask(
        self,
        question: str,
        *,
        method: str = "auto",
        reasoner: str = "extractive",
        k: int = 5,
        id: str | None = None,
    ) -> Answer:
        self.workspace.kb  # noqa: B018 - a first run builds the default KB here, outside the timings
        timings: dict[str, float] = {}
        started = time.perf_counter()
        before = self.llm.ledger.snapshot() if self.llm is not None else None
        query = self.parse(question)
        timings["parse"] = (time.perf_counter() - started) * 1000
        mark = time.perf_counter()
        chosen = method
        query, decision = self.route(query, method)
        timings["route"] = (time.perf_counter() - mark) * 1000
        method = decision.method
        notes: list[str] = []
        if decision.channel == "papers" and decision.rule != "override":
            evidence, method = (
                [],
                "table",
            )  # the papers are tried below, as for an unrecognised table question
        elif method in ("none", "out_of_scope"):
            evidence = []
        else:
            evidence = self.retriever(method).retrieve(query, k)  # type: ignore[attr-defined]
        explain = decision.rule == "explanation_from_papers"
        if method == "table" and (query.aspect is None or explain) and "lit" in self._retrievers:
            # Not a table question ("why is ... per the papers?"): the papers may answer it.
            literature = self.retriever("lit")
            passages = literature.retrieve(query, k)  # type: ignore[attr-defined]
            if passages:
                evidence, method = passages, "lit"
                notes.append("not a compound/reaction question; answered from the papers' passages")
            elif (no_papers := route(query, has_papers=False)).rule == "property_not_held":
                # "pKa of acetic acid": no passage holds it, and no record or tool does either
                decision = no_papers
            if not passages and not getattr(literature, "has_papers", lambda: True)():
                notes.append(
                    "questions about why or how are answered from papers, and this knowledge base "
                    "has "
                    "none yet: add some with `chemground lit add FILES...` and ask again"
                )
        timings["retrieve"] = (time.perf_counter() - mark) * 1000
        retrieval_trace: dict = {}
        if isinstance(evidence, Retrieval):  # the channel's notes and trace reach the answer
            notes.extend(n for n in evidence.notes if n not in notes)
            retrieval_trace = evidence.trace
            evidence = list(evidence)
        mark = time.perf_counter()
        engine = self.reasoner(reasoner)
        try:
            if decision.rule in DECLINING_RULES:
                reasoned = Reasoned(
                    f"I cannot answer this: {decision.why}.", None, "not_understood"
                )
            elif explain and method != "lit":  # no passage explains it; the records cannot
                reasoned = Reasoned(
                    "I cannot answer this: it asks why or how (a mechanism, a selectivity, an "
                    "explanation) or who found something; no passage of the papers in this "
                    "knowledge base explains it, and the records hold only what was done and "
                    "what it gave.",
                    None,
                    "not_understood",
                )
            elif decision.channel == "out_of_scope" and query.aspect is not None:
                reasoned = Reasoned(
                    f"I could not tell what the question asks for: {decision.why}.",
                    None,
                    "not_understood",
                )
            else:
                reasoned = engine.reason(query, evidence)  # type: ignore[attr-defined]
            if method == "table" and reasoned.status != "answered":
                found = self._multi_step(query, k, engine)
                if found is not None:  # "how do I make X from Y?": no one reaction, a route does
                    query, evidence, reasoned, method = found
                    notes.append(
                        "no single reaction in the knowledge base does this; the answer is a "
                        "multi-step route through the reaction graph"
                    )
            if (
                isinstance(engine, ExtractiveReasoner)  # (an LLM reasoner answers from its text)
                and decision.rule not in DECLINING_RULES
                and reasoned.status in ("answered", "partial")
            ):
                evidence = self._also_asked(query, method, reasoned, evidence, engine, k)
            unheld = unheld_part(query)
            if unheld is not None and reasoned.status == "answered":
                # "logP of caffeine and how soluble is it in water?": the logP answered, the
                # solubility said not to be (never dropped without a word)
                reasoned.status = "partial"
                reasoned.answer += (
                    f" I cannot answer the {unheld!r} part: no record or tool here holds it."
                )
                reasoned.notes.append(f"the {unheld!r} part of the question is not answered")
        except LLMError as error:  # the evidence is still worth showing
            reasoned = Reasoned(f"The {reasoner} reasoner failed: {error}", None, "error")
        if chosen not in ("auto", "none") and not evidence and reasoned.status == "no_evidence":
            # "how to make aspirin" with method 'structure' said the KB "holds no reaction
            # involving 'aspirin'": only the chosen channel was searched, and it found nothing
            usual = route(refine(query), has_papers="lit" in self._retrievers).method
            reasoned = Reasoned(
                f"The {chosen!r} method found no evidence for this question; no other channel was "
                f"searched (the default, method 'auto', would use {usual!r}).",
                None,
                "no_evidence",
                notes=reasoned.notes,
            )
        timings["reason"] = (time.perf_counter() - mark) * 1000
        timings["total"] = (time.perf_counter() - started) * 1000
        usage = {}
        if self.llm is not None:
            spent = (
                self.llm.ledger.since(before) if before is not None else self.llm.ledger.snapshot()
            )
            usage = {**spent.to_dict(), "model": self.llm.model}
        return Answer(
            id=id,
            question=question,
            answer=reasoned.answer,
            value=reasoned.value,
            aspect=query.aspect.value if query.aspect else None,
            level=query.level,
            status=reasoned.status,
            evidence=evidence,
            citations=reasoned.citations,
            method=method,
            reasoner=reasoner,
            query=query.to_json(),
            timings_ms={k: round(v, 3) for k, v in timings.items()},
            usage=usage,
            notes=notes
            + reasoned.notes
            + ([] if method == "lit" else [p for p in query.problems if p not in reasoned.answer]),
            trace={
                **reasoned.trace,
                "parser": query.parser,
                **(
                    {"aspect_classifier": query.aspect_classifier}
                    if query.aspect_classifier
                    else {}
                ),
                "route": decision.to_json(),
                **({"retrieval": retrieval_trace} if retrieval_trace else {}),
            },
        )

    def _also_asked(
        self,
        query: QueryTuple,
        method: str,
        reasoned: Reasoned,
        evidence: list[Evidence],
        engine,
        k: int,
    ) -> list[Evidence]:
        """Add to ``reasoned`` the other facts the question asks beside its aspect that its
        channel did not answer ("the formula of artemisinin, and how many stereocentres?": the
        records hold the formula, a tool counts the stereocentres). The reasoner answers the
        facts of its own channel; the others are routed and reasoned here, one by one, and a
        fact that cannot be answered turns the answer ``partial``, named.

        Args:
            query: the routed question.
            method: the retrieval method that answered it.
            reasoned: its answer, extended in place.
            evidence: its evidence.
            engine: the reasoner.
            k: evidence per retrieval.

        Returns:
            The evidence of every part, without repeats.
        """
        others = also_asked(query.question, query.aspect)
        if method != "tools":
            others = [a for a in others if a in COMPUTED_ASPECTS or a in LOOKED_UP_ASPECTS]
        if not others:
            return evidence
        evidence = list(evidence)
        seen = {e.id for e in evidence}
        for aspect in others:
            part = query.model_copy(update={"aspect": aspect})
            decision = route(part, has_papers="lit" in self._retrievers)
            if decision.method in ("none", "out_of_scope") or decision.rule in DECLINING_RULES:
                found: list[Evidence] = []
                more = Reasoned(f"I cannot answer the {aspect.value} part.", None, "no_evidence")
            else:
                found = list(self.retriever(decision.method).retrieve(part, k))  # type: ignore[attr-defined]
                more = engine.reason(part, found)  # type: ignore[attr-defined]
            reasoned.answer += " " + more.answer
            reasoned.citations += [c for c in more.citations if c not in reasoned.citations]
            reasoned.notes += [n for n in more.notes if n not in reasoned.notes]
            for e in found:
                if e.id not in seen:
                    seen.add(e.id)
                    evidence.append(e)
            if more.status != "answered" and reasoned.status == "answered":
                reasoned.status = "partial"
                reasoned.notes.append(f"the {aspect.value} part of the question is not answered")
        return evidence

    def _multi_step(self, query: QueryTuple, k: int, engine):
        """A route for a one-step question that no single reaction answers ("make X from Y"),
        or None. Only questions naming a starting material ("from Y") and at least two
        resolved compounds, whose aspect is the product or the reactants, qualify."""
        from chemground.reasoning.query import Aspect
        from chemground.retrieval.graph import names_a_start

        transformation = query.aspect == Aspect.CONDITIONS and bool(
            TRANSFORMATION.search(query.question)
        )  # "how could I turn X into Y?": the conditions of each step of a route
        if (query.aspect not in (Aspect.REACTANTS, Aspect.PRODUCT) and not transformation) or len(
            query.resolved_mentions
        ) < 2:
            return None
        if not transformation and not names_a_start(query.question, query.resolved_mentions):
            return None  # ("turn it into Y": the compound named before "it" is the start)
        route_query = query.model_copy(update={"aspect": Aspect.ROUTE})
        try:
            routes = self.retriever("routes").retrieve(route_query, k)  # type: ignore[attr-defined]
        except ChemgroundError:  # no graph can be opened or built here: keep the table answer
            return None
        if not routes:
            return None
        return route_query, list(routes), engine.reason(route_query, list(routes)), "routes"

    def ask_papers(
        self,
        question: str,
        *,
        k: int = 5,
        retrieval: str = "hybrid",
        use_llm: bool | None = None,
        reranker=None,
        rerank_depth: int = 20,
        expand: bool = False,
        progress=None,
    ) -> Answer:
        """An answer from the papers (``lit ask``): cited snippets without an LLM, a cited answer
        with one.

        Args:
            question: the question.
            k: how many passages the answer is drawn from.
            retrieval: hybrid, bm25, dense or mentions.
            use_llm: answer with the LLM (default: when one is configured).
            reranker: a second stage for the candidates (``retrieval.rerank``), or None.
            rerank_depth: how many candidates the re-ranker scores.
            expand: add synonyms and abbreviations of the compounds named to the query.
            progress: progress callback for an index that must be (re)built first.

        Returns:
            The Answer (method ``lit``); the citations' places in the papers are in
            ``trace["citations"]``.

        Raises:
            LLMUnavailable: ``use_llm`` is True and no LLM is configured.
        """
        from chemground.lit.answer import answer_extractive, answer_with_llm
        from chemground.lit.library import Library
        from chemground.llm.config import llm_configured

        check_question(question, self.workspace.settings.max_question_chars)
        want_llm = use_llm if use_llm is not None else llm_configured(self.workspace.settings)
        library = Library(self.workspace, dense=retrieval in ("hybrid", "dense"))
        searcher = library.retriever(
            progress, reranker=reranker, rerank_depth=rerank_depth, expand=expand
        )
        result = searcher.search(question, k=k, method=retrieval)
        answer = (
            answer_with_llm(
                question, result, self.require_llm(), context_k=k, finder=self.parser.finder
            )
            if want_llm
            else answer_extractive(question, result)
        )
        return answer.to_answer(retrieval=retrieval)

    def ask_graph(
        self,
        question: str,
        *,
        mode: str = "one-shot-semantic",
        validate: bool = True,
        max_corrections: int = 3,
        limit: int = 50,
        graph=None,
    ) -> Answer:
        """Text2Cypher (``graph ask``): an LLM writes read-only Cypher for ``question``, which is
        checked, corrected and run; the rows are the evidence.

        Args:
            question: the question.
            mode: zero-shot, one-shot-static, one-shot-random or one-shot-semantic (exemplars).
            validate: run the LLM checklist validator on the query.
            max_corrections: most rewrites after an engine error or a failed check.
            limit: most rows returned.
            graph: a graph backend to query instead of the workspace's (e.g. Neo4j).

        Returns:
            The Answer (method ``graph``); the Cypher that ran is in ``trace["retrieval"]``.

        Raises:
            LLMUnavailable: no LLM is configured.
            ReadOnlyViolation: the model wrote a query that would change the graph.
        """
        from chemground.graph.linking import compounds_of
        from chemground.graph.readonly import ReadOnlyViolation
        from chemground.graph.text2cypher import Text2Cypher, result_to_evidence
        from chemground.reasoning.faithfulness import check_faithfulness

        compounds = compounds_of(self.parse(question))
        backend = graph if graph is not None else self.graph.graph()
        result = Text2Cypher(
            backend,
            self.require_llm(),
            mode=mode,
            validate=validate,
            max_corrections=max_corrections,
            row_limit=limit,
        ).run(question, compounds)
        if result.error_kind == "refused":
            raise ReadOnlyViolation(result.error or "refused", "generated")
        answer = result.to_answer(result_to_evidence(result, backend=backend.name))
        if answer.status in ("answered", "partial"):
            # the text after the colon is the rows (before it, our count of them)
            report = check_faithfulness(
                answer.answer.split(": ", 1)[-1],
                answer.evidence,
                question=question,
                finder=self.parser.finder,
            )
            answer.trace["faithfulness"] = report.to_json()
            if not report.supported:
                answer.status = "unsupported"
                answer.notes.extend(report.notes())
        return answer

    def run_agent(
        self,
        question: str,
        *,
        mode: str = "cot",
        tools: list[str] | None = None,
        files_dir=None,
        k_tools: int = 8,
        max_steps: int = 6,
        iterations: int = 6,
        depth: int = 4,
        k: int = 3,
        max_llm_calls: int = 60,
        kb_progress=None,
    ):
        """The tool-using agent (``agent ask``) on ``question``, with its full trajectory.

        Args:
            question: the question.
            mode: ``cot`` (chain of thought with tool calls) or ``mcts`` (HE-MCTS tree search).
            tools: tool names to use instead of retrieving ``k_tools`` for the question.
            files_dir: the folder tools may read and write (default: a temporary one).
            k_tools: how many retrieved tools the model may use.
            max_steps: cot: the tool-call budget.
            iterations, depth, k, max_llm_calls: mcts: search iterations, tool calls on a
                path, actions per expansion and the LLM-call budget.
            kb_progress: progress callback if the tools' KB must be built first.

        Returns:
            The ``AgentAnswer`` (its ``to_answer()`` is the one Answer; its steps are the
            trajectory ``agent ask --export`` writes).

        Raises:
            ChemgroundError: an unknown mode; LLMUnavailable when no LLM is configured.
        """
        import tempfile
        from pathlib import Path

        from chemground.agent.evaluation import make_agent
        from chemground.agent.mcts import MCTSConfig
        from chemground.agent.retriever import ToolRetriever
        from chemground.agent.runner import ToolRunner

        if mode not in ("cot", "mcts"):
            raise ChemgroundError(f"the agent's mode must be cot or mcts, got {mode!r}")
        check_question(question, self.workspace.settings.max_question_chars)
        llm = self.require_llm()
        settings = self.workspace.settings
        with (
            tempfile.TemporaryDirectory(prefix="chemground-agent-") as scratch,
            ToolRunner(
                settings=settings,
                files_dir=Path(files_dir or scratch).resolve(),
                kb_progress=kb_progress,
            ) as runner,
        ):
            retriever = ToolRetriever(runner.registry, cache_dir=settings.cache_dir)
            if mode == "cot":
                agent = make_agent(
                    "cot",
                    llm,
                    runner,
                    retriever=retriever,
                    k_tools=k_tools,
                    max_steps=max_steps,
                    tools=tools,
                    finder=self.parser.finder,
                )
            else:
                config = MCTSConfig(
                    k=k,
                    k_tools=k_tools,
                    max_iterations=iterations,
                    max_depth=depth,
                    max_llm_calls=max_llm_calls,
                )
                agent = make_agent(
                    "mcts",
                    llm,
                    runner,
                    retriever=retriever,
                    config=config,
                    tools=tools,
                    finder=self.parser.finder,
                )
            return agent.run(question)

    def ask_agent(self, question: str, **options) -> Answer:
        """``run_agent`` as the one Answer (method ``agent``; the steps are in the trace).

        Args:
            question: the question.
            **options: as for ``run_agent``.

        Returns:
            The Answer; its evidence is the tool results and the KB records tools returned.
        """
        return self.run_agent(question, **options).to_answer()


class RoutedRetriever:
    """``--method auto`` as a retriever: the routing table picks the channel, that channel
    retrieves."""

    name = "auto"

    def __init__(self, qa: QA) -> None:
        self.qa = qa

    def retrieve(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        query, decision = self.qa.route(query, "auto")
        if (
            decision.method in ("none", "out_of_scope")
            or decision.method not in self.qa._retrievers
        ):
            return []
        return self.qa.retriever(decision.method).retrieve(query, k)  # type: ignore[attr-defined]
