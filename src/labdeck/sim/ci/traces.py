"""Realistic runner output for simulated jobs, generated lazily and deterministically.

A job's log is a *script*: chunks of bytes stamped with the second (since the job started) at
which the runner writes them. The trace at any moment is the prefix of chunks already written, so
a running job's log grows in proportion to elapsed simulated time and a finished one is whole.
The format follows gitlab-runner 10.8 (docs/wire-facts.md §3.3): the ``Running with gitlab-runner`` header,
``section_start:<unix>:<name>\\r\\x1b[0K`` / ``section_end`` markers, green ``$ cmd`` echoes,
``\\r``-driven progress lines, SGR colours, and ``Job succeeded`` or the red ``ERROR: Job failed``.

Bulk traces (benchmarks: a 20 MB log growing at 10 KB/s, a finished 1,000,000-line log) are made of
cheap templated lines and materialised on demand.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass, field

from labdeck.sim.ci.command_output import MODULES, command_output

RUNNER_VERSION = "10.8.0"
RUNNER_REVISION = "079aad9e"
# The gitlab dialect's runners: version, revision and the name of the script section.
CURRENT_RUNNER = ("18.4.0", "4d7093e1", "step_script")
GREEN = "\x1b[32;1m"
RED = "\x1b[31;1m"
YELLOW = "\x1b[0;33m"
CYAN = "\x1b[36;1m"
RESET = "\x1b[0;m"
CLEAR = "\x1b[0K"


@dataclass
class Script:
    """Chunks of a log with the second at which each is written."""

    blob: bytes
    times: list[float]
    ends: list[int]

    def prefix(self, elapsed: float) -> bytes:
        """The log as it stands ``elapsed`` seconds after the job started."""
        count = bisect_right(self.times, elapsed)
        if count == 0:
            return b""
        if count == len(self.ends):
            return self.blob
        return self.blob[: self.ends[count - 1]]

    @property
    def size(self) -> int:
        return len(self.blob)


@dataclass
class ScriptSpec:
    """What a job's log depends on."""

    seed: int
    job_id: int
    name: str
    stage: str
    commands: list[str]
    duration: float
    failed: bool
    failure_message: str
    started_unix: int
    runner_description: str
    runner_token: str
    project_path: str
    sha: str
    ref: str
    artifacts: bool
    depends_on: list[tuple[str, int]] = field(default_factory=list)
    # The runner, not the script, failed (``runner_system_failure``): the log stops while preparing.
    system_failure: bool = False
    # The registry refused the job's image (docker/kubernetes executors report script_failure).
    image_pull_failure: bool = False
    runner_version: str = RUNNER_VERSION
    runner_revision: str = RUNNER_REVISION
    script_section: str = "build_script"
    line_rate: float | None = None
    """Lines a second of the commands' output (None: one to three, drawn per job)."""


class _Writer:
    def __init__(self, started_unix: int) -> None:
        self.parts: list[bytes] = []
        self.times: list[float] = []
        self.ends: list[int] = []
        self.size = 0
        self.started_unix = started_unix
        self.now = 0.0

    def emit(self, at: float, text: str) -> None:
        self.now = max(self.now, at)
        data = text.encode("utf-8")
        self.parts.append(data)
        self.size += len(data)
        self.times.append(self.now)
        self.ends.append(self.size)

    def section_start(self, at: float, name: str, first_line: str) -> None:
        self.emit(at, f"section_start:{self.started_unix + int(max(at, self.now))}:{name}\r{CLEAR}{first_line}")

    def section_end(self, at: float, name: str) -> None:
        self.emit(at, f"section_end:{self.started_unix + int(max(at, self.now))}:{name}\r{CLEAR}")

    def spread(self, start: float, end: float, lines: list[str]) -> None:
        """Emit ``lines`` evenly between ``start`` and ``end`` seconds."""
        if not lines:
            return
        step = max(end - start, 0.0) / len(lines)
        for index, line in enumerate(lines):
            self.emit(start + step * index, line)

    def script(self) -> Script:
        return Script(b"".join(self.parts), self.times, self.ends)


_IMAGES = ("python:3.11-slim", "node:20-alpine", "golang:1.22", "ruby:3.3", "alpine:3.19", "docker:24-dind")
def build_script(spec: ScriptSpec) -> Script:
    """The complete log of a job, each chunk stamped with when the runner writes it."""
    rng = random.Random(spec.seed * 1_000_003 + spec.job_id)
    duration = max(spec.duration, 5.0)
    out = _Writer(spec.started_unix)
    image = rng.choice(_IMAGES)
    out.emit(0.0, f"Running with gitlab-runner {spec.runner_version} ({spec.runner_revision})\n")
    out.emit(0.0, f"  on {spec.runner_description} {spec.runner_token[:8]}\n")
    if spec.system_failure:
        return _system_failure(out, rng, image, duration)
    if spec.image_pull_failure and spec.failed:
        return _image_pull_failure(out, rng, duration)
    t_sources = duration * 0.05
    out.section_start(0.2, "prepare_executor", f"Using Docker executor with image {image} ...\n")
    out.spread(0.3, t_sources * 0.6, [
        f"Pulling docker image {image} ...\n",
        f"Using docker image sha256:{rng.getrandbits(128):032x}{rng.getrandbits(128):032x} for {image} ...\n",
    ])
    out.section_end(t_sources * 0.6, "prepare_executor")
    host = f"runner-{spec.runner_token[:8]}-project-{spec.project_path.count('/') + spec.job_id % 97}-concurrent-0"
    out.section_start(t_sources * 0.65, "prepare_script", f"Running on {host} via gitlab-runner-host...\n")
    out.section_end(t_sources * 0.7, "prepare_script")
    _get_sources(out, rng, spec, t_sources * 0.7, duration * 0.12)
    t_script = duration * 0.14
    if spec.depends_on:
        out.section_start(duration * 0.12, "download_artifacts", "")
        for dep_name, dep_id in spec.depends_on:
            out.emit(duration * 0.125, f"Downloading artifacts for {dep_name} ({dep_id})...\n")
            out.emit(duration * 0.13, f"Downloading artifacts from coordinator... ok        id={dep_id} "
                                      f"responseStatus=200 OK token={rng.getrandbits(32):08x}\n")
        out.section_end(t_script, "download_artifacts")
    t_upload = duration * 0.93
    out.section_start(t_script, spec.script_section, "")
    _step_script(out, rng, spec, t_script, t_upload)
    if spec.failed:
        out.section_end(t_upload, spec.script_section)
        if spec.artifacts:
            _upload(out, rng, spec, t_upload, duration * 0.99, "upload_artifacts_on_failure")
        out.emit(duration, f"{RED}ERROR: Job failed: {spec.failure_message}{RESET}\n")
    else:
        out.section_end(t_upload, spec.script_section)
        out.section_start(t_upload, "archive_cache", "Creating cache default...\n")
        out.emit(t_upload + 0.3, f"{YELLOW}WARNING: .cache/: no matching files{RESET}\n")
        out.emit(t_upload + 0.6, "Created cache\n")
        out.section_end(t_upload + 0.9, "archive_cache")
        if spec.artifacts:
            _upload(out, rng, spec, t_upload + 1.0, duration * 0.99, "upload_artifacts_on_success")
        out.emit(duration, f"{GREEN}Job succeeded\n{RESET}")
    return out.script()


def _system_failure(out: _Writer, rng: random.Random, image: str, duration: float) -> Script:
    """A runner that cannot start the job: the image pull times out, the runner gives up."""
    out.section_start(0.2, "prepare_executor", f"Using Docker executor with image {image} ...\n")
    attempts = [f"Pulling docker image {image} ...\n"]
    for _ in range(2):
        attempts.append(f"{YELLOW}WARNING: Failed to pull image with policy \"always\": Error response from daemon: "
                        f"Get \"https://registry-1.docker.io/v2/\": net/http: request canceled while waiting for "
                        f"connection (Client.Timeout exceeded while awaiting headers) (manager.go:{rng.randint(200, 260)}:"
                        f"{rng.randint(10, 30)}s){RESET}\n")
    out.spread(0.3, duration * 0.9, attempts)
    out.section_end(duration * 0.95, "prepare_executor")
    out.emit(duration, f"{RED}ERROR: Job failed (system failure): failed to pull image \"{image}\" with specified "
                       f"policies [always]: Error response from daemon: Get \"https://registry-1.docker.io/v2/\": "
                       f"net/http: request canceled while waiting for connection (Client.Timeout exceeded while "
                       f"awaiting headers) (manager.go:250:15s){RESET}\n")
    return out.script()


REGISTRY = "registry.example.com"


def _image_pull_failure(out: _Writer, rng: random.Random, duration: float) -> Script:
    """The project's build image cannot be pulled: the registry times out (a registry outage)."""
    image = f"{REGISTRY}/platform/ci-images/builder:{rng.randint(1, 9)}.{rng.randint(0, 20)}"
    address = f"10.20.{rng.randint(0, 255)}.{rng.randint(2, 250)}:443"
    out.section_start(0.2, "prepare_executor", f"Using Docker executor with image {image} ...\n")
    out.emit(0.3, f"Pulling docker image {image} ...\n")
    out.emit(duration * 0.5, f"{YELLOW}WARNING: Failed to pull image with policy \"always\": Error response from daemon: "
                             f"Get \"https://{REGISTRY}/v2/\": dial tcp {address}: i/o timeout{RESET}\n")
    out.section_end(duration * 0.95, "prepare_executor")
    out.emit(duration, f"{RED}ERROR: Job failed: failed to pull image \"{image}\" with specified policies [always]: "
                       f"Error response from daemon: Get \"https://{REGISTRY}/v2/\": dial tcp {address}: "
                       f"i/o timeout (manager.go:{rng.randint(200, 260)}:{rng.randint(10, 30)}s){RESET}\n")
    return out.script()


def _get_sources(out: _Writer, rng: random.Random, spec: ScriptSpec, start: float, end: float) -> None:
    out.section_start(start, "get_sources", f"{GREEN}Fetching changes...{RESET}\n")
    total = rng.randint(80, 4000)
    step = (end - start) / 12
    out.emit(start + step, f"Initialized empty Git repository in /builds/{spec.project_path}/.git/\n")
    out.emit(start + step * 2, "Created fresh repository.\n")
    for index, percent in enumerate((7, 23, 41, 66, 88, 100)):
        done = total * percent // 100
        ending = ", done.\n" if percent == 100 else "\r"
        out.emit(start + step * (3 + index),
                 f"Receiving objects: {percent:3d}% ({done}/{total}), {done * 3 // 2} KiB{ending}")
    out.emit(start + step * 10, f"Checking out {spec.sha[:8]} as {spec.ref}...\n")
    out.emit(start + step * 11, "Skipping Git submodules setup\n")
    out.section_end(end, "get_sources")


def _upload(out: _Writer, rng: random.Random, spec: ScriptSpec, start: float, end: float, section: str) -> None:
    out.section_start(start, section, f"{GREEN}Uploading artifacts...{RESET}\n")
    out.emit(start + (end - start) * 0.3, f"dist/: found {rng.randint(3, 40)} matching files               \n")
    out.emit(start + (end - start) * 0.5, "reports/: found 2 matching files                  \n")
    out.emit(end, f"Uploading artifacts to coordinator... ok        id={spec.job_id} responseStatus=201 Created "
                  f"token={rng.getrandbits(32):08x}\n")
    out.section_end(end, section)


def _step_script(out: _Writer, rng: random.Random, spec: ScriptSpec, start: float, end: float) -> None:
    """The commands and their output, sized to about one to three lines per simulated second (or
    the job's ``line_rate``)."""
    commands = spec.commands or ["make"]
    rate = spec.line_rate if spec.line_rate is not None else rng.uniform(1.0, 3.0)
    budget = max(int((end - start) * rate), 12 * len(commands))
    window = (end - start) / len(commands)
    for index, command in enumerate(commands):
        c_start = start + window * index
        c_end = c_start + window
        out.emit(c_start, f"{GREEN}$ {command}{RESET}\n")
        last = index == len(commands) - 1
        lines = command_output(rng, command, budget // len(commands), spec.failed and last)
        out.spread(c_start + window * 0.02, c_end, lines)


# --- bulk traces (benchmarks) ----------------------------------------------------------------------


@dataclass
class BulkTrace:
    """A cheap templated log: ``initial_bytes`` at start growing ``rate`` bytes/s, or ``lines`` in all."""

    started_unix: int
    initial_bytes: int = 0
    rate: float = 0.0
    lines: int | None = None
    buffer: bytearray = field(default_factory=bytearray)
    next_line: int = 0
    finished: bool = False
    whole: bytes | None = None

    def read(self, elapsed: float) -> bytes:
        """The log ``elapsed`` seconds after start (whole when it has a fixed line count)."""
        if self.lines is not None:
            if self.whole is None:
                self._fill_lines(self.lines)
                self.whole = bytes(self.buffer)
                self.buffer = bytearray()
            return self.whole
        target = int(self.initial_bytes + self.rate * max(elapsed, 0.0))
        while len(self.buffer) < target:
            self._append(max(2000, (target - len(self.buffer)) // 50))
        return bytes(memoryview(self.buffer)[:target])

    def _fill_lines(self, total: int) -> None:
        self.buffer += f"Running with gitlab-runner {RUNNER_VERSION} ({RUNNER_REVISION})\n".encode()
        self.next_line = 1
        while self.next_line < total - 1:
            self._append(min(20000, total - 1 - self.next_line))
        self.buffer += f"{GREEN}Job succeeded\n{RESET}".encode()
        self.finished = True

    def _append(self, count: int) -> None:
        start = self.next_line
        if start == 0:
            self.buffer += f"Running with gitlab-runner {RUNNER_VERSION} ({RUNNER_REVISION})\n".encode()
            start = self.next_line = 1
            count -= 1
        parts = []
        unix = self.started_unix
        for index in range(start, start + count):
            kind = index % 40
            if index % 50000 == 1:
                shard = index // 50000
                marker = f"section_end:{unix + index // 1000}:shard_{shard - 1}\r{CLEAR}" if shard else ""
                parts.append(f"{marker}section_start:{unix + index // 1000}:shard_{shard}\r{CLEAR}"
                             f"{GREEN}$ pytest tests/shard_{shard}{RESET}\n")
            elif kind == 7:
                parts.append(f"progress  25%\rprogress  50%\rprogress  75%\rprogress 100% ({index})\n")
            elif kind == 19:
                parts.append(f"{YELLOW}WARNING: test {index} was slow{RESET}\n")
            else:
                parts.append(f"tests/test_{MODULES[index % 21]}.py::test_{index:07d} \x1b[32mPASSED\x1b[0m\n")
        self.buffer += "".join(parts).encode()
        self.next_line = start + count
