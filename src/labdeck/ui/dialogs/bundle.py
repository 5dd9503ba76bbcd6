"""The incident bundle from the console: where to save it, progress, then the summary to the
clipboard.

    request_bundle(screen, "group/project", job=123)           # key B on a job
    request_bundle(screen, "group/project", pipeline=77)       # … on a pipeline

1. :class:`~labdeck.ui.dialogs.download.PathDialog` asks where (default: the download folder; a
   folder gets the bundle's own name, a file name is used as given). An existing file is never
   replaced: the bundle becomes ``name (1).tar.gz`` and the toast says so.
2. :class:`BundleProgressDialog` reads the evidence (GET requests only, so it works read-only) and
   writes the archive in a thread; ``escape`` stops it while it reads, nothing is left behind.
3. :class:`BundleDoneDialog` says where it went and offers the summary as Markdown on the clipboard
   (OSC 52, so it works over SSH): cut to :data:`CLIPBOARD_BYTES` at a line boundary when longer,
   and the toast says so.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Label, ProgressBar, Static
from textual.worker import Worker, WorkerState

from labdeck.api import errors
from labdeck.api.resources.base import ProjectRef
from labdeck.base import paths
from labdeck.incident.bundle import BundleExists, BundleFile, write_bundle
from labdeck.incident.collect import collect_incident
from labdeck.incident.summary import CLIPBOARD_LIMIT, clipboard_summary
from labdeck.ui.console import console_app
from labdeck.ui.dialogs.download import PathDialog
from labdeck.ui.instances import Instance, client_of, instance_of, instances_of, several
from labdeck.ui.type_ahead import HoldsTypeAhead
from labdeck.ui.widgets.cells import clean

CLIPBOARD_BYTES = CLIPBOARD_LIMIT
"""Bytes of summary text one OSC 52 sequence carries (see :mod:`labdeck.incident.summary`)."""

_CSS = """
BundleProgressDialog, BundleDoneDialog { align: center middle; background: $background 60%; }
BundleProgressDialog > Vertical, BundleDoneDialog > Vertical {
    width: 76; max-width: 96%; height: auto; border: thick $primary; background: $surface; padding: 1 2;
}
BundleProgressDialog #bundle-title, BundleDoneDialog #bundle-title { text-style: bold; width: 100%; }
BundleProgressDialog #bundle-stage { color: $ld-text-muted; width: 100%; }
BundleDoneDialog #bundle-renamed { color: $text-warning; width: 100%; }
BundleDoneDialog #bundle-where, BundleDoneDialog #bundle-about { width: 100%; margin: 1 0 0 0; }
BundleDoneDialog #bundle-buttons { height: auto; margin: 1 0 0 0; align-horizontal: right; }
BundleDoneDialog #bundle-buttons Button { margin: 0 0 0 2; min-width: 12; }
"""


def scope_text(job: int | None, jobs: Sequence[int], pipeline: int | None) -> str:
    """``job #12``, ``pipeline #7`` or ``3 jobs``."""
    if pipeline is not None:
        return f"pipeline #{pipeline}"
    wanted = list(dict.fromkeys(([job] if job is not None else []) + list(jobs)))
    return f"job #{wanted[0]}" if len(wanted) == 1 else f"{len(wanted)} jobs"


class BundleProgressDialog(HoldsTypeAhead, ModalScreen[BundleFile | None]):
    instance: Instance | None = None
    """The instance the bundle is read from (a board row's)."""
    profile: str | None = None
    """Its name in the bundle, on a console over several instances."""

    """Collects the evidence and writes the bundle; dismisses with the file, or None."""

    DEFAULT_CSS = _CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Stop", id="bundle.stop")]

    def __init__(self, project: ProjectRef, label: str, dest: Path, *, job: int | None = None,
                 jobs: Sequence[int] = (), pipeline: int | None = None) -> None:
        super().__init__()
        self.project = project
        self.label = label
        self.dest = dest
        self.job, self.jobs, self.pipeline = job, tuple(jobs), pipeline
        self.stage = "reading the jobs, their logs and runners…"
        self.writing = False
        self.error: str | None = None
        """Why no bundle was written (shown as a toast by :func:`request_bundle`)."""
        self._started = time.monotonic()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(f"Incident bundle · {self.label}"), id="bundle-title")
            yield ProgressBar(total=None, show_eta=False, id="bundle-progress")
            yield Static(Text(self.stage), id="bundle-stage")

    def on_mount(self) -> None:
        self.set_interval(0.5, self._show_stage)
        self.run_worker(self._build(), group="bundle", exclusive=True, exit_on_error=False)
        self.release_keys()

    def _show_stage(self) -> None:
        elapsed = int(time.monotonic() - self._started)
        hint = "" if self.writing else " (esc stops)"
        self.query_one("#bundle-stage", Static).update(Text(f"{self.stage} {elapsed} s{hint}"))

    async def _build(self) -> None:
        client = client_of(self.app, self)
        result: BundleFile | None = None
        try:
            with await collect_incident(client, self.project, job=self.job, jobs=self.jobs,
                                        pipeline=self.pipeline, profile=self.profile) as incident:
                self.stage, self.writing = "writing the archive…", True
                self._show_stage()
                # tar and gzip take a while for long logs: in a thread, the console keeps answering
                result = await asyncio.to_thread(write_bundle, incident, self.dest, on_exists="rename")
        except errors.ApiError as error:
            self.error = f"No bundle: {error.user_message()}"
        except BundleExists as error:
            self.error = f"No bundle: {error}"
        except OSError as error:
            self.error = f"No bundle: cannot write {self.dest}: {error.strerror or error}"
        self.dismiss(result)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        # Anything the build did not expect goes to the app's one error handler (a toast or a
        # modal); the dialog does not stay open over a dead worker.
        if event.state == WorkerState.ERROR and self.is_attached:
            console_app(self.app).handle_worker_state(event.worker, event.state)
            self.error = "No bundle was written (see the error shown)."
            self.dismiss(None)

    def action_cancel(self) -> None:
        """Stop collecting (not once the archive is being written: it is nearly done)."""
        if self.writing:
            self.notify("Writing the archive: a moment.", timeout=2)
            return
        self.workers.cancel_group(self, "bundle")
        self.error = "Stopped: no bundle was written."
        self.dismiss(None)


class BundleDoneDialog(HoldsTypeAhead, ModalScreen[bool]):
    """Where the bundle went; ``c`` copies the summary (dismisses True), ``escape`` closes."""

    DEFAULT_CSS = _CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy", "Copy summary", id="bundle.copy"),
        Binding("escape", "close", "Close", id="bundle.close"),
    ]

    def __init__(self, bundle: BundleFile) -> None:
        super().__init__()
        self.bundle = bundle

    def compose(self) -> ComposeResult:
        bundle = self.bundle
        size = len(bundle.summary.encode("utf-8"))
        with Vertical():
            yield Label(Text("Incident bundle saved"), id="bundle-title")
            if bundle.renamed:
                yield Static(Text(clean(f"{bundle.requested.name} already exists: nothing was replaced.")),
                             id="bundle-renamed")
            yield Static(Text(clean(f"{bundle.path}\n{len(bundle.files)} files")), id="bundle-where")
            fits = "" if size <= CLIPBOARD_BYTES else f" (the clipboard takes {CLIPBOARD_BYTES:,}: it will be cut)"
            yield Static(Text(f"Copy the summary ({size:,} bytes of Markdown) to the clipboard for a chat or a "
                              f"ticket?{fits}"), id="bundle-about")
            with Horizontal(id="bundle-buttons"):
                yield Button("Close", id="bundle-close")
                yield Button("Copy summary", id="bundle-copy", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#bundle-copy", Button).focus()
        self.release_keys()

    @on(Button.Pressed, "#bundle-copy")
    def action_copy(self) -> None:
        """Copy the summary (cut to the clipboard's size) and close."""
        clip = clipboard_summary(self.bundle.summary, CLIPBOARD_BYTES, full_at=str(self.bundle.path))
        self.app.copy_to_clipboard(clip.text)
        copied = len(clip.text.encode("utf-8"))
        if clip.cut:
            self.notify(f"Summary cut to fit the clipboard: {copied:,} of {clip.full_bytes:,} bytes copied; the "
                        f"whole one is summary.md in {self.bundle.path.name}.", title="Copied", severity="warning",
                        timeout=10)
        else:
            self.notify(f"Summary copied as Markdown ({copied:,} bytes).", title="Copied", timeout=4)
        self.dismiss(True)

    @on(Button.Pressed, "#bundle-close")
    def action_close(self) -> None:
        """Close without copying."""
        self.dismiss(False)


def request_bundle(screen: Screen[Any], project_path: str, *, project: ProjectRef | None = None,
                   job: int | None = None, jobs: Sequence[int] = (), pipeline: int | None = None) -> None:
    """Ask where, build the incident bundle with progress, then offer the summary for the clipboard.

    ``project`` is what the API is given (default ``project_path``); ``project_path`` names it on
    screen. Nothing here changes anything on the server (it works in read-only mode)."""
    if job is None and not jobs and pipeline is None:
        screen.notify("Pick a job first.", severity="warning", timeout=3)
        return
    app = screen.app
    acting = getattr(screen, "acting_instance", None)
    instance = acting() if callable(acting) else instance_of(screen)
    label = clean(f"{project_path} · {scope_text(job, jobs, pipeline)}")
    if instance is not None and several(app):
        label = clean(f"{instance.short} · {label}")

    def built(progress: BundleProgressDialog, bundle: BundleFile | None) -> None:
        if bundle is None:
            app.notify(progress.error or "No bundle was written.", severity="warning", timeout=8)
            return
        app.notify(clean(bundle.message), title="Incident bundle", severity="warning" if bundle.renamed
                   else "information", timeout=10)
        app.push_screen(BundleDoneDialog(bundle))

    def where(answer: tuple[str, Path] | None) -> None:
        if answer is None:
            return
        progress = BundleProgressDialog(project if project is not None else project_path, label, answer[1],
                                        job=job, jobs=jobs, pipeline=pipeline)
        if isinstance(instance, Instance) and not instance.primary:
            progress.instance = instance
        if several(app):
            named = instance if isinstance(instance, Instance) else next(iter(instances_of(app)), None)
            progress.profile = named.short if named is not None else None
        app.push_screen(progress, lambda bundle: built(progress, bundle))

    app.push_screen(PathDialog(f"Incident bundle · {label} (a folder or a .tar.gz; an existing file is never replaced)",
                               paths.download_dir()), where)
