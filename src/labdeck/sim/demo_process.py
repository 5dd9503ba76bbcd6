"""``labdeck --demo``'s simulator in a process of its own.

In the console's process the simulator would share one interpreter lock with the console: its
start-up (imports, the data set) would come before the console's, and its live CI would take
time from every keystroke. In a child process it starts on another core while the console
imports its UI, and the console stays the only Python code in its own process.

The child prints its base URL on stdout, then serves until its stdin reaches end-of-file, which
happens when the console closes the pipe or ends in any way (even killed): no orphan is left
serving. It is also in the console's process group, so a terminal hang-up reaches it too.

    python -m labdeck.sim.demo_process      # the child (what :class:`DemoProcess` runs)
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import time

READY_PREFIX = "labdeck-demo "
"""The child's one line on stdout: ``labdeck-demo <base URL>``."""


class DemoProcessError(RuntimeError):
    """The demo simulator did not start (the message says what it printed or how it ended)."""


class DemoProcess:
    """The child process running the demo simulator (see the module docstring)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self.base_url: str | None = None

    @classmethod
    def spawn(cls, seed: int | None = None, dialect: str | None = None) -> DemoProcess:
        """Start the child and return at once (:meth:`wait_ready` gives its URL). ``seed`` and
        ``dialect``: another instance of the demo (``labdeck --demo --instances 2``)."""
        extra = [*(["--seed", str(seed)] if seed is not None else []),
                 *(["--dialect", dialect] if dialect is not None else [])]
        process = subprocess.Popen(
            [sys.executable, "-m", "labdeck.sim.demo_process", *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True,
        )
        return cls(process)

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self._process.pid

    def wait_ready(self, timeout: float = 20.0) -> str:
        """The simulator's base URL, once the child listens; :class:`DemoProcessError` when it does
        not within ``timeout`` seconds (the child is then stopped)."""
        stdout = self._process.stdout
        assert stdout is not None
        deadline = time.monotonic() + timeout
        line = b""
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([stdout], [], [], max(0.0, left))
            chunk = os.read(stdout.fileno(), 4096) if ready else b""
            if not chunk:
                self.stop()
                how = "did not answer in time" if left <= 0 or not ready else "ended"
                raise DemoProcessError(f"the demo simulator {how} (exit status {self._process.poll()})")
            line += chunk
        text = line.decode("utf-8", "replace").strip()
        if not text.startswith(READY_PREFIX):
            self.stop()
            raise DemoProcessError(f"the demo simulator said {text[:200]!r}")
        self.base_url = text.removeprefix(READY_PREFIX)
        return self.base_url

    def stop(self, timeout: float = 2.0) -> None:
        """End the child: close its stdin (it stops serving), then kill it if it lingers."""
        process = self._process
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def child_main(argv: list[str] | None = None) -> int:
    """The child: serve the demo data set (``--seed N``, ``--dialect D``) until stdin reaches
    end-of-file."""
    from labdeck.sim.demo import start_demo

    args = list(sys.argv[1:] if argv is None else argv)
    options: dict[str, str] = dict(zip(args[::2], args[1::2], strict=False))
    server = start_demo(seed=int(options.get("--seed", "42")), dialect=options.get("--dialect", "spec"))
    try:
        sys.stdout.write(f"{READY_PREFIX}{server.base_url}\n")
        sys.stdout.flush()
        while os.read(sys.stdin.fileno(), 4096):
            pass  # nothing is ever sent: end-of-file means the console is gone
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(child_main())
