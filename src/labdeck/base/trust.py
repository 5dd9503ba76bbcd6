"""Trust anchors for TLS: which CA bundle a session trusts, and one verifying ``SSLContext`` per bundle.

Nothing here imports httpx or the API layer, so the console can start reading the bundle in a
thread at exec (:func:`read_ahead`): OpenSSL parses the certificates without holding the GIL
(30-50 ms for a system bundle), so the read overlaps the imports instead of following them.
:mod:`labdeck.api.transport` builds its clients on :func:`shared_context`.
"""

from __future__ import annotations

import os
import ssl
import threading
from collections.abc import Mapping
from concurrent.futures import Future
from pathlib import Path


class TrustStoreError(Exception):
    """A CA file or folder cannot be read as trust anchors: ``str()`` names it and says why."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot load CA certificates from {path}: {reason}")


def expand(location: str) -> Path:
    """``location`` with ``~`` expanded (left as it is when it names no known user: the file is
    then reported missing, not a traceback)."""
    try:
        return Path(location).expanduser()
    except RuntimeError:
        return Path(location)


def trust_locations(verify: bool | str, ca_file: str | None, env: Mapping[str, str]) -> tuple[str, ...]:
    """Where the trust anchors come from, first match wins: ``verify`` given as a path, ``ca_file``
    (a per-profile bundle), ``SSL_CERT_FILE``/``SSL_CERT_DIR``, ``REQUESTS_CA_BUNDLE``,
    ``CURL_CA_BUNDLE``, then certifi."""
    explicit = verify if isinstance(verify, str) else ca_file
    if explicit:
        return (explicit,)
    cert_file, cert_dir = env.get("SSL_CERT_FILE"), env.get("SSL_CERT_DIR")
    if cert_file or cert_dir:
        return tuple(location for location in (cert_file, cert_dir) if location)
    bundle = env.get("REQUESTS_CA_BUNDLE") or env.get("CURL_CA_BUNDLE")
    if bundle:
        return (bundle,)
    import certifi  # only when no other source is set

    return (certifi.where(),)


def chosen_ca_file(ca_file: str | None, origin: str, env: Mapping[str, str]) -> tuple[str | None, str]:
    """The CA file a session names and where that came from: ``ca_file`` (called ``origin``),
    else ``SSL_CERT_FILE``, else ``REQUESTS_CA_BUNDLE``; ``(None, "")`` for the default store."""
    if ca_file:
        return ca_file, origin
    for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
        if env.get(name):
            return env[name], name
    return None, ""


def _version(location: str) -> tuple[int, int]:
    """What tells a changed CA file apart (a new bundle must be read again, not served from memory)."""
    try:
        stat = expand(location).stat()
    except OSError:
        return (-1, -1)
    return (stat.st_mtime_ns, stat.st_size)


def _verifying_context(locations: tuple[str, ...]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = True
    context.verify_mode = ssl.CERT_REQUIRED
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    for location in locations:
        path = expand(location)
        try:
            if path.is_dir():
                context.load_verify_locations(capath=str(path))
            else:
                context.load_verify_locations(cafile=str(path))
        except (OSError, ssl.SSLError, ValueError) as exc:
            raise TrustStoreError(path, str(exc) or type(exc).__name__) from None
    return context


_Key = tuple[tuple[str, ...], tuple[tuple[int, int], ...]]
_contexts: dict[_Key, Future[ssl.SSLContext]] = {}
_contexts_lock = threading.Lock()
_KEEP = 8
"""Contexts kept (one per bundle in use: the start-up check, the console and each profile share them)."""


def shared_context(locations: tuple[str, ...]) -> ssl.SSLContext:
    """The verifying context for these trust anchors, read once per version of the files and
    shared by every client (an ``SSLContext`` is made to be shared; treat it as read-only). A
    caller that asks while another thread reads the same bundle waits for that read.
    Raises :class:`TrustStoreError`."""
    key = (locations, tuple(_version(location) for location in locations))
    with _contexts_lock:
        future = _contexts.get(key)
        reader = future is None
        if future is None:
            future = _contexts[key] = Future()
            while len(_contexts) > _KEEP:
                del _contexts[next(iter(_contexts))]
    if not reader:
        return future.result()
    try:
        context = _verifying_context(locations)
    except BaseException as error:  # whatever it is, the threads waiting for this read hear of it
        with _contexts_lock:  # and it is not kept: the file may be fixed meanwhile
            if _contexts.get(key) is future:
                del _contexts[key]
        future.set_exception(error)
        raise
    future.set_result(context)
    return context


def checked_locations(ca_file: str | None, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The trust anchors of a session whose CA setting went through the start-up check (which
    reads the file it names, :func:`chosen_ca_file`, and hands it on as the session's CA file)."""
    environ = os.environ if env is None else env
    chosen, _ = chosen_ca_file(ca_file, "", environ)
    return (str(expand(chosen)),) if chosen else trust_locations(True, None, environ)


def read_ahead(locations: tuple[str, ...]) -> None:
    """Start reading these trust anchors in a daemon thread; a later :func:`shared_context` for
    them waits for that read or reuses it. A wrong guess (a profile naming another file) costs
    nothing but that thread's read."""

    def read() -> None:
        try:
            shared_context(locations)
        except Exception:
            pass  # reported by whoever needs the context: it reads the files again

    threading.Thread(target=read, name="labdeck-trust", daemon=True).start()
