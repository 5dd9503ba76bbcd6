"""Small modals: where to save a download or a log, and a progress dialog for downloads."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, ProgressBar, Static

from labdeck.base.paths import download_dir
from labdeck.ui.type_ahead import HoldsTypeAhead

DIALOG_CSS = """
StatusFilterDialog, PathDialog, DownloadProgressDialog {
    align: center middle;
}
StatusFilterDialog > Vertical, PathDialog > Vertical,
DownloadProgressDialog > Vertical {
    width: 70;
    max-width: 95%;
    height: auto;
    border: thick $primary;
    background: $surface;
    padding: 1 2;
}
PathDialog .dialog-title {
    width: 100%;  /* a long title (the bundle's target, the save rules) wraps instead of being cut */
}
StatusFilterDialog .buttons, PathDialog .buttons {
    height: auto;
    align-horizontal: right;
    margin-top: 1;
}
StatusFilterDialog .buttons Button, PathDialog .buttons Button {
    margin-left: 1;
}
StatusFilterDialog SelectionList { height: auto; max-height: 12; }
PathDialog Input { margin-bottom: 1; }
"""


def default_download_dir() -> Path:
    """The download folder (see :func:`labdeck.base.paths.download_dir`)."""
    return download_dir()


class PathDialog(HoldsTypeAhead, ModalScreen[tuple[str, Path] | None]):
    """Ask where to save something; optionally also which file inside an artifacts archive.

    Dismisses with ``(inner_path, destination)``; ``inner_path`` is empty for the whole archive.
    """

    DEFAULT_CSS = DIALOG_CSS
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, default: Path, *, ask_inner_path: bool = False) -> None:
        super().__init__()
        self._title = title
        self._default = default
        self._ask_inner = ask_inner_path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self._title, style="bold"), classes="dialog-title")
            if self._ask_inner:
                yield Label("File inside the archive, e.g. coverage/report.txt (empty = the whole archive):")
                yield Input(id="inner")
            yield Label("Save to:")
            yield Input(str(self._default), id="dest")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save", id="save", variant="primary")

    def on_mount(self) -> None:
        """Focus the first field."""
        self.query_one("#inner" if self._ask_inner else "#dest", Input).focus()
        self.release_keys()

    @on(Input.Submitted)
    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        dest_text = self.query_one("#dest", Input).value.strip()
        if not dest_text:
            self.notify("Give a destination path.", severity="warning")
            return
        inner = self.query_one("#inner", Input).value.strip() if self._ask_inner else ""
        dest = Path(dest_text).expanduser()
        if inner and dest == self._default:
            # The default names the archive; a single file gets its own name in the same folder.
            dest = dest.parent / Path(inner).name
        self.dismiss((inner, dest))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without saving."""
        self.dismiss(None)


class DownloadProgressDialog(ModalScreen[None]):
    """Shows a download's progress; the owner updates it and closes it."""

    DEFAULT_CSS = DIALOG_CSS

    def __init__(self, title: str) -> None:
        super().__init__()
        self._title = title

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self._title, style="bold"))
            yield ProgressBar(total=None, show_eta=False, id="progress")
            yield Static("", id="bytes")

    def update_progress(self, done: int, total: int | None) -> None:
        """Show ``done`` of ``total`` bytes (``total`` unknown → indeterminate bar)."""
        bar = self.query_one("#progress", ProgressBar)
        bar.update(total=total, progress=done)
        label = f"{done:,} bytes" if total is None else f"{done:,} / {total:,} bytes"
        self.query_one("#bytes", Static).update(label)
