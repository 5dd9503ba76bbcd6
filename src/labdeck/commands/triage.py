"""``labdeck triage [PROJECT …] [--since 24h] [--json]``: the console's verdicts without the TUI,
for incident channels and scripts.

Without PROJECT it covers the watched set (starred projects, the ``w``-added ones and board
groups). People get a table; ``--json`` prints ``{"failures": […], "clusters": […]}`` (see
:meth:`labdeck.triage.report.TriageReport.as_json`). Projects and logs that could not be read are
named on stderr (and in ``problems``) and make the exit code 1: a partial answer never passes for
"nothing failing". When nothing could be read at all (a refused token, a server that is down) it
says so in one line and prints no table.

With several profiles (``--profile prod,staging``, :func:`run_triage_instances`) every instance is
read with its own client (its own URL, token, TLS settings and dialect, concurrently); each failure
names its instance (``"instance"``), clusters may span instances, and an instance that could not be
read is one problem line naming it while the others' failures are still printed.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import TextIO

from labdeck.api import errors
from labdeck.api.client import ApiClient
from labdeck.base import logsafe
from labdeck.base.session import Session
from labdeck.base.statefile import StateStore
from labdeck.triage import kept
from labdeck.triage.collect import Triager
from labdeck.triage.logcache import LogCache
from labdeck.triage.report import TriageReport, merge_reports
from labdeck.watch.watched import WatchedSet, WatchStore

EXIT_OK, EXIT_FAILURE = 0, 1
_DURATION = re.compile(r"^\s*\d+(?:\.\d+)?\s*[smhdw]\s*$", re.IGNORECASE)
_NOTHING_READ = (errors.Unauthorized, errors.TransportError, errors.TlsConfigError, errors.InvalidToken)
"""Errors about the token or the server, not one project: the round stops with one line."""


def parse_window(text: str) -> timedelta | datetime:
    """``--since``: a duration (``24h``, measured back from the server's clock) or an ISO time.
    Raises ValueError with one line for the command line, also for a duration too long to count
    back from today (``99999999d``)."""
    from labdeck.base.when import parse_since

    anchor = datetime(2000, 1, 1, tzinfo=UTC)
    try:
        start = parse_since(text, now=anchor)
    except OverflowError:
        raise ValueError(f"--since {text.strip()!r} reaches back further than the calendar does: "
                         "use a shorter window, such as 24h or 30d") from None
    if not _DURATION.match(text):
        return start
    window = anchor - start
    if window > timedelta(days=365 * 1000):
        raise ValueError(f"--since {text.strip()!r} reaches back further than the calendar does: "
                         "use a shorter window, such as 24h or 30d")
    return window


async def _projects(client: ApiClient, wanted: Sequence[str], err: TextIO,
                    store: WatchStore | None = None) -> tuple[list[tuple[int, str]], list[str]]:
    """(id, path) of the named projects, or of the watched set (``store``'s); and what could not be found."""
    problems: list[str] = []
    if not wanted:
        watched = await WatchedSet(client, store or WatchStore(StateStore(), client.base_url)).resolve()
        return [(p.id, p.path) for p in watched.projects], list(watched.problems)
    found: list[tuple[int, str]] = []
    for name in wanted:
        try:
            project = await client.projects.get(int(name) if name.isdigit() else name)
        except _NOTHING_READ:
            raise
        except errors.ApiError as exc:
            problems.append(f"{name}: {exc.user_message()}")
            continue
        found.append((project.id, project.path_with_namespace or name))
    return found, problems


async def triage(client: ApiClient, wanted: Sequence[str], since: timedelta | datetime | None, err: TextIO,
                 cache: LogCache | None = None) -> TriageReport:
    """One triage round over ``wanted`` (or the watched set)."""
    cache = cache if cache is not None else LogCache()
    triager = Triager(client, cache)
    store = None
    try:
        if not wanted:
            # The w-added projects, and those the last round covered, are checked (and their pages
            # read when they changed) while the starred listing is asked for; the round covers
            # what the listing says, and drops what it does not.
            store = WatchStore(StateStore(), client.base_url)
            ahead = dict(kept.remembered_projects(cache, client.base_url))
            ahead.update((ref.id, ref.path) for ref in store.projects)
            triager.read_ahead(list(ahead.items()))
        projects, problems = await _projects(client, wanted, err, store)
        report = await triager.round(projects, since=since)
        if not wanted:
            kept.remember_projects(cache, client.base_url, projects)
    finally:
        triager.drop_read_ahead()
    if problems:
        report = replace(report, problems=(*problems, *report.problems))
    return report


def _clean(text: object) -> str:
    return logsafe.printable(str(text))


def format_table(report: TriageReport) -> str:
    """The people's view: clusters first, then one line per failure with its evidence."""
    lines: list[str] = []
    for item in report.clusters:
        lines.append(f"cluster  {_clean(item.title)}")
        jobs = ", ".join(f"{f.instance}#{f.job.id}" if f.instance else f"#{f.job.id}" for f in item.failures)
        lines.append(f"         jobs {jobs} in {', '.join(item.projects)}")
    if report.clusters:
        lines.append("")
    if not report.failures:
        lines.append(f"No failures in {report.projects} project(s).")
    else:
        named = any(failure.instance for failure in report.failures)
        rows: list[tuple[str, ...]] = [(*(("INSTANCE",) if named else ()), "PROJECT", "REF", "JOB", "PIPELINE", "WHY",
                                        "WHOSE", "HISTORY (newest first)")]
        for failure in report.failures:
            rows.append((*((failure.instance,) if named else ()), failure.project, failure.job.ref or "",
                         f"{failure.job.name} #{failure.job.id}",
                         f"#{failure.pipeline_id}", failure.verdict.label, failure.owner or "-",
                         failure.verdict.history.strip() if failure.verdict.history else ""))
        widths = [min(max(len(_clean(row[i])) for row in rows), 48) for i in range(len(rows[0]))]
        for index, row in enumerate(rows):
            lines.append("  ".join(_clean(cell)[:48].ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
            if index:
                for line in report.failures[index - 1].verdict.evidence[:3]:
                    lines.append(f"    {_clean(line)}")
    for share in report.flagged_runners:
        lines.append(f"runner failing above the fleet: {_clean(share.describe())}")
    return "\n".join(lines)


def _one_reason(problems: Sequence[str]) -> str:
    """The reason shared by every problem (``Not authorized (401) …``), else the first and a count."""
    reasons = {problem.split(": ", 1)[-1] for problem in problems}
    if len(reasons) == 1:
        return next(iter(reasons))
    return f"{problems[0]} (and {len(problems) - 1} more)"


def run_triage(session: Session, wanted: Sequence[str], since: timedelta | datetime | None, as_json: bool,
               out: TextIO, err: TextIO) -> int:
    """Run a round and print it; 1 when a project could not be read."""

    reports: list[TriageReport] = []

    async def main() -> None:
        verify: bool | str = session.ca_file or not session.insecure
        async with ApiClient(session.base_url, session.token, read_only=True, verify=verify) as client:
            reports.append(await triage(client, wanted, since, err))

    try:
        # Not the main task's result: Python 3.11's asyncio.run formats the main task, result and
        # all, when it restores the Ctrl+C handler (seconds for a report of a thousand jobs).
        asyncio.run(main())
        report = reports[0]
    except errors.ApiError as exc:
        err.write(f"labdeck triage: nothing read: {_clean(exc.user_message())}\n")
        return EXIT_FAILURE
    if report.problems and not report.pages:
        err.write(f"labdeck triage: nothing read: {_clean(_one_reason(report.problems))}\n")
        return EXIT_FAILURE
    if as_json:
        out.write(json.dumps(report.as_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        out.write(format_table(report) + "\n")
    for problem in report.problems:
        err.write(f"labdeck triage: could not read {_clean(problem)}\n")
    return EXIT_FAILURE if report.problems else EXIT_OK


def _read(session: Session) -> Callable[[Sequence[str], timedelta | datetime | None, TextIO], Awaitable[TriageReport]]:
    async def read(wanted: Sequence[str], since: timedelta | datetime | None, err: TextIO) -> TriageReport:
        # The instance's own client: its token goes to its own origin only (the client never
        # follows a redirect, and attaches the token to its base URL's origin alone).
        verify: bool | str = session.ca_file or not session.insecure
        async with ApiClient(session.base_url, session.token, read_only=True, verify=verify) as client:
            return await triage(client, wanted, since, err)

    return read


def _aimed(wanted: Sequence[str], name: str, names: Sequence[str]) -> list[str]:
    """The projects to read on instance ``name``: ``name:path`` ones, and unprefixed ones (every
    instance)."""
    chosen = []
    for item in wanted:
        prefix, _, rest = item.partition(":")
        if rest and prefix in names:
            if prefix == name:
                chosen.append(rest)
        else:
            chosen.append(item)
    return chosen


def run_triage_instances(sessions: Sequence[tuple[str, Session | str]], wanted: Sequence[str],
                         since: timedelta | datetime | None, as_json: bool, out: TextIO, err: TextIO,
                         profile_urls: Mapping[str, str] | None = None) -> int:
    """Triage several instances (short name → its session, or why there is none) in one report;
    1 when one of them, or a project or log of one, could not be read. ``profile_urls`` names the
    URL of an instance that has no session (its token was missing), for ``--json``."""
    names = [name for name, _ in sessions]
    readable = [(name, session) for name, session in sessions if isinstance(session, Session)]
    refused: dict[str, str] = {name: session for name, session in sessions if isinstance(session, str)}
    # Only instances a project was aimed at (or all, when none is aimed) are read.
    aimed = {name: _aimed(wanted, name, names) for name, _ in readable}
    readable = [(name, session) for name, session in readable if not wanted or aimed[name]]

    async def main() -> list[TriageReport | BaseException]:
        rounds = [_read(session)(aimed[name], since, err) for name, session in readable]
        return list(await asyncio.gather(*rounds, return_exceptions=True))

    reports: dict[str, TriageReport] = {}
    for (name, _), result in zip(readable, asyncio.run(main()), strict=True):
        if isinstance(result, errors.ApiError):
            refused[name] = result.user_message()
        elif isinstance(result, BaseException):
            raise result
        elif result.problems and not result.pages:
            refused[name] = _one_reason(result.problems)
        else:
            reports[name] = result
    merged = merge_reports(reports)
    unread = [f"{name}: nothing read: {reason}" for name, reason in refused.items()]
    if as_json:
        data = merged.as_json()
        data["problems"] = [*unread, *merged.problems]
        data["instances"] = [{"name": name, "url": session.base_url if isinstance(session, Session)
                              else (profile_urls or {}).get(name),
                              "read": name in reports, "problem": refused.get(name)} for name, session in sessions]
        out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    elif reports:
        out.write(format_table(merged) + "\n")
    for line in unread:
        err.write(f"labdeck triage: {_clean(line)}\n")
    for problem in merged.problems:
        err.write(f"labdeck triage: could not read {_clean(problem)}\n")
    return EXIT_FAILURE if unread or merged.problems else EXIT_OK
