"""The request engine under :class:`labdeck.api.client.ApiClient`: models parsed from answers checked
before they are believed, conditional GETs through the ETag cache, and streamed downloads. Sending
(retries, the gate, error mapping, health) is :mod:`labdeck.api.exchange`."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx

from labdeck.api import answers, errors
from labdeck.api.exchange import Exchange
from labdeck.api.results import ActionResult
from labdeck.api.wire import TOKEN_REFUSED as TOKEN_REFUSED  # where the screens have always found it
from labdeck.api.wire import describe_transport_error

T = TypeVar("T")
Progress = Callable[[int, int | None], None]


def _claim(part: Path, target: Path) -> None:
    """Give the finished ``part`` its final name, never replacing a file that is already there."""
    try:
        os.link(part, target)  # fails when ``target`` exists: no silent replacement
    except FileExistsError:
        raise FileExistsError(f"{target} already exists; nothing was replaced") from None
    except OSError:  # a file system without hard links
        if target.exists():
            raise FileExistsError(f"{target} already exists; nothing was replaced") from None
        os.replace(part, target)
        return
    part.unlink(missing_ok=True)


def _filename_from(disposition: str | None) -> str | None:
    if not disposition:
        return None
    match = re.search(r"filename\*?=(?:UTF-8'')?\"?([^\";]+)\"?", disposition)
    if not match:
        return None
    name = os.path.basename(match.group(1).strip().replace("\\", "/"))
    return name if name not in ("", ".", "..") else None


@dataclass(frozen=True)
class ConditionalRead:
    """One conditional GET: the full body either way; ``not_modified`` when it came from the cache."""

    url: str
    content: bytes
    headers: httpx.Headers
    etag: str | None
    not_modified: bool
    value: Any = None  # the body parsed as the caller's ``model`` (a 200 read with one)


class HttpEngine(Exchange):
    """Owns one ``httpx.AsyncClient`` and turns HTTP exchanges into models or :mod:`errors`."""

    # --- parsing -----------------------------------------------------------------------------------

    @staticmethod
    def parse(response: httpx.Response, model: Any) -> Any:
        """Validate the body against ``model`` (a type such as ``Project`` or ``list[Job]``); a body
        that is not it raises :class:`errors.WrongAnswer` saying why (a web page, cut off …)."""
        return answers.validate(response.content, response.headers, model, response.request.method,
                         str(response.request.url))

    async def get(self, path: str, model: Any, params: Any = None) -> Any:
        """GET and parse (an answer that does not parse is a failed read, see ``send``'s ``believe``)."""
        checked = answers.Checked(model)
        response = await self.request("GET", path, params=params, believe=checked)
        return checked.value if response.status_code == 200 else self.parse(response, model)

    async def call(self, method: str, path: str, model: Any = None, **kwargs: Any) -> Any:
        """Any method; parse the body with ``model`` unless it is None or the body is empty."""
        response = await self.request(method, path, **kwargs)
        if model is None or not response.content:
            return None
        return self.parse(response, model)

    async def action(self, method: str, path: str, model: Any, **kwargs: Any) -> ActionResult[Any]:
        """An action that may answer 304 ("nothing changed") instead of the new state."""
        response = await self.request(method, path, **kwargs)
        if response.status_code == 304:
            return ActionResult(None, changed=False, status=304)
        value = self.parse(response, model) if response.content else None
        return ActionResult(value, changed=True, status=response.status_code)

    async def fetch_conditional(self, path: str, params: Any = None, *, expect: answers.Shape | None = None,
                                model: Any = None) -> ConditionalRead:
        """GET ``path`` with ``If-None-Match`` from the client's ETag cache; always the full body.

        The cache is shared by every caller of this client, so the server may answer 304 to a
        caller that never saw the data: the body then comes from the cache entry the ETag was
        sent from (never an empty "no data"). A 304 without a cached copy (e.g. a proxy that
        invented it) is retried once without the condition.

        A 200 is checked before it is stored or returned (:mod:`labdeck.api.answers`): JSON, whole,
        and of the ``expect``-ed shape (a listing, asked with ``per_page``, is a list when the
        caller does not say). One that is not raises :class:`errors.WrongAnswer` and leaves nothing
        in the cache: the next read asks without ``If-None-Match`` and gets the real answer. With
        ``model``, a 200 is parsed before it is stored (``value``): a 304 stands for a believed body.
        """
        url = str(self._http.build_request("GET", path, params=params).url)
        cached = self.cache.get(url)
        headers = {"If-None-Match": cached.etag} if cached else None
        checked = answers.Checked(model, expect)
        response = await self.request("GET", url, headers=headers, believe=checked)
        if response.status_code == 304:
            if cached is not None:
                return ConditionalRead(url, cached.content, cached.headers, cached.etag, True)
            self.cache.discard(url)
            response = await self.request("GET", url, believe=checked)
            if response.status_code == 304:
                raise errors.UnexpectedResponse("304 Not Modified to an unconditional request",
                                                method="GET", url=url)
        self.cache.store(url, response)
        return ConditionalRead(url, response.content, response.headers, response.headers.get("etag"), False,
                               checked.value)

    async def reread(self, url: str, *, expect: answers.Shape | None = None, model: Any = None) -> ConditionalRead:
        """After a read of ``url`` came from the cache (a 304) and did not parse: forget the
        cached copy and read it again without ``If-None-Match``."""
        self.cache.discard(url)
        return await self.fetch_conditional(url, expect=expect, model=model)

    async def poll(self, path: str, model: Any, params: Any = None, *, since: str | None = None) -> ActionResult[Any]:
        """A conditional GET of one resource for a caller that may already hold a copy.

        ``since`` is the :attr:`ActionResult.etag` of the result the caller holds (None: it holds
        nothing). A caller without a copy always gets the value with ``changed`` True, even when
        the server answered 304 to the client (the cached body is used). Only when the server's
        ETag still equals ``since`` is the answer ``changed`` False with ``value`` None, and
        nothing is parsed.
        """
        expect = answers.shape_of(model)
        read = await self.fetch_conditional(path, params, expect=expect, model=model)
        status = 304 if read.not_modified else 200
        if since is not None and read.etag == since:
            return ActionResult(None, changed=False, status=status, etag=read.etag)
        value = read.value
        if read.not_modified:
            try:
                value = answers.validate(read.content, read.headers, model, "GET", read.url)
            except errors.WrongAnswer:
                # The copy the 304 stood for does not parse: never believed again, read afresh.
                read = await self.reread(read.url, expect=expect, model=model)
                status, value = 200, read.value
        return ActionResult(value, changed=True, status=status, etag=read.etag)

    def forget_listing(self, path: str) -> int:
        """Drop the cached pages of the listing at ``path`` (every query string): a view that read
        a big listing conditionally lets go of its bodies when it closes (a 5,000-job pipeline's
        pages are 8 MB). A later read of it just goes without ``If-None-Match``. Returns how many
        entries went."""
        return self.cache.discard_path(str(self._http.build_request("GET", path).url.copy_with(query=None)))

    async def get_cached(self, path: str, model: Any, params: Any = None) -> Any:
        """:meth:`poll`, returning only the value."""
        return (await self.poll(path, model, params)).value

    # --- downloads ---------------------------------------------------------------------------------

    async def download(self, path: str, dest: Path, *, params: Any = None, progress: Progress | None = None,
                       chunk_size: int = 256 * 1024) -> Path:
        """Stream a GET body to ``dest`` (a file, or a directory to use the server's file name).

        The body goes to a new ``<dest>.<random>.part`` and is renamed when complete, so a broken
        transfer never leaves a truncated file under the final name. ``progress(done, total)`` is
        called per chunk (``total`` None when the size is unknown). Memory stays at about one chunk.
        """
        response = await self.send("GET", path, params=params, stream=True)
        method, url = "GET", str(response.request.url)
        part: Path | None = None
        try:
            self.check(response)
            target = Path(dest)
            if target.is_dir():  # noqa: ASYNC240 - a single stat, not worth a thread hop
                name = _filename_from(response.headers.get("content-disposition")) or "download"
                target = target / name
            length = response.headers.get("content-length")
            total = int(length) if length and length.isdigit() else None
            done = 0
            if progress is not None:
                progress(0, total)
            # Private to the user (0600): artifacts and exports may hold secrets of the project. A new
            # file (O_EXCL): a leftover or a browser's ``<name>.part`` is neither truncated nor lends
            # its mode to the download.
            descriptor, part_name = tempfile.mkstemp(prefix=target.name + ".", suffix=".part", dir=target.parent)
            part = Path(part_name)
            with os.fdopen(descriptor, "wb") as handle:
                async for chunk in response.aiter_bytes(chunk_size):
                    handle.write(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, total)
            _claim(part, target)
            part = None
            return target
        except httpx.RequestError as exc:
            self._mark("error", describe_transport_error(exc))
            raise errors.TransportError(f"download interrupted: {describe_transport_error(exc)}", method=method, url=url) from None
        finally:
            await response.aclose()
            if part is not None:
                part.unlink(missing_ok=True)
