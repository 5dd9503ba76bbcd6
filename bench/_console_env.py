"""What the real-terminal benchmarks share: the ``labdeck`` executable, a separately started
``labdeck serve``, a clean environment for the console, and the project paths it will list.

The console runs with a throw-away home (no config file, no saved state, no keyring entry) and
the token in ``LABDECK_TOKEN`` (the token chain's first source after stdin), so nothing on the
machine running the benchmark changes what is measured.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = Path(os.environ.get("LABDECK_BENCH_SRC") or ROOT / "src")
"""labdeck's source under test (``LABDECK_BENCH_SRC`` picks another checkout's ``src``)."""
BIN = Path(sys.executable).parent
LABDECK = str(BIN / "labdeck")
PYTHON = sys.executable
ADMIN_TOKEN = "labdeck-demo-admin-token"  # the simulator's documented demo token, not a secret

_DROP = ("LABDECK_", "GITLAB_", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONPATH",
         "PYTHONPROFILEIMPORTTIME", "XDG_", "NO_COLOR", "TEXTUAL")


@cache
def needs_source_path() -> bool:
    """Whether ``SOURCE`` must be put on ``PYTHONPATH`` for the venv's ``labdeck`` to run it.

    Not whenever ``SOURCE`` differs from this checkout's ``src``: the venv's editable install
    points at one checkout, so benchmarks run from another git worktree (``LABDECK_BENCH_SRC``
    set to that worktree's ``src`` or not) would otherwise time the install's code, not theirs.
    Asked once, before any timing, of a Python started without ``PYTHONPATH``."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    answer = subprocess.run([PYTHON, "-c", "import labdeck, pathlib; print(pathlib.Path(labdeck.__file__).parent.parent)"],
                            env=env, cwd="/", capture_output=True, text=True, check=False)
    imported = answer.stdout.strip()
    return answer.returncode != 0 or Path(imported).resolve() != SOURCE.resolve()


def console_env(home: Path, *, url: str | None = None, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a console under test: clean home and XDG folders, a plain xterm."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(_DROP)}
    for sub in ("config", "state", "cache", "data"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_STATE_HOME=str(home / "state"),
               XDG_CACHE_HOME=str(home / "cache"), XDG_DATA_HOME=str(home / "data"),
               TERM="xterm-256color", COLORTERM="truecolor", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    if url is not None:
        env.update(LABDECK_URL=url, LABDECK_TOKEN=ADMIN_TOKEN)
    if needs_source_path():
        env["PYTHONPATH"] = str(SOURCE)
    env.update(extra or {})
    return env


class Server:
    """``labdeck serve --port 0 [options]`` in its own process (the console's figures stay its own)."""

    def __init__(self, *options: str) -> None:
        self.options = list(options)

    def __enter__(self) -> Server:
        env = {key: value for key, value in os.environ.items() if not key.startswith("LABDECK_")}
        if needs_source_path():
            env["PYTHONPATH"] = str(SOURCE)
        self._process = subprocess.Popen([LABDECK, "serve", "--port", "0", *self.options], env=env,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if "listening on" not in line:
            self._process.kill()
            raise RuntimeError(f"labdeck serve did not start: {line!r}")
        self.url = line.split("listening on", 1)[1].split()[0]
        return self

    @property
    def pid(self) -> int:
        """The simulator's process id (for its CPU time)."""
        return self._process.pid

    def get(self, path: str) -> object:
        """GET ``/api/v4/<path>`` as the demo admin (JSON)."""
        request = urllib.request.Request(f"{self.url}/api/v4/{path}", headers={"PRIVATE-TOKEN": ADMIN_TOKEN})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)

    def post(self, path: str, body: dict[str, object] | None = None) -> object:
        """POST to the simulator (``path`` from the root, e.g. ``/-/sim/clock/advance?seconds=5``)."""
        data = json.dumps(body or {}).encode()
        request = urllib.request.Request(f"{self.url}{path}", data=data, method="POST", headers={
            "PRIVATE-TOKEN": ADMIN_TOKEN, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer)

    def project_paths(self) -> list[str]:
        """Every project path, most recently active first (the console's default order)."""
        projects = self.get("projects?order_by=last_activity_at&per_page=100")
        assert isinstance(projects, list)
        return [str(project["path_with_namespace"]) for project in projects]

    def __exit__(self, *exc: object) -> None:
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def watching_all(server: Server, home: Path, extra: dict[str, str] | None = None, *, at_least: int = 1) -> dict[str, str]:
    """A console environment (see :func:`console_env`) whose state file already watches every
    project of ``server`` on the board (as ``w`` on each would have left it)."""
    from labdeck.base.statefile import StateStore
    from labdeck.watch.watched import WatchStore

    env = console_env(home, url=server.url, extra=extra)
    store = WatchStore(StateStore(home / "state" / "labdeck" / "state.json"), server.url)
    page = 1
    while True:
        projects = server.get(f"projects?per_page=100&page={page}&order_by=id&sort=asc")
        assert isinstance(projects, list)
        for project in projects:
            store.add(int(project["id"]), str(project["path_with_namespace"]))
        if len(projects) < 100:
            break
        page += 1
    assert len(store.projects) >= at_least, len(store.projects)
    return env


def row_markers(paths: list[str], width: int = 16) -> list[str]:
    """Prefixes that identify each path even when an 80-column table cuts it with an ellipsis
    (the path column never gets fewer than 16 cells)."""
    markers = [path[:width] for path in paths]
    if len(set(markers)) != len(markers):
        raise ValueError("project paths are not told apart by their first characters")
    return markers


def source_copy(parent: Path) -> Path:
    """A copy of ``src/labdeck`` without any ``__pycache__`` (plus the themes folder beside it, as in
    the checkout): with ``PYTHONPATH`` pointing at it and ``PYTHONDONTWRITEBYTECODE=1``, labdeck's
    own modules are compiled at every start, as on a host that sets that variable."""
    target = parent / "src"
    shutil.copytree(SOURCE / "labdeck", target / "labdeck", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    os.symlink(SOURCE.parent / "themes", parent / "themes")
    return target


def temp_dir(prefix: str) -> tempfile.TemporaryDirectory[str]:
    """A temporary folder removed at the end of the benchmark."""
    return tempfile.TemporaryDirectory(prefix=prefix)
