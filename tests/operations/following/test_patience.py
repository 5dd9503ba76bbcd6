"""What ``labdeck follow`` says while a server is in trouble, and when it gives up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from labdeck.api.results import ConnectionHealth
from labdeck.operations.following.patience import Patience, parse_wait

ORIGIN = "https://gitlab.example.com"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def move(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def test_it_says_what_is_wrong_at_growing_intervals_then_gives_up() -> None:
    clock = Clock()
    patience = Patience(ORIGIN, 300, now=clock)
    ok_at = clock.now
    said = []
    for _ in range(400):
        clock.move(1)
        gone = ConnectionHealth("reconnecting", "connection refused", ok_at, clock.now + timedelta(seconds=8))
        line = patience.observe(gone)
        if line:
            said.append((int((clock.now - ok_at).total_seconds()), line))
        if patience.exhausted:
            break
    assert [at for at, _ in said] == [10, 20, 40, 80, 160]  # not once a second, never silent
    assert said[2][1] == f"no answer from {ORIGIN} for 40 s, retrying in 8 s (giving up in 4m20s)"
    assert patience.exhausted and int((clock.now - ok_at).total_seconds()) == 300
    assert patience.gave_up() == f"gave up: no answer from {ORIGIN} for 5m00s"


def test_a_good_read_resets_it_and_is_said_after_trouble_was() -> None:
    clock = Clock()
    patience = Patience(ORIGIN, 60, now=clock)
    clock.move(12)
    line = patience.observe(ConnectionHealth("error", "502 Bad Gateway (nginx)", clock.now - timedelta(seconds=12),
                                             None, "502 Bad Gateway (nginx)"))
    assert line == f"{ORIGIN} answered 502 Bad Gateway (nginx) for 12 s, retrying (giving up in 48s)"
    assert patience.observe(ConnectionHealth("ok", None, clock.now)) == f"{ORIGIN} answers again"
    clock.move(50)
    assert not patience.exhausted
    assert patience.observe(ConnectionHealth("ok", None, clock.now)) is None  # said once


def test_a_lucky_read_between_two_looks_counts() -> None:
    clock = Clock()
    patience = Patience(ORIGIN, 30, now=clock)
    clock.move(25)
    # Failing again now, but a read answered 1 s ago: the silence is 1 s, not 25.
    patience.observe(ConnectionHealth("error", None, clock.now - timedelta(seconds=1)))
    clock.move(10)
    patience.observe(ConnectionHealth("error", None, clock.now - timedelta(seconds=11)))
    assert not patience.exhausted


@pytest.mark.parametrize(("text", "seconds"), [("300", 300), ("90s", 90), ("5m", 300), ("1h", 3600), ("2.5m", 150)])
def test_give_up_after_takes_a_duration(text: str, seconds: float) -> None:
    assert parse_wait(text) == seconds


@pytest.mark.parametrize("text", ["", "0", "-5m", "5 minutes", "never"])
def test_give_up_after_refuses_what_is_not_one(text: str) -> None:
    with pytest.raises(ValueError, match="90s, 5m or 1h"):
        parse_wait(text)
