"""``bench_board.py --scenario fresh``: what the board claims, on the poller's own (fake) clock.

One process per (poller source, dialect, projects): the simulator in-process on a manual clock,
moved in lockstep with the poller's fake clock, a second at a time, so that minutes of watching
take seconds; server latency is not modelled here (the ``pushes`` scenario measures it at 100 ms).
Measured: steady requests in the busiest minute while idle (any 60 s), time from a failure to its
row (a project active within the last hour, and a quiet one), time from a retry sent through the
console's client to the row leaving ``failed``, the oldest row's age at the end, and RSS. The
current poller runs from ``LABDECK_BENCH_SRC`` (``/work/main/src`` style checkout) beside ours.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def run(sources: dict[str, str], dialects: list[str], sizes: list[int], failures: int) -> int:
    """Run every combination in its own process and print a table."""
    rows = []
    for label, src in sources.items():
        for dialect in dialects:
            for size in sizes:
                env = {**os.environ, "PYTHONPATH": src}
                done = subprocess.run([sys.executable, str(Path(__file__)), dialect, str(size), str(failures)],
                                      env=env, capture_output=True, text=True, timeout=3600, check=False)
                line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
                try:
                    figures = json.loads(line)
                except ValueError:
                    figures = {"error": (done.stderr.strip().splitlines() or ["?"])[-1][:100]}
                rows.append((label, dialect, size, figures))
                print(label, dialect, size, json.dumps(figures), flush=True)
    return 0 if rows else 1


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _one(dialect: str, size: int, failures: int) -> dict[str, Any]:
    import httpx

    from labdeck.api import ApiClient
    from labdeck.base.secret import Secret
    from labdeck.sim.core.clock import SimClock
    from labdeck.sim.dataset.build import DEMO_TOKENS, build_state
    from labdeck.sim.server import SimServer
    from labdeck.watch import BoardPoller, PollerSettings, ServerClock, WatchedProject, WatchedProjects

    server = SimServer(build_state(seed=42, clock=SimClock(mode="manual"), dialect=dialect,
                                   projects=size)).start()  # type: ignore[arg-type]
    admin = httpx.AsyncClient(base_url=server.base_url, headers={"PRIVATE-TOKEN": DEMO_TOKENS["admin"]}, timeout=60)

    class Fake:
        now = 1000.0

        def clock(self) -> float:
            return self.now

        async def sleep(self, seconds: float) -> None:
            self.now += seconds

    fake = Fake()
    sent: list[float] = []
    boards: list[Any] = []
    ids = sorted(server.state.projects)
    rng = random.Random(7)
    try:
        async with ApiClient(server.base_url, Secret(DEMO_TOKENS["admin"])) as client:
            client.gate.clock = fake.clock

            latency = float(os.environ.get("LABDECK_BENCH_LATENCY", "0") or 0)

            async def note(request: httpx.Request) -> None:
                sent.append(fake.now)
                # ``--latency``: each request costs that much of the poller's clock (one after
                # the other: a pessimistic model of a slow server, reads in flight together
                # would overlap).
                fake.now += latency

            poller = BoardPoller(client, PollerSettings(), clock=fake.clock, sleep=fake.sleep,
                                 server_clock=ServerClock(source=server.state.now), rng=random.Random(3))
            poller.subscribe_board(boards.append, watched=WatchedProjects(tuple(WatchedProject(p, str(p)) for p in ids)))

            async def run_for(seconds: float) -> None:
                end = fake.now + seconds
                while fake.now < end:
                    delay = await poller.step()
                    fake.now = min(end, fake.now + delay)

            async def lockstep(seconds: int, done: Any) -> int | None:
                for second in range(seconds):
                    if done():
                        return second
                    await admin.post("/-/sim/clock/advance", params={"seconds": 1})
                    await run_for(1)
                return None

            for _ in range(2000):
                await run_for(1)
                if boards and boards[-1].loading == 0:
                    break
            await run_for(60)
            client.http.event_hooks["request"].append(note)
            start = fake.now
            await run_for(300)  # idle: the simulator's clock stands still
            idle = [t for t in sent if t >= start]
            busiest = max((sum(1 for t in idle if s <= t < s + 60) for s in idle), default=0)

            def failed(pipeline: int) -> bool:
                return any(row.pipeline_id == pipeline and row.status == "failed" for row in boards[-1].rows)

            async def push(pid: int, fail: bool, duration: int, flaky: bool = False) -> dict[str, Any]:
                # The last failure is retried: flaky (it passes when retried), so that the row
                # leaves ``failed`` for good; a retry that failed again before the next read left
                # it ``failed`` and the retry unseen.
                job: dict[str, Any] = {"name": "unit-tests", "duration": duration}
                job.update({"flaky": True} if flaky else {"fail": fail})
                body = {"ref": "master", "stages": [{"name": "test", "jobs": [job]}]}
                answer = await admin.post(f"/-/sim/projects/{pid}/pipelines", json=body)
                answer.raise_for_status()
                result: dict[str, Any] = answer.json()
                return result

            latencies: dict[str, list[float]] = {"recent": [], "quiet": []}
            missed = {"recent": 0, "quiet": 0}
            picks = rng.sample(ids[10:], failures * 2)
            for index, pid in enumerate(picks):
                kind = "recent" if index % 2 == 0 else "quiet"
                if kind == "recent":
                    await push(pid, False, 20)  # active a few minutes ago: GitLab's activity will not move again
                    await lockstep(180, lambda: False)
                pushed = await push(pid, True, 5, flaky=index == len(picks) - 1)
                job = pushed["jobs"][0]["id"]
                # The clock starts when the job has failed: a job may wait minutes for a runner (the
                # simulator's runners are busy), and the board is right to show it pending meanwhile.
                waited = await lockstep(900, lambda job=job: server.state.jobs[job].status == "failed")
                if waited is None:
                    missed[kind] += 1
                    continue
                took = await lockstep(900, lambda p=pushed["id"]: failed(p))
                if took is None:
                    missed[kind] += 1
                else:
                    latencies[kind].append(float(took))
            last = pushed
            failed_job = (await admin.get(f"/api/v4/projects/{picks[-1]}/jobs", params={"scope[]": "failed"})).json()[0]
            await run_for(60)
            await client.jobs.retry(picks[-1], failed_job["id"])
            retry = await lockstep(600, lambda: not failed(last["id"]))
            ages = getattr(poller, "row_ages", None)
            oldest = ages().oldest(boards[-1].rows) if ages is not None else None
            if oldest is None:
                oldest = max((fake.now - (s.polled_at or fake.now) for s in boards[-1].projects.values()), default=None)
            poller.close()
    finally:
        await admin.aclose()
        server.stop()
    figures: dict[str, Any] = {"idle_max_min": busiest, "retry_s": retry,
                               "oldest_s": round(oldest, 1) if oldest is not None else None,
                               "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    for kind, values in latencies.items():
        figures[kind] = {"p50": _pct(values, 0.5), "p95": _pct(values, 0.95), "max": max(values, default=None),
                         "missed": missed[kind], "each": values}
    return figures


if __name__ == "__main__":
    dialect, size, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print(json.dumps(asyncio.run(_one(dialect, size, count))))
