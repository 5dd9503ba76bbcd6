"""Run a simulator in a child process so benchmarks measure the client, not a shared GIL."""

from __future__ import annotations

import multiprocessing
from multiprocessing.connection import Connection
from typing import Any


def _serve(conn: Connection, options: dict[str, Any], big_artifact: int) -> None:
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.dataset.build import build_state
    from labdeck.sim.server import SimServer

    state = build_state(seed=42, clock=SimClock(mode="manual"), **options)
    info: dict[str, Any] = {}
    if big_artifact:
        from labdeck.sim.dataset.ci import add_benchmark_jobs

        info = add_benchmark_jobs(state, ci_big_artifact_bytes=big_artifact)["big_artifact"]
    server = SimServer(state).start()
    conn.send({"base_url": server.base_url, **info})
    conn.recv()  # any message (or EOF) stops the server
    server.stop()


class SimProcess:
    """``with SimProcess(projects=5000) as sim: sim.base_url``."""

    def __init__(self, *, big_artifact: int = 0, **options: Any) -> None:
        self.options = options
        self.big_artifact = big_artifact
        self.info: dict[str, Any] = {}

    def __enter__(self) -> SimProcess:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, self.options, self.big_artifact), daemon=True)
        self._process.start()
        self.info = self._conn.recv()
        return self

    @property
    def base_url(self) -> str:
        return str(self.info["base_url"])

    def __exit__(self, *exc: object) -> None:
        try:
            self._conn.send("stop")
        except (BrokenPipeError, OSError):
            pass
        self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()
