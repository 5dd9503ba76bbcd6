"""GitLab human durations: parsing (1w = 5d, 1d = 8h, 1mo = 4w) and the short output form."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.sim.issues.time_tracking import human_time, parse_human_time


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("3h30m", 3 * 3600 + 30 * 60),
        ("3h 30m", 3 * 3600 + 30 * 60),
        ("1h", 3600),
        ("90m", 90 * 60),
        ("45s", 45),
        ("1d", 8 * 3600),
        ("1w", 5 * 8 * 3600),
        ("1w 2d", 7 * 8 * 3600),
        ("1mo", 4 * 5 * 8 * 3600),
        ("2 hours and 15 minutes", 2 * 3600 + 15 * 60),
        ("1 week, 1 day", 6 * 8 * 3600),
        ("1.5h", 5400),
        ("2", 2 * 3600),  # a bare number means hours
        ("-30m", -1800),
        ("  1H30M ", 5400),
    ],
)
def test_parse_accepts_gitlab_forms(text: str, seconds: int) -> None:
    assert parse_human_time(text) == seconds


@pytest.mark.parametrize("text", ["", "   ", "abc", "3x", "h", "1h foo", "--1h", "1y"])
def test_parse_rejects_garbage(text: str) -> None:
    assert parse_human_time(text) is None


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, None),
        (None, None),
        (5400, "1h 30m"),
        (12600, "3h 30m"),
        (8 * 3600, "1d"),
        (7 * 8 * 3600, "1w 2d"),
        (4 * 5 * 8 * 3600, "1mo"),
        (61, "1m 1s"),
        (-1800, "-30m"),
    ],
)
def test_format_matches_time_tracking_formatter(seconds: int | None, text: str | None) -> None:
    assert human_time(seconds) == text


@given(st.integers(min_value=1, max_value=10 * 4 * 5 * 8 * 3600))
def test_format_then_parse_round_trips(seconds: int) -> None:
    text = human_time(seconds)
    assert text is not None
    assert parse_human_time(text) == seconds
    assert parse_human_time(text.replace(" ", "")) == seconds
