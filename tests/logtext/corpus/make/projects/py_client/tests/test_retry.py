import pytest

from client.retry import Response, call_with_retry


def flaky(failures):
    state = {"n": 0}

    def send():
        state["n"] += 1
        if state["n"] <= failures:
            return Response("error", "connection reset by peer")
        return Response("ok")

    return send


@pytest.fixture
def server():
    return {"host": "127.0.0.1", "port": 8080}


def test_retry_recovers(server):
    assert call_with_retry(flaky(2)).status == "ok"


def test_retry_gives_up_after_three(server):
    resp = call_with_retry(flaky(3), attempts=3)
    assert resp.status == "ok", resp.error


def test_no_retry_needed(server):
    assert call_with_retry(flaky(0)).status == "ok"
