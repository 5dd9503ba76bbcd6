"""The board's data age on the status line: ten-second steps under a minute (never fresher than the
truth), amber past twice the interval, and what a pause or an error adds."""

from __future__ import annotations

import pytest

from labdeck.watch.snapshots import Freshness


@pytest.mark.parametrize(("age", "label"), [(0.0, "data <10s"), (9.9, "data <10s"), (10.0, "data 10s"),
                                            (19.9, "data 10s"), (59.0, "data 50s"), (61.0, "data 1m"),
                                            (7300.0, "data 2h")])
def test_the_age_moves_in_steps_and_is_never_rounded_up(age: float, label: str) -> None:
    assert Freshness(100.0, 5.0, 100.0 + age).label == label


def test_stale_pause_error_and_loading() -> None:
    assert not Freshness(100.0, 5.0, 110.0).is_stale and Freshness(100.0, 5.0, 110.1).is_stale
    assert Freshness(100.0, 5.0, 104.0, paused_for=19.2).label == "data <10s · paused 20s"
    assert Freshness(100.0, 5.0, 104.0, error="jobs: ConnectError").label == "data <10s · error"
    assert Freshness(None, 5.0, 104.0, loading=12).label == "loading 12"
