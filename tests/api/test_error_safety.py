"""Error messages are safe to show: no token (even one the HTTP layer quotes), no terminal control
characters or bidi overrides from the server, and tokens the client was given are masked everywhere."""

from __future__ import annotations

import logging
import traceback

import httpx
import pytest

from labdeck.api import ApiClient, errors
from labdeck.api.core import describe_transport_error
from labdeck.base import logsafe
from labdeck.base.secret import Secret
from labdeck.sim.server import SimServer
from tests.support.mock_api import mock_client

HOSTILE = ("evil\x1b[2J\x1b]0;owned\x07 text\x00 with \u202etxt.exe\u202c and \u2066isolate\u2069 "
           "\x9b31m C1\x7f\x85 end\r\nsecond line\ttab")


def _every_text(exc: BaseException) -> list[str]:
    texts = [str(exc), repr(exc), "".join(traceback.format_exception(exc))]
    user_message = getattr(exc, "user_message", None)
    if callable(user_message):
        texts.append(str(user_message()))
    return texts


def test_a_header_refused_by_the_http_layer_is_described_without_its_value() -> None:
    # What h11 raises for a header value with a newline or NUL: it quotes the value.
    exc = httpx.LocalProtocolError("Illegal header value b'glpat-LEAK\\nSECRETpart0123456789'")
    text = describe_transport_error(exc)
    assert text == "invalid request header (check the token)"
    assert "SECRETpart" not in text


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_request_refused_before_sending_is_a_transport_error_that_quotes_nothing(
        sim: SimServer, tokens: dict[str, str], method: str) -> None:
    # A real connection (h11 validates header values); the bad value here is the User-Agent.
    client = ApiClient(sim.base_url, Secret(tokens["admin"]), user_agent="labdeck\nINJECTED-header-9")
    async with client:
        with pytest.raises(errors.ApiError) as caught:
            if method == "GET":
                await client.users.current()
            else:
                await client.jobs.cancel(1, 1)
    error = caught.value
    # Nothing was sent, so a POST is not "outcome unknown": the user may simply try again.
    assert type(error) is errors.TransportError
    assert "invalid request header" in error.user_message()
    for text in [*_every_text(error), client.health.last_error or ""]:
        assert "INJECTED-header-9" not in text


@pytest.mark.parametrize("bad", ["glpat-abc\nSECRETnewline0123", "glpat-abc\x00SECRETnul0123456",
                                 "tok\x7fSECRETdel01234", "t\u00f6kSECRETumlaut0123", "tok SECRETspace0123"])
async def test_a_token_that_cannot_be_a_header_is_refused_before_anything_is_sent(bad: str) -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"id": 1, "username": "x", "name": "x"})

    async with mock_client(handler, token=bad) as client:
        with pytest.raises(errors.InvalidToken) as caught:
            await client.users.current()
    assert sent == []
    assert "characters a token cannot have" in caught.value.user_message()
    for text in _every_text(caught.value):
        assert "SECRET" not in text


async def test_a_token_echoed_by_the_server_is_masked_in_errors_logs_and_crash_text(
        caplog: pytest.LogCaptureFixture) -> None:
    # Not token-shaped, so only the registry of known secrets can catch it.
    token = "echoed-canary-value-2718"

    def handler(request: httpx.Request) -> httpx.Response:
        logging.getLogger("labdeck.api").warning("sending with %s", request.headers["PRIVATE-TOKEN"])
        return httpx.Response(400, json={"message": f"token {request.headers['PRIVATE-TOKEN']} is malformed"})

    caplog.set_level(logging.DEBUG)
    async with mock_client(handler, token=token) as client:
        with pytest.raises(errors.ValidationError) as caught:
            await client.projects.create(name="x")
    for text in [*_every_text(caught.value), caught.value.message, caplog.text]:
        assert token not in text
    assert "is malformed" in caught.value.user_message()
    # Crash reports and the debug log go through logsafe.redact: it knows the token now.
    assert token not in logsafe.redact(f"Traceback … token={token}")


def test_any_registered_secret_is_masked_in_an_api_error() -> None:
    logsafe.register_secret("typed-in-the-dialog-31415")
    error = errors.ServerError(500, "GET", "http://gitlab.test/api/v4/x",
                               "boom typed-in-the-dialog-31415 boom")
    for text in _every_text(error):
        assert "typed-in-the-dialog-31415" not in text


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 418, 422, 500, 503])
@pytest.mark.parametrize("shape", ["message", "error"])
async def test_user_messages_carry_no_control_characters_or_bidi_overrides(status: int, shape: str) -> None:
    body = {shape: HOSTILE}

    async with mock_client(lambda r: httpx.Response(status, json=body)) as client:
        with pytest.raises(errors.HttpError) as caught:
            await client.jobs.play(1, 2) if status >= 500 else await client.projects.get(1)
    message = caught.value.user_message()
    assert all(ch.isprintable() for ch in message), repr(message)
    assert "evil" in message and "second line tab" in message


def test_transport_and_outcome_messages_are_cleaned_too() -> None:
    for error in (errors.TransportError(HOSTILE, method="GET", url="http://x/"),
                  errors.OutcomeUnknown(HOSTILE, method="POST", url="http://x/")):
        message = error.user_message()
        assert all(ch.isprintable() for ch in message), repr(message)
