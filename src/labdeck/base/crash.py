"""labdeck's own crash handling and clean exit on a dropped SSH connection.

Textual's crash screen prints a traceback with local variables (tokens, headers). labdeck replaces
it: :func:`write_crash_report` writes ``crash-<time>.txt`` (mode 0600, no locals, redacted) in the
state directory; :func:`install_crash_handler` routes ``sys.excepthook`` and
``threading.excepthook`` there, restoring the terminal first. :func:`install_signal_handlers` saves
state and drafts on SIGHUP/SIGTERM (Textual handles neither) before exiting.
"""

from __future__ import annotations

import contextlib
import errno
import os
import platform
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from labdeck import __version__
from labdeck.base import logsafe, paths
from labdeck.base.statefile import write_private

# Leave the alternate screen, show the cursor, stop mouse and bracketed-paste reporting, reset SGR.
_TERMINAL_RESET = (
    "\x1b[?1049l\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?2004l\x1b[0m"
)
_saved_tty: list[Any] | None = None


def remember_terminal() -> None:
    """Record the terminal's mode before the TUI changes it, for :func:`restore_terminal`."""
    global _saved_tty
    with contextlib.suppress(Exception):
        import termios

        if sys.stdin.isatty():
            _saved_tty = termios.tcgetattr(sys.stdin.fileno())


def restore_terminal() -> None:
    """Put the terminal back to a usable state (cooked mode, main screen, cursor visible)."""
    with contextlib.suppress(Exception):
        if sys.__stdout__ is not None and sys.__stdout__.isatty():
            sys.__stdout__.write(_TERMINAL_RESET)
            sys.__stdout__.flush()
    if _saved_tty is not None:
        with contextlib.suppress(Exception):
            import termios

            termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, _saved_tty)


def format_crash(exc: BaseException) -> str:
    """The crash report text: versions and the traceback without local variables, redacted."""
    lines = [
        f"labdeck {__version__} crash report",
        f"time: {time.strftime('%Y-%m-%dT%H:%M:%S%z')}",
        f"python: {platform.python_version()} ({sys.executable})",
        f"platform: {platform.platform()}",
        "",
        "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    ]
    return logsafe.redact("\n".join(lines))


def write_crash_report(exc: BaseException, directory: Path | None = None) -> Path:
    """Write ``crash-<time>.txt`` (mode 0600) for ``exc`` and return its path.

    The UI calls this from ``App._handle_exception``; the process-wide hooks call it too.
    """
    folder = directory or paths.crash_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"crash-{stamp}-{os.getpid()}.txt"
    counter = 1
    while path.exists():
        counter += 1
        path = folder / f"crash-{stamp}-{os.getpid()}-{counter}.txt"
    write_private(path, format_crash(exc).encode("utf-8"))
    return path


def crash_message(exc: BaseException, report: Path | None) -> str:
    """The short message printed after a crash (no traceback, no locals)."""
    summary = logsafe.redact(f"{type(exc).__name__}: {exc}")
    where = f"Details: {report}" if report is not None else "The crash report could not be written."
    return f"labdeck stopped after an internal error ({summary}).\n{where}\n"


def report_crash(exc: BaseException) -> Path | None:
    """Restore the terminal, write the report, print the short message to stderr."""
    restore_terminal()
    report: Path | None
    try:
        report = write_crash_report(exc)
    except OSError:
        report = None
    with contextlib.suppress(Exception):
        stream = sys.__stderr__ or sys.stderr
        stream.write(crash_message(exc, report))
        stream.flush()
    return report


def _excepthook(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> None:
    if issubclass(exc_type, KeyboardInterrupt):
        restore_terminal()
        return
    if exc.__traceback__ is None and tb is not None:
        exc = exc.with_traceback(tb)
    report_crash(exc)


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    # A background thread died while the console may still own the screen: record it quietly
    # rather than writing over the TUI.
    exc = args.exc_value
    if exc is None or isinstance(exc, SystemExit):
        return
    # The terminal went away (SSH dropped, tmux pane killed): the screen writer thread gets EIO or
    # a broken pipe. That is a hang-up, not a bug; SIGHUP handling saves the state.
    if isinstance(exc, OSError) and exc.errno in (errno.EIO, errno.EPIPE, errno.EBADF):
        return
    with contextlib.suppress(OSError):
        write_crash_report(exc)


def install_crash_handler() -> None:
    """Route uncaught exceptions (main and worker threads) to the redacted crash report."""
    logsafe.install()
    remember_terminal()
    sys.excepthook = _excepthook
    threading.excepthook = _thread_excepthook


def end_after(seconds: float, code: int) -> None:
    """End the process with ``code`` in ``seconds`` unless it has ended by then (a daemon timer)."""
    timer = threading.Timer(seconds, os._exit, args=(code,))
    timer.daemon = True
    timer.name = "labdeck-exit-deadline"
    timer.start()


def install_signal_handlers(
    save: Callable[[], None],
    *,
    on_exit: Callable[[int], None] | None = None,
    loop: Any = None,
    hard_deadline: float | None = None,
) -> Callable[[], None]:
    """On SIGHUP or SIGTERM run ``save`` once, then exit; returns a function that uninstalls.

    ``on_exit(signum)`` ends the program (the console passes ``app.exit``); without it the process
    restores the terminal and raises ``SystemExit(128 + signum)``. With an asyncio ``loop``,
    ``on_exit`` is called on that loop.

    The handler itself is a plain signal handler, not ``loop.add_signal_handler``: after a hang-up
    the event loop can be stuck in a write to a terminal nobody reads any more (Textual's writer
    queue is full), and a loop handler would then never run. A plain handler still runs, because
    CPython interrupts the blocked lock wait to run it.

    ``hard_deadline`` (seconds): if the process is still alive that long after the signal, it ends
    at once (``os._exit``): the graceful exit may block for ever on that same terminal.
    """
    done = threading.Event()

    def handle(signum: int, frame: FrameType | None) -> None:
        if not done.is_set():
            done.set()
            if hard_deadline is not None:
                end_after(hard_deadline, 128 + signum)
            try:
                save()
            except Exception as error:  # saving must never stop the exit
                with contextlib.suppress(Exception):
                    report_crash(error)
        if on_exit is not None and loop is not None:
            loop.call_soon_threadsafe(on_exit, signum)
            return
        if on_exit is not None:
            on_exit(signum)
            return
        restore_terminal()
        raise SystemExit(128 + signum)

    signals = [signal.SIGTERM]
    if hasattr(signal, "SIGHUP"):
        signals.append(signal.SIGHUP)
    previous = {signum: signal.signal(signum, handle) for signum in signals}

    def uninstall() -> None:
        for signum in signals:
            signal.signal(signum, previous[signum])

    return uninstall
