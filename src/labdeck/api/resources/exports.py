"""Project export and import (spec 000 §Project export and import)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from labdeck.api.core import Progress
from labdeck.api.models import ExportStatus, ImportStatus, Message
from labdeck.api.models.params import ExportHttpMethod
from labdeck.api.resources.base import ProjectRef, Resource, encode, ref


class ExportsResource(Resource):
    """``/projects/:id/export`` and ``/projects/import``."""

    async def export(self, pid: ProjectRef, *, description: str | None = None, upload_url: str | None = None,
                     upload_http_method: ExportHttpMethod | None = None) -> Message | None:
        """Schedule an export (202). With ``upload_url`` the archive is sent there when done.
        ``POST /projects/:id/export``."""
        upload: dict[str, Any] | None = None
        if upload_url is not None:
            upload = {"url": upload_url, "http_method": upload_http_method}
        elif upload_http_method is not None:
            raise ValueError("upload_http_method needs upload_url")
        message: Message | None = await self._engine.call(
            "POST", f"projects/{ref(pid)}/export", Message,
            data=encode({"description": description, "upload": upload}))
        return message

    async def export_status(self, pid: ProjectRef) -> ExportStatus:
        """``GET /projects/:id/export``."""
        status: ExportStatus = await self._engine.get(f"projects/{ref(pid)}/export", ExportStatus)
        return status

    async def download(self, pid: ProjectRef, dest: Path, progress: Progress | None = None) -> Path:
        """Stream the finished export archive to ``dest`` (a file, or a directory to keep the
        server's file name). ``GET /projects/:id/export/download``."""
        return await self._engine.download(f"projects/{ref(pid)}/export/download", dest, progress=progress)

    async def import_project(self, file: Path, path: str, *, namespace: int | str | None = None,
                             overwrite: bool | None = None,
                             override_params: Mapping[str, Any] | None = None) -> ImportStatus:
        """Import an export archive as a new project (multipart, streamed from disk).
        ``POST /projects/import``."""
        archive = Path(file)
        data = encode({"path": path, "namespace": namespace, "overwrite": overwrite,
                       "override_params": dict(override_params) if override_params else None})
        status: ImportStatus = await self._engine.call(
            "POST", "projects/import", ImportStatus, data=data,
            files=lambda: {"file": (archive.name, archive.open("rb"), "application/gzip")})
        return status

    async def import_status(self, pid: ProjectRef) -> ImportStatus:
        """``GET /projects/:id/import``."""
        status: ImportStatus = await self._engine.get(f"projects/{ref(pid)}/import", ImportStatus)
        return status

    download_export = download
