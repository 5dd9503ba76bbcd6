"""``labdeck follow PROJECT PIPELINE [JOB …] [--stage NAME]``: the merged live log of many jobs on
stdout, for scripts and a second tmux pane.

Every line is prefixed by its job's short name (``deploy-eu │ …``); a job that ends adds one line
saying how (``deploy-eu ✗ failed after 4m12s``). Colours (each job's prefix, and the log's own
SGR colours) only on a terminal and never with ``NO_COLOR``; elsewhere the text is plain. The text
is the single log viewer's (sanitized: only SGR could reach the terminal). Reads share one budget
(two requests a second in all). The command ends when every chosen job has finished; its exit code
is the worst status: 0 all passed (or skipped), 1 one failed, 3 one was canceled (none failed),
4 the jobs could not be read, 5 it gave up: no read succeeded for ``--give-up-after`` (5 minutes by
default; meanwhile stderr says what is wrong, at growing intervals) and it names the jobs whose
ends it did not see, 6 the token was refused (401). A refused token is not weather: waiting does not
mend it, so the command reads its token again (keyring, token files: a ``labdeck login`` meanwhile)
and goes on with a new one, or ends at once saying how to sign in again.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TextIO
from urllib.parse import urlsplit

from labdeck.api import errors
from labdeck.api.client import ApiClient
from labdeck.base import logsafe
from labdeck.base.secret import Secret
from labdeck.base.session import Session
from labdeck.logtext.search import visible
from labdeck.operations.following.multi import MultiFollower
from labdeck.operations.following.patience import GIVE_UP_AFTER, Patience
from labdeck.operations.following.statuses import WAITING_STATUSES, FollowedJob

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_CANCELED, EXIT_UNREADABLE, EXIT_GAVE_UP = 0, 1, 2, 3, 4, 5
EXIT_TOKEN_REFUSED = 6
EXIT_BY_STATUS = {"failed": EXIT_FAILED, "canceled": EXIT_CANCELED}
PREFIX_COLOURS = ("36", "35", "33", "32", "34", "96", "95", "93", "92", "94")
"""ANSI colours of the job prefixes, in turn (a terminal's own palette: no theme outside the TUI)."""
RESET = "\x1b[0m"


class ChoiceError(Exception):
    """The command line names no job to follow."""


def wants_colour(stream: TextIO, environ: dict[str, str] | None = None) -> bool:
    """Colours only on a terminal, and never when ``NO_COLOR`` is set (to anything but "")."""
    environ = dict(os.environ) if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def choose(jobs: Sequence[Any], names: Sequence[str], stage: str | None) -> list[Any]:
    """The jobs named (by name or id) and/or of ``stage``; all when neither is given. A job
    retried keeps only its newest try."""
    newest: dict[str, Any] = {}
    for job in sorted(jobs, key=lambda item: int(item.id)):
        newest[str(job.name)] = job
    chosen = list(newest.values())
    if stage:
        chosen = [job for job in chosen if job.stage == stage]
        if not chosen:
            raise ChoiceError(f"no job in stage {stage!r} (stages: {', '.join(sorted({str(j.stage) for j in jobs}))})")
    if names:
        wanted = set(names)
        picked = [job for job in chosen if str(job.name) in wanted or str(job.id) in wanted]
        missing = wanted - {str(job.name) for job in picked} - {str(job.id) for job in picked}
        if missing:
            raise ChoiceError(f"no such job in the pipeline: {', '.join(sorted(missing))}")
        chosen = picked
    if not chosen:
        raise ChoiceError("the pipeline has no jobs")
    return sorted(chosen, key=lambda job: int(job.id))


class Printer:
    """Writes the merged log's new lines as they arrive."""

    def __init__(self, follower: MultiFollower, out: TextIO, *, colour: bool) -> None:
        self.follower = follower
        self.out = out
        self.colour = colour
        self.width = max(len(label) for label in follower.labels)
        self.printed = 0

    def prefix(self, job: int, mark: str = "│") -> str:
        label = self.follower.labels[job].ljust(self.width)
        if self.colour:
            return f"\x1b[{PREFIX_COLOURS[job % len(PREFIX_COLOURS)]}m{label}{RESET} {mark} "
        return f"{label} {mark} "

    def __call__(self) -> None:
        log = self.follower.log
        start = max(self.printed, log.dropped)
        if start >= log.total:
            return
        parts: list[str] = []
        for seq in range(start, log.total):
            entry = log.entry(seq)
            if entry.note == "end":
                label = self.follower.labels[entry.job]
                if self.colour:
                    label = f"\x1b[{PREFIX_COLOURS[entry.job % len(PREFIX_COLOURS)]}m{label}{RESET}"
                parts.append(f"{label} {entry.text}\n")
                continue
            text = entry.text if self.colour else visible(entry.text)
            if entry.note:
                text = logsafe.printable(text)
            parts.append(f"{self.prefix(entry.job)}{text}{RESET if self.colour else ''}\n")
        self.printed = log.total
        self.out.write("".join(parts))
        self.out.flush()


Renew = Callable[[], Awaitable["tuple[ApiClient, str] | None"]]
"""After a 401: a client with the token read again and where it came from, or None (the same token)."""


async def follow(client: ApiClient, project: str, pipeline_id: int, names: Sequence[str], stage: str | None,
                 out: TextIO, err: TextIO, *, colour: bool, rate: float = 2.0,
                 give_up_after: float = GIVE_UP_AFTER, origin: str = "the server",
                 renew: Renew | None = None, sign_in: str = "") -> int:
    """Follow the chosen jobs until all finished, until no read succeeded for ``give_up_after``
    seconds, or until the token is refused (and ``renew`` finds no other); the exit code.
    ``sign_in``: how to give a token again, said when it is refused."""
    found = await client.projects.get(int(project) if project.isdigit() else project)
    listed = await client.jobs.list(found.id, pipeline_id=pipeline_id).all()
    chosen = choose(listed, names, stage)
    jobs = [FollowedJob(found.id, int(job.id), str(job.name), pipeline_id, str(job.status), str(job.stage or ""))
            for job in chosen]
    follower = MultiFollower(client, jobs, rate=rate)
    printer = Printer(follower, out, colour=colour)
    follower.on_change = printer
    err.write(f"labdeck follow: {len(jobs)} job(s) of pipeline #{pipeline_id} in "
              f"{logsafe.printable(found.path_with_namespace or project)}: "
              f"{', '.join(logsafe.printable(label) for label in follower.labels)}\n")
    for number, job in enumerate(jobs):
        if job.status in WAITING_STATUSES:
            out.write(f"{printer.prefix(number, '…')}waiting ({job.status or 'not started'})\n")
    patience = Patience(origin, give_up_after)
    running = asyncio.get_running_loop().create_task(follower.run(), name="follow")
    while not running.done():
        await asyncio.wait({running}, timeout=PATIENCE_TICK)
        if running.done():
            break
        said = patience.observe(client.health)
        if said and not patience.refused:
            err.write(f"labdeck follow: {logsafe.printable(said)}\n")
            err.flush()
        if patience.refused:
            # Waiting does not mend a refused token: a new one (stored meanwhile) takes over the
            # reads the 401 stopped, or the command ends now rather than after --give-up-after.
            renewed = await renew() if renew is not None else None
            if renewed is None:
                await stop(running)
                printer()
                err.write(f"labdeck follow: {origin} refuses the token (401): revoked or expired? "
                          f"{sign_in or 'Give a valid token'}; {not_seen(follower)}\n")
                return EXIT_TOKEN_REFUSED
            client, source = renewed
            err.write(f"labdeck follow: {origin} refuses the token (401); going on with the token now in "
                      f"{logsafe.printable(source)}\n")
            err.flush()
            follower.use_client(client)
            patience.observe(None)
        if patience.exhausted:
            await stop(running)
            printer()
            err.write(f"labdeck follow: {logsafe.printable(patience.gave_up())}; {not_seen(follower)}\n")
            return EXIT_GAVE_UP
    await running
    printer()
    return EXIT_BY_STATUS.get(follower.worst_status(), EXIT_OK)


PATIENCE_TICK = 0.5
"""Seconds between two looks at the client's health while following."""


async def stop(running: asyncio.Task[None]) -> None:
    """Cancel the follower's task and wait for it to end."""
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await running


def not_seen(follower: MultiFollower) -> str:
    """``the end of 2 job(s) was not seen: deploy-eu (last seen running), deploy-us (…)``."""
    missing = [f"{label} (last seen {state.status or 'not started'})"
               for label, state in zip(follower.labels, follower.states, strict=True) if not state.ended]
    return f"the end of {len(missing)} job(s) was not seen: {', '.join(logsafe.printable(m) for m in missing)}"


def origin_of(base_url: str) -> str:
    """``https://gitlab.example.com`` of an instance URL: no path, never credentials."""
    parts = urlsplit(base_url)
    host = parts.hostname or "?"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}"


def run_follow(session: Session, project: str, pipeline: str, names: Sequence[str], stage: str | None,
               out: TextIO, err: TextIO, *, give_up_after: float = GIVE_UP_AFTER) -> int:
    """``labdeck follow``: print the merged log until every chosen job finished (or no read
    succeeded for ``give_up_after`` seconds)."""
    if not pipeline.isdigit():
        err.write("labdeck follow: PIPELINE is a pipeline id (a number)\n")
        return EXIT_USAGE
    colour = wants_colour(out)

    verify: bool | str = session.ca_file or not session.insecure
    renewed: list[ApiClient] = []
    tokens = [session.token]

    async def renew() -> tuple[ApiClient, str] | None:
        found = await asyncio.to_thread(reread_token, session)
        if found is None or found[0] in tokens:
            return None
        tokens.append(found[0])
        renewed.append(ApiClient(session.base_url, found[0], read_only=True, verify=verify))
        return renewed[-1], found[1]

    async def main() -> int:
        async with ApiClient(session.base_url, session.token, read_only=True, verify=verify) as client:
            try:
                return await follow(client, project, int(pipeline), names, stage, out, err, colour=colour,
                                    give_up_after=give_up_after, origin=origin_of(session.base_url),
                                    renew=renew, sign_in=sign_in_hint(session))
            finally:
                for other in renewed:
                    await other.aclose()

    try:
        return asyncio.run(main())
    except ChoiceError as exc:
        err.write(f"labdeck follow: {logsafe.printable(str(exc))}\n")
        return EXIT_USAGE
    except errors.Unauthorized:
        err.write(f"labdeck follow: {origin_of(session.base_url)} refuses the token (401): revoked or expired? "
                  f"{sign_in_hint(session)}\n")
        return EXIT_TOKEN_REFUSED
    except errors.ApiError as exc:
        err.write(f"labdeck follow: {logsafe.printable(exc.user_message())}\n")
        return EXIT_UNREADABLE


def reread_token(session: Session) -> tuple[Secret, str] | None:
    """The session's token read again from where tokens are kept (a ``labdeck login`` since start),
    and where it was found; None where it cannot change (``--token-stdin``, a prompt, the demo)."""
    from labdeck.auth.chain import TokenChain, TokenInputError

    if session.token_source in ("stdin", "prompt", "demo", "none"):
        return None
    try:
        found = TokenChain(interactive=False).resolve(session.profile, session.base_url, allow_prompt=False)
    except TokenInputError:
        return None
    return (found.token, found.source) if found.token is not None else None


def sign_in_hint(session: Session) -> str:
    """How to give the instance a token again, for the line that ends following."""
    return (f"Sign in again (`labdeck login --profile {logsafe.printable(session.profile)} --url "
            f"{logsafe.printable(session.base_url)} --token-stdin`) or set LABDECK_TOKEN")
