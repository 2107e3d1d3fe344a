"""Graph channels of ``chemground ask``: deterministic routes (no LLM) and Text2Cypher.

Route questions ("route from A to B", "what can I make from A in two steps?") go to the
route search over the reaction graph; ``--method graph`` sends any question through
Text2Cypher (an LLM writes read-only Cypher). Both return ``graph_path`` / ``graph_row``
evidence. The graph of the default KB is built on first use (it takes about a second);
after the KB changes, `chemground graph build` brings it up to date. A read-only workspace
(``chemground serve --readonly``, the tools) never writes beside the KB: it uses the graph
there when that is up to date, else keeps its own copy under the user cache dir.
"""

from __future__ import annotations

import re

from chemground.errors import ChemgroundError
from chemground.evidence import Evidence
from chemground.protocols import Retrieval
from chemground.reasoning.query import QueryTuple

_STEPS = re.compile(
    r"\b(?:in|within|up to|at most|max(?:imum)?)\s+(\d+|one|two|three|four|five)\s+steps?\b", re.I
)
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
DEFAULT_DEPTH = 4  # a route of four steps is a common ask (a protection, a coupling, ...)


def requested_depth(question: str) -> int:
    match = _STEPS.search(question)
    if not match:
        return DEFAULT_DEPTH
    value = match.group(1).lower()
    return int(_WORDS.get(value, value))


class GraphAccess:
    """Opens (and if needed builds) the workspace's reaction graph, read-only."""

    def __init__(self, workspace) -> None:
        self.workspace = workspace
        self._graph = None

    def graph(self):
        if self._graph is None:
            if getattr(self.workspace, "readonly", False):
                self._graph = self._read_only_graph()
            else:
                from chemground.graph.backend import GraphError
                from chemground.graph.build import build_graph
                from chemground.graph.config import open_graph

                path = self.workspace.settings.kb.path
                settings = self.workspace.settings.graph
                try:
                    self._graph = open_graph(path, settings=settings)
                except GraphError:
                    build_graph(path, settings=settings)
                    self._graph = open_graph(path, settings=settings)
        return self._graph

    def _read_only_graph(self):
        """The graph beside the KB if it is up to date, else a copy built (or updated) in the cache
        dir."""
        from chemground.graph.backend import GraphError
        from chemground.graph.build import build_graph, graph_is_current
        from chemground.graph.config import cache_graph_dir, open_graph

        path = self.workspace.settings.kb.path
        settings = self.workspace.settings.graph
        if settings.backend != "ladybug" or settings.dir is not None:
            return open_graph(
                path, settings=settings
            )  # a graph the user placed and builds themselves
        kb = self.workspace.kb  # opened (read-only) here, so a missing KB is reported as usual
        if graph_is_current(path, settings, kb=kb):
            return open_graph(path, settings=settings)
        cached = settings.model_copy(
            update={"dir": cache_graph_dir(path, self.workspace.settings.cache_dir)}
        )
        try:
            build_graph(path, settings=cached)
        except (OSError, GraphError) as error:
            raise GraphError(
                f"the reaction graph of {path} is missing or out of date, and this read-only "
                "workspace "
                f"could not build its own copy under {cached.dir}: {error}. Run "
                "`chemground graph "
                "build` to build it beside the knowledge base"
            ) from error
        return open_graph(path, settings=cached)


_BEFORE_START = re.compile(
    r"\b(from|starting (with|from)|start(ing)? materials?|(turn|convert|transform|change)(ing)?"
    # a notebook's "on hand: BnOH, ..."; "I do have BnOH and ..."
    r"|on hand|available|sm|(i|we) (do |still )?(have|got)( got)?( some)?"
    # "the only thing in stock is benzyl alcohol", "all we have left is"
    r"|(the )?only (thing|compound|material|one)s? (in stock|on (the )?shelf|(we|i) have( left)?)"
    r" (is|are)|in stock\s*(is|are)?|(we|i) (only )?have( left)? (is|are)"
    r"|all (i|we)('ve| have) got is|(i|we)'ve got( some| loads of| lots of| plenty of)?)"
    r"\s*:?\s*$",
    re.I,
)
_BEFORE_TARGET = re.compile(
    r"\b(to|into|towards?|make|makes|made|prepare|synthesi[sz]e|synthesis of|preparation of|"
    r"route to|get|obtain|target|((i|we) )?(need|want))\s*:?\s*$",
    re.I,
)
# "we're out of benzyl bromide": a compound the chemist lacks is no starting point
_UNAVAILABLE = re.compile(
    r"\b(out of|ran out of|run out of|no more|(don'?t|do not|doesn'?t) have( any)?|without)"
    r"\s*(any\s+)?$",
    re.I,
)


def names_a_start(question: str, mentions: list) -> bool:
    """Whether a mention is introduced as a starting material ("... from Y")."""
    return any(_BEFORE_START.search(question[: m.start]) for m in mentions)


def names_a_target(question: str, mention) -> bool:
    """Whether ``mention`` is introduced as the compound to make ("route to X", "synthesis of
    X", "how do I make X") and not as a starting material ("from X")."""
    before = question[: mention.start]
    return bool(_BEFORE_TARGET.search(before)) and not _BEFORE_START.search(before)


# "from toluene to norvaxibrom (using your reactions)": a route's two ends as written
_ROUTE_FRAME = re.compile(
    r"\bfrom\s+(?P<start>[^,;?!]+?)\s+(?:all the way\s+)?(?:to|into|towards?)\s+"
    r"(?P<target>[^,;?!]+?)(?=\s+(?:using|with|via|by|in|within|through|and|if|please|pls)\b"
    r"|\s*[,;?!]|\.\s|\.?\s*$)",
    re.IGNORECASE,
)
# "nitrobenzene to N-Boc aniline in 2 steps?": the same two ends with no "from"
_BARE_ROUTE_FRAME = re.compile(
    r"^\s*(?P<start>[^,;?!]+?)\s+(?:to|into|->|→|=>)\s+(?P<target>[^,;?!]+?)"
    r"(?=\s+in\s+(?:\d|one|two|three|four|five)\s*steps?\b)",
    re.IGNORECASE,
)
# "coumaxiphene → benzaldehyde route?": one arrow between the two ends
_ARROW_ROUTE_FRAME = re.compile(
    r"^\s*(?P<start>[^,;?!→>]+?)\s*(?:->|→|=>)\s*(?P<target>[^,;?!→>]+?)"
    r"(?=\s+(?:route|routes|path|pathway|synthesis|in\s+\w+\s+steps?)\b)",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:the|a|an|some|our|my)\s+", re.IGNORECASE)


def unnamed_route_ends(question: str, mentions: list) -> list[tuple[str, int, int, str]]:
    """A route's start or target that no mention covers ("how would I get from toluene to
    norvaxibrom?"): a made-up or unknown name the mention finder did not take for a compound.
    Left out, the route was answered for the end that resolved.

    Args:
        question: the question.
        mentions: its mentions, resolved or not.

    Returns:
        (text, start, end, "start" or "target") of each such end; empty when the question has
        no "from A to B" (nor "A -> B route") or each end is a mention or plain English ("from
        here to there").
    """
    from chemground.chem.mentions import is_common_word

    match = (
        _ROUTE_FRAME.search(question)
        or _BARE_ROUTE_FRAME.search(question)
        or _ARROW_ROUTE_FRAME.search(question)
    )
    if match is None:
        return []
    out = []
    for group in ("start", "target"):
        start, end = match.span(group)
        if any(m.start < end and m.end > start for m in mentions):
            continue
        text = question[start:end]
        article = _ARTICLE.match(text)
        if article:
            start, text = start + article.end(), text[article.end() :]
        words = re.findall(r"[A-Za-z]+", text)
        if not words or len(words) > 4 or all(is_common_word(w) for w in words):
            continue
        out.append((text, start, start + len(text), group))
    return out


def _route_end(question: str, mention) -> str | None:
    """Which end of the route asked for ``mention`` is: "start", "target" or None."""
    from chemground.kb.records import Role

    if mention.role == Role.PRODUCT or names_a_target(question, mention):
        return "target"
    if mention.role == Role.REACTANT or names_a_start(question, [mention]):
        return "start"
    return None


def _end_unresolved(question: str, mentions: list) -> bool:
    """Whether an end of the route is named only by a mention nothing resolved ("glorphenol ->
    chalcone"); an unresolved word beside a resolved name of the same end ("5-benzylidene
    Meldrum's acid (5-benzylidene-2,2-dimethyl-...)") leaves that end named."""
    resolved_ends = {_route_end(question, m) for m in mentions if m.resolved}
    return any(
        not m.resolved and (end := _route_end(question, m)) and end not in resolved_ends
        for m in mentions
    )


def route_order(question: str, mentions: list) -> list:
    """The mentions with the starting material first and the target last.

    Written order is not synthesis order: "how do I make paracetamol from 4-nitrophenol?" and
    "a two-step synthesis of aniline from benzene" name the target first. A mention right after
    "from" is the start; one right after "make", "to", "synthesis of" the target.
    """
    if len(mentions) < 2:
        return list(mentions)
    starts = [m for m in mentions if _BEFORE_START.search(question[: m.start])]
    targets = [
        m for m in mentions if _BEFORE_TARGET.search(question[: m.start]) and m not in starts
    ]
    if not starts and not targets:
        return list(mentions)
    start = starts[0] if starts else next(m for m in mentions if m not in targets)
    target = targets[-1] if targets else next(m for m in reversed(mentions) if m is not start)
    if start is target:
        return list(mentions)
    middle = [m for m in mentions if m is not start and m is not target]
    return [start, *middle, target]


class RouteRetriever:
    """Shortest reaction routes between the question's compounds (or forward from one)."""

    name = "routes"

    def __init__(self, workspace, access: GraphAccess) -> None:
        self.workspace = workspace
        self.access = access

    def _stereoisomer_keys(self, mention) -> list[str]:
        """Graph keys of the KB's stereoisomers of a compound named without stereo."""
        from chemground.graph.resolve import molecule_key

        if not mention.inchikey or not _stereo_free(mention.inchikey):
            return []
        hits = self.workspace.kb.lookup_connectivity(mention.inchikey[:14])
        keys = [
            molecule_key(hit.structure.inchikey, hit.compound_id)
            for hit in hits
            if hit.structure is not None and hit.structure.inchikey != mention.inchikey
        ]
        return list(dict.fromkeys(keys))[:_MAX_STEREOISOMERS]

    def retrieve(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        from chemground.graph.resolve import molecule_key_for
        from chemground.graph.routes import (
            RouteSearch,
            backward_routes,
            find_routes,
            forward_products,
            molecules_held,
        )

        mentions = route_order(query.question, query.resolved_mentions)
        if not mentions or _end_unresolved(query.question, query.mentions):
            # "route from benzaldehyde to unobtainol", "glorphenol -> chalcone": an end nothing
            # resolves is no reason to list what the other end can become or is made from (those
            # routes were answered)
            return []
        depth = requested_depth(query.question)
        keys = []
        for mention in mentions:
            try:
                keys.append(
                    molecule_key_for(
                        mention.smiles or mention.text, self.workspace.resolver, self.workspace.kb
                    )
                )
            except ChemgroundError:
                keys.append(None)
        graph = self.access.graph()
        try:
            if len(mentions) >= 2 and keys[0] and keys[-1]:
                held = molecules_held(graph, [keys[-1]])
                # a target the graph does not hold as named may be one of its stereoisomers
                search = (
                    find_routes(graph, [keys[0]], keys[-1], k=k, max_depth=depth)
                    if held
                    else RouteSearch()
                )
                why = f"route from {mentions[0].text} to {mentions[-1].text}"
                others = [
                    key
                    for mention, key in zip(mentions[1:-1], keys[1:-1])
                    if key and not _UNAVAILABLE.search(query.question[: mention.start])
                ]
                if not search.routes and others and held:
                    # the start may be the smaller partner of a step ("BnOH -> BnBr", then BnBr
                    # alkylates 1-phenylpiperazine): not only the main reactant's edges (not with
                    # no other compound named: every product's edges reach by-products, and "what
                    # forms from benzaldehyde in ethanol" became a route to ethanol)
                    search = find_routes(
                        graph, [keys[0]], keys[-1], k=k, max_depth=depth, main_only=False
                    )
                if not search.routes and others and held:
                    # "on hand: BnOH, 1-phenylpiperazine, CBr4/PPh3": a route may start from any
                    # compound the question has on hand
                    search = _routes_from_any(graph, [keys[0], *others], keys[-1], k, depth)
                    why = f"route to {mentions[-1].text} from the compounds named"
                for variant in [] if search.routes else self._stereoisomer_keys(mentions[-1]):
                    # "make ethyl cinnamate from benzaldehyde": a target named without its
                    # stereo is any of its stereoisomers (the records make the (E) ester)
                    search = find_routes(graph, [keys[0]], variant, k=k, max_depth=depth)
                    if search.routes:
                        why = (
                            f"route from {mentions[0].text} to {mentions[-1].text} (named without "
                            "its stereo, so to the stereoisomer the records make)"
                        )
                        break
            elif keys[0] and names_a_target(query.question, mentions[0]):
                # "route to paracetamol": the compound is the target, not a starting material
                search = backward_routes(graph, keys[0], max_depth=depth, limit=k)
                why = f"routes to {mentions[0].text} within {depth} steps"
            elif keys[0]:
                search = forward_products(graph, keys[0], max_depth=depth, limit=k)
                why = f"reachable from {mentions[0].text} within {depth} steps"
            else:
                return []
        except ChemgroundError:
            return []  # a compound the graph does not hold: no route
        routes = search.routes[:k]
        reactions = self.workspace.kb.get_reactions(
            sorted({i for route in routes for i in route.reaction_ids})
        )
        out = []
        for route in routes:
            evidence = route.to_evidence(why=f"{why}: {route.describe()}")
            evidence.record["steps"] = [
                {
                    "id": i,
                    "recipe": _recipe(reactions[i], route.molecules[n]) if i in reactions else "",
                }
                for n, i in enumerate(route.reaction_ids)
            ]
            out.append(evidence)
        return out


_MAX_STEREOISOMERS = 4


def _stereo_free(inchikey: str) -> bool:
    return inchikey.split("-")[1:2] == ["UHFFFAOYSA"]


def _routes_from_any(graph, starts: list[str], target: str, k: int, depth: int):
    """Routes to ``target`` from any of ``starts`` that the graph holds (a reagent it lacks is no
    reason to find nothing)."""
    from chemground.graph.routes import find_routes, molecules_held

    held = molecules_held(graph, starts)
    return find_routes(
        graph, [key for key in starts if key in held] or starts[:1], target, k=k, max_depth=depth
    )


def _recipe(reaction, substrate: dict) -> str:
    """What a chemist needs to run one step of a route, as the KB records it: the other
    reactants, reagents, catalysts, solvents, temperature, time and yield."""
    from chemground.kb.records import Role

    on_path = {substrate.get("key"), substrate.get("smiles")}
    partners = [
        p.name or p.smiles
        for p in reaction.reactants
        if (p.name or p.smiles) and p.inchikey not in on_path and p.smiles not in on_path
    ]
    parts = [f"with {', '.join(partners[:3])}"] if partners else []
    for role in (Role.REAGENT, Role.CATALYST, Role.SOLVENT):
        names = [p.name or p.smiles for p in reaction.by_role(role) if p.name or p.smiles]
        if names:
            parts.append(", ".join(names[:4]))
    conditions = reaction.conditions
    if conditions.temperature_c is not None:
        parts.append(f"{conditions.temperature_c:g} °C")
    elif conditions.temperature_text:
        parts.append(conditions.temperature_text)
    if conditions.time_h is not None:
        parts.append(f"{conditions.time_h:g} h")
    if reaction.yield_percent is not None:
        parts.append(f"{reaction.yield_percent:g} % yield")
    return "; ".join(parts)


class GraphRetriever:
    """``--method graph``: Text2Cypher over the reaction graph (needs an LLM)."""

    name = "graph"

    def __init__(self, workspace, access: GraphAccess, llm_factory) -> None:
        self.workspace = workspace
        self.access = access
        self.llm_factory = llm_factory

    def retrieve(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        from chemground.graph.linking import compounds_of
        from chemground.graph.text2cypher import graph_evidence

        found = graph_evidence(
            query.question,
            workspace=self.workspace,
            llm=self.llm_factory(),
            graph=self.access.graph(),
            compounds=compounds_of(query),  # the question's compounds anchor the query
        )
        return Retrieval(found[: max(k, 10)], found.notes, found.trace)


class LiteratureRetriever:
    """``--method lit``: passages of the papers added with `chemground lit add` (hybrid search)."""

    name = "lit"

    def __init__(self, workspace) -> None:
        self.workspace = workspace
        self._retriever = None

    def has_papers(self) -> bool:
        return self.workspace.kb.has_chunks()

    def retrieve(self, query: QueryTuple, k: int = 5) -> list[Evidence]:
        if not self.has_papers():
            return []
        if self._retriever is None:
            from chemground.lit.library import Library

            self._retriever = Library(self.workspace).retriever()
        evidence = self._retriever.search(query.question, k=k).evidence
        return [e for e in evidence if relevant(query.question, e)]


# The relevance floor of the paper fallback: fused ranks (RRF) always rank *something* first, so
# a passage is evidence only if it names a compound of the question or shares content words
# with it (words that are not question words or common English).
_STOPWORDS = frozenset(
    """
a about above after again all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each even ever every few for
from further get gets got had has have having he her here hers him his how i if in into is it
its itself just know let like made make makes many may me might more most much must my no nor
not now of off often on once one only or other our out over own per please same say says she
should show so some such tell than that the their them then there these they this those through
to too under until up us use used uses using very via want was way we well were what when where
which while who whom whose why will with would yes yet you your answer question paper papers
literature according mean means meaning give gives given thing things find name names called
call good best better new common usually typical typically really quite
""".split()
)


def content_words(text: str) -> set[str]:
    words = set()
    for token in re.findall(r"[a-z0-9]+", text.lower()):
        if len(token) < 3 or token in _STOPWORDS:
            continue
        words.add(token[:-1] if len(token) > 4 and token.endswith("s") else token)
    return words


def relevant(question: str, evidence) -> bool:
    """Does a passage share chemistry content with the question (a compound, or a content word)?"""
    if evidence.kind != "chunk":
        return True
    if evidence.match == "exact" or "mention" in (evidence.why or ""):
        return True
    asked = content_words(question)
    if not asked:
        return False
    text = str(evidence.record.get("text") or evidence.record.get("snippet") or "")
    shared = asked & content_words(text)
    return len(shared) >= (1 if len(asked) <= 2 else 2) or any(len(w) >= 7 for w in shared)
