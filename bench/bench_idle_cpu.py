"""A console left open: CPU used by the console process alone (``/proc/<pid>/stat`` utime + stime)
over a window of ``LABDECK_BENCH_IDLE_SECONDS`` seconds (default 60), real executable in an 80x24
pty (real terminal, not headless), against a separately started ``labdeck serve --clock manual``.

Scenarios (run at the same time, each console in its own process and pty, so the benchmark takes
one window, not three; each figure is that process's own CPU time):

1. projects screen, nothing changing: the console starts, lists the projects, and is left alone.
2. jobs screen with 2 running jobs: ``:jobs <project>`` typed through the pty for the seed-42
   project that has two running jobs. The simulator's clock is manual, so the two jobs stay
   running for the whole window and every poll of the console gets the same answer: what is
   measured is the cost of watching (polls every 2 s while jobs run, timers, repaints), not of
   showing new data. (With the real clock the jobs would finish or move on within the window and
   the figure would mix in legitimate updates.)
3. the on-call board (``0``): the starred projects' pipelines kept current by the shared poller
   (activity checks, reads of projects with running jobs), nothing changing on the server; and
   ``board300``: 300 watched projects on a second server whose every answer takes 100 ms.
4. (no target) ``labdeck --demo`` on the projects screen: the simulator (a process the console
   starts) runs its real clock, so its CI keeps moving and the console follows it; the
   simulator's own CPU is reported beside the console's.
5. issue 21's boards: ``monorepo300`` (spec dialect) and ``monorepo300-gitlab``: 300 watched
   projects on a 100 ms server, 30 of them running 1,500-job pipelines (set up as in
   ``bench_board.py --scenario monorepo``), nothing else changing; ``group2000``:
   ``labdeck serve --projects 2000`` (100 ms answers), the board on ``:board group:<the biggest
   top-level group>``. Their window starts once the board's header no longer says ``loading``
   (the group: once the board is complete) and the screen is quiet; the simulator's own CPU
   over the window is reported beside the console's.
6. the floor: a bare Textual app (five labels and a footer, no timers) left alone in the same
   kind of pty: what any Textual program costs while nothing happens.

Also reported: bytes the console wrote to the terminal during the window (a repaint of an
unchanged screen still costs output), and each process's CPU in the 5 s after start-up.
Targets: projects ≤ 0.5 % of one core, jobs ≤ 2 %, every board ≤ 2 %.
Run standalone: ``LABDECK_BENCH_IDLE_SECONDS=10 .venv/bin/python bench/bench_idle_cpu.py``;
``LABDECK_BENCH_IDLE_ONLY=board300,floor`` runs only those scenarios (the simulators of the
scenarios left out are not started).
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _board_big
from _console_env import LABDECK, PYTHON, Server, console_env, row_markers, temp_dir, watching_all
from _pty import PtyProgram, cpu_seconds, strip_escapes
from _report import record

SETTLE_SECONDS = 5.0
QUIET_FIRST = {"board300": 60.0, "monorepo300": 240.0, "monorepo300-gitlab": 240.0, "group2000": 420.0}
"""Scenarios with more to read before they are idle (300 projects' first reads at the poller's
request budget: 20–40 s, longer when the machine is busy): before settling, wait until the screen
has not changed for :data:`QUIET_SECONDS` (at most this long), so that the window measures the
board once it is up to date, not its loading."""
QUIET_SECONDS = 3.0
"""After the screen is up: let start-up work finish (the second page, who-am-I, the GC freeze)."""
COMPLETE_FIRST = ("monorepo300", "monorepo300-gitlab", "group2000")
"""Scenarios whose window starts only once the board's header says neither ``loading…`` nor
``loading N`` (every watched project read once), within their :data:`QUIET_FIRST` limit."""
COMPLETE = re.compile(r"(nothing failing|\d+ failed) · \d+ running · \d+ projects watched")
"""The board's header once a round is complete (``board.py``: ``_update_context``)."""
TARGETS = {"projects": 0.5, "jobs": 2.0, "board": 2.0, "board300": 2.0, "monorepo300": 2.0,
           "monorepo300-gitlab": 2.0, "group2000": 2.0}
BIG = 2000
"""Projects of the ``group2000`` scenario's simulator."""
WATCHED = 300
"""Projects on the board of the ``board300`` scenario (the on-call issue's figure), on a server
answering in 100 ms."""
FLOOR_APP = """
from textual.app import App
from textual.widgets import Footer, Label

class Floor(App[None]):
    BINDINGS = [("ctrl+q", "quit", "Quit")]

    def compose(self):
        for row in range(5):
            yield Label(f"floor row {row}")
        yield Footer()

Floor().run()
"""


@dataclass
class Outcome:
    """One scenario's figures."""

    name: str
    cpu_percent: float = float("nan")
    settle_percent: float = float("nan")
    bytes_per_second: float = float("nan")
    children_percent: float | None = None
    """CPU of the processes the console started (``--demo``: its simulator), when there are any."""
    loaded_after: float = 0.0
    """Seconds until the screen was quiet (scenarios of :data:`QUIET_FIRST`)."""
    server_percent: float | None = None
    """CPU of the scenario's own simulator over the window (issue 21's boards)."""
    header: str = ""
    """The board's header when the window started (scenarios of :data:`COMPLETE_FIRST`)."""
    error: str = ""
    notes: list[str] = field(default_factory=list)


def _wait_text(program: PtyProgram, needles: list[str], timeout: float, since: int = 0) -> None:
    def found(output: bytes) -> bool:
        text = strip_escapes(output[since:])
        return all(needle in text for needle in needles)

    program.wait_for(found, timeout)


def _board_complete(program: PtyProgram, since: int, timeout: float) -> str:
    """Wait until the board's header, as last drawn, is the complete one (no ``loading``
    after it); returns that header."""
    def complete(output: bytes) -> bool:
        text = strip_escapes(output[since:])
        found = list(COMPLETE.finditer(text))
        return bool(found) and "loading" not in text[found[-1].start():]

    program.wait_for(complete, timeout)
    return list(COMPLETE.finditer(strip_escapes(bytes(program.output[since:]))))[-1].group(0)


def _until_quiet(program: PtyProgram, limit: float) -> float:
    """Read until the terminal output stops for :data:`QUIET_SECONDS` (or ``limit`` seconds
    pass); returns the seconds it took."""
    began = time.perf_counter()
    while time.perf_counter() - began < limit:
        before = len(program.output)
        program.drain(QUIET_SECONDS)
        if len(program.output) == before:
            break
    return time.perf_counter() - began


def scenario(name: str, argv: list[str], env: dict[str, str], ready: list[str], window: float,
             outcome: Outcome, keys: list[tuple[str, list[str]]], *, warm_up: bool = False,
             loaded: threading.Event | None = None, server_pid: int | None = None) -> None:
    """Start the program, wait for the ``ready`` texts, type ``keys`` (each followed by the texts to
    wait for), settle, measure (``warm_up``: no settling, the figures are thrown away; ``loaded`` is
    set once the screen is up, quiet for the scenarios of :data:`QUIET_FIRST`, or on failure)."""
    try:
        with PtyProgram(argv, env=env, columns=80, rows=24) as program:
            _wait_text(program, ready, timeout=60)
            mark = 0
            for typed, expect in keys:
                mark = len(program.output)
                program.send(typed)
                if expect:
                    _wait_text(program, expect, timeout=30, since=mark)
            if name in QUIET_FIRST and not warm_up:
                began = time.perf_counter()
                if name in COMPLETE_FIRST:
                    outcome.header = _board_complete(program, mark, QUIET_FIRST[name])
                outcome.loaded_after = _until_quiet(program, QUIET_FIRST[name]) + time.perf_counter() - began
            if loaded is not None:
                loaded.set()
            started_cpu = cpu_seconds(program.pid)
            settle = 0.1 if warm_up else SETTLE_SECONDS
            program.drain(settle)
            settled_cpu = cpu_seconds(program.pid)
            children_settled = _children_cpu(program.pid)
            outcome.settle_percent = (settled_cpu - started_cpu) / settle * 100
            written = len(program.output)
            server_cpu = cpu_seconds(server_pid) if server_pid is not None else 0.0
            began = time.perf_counter()
            program.drain(window)
            elapsed = time.perf_counter() - began
            used = cpu_seconds(program.pid) - settled_cpu
            if server_pid is not None:
                outcome.server_percent = (cpu_seconds(server_pid) - server_cpu) / elapsed * 100
            outcome.cpu_percent = used / elapsed * 100
            if children_settled:
                outcome.children_percent = (sum(_children_cpu(program.pid).values()) -
                                            sum(children_settled.values())) / elapsed * 100
            outcome.bytes_per_second = (len(program.output) - written) / elapsed
            program.send("\x11")  # ctrl+q
            program.wait_exit(10)
    except Exception as error:  # reported in the table, the other scenarios go on
        outcome.error = f"{type(error).__name__}: {error}"
    finally:
        if loaded is not None:
            loaded.set()


def main() -> int:
    window = float(os.environ.get("LABDECK_BENCH_IDLE_SECONDS", "60"))
    only = {name for name in os.environ.get("LABDECK_BENCH_IDLE_ONLY", "").split(",") if name}

    def wanted(name: str) -> bool:
        return not only or name in only

    with temp_dir("labdeck-bench-idle-") as tmp, Server("--clock", "manual") as server, ExitStack() as stack:
        base = Path(tmp)
        paths = server.project_paths()
        markers = row_markers(paths)
        project = _project_with_running_jobs(server, 2)
        jobs = server.get(f"projects/{project['id']}/jobs?per_page=100")
        assert isinstance(jobs, list)
        running = [str(job["name"]) for job in jobs if job["status"] == "running"]
        cache = {"PYTHONPYCACHEPREFIX": str(base / "pycache")}
        floor_app = base / "floor_app.py"
        floor_app.write_text(FLOOR_APP, encoding="utf-8")
        ready: dict[str, list[str]] = {"projects": markers[:3], "jobs": markers[:3], "board": markers[:3],
                                       "demo": markers[:3], "floor": ["floor row 4"]}
        Run = tuple[list[str], dict[str, str], list[tuple[str, list[str]]]]
        runs: dict[str, Run] = {
            "projects": ([LABDECK], console_env(base / "home-projects", url=server.url, extra=cache), []),
            "jobs": ([LABDECK], console_env(base / "home-jobs", url=server.url, extra=cache),
                     [(":", []), (f"jobs {project['path_with_namespace']}\r", ["running", "Jobs"])]),
            "board": ([LABDECK], console_env(base / "home-board", url=server.url, extra=cache),
                      [("0", ["Board", "watched"])]),
        }
        servers: dict[str, int] = {}
        """The simulator of each of issue 21's boards (its process id, for its CPU)."""
        if wanted("board300"):
            many = stack.enter_context(Server("--clock", "manual", "--projects", str(WATCHED), "--faults", "latency=100"))
            ready["board300"] = [many.project_paths()[0][:16]]
            runs["board300"] = ([LABDECK], watching_all(many, base / "home-board300", cache, at_least=WATCHED),
                                [("0", ["Board", "watched"])])
        for name, dialect in (("monorepo300", "spec"), ("monorepo300-gitlab", "gitlab")):
            if wanted(name):
                # As bench_board.py's monorepo scenario: 30 of the 300 projects run a 1,500-job pipeline.
                monorepo = stack.enter_context(_MonorepoServer(dialect))
                servers[name] = monorepo.pid
                ready[name] = [monorepo.project_paths()[0][:16]]
                runs[name] = ([LABDECK], watching_all(monorepo, base / f"home-{name}", cache, at_least=WATCHED),
                              [("0", ["Board", "watched"])])
        if wanted("group2000"):
            big = stack.enter_context(Server("--clock", "manual", "--projects", str(BIG), "--faults", "latency=100"))
            servers["group2000"] = big.pid
            group, size = _biggest_group(big)
            ready["group2000"] = [big.project_paths()[0][:16]]
            runs["group2000"] = ([LABDECK], console_env(base / "home-group2000", url=big.url, extra=cache),
                                 [(":", []), (f"board group:{group}\r", ["Board", "watched"])])
        runs["demo"] = ([LABDECK, "--demo"], console_env(base / "home-demo", extra=cache), [])
        runs["floor"] = ([PYTHON, str(floor_app)], console_env(base / "home-floor", extra=cache), [])
        runs = {name: run for name, run in runs.items() if wanted(name)}
        outcomes = {name: Outcome(name) for name in runs}
        loaded = {name: threading.Event() for name in runs}
        threads = {name: threading.Thread(target=scenario, args=(name, argv, env, ready[name], window, outcomes[name],
                                                                   keys), kwargs={"loaded": loaded[name],
                                                                           "server_pid": servers.get(name)})
                   for name, (argv, env, keys) in runs.items()}
        # The big board first: 300 projects' first reads on a busy machine (six programs starting)
        # would take minutes. The others' warm-up starts (one each, not measured: they write the
        # bytecode cache) overlap its loading; once its screen is quiet, the others start and every
        # window overlaps.
        for name in QUIET_FIRST:
            if name in threads:
                threads[name].start()
        for name, (argv, env, _keys) in runs.items():
            if name not in QUIET_FIRST:
                scenario(name, argv, env, ready[name], 0.1, Outcome(name), [], warm_up=True)
        for name in QUIET_FIRST:
            if name in threads:
                loaded[name].wait(QUIET_FIRST[name] + 60)
        for name, thread in threads.items():
            if name not in QUIET_FIRST:
                thread.start()
        for thread in threads.values():
            thread.join()

    print(f"idle CPU of the console process (real pty 80x24, real executable), {window:.0f} s window "
          f"after {SETTLE_SECONDS:.0f} s of settling ({', '.join(QUIET_FIRST)}: once the screen was quiet for "
          f"{QUIET_SECONDS:.0f} s); the others started once it was; every window overlapped:")
    if "group2000" in runs:
        print(f"  group2000: {BIG} projects, 100 ms answers, the board on group:{group} ({size} projects)")
    print(f"  jobs scenario: project {project['path_with_namespace']} (id {project['id']}), running jobs: "
          f"{', '.join(running)}")
    labels = {"projects": "idle CPU, projects screen, nothing changing",
              "jobs": "idle CPU, jobs screen, 2 running jobs",
              "board": "idle CPU, the board (0), starred projects, nothing changing",
              "board300": f"idle CPU, the board, {WATCHED} watched projects, 100 ms answers",
              "monorepo300": f"idle CPU, the board, {WATCHED} watched, {_board_big.HOT} running 1,500-job pipelines, "
                             "100 ms, spec dialect",
              "monorepo300-gitlab": f"idle CPU, the board, {WATCHED} watched, {_board_big.HOT} running 1,500-job "
                                    "pipelines, 100 ms, gitlab dialect",
              "group2000": f"idle CPU, the board on a {BIG}-project instance's biggest group, once complete",
              "demo": "idle CPU, --demo projects screen (the console; its live simulator runs apart)",
              "floor": "floor: idle CPU of a bare Textual app"}
    width = max([9, *(len(name) for name in outcomes)])
    for name, outcome in outcomes.items():
        target = TARGETS.get(name)
        if outcome.error:
            print(f"  {name:<{width}} FAILED: {outcome.error}")
            record(labels[name], f"≤ {target} %" if target else "—", "failed", False if target else None,
                   how="pty", note=outcome.error[:80])
            continue
        verdict = "" if target is None else (
            f"   (target ≤ {target} %: {'ok' if outcome.cpu_percent <= target else 'MISSED'})")
        print(f"  {name:<{width}} {outcome.cpu_percent:5.2f} % of one core; terminal output "
              f"{outcome.bytes_per_second:,.0f} B/s; "
              f"{f'loaded (quiet) after {outcome.loaded_after:.0f} s, ' if outcome.loaded_after else ''}"
              f"first {SETTLE_SECONDS:.0f} s after that "
              f"{outcome.settle_percent:.1f} %{verdict}")
        if outcome.children_percent is not None:
            print(f"  {'':<{width}} {outcome.children_percent:5.2f} % in the simulator process it started")
        if outcome.server_percent is not None:
            print(f"  {'':<{width}} {outcome.server_percent:5.2f} % in its simulator over the window; header then: "
                  f"{outcome.header}")
        record(labels[name], f"≤ {target} %" if target else "—", f"{outcome.cpu_percent:.2f} %",
               (outcome.cpu_percent <= target) if target is not None else None, how="pty",
               note=f"{window:.0f} s, {outcome.bytes_per_second:,.0f} B/s to the terminal"
               + (f"; its simulator process {outcome.children_percent:.2f} %"
                  if outcome.children_percent is not None else "")
               + (f"; simulator {outcome.server_percent:.2f} %" if outcome.server_percent is not None else ""))
    return 0


def _children_cpu(pid: int) -> dict[int, float]:
    """CPU seconds so far of each process whose parent is ``pid``."""
    found: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                if int(stat.read().rsplit(b")", 1)[1].split()[1]) == pid:
                    found[int(entry)] = cpu_seconds(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


class _MonorepoServer(Server):
    """bench_board.py's monorepo simulator (300 projects, 30 running 1,500-job pipelines, 100 ms
    answers) in its own process, used as a :class:`Server`."""

    def __init__(self, dialect: str) -> None:
        super().__init__()
        self.dialect = dialect

    def __enter__(self) -> _MonorepoServer:
        self._sim, self._control, info = _board_big.start_simulator(self.dialect, WATCHED, _board_big.HOT)
        self.url = str(info["base_url"])
        return self

    @property
    def pid(self) -> int:
        """The simulator's process id."""
        return int(self._sim.pid)

    def __exit__(self, *exc: object) -> None:
        try:
            self._control.send("stop")
        except OSError:
            pass
        self._sim.join(10)
        if self._sim.is_alive():
            self._sim.kill()


def _biggest_group(server: Server) -> tuple[str, int]:
    """The top-level group with the most projects, and how many."""
    counts: dict[str, int] = {}
    page = 1
    while True:
        projects: Any = server.get(f"projects?per_page=100&page={page}&order_by=id&sort=asc")
        for found in projects:
            top = str(found["path_with_namespace"]).split("/")[0]
            counts[top] = counts.get(top, 0) + 1
        if len(projects) < 100:
            break
        page += 1
    group = max(counts, key=lambda name: counts[name])
    return group, counts[group]


def _project_with_running_jobs(server: Server, wanted: int) -> dict[str, object]:
    projects = server.get("projects?per_page=100&order_by=id&sort=asc")
    assert isinstance(projects, list)
    for project in projects:
        jobs = server.get(f"projects/{project['id']}/jobs?per_page=100")
        assert isinstance(jobs, list)
        if sum(job["status"] == "running" for job in jobs) == wanted:
            return dict(project)
    raise RuntimeError(f"no project with exactly {wanted} running jobs in the simulator's data set")


if __name__ == "__main__":
    raise SystemExit(main())
