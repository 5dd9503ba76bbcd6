"""TLS trust rules and client construction, against a real TLS server on loopback."""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import ssl
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from labdeck.api import ApiClient, errors
from labdeck.api.transport import DEFAULT_TIMEOUT, build_ssl_context
from labdeck.base.secret import Secret
from tests.api.helpers import TOKEN, FakeTime, policy

x509 = pytest.importorskip("cryptography.x509")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _make_pki(folder: Path) -> tuple[Path, Path, Path]:
    """A private CA and a server certificate for 127.0.0.1; returns (ca.pem, cert.pem, key.pem)."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (x509.CertificateBuilder().subject_name(_name("labdeck test CA")).issuer_name(_name("labdeck test CA"))
               .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=2))
               .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                            content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False,
                                            encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
               .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(_name("127.0.0.1")).issuer_name(ca_cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    ca_path, cert_path, key_path = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    ca_path.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return ca_path, cert_path, key_path


@pytest.fixture
async def tls_server(tmp_path: Path) -> AsyncIterator[tuple[str, Path]]:
    ca, cert, key = _make_pki(tmp_path)
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
    ca, _, _ = _make_pki(tmp_path)
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


def test_a_bundle_read_ahead_is_the_one_clients_use_and_a_changed_file_is_read_again(tmp_path: Path) -> None:
    from labdeck.base import trust

    ca, _, _ = _make_pki(tmp_path)
    locations = trust.checked_locations(str(ca), env={})
    assert locations == (str(ca),)
    trust.read_ahead(locations)  # as the console does at exec, in a thread
    first = build_ssl_context(True, ca_file=str(ca), environ={})
    assert isinstance(first, ssl.SSLContext) and len(first.get_ca_certs()) == 1
    assert build_ssl_context(str(ca), environ={}) is first  # one read, shared
    (tmp_path / "other").mkdir()
    other_ca, _, _ = _make_pki(tmp_path / "other")
    ca.write_bytes(ca.read_bytes() + other_ca.read_bytes())  # the file changed: new anchors count
    again = build_ssl_context(True, ca_file=str(ca), environ={})
    assert again is not first and len(again.get_ca_certs()) == 2  # type: ignore[union-attr]


def test_a_bad_bundle_read_ahead_fails_where_it_is_used_and_is_not_remembered(tmp_path: Path) -> None:
    from labdeck.base import trust

    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    trust.read_ahead((str(bad),))  # must not raise, in the thread or here
    with pytest.raises(errors.TlsConfigError, match="bad.pem"):
        build_ssl_context(str(bad), environ={})
    (tmp_path / "good").mkdir()
    ca, _, _ = _make_pki(tmp_path / "good")
    bad.write_bytes(ca.read_bytes())  # fixed, same name: read again, now fine
    assert isinstance(build_ssl_context(str(bad), environ={}), ssl.SSLContext)


def test_the_bundle_read_ahead_is_the_one_the_start_up_check_chooses(monkeypatch: pytest.MonkeyPatch,
                                                                     tmp_path: Path) -> None:
    from labdeck.base import trust

    environ = {"SSL_CERT_FILE": "~/ca.pem", "SSL_CERT_DIR": "/etc/ssl/certs", "REQUESTS_CA_BUNDLE": "/x.pem"}
    monkeypatch.setenv("HOME", str(tmp_path))
    # The check reads the named file itself (expanded) and hands it on as the session's CA file.
    assert trust.checked_locations(None, env=environ) == (str(tmp_path / "ca.pem"),)
    assert trust.checked_locations("/profile/ca.pem", env=environ) == ("/profile/ca.pem",)
    assert trust.checked_locations(None, env={}) == trust.trust_locations(True, None, {})
    assert trust.chosen_ca_file(None, "--ca-file", {"REQUESTS_CA_BUNDLE": "/x.pem"}) == ("/x.pem", "REQUESTS_CA_BUNDLE")
