"""Project export (start, watch the status, download with progress) and import (archive file, new
path, namespace, overwrite; then watch the new project's import status)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import ProgressBar

from labdeck.ui.dialogs.download import default_download_dir
from labdeck.ui.dialogs.form import FormField, FormScreen
from labdeck.ui.formatting import size
from labdeck.ui.screens.settings.list_section import ListSection, local_path
from labdeck.ui.widgets.cells import clean, field_row
from labdeck.ui.widgets.resource_table import Column, TableRow

_EXPORT_DONE = {"finished", "none"}
_IMPORT_DONE = {"finished", "failed", "none"}


class ProjectExportScreen(ListSection):
    """The export status of a project and the import of an archive."""

    SECTION_TITLE = "Export / import"
    POLL_SECONDS: ClassVar[float] = 2.0
    """Interval of ``w`` (watch) polling."""
    POLL_LIMIT: ClassVar[int] = 300
    COLUMNS = (Column("field", "Field", max_width=32), Column("value", "Value", max_width=400, flex=True,
                                                                   min_width=20))
    MUTATING_ACTIONS = frozenset({"export", "import_archive"})
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("x", "export", "Start export", id="export.start"),
        Binding("w", "watch", "Watch", id="export.watch"),
        Binding("d", "download", "Download", id="export.download"),
        Binding("i", "import_archive", "Import", id="export.import"),
    ]
    DEFAULT_CSS = """
    ProjectExportScreen #download-progress { dock: bottom; height: 1; display: none; padding: 0 1; }
    ProjectExportScreen #download-progress.-active { display: block; }
    """

    def __init__(self, project_id: int, project_path: str) -> None:
        super().__init__(project_path)
        self.project_id = project_id
        self.project_path = clean(project_path)
        self.export_status = ""
        self.imported: Any = None
        """The import status record of the last import started here."""
        self.downloaded: Path | None = None
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        """How the watch loop waits between polls (tests move a simulated clock instead)."""

    def compose_content(self) -> ComposeResult:
        yield from super().compose_content()
        yield ProgressBar(id="download-progress", show_eta=False)

    async def fetch(self) -> list[TableRow]:
        status = await self.client.exports.export_status(self.project_id)
        self.export_status = status.export_status or "none"
        rows = [field_row("export_status", self.export_status)]
        for name, url in (status.links or {}).items():
            rows.append(field_row(f"link {name}", url))
        if self.imported is not None:
            rows.append(field_row("last import", f"{self.imported.path_with_namespace or self.imported.id} "
                                                 f"(#{self.imported.id})"))
            rows.append(field_row("import_status", self.imported.import_status))
            if self.imported.import_error:
                rows.append(field_row("import_error", self.imported.import_error))
        if self.downloaded is not None:
            rows.append(field_row("downloaded to", str(self.downloaded)))
        rows.append(field_row("keys", "x export · w watch · d download · i import"))
        return rows

    def action_export(self) -> None:
        """Schedule an export (optionally uploaded to a URL when done)."""
        if self.refuse_if_read_only():
            return
        fields = [FormField("description", "Description", help="overrides the project description in the archive"),
                  FormField("upload_url", "Upload URL", help="optional: where the server sends the archive"),
                  FormField("upload_http_method", "Upload method", kind="select", value="PUT",
                            options=(("PUT", "PUT"), ("POST", "POST")))]

        async def save(values: dict[str, Any]) -> Any:
            url = values.get("upload_url") or None
            message = await self.client.exports.export(
                self.project_id, description=values.get("description") or None, upload_url=url,
                upload_http_method=values.get("upload_http_method") if url else None)
            return message or True

        def done(result: Any) -> None:
            if result is not None:
                self.notify("Export scheduled; watching its status (w).", timeout=4)
                self.action_watch()

        self.app.push_screen(FormScreen("Export project", fields, save, target=self.project_path,
                                        submit_label="Export"), done)

    def action_watch(self) -> None:
        """Poll the export (and the last import) until they finish."""
        self.run_api(self._watch, "watch")

    async def _watch(self) -> None:
        for _ in range(self.POLL_LIMIT):
            self.loading_text = "watching…"
            await self._load()
            if self.imported is not None and self.imported.import_status not in _IMPORT_DONE:
                self.imported = await self.client.exports.import_status(self.imported.id)
                await self._load()
            import_done = self.imported is None or self.imported.import_status in _IMPORT_DONE
            if self.export_status in _EXPORT_DONE and import_done:
                break
            await self.sleep(self.POLL_SECONDS)
        self.loading_text = ""
        self.update_title()
        if self.export_status == "finished":
            self.notify("Export finished: d downloads it.", timeout=5)

    def action_download(self) -> None:
        """Download the finished archive to a chosen path, with progress."""
        if self.export_status != "finished":
            self.notify(f"The export is {self.export_status or 'not started'}: start it (x) and wait "
                        "until it is finished (w).", severity="warning", timeout=5, markup=False)
            return
        fields = [FormField("dest", "Save to", required=True, value=str(default_download_dir()),
                            help="a directory (keeps the server's file name) or a file path")]

        def chosen(values: Any) -> None:
            if values:
                dest = local_path(values["dest"])
                self.run_api(lambda: self._download(dest), "download")

        self.app.push_screen(FormScreen("Download export", fields, target=self.project_path,
                                        submit_label="Download"), chosen)

    async def _download(self, dest: Path) -> None:
        bar = self.query_one("#download-progress", ProgressBar)
        bar.add_class("-active")
        bar.update(total=None, progress=0)

        def progress(done: int, total: int | None) -> None:
            bar.update(total=total, progress=done)
            self.loading_text = f"downloading {size(done)}" + (f" of {size(total)}" if total else "")
            self.update_title()

        try:
            path = await self.client.exports.download(self.project_id, dest, progress=progress)
        finally:
            bar.remove_class("-active")
            self.loading_text = ""
            self.update_title()
        self.downloaded = Path(path)
        self.notify(f"Saved {path}", timeout=6, markup=False)
        self.reload()

    def action_import_archive(self) -> None:
        """Import an export archive as a new project, then watch its import status."""
        if self.refuse_if_read_only():
            return
        fields = [FormField("file", "Archive file", required=True,
                            validate=lambda v: None if local_path(v).is_file() else "no such file"),
                  FormField("path", "New project path", required=True),
                  FormField("namespace", "Namespace", help="id or path; empty = yours"),
                  FormField("overwrite", "Overwrite a project with that path", kind="bool")]

        async def save(values: dict[str, Any]) -> Any:
            namespace = str(values.get("namespace") or "")
            return await self.client.exports.import_project(
                local_path(values["file"]), values["path"],
                namespace=(int(namespace) if namespace.isdigit() else namespace) or None,
                overwrite=bool(values.get("overwrite")) or None)

        def done(status: Any) -> None:
            if status is not None:
                self.imported = status
                self.notify(f"Import of {clean(status.path_with_namespace or status.path)} {status.import_status}.",
                            timeout=5, markup=False)
                self.action_watch()

        self.app.push_screen(FormScreen("Import a project", fields, save, submit_label="Import"), done)
