"""The merged view's data age (its status line): the least fresh job still followed."""

from __future__ import annotations

from labdeck.operations.following.multi import MultiFollower
from labdeck.operations.following.statuses import FollowedJob
from tests.operations.fake_jobs import FakeJobs, fake_client
from tests.support.fake_time import FakeTime


def test_the_data_age_is_the_least_fresh_job_still_followed() -> None:
    time = FakeTime()
    follower = MultiFollower(fake_client(FakeJobs()), [FollowedJob(1, 7, "deploy-eu"), FollowedJob(1, 8, "deploy-us")],
                             clock=time.clock, sleep=time.sleep)
    assert follower.since_good_read() is None  # nothing answered yet: "data —"
    follower.statuses.good_read_at = 0.0
    time.now = 3.0
    assert follower.since_good_read() == 3.0  # neither started: their statuses' read
    eu, us = follower.followers
    eu._good_read_at, us._good_read_at = 2.0, 10.0
    time.now = 12.0
    # deploy-eu's reads fail since t=2 while deploy-us answers: the view's data is 10 s old.
    assert follower.since_good_read() == 10.0
    follower.states[0].ended = True  # deploy-eu ended (read to its end): no longer counts
    assert follower.since_good_read() == 2.0
    follower.states[1].ended = True  # every job ended: since the last answer of any
    assert follower.since_good_read() == 2.0
