"""``chemground llm``: local models (serve a GGUF file with llama.cpp on loopback, inspect one)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

from chemground.cli.common import JSONOutput, console, err_console, print_json

app = typer.Typer(
    help="Local models: serve a GGUF file with llama.cpp, inspect GGUF files.", no_args_is_help=True
)

MODEL_ENV = "CHEMGROUND_LOCAL_MODEL"


def _model_path(model: Path | None) -> Path:
    from chemground.llm.local import LocalModelError

    if model is None:
        from chemground.settings import get_settings

        value = get_settings().llm.local_model
        if not value:
            raise LocalModelError(
                f"no model given: pass --model PATH.gguf or set {MODEL_ENV}. GGUF models are "
                "published on "
                "Hugging Face (e.g. Qwen/Qwen2.5-7B-Instruct-GGUF; any chat model converted with "
                "llama.cpp's "
                "convert_hf_to_gguf.py works); see README 'Local models'."
            )
        model = value
    return model.expanduser().resolve()


@app.command("serve")
def serve(
    model: Path | None = typer.Option(
        None, "--model", "-m", help=f"The GGUF model file (default: ${MODEL_ENV})."
    ),
    port: int = typer.Option(
        8080, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0: a free one)."
    ),
    threads: int = typer.Option(
        1,
        "--threads",
        help="CPU threads. On a small shared machine keep 1: with more "
        "threads than free cores llama.cpp slows down sharply.",
    ),
    n_ctx: int = typer.Option(8192, "--n-ctx", help="Context window in tokens."),
    alias: str | None = typer.Option(
        None,
        "--alias",
        help="Model name the server answers to (default: the file name without .gguf).",
    ),
    python: str | None = typer.Option(
        None, "--python", help="Python that has llama-cpp-python[server] (default: this one)."
    ),
    log: Path | None = typer.Option(
        None, "--log", help="Server log (default: <cache dir>/llm-server-PORT.log)."
    ),
    detach: bool = typer.Option(
        False,
        "--detach",
        help="Leave the server running in the background and exit (stop it with: kill PID).",
    ),
    timeout: float = typer.Option(
        300.0, "--timeout", help="Seconds to wait for the server to answer."
    ),
    as_json: JSONOutput = False,
) -> None:
    """Serve a GGUF model on 127.0.0.1 with llama.cpp's OpenAI-compatible server and print the
    settings
    to use it. Runs until Ctrl-C unless --detach."""
    from chemground.llm.local import (
        EXTRA_HINT,
        LocalModelError,
        ServerSettings,
        free_port,
        has_llama_cpp,
        read_gguf_info,
        start_server,
        stop_server,
    )
    from chemground.settings import get_settings

    path = _model_path(model)
    info = read_gguf_info(path)
    port = port or free_port()
    name = alias or path.name.removesuffix(".gguf")
    server = ServerSettings(
        model=path,
        alias=name,
        port=port,
        threads=threads,
        n_ctx=n_ctx,
        python=python or sys.executable,
    )
    log = log or get_settings().cache_dir / f"llm-server-{port}.log"
    err_console.print(f"model: {info.describe()}", highlight=False, markup=False)
    if not has_llama_cpp(server.python):
        raise LocalModelError(f"{server.python} cannot import llama_cpp.server: {EXTRA_HINT}")
    err_console.print(f"starting: {shlex.join(server.command())}", highlight=False, markup=False)
    process = start_server(server, log, timeout_s=timeout)
    env = server.environment()
    if as_json:
        print_json(
            {
                "pid": process.pid,
                "base_url": server.base_url,
                "model": name,
                "log": str(log),
                "gguf": {
                    "name": info.name,
                    "architecture": info.architecture,
                    "version": info.version,
                },
                "env": env,
            }
        )
    else:
        console.print(
            f"llama.cpp server (pid {process.pid}) answers at {server.base_url}; log: {log}",
            highlight=False,
            markup=False,
        )
        console.print("Use it with:", highlight=False)
        for key, value in env.items():
            console.print(f"  export {key}={shlex.quote(value)}", highlight=False, markup=False)
        console.print(
            f"or per command: --llm-base-url {server.base_url} --llm-model {shlex.quote(name)}",
            highlight=False,
            markup=False,
        )
    if detach:
        return
    try:
        err_console.print("Ctrl-C stops the server.", highlight=False)
        process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        stop_server(process)


@app.command("info")
def info_command(
    model: Path = typer.Argument(..., help="A GGUF file."),
    as_json: JSONOutput = False,
) -> None:
    """Check a GGUF file's header and show its metadata (name, architecture, context length)."""
    from chemground.llm.local import read_gguf_info

    info = read_gguf_info(model)
    scalar = {k: v for k, v in info.metadata.items() if "chat_template" not in k}
    if as_json:
        print_json(
            {
                "path": str(info.path),
                "version": info.version,
                "tensors": info.tensor_count,
                "size_bytes": info.size_bytes,
                "metadata": scalar,
            }
        )
        return
    console.print(info.describe(), highlight=False, markup=False)
