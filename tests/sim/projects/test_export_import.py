"""Project export and import: status machines over simulated time, a real archive, a round trip."""

from __future__ import annotations

import io
import json
import tarfile


def test_export_lifecycle_and_download(sim_factory, api) -> None:
    server = sim_factory()
    client = api("user", server=server)
    assert client.get("projects/alice%2Fblog/export").json()["export_status"] == "none"
    early = client.get("projects/alice%2Fblog/export/download")
    assert early.status_code == 404 and early.json() == {"message": "404 Not found or has expired"}
    started = client.post("projects/alice%2Fblog/export", data={"description": "exported copy"})
    assert started.status_code == 202 and started.json() == {"message": "202 Accepted"}
    status = client.get("projects/alice%2Fblog/export").json()
    assert status["export_status"] == "started" and "_links" not in status
    server.state.clock.advance(2)
    assert client.get("projects/alice%2Fblog/export").json()["export_status"] == "after_export_action"
    server.state.clock.advance(2)
    finished = client.get("projects/alice%2Fblog/export").json()
    assert finished["export_status"] == "finished"
    assert finished["_links"]["api_url"].endswith(f"/projects/{finished['id']}/export/download")
    download = client.get("projects/alice%2Fblog/export/download")
    assert download.status_code == 200
    assert download.headers["content-type"] == "application/gzip"
    assert download.headers["content-disposition"].rstrip('"').endswith("_export.tar.gz")
    with tarfile.open(fileobj=io.BytesIO(download.content), mode="r:gz") as archive:
        snapshot = json.load(archive.extractfile("project.json"))  # type: ignore[arg-type]
    assert snapshot["path"] == "blog" and snapshot["description"] == "exported copy"


def test_export_upload_params(api) -> None:
    client = api("user")
    assert client.post("projects/alice%2Fblog/export", data={"upload[http_method]": "PUT"}).json() == {
        "error": "upload[url] is missing"}
    bad = client.post("projects/alice%2Fblog/export", data={"upload[url]": "https://s3.test/x",
                                                           "upload[http_method]": "PATCH"})
    assert bad.status_code == 400 and bad.json() == {"error": "upload[http_method] does not have a valid value"}
    ok = client.post("projects/alice%2Fblog/export", json={"upload": {"url": "https://s3.test/x",
                                                                     "http_method": "POST"}})
    assert ok.status_code == 202
    assert client.post("projects/platform%2Fsearch/export").status_code == 403  # developer only


def test_export_then_import_round_trip(sim_factory, api) -> None:
    server = sim_factory()
    client = api("user", server=server)
    client.post("projects/web%2Fstorefront/export")
    server.state.clock.advance(5)
    archive = client.get("projects/web%2Fstorefront/export/download").content
    imported = client.post("projects/import", data={"path": "storefront-copy", "namespace": "web",
                                                    "override_params[description]": "from import"},
                           files={"file": ("export.tar.gz", archive, "application/gzip")})
    assert imported.status_code == 201
    body = imported.json()
    assert body["import_status"] == "scheduled" and body["path_with_namespace"] == "web/storefront-copy"
    server.state.clock.advance(1.5)
    assert client.get(f"projects/{body['id']}/import").json()["import_status"] == "started"
    server.state.clock.advance(5)
    status = client.get(f"projects/{body['id']}/import").json()
    assert status["import_status"] == "finished" and "import_error" not in status
    source = client.get("projects/web%2Fstorefront").json()
    copy = client.get(f"projects/{body['id']}").json()
    assert copy["description"] == "from import"
    assert copy["visibility"] == source["visibility"] and copy["tag_list"] == source["tag_list"]
    assert copy["default_branch"] == source["default_branch"]


def test_import_of_bad_archive_fails(sim_factory, api) -> None:
    server = sim_factory()
    client = api("user", server=server)
    imported = client.post("projects/import", data={"path": "broken"},
                           files={"file": ("x.tar.gz", b"not an archive", "application/gzip")}).json()
    server.state.clock.advance(10)
    status = client.get(f"projects/{imported['id']}/import").json()
    assert status["import_status"] == "failed" and status["import_error"]


def test_import_errors_and_overwrite(sim_factory, api) -> None:
    server = sim_factory()
    client = api("user", server=server)
    files = {"file": ("x.tar.gz", b"data", "application/gzip")}
    assert client.post("projects/import", files=files).json() == {"error": "path is missing"}
    assert client.post("projects/import", data={"path": "x"}).json() == {"error": "file is missing"}
    taken = client.post("projects/import", data={"path": "blog"}, files=files)
    assert taken.status_code == 400 and "taken" in taken.json()["message"]
    replaced = client.post("projects/import", data={"path": "blog", "overwrite": "true"}, files=files)
    assert replaced.status_code == 201
    assert client.get("projects/alice%2Fblog").json()["id"] == replaced.json()["id"]
    assert client.post("projects/import", data={"path": "y", "namespace": "nope"}, files=files).json() == {
        "message": "404 Namespace Not Found"}
