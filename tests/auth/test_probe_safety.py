"""The write probe never runs for a read-only-by-choice setup, and command-line output never passes
server text (user names, messages) to the terminal with control characters in it."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable

import pytest

from labdeck.auth import probe
from labdeck.base import paths
from labdeck.base.secret import Secret
from labdeck.commands import cli
from labdeck.commands.doctor import DoctorOptions, diagnose, run_doctor
from labdeck.sim.core.state import Token, User
from labdeck.sim.server import SimServer
from tests.support.credentials import Canaries
from tests.support.fault_proxy import FaultProxy
from tests.support.process import login_in_process


@pytest.fixture
async def proxy(sim: SimServer) -> AsyncIterator[FaultProxy]:
    """A recording pass-through proxy in front of the shared simulator."""
    host, port = sim.base_url.split("://", 1)[1].split(":")
    async with FaultProxy(host, int(port)) as recorder:
        yield recorder


def _write_profile(url: str, *, read_only: bool) -> None:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    flag = "read_only = true\n" if read_only else ""
    path.write_text(f'default_profile = "lab"\n[profiles.lab]\nurl = "{url}"\n{flag}', encoding="utf-8")


def _posts(proxy: FaultProxy) -> list[str]:
    return [path for method, path in proxy.received if method != "GET"]


async def test_doctor_sends_the_write_probe_only_when_writes_are_wanted(
        monkeypatch: pytest.MonkeyPatch, canaries: Canaries, proxy: FaultProxy) -> None:
    monkeypatch.setenv("LABDECK_TOKEN", canaries.admin)
    _write_profile(proxy.url, read_only=False)
    findings = {f.topic: f for f in await asyncio.to_thread(diagnose, DoctorOptions())}
    assert findings["access"].text.startswith("read-write") and _posts(proxy) == ["/api/v4/projects"]


@pytest.mark.parametrize("how", ["--read-only", "profile read_only"])
async def test_doctor_read_only_by_choice_sends_no_write_at_all(
        monkeypatch: pytest.MonkeyPatch, canaries: Canaries, proxy: FaultProxy, how: str) -> None:
    monkeypatch.setenv("LABDECK_TOKEN", canaries.admin)
    _write_profile(proxy.url, read_only=how == "profile read_only")
    out = io.StringIO()
    code = await asyncio.to_thread(run_doctor, DoctorOptions(read_only=how == "--read-only"), out)
    assert code == 0, out.getvalue()
    assert "write access: not checked (read-only by choice)" in out.getvalue()
    assert "token valid for @root" in out.getvalue()  # the read checks still ran
    assert _posts(proxy) == []


async def test_the_probe_never_writes_for_a_read_only_client(canaries: Canaries, proxy: FaultProxy) -> None:
    tls = probe.tls_settings()
    check = await asyncio.to_thread(probe.check_write_access, proxy.url, Secret(canaries.admin), tls,
                                    read_only=True)
    assert check.access == "not-checked" and _posts(proxy) == []


async def test_login_to_a_read_only_profile_sends_no_write(monkeypatch: pytest.MonkeyPatch, canaries: Canaries,
                                                           proxy: FaultProxy,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    _write_profile(proxy.url, read_only=True)
    monkeypatch.setattr("sys.stdin", io.StringIO(canaries.admin + "\n"))
    code = await asyncio.to_thread(cli.main, ["login", "--profile", "lab", "--token-stdin"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "Token access: not checked" in out.out and _posts(proxy) == []


HOSTILE_USERNAME = "mallory\x1b[2J\x1b]0;pwned\x07\u202egnp.exe"
HOSTILE_NAME = "Mal\x1b[31mlory\x00\x9b1m\u2066X\u2069\nINJECTED [ ok ] line"
UNSAFE = [chr(c) for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F),
                           *range(0x2066, 0x206A)]]


@pytest.fixture
def hostile(sim_factory: Callable[..., SimServer]) -> tuple[str, str]:
    """A private simulator with a user whose names hold terminal escapes; its URL and token."""
    server = sim_factory()
    state = server.state
    token = "glpat-HOSTILEuser0123456789abcdef"
    with state.lock:
        user_id = max(state.users) + 1
        state.users[user_id] = User(user_id, HOSTILE_USERNAME, HOSTILE_NAME, "m@example.com", state.now())
        state.tokens[token] = Token(token, user_id, ("api",), "hostile")
    return server.base_url, token


def _assert_clean(text: str) -> None:
    bad = sorted({f"U+{ord(ch):04X}" for ch in text if ch in UNSAFE})
    assert bad == [], bad


def test_doctor_prints_server_names_without_control_characters(monkeypatch: pytest.MonkeyPatch,
                                                              hostile: tuple[str, str]) -> None:
    url, token = hostile
    monkeypatch.setenv("LABDECK_URL", url)
    monkeypatch.setenv("LABDECK_TOKEN", token)
    out = io.StringIO()
    run_doctor(DoctorOptions(), out)
    _assert_clean(out.getvalue())
    assert "token valid for @mallory[2J]0;pwnedgnp.exe" in out.getvalue()


def test_login_prints_server_names_without_control_characters(monkeypatch: pytest.MonkeyPatch,
                                                             hostile: tuple[str, str],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    url, token = hostile
    assert login_in_process(monkeypatch, token, "--url", url, "--token-stdin") == 0
    out = capsys.readouterr()
    _assert_clean(out.out + out.err)
    logged_in = next(line for line in out.out.splitlines() if line.startswith("Logged in"))
    assert "@mallory" in logged_in and "INJECTED" in logged_in  # the name stays on its own line


def test_printable_masks_secrets_and_drops_controls() -> None:
    from labdeck.base import logsafe

    logsafe.register_secret("printable-canary-secret")
    text = logsafe.printable("a\x1b[1mb\tc\u202ed printable-canary-secret\nnext")
    assert text == "a[1mb cd ******** next"
    assert logsafe.printable("one\ntwo\x07", keep_newlines=True) == "one\ntwo"
