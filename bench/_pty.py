"""Run a program under a pseudo-terminal of a fixed size, as a person's terminal would (stdlib only).

The benchmarks that measure what a person feels (start-up to rows on screen, idle CPU) start the
real ``labdeck`` executable with :class:`PtyProgram`, read what it writes to the terminal, and look
for text in it with the escape sequences removed. Nothing here imports labdeck.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import termios
import time
from collections.abc import Callable, Sequence

# CSI (with private parameters), OSC (BEL or ST terminated), DCS/APC/PM strings, and two-byte ESC forms.
_ESCAPES = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]"
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    rb"|\x1b[PX^_][^\x1b]*\x1b\\"
    rb"|\x1b[@-Z\\-_]"
    rb"|\x1b[ -/][ -~]"
)


def strip_escapes(data: bytes) -> str:
    """The printable text of terminal output (escape sequences removed, UTF-8 decoded)."""
    return _ESCAPES.sub(b"", data).decode("utf-8", "replace")


class PtyProgram:
    """``argv`` started on the slave side of a new pty (``columns`` x ``rows``), as a session leader.

    ``output`` collects every byte written to the terminal; :meth:`wait_for` reads until a predicate
    on the collected bytes holds. Terminal queries are not answered (like a terminal that ignores
    them), which Textual tolerates.
    """

    def __init__(self, argv: Sequence[str], *, env: dict[str, str] | None = None, columns: int = 80,
                 rows: int = 24, cwd: str | None = None) -> None:
        self.argv = list(argv)
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.started = time.perf_counter()
        pid = os.fork()
        if pid == 0:  # child: make the pty its controlling terminal, then exec
            try:
                os.close(master)
                os.setsid()
                fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
                for fd in (0, 1, 2):
                    os.dup2(slave, fd)
                if slave > 2:
                    os.close(slave)
                if cwd:
                    os.chdir(cwd)
                os.execvpe(self.argv[0], self.argv, env if env is not None else dict(os.environ))
            finally:
                os._exit(127)
        os.close(slave)
        self.pid = pid
        self.fd = master
        self.output = bytearray()
        self.exit_status: int | None = None
        self.ended = 0.0
        """``time.perf_counter()`` when the program was seen to have exited."""

    def read_available(self, timeout: float) -> bool:
        """Read what the program wrote within ``timeout`` seconds; False once the terminal closed."""
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the slave side closed (program exited)
            return False
        if not chunk:
            return False
        self.output += chunk
        return True

    def wait_for(self, predicate: Callable[[bytes], bool], timeout: float) -> float:
        """Seconds from the start of the program until ``predicate(output)`` holds."""
        limit = time.perf_counter() + timeout
        while not predicate(bytes(self.output)):
            remaining = limit - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"{self.argv[0]}: condition not met within {timeout} s")
            if not self.read_available(min(remaining, 0.05)):
                if predicate(bytes(self.output)):
                    break
                raise RuntimeError(f"{self.argv[0]} closed the terminal early: "
                                   f"{strip_escapes(bytes(self.output))[-600:]!r}")
        return time.perf_counter() - self.started

    def drain(self, seconds: float) -> None:
        """Keep reading (so the program never blocks on a full terminal) for ``seconds``."""
        limit = time.perf_counter() + seconds
        while time.perf_counter() < limit:
            if not self.read_available(limit - time.perf_counter()):
                return

    def send(self, data: str | bytes) -> None:
        """Type ``data`` (keys as a terminal encodes them, e.g. ``"\\r"`` for enter)."""
        os.write(self.fd, data.encode() if isinstance(data, str) else data)

    def wait_exit(self, timeout: float) -> bool:
        """Read until the program exits (True) or ``timeout`` seconds pass (False)."""
        limit = time.perf_counter() + timeout
        while self.exit_status is None:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.exit_status = status
                self.ended = time.perf_counter()
                break
            if time.perf_counter() >= limit:
                return False
            self.read_available(min(0.05, max(0.0, limit - time.perf_counter())))
        return True

    def stop(self, grace: float = 5.0) -> None:
        """Ask the program to end (SIGTERM, then SIGKILL after ``grace`` seconds) and reap it."""
        if self.exit_status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            limit = time.perf_counter() + grace
            while time.perf_counter() < limit:
                self.read_available(0.05)
                done, status = os.waitpid(self.pid, os.WNOHANG)
                if done:
                    self.exit_status = status
                    self.ended = time.perf_counter()
                    break
            else:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                _, self.exit_status = os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)

    def __enter__(self) -> PtyProgram:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def cpu_seconds(pid: int) -> float:
    """utime + stime of process ``pid`` so far (``/proc/<pid>/stat``, fields 14 and 15)."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    # after the ")" that ends the command name, field 3 (state) is index 0: utime is 14 → index 11
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
