"""``labdeck follow``: the merged stream of a stage, exiting with the worst job status."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from labdeck.sim.server import SimServer
from tests.support.process import Run
from tests.support.sim_control import advance, control

PROJECT = 1


def deploy_pipeline(server: SimServer) -> dict[str, Any]:
    with control(server) as admin:
        answer = admin.post(f"/-/sim/projects/{PROJECT}/pipelines", json={"ref": "master", "stages": [
            {"name": "build", "jobs": [{"name": "compile", "duration": 10}]},
            {"name": "deploy", "jobs": [
                {"name": "deploy-eu", "duration": 40, "fail": True, "script_lines": ["./deploy eu"]},
                {"name": "deploy-us", "duration": 30, "script_lines": ["./deploy us"]},
                {"name": "deploy-ap", "duration": 50, "script_lines": ["./deploy ap"]}]}]})
    assert answer.status_code == 201, answer.text
    return answer.json()


def follow_while_time_moves(server: SimServer, run_labdeck: Callable[..., Run], *args: str,
                            env: dict[str, str]) -> Run:
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(run_labdeck, "follow", *args, env=env, timeout=90)
        deadline = time.monotonic() + 80
        while not running.done() and time.monotonic() < deadline:
            advance(server, 10)
            time.sleep(0.3)
        return running.result()


def test_follow_a_stage_prints_the_merged_stream_and_exits_1_when_a_job_failed(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str], run_labdeck: Callable[..., Run]) -> None:
    server = sim_factory()
    pipeline = deploy_pipeline(server)
    env = {"LABDECK_URL": server.base_url, "LABDECK_TOKEN": tokens["user"]}
    run = follow_while_time_moves(server, run_labdeck, str(PROJECT),
                                  str(pipeline["id"]), "--stage", "deploy", env=env)
    assert run.returncode == 1, run.output
    lines = run.stdout.splitlines()
    assert "\x1b" not in run.stdout  # not a terminal: no colour at all
    assert any(line.startswith("deploy-eu │ ") and "./deploy eu" in line for line in lines)
    assert any(line.startswith("deploy-us │ ") for line in lines)
    assert not any(line.startswith("compile") for line in lines)
    assert any(line.startswith("deploy-eu ✗ failed after 40s") for line in lines), run.stdout[-2000:]
    assert any(line.startswith("deploy-us ✓ passed after 30s") for line in lines)
    assert any(line.startswith("deploy-ap ✓ passed after 50s") for line in lines)
    # The end lines come after each job's own lines.
    eu_lines = [index for index, line in enumerate(lines) if line.startswith("deploy-eu")]
    assert lines[eu_lines[-1]].startswith("deploy-eu ✗")
    assert "3 job(s)" in run.stderr


def test_follow_named_jobs_that_pass_exits_0(sim_factory: Callable[..., SimServer], tokens: dict[str, str],
                                             run_labdeck: Callable[..., Run]) -> None:
    server = sim_factory()
    pipeline = deploy_pipeline(server)
    env = {"LABDECK_URL": server.base_url, "LABDECK_TOKEN": tokens["user"]}
    run = follow_while_time_moves(server, run_labdeck, str(PROJECT), str(pipeline["id"]), "deploy-us", "compile",
                                  env=env)
    assert run.returncode == 0, run.output
    assert "deploy-eu" not in run.stdout
    assert "deploy-us ✓ passed" in run.stdout and "compile ✓ passed" in run.stdout


def test_follow_an_unknown_stage_says_which_exist(sim_factory: Callable[..., SimServer], tokens: dict[str, str],
                                                  run_labdeck: Callable[..., Run]) -> None:
    server = sim_factory()
    pipeline = deploy_pipeline(server)
    run = run_labdeck("follow", str(PROJECT), str(pipeline["id"]), "--stage", "nope",
                      env={"LABDECK_URL": server.base_url, "LABDECK_TOKEN": tokens["user"]})
    assert run.returncode == 2
    assert "no job in stage 'nope'" in run.stderr and "deploy" in run.stderr


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_colours_only_on_a_terminal_and_never_with_NO_COLOR() -> None:
    from labdeck.commands.follow import wants_colour

    assert wants_colour(_Stream(True), {}) is True  # type: ignore[arg-type]
    assert wants_colour(_Stream(False), {}) is False  # type: ignore[arg-type]
    assert wants_colour(_Stream(True), {"NO_COLOR": "1"}) is False  # type: ignore[arg-type]
    assert wants_colour(_Stream(True), {"NO_COLOR": ""}) is True  # type: ignore[arg-type]


def test_on_a_terminal_prefixes_are_coloured_and_the_log_keeps_only_its_sgr() -> None:
    import io
    from types import SimpleNamespace

    from labdeck.commands.follow import Printer
    from labdeck.operations.following.multi import MultiFollower
    from labdeck.operations.following.statuses import FollowedJob

    client = SimpleNamespace(jobs=SimpleNamespace())
    follower = MultiFollower(client, [FollowedJob(1, 1, "deploy-eu"), FollowedJob(1, 2, "deploy-us")])
    follower.log.feed(0, "\x1b]0;title\x07\x1b[31mred\x1b[0m \x1b[2Jdone\n")
    follower.log.feed(1, "plain\n")
    out = io.StringIO()
    Printer(follower, out, colour=True)()
    first, second = out.getvalue().splitlines()
    assert first.startswith("\x1b[36mdeploy-eu\x1b[0m │ ")
    assert "title" not in first and "\x1b[2J" not in first and "\x1b[31mred" in first
    assert second.startswith("\x1b[35mdeploy-us\x1b[0m │ plain")
    out = io.StringIO()
    printer = Printer(follower, out, colour=False)
    printer()
    assert out.getvalue() == "deploy-eu │ red done\ndeploy-us │ plain\n"


def test_follow_gives_up_on_a_server_that_is_gone_and_names_the_jobs_it_could_not_see_end(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str], run_labdeck: Callable[..., Run]) -> None:
    """Issue 32 (leftover): a ``labdeck follow`` left running against a stopped simulator was
    still retrying 1.5 h later, silently. Now it says on stderr what is wrong while it retries,
    and after ``--give-up-after`` without a successful read exits 5 naming the jobs whose ends it
    did not see."""
    from labdeck.sim.core.requests import request_log

    server = sim_factory()
    pipeline = deploy_pipeline(server)
    advance(server, 15)  # compile done, the deploy jobs running
    env = {"LABDECK_URL": server.base_url, "LABDECK_TOKEN": tokens["user"]}
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(run_labdeck, "follow", str(PROJECT), str(pipeline["id"]), "--stage", "deploy",
                              "--give-up-after", "4s", env=env, timeout=60)
        deadline = time.monotonic() + 30
        while not any(record.path.endswith("/trace") for record in request_log(server.state).records()):
            assert time.monotonic() < deadline and not running.done(), "no log read before the stop"
            time.sleep(0.1)
        stopped = time.monotonic()
        server.stop()
        run = running.result()
    took = time.monotonic() - stopped
    assert run.returncode == 5, run.output
    assert took < 25, took  # 4 s of silence, then out (not 1.5 h)
    said = run.stderr
    assert f"no answer from {server.base_url}" in said and "retrying" in said, said
    assert "gave up" in said and "deploy-eu" in said and "deploy-us" in said and "deploy-ap" in said, said
    assert "not seen" in said, said


def test_a_refused_token_ends_follow_at_once_with_its_own_status(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str], run_labdeck: Callable[..., Run]) -> None:
    """Issue 32 (leftover): a 401 that never cleared kept ``labdeck follow`` waiting the whole
    ``--give-up-after`` (5 minutes by default), as if it were weather. A refused token is not: it
    says so at once, says what to do, and exits 6 (not 5, "gave up"), naming the jobs not seen to end."""
    from tests.support.fault_switch import FaultSwitch

    server = sim_factory()
    pipeline = deploy_pipeline(server)
    advance(server, 15)
    with FaultSwitch(server.base_url) as switch, ThreadPoolExecutor(1) as pool:
        env = {"LABDECK_URL": switch.url, "LABDECK_TOKEN": tokens["user"]}
        running = pool.submit(run_labdeck, "follow", str(PROJECT), str(pipeline["id"]), "--stage", "deploy",
                              env=env, timeout=120)
        deadline = time.monotonic() + 30
        while not any(path.endswith("/trace") for _, _, path, _ in switch.api_requests()):
            assert time.monotonic() < deadline and not running.done(), "no log read before the 401s"
            time.sleep(0.1)
        switch.set("revoked")
        refused = time.monotonic()
        run = running.result()
        took = time.monotonic() - refused
        refused_requests = [status for _, _, _, status in switch.api_requests() if status == 401]
    assert run.returncode == 6, run.output
    assert took < 15, took  # not the 5 minutes of --give-up-after
    assert f"{switch.url} refuses the token (401)" in run.stderr, run.stderr
    assert "labdeck login" in run.stderr and "LABDECK_TOKEN" in run.stderr, run.stderr
    assert "gave up" not in run.stderr and "not seen" in run.stderr and "deploy-eu" in run.stderr, run.stderr
    assert tokens["user"] not in run.output
    assert 1 <= len(refused_requests) <= 10, refused_requests


def test_follow_goes_on_with_the_token_signed_in_again(
        sim_factory: Callable[..., SimServer], tokens: dict[str, str], run_labdeck: Callable[..., Run]) -> None:
    """A 401 makes ``labdeck follow`` read its token again (keyring, token files): a new one, stored
    with ``labdeck login`` meanwhile, takes over the reads and the command ends as usual."""
    from tests.support.fault_switch import FaultSwitch

    server = sim_factory()
    pipeline = deploy_pipeline(server)
    advance(server, 15)
    with FaultSwitch(server.base_url) as switch, ThreadPoolExecutor(1) as pool:
        def login(token: str) -> None:
            done = run_labdeck("login", "--url", switch.url, "--token-stdin", "--insecure-storage", stdin=token)
            assert done.returncode == 0, done.output

        login(tokens["user"])
        running = pool.submit(run_labdeck, "follow", "--url", switch.url, str(PROJECT), str(pipeline["id"]),
                              "--stage", "deploy", env={"LABDECK_TOKEN": "", "GITLAB_TOKEN": ""}, timeout=120)
        deadline = time.monotonic() + 30
        while not any(path.endswith("/trace") for _, _, path, _ in switch.api_requests()):
            assert time.monotonic() < deadline and not running.done(), "no log read before the 401s"
            time.sleep(0.1)
        login(tokens["admin"])
        switch.set("revoked", tokens={tokens["user"]})
        deadline = time.monotonic() + 90
        while not running.done() and time.monotonic() < deadline:
            advance(server, 10)
            time.sleep(0.3)
        run = running.result()
    assert run.returncode == 1, run.output
    assert "refuses the token (401)" in run.stderr and "the token now in file (insecure)" in run.stderr, run.stderr
    assert "deploy-eu ✗ failed after 40s" in run.stdout and "deploy-ap ✓ passed" in run.stdout
