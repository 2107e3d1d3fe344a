"""A throwaway PostgreSQL cluster with the RDKit cartridge, for the KB contract tests.

``initdb`` + ``pg_ctl`` in a temporary directory, listening on a free loopback port only,
trust authentication for the ``postgres`` superuser, durability off (fsync, synchronous
commit, full-page writes: a test cluster is never recovered). One cluster per test session;
each test gets its own database, copied from a template that already has the cartridge.

initdb refuses to run as root: as root (CI) the cluster runs as the unprivileged ``postgres``
user the Debian package creates (``runuser``). Tests skip, saying why, only where the server
binaries or the cartridge are not installed (``.ci/run`` installs both).

Debian bookworm's cartridge (postgresql-15-rdkit 202209.3) cannot be created on PostgreSQL
15.6 and later ("commutator operator = is already the commutator of operator ="; fixed
upstream in RDKit 2024.03 by dropping the COMMUTATOR/NEGATOR of ``mol @= mol``). When
``CREATE EXTENSION`` fails that way, the fixture loads the package's own extension script
with those two clauses removed into the template database, without touching system files.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
INSTALL_HINT = (
    "apt-get install postgresql-15 postgresql-15-rdkit (see README, 'The KB on PostgreSQL')"
)


def find_bin_dir() -> Path | None:
    """The directory with initdb and pg_ctl: $PG_BINDIR, PATH, or Debian's versioned directory."""
    explicit = os.environ.get("PG_BINDIR")
    candidates = [Path(explicit)] if explicit else []
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(
            Path(on_path).resolve().parent
        )  # /usr/local/bin/initdb -> the versioned dir
    candidates += BIN_DIRS
    for directory in candidates:
        if (directory / "initdb").exists() and (directory / "pg_ctl").exists():
            return directory
    return None


def extension_dir(bin_dir: Path) -> Path:
    """Where the server looks for extensions (Debian: /usr/share/postgresql/<major>/extension)."""
    major = bin_dir.parent.name
    return Path("/usr/share/postgresql") / major / "extension"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def patched_cartridge_script(ext_dir: Path) -> str:
    """The rdkit extension script, loadable as plain SQL, without the clauses newer
    PostgreSQL 15 minors refuse (see the module docstring)."""
    control = (ext_dir / "rdkit.control").read_text()
    version = re.search(r"default_version\s*=\s*'([^']+)'", control).group(1)  # type: ignore[union-attr]
    script = (ext_dir / f"rdkit--{version}.sql").read_text()
    script = script.replace("MODULE_PATHNAME", "$libdir/rdkit")
    script = "\n".join(line for line in script.splitlines() if not line.startswith("\\echo"))

    def fix(block: re.Match) -> str:
        return re.sub(r"\s*(COMMUTATOR|NEGATOR) = '[^']*',", "", block.group(0))

    return re.sub(r"CREATE OPERATOR @= \([^;]*?\);", fix, script)


@dataclass
class PostgresServer:
    """A running throwaway cluster; ``new_database()`` gives a fresh database URL."""

    root: Path
    bin_dir: Path
    port: int
    run_as: str | None
    template: str = "chemground_template"

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def connect(self, database: str = "postgres"):
        import psycopg

        return psycopg.connect(self.url(database), autocommit=True)

    def new_database(self, template: str | None = None) -> str:
        """Create an empty database (with the cartridge, or a copy of ``template``); its URL."""
        name = "kb_" + uuid.uuid4().hex[:12]
        with self.connect() as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template or self.template}"')
        return self.url(name)

    def mark_template(self, url: str) -> str:
        """Let ``url``'s database serve as a template for ``new_database``; its name."""
        name = url.rsplit("/", 1)[1]
        with self.connect() as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            conn.execute(f'ALTER DATABASE "{name}" WITH IS_TEMPLATE true')
        return name

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        command = [str(self.bin_dir / args[0]), *args[1:]]
        if self.run_as:
            command = ["runuser", "-u", self.run_as, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    def start(self) -> None:
        data = self.root / "data"
        init = self._run(
            "initdb",
            "-D",
            str(data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale=C",
        )
        if init.returncode:
            raise RuntimeError(f"initdb failed: {init.stderr or init.stdout}")
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=50 "
            "-c shared_buffers=128MB"
        )
        started = self._run(
            "pg_ctl",
            "-D",
            str(data),
            "-o",
            options,
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        if started.returncode:
            log = (self.root / "server.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"pg_ctl start failed: {started.stderr or started.stdout}\n{log}")
        self._make_template()

    def _make_template(self) -> None:
        import psycopg

        with self.connect() as conn:
            conn.execute(f'CREATE DATABASE "{self.template}"')
        with self.connect(self.template) as conn:
            try:
                conn.execute("CREATE EXTENSION rdkit")
            except psycopg.Error as error:
                if "commutator" not in str(error) and "negator" not in str(error):
                    raise
                conn.execute(patched_cartridge_script(extension_dir(self.bin_dir)))
        with self.connect() as conn:
            conn.execute(f'ALTER DATABASE "{self.template}" WITH IS_TEMPLATE true')

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


def start_server() -> PostgresServer:
    """Start a cluster, or raise LookupError saying what is missing."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise LookupError(f"PostgreSQL server binaries (initdb, pg_ctl) not found; {INSTALL_HINT}")
    if not (extension_dir(bin_dir) / "rdkit.control").exists():
        raise LookupError(
            f"the RDKit cartridge is not installed in {extension_dir(bin_dir)}; {INSTALL_HINT}"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        raise LookupError("psycopg is not installed: pip install -e '.[postgres]'") from None
    run_as = None
    root = Path(tempfile.mkdtemp(prefix="chemground-pg-"))
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            raise LookupError(
                "running as root and there is no 'postgres' user to run the cluster as"
            ) from None
        os.chown(root, user.pw_uid, user.pw_gid)
        run_as = "postgres"
    server = PostgresServer(root, bin_dir, free_port(), run_as)
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    return server
