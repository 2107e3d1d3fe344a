"""OPSIN (systematic IUPAC name -> structure), run as one long-lived Java process.

py2opsin ships the OPSIN jar but starts a new JVM per call (~1 s). We use its jar and keep
one OPSIN process open, feeding it names on stdin and reading one SMILES line back per
name (OPSIN writes its failure reason to stderr before the empty result line), so a warm
translation costs a few milliseconds. Results, failures included, are cached on disk.
"""

from __future__ import annotations

import atexit
import json
import queue
import re
import shutil
import subprocess
import threading
from collections import OrderedDict
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from chemground.cache import DiskCache
from chemground.chem.structure import MAX_NAME_CHARS
from chemground.errors import ExternalToolError, clip, control_character, preview
from chemground.forking import SPAWN_LOCK

OPSIN_TIMEOUT_S = 20.0
# Bump when the translation logic changes (e.g. new name variants), so that failures cached
# by an older version are tried again rather than served from the disk cache.
CACHE_VERSION = 4  # 4: one JSON [smiles, message] value per name (chemground.cache)
_CACHE_TABLE = f"opsin_v{CACHE_VERSION}"
MEMORY_ENTRIES = 100_000  # results kept in memory (least recently used dropped); the disk keeps all


_LOWER_N_LOCANT = re.compile(
    r"(?<![a-z])n(?=\d*(?:'{1,3})?(?:,\s*n\d*(?:'{1,3})?)*-|\d*(?:'{1,3})?,\s*n)"
)
_LOWER_O_LOCANT = re.compile(
    r"(?<![a-z])o(?=\d+(?:'{1,3})?-)"
)  # "o3-(2-methoxyethyl)": ester oxygen locants


def name_variants(name: str) -> list[str]:
    """Spellings OPSIN may accept when it rejects ``name`` as written.

    Lower-cased dictionaries write nitrogen locants as "n-" ("butyl n-phenylcarbamate");
    PubChem writes salts as "anion;cation" ("octadec-9-enoate;tin(2+)"). Tried only after the
    name as written fails, so "n-butyl" keeps its meaning when OPSIN reads it.
    """
    variants = []
    upper = _LOWER_O_LOCANT.sub("O", _LOWER_N_LOCANT.sub("N", name))
    if upper != name:
        variants.append(upper)
    if ";" in name:
        parts = [p.strip() for p in name.split(";") if p.strip()]
        variants += [" ".join(reversed(parts)), " ".join(parts)]
        variants += [
            " ".join(
                reversed([_LOWER_O_LOCANT.sub("O", _LOWER_N_LOCANT.sub("N", p)) for p in parts])
            )
        ]
    return list(dict.fromkeys(v for v in variants if v != name))


@dataclass(frozen=True)
class OpsinResult:
    name: str
    smiles: str | None
    message: str = ""

    @property
    def ok(self) -> bool:
        return bool(self.smiles)


def refusal(key: str) -> str | None:
    """Why OPSIN is not asked about ``key`` (a whitespace-joined name), or None: names with
    control characters or longer than ``MAX_NAME_CHARS`` never reach the JVM (OPSIN's time grows
    faster than linearly with length: 0.2 s for 1,200 characters of "chlorochloro...")."""
    bad = control_character(key)
    if bad:
        return f"the name contains {bad}"
    if len(key) > MAX_NAME_CHARS:
        return f"the name is {len(key):,} characters; the limit is {MAX_NAME_CHARS:,}"
    return None


def opsin_jar() -> Path:
    folder = resources.files("py2opsin")
    for entry in folder.iterdir():
        if entry.name.startswith("opsin") and entry.name.endswith(".jar"):
            return Path(str(entry))
    raise ExternalToolError(
        "the OPSIN jar was not found in the py2opsin package; reinstall py2opsin"
    )


# The client JIT alone and the serial collector: the JVM starts on a third of the CPU time
# (0.6 vs 0.9 s) and 3,000 names take 1.7 instead of 3.7 CPU-seconds, measured with OPSIN's
# jar on this project's 2-core machines, where the JVM shares the cores with RDKit workers.
JVM_FLAGS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")


class _OpsinProcess:
    """One OPSIN JVM answering names line by line."""

    def __init__(self) -> None:
        java = shutil.which("java")
        if java is None:
            raise ExternalToolError(
                "OPSIN needs a Java runtime (java was not found on PATH); install Java 8+ "
                "to resolve systematic names that are not in the compound dictionary"
            )
        with SPAWN_LOCK:  # see chemground.forking (py2opsin runs `java` when first imported, too)
            jar = opsin_jar()
            self._proc = subprocess.Popen(
                [java, "-Xss4m", *JVM_FLAGS, "-jar", str(jar), "-osmi", "-s"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        self._stdout: queue.Queue[str | None] = queue.Queue()
        self._stderr: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=self._pump, args=(self._proc.stdout, self._stdout, True), daemon=True
        ).start()
        threading.Thread(
            target=self._pump, args=(self._proc.stderr, self._stderr, False), daemon=True
        ).start()

    @staticmethod
    def _pump(stream, sink: queue.Queue, signal_end: bool) -> None:
        for line in stream:
            sink.put(line.rstrip("\n"))
        if signal_end:
            sink.put(None)

    def alive(self) -> bool:
        return self._proc.poll() is None

    def translate(self, name: str) -> OpsinResult:
        clean = " ".join(name.split())
        while not self._stderr.empty():
            self._stderr.get_nowait()
        assert self._proc.stdin is not None
        self._proc.stdin.write(clean + "\n")
        self._proc.stdin.flush()
        try:
            line = self._stdout.get(timeout=OPSIN_TIMEOUT_S)
        except queue.Empty:
            self.close()
            raise ExternalToolError(
                f"OPSIN did not answer within {OPSIN_TIMEOUT_S:.0f} s for {preview(name)}"
            ) from None
        if line is None:
            raise ExternalToolError("the OPSIN process exited unexpectedly")
        if line.strip():
            return OpsinResult(name, line.strip())
        messages = []
        try:
            messages.append(self._stderr.get(timeout=0.5))
            while not self._stderr.empty():
                messages.append(self._stderr.get_nowait())
        except queue.Empty:
            pass
        # OPSIN's greeting has no newline, so it arrives glued to the first error message
        text = " ".join(m.strip() for m in messages if m.strip())
        text = re.sub(r"^.*?chemical name to begin:\s*", "", text)
        if len(clean) > 20:  # OPSIN echoes the name, which the caller quotes already
            text = text.replace(clean, "the name")
        message = clip(text, 200) if text else "OPSIN could not interpret the name"
        return OpsinResult(name, None, message)

    def translate_batch(self, names: list[str]) -> list[OpsinResult]:
        """Pipelined translation: write all names, then read one line per name.

        Much faster than one round trip per name; failures get a generic message (callers
        that need OPSIN's own reason re-ask for those names one by one).
        """
        clean = [" ".join(n.split()) for n in names]
        assert self._proc.stdin is not None
        stdin = self._proc.stdin

        def write() -> None:
            for name in clean:
                stdin.write(name + "\n")
            stdin.flush()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        results = []
        for name in names:
            try:
                line = self._stdout.get(timeout=OPSIN_TIMEOUT_S)
            except queue.Empty:
                self.close()
                raise ExternalToolError(
                    f"OPSIN did not answer within {OPSIN_TIMEOUT_S:.0f} s"
                ) from None
            if line is None:
                raise ExternalToolError("the OPSIN process exited unexpectedly")
            results.append(
                OpsinResult(
                    name,
                    line.strip() or None,
                    "" if line.strip() else "OPSIN could not interpret the name",
                )
            )
        writer.join()
        while not self._stderr.empty():
            self._stderr.get_nowait()
        return results

    def close(self) -> None:
        if self.alive():
            # terminated, not sent end-of-input: worker processes forked after the JVM started
            # hold a copy of its stdin, so it would never see the end (OPSIN keeps no state)
            try:
                assert self._proc.stdin is not None
                self._proc.stdin.close()
                self._proc.terminate()
                self._proc.wait(timeout=2)
            except Exception:
                self._proc.kill()


class Opsin:
    """Thread-safe OPSIN translator with an on-disk cache of results (failures included)."""

    def __init__(self, cache_path: Path | None = None) -> None:
        self._lock = threading.Lock()
        self._process: _OpsinProcess | None = None
        self._memory: OrderedDict[str, OpsinResult] = OrderedDict()  # bounded: see _remember
        self._cache_path = cache_path
        self._disk: DiskCache | None = None
        atexit.register(self.close)

    def _cache(self) -> DiskCache | None:
        """The disk cache of translations (name -> [smiles, message]), opened on first use."""
        if self._cache_path is None:
            return None
        if self._disk is None:
            self._disk = DiskCache(self._cache_path, name="OPSIN cache", table=_CACHE_TABLE)
        return self._disk

    def _cached(self, key: str, name: str) -> OpsinResult | None:
        disk = self._cache()
        value = disk.get_json(key) if disk is not None else None
        if not (isinstance(value, list) and len(value) == 2):
            return None
        return self._remember(key, OpsinResult(name, value[0] or None, value[1] or ""))

    def _remember(self, key: str, result: OpsinResult) -> OpsinResult:
        """Keep ``result`` in memory, dropping the least recently used beyond MEMORY_ENTRIES
        (a long-running server sees an unbounded number of distinct names)."""
        self._memory[key] = result
        self._memory.move_to_end(key)
        while len(self._memory) > MEMORY_ENTRIES:
            self._memory.popitem(last=False)
        return result

    def translate(self, name: str) -> OpsinResult:
        """SMILES for a systematic name, or an OpsinResult with OPSIN's failure message."""
        key = " ".join(name.split())
        refused = refusal(key)
        if refused is not None:
            return OpsinResult(name, None, refused)  # neither asked nor cached
        with self._lock:
            if key in self._memory:
                self._memory.move_to_end(key)
                return self._memory[key]
            cached = self._cached(key, name)
            if cached is not None:
                return cached
            if not key or "\n" in key:
                result = OpsinResult(name, None, "empty name")
            else:
                if self._process is None or not self._process.alive():
                    self._process = _OpsinProcess()
                result = self._process.translate(key)
                for variant in name_variants(key) if not result.ok else ():
                    retry = self._process.translate(variant)
                    if retry.ok:
                        result = OpsinResult(name, retry.smiles, f"parsed as {variant!r}")
                        break
            self._remember(key, result)
            disk = self._cache()
            if disk is not None:
                disk.put_json(key, [result.smiles, result.message])
            return result

    def translate_many(self, names: list[str]) -> dict[str, OpsinResult]:
        """Translate many names at once (pipelined); failures carry OPSIN's own message."""
        out: dict[str, OpsinResult] = {}
        todo = []
        with self._lock:
            for name in dict.fromkeys(names):
                key = " ".join(name.split())
                refused = refusal(key) if key else "empty name"
                if refused is not None:
                    out[name] = OpsinResult(name, None, refused)
                elif key in self._memory:
                    out[name] = self._memory[key]
                else:
                    cached = self._cached(key, name)
                    if cached is not None:
                        out[name] = cached
                    else:
                        todo.append(name)
            if todo:
                if self._process is None or not self._process.alive():
                    self._process = _OpsinProcess()
                disk = self._cache()
                for start in range(0, len(todo), 500):
                    found = []
                    for result in self._process.translate_batch(todo[start : start + 500]):
                        if result.ok:
                            key = " ".join(result.name.split())
                            out[result.name] = self._remember(key, result)
                            found.append((key, json.dumps([result.smiles, ""])))
                    if disk is not None:
                        disk.put_many(found)
        for name in todo:
            # batch failures keep a generic reason and are not cached, so that a later
            # single look-up still gets OPSIN's own explanation
            out.setdefault(name, OpsinResult(name, None, "OPSIN could not interpret the name"))
        return out

    def close(self) -> None:
        with self._lock:
            if self._process is not None:
                self._process.close()
                self._process = None
            if self._disk is not None:
                self._disk.close()
                self._disk = None
