"""Loopback load test of the HTTP API (issue 14): throughput, latency, errors and memory, old vs
new.

    python benchmarks/api_load.py                          # commit d9c255c vs the working tree
    python benchmarks/api_load.py --old none --workers 1,2 # the working tree only, 1 and 2 workers
    python benchmarks/api_load.py --quick --no-write       # a smoke run (few clients, few requests)

Every server runs as a subprocess (``python -m chemground --kb KB serve``) on 127.0.0.1 on a free
port, over the same read-only KB (the default one: dictionary + starter reactions, built once
into /tmp/chemground-bench if missing), each with a fresh cache folder. The old code runs
from a temporary ``git worktree`` of ``--old`` (PYTHONPATH=<worktree>/src); its server has no
``--workers``. All servers are started first, then, in this order:

1. a warm-up of each (every request of the mix, 8 clients), then its RSS;
2. for each client count (50 and 200 by default), ``--rounds`` rounds alternating between the
   servers: that many concurrent clients, one keep-alive connection each, send ``--requests``
   requests each from a fixed mix (/health, /ask table questions, /retrieve, /compound by
   name), a round capped at ``--max-seconds``;
3. /health latency (httpx, a new connection per probe so that probes reach every worker)
   while the worst-case questions (the longest allowed, 2,000 characters) are answered;
4. an adversarial run (httpx): the issue's hostile inputs one after the other, each with a
   client timeout, the run capped in time; then whether the server still answers, and its RSS.
   It comes last: the old code may not survive it.

The load clients are a bare asyncio HTTP/1.1 client (:class:`RawConnection`): httpx costs
more CPU per request than the new server does (``--client httpx`` to compare). RSS is that
of the server's whole process tree (uvicorn, its workers, their OPSIN JVMs), read from
/proc. Servers are stopped (SIGTERM to their process group, then SIGKILL) at the end.
Writes benchmarks/results/api_load.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import httpx
from _common import REPO, machine_line, markdown_table, percentile, write_section

from chemground.api.app import default_workers

DEFAULT_KB = Path("/tmp/chemground-bench/kb-default.sqlite")
OLD_COMMIT = "d9c255c"

# The mix every client cycles through (starting at its own offset): 2 of 10 are /health.
MIX = [
    ("GET", "/health", None),
    ("POST", "/ask", {"question": "What is the molecular weight of CC(=O)Nc1ccc(O)cc1?"}),
    ("POST", "/ask", {"question": "What forms when benzaldehyde reacts with benzohydrazide?"}),
    (
        "POST",
        "/ask",
        {
            "question": "What solvent is used for the Suzuki coupling of 4-bromoanisole with "
            "phenylboronic acid?"
        },
    ),
    ("POST", "/retrieve", {"question": "smiles for aspirin", "k": 3}),
    ("GET", "/compound", {"q": "aspirin"}),
    ("POST", "/ask", {"question": "What is the formula of caffeine?"}),
    ("GET", "/compound", {"q": "benzaldehyde"}),
    ("GET", "/health", None),
    (
        "POST",
        "/retrieve",
        {"question": "What forms when benzaldehyde reacts with benzohydrazide?", "k": 3},
    ),
]
# A systematic name that is in no dictionary: OPSIN (its JVM) starts during the warm-up.
WARM_UP_EXTRA = [("GET", "/compound", {"q": "3-(4-nitrophenyl)-2-methylpropan-1-ol"})]
# The longest allowed questions that were slowest to parse (issue 14), 2,000 characters each.
WORST_QUESTIONS = [
    ("'tert-butyl ' repeated", ("tert-butyl " * 200)[:2000]),
    ("'°C ' repeated", ("°C " * 700)[:2000]),
]


def _salad(chars: int) -> str:
    words = [
        "the",
        "of",
        "reaction",
        "yield",
        "with",
        "benzene",
        "acid",
        "heated",
        "under",
        "reflux",
        "for",
        "hours",
        "tert-butyl",
        "°C",
        "solvent",
        "catalyst",
        "ethyl",
        "acetate",
        "methanol",
        "water",
        "sodium",
        "chloride",
        "what",
        "which",
        "product",
        "mixture",
        "stirred",
    ]
    out, size, i = [], 0, 0
    while size < chars:
        word = words[(i * 7 + i // 3) % len(words)]
        out.append(word)
        size += len(word) + 1
        i += 1
    return " ".join(out)[:chars]


def adversarial_inputs() -> list[tuple[str, str, str, dict]]:
    """(label, method, path, httpx keyword arguments), cheapest for the old code first."""
    json_headers = {"content-type": "application/json"}
    return [
        (
            "lone surrogate in the JSON body",
            "POST",
            "/ask",
            {
                "content": b'{"question": "\\ud800 molecular weight of benzene"}',
                "headers": json_headers,
            },
        ),
        (
            "invalid UTF-8 in the body",
            "POST",
            "/ask",
            {"content": b'{"question": "\xff\xfe benzene"}', "headers": json_headers},
        ),
        ("/compound query of 60 KB", "GET", "/compound", {"params": {"q": "C" * 60_000}}),
        (
            "word salad, 2,000 characters (allowed)",
            "POST",
            "/ask",
            {"json": {"question": _salad(2000)}},
        ),
        (
            "'tert-butyl ' to 2,000 characters (allowed)",
            "POST",
            "/ask",
            {"json": {"question": WORST_QUESTIONS[0][1]}},
        ),
        (
            "'°C ' to 2,000 characters (allowed)",
            "POST",
            "/ask",
            {"json": {"question": ("°C " * 700)[:2000]}},
        ),
        (
            "/compound macrocycle of 1,991 atoms (allowed size)",
            "GET",
            "/compound",
            {"params": {"q": "C1" + "C" * 1989 + "1"}},
        ),
        (
            "macrocycle SMILES of 5,001 atoms in /ask",
            "POST",
            "/ask",
            {"json": {"question": "What is the molecular weight of C1" + "C" * 5000 + "1?"}},
        ),
        ("question of 10 MB", "POST", "/ask", {"json": {"question": _salad(10_000_000)}}),
        (
            "'tert-butyl ' x 5,000 (55 KB)",
            "POST",
            "/ask",
            {"json": {"question": "tert-butyl " * 5000}},
        ),
        (
            "SMILES chain of 20,000 atoms in /ask",
            "POST",
            "/ask",
            {"json": {"question": "molecular weight of " + "C" * 20_000}},
        ),
    ]


# -- the server under test ---------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def session_rss_kb(session: int) -> tuple[int, int, int]:
    """(total RSS kB, of which java, number of processes) of every process in ``session``."""
    total = java = count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[3]) != session:  # fields after the name: state, ppid, pgrp, session
                continue
            status = (entry / "status").read_text()
        except (OSError, ValueError):
            continue
        rss = next(
            (int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0
        )
        total += rss
        count += 1
        if "java" in stat[: stat.rindex(")")]:
            java += rss
    return total, java, count


def session_cpu_s(session: int) -> float:
    """CPU seconds (user + system) used so far by the live processes of ``session``."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[3]) == session:
                total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


@dataclass
class Server:
    label: str
    src: Path
    kb: Path
    workers: int | None
    threads: int | None = None
    port: int = 0
    process: subprocess.Popen | None = None
    cache: Path | None = None
    log: Path | None = None
    started_s: float = 0.0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 300) -> None:
        self.port = free_port()
        self.cache = Path(tempfile.mkdtemp(prefix="cg-api-load-cache-"))
        self.log = self.cache / "server.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CHEMGROUND_", "OPENAI_"))}
        env.update(
            PYTHONPATH=str(self.src),
            CHEMGROUND_CACHE_DIR=str(self.cache),
            CHEMGROUND_CONFIG=str(self.cache / "no-config.toml"),
        )
        command = [
            sys.executable,
            "-m",
            "chemground",
            "--kb",
            str(self.kb),
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
        ]
        if self.workers:
            command += ["--workers", str(self.workers)]
        if self.threads:
            command += ["--threads", str(self.threads)]
        began = time.perf_counter()
        self.process = subprocess.Popen(
            command,
            env=env,
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=self.cache,
        )
        while time.perf_counter() - began < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"{self.label}: server exited ({self.process.returncode}):\n"
                    + self.log.read_text(errors="replace")[-2000:]
                )
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    self.started_s = time.perf_counter() - began
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"{self.label}: no answer from /health within {timeout} s")

    def alive(self) -> bool:
        if self.process is None or self.process.poll() is not None:
            return False
        try:
            return httpx.get(self.url + "/health", timeout=30).status_code == 200
        except httpx.HTTPError:
            return False

    def rss(self) -> tuple[int, int, int]:
        return session_rss_kb(self.process.pid) if self.process is not None else (0, 0, 0)

    def cpu_s(self) -> float:
        return session_cpu_s(self.process.pid) if self.process is not None else 0.0

    def stop(self) -> None:
        if self.process is None:
            return
        pgid = self.process.pid  # its own session and process group (start_new_session)
        try:
            os.killpg(pgid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
        try:  # whatever is left in the group (workers, JVMs)
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.process = None
        if self.cache is not None:
            shutil.rmtree(self.cache, ignore_errors=True)


# -- clients
# -----------------------------------------------------------------------------------------
@dataclass
class LoadResult:
    clients: int
    planned: int
    latencies_ms: list[float] = field(default_factory=list)
    health_ms: list[float] = field(default_factory=list)
    errors: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    not_run: int = 0
    wall_s: float = 0.0
    server_cpu_s: float = 0.0

    def add_error(self, kind: str) -> None:
        self.errors += 1
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1


class RawConnection:
    """A bare HTTP/1.1 keep-alive client connection (asyncio streams).

    The load phases use this rather than httpx: on this 2-core machine httpx spent 3 to 6 ms
    of client CPU per request (more than the new server spends answering it), so an httpx
    load generator measured itself. This one spends about a tenth of that. ``--client httpx``
    runs the load with httpx instead, for comparison.
    """

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method: str, path: str, payload: dict | None) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        body = b""
        if method == "GET" and payload:
            path = path + "?" + urlencode(payload)
        elif payload is not None:
            body = json.dumps(payload).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAccept: */*\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.writer.write(head.encode("latin-1") + body)
        await self.writer.drain()
        header = await self.reader.readuntil(b"\r\n\r\n")
        lines = header.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        fields = {
            k.strip().lower(): v.strip()
            for k, _, v in (line.partition(":") for line in lines[1:] if line)
        }
        if "content-length" in fields:
            content = await self.reader.readexactly(int(fields["content-length"]))
        elif fields.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                parts.append(await self.reader.readexactly(size + 2))
                if size == 0:
                    break
            content = b"".join(p[:-2] for p in parts)
        else:
            content = await self.reader.read()
            self.close()
        if fields.get("connection", "").lower() == "close":
            self.close()
        return status, content


async def run_load(
    url: str,
    clients: int,
    requests: int,
    max_seconds: float,
    mix=MIX,
    request_timeout: float = 120.0,
    client_kind: str = "raw",
) -> LoadResult:
    """``clients`` concurrent clients, one connection each, ``requests`` requests each from
    ``mix``."""
    result = LoadResult(clients, clients * requests)
    done = 0
    host, port = url.rsplit("//", 1)[1].rsplit(":", 1)

    async def one_client(index: int) -> None:
        nonlocal done
        raw = RawConnection(host, int(port)) if client_kind == "raw" else None
        client = httpx.AsyncClient(limits=httpx.Limits(max_connections=1)) if raw is None else None
        try:
            for i in range(requests):
                method, path, payload = mix[(index + i) % len(mix)]
                started = time.perf_counter()
                try:
                    if raw is not None:
                        status, _ = await asyncio.wait_for(
                            raw.request(method, path, payload), request_timeout
                        )
                    elif method == "GET":
                        status = (
                            await client.get(url + path, params=payload, timeout=request_timeout)
                        ).status_code
                    else:
                        status = (
                            await client.post(url + path, json=payload, timeout=request_timeout)
                        ).status_code
                    ok, kind = status == 200, f"HTTP {status}"
                except (
                    TimeoutError,
                    httpx.HTTPError,
                    OSError,
                    asyncio.IncompleteReadError,
                    ValueError,
                ) as error:
                    ok, kind = False, type(error).__name__
                    if raw is not None:
                        raw.close()
                elapsed = (time.perf_counter() - started) * 1000
                done += 1
                result.latencies_ms.append(elapsed)
                if path == "/health":
                    result.health_ms.append(elapsed)
                if not ok:
                    result.add_error(kind)
        finally:
            if raw is not None:
                raw.close()
            if client is not None:
                await client.aclose()

    began = time.perf_counter()
    tasks = [asyncio.create_task(one_client(i)) for i in range(clients)]
    _, pending = await asyncio.wait(tasks, timeout=max_seconds)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.gather(*pending, return_exceptions=True)
    result.wall_s = time.perf_counter() - began
    result.not_run = result.planned - done
    return result


async def health_during_worst_cases(
    url: str, questions: list[str], min_seconds: float = 10.0, max_seconds: float = 120.0
) -> dict:
    """/health latency (a new connection per probe) while ``questions`` are answered back to back,
    in turn, for at least ``min_seconds`` (so that probes see them in flight however fast they
    are)."""
    times, statuses, probes = [], [], []
    began = time.perf_counter()

    async def ask_all() -> None:
        async with httpx.AsyncClient() as asker:
            i = 0
            while i < len(questions) or time.perf_counter() - began < min_seconds:
                question = questions[i % len(questions)]
                i += 1
                started = time.perf_counter()
                try:
                    reply = await asker.post(
                        url + "/ask",
                        json={"question": question},
                        timeout=max(1.0, max_seconds - (started - began)),
                    )
                    statuses.append(str(reply.status_code))
                except httpx.HTTPError as error:
                    statuses.append(type(error).__name__)
                times.append(time.perf_counter() - started)

    asking = asyncio.create_task(ask_all())
    await asyncio.sleep(0.1)
    async with httpx.AsyncClient(limits=httpx.Limits(max_keepalive_connections=0)) as prober:
        while not asking.done() and time.perf_counter() - began < max_seconds:
            started = time.perf_counter()
            try:
                await prober.get(url + "/health", timeout=max_seconds)
            except httpx.HTTPError:
                pass
            probes.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.02)
    try:
        await asyncio.wait_for(
            asking, timeout=max(1.0, max_seconds - (time.perf_counter() - began))
        )
    except TimeoutError:
        pass
    return {"times": times, "statuses": statuses, "probes": probes}


async def adversarial_run(url: str, request_timeout: float, max_seconds: float) -> list[dict]:
    out = []
    began = time.perf_counter()
    async with httpx.AsyncClient() as client:
        for label, method, path, kwargs in adversarial_inputs():
            if time.perf_counter() - began > max_seconds:
                out.append(
                    {
                        "label": label,
                        "status": "not run (time cap)",
                        "s": None,
                        "bytes": None,
                        "json": None,
                    }
                )
                continue
            started = time.perf_counter()
            try:
                reply = await client.request(method, url + path, timeout=request_timeout, **kwargs)
                try:
                    reply.json()
                    is_json = True
                except ValueError:
                    is_json = False
                out.append(
                    {
                        "label": label,
                        "status": str(reply.status_code),
                        "s": time.perf_counter() - started,
                        "bytes": len(reply.content),
                        "json": is_json,
                    }
                )
            except httpx.HTTPError as error:
                out.append(
                    {
                        "label": label,
                        "status": type(error).__name__,
                        "s": time.perf_counter() - started,
                        "bytes": None,
                        "json": None,
                    }
                )
    return out


async def single_client_latency(url: str, repeat: int = 7) -> dict[str, float]:
    """Median latency (ms) of each request of the mix, one client, nothing else in flight."""
    host, port = url.rsplit("//", 1)[1].rsplit(":", 1)
    raw = RawConnection(host, int(port))
    out: dict[str, float] = {}
    try:
        for method, path, payload in dict.fromkeys((m, p, json.dumps(q)) for m, p, q in MIX):
            times = []
            for _ in range(repeat):
                started = time.perf_counter()
                await raw.request(method, path, json.loads(payload))
                times.append((time.perf_counter() - started) * 1000)
            out[f"{method} {path} {json.loads(payload) or ''}".strip()] = percentile(times, 50)
    finally:
        raw.close()
    return out


# -- all servers, all phases ----------------------------------------------------------------------
def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def measure(
    servers: list[Server],
    client_counts: list[int],
    requests: int,
    rounds: int,
    max_seconds: float,
    worst_seconds: float,
    adversarial_timeout: float,
    adversarial_cap: float,
    client_kind: str,
) -> list[dict]:
    """Every phase for every server; the load rounds alternate between servers (same conditions)."""
    runs = {
        server.label: {"label": server.label, "loads": {c: [] for c in client_counts}}
        for server in servers
    }
    for server in servers:
        server.start()
        say(f"{server.label}: started in {server.started_s:.1f} s on port {server.port}")
        # as many connections as the first load round, so that every worker of the server is warmed
        asyncio.run(
            run_load(
                server.url,
                client_counts[0],
                len(MIX) * 2,
                max_seconds,
                mix=MIX + WARM_UP_EXTRA,
                client_kind=client_kind,
            )
        )
    time.sleep(1)
    for server in servers:
        runs[server.label].update(
            started_s=server.started_s,
            rss_warm=server.rss(),
            single=asyncio.run(single_client_latency(server.url)),
        )
        say(f"{server.label}: RSS after warm-up {server.rss()[0] / 1024:.0f} MB")
    for clients in client_counts:
        for round_ in range(rounds):
            for server in servers:
                cpu = server.cpu_s()
                result = asyncio.run(
                    run_load(server.url, clients, requests, max_seconds, client_kind=client_kind)
                )
                result.server_cpu_s = server.cpu_s() - cpu
                runs[server.label]["loads"][clients].append(result)
                say(
                    f"{server.label}: {clients} clients, round {round_ + 1}: "
                    f"{throughput(result):.1f} req/s, p95 "
                    f"{percentile(result.latencies_ms, 95):.0f} "
                    f"ms, errors {result.errors}, not run {result.not_run}"
                )
    for server in servers:
        runs[server.label]["rss_load"] = server.rss()
    for server in servers:
        health = asyncio.run(
            health_during_worst_cases(server.url, [q for _, q in WORST_QUESTIONS], worst_seconds)
        )
        runs[server.label]["health"] = health
        say(
            f"{server.label}: /health during the worst cases: {len(health['probes'])} probes, p99 "
            f"{percentile(health['probes'], 99):.0f} ms; {len(health['times'])} questions, "
            f"{min(health['times']):.2f} to {max(health['times']):.2f} s"
        )
    for server in servers:  # last: the old code may not survive it
        adversarial = asyncio.run(adversarial_run(server.url, adversarial_timeout, adversarial_cap))
        for row in adversarial:
            say(
                f"{server.label}: {row['label']}: {row['status']} "
                f"{row['s'] and round(row['s'], 2)} s"
            )
        time.sleep(1)
        runs[server.label].update(
            adversarial=adversarial, rss_after=server.rss(), alive=server.alive()
        )
        say(
            f"{server.label}: RSS after the adversarial run "
            f"{runs[server.label]['rss_after'][0] / 1024:.0f} MB; "
            f"answers: {runs[server.label]['alive']}"
        )
        if runs[server.label]["alive"]:  # again: growth now would be a leak, not a one-time load
            asyncio.run(adversarial_run(server.url, adversarial_timeout, adversarial_cap))
            time.sleep(1)
        runs[server.label]["rss_again"] = server.rss()
    return [runs[server.label] for server in servers]


def merged(results: list[LoadResult]) -> LoadResult:
    out = LoadResult(results[0].clients, sum(r.planned for r in results))
    for r in results:
        out.latencies_ms += r.latencies_ms
        out.health_ms += r.health_ms
        out.errors += r.errors
        out.not_run += r.not_run
        out.wall_s += r.wall_s
        out.server_cpu_s += r.server_cpu_s
        for kind, n in r.error_kinds.items():
            out.error_kinds[kind] = out.error_kinds.get(kind, 0) + n
    return out


def throughput(result: LoadResult) -> float:
    return len(result.latencies_ms) / result.wall_s if result.wall_s else 0.0


# -- report
# ----------------------------------------------------------------------------------------------
def _mb(kb: int) -> str:
    return f"{kb / 1024:,.0f} MB"


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(REPO), *args], capture_output=True, text=True
    ).stdout.strip()


RAW_CLIENT_NOTE = (
    "a bare asyncio HTTP/1.1 client (httpx cost 3-6 ms of CPU per request here, more than the new "
    "server)"
)


def report(
    runs: list[dict],
    kb: Path,
    old: str | None,
    requests: int,
    rounds: int,
    max_seconds: float,
    worst_seconds: float,
    client_kind: str,
) -> str:
    dirty = " with uncommitted changes" if _git("status", "--porcelain", "src") else ""
    lines = [
        "## HTTP API under load (issue 14)",
        "",
        machine_line()
        + " Clients and servers share the machine (loopback); other work on the machine "
        "during the run makes the absolute figures noisy, so servers are measured in alternating "
        "rounds.",
        "",
        f"Servers: {'`' + old + '` (before the hardening) and ' if old else ''}the working tree "
        f"(`{_git('rev-parse', '--short', 'HEAD')}`{dirty}), each started by `chemground serve` on "
        "127.0.0.1 "
        f"over the same KB ({kb.name}: dictionary + starter reactions"
        f"{'; the old server has no --workers' if old else ''}). Each client keeps one connection "
        "and sends "
        f"{requests} requests from a mix of 10 (2 × /health, 4 × /ask table questions, 2 × "
        "/retrieve, "
        f"2 × /compound by name); {rounds} round{'s' if rounds > 1 else ''} per server and client "
        "count, "
        f"alternating between servers, each capped at {max_seconds:.0f} s. Client: "
        f"{RAW_CLIENT_NOTE if client_kind == 'raw' else 'httpx'}. "
        "RSS is the server's whole process tree (workers and OPSIN JVMs included).",
        "",
    ]
    rows = []
    for run in runs:
        for clients, results in run["loads"].items():
            if not results:
                continue
            total = merged(results)
            per_round = ", ".join(f"{throughput(r):,.0f}" for r in results)
            cpu_ms = (
                1000 * total.server_cpu_s / len(total.latencies_ms) if total.latencies_ms else 0.0
            )
            rows.append(
                [
                    run["label"],
                    clients,
                    f"{len(total.latencies_ms):,} / {total.planned:,}",
                    total.errors,
                    f"{throughput(total):,.0f} ({per_round})",
                    round(percentile(total.latencies_ms, 50), 1),
                    round(percentile(total.latencies_ms, 95), 1),
                    round(percentile(total.latencies_ms, 99), 1),
                    round(percentile(total.health_ms, 99), 1),
                    round(cpu_ms, 2),
                ]
            )
    lines += [
        "Mixed load:",
        "",
        markdown_table(
            [
                "server",
                "clients",
                "requests done / planned",
                "errors",
                "req/s (per round)",
                "p50 ms",
                "p95 ms",
                "p99 ms",
                "/health p99 ms",
                "server CPU ms / request",
            ],
            rows,
        ),
        "",
    ]
    errors = {
        f"{run['label']}, {c} clients": merged(rs).error_kinds
        for run in runs
        for c, rs in run["loads"].items()
        if rs and merged(rs).error_kinds
    }
    if errors:
        lines += ["Errors by kind: " + "; ".join(f"{k}: {v}" for k, v in errors.items()), ""]

    rows = [
        [request, *[round(run["single"][request], 1) for run in runs]]
        for request in runs[0]["single"]
    ]
    lines += [
        "One client alone, after the warm-up (median of 7, ms):",
        "",
        markdown_table(["request", *[run["label"] for run in runs]], rows),
        "",
    ]

    rows = []
    for run in runs:
        health = run["health"]
        probes, took = health["probes"], health["times"]
        statuses = ", ".join(
            f"{n} × {st}"
            for st, n in sorted(
                {st: health["statuses"].count(st) for st in health["statuses"]}.items()
            )
        )
        rows.append(
            [
                run["label"],
                f"{len(took)} ({statuses}), {min(took):.2f} to {max(took):.2f} s each",
                len(probes),
                round(percentile(probes, 50), 1),
                round(percentile(probes, 99), 1),
                round(max(probes), 1) if probes else "-",
            ]
        )
    lines += [
        "`/health` while worst-case questions are in flight: the longest allowed (2,000 characters "
        "of "
        + " and of ".join(label for label, _ in WORST_QUESTIONS)
        + "), asked back to back for at least "
        f"{worst_seconds:.0f} s; a new connection per probe, 20 ms apart:",
        "",
        markdown_table(
            ["server", "worst-case questions answered", "probes", "p50 ms", "p99 ms", "max ms"],
            rows,
        ),
        "",
    ]

    rows = []
    for run in runs:
        warm, load, after, again = (
            run["rss_warm"],
            run["rss_load"],
            run["rss_after"],
            run["rss_again"],
        )
        rows.append(
            [
                run["label"],
                f"{run['started_s']:.1f} s",
                f"{_mb(warm[0])} ({warm[2]} processes, JVM {_mb(warm[1])})",
                _mb(load[0]),
                _mb(after[0]) if after[0] else "(gone)",
                f"{after[0] / warm[0]:.2f}" if warm[0] and after[0] else "-",
                "yes" if run["alive"] else "NO",
                _mb(again[0]) if run["alive"] and again[0] else "-",
            ]
        )
    lines += [
        "Memory (RSS of the server's process tree):",
        "",
        markdown_table(
            [
                "server",
                "start-up",
                "after warm-up",
                "after the load rounds",
                "after the adversarial run",
                "adversarial / warm-up",
                "answers after",
                "after a second adversarial run",
            ],
            rows,
        ),
        "",
    ]

    labels = [row["label"] for row in runs[0]["adversarial"]]
    rows = []
    for i, label in enumerate(labels):
        row = [label]
        for run in runs:
            item = run["adversarial"][i]
            time_s = f" in {item['s']:.2f} s" if item["s"] is not None else ""
            body = "" if item["json"] is None else (", JSON" if item["json"] else ", NOT JSON")
            size = f", {item['bytes']:,} B" if item["bytes"] is not None else ""
            row.append(f"{item['status']}{time_s}{body}{size}")
        rows.append(row)
    lines += [
        "Adversarial run (one request after the other, each with a 30 s client timeout; status, "
        "time, body):",
        "",
        markdown_table(["input", *[run["label"] for run in runs]], rows),
        "",
    ]
    lines += targets(runs)
    return "\n".join(lines)


def targets(runs: list[dict]) -> list[str]:
    old = next((run for run in runs if run["label"].startswith("old")), None)
    out = ["Targets:", ""]
    for run in runs:
        if run is old:
            continue
        parts = []
        if old is not None and run["loads"].get(50) and old["loads"].get(50):
            ratio = throughput(merged(run["loads"][50])) / throughput(merged(old["loads"][50]))
            parts.append(f"throughput at 50 clients {ratio:.1f}× the old code's (target ≥ 3×)")
        if run["loads"].get(50):
            total = merged(run["loads"][50])
            parts.append(
                f"at 50 clients the server kept {total.server_cpu_s / total.wall_s:.2f} of "
                f"{os.cpu_count()} cores busy, "
                f"{1000 * total.server_cpu_s / max(1, len(total.latencies_ms)):.2f} ms of CPU per "
                "request"
            )
        probes = run["health"]["probes"]
        if probes:
            parts.append(
                f"/health p99 with a worst-case question in flight {percentile(probes, 99):.0f} ms "
                "(target < 100 ms)"
            )
        if run["rss_warm"][0] and run["rss_after"][0]:
            parts.append(
                f"RSS after the adversarial run {run['rss_after'][0] / run['rss_warm'][0]:.2f}× "
                "the RSS "
                "after warm-up (target ≤ 1.5×)"
            )
        out.append(f"- {run['label']}: " + "; ".join(parts) + ".")
    return out


# -- main
# ------------------------------------------------------------------------------------------------
def ensure_default_kb(path: Path) -> Path:
    if not path.exists():
        from chemground.kb.build import build_kb

        path.parent.mkdir(parents=True, exist_ok=True)
        say(f"building the default KB at {path} (about a minute)")
        tmp = path.with_name(path.name + ".partial")
        build_kb(tmp).close()
        tmp.rename(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=Path, default=DEFAULT_KB, help="KB file (built if missing)")
    parser.add_argument("--old", default=OLD_COMMIT, help="commit of the old code, or 'none'")
    parser.add_argument(
        "--old-src", type=Path, help="an existing checkout's src/ for the old code (no worktree)"
    )
    parser.add_argument(
        "--workers",
        default="default",
        help="comma-separated worker counts for new servers ('default': the server's own)",
    )
    parser.add_argument("--threads", type=int, help="threads per worker for the new servers")
    parser.add_argument("--clients", default="50,200")
    parser.add_argument("--requests", type=int, default=20, help="requests per client")
    parser.add_argument(
        "--rounds", type=int, default=2, help="load rounds per server and client count"
    )
    parser.add_argument(
        "--max-seconds", type=float, default=240.0, help="time cap of one load round"
    )
    parser.add_argument("--client", choices=("raw", "httpx"), default="raw", help="load client")
    parser.add_argument(
        "--worst-seconds",
        type=float,
        default=10.0,
        help="how long worst-case questions are kept in flight while /health is probed",
    )
    parser.add_argument(
        "--adversarial-timeout", type=float, default=30.0, help="client timeout per hostile input"
    )
    parser.add_argument(
        "--adversarial-cap", type=float, default=150.0, help="time cap of the adversarial run"
    )
    parser.add_argument(
        "--quick", action="store_true", help="10 clients x 5 requests, one round (smoke run)"
    )
    parser.add_argument(
        "--no-write", action="store_true", help="print the section, do not write results"
    )
    args = parser.parse_args()
    clients = [10] if args.quick else [int(c) for c in args.clients.split(",")]
    requests, rounds = (5, 1) if args.quick else (args.requests, args.rounds)
    kb = ensure_default_kb(args.kb)

    servers: list[Server] = []
    worktree: Path | None = None
    old_label = None
    try:
        if args.old.lower() != "none":
            if args.old_src is not None:
                old_src = args.old_src
            else:
                worktree = Path(tempfile.mkdtemp(prefix="cg-old-")) / "tree"
                subprocess.run(
                    [
                        "git",
                        "-C",
                        str(REPO),
                        "worktree",
                        "add",
                        "--detach",
                        str(worktree),
                        args.old,
                    ],
                    check=True,
                    capture_output=True,
                )
                old_src = worktree / "src"
            old_label = args.old
            servers.append(Server(f"old ({args.old})", old_src, kb, None))
        for workers in args.workers.split(","):
            count = None if workers == "default" else int(workers)
            label = (
                f"new, {count or default_workers()} "
                f"worker{'s' if (count or default_workers()) > 1 else ''}"
                + (" (default)" if count is None else "")
            )
            servers.append(Server(label, REPO / "src", kb, count, args.threads))
        runs = measure(
            servers,
            clients,
            requests,
            rounds,
            args.max_seconds,
            args.worst_seconds,
            args.adversarial_timeout,
            args.adversarial_cap,
            args.client,
        )
    finally:
        for server in servers:
            server.stop()
        if worktree is not None:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(worktree)],
                capture_output=True,
            )
            shutil.rmtree(worktree.parent, ignore_errors=True)
    text = report(
        runs, kb, old_label, requests, rounds, args.max_seconds, args.worst_seconds, args.client
    )
    print(text)
    if not args.no_write:
        say(f"wrote {write_section('api_load', text)}")


if __name__ == "__main__":
    main()
