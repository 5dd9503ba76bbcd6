"""End to end: the real console runs under a pseudo-terminal and follows a job whose log is the
hostile corpus (tests/support/hostile_corpus.py), some sequences split across reads. Every byte the
console writes to the terminal is captured; no sequence from the log may reach it.

Textual itself writes some mode sequences (alternate screen, mouse, bracketed paste) a fixed
number of times, so the same console is run once with a harmless log as the baseline: the hostile
run may not write any "dangerous" sequence more often than the baseline did.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from labdeck.sim.server import SimServer
from tests.support.hostile_corpus import HOSTILE, SPLIT_SEQUENCES
from tests.ui.jobs_support import control, create_pipeline

pytestmark = pytest.mark.pty

CHILD = r"""
import asyncio, os
from pathlib import Path
import labdeck.ui.app
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.ui.app import LabdeckApp
from labdeck.ui.screens.jobs.trace import TraceScreen

JOB = int(os.environ["PTY_JOB_ID"])


class Probe(LabdeckApp):
    CSS_PATH = str(Path(labdeck.ui.app.__file__).with_name("app.tcss"))

    async def on_mount(self) -> None:  # runs after LabdeckApp.on_mount (Textual walks the MRO)
        self.run_worker(self.drive(), exit_on_error=False)

    async def drive(self) -> None:
        job = await self.client.jobs.get(7, JOB)
        screen = TraceScreen(7, "platform/audit-log", job)
        screen.follow_min_interval = 0.05
        screen.follow_max_interval = 0.1
        await self.push_screen(screen)
        open(os.environ["PTY_READY"], "w").close()
        while not screen.finished_reading:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        screen.action_toggle_raw()
        await asyncio.sleep(0.2)
        screen.action_toggle_raw()
        await screen.view.run_action("fold_all")
        await asyncio.sleep(0.2)
        self.exit(0)


session = Session(os.environ["PTY_SIM_URL"], Secret(os.environ["PTY_TOKEN"]), profile="pty")
Probe(session).run()
"""

# Sequence kinds a log must never make the terminal receive (Textual's own SGR and cursor
# positioning are fine; these are modes, queries, strings and resets).
DANGEROUS = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"      # OSC (titles, links, clipboard, colours)
    r"|\x1b[P_^X][^\x1b]*(?:\x1b\\)?"          # DCS, APC, PM, SOS
    r"|\x1b\[\??[0-9;]*[hlJtnc]"                # modes (DECSET/DECRST), erase display, window ops, queries
    r"|\x1b\[[0-9;]*[su]"                       # save/restore cursor
    r"|\x1b[c78=>#()]"                          # RIS, DECSC/DECRC, keypad, charsets
)
C1_BIDI = re.compile("[\x80-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\ufeff]")
C0 = re.compile("[\x00-\x06\x0e-\x1a\x1c-\x1f\x7f]")  # BEL (\x07) is checked separately


def _run_console(server: SimServer, token: str, job_id: int, feed: Callable[[], None],
                 workdir: Path, name: str) -> bytes:
    """Run the console in a pty until it exits; ``feed`` runs once it shows the log."""
    script = workdir / "console_probe.py"
    script.write_text(CHILD)  # a file, not -c: Textual resolves CSS paths from source files
    ready = str(workdir / f"ready-{name}")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("LABDECK_", "GITLAB_"))}
    env.update(PTY_SIM_URL=server.base_url, PTY_TOKEN=token, PTY_JOB_ID=str(job_id), PTY_READY=ready,
               TERM="xterm-256color", COLORTERM="truecolor")
    env.pop("NO_COLOR", None)
    pid, fd = pty.fork()
    if pid == 0:  # child
        os.execvpe(sys.executable, [sys.executable, str(script)], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 90, 160, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    captured = bytearray()
    feeder: threading.Thread | None = None
    deadline = time.monotonic() + 90
    try:
        while time.monotonic() < deadline:
            if feeder is None and os.path.exists(ready):
                # Feed from a thread: the pty must keep being drained meanwhile.
                feeder = threading.Thread(target=feed, daemon=True)
                feeder.start()
            readable, _, _ = select.select([fd], [], [], 0.05)
            if readable:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                captured += chunk
                # Answer the terminal queries Textual sends at start, as a terminal would.
                if b"\x1b[c" in chunk or b"\x1b[>c" in chunk:
                    os.write(fd, b"\x1b[?62;c")
        else:
            raise AssertionError("the console did not finish in time")
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
        if feeder is not None:
            feeder.join(timeout=10)
    return bytes(captured)


def _dangerous(output: bytes) -> Counter[str]:
    return Counter(DANGEROUS.findall(output.decode("utf-8", "replace")))


def _hostile_log() -> list[bytes]:
    """The corpus as chunks: whole samples in one chunk, split sequences one piece per chunk."""
    chunks = ["".join(f"=== {name} ===\n{raw}\n" for name, raw, _ in HOSTILE).encode()]
    for pieces, _ in SPLIT_SEQUENCES:
        chunks.append(b"=== split ===\n")
        chunks.extend(piece.encode() for piece in pieces)
        chunks.append(b"\n")
    return chunks


def test_no_sequence_from_the_log_reaches_the_terminal(sim_factory: Callable[..., SimServer],
                                                       tokens: dict[str, str], tmp_path: Path) -> None:
    server = sim_factory()

    def make_job() -> int:
        pipeline = asyncio.run(create_pipeline(server, [{"name": "build", "jobs": [
            {"name": "hostile", "duration": None, "generate_trace": False}]}]))
        asyncio.run(control(server, "POST", "/clock/advance?seconds=5"))
        job_id: int = pipeline["jobs"][0]["id"]
        return job_id

    def runner(job_id: int, chunks: list[bytes]) -> Callable[[], None]:
        def feed() -> None:
            async def go() -> None:
                async with httpx.AsyncClient(base_url=server.base_url,
                                             headers={"PRIVATE-TOKEN": tokens["admin"]}) as http:
                    for chunk in [*chunks, b"=== end of log ===\n"]:
                        answer = await http.post(f"/-/sim/projects/7/jobs/{job_id}/trace", content=chunk)
                        answer.raise_for_status()
                        await asyncio.sleep(0.03)  # the console reads in between: sequences arrive split
                    await asyncio.sleep(0.2)
                    (await http.post(f"/api/v4/projects/7/jobs/{job_id}/cancel")).raise_for_status()
            asyncio.run(go())
        return feed

    baseline_job = make_job()
    baseline = _run_console(server, tokens["admin"], baseline_job,
                            runner(baseline_job, [b"harmless line\n", b"\x1b[32mgreen\x1b[0m\n"]),
                            tmp_path, "baseline")
    assert "harmless line" in baseline.decode("utf-8", "replace")
    hostile_job = make_job()
    hostile = _run_console(server, tokens["admin"], hostile_job, runner(hostile_job, _hostile_log()),
                           tmp_path, "hostile")

    text = hostile.decode("utf-8", "replace")
    # None of the log's control sequences reached the terminal …
    allowed = _dangerous(baseline)
    extra = _dangerous(hostile) - allowed
    assert not extra, f"sequences from the log reached the terminal: {extra}"
    assert not C1_BIDI.search(text), "C1 control or bidi character reached the terminal"
    assert not C0.search(text), "C0 control reached the terminal"
    assert text.count("\x07") <= baseline.decode("utf-8", "replace").count("\x07")
    assert "\x1b]52" not in text and "\x1b]8;" not in text
    # … while the log itself was shown (the visible text of the samples reached the screen).
    for marker in ("beforeafter", "see the docs now", "end of log", "access = resu; admin"):
        assert marker in text, marker
