"""Core client behaviour over httpx.MockTransport: auth, secrecy, read-only, error mapping."""

from __future__ import annotations

import logging
import traceback

import httpx
import pytest

from labdeck.api import ApiClient, errors
from labdeck.base.secret import Secret
from tests.support.mock_api import BASE, TOKEN, mock_client


def _json(status: int, body: object = None, **headers: str) -> httpx.Response:
    return httpx.Response(status, json=body, headers=headers) if body is not None else httpx.Response(status, headers=headers)


async def test_token_goes_in_private_token_header_and_pagination_stays_on_our_origin() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/projects") and "page" not in request.url.params:
            link = '<http://evil.example/api/v4/projects?page=2&per_page=100>; rel="next"'
            return httpx.Response(200, json=[{"id": 1}], headers={"Link": link})
        return httpx.Response(200, json=[])

    async with mock_client(handler) as client:
        await client.projects.list().all()
    assert seen[0].headers["PRIVATE-TOKEN"] == TOKEN
    assert str(seen[0].url).startswith(f"{BASE}/api/v4/projects")
    assert str(seen[1].url) == f"{BASE}/api/v4/projects?page=2&per_page=100"
    assert all("private_token" not in str(r.url) for r in seen)


async def test_token_auth_skips_other_origins() -> None:
    import httpx as _httpx

    from labdeck.api.auth import TokenAuth

    auth = TokenAuth(Secret(TOKEN), BASE)
    other = next(auth.auth_flow(_httpx.Request("GET", "http://evil.example/api/v4/user")))
    same = next(auth.auth_flow(_httpx.Request("GET", f"{BASE}:80/api/v4/user")))
    assert "PRIVATE-TOKEN" not in other.headers and same.headers["PRIVATE-TOKEN"] == TOKEN
    assert TOKEN not in repr(auth)


async def test_anonymous_client_sends_no_token() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"id": 3})

    async with mock_client(handler, token=None) as client:
        await client.projects.get(3)
    assert "PRIVATE-TOKEN" not in seen[0].headers


async def test_token_never_in_repr_exception_or_log(caplog: pytest.LogCaptureFixture) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        logging.getLogger("httpx").warning("headers %s", dict(request.headers))
        return httpx.Response(401, json={"message": "401 Unauthorized"})

    client = mock_client(handler)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(errors.Unauthorized) as caught:
        await client.users.current()
    await client.aclose()
    exc = caught.value
    texts = [repr(client), str(exc), repr(exc), exc.user_message(), caplog.text,
             "".join(traceback.format_exception(exc)), repr(client.http.auth)]
    for text in texts:
        assert TOKEN not in text
    assert "401" in exc.user_message()
    assert exc.method == "GET" and exc.url == f"{BASE}/api/v4/user"


async def test_token_must_be_a_secret() -> None:
    with pytest.raises(TypeError):
        ApiClient(BASE, TOKEN)  # type: ignore[arg-type]


def test_urls_with_credentials_are_redacted() -> None:
    err = errors.NotFound(404, "GET", "https://u:pw@h/api/v4/x?private_token=abc&page=2", "404 Not found")
    assert "abc" not in str(err) and "pw" not in str(err)
    assert "page=2" in err.url


async def test_read_only_refuses_every_non_get_before_sending() -> None:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.method)
        return httpx.Response(200, json={"id": 1, "status": "running"})

    async with mock_client(handler, read_only=True) as client:
        assert (await client.jobs.get(1, 2)).status == "running"
        for action in (client.jobs.cancel(1, 2), client.projects.delete(1), client.runners.update(3, active=False),
                       client.projects.star(1)):
            with pytest.raises(errors.ReadOnlyError) as caught:
                await action
            assert "Read-only" in caught.value.user_message()
        client.read_only = False
        await client.jobs.cancel(1, 2)
    assert sent == ["GET", "POST"]


@pytest.mark.parametrize(
    ("status", "body", "kind", "message"),
    [
        (401, {"message": "401 Unauthorized"}, errors.Unauthorized, "401 Unauthorized"),
        (403, {"message": "403 Forbidden - Job is not retryable"}, errors.Forbidden, "Job is not retryable"),
        (404, {"message": "404 Project Not Found"}, errors.NotFound, "404 Project Not Found"),
        (404, {"error": "404 Not Found"}, errors.NotFound, "404 Not Found"),
        (409, {"message": "Protected branch 'main' already exists"}, errors.Conflict, "already exists"),
        (500, {"message": "500 Internal Server Error"}, errors.ServerError, "500 Internal Server Error"),
        (405, {"error": "405 Not Allowed"}, errors.HttpError, "405 Not Allowed"),
        (401, {"error": "invalid_token", "error_description": "Token is expired."}, errors.Unauthorized,
         "invalid_token: Token is expired."),
    ],
)
async def test_statuses_map_to_exceptions_with_server_message(status: int, body: object,
                                                              kind: type[errors.HttpError], message: str) -> None:
    async with mock_client(lambda request: _json(status, body)) as client:
        with pytest.raises(kind) as caught:
            await client.projects.get("a/b")
    exc = caught.value
    assert exc.status == status and message in exc.message
    assert exc.method == "GET" and exc.url.endswith("/projects/a%2Fb")
    assert "\n" not in exc.user_message() and exc.user_message()


@pytest.mark.parametrize(
    ("status", "body", "fields"),
    [
        (400, {"message": {"name": ["has already been taken"], "path": ["has already been taken"]}},
         {"name": ["has already been taken"], "path": ["has already been taken"]}),
        (400, {"error": "title is missing"}, {"title": ["is missing"]}),
        (400, {"error": "name, path are missing, at least one parameter must be provided"},
         {"name": ["is missing"], "path": ["is missing"]}),
        (422, {"message": ["Name has already been taken"]}, {"base": ["Name has already been taken"]}),
        (400, {"message": {"links": {"url": ["is blocked"]}}}, {"links.url": ["is blocked"]}),
    ],
)
async def test_validation_errors_carry_field_messages(status: int, body: object, fields: dict[str, list[str]]) -> None:
    async with mock_client(lambda request: _json(status, body)) as client:
        with pytest.raises(errors.ValidationError) as caught:
            await client.issues.create(1, "t")
    assert caught.value.fields == fields
    assert caught.value.status == status
    assert list(fields)[0] in caught.value.user_message()


async def test_429_plain_text_body_and_retry_after_on_post() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        return httpx.Response(429, text="Retry later", headers={"Retry-After": "12", "Content-Type": "text/plain"})

    async with mock_client(handler) as client:
        with pytest.raises(errors.RateLimited) as caught:
            await client.jobs.retry(1, 5)
    assert calls == ["POST"]  # a POST is never replayed, even after a 429
    assert caught.value.retry_after == 12
    assert caught.value.message == "Retry later"
    assert "retry in 12 s" in caught.value.user_message()


async def test_star_304_is_unchanged_not_an_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/star"):
            return httpx.Response(304)
        return httpx.Response(201, json={"id": 4, "star_count": 1})

    async with mock_client(handler) as client:
        starred = await client.projects.star(4)
        unstarred = await client.projects.unstar(4)
    assert starred.changed is False and starred.value is None and starred.status == 304
    assert unstarred.changed is True and unstarred.value is not None and unstarred.value.star_count == 1


async def test_202_and_204_are_handled() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "DELETE" and request.url.path.endswith("/projects/9"):
            return httpx.Response(202, json={"message": "202 Accepted"})
        if request.url.path.endswith("/export"):
            return httpx.Response(202, json={"message": "202 Accepted"})
        return httpx.Response(204)

    async with mock_client(handler) as client:
        deleted = await client.projects.delete(9)
        exported = await client.exports.export(9, upload_url="https://s3.example/put", upload_http_method="POST")
        assert await client.projects.unshare(9, 3) is None
        assert await client.hooks.delete(9, 1) is None
    assert deleted is not None and deleted.message == "202 Accepted"
    assert exported is not None and exported.message == "202 Accepted"


async def test_redirect_is_an_error_and_not_followed() -> None:
    async with mock_client(lambda r: httpx.Response(302, headers={"Location": "https://login.example/"})) as client:
        with pytest.raises(errors.HttpError) as caught:
            await client.users.current()
    assert caught.value.status == 302 and "login.example" in caught.value.message


async def test_unexpected_body_raises_typed_error() -> None:
    async with mock_client(lambda r: httpx.Response(200, json={"no_id": True})) as client:
        with pytest.raises(errors.UnexpectedResponse):
            await client.projects.get(1)


async def test_parameter_encoding_arrays_hashes_booleans() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/version"):  # dialect discovery before the runner update
            return httpx.Response(200, json={"version": "10.8.7"})
        seen.append(request)
        return httpx.Response(200, json=[] if request.method == "GET" else {"id": 1, "iid": 1})

    async with mock_client(handler) as client:
        await client.jobs.list(5, scope=["failed", "success"]).all()
        await client.projects.list(archived=False, visibility="private",
                                   custom_attributes={"team": "ci"}).all()
        await client.runners.update(3, tag_list=["docker", "linux"], active=True)
        await client.exports.export(5, upload_url="https://up/x")
        await client.issues.update(5, 1, assignee_ids=[], labels=["a", "b"])
    assert seen[0].url.params.get_list("scope[]") == ["failed", "success"]
    assert seen[1].url.params["archived"] == "false" and seen[1].url.params["custom_attributes[team]"] == "ci"
    assert seen[1].url.params["per_page"] == "100"
    assert seen[2].content.decode() == "active=true&tag_list%5B%5D=docker&tag_list%5B%5D=linux"
    assert "upload%5Burl%5D=https%3A%2F%2Fup%2Fx" in seen[3].content.decode()
    body = seen[4].content.decode()
    assert "assignee_ids=&" in body + "&" and "labels=a%2Cb" in body


async def test_uploads_are_multipart(tmp_path: pytest.TempPathFactory) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        request.read()
        return httpx.Response(201, json={"alt": "a", "url": "/uploads/x/a.txt", "markdown": "[a](/uploads/x/a.txt)"})

    file = tmp_path / "a.txt"  # type: ignore[operator]
    file.write_text("hello")
    async with mock_client(handler) as client:
        result = await client.projects.upload("g/p", file)
    assert seen[0].headers["content-type"].startswith("multipart/form-data")
    assert b'filename="a.txt"' in seen[0].content and b"hello" in seen[0].content
    assert result.markdown == "[a](/uploads/x/a.txt)"


async def test_base_url_with_api_suffix_is_accepted() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, json={"version": "11.0.0"})

    async with ApiClient(BASE + "/api/v4/", Secret(TOKEN), transport=httpx.MockTransport(handler)) as client:
        version = await client.version()
    assert seen == [f"{BASE}/api/v4/version"] and version.version == "11.0.0"


def test_an_error_says_the_servers_message_only_when_it_says_more_than_the_status() -> None:
    said = [errors.Unauthorized(401, "GET", "u", message).user_message()
            for message in ("401 Unauthorized", "Unauthorized", "401", "Unauthorized.", "401: unauthorized!",
                            "invalid_token: Token was revoked")]
    assert said[:5] == ["Not authorized (401): check or renew the token"] * 5
    assert said[5] == "Not authorized (401): check or renew the token — invalid_token: Token was revoked"
    assert errors.Unauthorized(401, "GET", "u", "401 未授权").user_message().endswith("— 401 未授权")
    assert errors.Forbidden(403, "GET", "u", "403 Forbidden").user_message() == "Forbidden (403)"
    assert errors.Forbidden(403, "GET", "u", "insufficient_scope").user_message() == "Forbidden (403): insufficient_scope"
