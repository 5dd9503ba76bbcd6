"""TLS verification and client construction, against a real TLS server on loopback (the trust
store read ahead at start-up: tests/base/test_trust.py)."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from labdeck.api import ApiClient, errors
from labdeck.api.transport import DEFAULT_TIMEOUT, build_ssl_context
from labdeck.base.secret import Secret
from tests.support.fake_time import FakeTime
from tests.support.mock_api import TOKEN, policy

pytest.importorskip("cryptography.x509")
from tests.support.pki import make_pki


@pytest.fixture
async def tls_server(tmp_path: Path) -> AsyncIterator[tuple[str, Path]]:
    ca, cert, key = make_pki(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            body = b'{"version": "11.0.0"}'
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
    port = server.sockets[0].getsockname()[1]
    yield f"https://127.0.0.1:{port}", ca
    server.close()


async def test_untrusted_certificate_is_refused_by_default(tls_server: tuple[str, Path]) -> None:
    url, _ = tls_server
    async with ApiClient(url, Secret(TOKEN), retry=policy(FakeTime())) as client:
        with pytest.raises(errors.TransportError) as caught:
            await client.version()
    assert "certificate" in caught.value.message.lower()


async def test_per_profile_ca_file_and_env_bundles_are_trusted(tls_server: tuple[str, Path],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    url, ca = tls_server
    for variable in ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(variable, raising=False)
    async with ApiClient(url, Secret(TOKEN), ca_file=str(ca)) as client:
        assert (await client.version()).version == "11.0.0"
    async with ApiClient(url, Secret(TOKEN), verify=str(ca)) as client:
        assert (await client.version()).version == "11.0.0"
    for variable in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
        monkeypatch.setenv(variable, str(ca))
        async with ApiClient(url, Secret(TOKEN)) as client:
            assert (await client.version()).version == "11.0.0"
        monkeypatch.delenv(variable)


async def test_only_the_explicit_insecure_flag_disables_verification(tls_server: tuple[str, Path],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    url, _ = tls_server
    for variable, value in (("PYTHONHTTPSVERIFY", "0"), ("CURL_CA_BUNDLE", ""), ("SSL_CERT_FILE", "")):
        monkeypatch.setenv(variable, value)
    async with ApiClient(url, Secret(TOKEN), retry=policy(FakeTime())) as client:
        with pytest.raises(errors.TransportError):
            await client.version()
    async with ApiClient(url, Secret(TOKEN), verify=False) as client:
        assert client.insecure and (await client.version()).version == "11.0.0"


def test_ssl_context_sources(tmp_path: Path) -> None:
    ca, _, _ = make_pki(tmp_path)
    only_ca = build_ssl_context(True, environ={"REQUESTS_CA_BUNDLE": str(ca)})
    assert isinstance(only_ca, ssl.SSLContext) and len(only_ca.get_ca_certs()) == 1
    assert only_ca.verify_mode == ssl.CERT_REQUIRED and only_ca.check_hostname
    env_first = build_ssl_context(True, environ={"SSL_CERT_FILE": str(ca), "REQUESTS_CA_BUNDLE": "/nonexistent"})
    assert isinstance(env_first, ssl.SSLContext) and len(env_first.get_ca_certs()) == 1
    default = build_ssl_context(True, environ={})
    assert isinstance(default, ssl.SSLContext) and len(default.get_ca_certs()) > 10
    assert build_ssl_context(False) is False
    with pytest.raises(errors.TlsConfigError):
        build_ssl_context(True, ca_file=str(tmp_path / "missing.pem"))


async def test_client_owns_one_http_client_with_the_documented_timeouts() -> None:
    client = ApiClient("https://gitlab.example.com/", Secret(TOKEN))
    http = client.http
    assert DEFAULT_TIMEOUT.connect == 5 and DEFAULT_TIMEOUT.read == 30 and DEFAULT_TIMEOUT.pool == 5
    assert http.timeout == DEFAULT_TIMEOUT
    assert http.follow_redirects is False and http.trust_env is True
    assert client.users._engine is client and client.jobs._engine is client
    await client.aclose()
    assert client.closed
    assert isinstance(http, httpx.AsyncClient)
