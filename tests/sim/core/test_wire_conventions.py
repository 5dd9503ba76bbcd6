"""Wire conventions every family relies on: auth, errors, pagination, ETags, parameter encodings."""

from __future__ import annotations

import json
import re

from labdeck.sim.dataset.build import DEMO_TOKENS


def test_current_user_matches_token_and_admin_flag(api) -> None:
    me = api("user").get("user")
    assert me.status_code == 200
    assert me.json()["username"] == "alice"
    assert "is_admin" not in me.json()
    admin = api("admin").get("user").json()
    assert admin["username"] == "root" and admin["is_admin"] is True


def test_bad_or_missing_token_is_401(api, sim) -> None:
    import httpx

    bad = httpx.get(sim.api_url + "/user", headers={"PRIVATE-TOKEN": "nope"})
    assert bad.status_code == 401
    assert bad.json() == {"message": "401 Unauthorized"}
    assert api(None).get("user").status_code == 401
    assert api(None).get("version").status_code == 401
    assert "version" in api("readonly").get("version").json()


def test_token_accepted_as_query_and_bearer(sim) -> None:
    import httpx

    token = DEMO_TOKENS["user"]
    assert httpx.get(sim.api_url + "/user", params={"private_token": token}).json()["username"] == "alice"
    bearer = httpx.get(sim.api_url + "/user", headers={"Authorization": f"Bearer {token}"})
    assert bearer.json()["username"] == "alice"


def test_read_only_token_cannot_write(api) -> None:
    response = api("readonly").post("projects", data={"name": "nope"})
    assert response.status_code == 403
    assert response.json()["error"] == "insufficient_scope"


def test_unknown_route_is_grape_404(api) -> None:
    response = api("user").get("no/such/thing")
    assert response.status_code == 404
    assert response.json() == {"error": "404 Not Found"}


def test_pagination_headers_and_link(api) -> None:
    client = api("admin")
    first = client.get("projects", params={"per_page": 7, "order_by": "id", "sort": "asc"})
    total = int(first.headers["X-Total"])
    pages = int(first.headers["X-Total-Pages"])
    assert pages == -(-total // 7)
    assert first.headers["X-Page"] == "1" and first.headers["X-Prev-Page"] == ""
    assert first.headers["X-Next-Page"] == "2"
    links = dict((rel, url) for url, rel in re.findall(r'<([^>]+)>; rel="(\w+)"', first.headers["Link"]))
    assert set(links) == {"next", "first", "last"}
    assert "order_by=id" in links["next"] and "page=2" in links["next"]
    last = client.get("projects", params={"per_page": 7, "order_by": "id", "sort": "asc", "page": pages})
    assert last.headers["X-Next-Page"] == ""
    assert 'rel="next"' not in last.headers["Link"]
    ids = [p["id"] for p in first.json()] + [p["id"] for p in last.json()]
    assert ids == sorted(ids)
    past = client.get("projects", params={"per_page": 7, "page": pages + 5})
    assert past.status_code == 200 and past.json() == []


def test_per_page_is_clamped_to_100(api) -> None:
    response = api("admin").get("projects", params={"per_page": 500})
    assert response.headers["X-Per-Page"] == "100"


def test_empty_list_has_one_total_page(api) -> None:
    response = api("user").get("projects", params={"search": "zzz-no-such-project"})
    assert response.json() == []
    assert response.headers["X-Total"] == "0" and response.headers["X-Total-Pages"] == "1"


def test_etag_and_if_none_match_304(api) -> None:
    client = api("user")
    first = client.get("projects/platform%2Fapi-gateway")
    etag = first.headers["ETag"]
    assert etag.startswith('W/"')
    again = client.get("projects/platform%2Fapi-gateway", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""


def test_params_as_form_json_and_multipart(api) -> None:
    client = api("user")
    form = client.post("projects", data={"name": "Form Made", "tag_list[]": ["a", "b"]})
    assert form.status_code == 201, form.text
    assert form.json()["path"] == "form-made" and form.json()["tag_list"] == ["a", "b"]
    body = client.post("projects", content=json.dumps({"path": "json-made", "tag_list": ["x"]}),
                       headers={"Content-Type": "application/json"})
    assert body.status_code == 201 and body.json()["name"] == "json-made"
    multi = client.post("projects", data={"name": "multi made"}, files={"avatar": ("a.png", b"\x89PNG", "image/png")})
    assert multi.status_code == 201 and multi.json()["avatar_url"].endswith("/a.png")
    query = client.post("projects", params={"name": "query made", "visibility": "internal"})
    assert query.status_code == 201 and query.json()["visibility"] == "internal"
    for project in (form, body, multi, query):
        assert client.delete(f"projects/{project.json()['id']}").status_code == 202


def test_invalid_enum_value_is_grape_400(api) -> None:
    response = api("user").get("projects", params={"order_by": "stars"})
    assert response.status_code == 400
    assert response.json() == {"error": "order_by does not have a valid value"}


def test_wrong_verb_on_known_path_is_405(api) -> None:
    response = api("user").patch("projects/1")
    assert response.status_code == 405
    assert response.json() == {"error": "405 Not Allowed"}


def test_sudo_lets_an_admin_act_as_another_user(api) -> None:
    assert api("admin").get("user", params={"sudo": "alice"}).json()["username"] == "alice"
    assert api("admin").get("user", headers={"Sudo": "3"}).json()["username"] == "bob"
    refused = api("user").get("user", params={"sudo": "bob"})
    assert refused.status_code == 403 and refused.json() == {"message": "403 Forbidden - Must be admin to use sudo"}
    unknown = api("admin").get("user", params={"sudo": "ghost"})
    assert unknown.json() == {"message": "404 User with ID or username 'ghost' Not Found"}


def test_links_carry_defaulted_params_but_never_the_token(api, sim, tokens) -> None:
    import httpx

    response = httpx.get(sim.api_url + "/projects", params={"per_page": 5, "private_token": tokens["user"]})
    link = response.headers["Link"]
    assert "order_by=created_at" in link and "sort=desc" in link
    assert tokens["user"] not in link
