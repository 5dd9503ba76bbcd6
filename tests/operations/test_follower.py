"""TraceFollower against a fake ``client.jobs``: exact bytes, resets, errors and pacing."""

from __future__ import annotations

import asyncio
import random

import pytest

from labdeck.api import errors
from labdeck.operations.follower import TraceEvent, TraceFollower
from tests.operations.fake_jobs import FakeJobs, fake_client
from tests.support.fake_time import FakeTime

URL = "http://sim/api/v4/projects/1/jobs/7/trace"
ALPHABET = ["a", "é", "€", "\U0001f600", "\n", "\x1b[31m", "\r"]


async def follow(jobs: FakeJobs, time: FakeTime, **options: float) -> list[TraceEvent]:
    follower = TraceFollower(fake_client(jobs), 1, 7, sleep=time.sleep, clock=time.clock, **options)
    events = []
    async for event in follower:
        events.append(event)
        assert len(events) < 10_000, "the follower never ended"
    return events


def text_after_last_reset(events: list[TraceEvent]) -> str:
    resets = [index for index, event in enumerate(events) if event.kind == "reset"]
    start = resets[-1] + 1 if resets else 0
    return "".join(event.data for event in events[start:] if event.kind == "data")


def growing_world(jobs: FakeJobs, chunks: list[bytes], then: str = "success"):
    pending = list(chunks)

    def world(now: float) -> None:
        if pending:
            jobs.log += pending.pop(0)
        else:
            jobs.status = then

    return world


@pytest.mark.parametrize("honour_range", [False, True])
async def test_every_byte_arrives_once_even_when_a_character_is_split(honour_range: bool) -> None:
    euro = "€".encode()
    chunks = [b"Running with gitlab-runner\n", b"price: 5" + euro[:1], euro[1:] + b"\n", b"",
              b"\x1b[32;1mJob succeeded\x1b[0;m\n"]
    jobs = FakeJobs(honour_range=honour_range)
    time = FakeTime()
    time.world = growing_world(jobs, chunks)
    events = await follow(jobs, time)
    assert "".join(e.data for e in events if e.kind == "data") == jobs.log.decode()
    assert [e.kind for e in events][-1] == "end"
    assert [e.status for e in events if e.kind == "status"] == ["running", "success"]
    assert not any(e.kind == "reset" for e in events)


async def test_an_unchanged_log_is_not_downloaded_again_when_range_is_ignored() -> None:
    jobs = FakeJobs(log=b"line 1\n")
    time = FakeTime(lambda now: setattr(jobs, "status", "success") if now > 60 else None)
    events = await follow(jobs, time)
    assert text_after_last_reset(events) == "line 1\n"
    assert jobs.bytes_sent == len(b"line 1\n")  # every later poll was a 304
    assert all(etag is not None for _, _, etag in jobs.calls[1:])


async def test_quiet_logs_back_off_and_flowing_logs_poll_every_second() -> None:
    jobs = FakeJobs(honour_range=True, log=b"start\n")
    schedule = {1.0: b"a\n", 2.0: b"b\n"}

    def world(now: float) -> None:
        if now in schedule:
            jobs.log += schedule.pop(now)
        if now > 200:
            jobs.status = "failed"

    time = FakeTime(world)
    await follow(jobs, time)
    assert time.sleeps[:3] == [1.0, 1.0, 1.0]
    assert time.sleeps[3:8] == [2.0, 4.0, 8.0, 10.0, 10.0]
    assert max(time.sleeps) == 10.0


async def test_new_output_after_a_quiet_spell_brings_the_interval_back_to_one_second() -> None:
    jobs = FakeJobs()
    burst_done = []

    def world(now: float) -> None:
        if now > 30 and not burst_done:
            jobs.log += b"burst\n"
            burst_done.append(now)
        if now > 100:
            jobs.status = "success"

    time = FakeTime(world)
    events = await follow(jobs, time)
    burst = time.sleeps.index(10.0)
    assert 1.0 in time.sleeps[burst:]
    assert text_after_last_reset(events) == "burst\n"


@pytest.mark.parametrize("honour_range", [False, True])
async def test_a_truncated_log_is_announced_and_shown_from_the_start(honour_range: bool) -> None:
    jobs = FakeJobs(honour_range=honour_range, log=b"old line 1\nold line 2\n")
    steps = iter([lambda: setattr(jobs, "log", b"new\n"), lambda: setattr(jobs, "log", b"new\nmore\n"),
                  lambda: setattr(jobs, "status", "success")])
    time = FakeTime(lambda now: next(steps, lambda: None)())
    events = await follow(jobs, time)
    kinds = [e.kind for e in events]
    assert kinds.count("reset") == 1
    reset = next(e for e in events if e.kind == "reset")
    assert "erased or truncated" in reset.message
    assert text_after_last_reset(events) == "new\nmore\n"


async def test_an_erased_log_resets_to_empty() -> None:
    jobs = FakeJobs(honour_range=True, log=b"secret output\n")
    steps = iter([lambda: setattr(jobs, "log", b""), lambda: setattr(jobs, "status", "success")])
    time = FakeTime(lambda now: next(steps, lambda: None)())
    events = await follow(jobs, time)
    assert [e.kind for e in events].count("reset") == 1
    assert text_after_last_reset(events) == ""


async def test_network_errors_pause_and_resume_without_losing_or_repeating_bytes() -> None:
    jobs = FakeJobs(honour_range=True)
    jobs.failures = [
        errors.TransportError("connection reset", method="GET", url=URL),
        errors.ServerError(502, "GET", URL, "Bad Gateway"),
    ]
    chunks = [b"one\n", b"two\n", b"three\n"]
    time = FakeTime()
    state = {"step": 0}

    def world(now: float) -> None:
        state["step"] += 1
        if chunks:
            jobs.log += chunks.pop(0)
            if state["step"] == 2:
                jobs.failures.append(errors.RateLimited(429, "GET", URL, "Too Many Requests", retry_after=30))
        else:
            jobs.status = "success"

    time.world = world
    events = await follow(jobs, time)
    error_events = [e for e in events if e.kind == "error"]
    assert len(error_events) == 3
    assert "Cannot reach the server" in error_events[0].message
    assert any("Rate limited" in e.message for e in error_events)
    assert 30.0 in time.sleeps  # Retry-After honoured
    assert text_after_last_reset(events) == "one\ntwo\nthree\n"
    assert events[-1].kind == "end"


@pytest.mark.parametrize("final", ["canceled", "skipped", "failed", "success"])
async def test_following_stops_on_every_finished_status(final: str) -> None:
    jobs = FakeJobs(log=b"x\n", status=final)
    events = await follow(jobs, FakeTime())
    assert [e.kind for e in events] == ["status", "data", "end"]
    assert events[-1].status == final


async def test_a_missing_job_is_reported_and_following_stops() -> None:
    jobs = FakeJobs()
    jobs.failures = [errors.NotFound(404, "GET", URL, "404 Not found")]
    events = await follow(jobs, FakeTime())
    assert [e.kind for e in events] == ["error", "end"]
    assert "404" in events[0].message


async def test_a_server_that_answers_416_without_a_length_is_probed_not_reset() -> None:
    class NoLength(FakeJobs):
        async def trace(self, project_id: object, job_id: int, *, offset: int = 0, etag: str | None = None):
            read = await super().trace(project_id, job_id, offset=offset, etag=etag)
            if read.status == 416:
                return type(read)(416, b"", None, False, None)
            return read

    jobs = NoLength(honour_range=True, log=b"abc\n")
    steps = iter([lambda: None, lambda: setattr(jobs, "status", "success")])
    time = FakeTime(lambda now: next(steps, lambda: None)())
    events = await follow(jobs, time)
    assert not any(e.kind == "reset" for e in events)
    assert text_after_last_reset(events) == "abc\n"


def test_random_growth_errors_and_truncations_always_end_with_the_server_log() -> None:
    for seed in range(40):
        rng = random.Random(seed)
        jobs = FakeJobs(honour_range=rng.random() < 0.5)

        def world(now: float, rng: random.Random = rng, jobs: FakeJobs = jobs) -> None:
            roll = rng.random()
            if now > 120:
                jobs.status = "success"
            elif roll < 0.6:
                jobs.log += "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 50))).encode()
            elif roll < 0.65:
                jobs.log = jobs.log[: rng.randint(0, len(jobs.log))]
            elif roll < 0.85:
                jobs.failures.append(rng.choice([
                    errors.TransportError("reset", method="GET", url=URL),
                    errors.ServerError(503, "GET", URL, "unavailable"),
                ]))

        events = asyncio.run(follow(jobs, FakeTime(world)))
        assert events[-1].kind == "end"
        assert text_after_last_reset(events) == jobs.log.decode("utf-8", "replace"), seed


@pytest.mark.parametrize(("honour_range", "expected"), [(True, 1.0), (False, 5.0)])
async def test_a_big_log_on_a_server_without_range_is_polled_less_often(honour_range: bool,
                                                                         expected: float) -> None:
    jobs = FakeJobs(honour_range=honour_range, log=b"x" * 5_000_000)

    def world(now: float) -> None:
        jobs.log += b"more\n"
        if now > 30:
            jobs.status = "success"

    time = FakeTime(world)
    events = await follow(jobs, time)
    # The first read is always a whole one (offset 0); what follows depends on Range support.
    assert time.sleeps[1:] == pytest.approx([expected] * (len(time.sleeps) - 1), abs=0.01)
    assert text_after_last_reset(events) == jobs.log.decode()


async def test_the_first_good_read_after_errors_says_recovered_even_a_304() -> None:
    """Issue 32.6: after an outage the log's trace answers 304 (nothing new): that read is good,
    and says so, so a "disconnected (7 reads failed)" note goes at once."""
    jobs = FakeJobs(log=b"line 1\n")
    time = FakeTime()
    reads: list[int] = []

    def world(now: float) -> None:
        reads.append(len(jobs.calls))
        if len(reads) == 2:
            jobs.failures = [errors.TransportError("connection refused", method="GET", url=URL)] * 7
        if now > 200:
            jobs.status = "success"

    time.world = world
    events = await follow(jobs, time)
    kinds = [e.kind for e in events]
    assert kinds.count("error") == 7 and kinds.count("recovered") == 1
    after = kinds.index("recovered")
    assert kinds[after - 1] == "error" and "data" not in kinds[after - 1:after]
    assert jobs.calls[-3:] and all(etag is not None for _, _, etag in jobs.calls[2:])  # the reads were 304s


async def test_a_refused_token_stops_the_reads_until_a_new_client_is_given() -> None:
    """Issue 32.7: not a read every 5 s through a 401, forever."""
    jobs = FakeJobs(log=b"line 1\n")
    time = FakeTime()
    follower = TraceFollower(fake_client(jobs), 1, 7, sleep=time.sleep, clock=time.clock)
    events: list[TraceEvent] = []

    async def run() -> None:
        async for event in follower:
            events.append(event)
            assert len(events) < 100, "it kept reading through the 401"

    jobs.failures = [errors.Unauthorized(401, "GET", URL, "401 Unauthorized")] * 100
    task = asyncio.create_task(run())
    for _ in range(50):
        await asyncio.sleep(0)
    calls = len(jobs.calls)
    assert [e.kind for e in events] == ["error"] and not follower.reading
    await asyncio.sleep(0.05)
    assert len(jobs.calls) == calls and time.now == 0  # no read, no timer: it waits for a token
    fresh = FakeJobs(log=b"line 1\nline 2\n")
    follower.use_client(fake_client(fresh))
    fresh.status = "success"
    await asyncio.wait_for(task, 5)
    assert "".join(e.data for e in events if e.kind == "data") == "line 1\nline 2\n"
    assert [e.kind for e in events][-1] == "end" and "recovered" in [e.kind for e in events]


async def test_a_paused_follower_reads_nothing_until_resumed() -> None:
    jobs = FakeJobs(log=b"line 1\n")
    time = FakeTime()
    follower = TraceFollower(fake_client(jobs), 1, 7, sleep=time.sleep, clock=time.clock)
    seen: list[TraceEvent] = []
    follower.pause()

    async def run() -> None:
        async for event in follower:
            seen.append(event)

    task = asyncio.create_task(run())
    await asyncio.sleep(0.05)
    assert jobs.calls == [] and seen == [] and not follower.reading
    jobs.status = "success"
    follower.resume()
    await asyncio.wait_for(task, 5)
    assert [e.kind for e in seen][-1] == "end" and len(jobs.calls) >= 1
