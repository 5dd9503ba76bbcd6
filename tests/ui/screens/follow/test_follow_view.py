"""The merged view (``F``) against a private simulator over real HTTP: a stage of deploy jobs
followed at once; end lines; the header's error counts; e/E; one job alone; filter; pause without
loss; enter opens the job's own log at the line; a failure rings the alert when the view is hidden."""

from __future__ import annotations

import re
from typing import Any

import pytest
from textual.content import Content

from labdeck.ui.screens.follow.header import FollowHeader
from labdeck.ui.screens.follow.screen import FollowScreen
from labdeck.ui.screens.follow.view import FollowView
from labdeck.ui.screens.jobs.trace import TraceScreen
from labdeck.ui.widgets.status_line import StatusLine
from tests.support.hostile_corpus import HOSTILE
from tests.support.pilot import wait_until
from tests.ui.conftest import SimConsole
from tests.ui.follow_support import REGIONS, deploy_stage, job_id, open_follow_view, rows
from tests.ui.jobs_support import PROJECT_ID, advance, append_trace, control, create_pipeline

SGR = re.compile(r"\x1b\[[0-9;]*m")


pytestmark = pytest.mark.usefixtures("fast_following")  # reads every few tens of milliseconds


async def test_a_stage_followed_with_F_merges_lines_says_each_end_and_counts_errors(console: SimConsole) -> None:
    server = console.server
    pipeline = await deploy_stage(server)
    async with console.run(size=(120, 40)) as (app, pilot):
        follow = await open_follow_view(app, pilot, pipeline)
        view = follow.view
        for region in REGIONS:
            await append_trace(server, job_id(pipeline, region), f"rolling out {region}\n".encode())
        await wait_until(pilot, lambda: len(rows(view)) >= 3, what="a line of each job")
        assert sorted(rows(view)) == sorted(f"deploy-{r} │ rolling out {r}" for r in REGIONS)
        await append_trace(server, job_id(pipeline, "eu"),
                           b"error: the eu rollout failed\n\x1b[31;1mERROR: Job failed: exit code 1\x1b[0;m\n")
        await advance(server, 700)
        await wait_until(pilot, lambda: all(state.ended for state in follow.follower.states), what="every end")
        await pilot.pause(0.2)
        shown = rows(view)
        assert any(line.startswith("deploy-eu ✗ failed after 10m") for line in shown), shown
        assert any(line.startswith("deploy-us ✓ passed after 10m") for line in shown)
        header = follow.query_one(FollowHeader).render()
        assert "deploy-eu ✗ 1 err" in str(header)
        # e lands on the error line; enter opens the job's own log at that line.
        await pilot.press("e")
        entry = view.cursor_entry
        assert entry is not None and "the eu rollout failed" in entry.text and not view.following
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TraceScreen), what="the job's own log")
        trace = app.screen
        assert isinstance(trace, TraceScreen) and trace.job.id == job_id(pipeline, "eu")
        await wait_until(pilot, lambda: trace.view.cursor_line == entry.line and not trace.view.following,
                         what="the cursor on the error line")


async def test_pause_keeps_reading_and_loses_nothing(console: SimConsole) -> None:
    server = console.server
    pipeline = await deploy_stage(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        follow = await open_follow_view(app, pilot, pipeline)
        view = follow.view
        await append_trace(server, job_id(pipeline, "us"), b"before\n")
        await wait_until(pilot, lambda: view.row_count == 1, what="the first line")
        await pilot.press("p")
        for number in range(30):
            await append_trace(server, job_id(pipeline, "us" if number % 2 else "ap"), f"during {number}\n".encode())
        await wait_until(pilot, lambda: view.pending == 30, what="the lines read while paused")
        assert view.row_count == 1 and not view.following
        await wait_until(pilot, lambda: "paused · 30 new lines" in str(follow.query_one(FollowHeader).render()),
                         what="the header counting them")
        await pilot.resize_terminal(120, 40)
        await pilot.pause(0.2)
        await pilot.press("f")
        assert view.following and view.row_count == 31
        shown = rows(view)
        assert shown[0] == "deploy-us │ before"
        # Nothing lost, nothing twice, each job's lines in their order (jobs interleave as read).
        for region, parity in (("us", 1), ("ap", 0)):
            assert [line.split(" │ ")[1] for line in shown[1:] if line.startswith(f"deploy-{region}")] == [
                f"during {n}" for n in range(30) if n % 2 == parity]
        # A resize never pauses following.
        await pilot.resize_terminal(80, 24)
        await append_trace(server, job_id(pipeline, "eu"), b"after resize\n")
        await wait_until(pilot, lambda: view.row_count == 32, what="a line after the resize")
        assert view.following and view.scroll_y == view.max_scroll_y


async def test_one_job_alone_and_back_and_a_filter(console: SimConsole) -> None:
    server = console.server
    pipeline = await deploy_stage(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        follow = await open_follow_view(app, pilot, pipeline)
        view = follow.view
        for region in REGIONS:
            await append_trace(server, job_id(pipeline, region), f"hello {region}\nbye {region}\n".encode())
        await wait_until(pilot, lambda: view.row_count == 6, what="every line")
        order = [job["name"] for job in sorted(pipeline["jobs"], key=lambda job: job["id"])]
        await pilot.press("2")
        assert {line.split(" │ ")[0].strip() for line in rows(view)} == {order[1]}
        await pilot.press("2")
        assert view.row_count == 6
        everything = rows(view)
        await pilot.press("slash")
        await pilot.press(*"bye", "enter")
        # The lines kept, in the order they arrived (jobs are read in turns: not always eu first).
        assert rows(view) == [line for line in everything if "│ bye " in line]
        assert sorted(line.split(" │ ")[1] for line in rows(view)) == sorted(f"bye {r}" for r in REGIONS)
        await pilot.press("escape")
        assert view.row_count == 6


async def test_a_job_failing_while_the_view_is_hidden_rings_the_alert(console: SimConsole) -> None:
    server = console.server
    pipeline = await deploy_stage(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        follow = await open_follow_view(app, pilot, pipeline)
        rung: list[Any] = []
        app.watching.ring = lambda target, status, job_id=None: rung.append((target.job_name, status))  # type: ignore[method-assign]
        await app.push_screen(TraceScreen(PROJECT_ID, follow.project_path, follow.jobs[0]))
        await advance(server, 700)
        await wait_until(pilot, lambda: rung, what="the alert")
        assert rung == [("deploy-eu", "failed")]


def on_screen(view: FollowView) -> list[str]:
    """The rows the view shows now (what its lines render to, top to bottom)."""
    return [view.render_line(y).text.rstrip() for y in range(view.scrollable_content_region.height)]


async def test_lines_arriving_in_bursts_are_all_shown_and_a_paused_view_holds_still(console: SimConsole) -> None:
    server = console.server
    pipeline = await deploy_stage(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        follow = await open_follow_view(app, pilot, pipeline)
        view = follow.view
        total = 0
        for burst in range(3):  # each job writes hundreds of lines between two reads
            for region in REGIONS:
                await append_trace(server, job_id(pipeline, region), "".join(
                    f"{region} burst {burst} line {n}\n" for n in range(300)).encode())
            total += 300 * len(REGIONS)
            await wait_until(pilot, lambda expected=total: view.row_count == expected,
                             what=f"burst {burst}")
        await pilot.pause(0.3)
        assert view.following and view.scroll_y == view.max_scroll_y
        newest = view.line_text(view.merged.entry(view.merged.total - 1)).plain
        assert on_screen(view)[-1] == newest  # the last line of the burst is the bottom row
        shown = rows(view)
        for region in REGIONS:  # every line, once, in its job's order
            assert [line.split(" │ ")[1] for line in shown if line.startswith(f"deploy-{region}")] == [
                f"{region} burst {b} line {n}" for b in range(3) for n in range(300)]
        await pilot.press("p")
        held = on_screen(view)
        for region in REGIONS:
            await append_trace(server, job_id(pipeline, region), f"{region} while paused\n".encode() * 100)
        await wait_until(pilot, lambda: view.pending == 300, what="the lines read while paused, counted")
        await pilot.pause(0.3)
        assert on_screen(view) == held and view.row_count == total
        await wait_until(pilot, lambda: "paused · 300 new lines" in str(follow.query_one(FollowHeader).render()),
                         what="the header counting them (its counts move once a second)")
        assert on_screen(view) == held
        await pilot.press("f")
        assert view.row_count == total + 300
        await pilot.pause(0.3)
        assert on_screen(view)[-1] == view.line_text(view.merged.entry(view.merged.total - 1)).plain


async def test_the_header_grows_when_its_text_needs_another_line(console: SimConsole) -> None:
    server = console.server
    pipeline = await deploy_stage(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        follow = await open_follow_view(app, pilot, pipeline)
        header = follow.query_one(FollowHeader)
        await pilot.pause(0.3)
        before = header.size.height
        await pilot.press("slash")
        await pilot.press(*"a-long-filter-text-that-needs-a-line-of-its-own", "enter")
        await wait_until(pilot, lambda: header.size.height == before + 1, what="a taller header")
        assert "a-long-filter-text-that-needs-a-line-of-its-own" in str(header.render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: header.size.height == before, what="the header as it was")


def status_part(screen: FollowScreen, part: str) -> str:
    """A part of the screen's status line as shown ("" while it has none)."""
    lines = list(StatusLine.on_screen(screen))
    return lines[0]._shown.get(part, "") if lines else ""


def age_is_stale(screen: FollowScreen) -> bool:
    return any(status._part_classes.get(("age", "-stale"), False) for status in StatusLine.on_screen(screen))


async def test_the_status_line_says_how_fresh_the_reads_are_through_a_502_storm(
        behind_switch: Any, console: SimConsole) -> None:
    server, switch, via = behind_switch
    pipeline = await deploy_stage(server)
    async with console.run(via=via, size=(80, 24)) as (app, pilot):
        follow = await open_follow_view(app, pilot, pipeline)
        await append_trace(server, job_id(pipeline, "us"), b"rolling out us\n")
        await wait_until(pilot, lambda: status_part(follow, "age") == "data <10s" and "online" in
                         status_part(follow, "health") and status_part(follow, "mode") == "WRITE",
                         limit=5, what="the status line, fresh")
        assert not age_is_stale(follow)
        switch.set("bad_gateway")
        await wait_until(pilot, lambda: "502" in status_part(follow, "health"), limit=10,
                         what="the storm on the status line")
        # Reads are at most 0.1 s apart here: the data turns stale once 5.2 s pass without an answer.
        await wait_until(pilot, lambda: age_is_stale(follow), limit=15, what="the data age turning stale")
        switch.set("pass")
        await wait_until(pilot, lambda: "online" in status_part(follow, "health") and not age_is_stale(follow),
                         limit=40, what="fresh again with the first good reads")


async def test_six_regions_have_six_label_colours_in_the_view_and_the_header(console: SimConsole) -> None:
    server = console.server
    regions = ("eu", "us", "ap", "ca", "sa", "au")
    for runner_id in list(server.state.runners):
        await control(server, "PUT", f"/runners/{runner_id}", json={"concurrent": 20})
    pipeline = await create_pipeline(server, [{"name": "deploy", "jobs": [
        {"name": f"deploy-{region}", "generate_trace": False, "duration": None} for region in regions]}])
    await advance(server, 5)
    async with console.run(size=(120, 40)) as (app, pilot):
        follow = await open_follow_view(app, pilot, pipeline)
        view = follow.view
        for region in regions:
            await append_trace(server, job_id(pipeline, region), f"rolling out {region}\n".encode())
        await wait_until(pilot, lambda: view.row_count == 6, what="a line of each region")
        labels = {}
        for row in range(6):
            entry = view.merged.entry(view.seq_at(row) or 0)
            text = view.line_text(entry)
            labels[entry.job] = text.spans[0].style
        assert len({str(style) for style in labels.values()}) == 6, labels
        header = follow.query_one(FollowHeader)
        await wait_until(pilot, lambda: "6 deploy-" in str(header.render()), what="the header")
        shown = header.render()  # a Content: its plain text and its spans, as Text has
        assert isinstance(shown, Content)
        styles = {str(span.style) for span in shown.spans if shown.plain[span.start:span.end].startswith("deploy-")}
        assert len(styles) == 6, styles


async def test_hostile_text_in_two_jobs_at_once_reaches_the_screen_only_as_sgr_styles(console: SimConsole) -> None:
    server = console.server
    pipeline = await deploy_stage(server)
    raw = "".join(text + "\n" for _, text, _ in HOSTILE)
    async with console.run(size=(120, 40)) as (app, pilot):
        follow = await open_follow_view(app, pilot, pipeline)
        view = follow.view
        first, second = (follow.jobs[number].id for number in (0, 1))
        await append_trace(server, first, raw.encode())
        await append_trace(server, second, raw.encode())
        # What each sample leaves visible (a carriage return is then resolved by the line layer, as
        # in the single viewer: that sample is left out here).
        expected = {line for _, _, visible in HOSTILE if "\r" not in visible for line in visible.split("\n") if line}
        merged = view.merged

        def arrived(job: int) -> set[str]:
            return {SGR.sub("", merged.entry(seq).text) for seq in range(merged.dropped, merged.total)
                    if merged.entry(seq).job == job}

        for number in (0, 1):
            await wait_until(pilot, lambda number=number: expected <= arrived(number),
                             what=f"every hostile sample of job {number + 1}, as its visible text")
        await pilot.pause(0.3)
        for row in range(view.row_count):
            seq = view.seq_at(row)
            assert seq is not None
            for segment in view.line_text(view.merged.entry(seq)).render(app.console):
                assert segment.text.isprintable() or segment.text == "\n", repr(segment.text)
                assert not {"\u202e", "\u2066", "\ufeff", "\u200e"} & set(segment.text)
        on = on_screen(view)
        assert all(line.isprintable() for line in on) and "pwned" not in "".join(on)


async def test_e_and_E_go_from_one_jobs_error_line_to_anothers_and_back(console: SimConsole) -> None:
    server = console.server
    pipeline = await deploy_stage(server)
    async with console.run(size=(80, 24)) as (app, pilot):
        follow = await open_follow_view(app, pilot, pipeline)
        view = follow.view
        await append_trace(server, job_id(pipeline, "us"), b"fine\nerror: us broke\nfine again\n")
        await wait_until(pilot, lambda: view.row_count == 3, what="the us lines")
        await append_trace(server, job_id(pipeline, "ap"), b"Traceback (most recent call last):\n"
                                                           b"  File \"deploy.py\", line 3\nValueError: ap broke\n")
        await wait_until(pilot, lambda: view.row_count == 6 and follow.follower.log.error_total == 2,
                         what="the ap lines, an error line of each job")

        def at() -> str:
            entry = view.cursor_entry
            return f"{follow.follower.labels[entry.job]} {entry.text}" if entry is not None else ""

        await pilot.press("e")
        assert at() == "deploy-us error: us broke" and not view.following
        await pilot.press("e")
        assert at().startswith("deploy-ap Traceback")
        await pilot.press("E")
        assert at() == "deploy-us error: us broke"
        await pilot.press("f")
        assert view.following
